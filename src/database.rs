//! Clips packed for 8-lane sampling: one 64-byte row per frame and joint
//! holding the position, the rotation and their deltas to the next frame,
//! so that eight characters at eight different times gather their frames
//! with two aligned loads each and one 8×8 transpose, and linear sampling
//! needs no logarithm at sample time.
//!
//! Row layout: `[px py pz | rw rx ry rz | wx wy wz | dx dy dz | 0 0 0]` with
//! `w = quat_log(quat_abs(r[k+1] r[k]⁻¹))` (the half-angle vector of the
//! step to the next frame, so `slerp(r[k], r[k+1], a) = exp(a w) r[k]`) and
//! `d = p[k+1] - p[k]`; both are zero on a clip's last frame, as the
//! reference's clamped sampling sees it. Scales are stored apart, and only
//! when some clip has a scale other than 1.

use bytemuck::{Pod, Zeroable};

use crate::clip::Clip;
use crate::error::{Error, Result};
use crate::lanes::{F32x8, Quatx8, Vec3x8};
use crate::reference::{self as r, Vec3};

/// One frame of one joint (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C, align(64))]
pub struct Row {
    /// The row's 16 floats: position, rotation, step rotation, step position, padding.
    pub v: [f32; 16],
}

/// One joint of eight frames, transposed: lane `i` from row `i`.
#[derive(Clone, Copy, Debug)]
pub struct Rowx8 {
    /// Positions.
    pub pos: Vec3x8,
    /// Rotations.
    pub rot: Quatx8,
    /// Half-angle vectors of the step to the next frame.
    pub step_rot: Vec3x8,
    /// Position step to the next frame.
    pub step_pos: Vec3x8,
}

/// Clips of one skeleton, concatenated and packed.
#[derive(Clone, Debug)]
pub struct Database {
    rows: Vec<Row>,
    joints: usize,
    frame_time: f32,
    clips: Vec<(usize, usize)>,
    /// Per row, `scl` and `log(scl[k+1] / scl[k])`, when scales are not all 1.
    scales: Option<Vec<(Vec3, Vec3)>>,
}

impl Database {
    /// Packs `clips`, which must be non-empty and share joint count and
    /// frame time.
    pub fn new(clips: &[Clip]) -> Result<Database> {
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
        let unit = clips
            .iter()
            .all(|c| c.scales().iter().all(|s| *s == Vec3::ONE));
        let total: usize = clips.iter().map(Clip::frames).sum();
        let mut rows = Vec::with_capacity(total * joints);
        let mut scales = (!unit).then(|| Vec::with_capacity(total * joints));
        let mut spans = Vec::with_capacity(clips.len());
        for c in clips {
            spans.push((rows.len() / joints, c.frames()));
            for f in 0..c.frames() {
                let g = (f + 1).min(c.frames() - 1);
                for j in 0..joints {
                    let (p0, p1, q0, q1) = (c.pos(f, j), c.pos(g, j), c.rot(f, j), c.rot(g, j));
                    let w = r::quat_log(r::quat_abs(r::quat_mul_inv(q1, q0)));
                    let d = p1 - p0;
                    rows.push(Row {
                        v: [
                            p0.x, p0.y, p0.z, q0.w, q0.x, q0.y, q0.z, w.x, w.y, w.z, d.x, d.y, d.z,
                            0.0, 0.0, 0.0,
                        ],
                    });
                    if let Some(s) = scales.as_mut() {
                        s.push((c.scl(f, j), r::log_vec3(c.scl(g, j) / c.scl(f, j))));
                    }
                }
            }
        }
        Ok(Database {
            rows,
            joints,
            frame_time,
            clips: spans,
            scales,
        })
    }

    /// Joints per frame.
    pub fn joints(&self) -> usize {
        self.joints
    }

    /// Seconds between frames.
    pub fn frame_time(&self) -> f32 {
        self.frame_time
    }

    /// `(first row frame, frames)` of each clip.
    pub fn clips(&self) -> &[(usize, usize)] {
        &self.clips
    }

    /// True when every scale is 1 (then scales cost nothing to sample).
    pub fn unit_scales(&self) -> bool {
        self.scales.is_none()
    }

    /// Scale and log-scale step of global frame `f`, joint `j` (1 and 0 for
    /// unit-scale databases).
    pub fn scale(&self, f: usize, j: usize) -> (Vec3, Vec3) {
        self.scales
            .as_ref()
            .map_or((Vec3::ONE, Vec3::ZERO), |s| s[f * self.joints + j])
    }

    /// The row of global frame `f`, joint `j`.
    pub fn row(&self, f: usize, j: usize) -> &Row {
        &self.rows[f * self.joints + j]
    }

    /// Index of the first row of global frame `f` (for [`Database::gather`]).
    pub fn frame_row(&self, f: usize) -> usize {
        f * self.joints
    }

    /// Joint `j` of eight frames whose first rows are `base[i]` (from
    /// [`Database::frame_row`]), transposed into lanes.
    #[inline(always)]
    pub fn gather(&self, base: &[usize; 8], j: usize) -> Rowx8 {
        let row = |i: usize| -> (F32x8, F32x8) {
            let v: &[f32; 16] = &self.rows[base[i] + j].v;
            (
                F32x8::new(v[0..8].try_into().expect("8")),
                F32x8::new(v[8..16].try_into().expect("8")),
            )
        };
        let rs: [(F32x8, F32x8); 8] = core::array::from_fn(row);
        let a = F32x8::transpose(rs.map(|x| x.0));
        let b = F32x8::transpose(rs.map(|x| x.1));
        Rowx8 {
            pos: Vec3x8::new(a[0], a[1], a[2]),
            rot: Quatx8::new(a[3], a[4], a[5], a[6]),
            step_rot: Vec3x8::new(a[7], b[0], b[1]),
            step_pos: Vec3x8::new(b[2], b[3], b[4]),
        }
    }
}
