//! Stepped words ([`ClipStorage::Stepped`](super::ClipStorage)): compact
//! clips that keep each frame's step. Each turning joint's entry of a frame
//! is 16 bytes, its rotation word ([`codec`], as in compact words) and a
//! step word: the half-angle vector of the step to the next frame,
//! `w = quat_log(quat_abs(r₁ r₀⁻¹))` of the decoded frames (computed in
//! f64 when the database is built, zero on a clip's last frame), in 21
//! bits per axis over the joint's box of steps (the position word's
//! format, [`PositionBox`]). Moving joints keep compact position words.
//! A frame of the CMU clip's 23 turning joints and one moving joint takes
//! 376 bytes, against the full rows' 768 and the compact words' 192.
//!
//! **Why**: compact words derive the step at sampling from two decoded
//! frames (two rotation decodes and a logarithm: callgrind counts about
//! 107 instructions a gather of eight lanes more than full rows' load and
//! transpose); a stepped entry is one rotation decode and a step decode
//! (about 46 more), with one 16-byte load a lane. Per frame of the demo
//! crowd (2,000 characters, the embedded clip, one thread) that is 1.17x
//! the full rows' instructions for compact words and 1.07x for stepped
//! ones. Wall time in PERF.md ("Stepped clips").
//!
//! **What sampling plays**: the decoded frames with the decoded steps.
//! The reference crowd samples the decoded frames
//! ([`super::Database::decoded_clips`]) and derives the steps from them,
//! so the two crowds' steps differ by at most the step word's error,
//! [`super::Database::step_error_bound`] per axis: over every shipped clip
//! in one library at most 1.1e-6 rad (the largest error measured 7.5e-7,
//! `tests/suite/compact_clips.rs`), so at 120 frames a second the angular
//! velocities differ by at most 2.7e-4 rad/s per axis of a joint. A step
//! of zero (a clip's last frame) is stored exactly: each box is symmetric
//! about zero.

use super::codec::{self, PositionBox, Words8};
use super::compact::{self, Compact};
use super::gather::{Frames8, Gather, Rowx8, check_rows, prefetch_rows};
use super::{Database, reserve};
use crate::error::Result;
use crate::lanes::{self, I32x8};
use crate::reference::{Quat, Vec3};

/// The stepped entries of a database's turning joints.
#[derive(Clone, Debug)]
pub(super) struct Steps {
    /// Per frame and turning joint, its rotation word and step word.
    words: Vec<[u64; 2]>,
    /// Per turning joint, the box of its steps.
    boxes: Vec<PositionBox>,
    /// Per turning joint, the per-axis error bound of its box.
    bounds: Vec<Vec3>,
}

/// The step `log(|q1 q0⁻¹|)` (half-angle vector) in f64.
pub(super) fn step64(q0: Quat, q1: Quat) -> [f64; 3] {
    let [aw, ax, ay, az] = [q1.w, q1.x, q1.y, q1.z].map(f64::from);
    let [bw, bx, by, bz] = [q0.w, q0.x, q0.y, q0.z].map(f64::from);
    let w = aw * bw + ax * bx + ay * by + az * bz;
    let x = -aw * bx + ax * bw - ay * bz + az * by;
    let y = -aw * by + ay * bw - az * bx + ax * bz;
    let z = -aw * bz + az * bw - ax * by + ay * bx;
    let s = if w < 0.0 { -1.0 } else { 1.0 };
    let l = (x * x + y * y + z * z).sqrt();
    let k = if l > 0.0 { l.atan2(w * s) / l } else { 1.0 };
    [x, y, z].map(|c| c * s * k)
}

/// The step from `q0` to `q1` as stepped words store it before
/// quantizing: `quat_log(quat_abs(q1 q0⁻¹))`, the half-angle vector,
/// computed in f64 and rounded to f32.
pub fn step_between(q0: Quat, q1: Quat) -> Vec3 {
    let [x, y, z] = step64(q0, q1);
    Vec3::new(x as f32, y as f32, z as f32)
}

/// Calls `f(i, k, w)` for each entry `i` of rotation words `rot` (turning
/// joint `k`, `width` words a frame, clips of `spans` frames in order) with
/// `w` the step from its decoded frame to the next frame's of the same clip
/// ([`step_between`]; zero on a clip's last frame), in entry order.
fn each_step(rot: &[u64], width: usize, spans: &[usize], mut f: impl FnMut(usize, usize, Vec3)) {
    let mut first = 0;
    for &frames in spans {
        for frame in 0..frames {
            let next = (frame + 1).min(frames - 1);
            for k in 0..width {
                let at = |g: usize| codec::decode_rotation(rot[(first + g) * width + k]);
                f(
                    (first + frame) * width + k,
                    k,
                    step_between(at(frame), at(next)),
                );
            }
        }
        first += frames;
    }
}

impl Steps {
    /// The stepped entries of rotation words `rot` (frame-major, `width`
    /// words a frame) of clips of `spans` frames each, in order. Two
    /// passes over the steps (the boxes, then the words), so that no
    /// buffer of steps is held beside the words. Each joint's box is
    /// symmetric about zero per axis (`±` its largest step), so that zero
    /// is a code: a clip's last frame (and any still stretch) decodes to a
    /// step of exactly zero, as the reference derives it.
    pub(super) fn new(rot: &[u64], width: usize, spans: &[usize]) -> Result<Steps> {
        let mut most = vec![[0.0f32; 3]; width];
        each_step(rot, width, spans, |_, k, w| {
            for (m, x) in most[k].iter_mut().zip(w.to_array()) {
                *m = m.max(x.abs());
            }
        });
        let lo = |k: usize| Vec3::new(-most[k][0], -most[k][1], -most[k][2]);
        let hi = |k: usize| Vec3::new(most[k][0], most[k][1], most[k][2]);
        let boxes: Vec<PositionBox> = (0..width).map(|k| PositionBox::new(lo(k), hi(k))).collect();
        let bounds = (0..width)
            .map(|k| {
                let b = |i: usize| codec::position_error_bound(-most[k][i], most[k][i]);
                Vec3::new(b(0), b(1), b(2))
            })
            .collect();
        let mut words: Vec<[u64; 2]> = reserve(rot.len(), "database stepped entries")?;
        each_step(rot, width, spans, |i, k, w| {
            words.push([rot[i], boxes[k].encode(w)])
        });
        crate::pages::collapse_filled(&words);
        Ok(Steps {
            words,
            boxes,
            bounds,
        })
    }

    /// Bytes of the entries.
    pub(super) fn bytes(&self) -> usize {
        size_of_val(&self.words[..])
    }

    /// The rotation word of entry `i`.
    pub(super) fn rotation_word(&self, i: usize) -> u64 {
        self.words[i][0]
    }

    /// The decoded step of entry `i` of turning joint `k`.
    pub(super) fn step(&self, i: usize, k: usize) -> Vec3 {
        self.boxes[k].decode(self.words[i][1])
    }

    /// The per-axis error bound of turning joint `k`'s steps.
    pub(super) fn bound(&self, k: usize) -> Vec3 {
        self.bounds[k]
    }
}

/// A database's stepped entries and compact position words, for sampling.
#[derive(Clone, Copy, Debug)]
pub struct SteppedRows<'a> {
    db: &'a Database,
    words: &'a [[u64; 2]],
    step_boxes: &'a [PositionBox],
    pos: &'a [u64],
    boxes: &'a [PositionBox],
    /// Whether [`Gather::prefetch`] fetches (tables larger than
    /// [`compact::PREFETCH_ABOVE_BYTES`]).
    prefetch: bool,
}

impl<'a> SteppedRows<'a> {
    /// The rows of `steps` and `c`'s position words.
    pub(super) fn new(db: &'a Database, steps: &'a Steps, c: &'a Compact) -> SteppedRows<'a> {
        let (pos, boxes) = c.positions();
        SteppedRows {
            db,
            words: &steps.words,
            step_boxes: &steps.boxes,
            pos,
            boxes,
            prefetch: c.bytes() > compact::PREFETCH_ABOVE_BYTES,
        }
    }
}

/// The four 32-bit parts of entries `base[i] + k` of `table` in lanes:
/// the rotation word's low and high halves, then the step word's.
///
/// With AVX2 each lane's 16 bytes are one load, lanes `i` and `i + 4`
/// paired in one 256-bit vector, and a 4×4 transpose of 32-bit parts in
/// each 128-bit half (eight unpacks) puts each part of the eight lanes in
/// one vector.
///
/// # Safety
/// Every `base[i] + k` is within `table` (the caller checked the largest
/// with [`check_rows`]).
#[inline(always)]
unsafe fn parts8(table: &[[u64; 2]], base: &[u32; 8], k: usize) -> [I32x8; 4] {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        use core::arch::x86_64::{
            __m128i, _mm_loadu_si128, _mm256_set_m128i, _mm256_unpackhi_epi32,
            _mm256_unpackhi_epi64, _mm256_unpacklo_epi32, _mm256_unpacklo_epi64,
        };
        // SAFETY: `table + base[i]` and `table + base[i] + k` are within
        // the table (`base[i] + k` is, the caller's promise), 16 readable
        // bytes; the load takes any alignment. These intrinsics need
        // AVX2, which this build enables (the `cfg` above). The lane's
        // row pointer `table + base[i]` is the same for every joint, so
        // each entry is one load at `row + 16 k` after the pointer is
        // read (`16 (base[i] + k)` took a shift and an add more: 16 is
        // not an x86 index scale).
        unsafe {
            let at = |i: usize| -> __m128i {
                _mm_loadu_si128(table.as_ptr().add(base[i] as usize).add(k).cast())
            };
            let v0 = _mm256_set_m128i(at(4), at(0));
            let v1 = _mm256_set_m128i(at(5), at(1));
            let v2 = _mm256_set_m128i(at(6), at(2));
            let v3 = _mm256_set_m128i(at(7), at(3));
            // Per half: [a0 b0 a1 b1], [a2 b2 a3 b3] of lanes (0, 1) and (2, 3).
            let t0 = _mm256_unpacklo_epi32(v0, v1);
            let t1 = _mm256_unpackhi_epi32(v0, v1);
            let t2 = _mm256_unpacklo_epi32(v2, v3);
            let t3 = _mm256_unpackhi_epi32(v2, v3);
            [
                bytemuck::cast(_mm256_unpacklo_epi64(t0, t2)),
                bytemuck::cast(_mm256_unpackhi_epi64(t0, t2)),
                bytemuck::cast(_mm256_unpacklo_epi64(t1, t3)),
                bytemuck::cast(_mm256_unpackhi_epi64(t1, t3)),
            ]
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        // SAFETY: the caller's promise, passed on.
        unsafe { parts8_scalar(table, base, k) }
    }
}

/// [`parts8`] without AVX2: each entry read whole and split. The lanes'
/// order is the same (the test `parts8_is_its_scalar_form` holds the two
/// together in AVX2 builds).
///
/// # Safety
/// As [`parts8`]: every `base[i] + k` is within `table`.
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "avx2", not(test)),
    allow(dead_code)
)]
#[inline(always)]
unsafe fn parts8_scalar(table: &[[u64; 2]], base: &[u32; 8], k: usize) -> [I32x8; 4] {
    // SAFETY: `base[i] + k < table.len()` (the caller's promise).
    let e: [[u64; 2]; 8] =
        core::array::from_fn(|i| unsafe { *table.as_ptr().add(base[i] as usize + k) });
    [
        I32x8::new(e.map(|x| x[0] as i32)),
        I32x8::new(e.map(|x| (x[0] >> 32) as i32)),
        I32x8::new(e.map(|x| x[1] as i32)),
        I32x8::new(e.map(|x| (x[1] >> 32) as i32)),
    ]
}

impl Gather for SteppedRows<'_> {
    #[inline(always)]
    fn frames(&self, k: I32x8, start: I32x8, last: I32x8) -> Frames8 {
        // The rotations read frame `k` only; the positions, as compact
        // words, `k` and the frame after it.
        Frames8::with_next(k, start, last, self.db.widths())
    }

    /// Starts loading into L1 every line the gathers of `f` will read
    /// (where the tables are larger than
    /// [`compact::PREFETCH_ABOVE_BYTES`]): per lane, its frame's entries
    /// (16 bytes a turning joint, six lines for the CMU skeleton), and
    /// its frame's and the next frame's position words.
    #[inline(always)]
    fn prefetch(&self, f: &Frames8) {
        if !self.prefetch {
            return;
        }
        let [rot_width, pos_width] = self.db.widths();
        prefetch_rows(self.words, (&f.rot, &f.rot), rot_width);
        prefetch_rows(self.pos, (&f.pos, &f.pos_next), pos_width);
    }

    /// Joint `j` of eight frames: the rotation and step words decoded
    /// ([`codec::decode_rotations`], [`codec::decode_positions`] in the
    /// joint's step box), positions as compact words. One check for the
    /// eight entries, then unchecked loads.
    #[inline(always)]
    fn gather(&self, f: &Frames8, j: usize) -> Rowx8 {
        let db = self.db;
        let (rot, step_rot, step_h2) = match db.turning[j] {
            Some(k) => {
                check_rows(f.max[0], k, self.words.len());
                // SAFETY: every base of `f.rot` is at most `f.max[0]`
                // (each constructor of `Frames8` sets `max` so: `rows`,
                // `rows_at`, and the all-zero `Default`; the fields are
                // private and never change), and `f.max[0] + k <
                // self.words.len()` was checked just above.
                let [a, b, c, d] = unsafe { parts8(self.words, &f.rot, k) };
                let r0 = codec::decode_rotations(Words8 { lo: a, hi: b });
                let w = codec::decode_positions(Words8 { lo: c, hi: d }, &self.step_boxes[k]);
                (r0, w, lanes::dot(w, w))
            }
            None => db.still_rot(j),
        };
        let (pos, step_pos) = compact::gather_positions(db, (self.pos, self.boxes), f, j);
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
    use rand::{Rng, SeedableRng};

    /// The AVX2 load and transpose gives each lane's entry as the scalar
    /// form does, at random bases and columns (in a build without AVX2 the
    /// two are one function). Fails with the vector halves swapped
    /// (`_mm256_set_m128i(at(0), at(4))`) or two unpacks exchanged.
    #[test]
    fn parts8_is_its_scalar_form() {
        let mut r = rand_pcg::Pcg32::seed_from_u64(39);
        let table: Vec<[u64; 2]> = (0..512).map(|_| [r.random(), r.random()]).collect();
        for _ in 0..2000 {
            let k = r.random_range(0..16);
            let base: [u32; 8] = core::array::from_fn(|_| r.random_range(0..496));
            // SAFETY: every `base[i] + k` is below 496 + 16 = 512, the
            // table's length.
            let (a, b) = unsafe { (parts8(&table, &base, k), parts8_scalar(&table, &base, k)) };
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(x.to_array(), y.to_array(), "base {base:?} k {k}");
            }
        }
    }
}
