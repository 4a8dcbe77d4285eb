//! What [`Database::with_storage`](super::Database::with_storage) reads of
//! its clips before it packs them: their common joint count and frame
//! time ([`same_shape`]), the joints whose position moves
//! ([`moving_joints`]), the still joints ([`still_joints`]), and the scale
//! rows where some scale is not one ([`scale_rows`]).

use super::reserve;
use crate::clip::Clip;
use crate::error::{Error, Result};
use crate::reference::{self as r, Quat, Vec3};
use std::borrow::Cow;

/// The clips' common joint count and frame time: at least one clip, each
/// with the first's joints and frame time, else refused.
pub(super) fn same_shape(clips: &[Clip]) -> Result<(usize, f32)> {
    let first = clips.first().ok_or(Error::Length {
        what: "clips (at least 1)",
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
pub(super) fn moving_joints(
    clips: &[Clip],
    joints: usize,
) -> (Vec<Vec3>, Vec<Option<usize>>, usize) {
    let fixed: Vec<Vec3> = (0..joints).map(|j| clips[0].pos_at(0, j)).collect();
    let mut moving = vec![None; joints];
    let mut count = 0;
    for (j, m) in moving.iter_mut().enumerate() {
        let same =
            |p: Vec3| p.to_array().map(f32::to_bits) == fixed[j].to_array().map(f32::to_bits);
        if !clips
            .iter()
            .all(|c| (0..c.frames()).all(|f| same(c.pos_at(f, j))))
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
pub(super) fn still_joints(
    clips: &[Clip],
    moving: &[Option<usize>],
) -> (Vec<Option<Quat>>, Vec<Option<usize>>, usize) {
    let first = &clips[0];
    let still: Vec<Option<Quat>> = (0..moving.len())
        .map(|j| {
            let q = first.rot_at(0, j);
            let same = |r: Quat| {
                [r.w, r.x, r.y, r.z].map(f32::to_bits) == [q.w, q.x, q.y, q.z].map(f32::to_bits)
            };
            let constant = clips
                .iter()
                .all(|c| (0..c.frames()).all(|f| same(c.rot_at(f, j))));
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
pub(super) fn scale_rows(
    clips: &[Cow<'_, Clip>],
    joints: usize,
    total: usize,
) -> Result<Option<Vec<(Vec3, Vec3)>>> {
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
                s.push((c.scl_at(f, j), r::log_vec3(c.scl_at(g, j) / c.scl_at(f, j))));
            }
        }
    }
    Ok(Some(s))
}
