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

use super::codec::{self, PositionBox, Words8};
use super::{Clip, Database, Frames8, Gather, Rowx8, Tables, check_rows, reserve};
use crate::error::Result;
use crate::lanes::{self, I32x8};
use crate::reference::{Quat, Vec3};

/// The compact tables of a database.
#[derive(Clone, Debug)]
pub(super) struct Compact {
    /// Per frame, a rotation word per turning joint.
    rot: Vec<u64>,
    /// Per frame, a position word per moving joint.
    pos: Vec<u64>,
    /// Per moving joint, its position box.
    boxes: Vec<PositionBox>,
    /// Per moving joint, the per-axis error bound of its box.
    bounds: Vec<Vec3>,
}

/// A database's compact words, for sampling.
#[derive(Clone, Copy, Debug)]
pub struct CompactRows<'a> {
    db: &'a Database,
    rot: &'a [u64],
    pos: &'a [u64],
    boxes: &'a [PositionBox],
}

impl Compact {
    /// The words of `clips` (with continuous rotations, `total` frames):
    /// each moving joint's box spans its positions over every clip.
    pub(super) fn new(
        clips: &[Clip],
        total: usize,
        (turning, turning_count): (&[Option<usize>], usize),
        (moving, count): (&[Option<usize>], usize),
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
                    let p = c.pos(f, j);
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
                        rot.push(codec::encode_rotation(c.rot(f, j)));
                    }
                    if let Some(m) = moves {
                        pos.push(boxes[*m].encode(c.pos(f, j)));
                    }
                }
            }
        }
        Ok(Compact {
            rot,
            pos,
            boxes,
            bounds,
        })
    }

    /// Bytes of the words.
    pub(super) fn bytes(&self) -> usize {
        size_of_val(&self.rot[..]) + size_of_val(&self.pos[..])
    }

    /// The words for sampling.
    #[inline(always)]
    pub(super) fn rows<'a>(&'a self, db: &'a Database) -> CompactRows<'a> {
        CompactRows {
            db,
            rot: &self.rot,
            pos: &self.pos,
            boxes: &self.boxes,
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
                codec::decode_rotation(c.rot[f * self.turning_count + k])
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

    /// The clips as sampling reads them ([`Database::frame_joint`]),
    /// `source`'s scales kept: for full rows the source's clips with
    /// continuous rotations, for compact words the decoded motion. The
    /// reference crowd samples these, so that both crowds play the same
    /// motion. `source` must be the clips the database was built from.
    pub fn decoded_clips(&self, source: &[Clip]) -> Vec<Clip> {
        source
            .iter()
            .zip(&self.clips)
            .map(|(c, &(start, frames))| {
                let mut pos = Vec::with_capacity(frames * self.joints);
                let mut rot = Vec::with_capacity(frames * self.joints);
                for f in start..start + frames {
                    for j in 0..self.joints {
                        let (p, q) = self.frame_joint(f, j).unwrap_or_default();
                        pos.push(p);
                        rot.push(q);
                    }
                }
                c.with_motion(pos, rot)
            })
            .collect()
    }
}

/// The words at `base[i] + k` of `table` in lanes.
///
/// With AVX the eight words are loaded as two vectors of four, lanes 0,
/// 1, 4, 5 and 2, 3, 6, 7 (each 128-bit half two words), so that one
/// `vshufps` per half takes their low and high 32 bits in lane order;
/// built element by element instead, the vectors went through the stack
/// (scalar stores, then a vector load that cannot be forwarded from them).
///
/// # Safety
/// Every `base[i] + k` is within `table` (the caller checked the largest
/// with [`check_rows`]).
#[inline(always)]
unsafe fn words8(table: &[u64], base: &[u32; 8], k: usize) -> Words8 {
    // SAFETY: the caller's promise.
    let w = |i: usize| unsafe { *table.get_unchecked(base[i] as usize + k) } as i64;
    #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
    {
        use core::arch::x86_64::{
            __m256, _mm256_castps_si256, _mm256_castsi256_ps, _mm256_set_epi64x, _mm256_shuffle_ps,
        };
        // SAFETY: these intrinsics need AVX, which this build enables
        // (the `cfg` above); they touch no memory.
        let (lo, hi) = unsafe {
            let a: __m256 = _mm256_castsi256_ps(_mm256_set_epi64x(w(5), w(4), w(1), w(0)));
            let b: __m256 = _mm256_castsi256_ps(_mm256_set_epi64x(w(7), w(6), w(3), w(2)));
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

impl Gather for CompactRows<'_> {
    #[inline(always)]
    fn frames(&self, k: I32x8, start: I32x8, last: I32x8) -> Frames8 {
        let next = (k + I32x8::splat(1)).min(last);
        Frames8::rows(k + start, next + start, self.db.widths())
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
                let w = lanes::quat_log_short(lanes::quat_abs(lanes::quat_mul_inv(r1, r0)));
                (r0, w, lanes::dot(w, w))
            }
            None => db.still_rot(j),
        };
        let (pos, step_pos) = match db.moving[j] {
            Some(m) => {
                check_rows(f.max[1], m, self.pos.len());
                // SAFETY: as for the rotations, with `f.max[1]`.
                let (w0, w1) = unsafe {
                    (
                        words8(self.pos, &f.pos, m),
                        words8(self.pos, &f.pos_next, m),
                    )
                };
                let bx = &self.boxes[m];
                let (p0, p1) = (
                    codec::decode_positions(w0, bx),
                    codec::decode_positions(w1, bx),
                );
                (p0, p1 - p0)
            }
            None => db.fixed_pos(j),
        };
        Rowx8 {
            pos,
            rot,
            step_rot,
            step_h2,
            step_pos,
        }
    }
}
