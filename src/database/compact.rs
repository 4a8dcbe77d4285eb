//! Compact tables ([`ClipStorage::Compact`](super::ClipStorage)): the full
//! tables' layout (frame-major, one entry per turning joint and per moving
//! joint) with each entry one 8-byte word of [`codec`] instead of a
//! 32-byte row, so a frame of the CMU clip's 23 turning joints and one
//! moving joint takes 192 bytes instead of 768.
//!
//! Sampling reads the words of the frame at and the frame after each
//! lane's time (the same frame at a clip's last: a zero step, as the full
//! rows store it), decodes both, and derives the steps the full rows store
//! from the decoded frames, as [`super::Database::new`] derives them from
//! the source's: `w = quat_log(quat_abs(r₁ r₀⁻¹))`
//! ([`lanes::quat_log_short`]), `w·w`, and `d = p₁ - p₀`. Sampling is then
//! the full rows' (`pos = p₀ + a d`, `rot = exp(a w) r₀`, `vel = d / dt`,
//! `ang = 2 w / dt`), of the decoded frames: the velocities are the
//! decoded motion's own, and the reference crowd, sampling the decoded
//! clips ([`super::Database::decoded_clips`]) with
//! [`crate::reference::op_sample_linear`], computes the same.
//!
//! **Where a compact gather's cost goes** (callgrind, the demo crowd of
//! 2,000 characters on one thread, the embedded clip): the words' loads
//! cost about what the full rows' loads and 8×8 transpose do (two
//! instructions a word, `words8`); what full rows do not pay is the
//! two decodes (about 30 instructions each: three fields, a square root,
//! the permutation by the dropped index) and the derived step (about 45:
//! `r₁ r₀⁻¹`, its hemisphere, a division and the arc tangent's series,
//! `step_rot`). The step is what a cheaper word cannot remove: any
//! format that stores frames and not steps derives it, and storing it
//! too does not fit in a quarter of the full rows.
//!
//! **Prefetch**: beyond L3 compact clips were 1.7 to 1.8x the full rows'
//! frame though they read half the lines (PERF.md, "Idle-machine runs
//! of 2026-11-28"), more than their arithmetic explains in cache. The
//! likely cause: a lane's words of one frame are 184 to 216 bytes, three
//! or four lines, too short a run for the hardware prefetcher to learn,
//! so each new line is a miss the sampling waits on (the full rows' 736
//! to 864 bytes turned out to be fetched late too, and are prefetched
//! the same way since: PERF.md, "Full rows prefetched"). Tables larger than
//! [`PREFETCH_ABOVE_BYTES`] are prefetched into L1 a pack at a time,
//! both sources' frames and the frames after them, before the pack
//! samples ([`Gather::prefetch`]).

use super::codec::{self, PositionBox, Words8};
use super::gather::{Frames8, Gather, Rowx8, check_rows, prefetch_rows};
use super::stepped::{SteppedRows, Steps};
use super::{Clip, ClipStorage, Database, Rows, Tables, reserve};
use crate::error::Result;
use crate::lanes::{self, I32x8};
use crate::reference::{Quat, Vec3};
use std::borrow::Cow;

/// The compact tables of a database (compact or stepped words).
#[derive(Clone, Debug)]
pub(super) struct Compact {
    /// The turning joints' frames.
    turns: Turns,
    /// Per frame, a position word per moving joint.
    pos: Vec<u64>,
    /// Per moving joint, its position box.
    boxes: Vec<PositionBox>,
    /// Per moving joint, the per-axis error bound of its box.
    bounds: Vec<Vec3>,
}

/// The turning joints' frames of compact tables.
#[derive(Clone, Debug)]
enum Turns {
    /// [`ClipStorage::Compact`]: per frame, a rotation word per turning
    /// joint.
    Words(Vec<u64>),
    /// [`ClipStorage::Stepped`]: per frame, a rotation word and a step word
    /// per turning joint ([`super::stepped`]).
    Stepped(Steps),
}

/// A database's compact words, for sampling.
#[derive(Clone, Copy, Debug)]
pub struct CompactRows<'a> {
    db: &'a Database,
    rot: &'a [u64],
    pos: &'a [u64],
    boxes: &'a [PositionBox],
    /// Whether [`Gather::prefetch`] fetches (tables larger than
    /// [`PREFETCH_ABOVE_BYTES`]).
    prefetch: bool,
}

/// Compact tables larger than this are prefetched a pack's frames at a
/// time ([`Gather::prefetch`]): 1 MiB, a core's L2 on the AMD machines
/// measured (512 KB on Zen 3), so that tables that stay in L2 pay no
/// prefetch instructions.
pub const PREFETCH_ABOVE_BYTES: usize = 1 << 20;

/// `s = tan²(θ/4)` of a step of `θ` radians at most which
/// [`step_rot`] takes the short series of the arc tangent: 0.01, a step
/// of up to 0.399 rad (23°) a frame, which a 120 Hz clip's joints nearly
/// always make.
const LOG_SMALL_S: f32 = 0.01;

/// The step from `r0` to `r1` as the full rows store it:
/// `w = quat_log_short(quat_abs(r1 r0⁻¹))` ([`lanes::quat_log_short`])
/// and `w·w`. Where every lane's `s = l² / (1 + w)²` (`l` the length of
/// the vector part; `s = tan²(θ/4)`) is within [`LOG_SMALL_S`], the factor
/// `2 atan(√s) / (√s (1 + w))` takes the Taylor series `atan(t)/t = 1 -
/// s/3 + s²/5 - s³/7`, truncated below `s⁴/9 = 1.2e-9` (within f32
/// rounding of the minimax polynomial [`lanes::quat_log_short_factor`]
/// uses, four fewer multiply-adds); otherwise that factor.
#[inline(always)]
fn step_rot(r0: lanes::Quatx8, r1: lanes::Quatx8) -> (lanes::Vec3x8, lanes::F32x8) {
    use lanes::{F32x8, splat};
    let d = lanes::quat_abs(lanes::quat_mul_inv(r1, r0));
    let v = d.xyz();
    let l2 = lanes::dot(v, v);
    let r = splat(1.0) / (splat(1.0) + d.w);
    let s = l2 * (r * r);
    let k: F32x8 = if s.simd_le(splat(LOG_SMALL_S)).all() {
        let series = s.mul_add(splat(-1.0 / 7.0), splat(1.0 / 5.0));
        let series = s.mul_add(s.mul_add(series, splat(-1.0 / 3.0)), splat(1.0));
        (r + r) * series
    } else {
        lanes::quat_log_short_factor(d.w, l2)
    };
    // `w·w = k² l²`: two multiplies instead of a dot product.
    (v * k, (k * k) * l2)
}

impl Compact {
    /// The words of `clips` (with continuous rotations, `total` frames):
    /// each moving joint's box spans its positions over every clip; with
    /// `stepped`, each rotation word paired with its step word
    /// ([`Steps::new`]).
    pub(super) fn new(
        clips: &[Cow<'_, Clip>],
        total: usize,
        (turning, turning_count): (&[Option<usize>], usize),
        (moving, count): (&[Option<usize>], usize),
        stepped: bool,
    ) -> Result<Compact> {
        let mut rot: Vec<u64> = reserve(total * turning_count, "database rotation words")?;
        let mut pos: Vec<u64> = reserve(total * count, "database position words")?;
        let mut boxes = Vec::with_capacity(count);
        let mut bounds = Vec::with_capacity(count);
        for j in (0..moving.len()).filter(|&j| moving[j].is_some()) {
            let mut lo = Vec3::splat(f32::INFINITY);
            let mut hi = Vec3::splat(f32::NEG_INFINITY);
            for c in clips {
                for f in 0..c.frames() {
                    let p = c.pos_at(f, j);
                    lo = Vec3::new(lo.x.min(p.x), lo.y.min(p.y), lo.z.min(p.z));
                    hi = Vec3::new(hi.x.max(p.x), hi.y.max(p.y), hi.z.max(p.z));
                }
            }
            let b = |i: usize| codec::position_error_bound(lo.to_array()[i], hi.to_array()[i]);
            boxes.push(PositionBox::new(lo, hi));
            bounds.push(Vec3::new(b(0), b(1), b(2)));
        }
        for c in clips {
            for f in 0..c.frames() {
                for (j, moves) in moving.iter().enumerate() {
                    if turning[j].is_some() {
                        rot.push(codec::encode_rotation(c.rot_at(f, j)));
                    }
                    if let Some(m) = moves {
                        pos.push(boxes[*m].encode(c.pos_at(f, j)));
                    }
                }
            }
        }
        crate::pages::collapse_filled(&pos);
        if !stepped {
            crate::pages::collapse_filled(&rot);
        }
        let turns = match stepped {
            true => {
                let spans: Vec<usize> = clips.iter().map(|c| c.frames()).collect();
                Turns::Stepped(Steps::new(&rot, turning_count, &spans)?)
            }
            false => Turns::Words(rot),
        };
        Ok(Compact {
            turns,
            pos,
            boxes,
            bounds,
        })
    }

    /// How the turning joints' frames are stored.
    pub(super) fn storage(&self) -> ClipStorage {
        match self.turns {
            Turns::Words(_) => ClipStorage::Compact,
            Turns::Stepped(_) => ClipStorage::Stepped,
        }
    }

    /// Bytes of the words.
    pub(super) fn bytes(&self) -> usize {
        let turns = match &self.turns {
            Turns::Words(rot) => size_of_val(&rot[..]),
            Turns::Stepped(s) => s.bytes(),
        };
        turns + size_of_val(&self.pos[..])
    }

    /// The position words and the moving joints' boxes.
    pub(super) fn positions(&self) -> (&[u64], &[PositionBox]) {
        (&self.pos, &self.boxes)
    }

    /// Rotation word `i` (of frame `i / turning_count`).
    fn rotation_word(&self, i: usize) -> u64 {
        match &self.turns {
            Turns::Words(rot) => rot[i],
            Turns::Stepped(s) => s.rotation_word(i),
        }
    }

    /// The words for sampling.
    #[inline(always)]
    pub(super) fn rows<'a>(&'a self, db: &'a Database) -> Rows<'a> {
        match &self.turns {
            Turns::Words(rot) => Rows::Compact(CompactRows {
                db,
                rot,
                pos: &self.pos,
                boxes: &self.boxes,
                prefetch: self.bytes() > PREFETCH_ABOVE_BYTES,
            }),
            Turns::Stepped(s) => Rows::Stepped(SteppedRows::new(db, s, self)),
        }
    }
}

impl Database {
    /// The compact tables, if the database has them.
    fn compact(&self) -> Option<&Compact> {
        match &self.tables {
            Tables::Compact(c) => Some(c),
            Tables::Full { .. } => None,
        }
    }

    /// Joint `j`'s position and rotation in global frame `f` as sampling
    /// reads them: decoded from compact words ([`codec::decode_rotation`],
    /// [`PositionBox::decode`], the lanes decode's scalar twins), or the
    /// source's (with continuous rotations) from full rows. `None` past
    /// the database's frames or joints.
    pub fn frame_joint(&self, f: usize, j: usize) -> Option<(Vec3, Quat)> {
        if f >= self.frames || j >= self.joints {
            return None;
        }
        let pos = match (self.moving[j], &self.tables) {
            (None, _) => self.fixed[j],
            (Some(m), Tables::Compact(c)) => c.boxes[m].decode(c.pos[f * self.moving_count + m]),
            (Some(m), Tables::Full { pos, .. }) => {
                let v = pos[f * self.moving_count + m].v;
                Vec3::new(v[0], v[1], v[2])
            }
        };
        let rot = match (self.turning[j], &self.tables) {
            (None, _) => self.still[j].unwrap_or(Quat::IDENTITY),
            (Some(k), Tables::Compact(c)) => {
                codec::decode_rotation(c.rotation_word(f * self.turning_count + k))
            }
            (Some(k), Tables::Full { rot, .. }) => {
                let v = rot[f * self.turning_count + k].v;
                Quat::new(v[0], v[1], v[2], v[3])
            }
        };
        Some((pos, rot))
    }

    /// The most a decoded position of joint `j` is off its source per
    /// axis ([`codec::position_error_bound`] of the joint's box): zero
    /// for full rows and for a joint whose position does not move.
    pub fn position_error_bound(&self, j: usize) -> Vec3 {
        match (self.compact(), self.moving_row(j)) {
            (Some(c), Some(m)) => c.bounds[m],
            _ => Vec3::ZERO,
        }
    }

    /// The step from frame `f` to the next that the tables store for
    /// joint `j` (the half-angle vector of sampling's rotation step): the
    /// full rows' (computed from the source), the stepped words' (decoded,
    /// [`Database::step_error_bound`]); zero for a joint that does not
    /// turn. `None` past the database's frames or joints, and for compact
    /// words, which store no step (sampling derives it).
    pub fn stored_step(&self, f: usize, j: usize) -> Option<Vec3> {
        if f >= self.frames || j >= self.joints {
            return None;
        }
        let Some(k) = self.turning[j] else {
            return Some(Vec3::ZERO);
        };
        let i = f * self.turning_count + k;
        match &self.tables {
            Tables::Full { rot, .. } => Some(Vec3::new(rot[i].v[4], rot[i].v[5], rot[i].v[6])),
            Tables::Compact(c) => match &c.turns {
                Turns::Words(_) => None,
                Turns::Stepped(s) => Some(s.step(i, k)),
            },
        }
    }

    /// The most a stored step of joint `j` ([`Database::stored_step`]) is
    /// off the step of the decoded frames (computed in f64, rounded to
    /// f32), per axis: [`codec::position_error_bound`] of the joint's box
    /// of steps for stepped words; zero, as not applicable, otherwise
    /// (full rows store the f32 logarithm of the source's step, compact
    /// words none).
    pub fn step_error_bound(&self, j: usize) -> Vec3 {
        match (self.compact().map(|c| &c.turns), self.turning.get(j)) {
            (Some(Turns::Stepped(s)), Some(Some(k))) => s.bound(*k),
            _ => Vec3::ZERO,
        }
    }

    /// The clips as sampling reads them ([`Database::frame_joint`]),
    /// `source`'s scales kept: for full rows the source's clips with
    /// continuous rotations, for compact words the decoded motion. The
    /// reference crowd samples these, so that both crowds play the same
    /// motion. `source` must be the clips the database was built from.
    /// Each clip's motion is reserved with `try_reserve`: [`crate::Error::Size`]
    /// where it cannot be had.
    pub fn decoded_clips(&self, source: &[Clip]) -> Result<Vec<Clip>> {
        let mut out = crate::error::try_empty("decoded clips", source.len())?;
        for (c, &(start, frames)) in source.iter().zip(&self.clips) {
            let n = crate::error::checked_mul("decoded clip samples", frames, self.joints)?;
            let mut pos = crate::error::try_empty("decoded clip positions", n)?;
            let mut rot = crate::error::try_empty("decoded clip rotations", n)?;
            for f in start..start + frames {
                for j in 0..self.joints {
                    let (p, q) = self.frame_joint(f, j).unwrap_or_default();
                    pos.push(p);
                    rot.push(q);
                }
            }
            out.push(c.with_motion(pos, rot)?);
        }
        Ok(out)
    }
}

/// The words at `base[i] + k` of `table` in lanes.
///
/// With AVX the eight words are loaded as two vectors of four, lanes 0,
/// 1, 4, 5 and 2, 3, 6, 7 (each 128-bit half two words, loaded as a low
/// and a high half), so that one `vshufps` per half takes their low and
/// high 32 bits in lane order;
/// built element by element instead, the vectors went through the stack
/// (scalar stores, then a vector load that cannot be forwarded from them).
/// The joint's column `table + k` is taken once, so each word is one
/// load at `column + 8 base[i]` (an index and a base register) after its
/// base is read: two instructions a word instead of three.
///
/// # Safety
/// Every `base[i] + k` is within `table` (the caller checked the largest
/// with [`check_rows`]).
#[inline(always)]
unsafe fn words8(table: &[u64], base: &[u32; 8], k: usize) -> Words8 {
    // SAFETY: `k <= base[i] + k < table.len()` (the caller's promise), so
    // the column pointer is within the table.
    let column = unsafe { table.as_ptr().add(k) };
    // SAFETY: `column + base[i]` is `table + base[i] + k`, within the
    // table (the caller's promise).
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
    let w = |i: usize| unsafe { *column.add(base[i] as usize) } as i64;
    #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
    {
        use core::arch::x86_64::{
            __m128d, __m256, _mm_load_sd, _mm_loadh_pd, _mm256_castpd_ps, _mm256_castps_si256,
            _mm256_set_m128d, _mm256_shuffle_ps,
        };
        // Words `i` and `j` as the low and high halves of one vector: a
        // load and a load into the high half (`vmovsd`, `vmovhpd`).
        let pair = |i: usize, j: usize| -> __m128d {
            // SAFETY: both addresses are within the table (as for `w`)
            // and 8-byte aligned (u64 words); the loads move the bits as
            // they are (no float operation touches them); SSE2 is part
            // of x86_64.
            unsafe {
                let at = |i: usize| column.add(base[i] as usize).cast::<f64>();
                _mm_loadh_pd(_mm_load_sd(at(i)), at(j))
            }
        };
        // SAFETY: these intrinsics need AVX, which this build enables
        // (the `cfg` above); they touch no memory.
        let (lo, hi) = unsafe {
            let a: __m256 = _mm256_castpd_ps(_mm256_set_m128d(pair(4, 5), pair(0, 1)));
            let b: __m256 = _mm256_castpd_ps(_mm256_set_m128d(pair(6, 7), pair(2, 3)));
            // Per 128-bit half: [a0 a2 b0 b2] (the low halves) and [a1 a3 b1 b3].
            (
                _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(a, b)),
                _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(a, b)),
            )
        };
        Words8 {
            lo: bytemuck::cast(lo),
            hi: bytemuck::cast(hi),
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
    {
        let w: [i64; 8] = core::array::from_fn(w);
        Words8 {
            lo: I32x8::new(w.map(|x| x as i32)),
            hi: I32x8::new(w.map(|x| (x >> 32) as i32)),
        }
    }
}

/// Joint `j`'s positions of the frames `f`, and the steps to the frames
/// after them, from `db`'s compact position words `pos` (moving joints'
/// boxes `boxes`): decoded where the joint moves, its fixed position and a
/// zero step otherwise. Compact and stepped words both read positions so.
#[inline(always)]
pub(super) fn gather_positions(
    db: &Database,
    (pos, boxes): (&[u64], &[PositionBox]),
    f: &Frames8,
    j: usize,
) -> (lanes::Vec3x8, lanes::Vec3x8) {
    match db.moving[j] {
        Some(m) => moving_positions(pos, &boxes[m], f, m),
        None => db.fixed_pos(j),
    }
}

/// Moving joint `m`'s positions of the frames `f` in the position words
/// `pos` (box `bx`), and the steps to the frames after them. One check for
/// the sixteen words, then unchecked loads.
#[inline(always)]
fn moving_positions(
    pos: &[u64],
    bx: &PositionBox,
    f: &Frames8,
    m: usize,
) -> (lanes::Vec3x8, lanes::Vec3x8) {
    check_rows(f.max[1], m, pos.len());
    // SAFETY: every base of `f.pos` and `f.pos_next` is at most `f.max[1]`
    // (`Frames8::rows`; the fields are private and never change), and
    // `f.max[1] + m < pos.len()` was checked just above.
    let (w0, w1) = unsafe { (words8(pos, &f.pos, m), words8(pos, &f.pos_next, m)) };
    let (p0, p1) = (
        codec::decode_positions(w0, bx),
        codec::decode_positions(w1, bx),
    );
    (p0, p1 - p0)
}

impl Gather for CompactRows<'_> {
    #[inline(always)]
    fn frames(&self, k: I32x8, start: I32x8, last: I32x8) -> Frames8 {
        Frames8::with_next(k, start, last, self.db.widths())
    }

    /// Starts loading into L1 every line the gathers of `f` will read
    /// (where the tables are larger than [`PREFETCH_ABOVE_BYTES`]): per
    /// lane, from its frame's first word to the end of the frame after it
    /// (the two frames are consecutive in a table), in each table; six
    /// or seven lines a lane for the CMU skeleton's rotations.
    #[inline(always)]
    fn prefetch(&self, f: &Frames8) {
        if !self.prefetch {
            return;
        }
        let [rot_width, pos_width] = self.db.widths();
        prefetch_rows(self.rot, (&f.rot, &f.rot_next), rot_width);
        prefetch_rows(self.pos, (&f.pos, &f.pos_next), pos_width);
    }

    /// Joint `j` of eight frames and the frames after them, decoded, with
    /// the steps between them derived (see the module docs). One check for
    /// the sixteen words of a table, then unchecked loads.
    #[inline(always)]
    fn gather(&self, f: &Frames8, j: usize) -> Rowx8 {
        let db = self.db;
        let (rot, step_rot, step_h2) = match db.turning[j] {
            Some(k) => {
                check_rows(f.max[0], k, self.rot.len());
                // SAFETY: every base of `f.rot` and `f.rot_next` is at
                // most `f.max[0]` (`Frames8::rows`; the fields are private
                // and never change), and `f.max[0] + k < self.rot.len()`
                // was checked just above.
                let (w0, w1) = unsafe {
                    (
                        words8(self.rot, &f.rot, k),
                        words8(self.rot, &f.rot_next, k),
                    )
                };
                let (r0, r1) = (codec::decode_rotations(w0), codec::decode_rotations(w1));
                let (w, h2) = step_rot(r0, r1);
                (r0, w, h2)
            }
            None => db.still_rot(j),
        };
        let (pos, step_pos) = gather_positions(db, (self.pos, self.boxes), f, j);
        Rowx8 {
            pos,
            rot,
            step_rot,
            step_h2,
            step_pos,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lanes::{Quatx8, Vec3x8};
    use rand::{Rng, SeedableRng};

    use crate::database::stepped::step64;

    /// [`step_rot`] is the logarithm of the step in both of its domains
    /// (packs of steps within [`LOG_SMALL_S`], and packs with one step
    /// beyond it), across the hemispheres (`r1` negated in some lanes):
    /// each component within 2e-7 rad plus 2e-6 of the step's length of
    /// the f64 logarithm, and `w·w` within that bound carried into the
    /// square. Fails with the series' `1/5` as `1/4` (an error of
    /// `s²/20`, 5e-6 relative at the domain's edge).
    #[test]
    fn the_derived_step_is_the_logarithm_in_both_domains() {
        let mut r = rand_pcg::Pcg32::seed_from_u64(27);
        let unit = |r: &mut rand_pcg::Pcg32| {
            let v: [f32; 4] = core::array::from_fn(|_| r.random_range(-1.0..1.0));
            crate::reference::quat_normalize(Quat::new(v[0], v[1], v[2], v[3]))
        };
        for round in 0..4000 {
            // Every other pack has one large step (the general domain).
            let big_lane = (round % 2 == 1).then_some(round / 2 % 8);
            let mut q0 = [Quat::IDENTITY; 8];
            let mut q1 = [Quat::IDENTITY; 8];
            for i in 0..8 {
                q0[i] = unit(&mut r);
                let most = if big_lane == Some(i) { 3.0 } else { 0.39 };
                let angle: f32 = r.random_range(0.0..most);
                let axis = crate::reference::normalize(Vec3::new(
                    r.random_range(-1.0..1.0),
                    r.random_range(-1.0..1.0),
                    r.random_range(-1.0..1.0),
                ));
                let d = crate::reference::quat_from_angle_axis(angle, axis);
                let q = crate::reference::quat_mul(d, q0[i]);
                q1[i] = if r.random() { q } else { -q };
            }
            let (w, h2) = step_rot(Quatx8::from_array(q0), Quatx8::from_array(q1));
            for i in 0..8 {
                let want = step64(q0[i], q1[i]);
                let got = Vec3x8::lane(w, i).to_array();
                let len = want.iter().map(|x| x * x).sum::<f64>();
                for k in 0..3 {
                    let e = (got[k] as f64 - want[k]).abs();
                    assert!(
                        e <= 2e-7 + 2e-6 * len.sqrt(),
                        "round {round} lane {i} axis {k}: {got:?} against {want:?}"
                    );
                }
                // The components' bound `b` carried into `|w|²`.
                let b = 2e-7 + 2e-6 * len.sqrt();
                let e = (h2.as_array()[i] as f64 - len).abs();
                assert!(
                    e <= 2.0 * 3f64.sqrt() * b * len.sqrt() + 3.0 * b * b,
                    "round {round} lane {i}: w·w {} against {len}",
                    h2.as_array()[i]
                );
            }
        }
    }
}
