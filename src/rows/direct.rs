//! Rows transposed in registers straight into the destination, for the
//! output types whose conversion is a copy of the floats in a known order.
//!
//! The portable path ([`super::pack_rows3`] and [`super::pack_rows4`] for
//! any `O: From<Vec3>` or `From<Quat>`) goes through a block of rows on the
//! stack and converts them element by element: about 5.8 instructions per
//! position and 7 per rotation (callgrind, PERF.md "Readout"), where a copy
//! of the same bytes takes under one. When `O` is one of the types listed
//! in [`xyz_floats`] and [`quat_floats`] (`[f32; 3]`, kineform's own
//! [`Vec3`], `[f32; 4]` as `x, y, z, w`, [`Quat`] as `w, x, y, z`, and
//! glam's `Vec3` and `Quat` with a `glam` feature), whose `From` writes
//! the components in that order and nothing else, the destination is
//! written here as floats instead, whole 32-byte rows at a time:
//!
//! - positions, eight joints at a time: the 24 lane vectors `x, y, z` of
//!   joints `j .. j + 8` in that order are three 8x8 blocks; transposed
//!   ([`super::shuffle::transpose8`], 24 shuffles each with AVX), row `k`
//!   of the three blocks is lane `k`'s 24 floats `x y z` of the eight
//!   joints, which are contiguous in the destination: three 32-byte
//!   stores. Each block's eight vectors are loaded as its transpose needs
//!   them and its rows stored before the next block is read (24 inputs
//!   held at once spilled 15 of AVX2's 16 registers), and the eight rows
//!   are addressed once per group ([`at_rows`]), not checked per store: 72
//!   shuffles, 24 loads and 24 stores per 64 elements, about 2.1
//!   instructions an element in the loop.
//! - rotations, two joints at a time: the 8x8 block of two quaternions in
//!   the destination's component order gives eight rows of two whole
//!   elements, each one 32-byte store at its place.
//! - transforms into `[f32; 16]` and glam's `Mat4` ([`matrix_floats`], [`pack_matrix`]):
//!   each joint's eight column-major matrices `T R S` made in lanes, as
//!   [`crate::skinning::kform_matrix`] makes one (the same bits), then two
//!   8x8 transposes whose row `k` is lane `k`'s matrix: two 32-byte stores
//!   each (PERF.md: `output::transforms` 5.3x a copy before, 3.0x after).
//! - streams (elements consecutive, [`runs_xyz`], [`runs_quat`]): a pack's
//!   eight elements are 24 or 32 consecutive floats, made from its three or
//!   four lane vectors with 9 or 12 shuffles.
//!
//! A pack entered part-way (not all eight lanes wanted), and a last group
//! of fewer than eight joints (or a last single rotation, transposed with
//! its last joint repeated), go through rows on the stack, and only their
//! own floats are copied out.
//!
//! Which type `O` is, is read with `typeid::of` (a `TypeId` for a type
//! parameter that need not be `'static`), compared with each listed type's
//! `TypeId`; the types are plain float arrays and structs without lifetime
//! parameters, so an equal id means `O` is that type (`typeid`'s documented
//! guarantee), and the slice is reinterpreted as itself in [`same`], the
//! one `unsafe` block here. The float view is then `bytemuck`'s.

use core::any::TypeId;
use core::borrow::Borrow;
use core::ops::Range;

use bytemuck::Pod;

use super::shuffle::{Native, quad_runs, transpose8, xyz_runs};
use crate::lanes::{F32x8, Quatx8, Vec3x8, splat};
use crate::reference::{Quat, Vec3};

/// Whether `O` is `T` (`T` a type without lifetime parameters).
#[inline(always)]
fn is<O, T: Pod>() -> bool {
    typeid::of::<O>() == TypeId::of::<T>()
}

/// `out` as a slice of `T` when `O` is `T`.
#[inline(always)]
fn same<O, T: Pod>(out: &mut [O]) -> Option<&mut [T]> {
    if !is::<O, T>() {
        return None;
    }
    // SAFETY: every `T` this is called with (`[f32; N]`, kineform's and
    // glam's vector and quaternion types) has no lifetime parameter, so
    // the only type whose `typeid::of` (the id of the type with its
    // lifetimes made `'static`) equals `TypeId::of::<T>()` is `T` itself:
    // `O` is `T`. The pointer, length and borrow are `out`'s own, so this
    // is `out` under its own type's name: same size, alignment, validity
    // and lifetime, and `out` is not used again while it lives.
    Some(unsafe { core::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<T>(), out.len()) })
}

/// In a function of an output type parameter `O`: returns the floats of
/// `out` (a `&mut [O]`) when `O` is one of the types listed
/// ([`same`]).
macro_rules! floats_if {
    ($out:ident; $($t:ty),*) => {$(
        if is::<O, $t>() {
            return same::<O, $t>($out).map(|s| bytemuck::cast_slice_mut(s));
        }
    )*};
}

/// As [`floats_if`], returning the floats with `$kind` (the type's order
/// or layout) beside them.
macro_rules! floats_as {
    ($out:ident, $kind:expr; $($t:ty),*) => {$(
        if is::<O, $t>() {
            return same::<O, $t>($out).map(|s| (bytemuck::cast_slice_mut(s), $kind));
        }
    )*};
}

/// The floats of `out` when `O` is a type whose `From<Vec3>` writes `x, y,
/// z` as its three floats in that order (`[f32; 3]`, [`Vec3`], glam's
/// `Vec3`); `None` for any other type.
#[inline(always)]
pub(crate) fn xyz_floats<O>(out: &mut [O]) -> Option<&mut [f32]> {
    floats_if!(out; [f32; 3], Vec3);
    #[cfg(feature = "glam029")]
    floats_if!(out; glam029::Vec3);
    #[cfg(feature = "glam030")]
    floats_if!(out; glam030::Vec3);
    #[cfg(feature = "glam033")]
    floats_if!(out; glam033::Vec3);
    None
}

/// The component order of a quaternion type's four floats.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum QuatOrder {
    /// `x, y, z, w`: `[f32; 4]` (`From<Quat> for [f32; 4]`), glam's `Quat`.
    Xyzw,
    /// `w, x, y, z`: kineform's [`Quat`].
    Wxyz,
}

/// The floats of `out` and their order when `O` is a type whose
/// `From<Quat>` writes the four components in one of the [`QuatOrder`]s;
/// `None` for any other type.
#[inline(always)]
pub(crate) fn quat_floats<O>(out: &mut [O]) -> Option<(&mut [f32], QuatOrder)> {
    floats_as!(out, QuatOrder::Xyzw; [f32; 4]);
    floats_as!(out, QuatOrder::Wxyz; Quat);
    #[cfg(feature = "glam029")]
    floats_as!(out, QuatOrder::Xyzw; glam029::Quat);
    #[cfg(feature = "glam030")]
    floats_as!(out, QuatOrder::Xyzw; glam030::Quat);
    #[cfg(feature = "glam033")]
    floats_as!(out, QuatOrder::Xyzw; glam033::Quat);
    None
}

/// The floats of `out` when `O` is `[f32; 16]` or glam's `Mat4`, whose
/// `From<Kform>` is [`crate::skinning::kform_matrix`] (the column-major
/// `T R S`; glam's through `Mat4::from_cols_array`, its 16 floats in the
/// same order); `None` for any other type (mint's `ColumnMatrix4` is not
/// `Pod`, glam's `Affine3A` holds other floats).
#[inline(always)]
pub(crate) fn matrix_floats<O>(out: &mut [O]) -> Option<&mut [f32]> {
    floats_if!(out; [f32; 16]);
    #[cfg(feature = "glam029")]
    floats_if!(out; glam029::Mat4);
    #[cfg(feature = "glam030")]
    floats_if!(out; glam030::Mat4);
    #[cfg(feature = "glam033")]
    floats_if!(out; glam033::Mat4);
    None
}

/// How a matrix type holds the 12 entries of an affine `m` (3x4 rows
/// `(m[r][0], m[r][1], m[r][2], t[r])`), as [`crate::skinning::SkinMatrix`]
/// writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AffineLayout {
    /// Column-major 4x4, bottom row `0 0 0 1`: `[f32; 16]`, glam's `Mat4`.
    Cols16,
    /// The three rows in order: `[f32; 12]`.
    Rows12,
}

/// The floats of `out` and their layout when `O` is a matrix type whose
/// [`crate::skinning::SkinMatrix::from_lanes`] writes an affine's entries
/// in one of the [`AffineLayout`]s and nothing else (`[f32; 16]`, `[f32;
/// 12]`, glam's `Mat4`); `None` for any other type.
#[inline(always)]
pub(crate) fn affine_floats<O>(out: &mut [O]) -> Option<(&mut [f32], AffineLayout)> {
    floats_as!(out, AffineLayout::Cols16; [f32; 16]);
    floats_as!(out, AffineLayout::Rows12; [f32; 12]);
    #[cfg(feature = "glam029")]
    floats_as!(out, AffineLayout::Cols16; glam029::Mat4);
    #[cfg(feature = "glam030")]
    floats_as!(out, AffineLayout::Cols16; glam030::Mat4);
    #[cfg(feature = "glam033")]
    floats_as!(out, AffineLayout::Cols16; glam033::Mat4);
    None
}

/// The eight rows of a pack's output, `stride` floats each, when `out`
/// holds (at least) eight of them.
#[inline(always)]
pub(super) fn eight_rows(out: &mut [f32], stride: usize) -> Option<[&mut [f32]; 8]> {
    let mut it = out.chunks_exact_mut(stride);
    Some([
        it.next()?,
        it.next()?,
        it.next()?,
        it.next()?,
        it.next()?,
        it.next()?,
        it.next()?,
        it.next()?,
    ])
}

/// The `N` floats at `at` of a row.
#[inline(always)]
fn chunk_at<const N: usize>(row: &mut [f32], at: usize) -> Option<&mut [f32; N]> {
    row.get_mut(at..)?.first_chunk_mut()
}

/// The `N` floats at `at` of each of eight rows: where one group of
/// joints goes, checked once per group rather than once per store.
#[inline(always)]
pub(super) fn at_rows<'r, const N: usize>(
    rows: &'r mut [&mut [f32]; 8],
    at: usize,
) -> Option<[&'r mut [f32; N]; 8]> {
    let [r0, r1, r2, r3, r4, r5, r6, r7] = rows;
    Some([
        chunk_at(r0, at)?,
        chunk_at(r1, at)?,
        chunk_at(r2, at)?,
        chunk_at(r3, at)?,
        chunk_at(r4, at)?,
        chunk_at(r5, at)?,
        chunk_at(r6, at)?,
        chunk_at(r7, at)?,
    ])
}

/// `out[(k - lanes.start) stride + at ..][..n]` = `rows[k][..n]` for each
/// lane `k` of `lanes`: rows made on the stack copied out (a pack entered
/// part-way, a last group of fewer joints).
#[inline(always)]
pub(super) fn copy_rows<const N: usize>(
    out: &mut [f32],
    (stride, at, n): (usize, usize, usize),
    lanes: &Range<usize>,
    rows: &[[f32; N]; 8],
) {
    for (dst, k) in out.chunks_exact_mut(stride).zip(lanes.clone()) {
        dst[at..at + n].copy_from_slice(&rows[k][..n]);
    }
}

/// Eight joints' positions (`v[i]` or, past `v`'s length, its last) as
/// eight lane rows `dst[k]`: the 24 lane vectors `x, y, z` of `v[0]`, then
/// of `v[1]`, ..., are three 8x8 blocks, each transposed ([`transpose8`])
/// and stored before the next block is read; row `k` of the three blocks
/// is lane `k`'s 24 floats `x y z` of the eight joints in turn.
#[inline(always)]
fn xyz_group<V: Borrow<Vec3x8>>(v: &[V; 8], dst: [&mut [f32; 24]; 8]) {
    let [p0, p1, p2, p3, p4, p5, p6, p7] = [
        v[0].borrow(),
        v[1].borrow(),
        v[2].borrow(),
        v[3].borrow(),
        v[4].borrow(),
        v[5].borrow(),
        v[6].borrow(),
        v[7].borrow(),
    ];
    blocks3(
        [
            [&p0.x, &p0.y, &p0.z, &p1.x, &p1.y, &p1.z, &p2.x, &p2.y],
            [&p2.z, &p3.x, &p3.y, &p3.z, &p4.x, &p4.y, &p4.z, &p5.x],
            [&p5.y, &p5.z, &p6.x, &p6.y, &p6.z, &p7.x, &p7.y, &p7.z],
        ],
        dst,
    );
}

/// Three 8x8 blocks of lane vectors, transposed ([`transpose8`]) one after
/// another, into eight rows of 24 floats: row `k` holds lane `k` of the 24
/// vectors in order. Each block's rows are stored before the next block
/// is transposed (24 inputs held at once spill AVX2's 16 registers).
#[inline(always)]
pub(super) fn blocks3(blocks: [[&F32x8; 8]; 3], dst: [&mut [f32; 24]; 8]) {
    let t = transpose8::<Native>;
    let [d0, d1, d2, d3, d4, d5, d6, d7] = dst;
    for (b, block) in blocks.into_iter().enumerate() {
        let r = t(block);
        let span = 8 * b..8 * b + 8;
        d0[span.clone()].copy_from_slice(r[0].as_array());
        d1[span.clone()].copy_from_slice(r[1].as_array());
        d2[span.clone()].copy_from_slice(r[2].as_array());
        d3[span.clone()].copy_from_slice(r[3].as_array());
        d4[span.clone()].copy_from_slice(r[4].as_array());
        d5[span.clone()].copy_from_slice(r[5].as_array());
        d6[span.clone()].copy_from_slice(r[6].as_array());
        d7[span].copy_from_slice(r[7].as_array());
    }
}

/// The joints `j0 .. j0 + group.len()` (at most 8) of a pack.
#[inline(always)]
fn group_of<'a, T, V>(group: &'a [T], field: &impl Fn(&'a T) -> V) -> Option<[V; 8]> {
    let last = group.last()?;
    let f = |i: usize| field(group.get(i).unwrap_or(last));
    Some([f(0), f(1), f(2), f(3), f(4), f(5), f(6), f(7)])
}

/// `out[3 ((k - lanes.start) joints + j) ..][..3]` = `x, y, z` of lane `k`
/// of `field(&pack[j])`, for every joint `j` of one pack and lane `k` of
/// `lanes` (`out` holds `3 lanes.len() pack.len()` floats): a pack's rows
/// written straight into the destination's floats.
///
/// Eight joints at a time ([`xyz_group`]: three 8x8 transposes of 24
/// shuffles, each block's eight inputs read from the pack as it needs them
/// and its rows stored before the next, so nothing waits in registers or on
/// the stack), straight into the eight rows when the pack's eight lanes
/// are wanted; a pack entered part-way, and a last group of fewer than
/// eight joints (its last repeated), through rows on the stack.
#[inline(always)]
pub(crate) fn pack_xyz<'a, T, V: Borrow<Vec3x8>>(
    pack: &'a [T],
    lanes: Range<usize>,
    out: &mut [f32],
    field: impl Fn(&'a T) -> V,
) {
    let stride = 3 * pack.len();
    debug_assert!(lanes.end <= 8 && out.len() == lanes.len() * stride);
    let lanes = lanes.start..lanes.end.min(8);
    let mut groups = pack.chunks_exact(8);
    if let (true, Some(mut rows)) = (lanes == (0..8), eight_rows(out, stride)) {
        for (g, eight) in groups.by_ref().enumerate() {
            let (Some(v), Some(dst)) = (group_of(eight, &field), at_rows(&mut rows, 24 * g)) else {
                break;
            };
            xyz_group(&v, dst);
        }
    }
    let first = 8 * (pack.len() / 8 - groups.len());
    for (g, group) in pack[first..].chunks(8).enumerate() {
        let Some(v) = group_of(group, &field) else {
            break;
        };
        let mut rows = [[0.0f32; 24]; 8];
        xyz_group(&v, rows.each_mut());
        let at = 3 * first + 24 * g;
        copy_rows(out, (stride, at, 3 * group.len()), &lanes, &rows);
    }
}

/// A quaternion's four lane vectors in `order`.
#[inline(always)]
fn quat_comps(q: &Quatx8, order: QuatOrder) -> [&F32x8; 4] {
    match order {
        QuatOrder::Xyzw => [&q.x, &q.y, &q.z, &q.w],
        QuatOrder::Wxyz => [&q.w, &q.x, &q.y, &q.z],
    }
}

/// The rows of two rotations (`b` the second, `a` again for a last
/// single one): row `k` is lane `k`'s two elements in `order`.
#[inline(always)]
fn quat_pair(a: &Quatx8, b: &Quatx8, order: QuatOrder) -> [F32x8; 8] {
    let (a, b) = (quat_comps(a, order), quat_comps(b, order));
    transpose8::<Native>([a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]])
}

/// As [`pack_xyz`] for rotations, four floats per element in `order`:
/// two joints per 8x8 transpose ([`quat_pair`]), each row two whole
/// elements, one 32-byte store at its place.
#[inline(always)]
pub(crate) fn pack_quat<'a, T, V: Borrow<Quatx8>>(
    pack: &'a [T],
    lanes: Range<usize>,
    out: &mut [f32],
    order: QuatOrder,
    field: impl Fn(&'a T) -> V,
) {
    let stride = 4 * pack.len();
    debug_assert!(lanes.end <= 8 && out.len() == lanes.len() * stride);
    let lanes = lanes.start..lanes.end.min(8);
    let mut pairs = pack.chunks_exact(2);
    if let (true, Some(mut rows)) = (lanes == (0..8), eight_rows(out, stride)) {
        for (p, two) in pairs.by_ref().enumerate() {
            let Some(dst) = at_rows::<8>(&mut rows, 8 * p) else {
                break;
            };
            let (a, b) = (field(&two[0]), field(&two[1]));
            let r = quat_pair(a.borrow(), b.borrow(), order);
            for (d, r) in dst.into_iter().zip(&r) {
                *d = *r.as_array();
            }
        }
    }
    let first = 2 * (pack.len() / 2 - pairs.len());
    for (p, two) in pack[first..].chunks(2).enumerate() {
        let (a, b) = (field(&two[0]), field(two.last().unwrap_or(&two[0])));
        let r = quat_pair(a.borrow(), b.borrow(), order);
        let rows = [0, 1, 2, 3, 4, 5, 6, 7].map(|k| *r[k].as_array());
        let at = 4 * first + 8 * p;
        copy_rows(out, (stride, at, 4 * two.len()), &lanes, &rows);
    }
}

/// The column-major matrices `T R S` of one joint of eight characters,
/// row `k` of the two halves the 16 floats of lane `k`'s matrix:
/// [`crate::skinning::kform_matrix`] per lane with the same operations in
/// the same order (`rot3`, each rotation column times its scale), so the
/// same bits; its 16 lane vectors (three scaled columns and a zero, then
/// the translation and a one) as two 8x8 transposes.
#[inline(always)]
fn matrix_halves(pos: &Vec3x8, rot: &Quatx8, scl: &Vec3x8) -> [[F32x8; 8]; 2] {
    let r = crate::skinning::rot3(rot.w, rot.x, rot.y, rot.z, splat(1.0));
    let s = [scl.x, scl.y, scl.z];
    let col = |c: usize| [r[0][c] * s[c], r[1][c] * s[c], r[2][c] * s[c]];
    let (c0, c1, c2) = (col(0), col(1), col(2));
    let (zero, one) = (splat(0.0), splat(1.0));
    let t = transpose8::<Native>;
    [
        t([&c0[0], &c0[1], &c0[2], &zero, &c1[0], &c1[1], &c1[2], &zero]),
        t([&c2[0], &c2[1], &c2[2], &zero, &pos.x, &pos.y, &pos.z, &one]),
    ]
}

/// `out[16 ((k - lanes.start) joints + j) ..][..16]` = the column-major
/// matrix `T R S` of lane `k` of `pack[j]` ([`matrix_halves`]), for every
/// joint `j` and lane `k` of `lanes` (`out` holds `16 lanes.len()
/// pack.len()` floats), through [`pack_halves`].
#[inline(always)]
pub(crate) fn pack_matrix<'a, T>(
    pack: &'a [T],
    lanes: Range<usize>,
    out: &mut [f32],
    pos: impl Fn(&'a T) -> Vec3x8,
    rot: impl Fn(&'a T) -> Quatx8,
    scl: impl Fn(&'a T) -> Vec3x8,
) {
    pack_halves(pack, lanes, out, |_, t| {
        matrix_halves(&pos(t), &rot(t), &scl(t))
    });
}

/// `out[16 ((k - lanes.start) joints + j) ..][..16]` = row `k` of the two
/// halves `halves(j, &pack[j])` (the first eight floats, then the last
/// eight), for every joint `j` and lane `k` of `lanes` (`out` holds `16
/// lanes.len() pack.len()` floats): each element two 32-byte stores at
/// its place when the pack's eight lanes are wanted, else through rows on
/// the stack.
#[inline(always)]
pub(super) fn pack_halves<'a, T>(
    pack: &'a [T],
    lanes: Range<usize>,
    out: &mut [f32],
    halves: impl Fn(usize, &'a T) -> [[F32x8; 8]; 2],
) {
    let stride = 16 * pack.len();
    debug_assert!(lanes.end <= 8 && out.len() == lanes.len() * stride);
    let lanes = lanes.start..lanes.end.min(8);
    if let (true, Some(mut rows)) = (lanes == (0..8), eight_rows(out, stride)) {
        for (j, t) in pack.iter().enumerate() {
            let Some(dst) = at_rows::<16>(&mut rows, 16 * j) else {
                break;
            };
            let [lo, hi] = halves(j, t);
            for (k, d) in dst.into_iter().enumerate() {
                let (a, b) = d.split_at_mut(8);
                a.copy_from_slice(lo[k].as_array());
                b.copy_from_slice(hi[k].as_array());
            }
        }
        return;
    }
    for (j, t) in pack.iter().enumerate() {
        let [lo, hi] = halves(j, t);
        let rows: [[f32; 16]; 8] = core::array::from_fn(|k| {
            let mut m = [0.0f32; 16];
            m[..8].copy_from_slice(lo[k].as_array());
            m[8..].copy_from_slice(hi[k].as_array());
            m
        });
        copy_rows(out, (stride, 16 * j, 16), &lanes, &rows);
    }
}

/// `out` = the floats of `runs(pack)` for each pack in turn, as far as
/// `out` goes: whole runs of `8 N` floats stored straight, a last part
/// of one through the stack.
#[inline(always)]
fn store_runs<P, const N: usize, const F: usize>(
    packs: &[P],
    out: &mut [f32],
    runs: impl Fn(&P) -> [F32x8; N],
) {
    debug_assert_eq!(F, 8 * N);
    let (whole, rest) = out.as_chunks_mut::<F>();
    for (o, p) in whole.iter_mut().zip(packs) {
        for (o, r) in o.chunks_exact_mut(8).zip(&runs(p)) {
            o.copy_from_slice(r.as_array());
        }
    }
    if let (false, Some(p)) = (rest.is_empty(), packs.get(whole.len())) {
        for (o, r) in rest.chunks_mut(8).zip(&runs(p)) {
            o.copy_from_slice(&r.as_array()[..o.len()]);
        }
    }
}

/// A stream of [`Vec3x8`] into its elements' floats, `x, y, z` of
/// element `8p + k` (lane `k` of `packs[p]`) at `3 (8p + k)`, for as many
/// elements as `out` holds (`out.len() / 3` of them, at most `8
/// packs.len()`): each pack's 24 floats are contiguous, three vectors
/// ([`xyz_runs`]: 9 shuffles) stored in turn.
pub(crate) fn runs_xyz(packs: &[Vec3x8], out: &mut [f32]) {
    store_runs::<_, 3, 24>(packs, out, |p| xyz_runs::<Native>(&p.x, &p.y, &p.z));
}

/// A stream of [`Quatx8`] into its elements' floats in `order`, element
/// `8p + k` at `4 (8p + k)`, for as many elements as `out` holds: each
/// pack's 32 floats are four vectors ([`quad_runs`]: 12 shuffles) stored
/// in turn.
pub(crate) fn runs_quat(packs: &[Quatx8], out: &mut [f32], order: QuatOrder) {
    store_runs::<_, 4, 32>(packs, out, |p| quad_runs::<Native>(quat_comps(p, order)));
}
