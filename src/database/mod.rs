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

use bytemuck::{Pod, Zeroable};

use crate::clip::Clip;
use crate::error::{Error, Result};
use crate::lanes::{F32x8, I32x8, Quatx8, Vec3x8};
use crate::reference::{self as r, Quat, Vec3};

pub mod codec;
pub mod compact;
pub mod stepped;

pub use compact::CompactRows;
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

/// Eight floats, 32-byte aligned: a rotation or position row (see the
/// module docs).
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C, align(32))]
pub struct Row {
    /// The row's floats.
    pub v: [f32; 8],
}

/// One joint of eight frames, transposed: lane `i` from frame `i`.
#[derive(Clone, Copy, Debug)]
pub struct Rowx8 {
    /// Positions.
    pub pos: Vec3x8,
    /// Rotations.
    pub rot: Quatx8,
    /// Half-angle vectors of the step to the next frame.
    pub step_rot: Vec3x8,
    /// Their squared lengths, `step_rot · step_rot`.
    pub step_h2: F32x8,
    /// Position step to the next frame.
    pub step_pos: Vec3x8,
}

/// Eight global frames, as the first row of each in the rotation and the
/// position tables ([`Database::frames8`]), and of the frame after each
/// (the same frame at a clip's last; read by compact tables only, and of
/// stepped tables by their positions).
#[derive(Clone, Copy, Debug, Default)]
pub struct Frames8 {
    rot: [u32; 8],
    pos: [u32; 8],
    rot_next: [u32; 8],
    pos_next: [u32; 8],
    /// The largest of `rot` and `rot_next`, and of `pos` and `pos_next`:
    /// one bounds check per gather.
    max: [u32; 2],
}

impl Frames8 {
    /// The rows of clip frames `k` (within `0..=last`) of clips whose
    /// first global frame is `start`, and of the frame after each in its
    /// clip (`k` itself at `last`): [`Gather::frames`] of the tables that
    /// read the next frames (compact and stepped words).
    #[inline(always)]
    fn with_next(k: I32x8, start: I32x8, last: I32x8, widths: [usize; 2]) -> Frames8 {
        let next = (k + I32x8::splat(1)).min(last);
        Frames8::rows(k + start, next + start, widths)
    }

    /// The rows of frames `f` and, after each, `g` in tables of rows
    /// `width` wide (`f`, `g` within the database's frames).
    #[inline(always)]
    fn rows(f: I32x8, g: I32x8, widths: [usize; 2]) -> Frames8 {
        let rows =
            |f: I32x8, width: usize| -> [u32; 8] { bytemuck::cast(f * I32x8::splat(width as i32)) };
        let (rot, pos) = (rows(f, widths[0]), rows(f, widths[1]));
        let (rot_next, pos_next) = (rows(g, widths[0]), rows(g, widths[1]));
        let most = |a: [u32; 8], b: [u32; 8]| a.into_iter().chain(b).fold(0, u32::max);
        Frames8 {
            rot,
            pos,
            rot_next,
            pos_next,
            max: [most(rot, rot_next), most(pos, pos_next)],
        }
    }

    /// [`Frames8::rows`] with `g` = `f` (full rows, which read no next
    /// frames): each row and largest found once.
    #[inline(always)]
    fn rows_at(f: I32x8, widths: [usize; 2]) -> Frames8 {
        let rows =
            |f: I32x8, width: usize| -> [u32; 8] { bytemuck::cast(f * I32x8::splat(width as i32)) };
        let (rot, pos) = (rows(f, widths[0]), rows(f, widths[1]));
        let most = |a: [u32; 8]| a.into_iter().fold(0, u32::max);
        Frames8 {
            rot,
            pos,
            rot_next: rot,
            pos_next: pos,
            max: [most(rot), most(pos)],
        }
    }
}

/// The rows a crowd samples, full, compact or stepped: eight frames' rows
/// prepared once per source ([`Gather::frames`]), then each joint of them
/// gathered into lanes ([`Gather::gather`]).
pub trait Gather: Copy {
    /// The rows of clip frames `k` (already within `0..=last`) of clips
    /// whose first global frame is `start` and last frame `last`.
    fn frames(&self, k: I32x8, start: I32x8, last: I32x8) -> Frames8;
    /// Joint `j` of the frames `f`, with its steps to the next frames.
    fn gather(&self, f: &Frames8, j: usize) -> Rowx8;
    /// Starts loading the rows that gathers of the frames `f` will read
    /// (a hint: it reads nothing), where the tables are larger than
    /// [`compact::PREFETCH_ABOVE_BYTES`]: [`FullRows`]', [`CompactRows`]'
    /// and [`SteppedRows`]' prefetch.
    #[inline(always)]
    fn prefetch(&self, f: &Frames8) {
        let _ = f;
    }
}

/// A database's full rows ([`ClipStorage::Full`]), for sampling.
#[derive(Clone, Copy, Debug)]
pub struct FullRows<'a> {
    db: &'a Database,
    rot: &'a [Row],
    pos: &'a [Row],
    /// Whether [`Gather::prefetch`] fetches (tables larger than
    /// [`compact::PREFETCH_ABOVE_BYTES`]).
    prefetch: bool,
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
        // as quaternions across frames.
        let clips: Vec<Clip> = clips.iter().map(Clip::with_continuous_rotations).collect();
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
    /// unit-scale databases).
    pub fn scale(&self, f: usize, j: usize) -> (Vec3, Vec3) {
        self.scales
            .as_ref()
            .map_or((Vec3::ONE, Vec3::ZERO), |s| s[f * self.joints + j])
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
    /// rows than this one.
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

/// Starts loading into L1 every line of each lane's run of `table`'s rows
/// (its elements: full rows, words or entries): for lane `i`, from row
/// `first[i]` to the end of row
/// `last[i] + width - 1` (a frame's `width` rows, or a frame's and the
/// next frame's where they are consecutive). Addresses only: a prefetch
/// never faults, and frames this database prepared are within the table.
#[inline(always)]
fn prefetch_rows<T>(table: &[T], (first, last): (&[u32; 8], &[u32; 8]), width: usize) {
    let (base, size) = (table.as_ptr() as usize, size_of::<T>());
    for (&a, &b) in first.iter().zip(last) {
        let start = base.wrapping_add(size * a as usize);
        let end = base.wrapping_add(size * (b as usize + width));
        let mut line = start & !63;
        while line < end {
            crate::prefetch::to_l1_line(line);
            line += 64;
        }
    }
}

/// One check for the eight rows of a gather: each `base[i] <= max` with
/// `max + k` within `len` rows. Frames this database prepared always pass
/// ([`Gather::frames`] and [`Database::frames8`] clamp to its frames, `k`
/// is below its row width); only frames of a larger database can fail it
/// (the gathers' Panics).
#[inline(always)]
fn check_rows(max: u32, k: usize, len: usize) {
    let ok = (max as usize).checked_add(k).is_some_and(|m| m < len);
    assert!(
        ok,
        "frames of another database: a row past this one's tables"
    );
}

impl Gather for FullRows<'_> {
    #[inline(always)]
    fn frames(&self, k: I32x8, start: I32x8, _last: I32x8) -> Frames8 {
        // The next frames are read by compact and stepped tables only.
        Frames8::rows_at(k + start, self.db.widths())
    }

    /// Starts loading into L1 every line of the lanes' frames' rows
    /// (where the tables are larger than
    /// [`compact::PREFETCH_ABOVE_BYTES`]): per lane a 736- to 864-byte run
    /// of rotation rows for the CMU skeleton, and its position rows. The
    /// hardware prefetcher does not fetch these runs in time past L3:
    /// with every shipped clip repeated to 102,685 frames (92 MB) the
    /// frame is 0.73 to 0.81x its time without this (PERF.md, "Full rows
    /// prefetched"). An earlier prefetch a few joints ahead of each gather
    /// measured slower.
    #[inline(always)]
    fn prefetch(&self, f: &Frames8) {
        if !self.prefetch {
            return;
        }
        let [rot_width, pos_width] = self.db.widths();
        prefetch_rows(self.rot, (&f.rot, &f.rot), rot_width);
        prefetch_rows(self.pos, (&f.pos, &f.pos), pos_width);
    }

    /// Joint `j` of eight frames, transposed into lanes: one check for
    /// the eight rows, then unchecked loads (2.6% of the crowd frame's
    /// instructions, 1.7% of its time).
    #[inline(always)]
    fn gather(&self, f: &Frames8, j: usize) -> Rowx8 {
        let load = |rows: &[Row], base: &[u32; 8], max: u32, k: usize| -> [F32x8; 8] {
            check_rows(max, k, rows.len());
            F32x8::transpose(core::array::from_fn(|i| {
                // SAFETY: `base[i] <= max` (`Frames8::max` is the largest
                // of the fields it is built with, which are private and
                // never change), so `base[i] + k <= max + k < rows.len()`,
                // checked just above without overflow.
                F32x8::new(unsafe { rows.get_unchecked(base[i] as usize + k) }.v)
            }))
        };
        let db = self.db;
        let (rot, step_rot, step_h2) = match db.turning[j] {
            Some(k) => {
                let a = load(self.rot, &f.rot, f.max[0], k);
                let q = Quatx8::new(a[0], a[1], a[2], a[3]);
                (q, Vec3x8::new(a[4], a[5], a[6]), a[7])
            }
            None => db.still_rot(j),
        };
        let (pos, step_pos) = match db.moving[j] {
            Some(k) => {
                let b = load(self.pos, &f.pos, f.max[1], k);
                (Vec3x8::new(b[0], b[1], b[2]), Vec3x8::new(b[3], b[4], b[5]))
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

/// The full tables of `clips` (with continuous rotations): per frame, a
/// rotation row per turning joint and a position row per moving joint.
fn full_tables(
    clips: &[Clip],
    total: usize,
    (turning, turning_count): (&[Option<usize>], usize),
    (moving, count): (&[Option<usize>], usize),
) -> Result<Tables> {
    // Reserved before anything is written: Error::Size, not an abort,
    // when the rows do not fit in memory.
    let mut rot: Vec<Row> = reserve(total * turning_count, "database rotation rows")?;
    let mut pos: Vec<Row> = reserve(total * count, "database position rows")?;
    for c in clips {
        for f in 0..c.frames() {
            let g = (f + 1).min(c.frames() - 1);
            for (j, moves) in moving.iter().enumerate() {
                if turning[j].is_some() {
                    let (q0, q1) = (c.rot(f, j), c.rot(g, j));
                    let w = r::quat_log(r::quat_abs(r::quat_mul_inv(q1, q0)));
                    rot.push(Row {
                        v: [q0.w, q0.x, q0.y, q0.z, w.x, w.y, w.z, r::dot(w, w)],
                    });
                }
                if moves.is_some() {
                    let (p0, p1) = (c.pos(f, j), c.pos(g, j));
                    let d = p1 - p0;
                    pos.push(Row {
                        v: [p0.x, p0.y, p0.z, d.x, d.y, d.z, 0.0, 0.0],
                    });
                }
            }
        }
    }
    Ok(Tables::Full { rot, pos })
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
    Ok(v)
}

/// The clips' common joint count and frame time: at least one clip, each
/// with the first's joints and frame time, else refused.
fn same_shape(clips: &[Clip]) -> Result<(usize, f32)> {
    let first = clips.first().ok_or(Error::Length {
        what: "clips",
        expected: 1,
        got: 0,
    })?;
    let (joints, frame_time) = (first.joints(), first.frame_time());
    for c in clips {
        if c.joints() != joints {
            return Err(Error::Length {
                what: "clip joints",
                expected: joints,
                got: c.joints(),
            });
        }
        if c.frame_time() != frame_time {
            return Err(Error::Parameter {
                name: "frame_time",
                value: c.frame_time(),
                reason: "every clip must have the first clip's frame time",
            });
        }
    }
    Ok((joints, frame_time))
}

/// Each joint's position at the first frame of the first clip, and for the
/// joints whose position differs from it anywhere (bitwise: NaN positions
/// count as moving) their index among the moving ones, and their count.
fn moving_joints(clips: &[Clip], joints: usize) -> (Vec<Vec3>, Vec<Option<usize>>, usize) {
    let fixed: Vec<Vec3> = (0..joints).map(|j| clips[0].pos(0, j)).collect();
    let mut moving = vec![None; joints];
    let mut count = 0;
    for (j, m) in moving.iter_mut().enumerate() {
        let same =
            |p: Vec3| p.to_array().map(f32::to_bits) == fixed[j].to_array().map(f32::to_bits);
        if !clips
            .iter()
            .all(|c| (0..c.frames()).all(|f| same(c.pos(f, j))))
        {
            *m = Some(count);
            count += 1;
        }
    }
    (fixed, moving, count)
}

/// Still joints (a fixed position and the same rotation, bitwise, in every
/// frame of every clip) with their rotation; for the others (turning) their
/// index among the turning ones, and their count.
fn still_joints(
    clips: &[Clip],
    moving: &[Option<usize>],
) -> (Vec<Option<Quat>>, Vec<Option<usize>>, usize) {
    let first = &clips[0];
    let still: Vec<Option<Quat>> = (0..moving.len())
        .map(|j| {
            let q = first.rot(0, j);
            let same = |r: Quat| {
                [r.w, r.x, r.y, r.z].map(f32::to_bits) == [q.w, q.x, q.y, q.z].map(f32::to_bits)
            };
            let constant = clips
                .iter()
                .all(|c| (0..c.frames()).all(|f| same(c.rot(f, j))));
            (moving[j].is_none() && constant).then_some(q)
        })
        .collect();
    let mut turning = vec![None; moving.len()];
    let mut turning_count = 0;
    for (t, s) in turning.iter_mut().zip(&still) {
        if s.is_none() {
            *t = Some(turning_count);
            turning_count += 1;
        }
    }
    (still, turning, turning_count)
}

/// The scale rows (each frame's scale and the log of its ratio to the next
/// frame's) when any clip has a scale other than one, else `None`.
fn scale_rows(clips: &[Clip], joints: usize, total: usize) -> Result<Option<Vec<(Vec3, Vec3)>>> {
    let unit = clips
        .iter()
        .all(|c| c.scales().iter().all(|s| *s == Vec3::ONE));
    if unit {
        return Ok(None);
    }
    let mut s = reserve::<(Vec3, Vec3)>(total * joints, "database scale rows")?;
    for c in clips {
        for f in 0..c.frames() {
            let g = (f + 1).min(c.frames() - 1);
            for j in 0..joints {
                s.push((c.scl(f, j), r::log_vec3(c.scl(g, j) / c.scl(f, j))));
            }
        }
    }
    Ok(Some(s))
}

#[cfg(test)]
mod tests {
    use super::*;

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
                let (q0, q1) = (clip.rot(f, j), clip.rot(next, j));
                let w = r::quat_log(r::quat_abs(r::quat_mul_inv(q1, q0)));
                assert_eq!(g.rot.lane(i), q0, "rotation joint {j} frame {f}");
                assert_eq!(g.step_rot.lane(i), w, "rotation step joint {j} frame {f}");
                assert_eq!(g.step_h2.to_array()[i], r::dot(w, w), "joint {j} frame {f}");
                assert_eq!(
                    g.pos.lane(i),
                    clip.pos(f, j),
                    "position joint {j} frame {f}"
                );
                let d = clip.pos(next, j) - clip.pos(f, j);
                assert_eq!(g.step_pos.lane(i), d, "position step joint {j} frame {f}");
            }
        }
    }
}
