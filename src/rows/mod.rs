//! Lane packs into rows: the transposes behind every copy of lane output
//! into a caller's memory ([`crate::output`], [`crate::stream::Stream::write_into`]
//! and the crowd's `*_into`).
//!
//! A pack holds one joint of eight characters as one lane vector per
//! component (`x` of the eight, then `y`, then `z`); a caller wants each
//! character's joints in a row, `out[c * joints + j]`. Read lane by lane
//! and stored element by element, that copy ran at 4.7 to 5.5x a plain copy
//! of the bytes written for positions and 9 to 12x for rotations (PERF.md,
//! "Issue 27", "Readout"): per element eight lane extractions and three or
//! four scalar stores.
//!
//! Here two joints at a time are transposed in registers as one 8x8 block
//! (`wide`'s `f32x8::transpose`: 24 shuffles with AVX): the six lane
//! vectors of two positions (`x, y, z` of joint `j`, then of `j + 1`) give
//! eight rows `[x y z x' y' z' _ _]`, one per character; the eight of two
//! rotations give eight rows of two quaternions. Each row leaves the
//! registers in one 32-byte store into a block of rows on the stack
//! ([`BLOCK`] joints of eight characters; position rows overlap, the two
//! spare floats being overwritten by the next pair or falling into the
//! row's padding). The block's rows are then converted into the
//! destination in the destination's own order, row after row, so the
//! destination is written front to back, and where the conversion is a
//! copy (`[f32; 3]`, `Vec3`, glam's and mint's vectors) the compiler makes
//! it a plain vector copy. One 8x3 transpose per joint with 16-byte stores
//! instead took 1.47x the time in cache (eight stores per joint where the
//! pairs need four).
//!
//! For the output types whose conversion is a copy of the components in
//! a known order (`[f32; 3]`, [`Vec3`], `[f32; 4]`, [`Quat`], glam's), the
//! rows skip the stack: [`direct`] transposes eight positions (three 8x8
//! blocks) or two rotations at a time straight into the destination; this
//! module's stack rows are the portable path for every other type.
//!
//! While a pack's rotations are transposed, the crowd prefetches the
//! lines of the next pack's rotations ([`prefetch_next`]: 3 to 8% faster
//! on a Zen 3, a Zen 4 and a Zen 5) on AMD's CPUs only
//! ([`crate::prefetch::rows_ahead_help`]: on an Intel Xeon 11 to 30%
//! slower). (Independently of these reads, the crowd's readers take the
//! next pack's destination lines for writing on Intel's CPUs,
//! [`crate::prefetch::dest_ahead_help`].) The three-vector readers do not
//! fetch their rows ahead:
//! reading 96 of each 416-byte pack-joint is a stride a stand-alone copy
//! of an older 8x3 kernel on a Zen 3 read faster fetched ahead (287
//! against 188 µs, 10,000 characters), but today's readers are as fast
//! or up to 25% faster without it on all three machine kinds (PERF.md, "On a Zen
//! 4" and "On the Zen 3 (2026-12-07)"). Reading
//! those positions alone takes 0.9 to 1.2x a copy of the bytes a readout
//! writes, which is why no readout of the crowd reaches a copy's speed
//! (PERF.md, "Issue 27"). With each pack's fields in runs of their own
//! (a block a pack), every `*_into` but the rotations on one thread was
//! 10 to 25% faster, and still 1.33x a copy or more; the layout is not
//! on main for what it did to level of detail's resuming packs and to
//! the step's timing (PERF.md, "The world output's fields apart").

use core::borrow::Borrow;
use core::ops::Range;

use crate::lanes::{F32x8, Quatx8, Vec3x8};
use crate::reference::{Kform, Quat, Vec3};

mod affine;
mod direct;
mod shuffle;

pub(crate) use affine::pack_affine;
pub(crate) use direct::{AffineLayout, affine_floats};

/// Joints per block of rows: the crowd's 32 joints in one block (3.3 KB of
/// positions, 4.2 KB of rotations: L1-resident with the destination).
pub(crate) const BLOCK: usize = 32;

/// Floats per row of three-float elements: a block's elements and room for
/// the last 8-float store (a single last joint's, at `3 * (BLOCK - 1)`).
const S3: usize = 3 * BLOCK + 8;

/// Floats per row of four-float elements, with room for a single last
/// joint's 8-float store.
const S4: usize = 4 * BLOCK + 4;

/// Rows `k` of two positions: `[a.x, a.y, a.z, b.x, b.y, b.z, _, _]` of
/// lane `k`, for each `k`.
#[inline(always)]
pub(crate) fn pair3(a: &Vec3x8, b: &Vec3x8) -> [F32x8; 8] {
    F32x8::transpose([a.x, a.y, a.z, b.x, b.y, b.z, a.x, a.y])
}

/// Rows `k` of two rotations: `[a.w, a.x, a.y, a.z, b.w, b.x, b.y, b.z]`
/// of lane `k`, for each `k`.
#[inline(always)]
pub(crate) fn pair4(a: &Quatx8, b: &Quatx8) -> [F32x8; 8] {
    F32x8::transpose([a.w, a.x, a.y, a.z, b.w, b.x, b.y, b.z])
}

/// Starts loading into cache the lines of `field` of each joint of the
/// pack that follows `pack` in memory (the one a copy reads next; past the
/// last pack the addresses are only hints that read nothing).
#[inline(always)]
pub(crate) fn prefetch_next<T, V>(pack: &[T], field: impl Fn(&T) -> &V) {
    let step = size_of_val(pack);
    for t in pack {
        let at = field(t) as *const V as usize + step;
        let mut off = 0;
        while off < size_of::<V>() {
            crate::prefetch::to_l2_line(at + off);
            off += 64;
        }
        crate::prefetch::to_l2_line(at + size_of::<V>() - 1);
    }
}

/// Eight rows of up to [`BLOCK`] three-float elements: row `k` holds lane
/// `k` of each joint of a block.
pub(crate) struct Rows3([f32; 8 * S3]);

/// Eight rows of up to [`BLOCK`] four-float elements.
pub(crate) struct Rows4([f32; 8 * S4]);

impl Rows3 {
    pub(crate) fn new() -> Rows3 {
        Rows3([0.0; 8 * S3])
    }

    /// Row `k`, column `jj` = lane `k` of `field(block[jj])`, for a block
    /// of at most [`BLOCK`] joints ([`fill_pairs`] with [`pair3`]).
    #[inline(always)]
    fn fill<'a, T, V: Borrow<Vec3x8>>(&mut self, block: &'a [T], field: &impl Fn(&'a T) -> V) {
        fill_pairs(&mut self.0, (S3, 3), block, |t| {
            pair3(field(t.0).borrow(), field(t.1).borrow())
        });
    }

    /// The first `n` elements of row `k`.
    #[inline(always)]
    fn row(&self, k: usize, n: usize) -> impl Iterator<Item = Vec3> + '_ {
        self.0[k * S3..k * S3 + 3 * n]
            .chunks_exact(3)
            .map(|v| Vec3::new(v[0], v[1], v[2]))
    }
}

impl Rows4 {
    pub(crate) fn new() -> Rows4 {
        Rows4([0.0; 8 * S4])
    }

    /// As [`Rows3::fill`], four floats per element ([`pair4`]).
    #[inline(always)]
    fn fill<'a, T, V: Borrow<Quatx8>>(&mut self, block: &'a [T], field: &impl Fn(&'a T) -> V) {
        fill_pairs(&mut self.0, (S4, 4), block, |t| {
            pair4(field(t.0).borrow(), field(t.1).borrow())
        });
    }

    /// The first `n` elements of row `k`, as quaternions `(w, x, y, z)`.
    #[inline(always)]
    fn row(&self, k: usize, n: usize) -> impl Iterator<Item = Quat> + '_ {
        self.0[k * S4..k * S4 + 4 * n]
            .chunks_exact(4)
            .map(|q| Quat::new(q[0], q[1], q[2], q[3]))
    }
}

/// Rows of eight lanes by up to [`BLOCK`] elements of `width` floats
/// (rows `stride` floats apart) from `block`, transposed two joints at a
/// time by `pair` (eight rows of a pair's floats, spare floats last). Pairs
/// in order, so each store's spare floats are overwritten by the next
/// pair's; a last odd joint is paired with itself.
#[inline(always)]
fn fill_pairs<'a, T>(
    rows: &mut [f32],
    (stride, width): (usize, usize),
    block: &'a [T],
    pair: impl Fn((&'a T, &'a T)) -> [F32x8; 8],
) {
    debug_assert!(block.len() <= BLOCK);
    let block = &block[..block.len().min(BLOCK)];
    let mut pairs = block.chunks_exact(2);
    for (jp, two) in pairs.by_ref().enumerate() {
        for (k, row) in pair((&two[0], &two[1])).iter().enumerate() {
            let at = k * stride + 2 * width * jp;
            rows[at..at + 8].copy_from_slice(row.as_array());
        }
    }
    if let [last] = pairs.remainder() {
        for (k, row) in pair((last, last)).iter().enumerate() {
            let at = k * stride + width * (block.len() - 1);
            rows[at..at + 8].copy_from_slice(row.as_array());
        }
    }
}

/// The rows of one pack's joints, block by block: for each block of
/// [`BLOCK`] joints starting at `j0` with `n` of them, `fill(rows, j0, n)`
/// fills the scratch rows and `emit(rows, k, dst)` converts row `k` into
/// `dst`, the `n` elements of `out` at `(k - lanes.start) * joints + j0`.
#[inline(always)]
fn blocks<R, O>(
    rows: &mut R,
    joints: usize,
    lanes: Range<usize>,
    out: &mut [O],
    fill: impl Fn(&mut R, usize, usize),
    emit: impl Fn(&R, usize, &mut [O]),
) {
    debug_assert!(lanes.end <= 8 && out.len() == lanes.len() * joints);
    for j0 in (0..joints).step_by(BLOCK) {
        let n = (joints - j0).min(BLOCK);
        fill(rows, j0, n);
        for (r, k) in lanes.clone().enumerate() {
            let at = r * joints + j0;
            emit(rows, k, &mut out[at..at + n]);
        }
    }
}

/// `out[(k - lanes.start) * pack.len() + j] = O::from(lane k of
/// field(&pack[j]))` for every joint `j` of one pack and every lane `k` of
/// `lanes` (`lanes.end <= 8`; `out` has `lanes.len() * pack.len()`
/// elements): a pack's characters' rows, in row order.
///
/// When `O`'s conversion is a copy of `x, y, z` ([`direct::xyz_floats`]:
/// `[f32; 3]`, [`Vec3`], glam's `Vec3`) the rows are transposed straight
/// into `out` ([`direct::pack_xyz`]); any other `O` goes through `rows`
/// ([`portable_rows3`]). Both write the same bits.
#[inline(always)]
pub(crate) fn pack_rows3<'a, T, V: Borrow<Vec3x8>, O: From<Vec3>>(
    rows: &mut Rows3,
    pack: &'a [T],
    lanes: Range<usize>,
    out: &mut [O],
    field: impl Fn(&'a T) -> V,
) {
    if let Some(floats) = direct::xyz_floats(out) {
        return direct::pack_xyz(pack, lanes, floats, field);
    }
    portable_rows3(rows, pack, lanes, out, field)
}

/// [`pack_rows3`] for any `O: From<Vec3>`: through the block of rows on
/// the stack, converted element by element.
#[inline(always)]
pub(crate) fn portable_rows3<'a, T, V: Borrow<Vec3x8>, O: From<Vec3>>(
    rows: &mut Rows3,
    pack: &'a [T],
    lanes: Range<usize>,
    out: &mut [O],
    field: impl Fn(&'a T) -> V,
) {
    blocks(
        rows,
        pack.len(),
        lanes,
        out,
        |rows, j0, n| rows.fill(&pack[j0..j0 + n], &field),
        |rows, k, dst| {
            for (d, v) in dst.iter_mut().zip(rows.row(k, BLOCK)) {
                *d = O::from(v);
            }
        },
    );
}

/// [`pack_rows3`] for a quaternion field, converted with `From<Quat>`:
/// straight into `out` ([`direct::pack_quat`]) when `O`'s conversion is a
/// copy of the four components in a known order ([`direct::quat_floats`]:
/// `[f32; 4]`, [`Quat`], glam's `Quat`), else through `rows`
/// ([`portable_rows4`]).
#[inline(always)]
pub(crate) fn pack_rows4<'a, T, V: Borrow<Quatx8>, O: From<Quat>>(
    rows: &mut Rows4,
    pack: &'a [T],
    lanes: Range<usize>,
    out: &mut [O],
    field: impl Fn(&'a T) -> V,
) {
    if let Some((floats, order)) = direct::quat_floats(out) {
        return direct::pack_quat(pack, lanes, floats, order, field);
    }
    portable_rows4(rows, pack, lanes, out, field)
}

/// [`pack_rows4`] for any `O: From<Quat>`: through the block of rows on
/// the stack.
#[inline(always)]
pub(crate) fn portable_rows4<'a, T, V: Borrow<Quatx8>, O: From<Quat>>(
    rows: &mut Rows4,
    pack: &'a [T],
    lanes: Range<usize>,
    out: &mut [O],
    field: impl Fn(&'a T) -> V,
) {
    blocks(
        rows,
        pack.len(),
        lanes,
        out,
        |rows, j0, n| rows.fill(&pack[j0..j0 + n], &field),
        |rows, k, dst| {
            for (d, q) in dst.iter_mut().zip(rows.row(k, BLOCK)) {
                *d = O::from(q);
            }
        },
    );
}

/// Scratch rows of a position, a rotation and a scale.
pub(crate) struct KformRows {
    pos: Rows3,
    rot: Rows4,
    scl: Rows3,
}

impl KformRows {
    pub(crate) fn new() -> KformRows {
        KformRows {
            pos: Rows3::new(),
            rot: Rows4::new(),
            scl: Rows3::new(),
        }
    }
}

/// [`pack_rows3`] for whole transforms: `O::from(Kform { pos, rot, scl,
/// ..Kform::IDENTITY })` of each lane (velocities zero), from a joint's
/// three lane fields. Into `[f32; 16]` ([`direct::matrix_floats`]) the
/// matrices are made in lanes and transposed straight into `out`
/// ([`direct::pack_matrix`]: the same bits); any other `O` goes through
/// `rows`.
#[inline(always)]
pub(crate) fn pack_rows_kform<'a, T, O: From<Kform>>(
    rows: &mut KformRows,
    pack: &'a [T],
    lanes: Range<usize>,
    out: &mut [O],
    pos: impl Fn(&'a T) -> Vec3x8,
    rot: impl Fn(&'a T) -> Quatx8,
    scl: impl Fn(&'a T) -> Vec3x8,
) {
    if let Some(floats) = direct::matrix_floats(out) {
        return direct::pack_matrix(pack, lanes, floats, pos, rot, scl);
    }
    blocks(
        rows,
        pack.len(),
        lanes,
        out,
        |r, j0, n| {
            let block = &pack[j0..j0 + n];
            r.pos.fill(block, &pos);
            r.rot.fill(block, &rot);
            r.scl.fill(block, &scl);
        },
        |r, k, dst| {
            let elems = r
                .pos
                .row(k, BLOCK)
                .zip(r.rot.row(k, BLOCK))
                .zip(r.scl.row(k, BLOCK));
            for (d, ((pos, rot), scl)) in dst.iter_mut().zip(elems) {
                *d = O::from(Kform {
                    pos,
                    rot,
                    scl,
                    ..Kform::IDENTITY
                });
            }
        },
    );
}

/// `out[8 p + k] = O::from(lane k of packs[p])` for as many elements as
/// `out` has (at most `8 * packs.len()`): a stream of [`Vec3x8`] into its
/// elements, pack by pack (one 8x8 transpose per pack, rows stored
/// overlapping into a run of eight elements).
///
/// Straight into `out`'s floats ([`direct::runs_xyz`]) for the types of
/// [`direct::xyz_floats`].
pub(crate) fn runs3<O: From<Vec3>>(packs: &[Vec3x8], out: &mut [O]) {
    if let Some(floats) = direct::xyz_floats(out) {
        let n = floats.len().min(24 * packs.len());
        return direct::runs_xyz(packs, &mut floats[..n]);
    }
    let mut run = [0.0f32; 3 * 7 + 8];
    for (o, p) in out.chunks_mut(8).zip(packs) {
        for (k, row) in pair3(p, p).iter().enumerate() {
            run[3 * k..3 * k + 8].copy_from_slice(row.as_array());
        }
        let elems = run.chunks_exact(3).map(|v| Vec3::new(v[0], v[1], v[2]));
        for (d, v) in o.iter_mut().zip(elems) {
            *d = O::from(v);
        }
    }
}

/// [`runs3`] for a stream of [`Quatx8`] (two packs per 8x8 transpose).
///
/// Straight into `out`'s floats ([`direct::runs_quat`]) for the types of
/// [`direct::quat_floats`].
pub(crate) fn runs4<O: From<Quat>>(packs: &[Quatx8], out: &mut [O]) {
    if let Some((floats, order)) = direct::quat_floats(out) {
        let n = floats.len().min(32 * packs.len());
        return direct::runs_quat(packs, &mut floats[..n], order);
    }
    for (o, p) in out.chunks_mut(16).zip(packs.chunks(2)) {
        let rows = pair4(&p[0], p.last().unwrap_or(&p[0]));
        let (a, b) = o.split_at_mut(o.len().min(8));
        for (k, (d, row)) in a.iter_mut().zip(&rows).enumerate() {
            let r = row.as_array();
            *d = O::from(Quat::new(r[0], r[1], r[2], r[3]));
            if let Some(d) = b.get_mut(k) {
                *d = O::from(Quat::new(r[4], r[5], r[6], r[7]));
            }
        }
    }
}

#[cfg(test)]
mod tests;
