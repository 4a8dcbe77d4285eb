//! Full rows ([`ClipStorage::Full`](super::ClipStorage)): a 32-byte row of
//! floats per frame and turning joint, and per frame and moving joint,
//! each with its step to the next frame (the module docs of
//! [`super`]): how they are written ([`full_tables`]) and gathered into
//! lanes ([`FullRows`]).

use super::gather::{Frames8, Gather, Row, Rowx8, check_rows, prefetch_rows};
use super::{Database, Tables, reserve};
use crate::clip::Clip;
use crate::error::Result;
use crate::lanes::{F32x8, I32x8, Quatx8, Vec3x8};
use crate::reference as r;
use std::borrow::Cow;

/// A database's full rows ([`ClipStorage::Full`](super::ClipStorage::Full)),
/// for sampling.
#[derive(Clone, Copy, Debug)]
pub struct FullRows<'a> {
    pub(super) db: &'a Database,
    pub(super) rot: &'a [Row],
    pub(super) pos: &'a [Row],
    /// Whether [`Gather::prefetch`] fetches (tables larger than
    /// [`PREFETCH_ABOVE_BYTES`](super::compact::PREFETCH_ABOVE_BYTES)).
    pub(super) prefetch: bool,
}

impl Gather for FullRows<'_> {
    #[inline(always)]
    fn frames(&self, k: I32x8, start: I32x8, _last: I32x8) -> Frames8 {
        // The next frames are read by compact and stepped tables only.
        Frames8::rows_at(k + start, self.db.widths())
    }

    /// Starts loading into L1 every line of the lanes' frames' rows
    /// (where the tables are larger than
    /// [`PREFETCH_ABOVE_BYTES`](super::compact::PREFETCH_ABOVE_BYTES)):
    /// per lane a 736- to 864-byte run of rotation rows for the CMU
    /// skeleton, and its position rows. The
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
    /// the eight rows, then unchecked loads, each at `row + 32 k` from its
    /// lane's row pointer `rows + base[i]` (the same for every joint of
    /// the frames, so the compiler reads it back from the stack: two
    /// instructions a lane; at `rows + 32 (base[i] + k)` each lane took a
    /// shift and an add more, 32 not being an x86 index scale: 2.5% of
    /// the in-cache crowd frame's instructions).
    #[inline(always)]
    fn gather(&self, f: &Frames8, j: usize) -> Rowx8 {
        let load = |rows: &[Row], base: &[u32; 8], max: u32, k: usize| -> [F32x8; 8] {
            check_rows(max, k, rows.len());
            F32x8::transpose(core::array::from_fn(|i| {
                // SAFETY: `base[i] <= max` (`Frames8::max` is the largest
                // of the fields it is built with, which are private and
                // never change), so `base[i] + k <= max + k < rows.len()`,
                // checked just above without overflow: both `rows +
                // base[i]` and `rows + base[i] + k` are within the rows.
                F32x8::new(unsafe { *rows.as_ptr().add(base[i] as usize).add(k) }.v)
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
pub(super) fn full_tables(
    clips: &[Cow<'_, Clip>],
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
                    let (q0, q1) = (c.rot_at(f, j), c.rot_at(g, j));
                    let w = r::quat_log(r::quat_abs(r::quat_mul_inv(q1, q0)));
                    rot.push(Row {
                        v: [q0.w, q0.x, q0.y, q0.z, w.x, w.y, w.z, r::dot(w, w)],
                    });
                }
                if moves.is_some() {
                    let (p0, p1) = (c.pos_at(f, j), c.pos_at(g, j));
                    let d = p1 - p0;
                    pos.push(Row {
                        v: [p0.x, p0.y, p0.z, d.x, d.y, d.z, 0.0, 0.0],
                    });
                }
            }
        }
    }
    crate::pages::collapse_filled(&rot);
    crate::pages::collapse_filled(&pos);
    Ok(Tables::Full { rot, pos })
}
