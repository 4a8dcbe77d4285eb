//! Building a database from a clip library: world poses of the clips,
//! cuts, velocities, raw features, normalization. Clips and frames run in
//! parallel on the current rayon pool; every value depends only on its own
//! inputs, and the normalization's sums run in one fixed order, so the
//! result is bit-identical for any number of threads.

use core::ops::Range;

use rayon::prelude::*;

use super::config::{FeatureJoints, FootFeatures, MatchConfig};
use super::database::FrameSource;
use super::features::{FeatureLayout, LocalFeet, TrajectoryPoint, WorldPose, raw_features_with};
use super::frame::CharacterFrame;
use crate::batch;
use crate::clip::Clip;
use crate::crowd::ClipLibrary;
use crate::error::{Error, Result, try_collect, try_empty, try_vec};
use crate::reference::{Quat, Vec3, quat_mul, quat_mul_vec3};
use crate::stream::Vec3Stream;

/// The world-space motion of one clip that the features need, per clip
/// frame, and its ranges between cuts.
pub(crate) struct ClipMotion {
    pub hips_pos: Vec<Vec3>,
    pub hips_rot: Vec<Quat>,
    pub hips_vel: Vec<Vec3>,
    pub left: Vec<Vec3>,
    pub left_vel: Vec<Vec3>,
    pub right: Vec<Vec3>,
    pub right_vel: Vec<Vec3>,
    pub frames: Vec<CharacterFrame>,
    pub ranges: Vec<Range<usize>>,
}

/// World positions and rotations of every joint of frame `f` (the
/// forward kinematics of [`crate::reference::op_fk_static`]).
fn world_frame(
    clip: &Clip,
    parents: &[i32],
    f: usize,
    (pos, rot, scl): (&mut [Vec3], &mut [Quat], &mut [Vec3]),
) {
    for (j, &p) in parents.iter().enumerate() {
        let (lp, lr, ls) = (clip.pos_at(f, j), clip.rot_at(f, j), clip.scl_at(f, j));
        if p < 0 {
            (pos[j], rot[j], scl[j]) = (lp, lr, ls);
        } else {
            let p = p as usize;
            pos[j] = quat_mul_vec3(rot[p], lp * scl[p]) + pos[p];
            rot[j] = quat_mul(rot[p], lr);
            scl[j] = ls * scl[p];
        }
    }
}

/// The mean over joints of their world speed between frames `f` and
/// `f + 1`, from world positions `world` (frames × `joints`).
pub(crate) fn mean_joint_speed(world: &[Vec3], joints: usize, f: usize, dt: f32) -> f32 {
    let (a, b) = (
        &world[f * joints..][..joints],
        &world[(f + 1) * joints..][..joints],
    );
    let sum: f32 = a
        .iter()
        .zip(b)
        .map(|(&p, &q)| {
            let d = q - p;
            (d.x * d.x + d.y * d.y + d.z * d.z).sqrt()
        })
        .sum();
    sum / (joints as f32 * dt)
}

/// The ranges of a clip of `frames` between cuts: a step whose mean joint
/// speed exceeds `cut_speed` ends one range and starts the next.
pub(crate) fn ranges(
    world: &[Vec3],
    joints: usize,
    frames: usize,
    dt: f32,
    cut_speed: f32,
) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for f in 0..frames - 1 {
        if mean_joint_speed(world, joints, f, dt) > cut_speed {
            out.push(start..f + 1);
            start = f + 1;
        }
    }
    out.push(start..frames);
    out
}

/// Central differences of `p` within each range (one-sided at a range's
/// ends, zero for a one-frame range), divided by `dt`.
fn velocities(p: &[Vec3], ranges: &[Range<usize>], dt: f32) -> Result<Vec<Vec3>> {
    let mut v = try_vec("matching joint velocities", p.len(), Vec3::ZERO)?;
    for r in ranges {
        if r.len() < 2 {
            continue;
        }
        for i in r.clone() {
            v[i] = if i == r.start {
                (p[i + 1] - p[i]) / dt
            } else if i + 1 == r.end {
                (p[i] - p[i - 1]) / dt
            } else {
                (p[i + 1] - p[i - 1]) / (2.0 * dt)
            };
        }
    }
    Ok(v)
}

impl ClipMotion {
    pub(crate) fn new(
        clip: &Clip,
        parents: &[i32],
        joints: &FeatureJoints,
        cut_speed: f32,
    ) -> Result<ClipMotion> {
        let (n, nj) = (clip.frames(), parents.len());
        // Every joint's world position, frame-major, in one block reserved
        // with try_reserve (memory that cannot be had is Error::Size), and
        // the hips' world rotation per frame.
        let size = crate::error::checked_mul("matching world positions", n, nj)?;
        let mut all = try_vec("matching world positions", size, Vec3::ZERO)?;
        let mut hips_rot = try_vec("matching hips rotations", n, Quat::IDENTITY)?;
        all.par_chunks_mut(nj.max(1))
            .zip(hips_rot.par_iter_mut())
            .enumerate()
            .for_each_init(
                || (vec![Quat::IDENTITY; nj], vec![Vec3::ONE; nj]),
                |(rot, scl), (f, (pos, hips))| {
                    world_frame(clip, parents, f, (pos, rot, scl));
                    *hips = rot[joints.hips];
                },
            );
        let dt = clip.frame_time();
        let ranges = ranges(&all, nj, n, dt, cut_speed);
        let column = |j: usize| {
            try_collect(
                "matching joint positions",
                n,
                (0..n).map(|f| all[f * nj + j]),
            )
        };
        let (hips_pos, left, right) = (
            column(joints.hips)?,
            column(joints.left_foot)?,
            column(joints.right_foot)?,
        );
        drop(all);
        let from_hips = |(&p, &r): (&Vec3, &Quat)| CharacterFrame::from_hips(p, r, joints.forward);
        let frames = try_collect(
            "matching character frames",
            n,
            hips_pos.iter().zip(&hips_rot).map(from_hips),
        )?;
        Ok(ClipMotion {
            hips_vel: velocities(&hips_pos, &ranges, dt)?,
            left_vel: velocities(&left, &ranges, dt)?,
            right_vel: velocities(&right, &ranges, dt)?,
            hips_pos,
            hips_rot,
            left,
            right,
            frames,
            ranges,
        })
    }

    pub(crate) fn pose(&self, f: usize) -> WorldPose {
        WorldPose {
            hips_pos: self.hips_pos[f],
            hips_rot: self.hips_rot[f],
            hips_vel: self.hips_vel[f],
            left_foot_pos: self.left[f],
            left_foot_vel: self.left_vel[f],
            right_foot_pos: self.right[f],
            right_foot_vel: self.right_vel[f],
        }
    }
}

/// What one database frame's features are made of (world space): what
/// [`MatchDatabase::frame_inputs`](super::MatchDatabase::frame_inputs) returns per frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameInputs {
    /// The clip frame it is.
    pub source: FrameSource,
    /// Whether searches consider it.
    pub searchable: bool,
    /// Its character frame ([`CharacterFrame::from_hips`]).
    pub frame: CharacterFrame,
    /// Its hips and feet.
    pub pose: WorldPose,
    /// Its future trajectory at the configured times (clamped to its
    /// range's last frame).
    pub trajectory: [TrajectoryPoint; 3],
}

/// Clip frames of `seconds`, rounded.
pub(crate) fn frames_of(seconds: f32, frame_time: f32) -> usize {
    (seconds / frame_time).round() as usize
}

/// The database frames of one clip: every `frame_step`-th clip frame, with
/// its trajectory (clamped to its range's last frame, as the demo clamps)
/// and whether it is searched (more than the end margin before its
/// range's end).
pub(crate) fn raw_frames(
    cfg: &MatchConfig,
    c: usize,
    m: &ClipMotion,
    dt: f32,
) -> Result<Vec<FrameInputs>> {
    let margin = frames_of(cfg.end_margin, dt);
    let offsets = cfg.trajectory_times.map(|t| frames_of(t, dt).max(1));
    let first_of = |r: &Range<usize>| r.start.div_ceil(cfg.frame_step) * cfg.frame_step;
    let count = m
        .ranges
        .iter()
        .map(|r| r.end.saturating_sub(first_of(r)).div_ceil(cfg.frame_step))
        .sum();
    let mut out = try_empty("matching database frames", count)?;
    for r in &m.ranges {
        for f in (first_of(r)..r.end).step_by(cfg.frame_step) {
            let trajectory = offsets.map(|o| {
                let j = (f + o).min(r.end - 1);
                TrajectoryPoint {
                    pos: m.frames[j].pos,
                    facing: m.frames[j].facing,
                }
            });
            out.push(FrameInputs {
                source: FrameSource {
                    clip: c,
                    clip_frame: f,
                    time: f as f32 * dt,
                },
                searchable: f + margin < r.end,
                frame: m.frames[f],
                pose: m.pose(f),
                trajectory,
            });
        }
    }
    // `count` sums the same ranges' `step_by` lengths the loop walks:
    // equal for any clip and configuration.
    debug_assert_eq!(out.len(), count);
    Ok(out)
}

/// The raw feature rows (`dims` each) of `frames`, the feet's
/// inertialization features by [`batch::cost`].
pub(crate) fn raw_rows(
    layout: &FeatureLayout,
    feet_cfg: FootFeatures,
    frames: &[FrameInputs],
) -> Result<Vec<f32>> {
    let dims = layout.dims();
    let n = frames.len();
    // Reserved with try_reserve first: rayon's collect into it then has
    // the room and allocates nothing.
    let mut feet: Vec<LocalFeet> = try_empty("matching feet features", n)?;
    feet.par_extend(frames.par_iter().map(|r| LocalFeet::new(&r.frame, &r.pose)));
    let mut foot = try_vec("matching feet inertialization features", n, [Vec3::ZERO; 2])?;
    let inertial = |pos: Vec<Vec3>, vel: Vec<Vec3>| -> Result<Vec3Stream> {
        let (p, v) = (Vec3Stream::from_elems(&pos)?, Vec3Stream::from_elems(&vel)?);
        let mut out = Vec3Stream::new(n)?;
        match feet_cfg {
            FootFeatures::Spring { halflife, .. } => {
                batch::cost::transition_features_spring(&mut out, &p, &v, halflife)?
            }
            FootFeatures::Cubic { blendtime, .. } => {
                batch::cost::transition_features_cubic(&mut out, &p, &v, blendtime)?
            }
            FootFeatures::PositionVelocity { .. } => {}
        }
        Ok(out)
    };
    if !matches!(feet_cfg, FootFeatures::PositionVelocity { .. }) {
        let part = |what, of: fn(&LocalFeet) -> Vec3| try_collect(what, n, feet.iter().map(of));
        let l = inertial(
            part("matching left foot positions", |f| f.left_pos)?,
            part("matching left foot velocities", |f| f.left_vel)?,
        )?;
        let r = inertial(
            part("matching right foot positions", |f| f.right_pos)?,
            part("matching right foot velocities", |f| f.right_vel)?,
        )?;
        for (i, o) in foot.iter_mut().enumerate() {
            // Both streams hold n elements (made with Vec3Stream::new(n)).
            *o = [l.get(i).unwrap_or_default(), r.get(i).unwrap_or_default()];
        }
    }
    let mut rows = crate::error::try_vec("matching feature rows", n * dims, 0.0f32)?;
    rows.par_chunks_mut(dims.max(1))
        .zip(frames.par_iter().zip(feet.par_iter().zip(foot.par_iter())))
        .for_each(|(row, (r, (feet, foot)))| {
            raw_features_with(layout, &r.frame, &r.pose, &r.trajectory, feet, *foot, row);
        });
    Ok(rows)
}

/// The demo's normalization (`normalize_feature`): per feature its mean
/// (`offset`), per group the mean of its features' standard deviations
/// divided by the group's weight (`scale`), over the searchable frames,
/// in f64 in frame order. Refuses a group that does not vary
/// ([`Error::Parameter`] naming it, with its standard deviation).
pub(crate) fn normalization(
    layout: &FeatureLayout,
    rows: &[f32],
    searchable: &[bool],
) -> Result<(Vec<f32>, Vec<f32>)> {
    let dims = layout.dims();
    let count = searchable.iter().filter(|&&s| s).count() as f64;
    let mut mean = vec![0.0f64; dims];
    let searched = || {
        rows.chunks_exact(dims)
            .zip(searchable)
            .filter(|(_, s)| **s)
            .map(|(r, _)| r)
    };
    for r in searched() {
        for (m, &x) in mean.iter_mut().zip(r) {
            *m += x as f64;
        }
    }
    mean.iter_mut().for_each(|m| *m /= count);
    let mut var = vec![0.0f64; dims];
    for r in searched() {
        for ((v, &x), m) in var.iter_mut().zip(r).zip(&mean) {
            *v += (x as f64 - m) * (x as f64 - m);
        }
    }
    let mut scale = vec![0.0f32; dims];
    for g in layout.groups() {
        let span = g.offset..g.offset + g.len;
        let std = var[span.clone()]
            .iter()
            .map(|v| (v / count).sqrt())
            .sum::<f64>()
            / g.len as f64;
        let s = (std / g.weight as f64) as f32;
        if !(s.is_finite() && s > 0.0 && std.is_finite() && std > 0.0) {
            return Err(Error::Parameter {
                name: g.kind.name(),
                value: std as f32,
                reason: "this feature group does not vary over the searchable frames (its standard deviation must be positive and finite)",
            });
        }
        scale[span].iter_mut().for_each(|x| *x = s);
    }
    Ok((mean.iter().map(|&m| m as f32).collect(), scale))
}

/// `(x - offset) / scale`, the one normalization of database rows and
/// queries alike.
#[inline]
pub(crate) fn normalize(x: f32, offset: f32, scale: f32) -> f32 {
    (x - offset) / scale
}

/// Every database frame of `library`: its clips' motion in parallel, then
/// their frames.
pub(crate) fn library_frames(
    library: &ClipLibrary,
    cfg: &MatchConfig,
    joints: &FeatureJoints,
) -> Result<Vec<FrameInputs>> {
    let parents = library.skeleton().parents();
    let per_clip: Vec<Vec<FrameInputs>> = library
        .clips()
        .par_iter()
        .enumerate()
        .map(|(c, clip)| {
            let m = ClipMotion::new(clip, parents, joints, cfg.cut_speed)?;
            raw_frames(cfg, c, &m, clip.frame_time())
        })
        .collect::<Result<_>>()?;
    let total = per_clip.iter().map(Vec::len).sum();
    try_collect(
        "matching database frames",
        total,
        per_clip.into_iter().flatten(),
    )
}
