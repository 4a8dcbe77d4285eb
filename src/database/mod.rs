//! Clips packed for 8-lane sampling. Each frame of each joint that turns is
//! a 32-byte rotation row, `[rw rx ry rz | wx wy wz | w·w]`, with
//! `w = quat_log(quat_abs(r[k+1] r[k]⁻¹))` the half-angle vector of the step
//! to the next frame (so `slerp(r[k], r[k+1], a) = exp(a w) r[k]` and linear
//! sampling needs no logarithm; with `w·w` stored, `|a w|²` is one
//! multiply). Joints whose position moves (in BVH, the
//! joints with position channels: the root) also get a 32-byte position
//! row, `[px py pz | dx dy dz | 0 0]` with `d = p[k+1] - p[k]`; every other
//! joint's position is stored once, and a still joint's rotation too (one
//! whose position and rotation never change, [`Database::still_rotation`]).
//! Steps are zero on a clip's last frame, as the reference's clamped
//! sampling sees it. Eight characters at eight different times gather a
//! joint with one aligned load per lane and one 8×8 transpose (two for a
//! moving joint), and the CMU clip's 277 frames × 23 turning joints (of
//! 31) take 213 KB, which fits in L2 beside a pack's working set.
//! Scales are stored apart, and only when some clip has a scale other
//! than one. Rotations are taken as unit quaternions (BVH clips are): the
//! crowd's short-domain exponential and logarithm rely on it.
//!
//! **Compact clips** ([`ClipStorage::Compact`], [`compact`]): the same
//! layout with each rotation row an 8-byte word (the three smallest
//! components in 20 bits each, [`codec`]) and each moving joint's position
//! row an 8-byte word (21 bits per axis over the joint's box), a quarter
//! of the bytes; the steps to the next frame are not stored but derived
//! at sampling from the two decoded frames, as [`Database::new`] derives
//! them from the source's, so velocities are the decoded motion's own.
//!
//! **Stepped clips** ([`ClipStorage::Stepped`], [`stepped`]): compact
//! words with each rotation word paired with a step word (the step to the
//! next frame, stored within [`Database::step_error_bound`]), 16 bytes per
//! frame and turning joint, about half the full rows' bytes: sampling
//! decodes one frame and its step instead of deriving the step from two.
//!
//! This file holds the [`Database`] and its storage; the rows a crowd
//! samples and their gather into lanes are in `gather` ([`Row`],
//! [`Rowx8`], [`Frames8`], [`Gather`]), the full rows written and gathered
//! in `full` ([`FullRows`]), and what packing reads of the clips first
//! (their shape, the joints that move or stay still, their scales) in
//! `clips`.

use crate::clip::Clip;
use crate::error::{Error, Result};
use crate::lanes::{F32x8, I32x8, Quatx8, Vec3x8};
use crate::reference::{Quat, Vec3};
use std::borrow::Cow;

mod clips;
pub mod codec;
pub mod compact;
mod full;
mod gather;
pub mod stepped;

use clips::{moving_joints, same_shape, scale_rows, still_joints};
use full::full_tables;

pub use compact::CompactRows;
pub use full::FullRows;
pub use gather::{Frames8, Gather, Row, Rowx8};
pub use stepped::SteppedRows;

/// How a [`Database`] stores its clips' frames (a crowd setting,
/// [`crate::crowd::CrowdConfig::clip_storage`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ClipStorage {
    /// 32-byte rows of floats, each with its step to the next frame: the
    /// source's values exactly (see the module docs).
    #[default]
    Full,
    /// 8-byte words, a quarter of the bytes: rotations within
    /// [`codec::ROTATION_ERROR_BOUND`] of the source's, positions within
    /// [`codec::position_error_bound`] of their joint's box; the steps
    /// derived from the decoded frames at sampling ([`compact`]).
    Compact,
    /// 16-byte entries per turning joint, about half the full rows' bytes:
    /// each frame's rotation word (as [`ClipStorage::Compact`]) and its
    /// step to the next frame, stored (within
    /// [`Database::step_error_bound`] of the decoded frames' step) rather
    /// than derived, so sampling decodes one frame per joint
    /// ([`stepped`]); positions as compact words.
    Stepped,
}

impl ClipStorage {
    /// The storage's name, as the command line and its reports spell it:
    /// `full`, `compact` or `stepped`.
    pub fn name(self) -> &'static str {
        match self {
            ClipStorage::Full => "full",
            ClipStorage::Compact => "compact",
            ClipStorage::Stepped => "stepped",
        }
    }
}

/// A database's tables: full rows, or compact words (compact or stepped).
#[derive(Clone, Debug)]
enum Tables {
    Full { rot: Vec<Row>, pos: Vec<Row> },
    Compact(compact::Compact),
}

/// A database's rows, for sampling: full, compact or stepped.
#[derive(Clone, Copy, Debug)]
pub enum Rows<'a> {
    /// [`ClipStorage::Full`].
    Full(FullRows<'a>),
    /// [`ClipStorage::Compact`].
    Compact(CompactRows<'a>),
    /// [`ClipStorage::Stepped`].
    Stepped(SteppedRows<'a>),
}

/// Clips of one skeleton, concatenated and packed.
#[derive(Clone, Debug)]
pub struct Database {
    tables: Tables,
    /// Per joint, its index among the joints whose position moves.
    moving: Vec<Option<usize>>,
    /// Per joint, its position where it does not move.
    fixed: Vec<Vec3>,
    /// Per joint, its rotation where neither it nor the position ever
    /// changes.
    still: Vec<Option<Quat>>,
    /// Per joint, its index among the joints that are not still (the
    /// rotation table's row width); still joints have no rows.
    turning: Vec<Option<usize>>,
    turning_count: usize,
    /// Frames of all clips.
    frames: usize,
    /// Joints whose position moves (the position table's row width).
    moving_count: usize,
    joints: usize,
    frame_time: f32,
    clips: Vec<(usize, usize)>,
    /// Per row, `scl` and `log(scl[k+1] / scl[k])`, when scales are not all 1.
    scales: Option<Vec<(Vec3, Vec3)>>,
}

impl Database {
    /// Packs `clips`, which must be non-empty and share joint count and
    /// frame time, in full rows ([`ClipStorage::Full`]).
    pub fn new(clips: &[Clip]) -> Result<Database> {
        Database::with_storage(clips, ClipStorage::Full)
    }

    /// Packs `clips` as [`Database::new`] does, in `storage`: full rows,
    /// compact words or stepped words.
    pub fn with_storage(clips: &[Clip], storage: ClipStorage) -> Result<Database> {
        let (joints, frame_time) = same_shape(clips)?;
        let (fixed, moving, count) = moving_joints(clips, joints);
        let (still, turning, turning_count) = still_joints(clips, &moving);
        let total: usize = clips.iter().map(Clip::frames).sum();
        // Rows hold each joint's rotations as a path without sign jumps
        // (Clip::with_continuous_rotations): samples then move continuously
        // as quaternions across frames. A library's clips are already
        // (ClipLibrary::add), and are read where they lie; another clip is
        // copied (reserved with try_reserve) and made so.
        let clips: Vec<Cow<'_, Clip>> = clips
            .iter()
            .map(|c| {
                if c.has_continuous_rotations() {
                    return Ok(Cow::Borrowed(c));
                }
                let mut owned = c.try_clone()?;
                owned.make_rotations_continuous();
                Ok(Cow::Owned(owned))
            })
            .collect::<Result<_>>()?;
        // Row indices are kept as 32-bit lanes (Frames8).
        if total.saturating_mul(joints) > i32::MAX as usize {
            return Err(Error::Length {
                what: "clip frames x joints (at most 2^31 - 1 rows)",
                expected: i32::MAX as usize,
                got: total.saturating_mul(joints),
            });
        }
        let scales = scale_rows(&clips, joints, total)?;
        let mut spans = Vec::with_capacity(clips.len());
        let mut first_frame = 0;
        for c in &clips {
            spans.push((first_frame, c.frames()));
            first_frame += c.frames();
        }
        let tables = match storage {
            ClipStorage::Full => {
                full_tables(&clips, total, (&turning, turning_count), (&moving, count))?
            }
            ClipStorage::Compact | ClipStorage::Stepped => Tables::Compact(compact::Compact::new(
                &clips,
                total,
                (&turning, turning_count),
                (&moving, count),
                storage == ClipStorage::Stepped,
            )?),
        };
        Ok(Database {
            tables,
            moving,
            fixed,
            still,
            turning,
            turning_count,
            frames: total,
            moving_count: count,
            joints,
            frame_time,
            clips: spans,
            scales,
        })
    }

    /// How the frames are stored.
    pub fn storage(&self) -> ClipStorage {
        match &self.tables {
            Tables::Full { .. } => ClipStorage::Full,
            Tables::Compact(c) => c.storage(),
        }
    }

    /// Bytes of the rotation and position tables (the frames' storage;
    /// scales, still rotations and fixed positions apart).
    pub fn table_bytes(&self) -> usize {
        match &self.tables {
            Tables::Full { rot, pos } => size_of_val(&rot[..]) + size_of_val(&pos[..]),
            Tables::Compact(c) => c.bytes(),
        }
    }

    /// The rows for sampling, full, compact or stepped.
    #[inline(always)]
    pub fn rows(&self) -> Rows<'_> {
        match &self.tables {
            Tables::Full { rot, pos } => Rows::Full(FullRows {
                db: self,
                rot,
                pos,
                prefetch: self.table_bytes() > compact::PREFETCH_ABOVE_BYTES,
            }),
            Tables::Compact(c) => c.rows(self),
        }
    }

    /// Total frames of all clips.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Joints per frame.
    pub fn joints(&self) -> usize {
        self.joints
    }

    /// Seconds between frames.
    pub fn frame_time(&self) -> f32 {
        self.frame_time
    }

    /// `(first global frame, frames)` of each clip.
    pub fn clips(&self) -> &[(usize, usize)] {
        &self.clips
    }

    /// True when every scale is 1 (then scales cost nothing to sample).
    pub fn unit_scales(&self) -> bool {
        self.scales.is_none()
    }

    /// Number of joints whose position moves (and has its own rows).
    pub fn moving_joints(&self) -> usize {
        self.moving_count
    }

    /// Joint `j`'s row in the position table, or `None` where its
    /// position never moves (then it is [`Database::fixed_position`] in
    /// every frame of every clip, and its velocity is zero).
    pub fn moving_row(&self, j: usize) -> Option<usize> {
        self.moving.get(j).copied().flatten()
    }

    /// Joint `j`'s position in the first frame of the first clip: its
    /// position in every frame where [`Database::moving_row`] is `None`.
    pub fn fixed_position(&self, j: usize) -> Vec3 {
        self.fixed.get(j).copied().unwrap_or(Vec3::ZERO)
    }

    /// Joint `j`'s row in the rotation table (its index among the joints
    /// that are not still), or `None` for a still joint.
    pub fn turning_row(&self, j: usize) -> Option<usize> {
        self.turning.get(j).copied().flatten()
    }

    /// Number of joints that are not still (the rotation table's width).
    pub fn turning_joints(&self) -> usize {
        self.turning_count
    }

    /// Joint `j`'s rotation where the joint is still: its position fixed
    /// and its rotation the same in every frame of every clip (so sampling,
    /// blending and transitions leave it as it is, with zero velocities).
    /// `None` for a joint that moves or turns.
    pub fn still_rotation(&self, j: usize) -> Option<Quat> {
        self.still.get(j).copied().flatten()
    }

    /// Scale and log-scale step of global frame `f`, joint `j` (1 and 0 for
    /// unit-scale databases); `None` for `f >= frames()` or `j >=
    /// joints()`.
    pub fn scale(&self, f: usize, j: usize) -> Option<(Vec3, Vec3)> {
        if f >= self.frames || j >= self.joints {
            return None;
        }
        Some(
            self.scales
                .as_ref()
                .map_or((Vec3::ONE, Vec3::ZERO), |s| s[f * self.joints + j]),
        )
    }

    /// Eight global frames prepared for [`Database::gather`] (each
    /// clamped to the database's frames; the frame after each is the next
    /// within its clip).
    pub fn frames8(&self, f: [usize; 8]) -> Frames8 {
        let f = f.map(|f| f.min(self.frames - 1));
        let next = f.map(|f| {
            let clip = self.clips.partition_point(|&(s, _)| s <= f) - 1;
            let (s, n) = self.clips[clip];
            (f + 1).min(s + n - 1)
        });
        // In range: frames x joints fits in i32 (checked in `new`).
        let lane = |f: [usize; 8]| I32x8::new(f.map(|x| x as i32));
        Frames8::rows(lane(f), lane(next), self.widths())
    }

    /// The rotation and position tables' row widths.
    fn widths(&self) -> [usize; 2] {
        [self.turning_count, self.moving_count]
    }

    /// Joint `j` of eight frames, transposed (or decoded) into lanes, with
    /// the steps to the next frames ([`Gather::gather`] of
    /// [`Database::rows`]).
    ///
    /// Panics if `f` was prepared by a database with more frames or wider
    /// rows than this one, or for `j >= joints()`.
    pub fn gather(&self, f: &Frames8, j: usize) -> Rowx8 {
        match self.rows() {
            Rows::Full(g) => g.gather(f, j),
            Rows::Compact(g) => g.gather(f, j),
            Rows::Stepped(g) => g.gather(f, j),
        }
    }

    /// The still part of joint `j`'s row where it has no rotation rows:
    /// its rotation, with zero steps. Called only where it is still, so
    /// that a turning joint's gather does not look it up.
    #[inline(always)]
    fn still_rot(&self, j: usize) -> (Quatx8, Vec3x8, F32x8) {
        (
            Quatx8::splat(self.still[j].unwrap_or(Quat::IDENTITY)),
            Vec3x8::ZERO,
            F32x8::ZERO,
        )
    }

    /// The fixed part of joint `j`'s row where it has no position rows:
    /// its position, with a zero step. Called only where it does not
    /// move.
    #[inline(always)]
    fn fixed_pos(&self, j: usize) -> (Vec3x8, Vec3x8) {
        (Vec3x8::splat(self.fixed[j]), Vec3x8::ZERO)
    }
}

/// An empty vector with room for `n` elements, or [`Error::Size`] (nothing
/// allocated) when they do not fit in memory.
pub(crate) fn reserve<T>(n: usize, what: &'static str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::Size {
        what,
        reason: format!(
            "{n} rows of {} bytes ({}) could not be reserved",
            core::mem::size_of::<T>(),
            crate::error::bytes_text(n.checked_mul(core::mem::size_of::<T>()))
        ),
    })?;
    crate::pages::advise_spare(&v);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference as r;

    /// Rows past this database's tables are refused before any unchecked
    /// load (`Database::gather`'s one bounds check).
    #[test]
    #[should_panic(expected = "frames of another database")]
    fn gather_refuses_frames_of_a_larger_database() {
        let clip = crate::data::default_clip().clip;
        let big = Database::new(core::slice::from_ref(&clip)).unwrap();
        let short = clip.excerpt(0..2).unwrap();
        let small = Database::new(core::slice::from_ref(&short)).unwrap();
        let f8 = big.frames8([clip.frames() - 1; 8]);
        let j = (0..small.joints()).find(|&j| small.turning_row(j).is_some());
        let _ = small.gather(&f8, j.expect("a joint turns in two frames"));
    }

    /// Every joint gathers its clip's rotation, position and steps, still
    /// joints (stored once) included.
    #[test]
    fn gather_gives_every_joint_of_every_lane() {
        let clip = crate::data::default_clip().clip;
        let db = Database::new(core::slice::from_ref(&clip)).unwrap();
        assert!(db.turning_count < db.joints(), "the clip has still joints");
        let last = clip.frames() - 1;
        let frames = [0, 5, 100, last, 17, 3, last - 1, 200];
        let f8 = db.frames8(frames);
        for j in 0..db.joints() {
            let g = db.gather(&f8, j);
            for (i, &f) in frames.iter().enumerate() {
                let next = (f + 1).min(last);
                let (q0, q1) = (clip.rot_at(f, j), clip.rot_at(next, j));
                let w = r::quat_log(r::quat_abs(r::quat_mul_inv(q1, q0)));
                assert_eq!(g.rot.lane(i), q0, "rotation joint {j} frame {f}");
                assert_eq!(g.step_rot.lane(i), w, "rotation step joint {j} frame {f}");
                assert_eq!(g.step_h2.to_array()[i], r::dot(w, w), "joint {j} frame {f}");
                assert_eq!(
                    g.pos.lane(i),
                    clip.pos_at(f, j),
                    "position joint {j} frame {f}"
                );
                let d = clip.pos_at(next, j) - clip.pos_at(f, j);
                assert_eq!(g.step_pos.lane(i), d, "position step joint {j} frame {f}");
            }
        }
    }
}
