//! What sampling reads of a [`Database`](super::Database)'s tables, whatever their storage:
//! a frame's row of floats ([`Row`]), one joint of eight frames in lanes
//! ([`Rowx8`]), eight frames' rows prepared once ([`Frames8`]), and the
//! [`Gather`] trait that full, compact and stepped rows implement, with
//! the gathers' shared prefetch ([`prefetch_rows`]) and bounds check
//! ([`check_rows`]).

use bytemuck::{Pod, Zeroable};

use crate::lanes::{F32x8, I32x8, Quatx8, Vec3x8};

/// Eight floats, 32-byte aligned: a rotation or position row (see the
/// [`database`](super) module docs).
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
/// position tables ([`Database::frames8`](super::Database::frames8)), and
/// of the frame after each (the same frame at a clip's last; read by
/// compact tables only, and of stepped tables by their positions).
///
/// The fields are `pub(super)`: private to the `database` module and its
/// table modules (full, compact, stepped), set only by the constructors
/// below and never changed, which the gathers' unchecked loads rely on.
#[derive(Clone, Copy, Debug, Default)]
pub struct Frames8 {
    pub(super) rot: [u32; 8],
    pub(super) pos: [u32; 8],
    pub(super) rot_next: [u32; 8],
    pub(super) pos_next: [u32; 8],
    /// The largest of `rot` and `rot_next`, and of `pos` and `pos_next`:
    /// one bounds check per gather.
    pub(super) max: [u32; 2],
}

impl Frames8 {
    /// The rows of clip frames `k` (within `0..=last`) of clips whose
    /// first global frame is `start`, and of the frame after each in its
    /// clip (`k` itself at `last`): [`Gather::frames`] of the tables that
    /// read the next frames (compact and stepped words).
    #[inline(always)]
    pub(super) fn with_next(k: I32x8, start: I32x8, last: I32x8, widths: [usize; 2]) -> Frames8 {
        let next = (k + I32x8::splat(1)).min(last);
        Frames8::rows(k + start, next + start, widths)
    }

    /// The rows of frames `f` and, after each, `g` in tables of rows
    /// `width` wide (`f`, `g` within the database's frames).
    #[inline(always)]
    pub(super) fn rows(f: I32x8, g: I32x8, widths: [usize; 2]) -> Frames8 {
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
    pub(super) fn rows_at(f: I32x8, widths: [usize; 2]) -> Frames8 {
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
    /// [`compact::PREFETCH_ABOVE_BYTES`](super::compact::PREFETCH_ABOVE_BYTES):
    /// [`FullRows`](super::FullRows)', [`CompactRows`](super::CompactRows)'
    /// and [`SteppedRows`](super::SteppedRows)' prefetch.
    #[inline(always)]
    fn prefetch(&self, f: &Frames8) {
        let _ = f;
    }
}

/// Starts loading into L1 every line of each lane's run of `table`'s rows
/// (its elements: full rows, words or entries): for lane `i`, from row
/// `first[i]` to the end of row
/// `last[i] + width - 1` (a frame's `width` rows, or a frame's and the
/// next frame's where they are consecutive). Addresses only: a prefetch
/// never faults, and frames this database prepared are within the table.
#[inline(always)]
pub(super) fn prefetch_rows<T>(table: &[T], (first, last): (&[u32; 8], &[u32; 8]), width: usize) {
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
/// ([`Gather::frames`] and [`Database::frames8`](super::Database::frames8)
/// clamp to its frames, `k` is below its row width); only frames of a
/// larger database can fail it (the gathers' Panics).
#[inline(always)]
pub(super) fn check_rows(max: u32, k: usize, len: usize) {
    let ok = (max as usize).checked_add(k).is_some_and(|m| m < len);
    assert!(
        ok,
        "frames of another database: a row past this one's tables"
    );
}
