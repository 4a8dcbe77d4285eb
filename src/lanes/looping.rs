//! Loop offsets with joints in lanes ([`crate::reference::looping`] per
//! lane): arrays are frames × joint packs, lane `i` of pack `k` being joint
//! `8k + i`, so one pass over a clip does eight joints at a time. One-frame
//! clips give the reference's finite results (the one frame is both ends).
//! Shapes are refused as the reference refuses them, with its error and
//! nothing written.

use super::inertialize::decayed_offset_cubic;
use super::math::{
    F32x8, Quatx8, Vec3x8, div_dt, lerp, quat_abs, quat_differentiate_angular_velocity, splat,
};
use super::math::{quat_from_scaled_angle_axis, quat_mul, quat_mul_inv, quat_to_scaled_angle_axis};
use super::spring::{fast_negexp, halflife_to_damping};
use crate::error::{Result, at_least};
use crate::reference::Slice2d;
use crate::reference::inertialize::EPS_BLEND;
use crate::reference::looping::{linear_fade_alpha, rows_of, seam_frames};
use crate::reference::looping::{root_shapes, same_values};

/// [`crate::reference::compute_start_end_positional_difference`], eight joints per lane vector.
pub fn compute_start_end_positional_difference(
    diff_pos: &mut [Vec3x8],
    diff_vel: &mut [Vec3x8],
    pos: Slice2d<Vec3x8>,
    dt: f32,
) -> Result<()> {
    let (e1, e0, s1, s0) = seam_frames(pos.rows())?;
    at_least("diff_pos (one per joint)", pos.cols(), diff_pos.len())?;
    at_least("diff_vel (one per joint)", pos.cols(), diff_vel.len())?;
    let d = splat(dt);
    for j in 0..pos.cols() {
        diff_pos[j] = pos.at(e1, j) - pos.at(0, j);
        diff_vel[j] =
            div_dt(pos.at(e1, j) - pos.at(e0, j), d) - div_dt(pos.at(s1, j) - pos.at(s0, j), d);
    }
    Ok(())
}

/// [`crate::reference::compute_start_end_rotational_difference`], eight joints per lane vector.
pub fn compute_start_end_rotational_difference(
    diff_rot: &mut [Vec3x8],
    diff_vel: &mut [Vec3x8],
    rot: Slice2d<Quatx8>,
    dt: f32,
) -> Result<()> {
    let (e1, e0, s1, s0) = seam_frames(rot.rows())?;
    at_least("diff_rot (one per joint)", rot.cols(), diff_rot.len())?;
    at_least("diff_vel (one per joint)", rot.cols(), diff_vel.len())?;
    let d = splat(dt);
    for j in 0..rot.cols() {
        diff_rot[j] =
            quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(rot.at(e1, j), rot.at(0, j))));
        diff_vel[j] = quat_differentiate_angular_velocity(rot.at(e1, j), rot.at(e0, j), d)
            - quat_differentiate_angular_velocity(rot.at(s1, j), rot.at(s0, j), d);
    }
    Ok(())
}

/// [`crate::reference::decayed_offset`] per lane.
#[inline(always)]
pub fn decayed_offset(x: Vec3x8, v: Vec3x8, halflife: F32x8, dt: F32x8) -> Vec3x8 {
    let y = halflife_to_damping(halflife) / splat(2.0);
    let j1 = v + x * y;
    fast_negexp(y * dt) * (x + j1 * dt)
}

/// [`crate::reference::decayed_velocity_offset_cubic`] per lane.
#[inline(always)]
pub fn decayed_velocity_offset_cubic(v: Vec3x8, blendtime: F32x8, dt: F32x8) -> Vec3x8 {
    let t = (dt / (blendtime + splat(EPS_BLEND)))
        .max(F32x8::ZERO)
        .min(splat(1.0));
    let c = v * blendtime;
    let (b, a) = (splat(-2.0) * c, c);
    a * (t * t * t) + b * (t * t) + c * t
}

/// [`crate::reference::compute_inertialize_both_offsets`], eight joints per lane vector.
#[allow(clippy::too_many_arguments)]
pub fn compute_inertialize_both_offsets(
    offsets: &mut [Vec3x8],
    diff_pos: &[Vec3x8],
    diff_vel: &[Vec3x8],
    halflife_start: f32,
    halflife_end: f32,
    ratio: f32,
    dt: f32,
) -> Result<()> {
    let cols = diff_pos.len();
    let rows = rows_of(offsets.len(), cols)?;
    at_least("diff_vel (one per joint)", cols, diff_vel.len())?;
    let (hs, he, r, r1) = (
        splat(halflife_start),
        splat(halflife_end),
        splat(ratio),
        splat(1.0 - ratio),
    );
    for i in 0..rows {
        let (ts, te) = (splat(i as f32 * dt), splat((rows - 1 - i) as f32 * dt));
        for j in 0..cols {
            offsets[i * cols + j] = decayed_offset(r * diff_pos[j], r * diff_vel[j], hs, ts)
                + decayed_offset(r1 * -diff_pos[j], r1 * diff_vel[j], he, te);
        }
    }
    Ok(())
}

/// [`crate::reference::compute_inertialize_both_offsets_cubic`], eight joints per lane vector.
#[allow(clippy::too_many_arguments)]
pub fn compute_inertialize_both_offsets_cubic(
    offsets: &mut [Vec3x8],
    diff_pos: &[Vec3x8],
    diff_vel: &[Vec3x8],
    blendtime_start: f32,
    blendtime_end: f32,
    ratio: f32,
    dt: f32,
) -> Result<()> {
    let cols = diff_pos.len();
    let rows = rows_of(offsets.len(), cols)?;
    at_least("diff_vel (one per joint)", cols, diff_vel.len())?;
    let (bs, be, r, r1) = (
        splat(blendtime_start),
        splat(blendtime_end),
        splat(ratio),
        splat(1.0 - ratio),
    );
    for i in 0..rows {
        let (ts, te) = (splat(i as f32 * dt), splat((rows - 1 - i) as f32 * dt));
        for j in 0..cols {
            offsets[i * cols + j] = decayed_offset_cubic(r * diff_pos[j], r * diff_vel[j], bs, ts)
                .0
                + decayed_offset_cubic(r1 * -diff_pos[j], r1 * diff_vel[j], be, te).0;
        }
    }
    Ok(())
}

/// [`crate::reference::compute_linear_inertialize_offsets`], eight joints per lane vector.
#[allow(clippy::too_many_arguments)]
pub fn compute_linear_inertialize_offsets(
    offsets: &mut [Vec3x8],
    diff_pos: &[Vec3x8],
    diff_vel: &[Vec3x8],
    blendtime_start: f32,
    blendtime_end: f32,
    ratio: f32,
    dt: f32,
) -> Result<()> {
    let cols = diff_pos.len();
    let rows = rows_of(offsets.len(), cols)?;
    at_least("diff_vel (one per joint)", cols, diff_vel.len())?;
    let (bs, be, r, r1) = (
        splat(blendtime_start),
        splat(blendtime_end),
        splat(ratio),
        splat(1.0 - ratio),
    );
    for i in 0..rows {
        let w = lerp(r, splat(ratio - 1.0), splat(linear_fade_alpha(i, rows)));
        let (ts, te) = (splat(i as f32 * dt), splat((rows - 1 - i) as f32 * dt));
        for j in 0..cols {
            offsets[i * cols + j] = w * diff_pos[j]
                + decayed_velocity_offset_cubic(r * diff_vel[j], bs, ts)
                + decayed_velocity_offset_cubic(r1 * diff_vel[j], be, te);
        }
    }
    Ok(())
}

/// [`crate::reference::compute_linear_offsets`], eight joints per lane vector.
pub fn compute_linear_offsets(
    offsets: &mut [Vec3x8],
    diff_pos: &[Vec3x8],
    ratio: f32,
) -> Result<()> {
    let cols = diff_pos.len();
    let rows = rows_of(offsets.len(), cols)?;
    for i in 0..rows {
        let w = lerp(
            splat(ratio),
            splat(ratio - 1.0),
            splat(linear_fade_alpha(i, rows)),
        );
        for j in 0..cols {
            offsets[i * cols + j] = w * diff_pos[j];
        }
    }
    Ok(())
}

/// [`crate::reference::compute_inertialize_start_offsets`], eight joints per lane vector.
pub fn compute_inertialize_start_offsets(
    offsets: &mut [Vec3x8],
    diff_pos: &[Vec3x8],
    diff_vel: &[Vec3x8],
    halflife: f32,
    dt: f32,
) -> Result<()> {
    let cols = diff_pos.len();
    let rows = rows_of(offsets.len(), cols)?;
    at_least("diff_vel (one per joint)", cols, diff_vel.len())?;
    let h = splat(halflife);
    for i in 0..rows {
        let t = splat(i as f32 * dt);
        for j in 0..cols {
            offsets[i * cols + j] = decayed_offset(diff_pos[j], diff_vel[j], h, t);
        }
    }
    Ok(())
}

/// [`crate::reference::compute_inertialize_end_offsets`], eight joints per lane vector.
pub fn compute_inertialize_end_offsets(
    offsets: &mut [Vec3x8],
    diff_pos: &[Vec3x8],
    diff_vel: &[Vec3x8],
    halflife: f32,
    dt: f32,
) -> Result<()> {
    let cols = diff_pos.len();
    let rows = rows_of(offsets.len(), cols)?;
    at_least("diff_vel (one per joint)", cols, diff_vel.len())?;
    let h = splat(halflife);
    for i in 0..rows {
        let t = splat((rows - 1 - i) as f32 * dt);
        for j in 0..cols {
            offsets[i * cols + j] = decayed_offset(-diff_pos[j], diff_vel[j], h, t);
        }
    }
    Ok(())
}

/// [`crate::reference::softfade`] per lane (stable softplus form).
#[inline(always)]
pub fn softfade(x: F32x8, alpha: F32x8) -> F32x8 {
    let alpha = alpha.max(splat(1e-6));
    let z = alpha - splat(2.0) * alpha * x;
    (z.max(F32x8::ZERO) + (-z.abs()).exp().ln_1p()) / alpha
}

/// [`crate::reference::softfade_grad_zero`] per lane.
#[inline(always)]
pub fn softfade_grad_zero(alpha: F32x8) -> F32x8 {
    splat(-2.0) / (splat(1.0) + (-alpha).exp())
}

/// [`crate::reference::decayed_offset_softfade`] per lane.
#[inline(always)]
pub fn decayed_offset_softfade(x: Vec3x8, duration: F32x8, hardness: F32x8, dt: F32x8) -> Vec3x8 {
    x * softfade(dt / duration, hardness)
}

/// [`crate::reference::decayed_offset_softfade_grad_zero`] per lane.
#[inline(always)]
pub fn decayed_offset_softfade_grad_zero(x: Vec3x8, duration: F32x8, hardness: F32x8) -> Vec3x8 {
    x * (softfade_grad_zero(hardness) / duration)
}

/// [`crate::reference::compute_softfade_start_end_difference`], eight joints per lane vector.
#[allow(clippy::too_many_arguments)]
pub fn compute_softfade_start_end_difference(
    diff_pos: &mut [Vec3x8],
    diff_vel: &mut [Vec3x8],
    pos: Slice2d<Vec3x8>,
    duration_start: f32,
    duration_end: f32,
    hardness_start: f32,
    hardness_end: f32,
    ratio: f32,
    dt: f32,
) -> Result<()> {
    let (e1, e0, s1, s0) = seam_frames(pos.rows())?;
    at_least("diff_pos (one per joint)", pos.cols(), diff_pos.len())?;
    at_least("diff_vel (one per joint)", pos.cols(), diff_vel.len())?;
    let d = splat(dt);
    for j in 0..pos.cols() {
        diff_pos[j] = pos.at(e1, j) - pos.at(0, j);
        let end = div_dt(pos.at(e1, j) - pos.at(e0, j), d)
            + decayed_offset_softfade_grad_zero(
                splat(1.0 - ratio) * diff_pos[j],
                splat(duration_end),
                splat(hardness_end),
            );
        let start = div_dt(pos.at(s1, j) - pos.at(s0, j), d)
            + decayed_offset_softfade_grad_zero(
                splat(ratio) * diff_pos[j],
                splat(duration_start),
                splat(hardness_start),
            );
        diff_vel[j] = end - start;
    }
    Ok(())
}

/// [`crate::reference::compute_softfade_start_end_difference_quat`], eight joints per lane vector.
#[allow(clippy::too_many_arguments)]
pub fn compute_softfade_start_end_difference_quat(
    diff_rot: &mut [Vec3x8],
    diff_vel: &mut [Vec3x8],
    rot: Slice2d<Quatx8>,
    duration_start: f32,
    duration_end: f32,
    hardness_start: f32,
    hardness_end: f32,
    ratio: f32,
    dt: f32,
) -> Result<()> {
    let (e1, e0, s1, s0) = seam_frames(rot.rows())?;
    at_least("diff_rot (one per joint)", rot.cols(), diff_rot.len())?;
    at_least("diff_vel (one per joint)", rot.cols(), diff_vel.len())?;
    let d = splat(dt);
    for j in 0..rot.cols() {
        diff_rot[j] =
            quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(rot.at(e1, j), rot.at(0, j))));
        let end = quat_differentiate_angular_velocity(rot.at(e1, j), rot.at(e0, j), d)
            + decayed_offset_softfade_grad_zero(
                splat(1.0 - ratio) * diff_rot[j],
                splat(duration_end),
                splat(hardness_end),
            );
        let start = quat_differentiate_angular_velocity(rot.at(s1, j), rot.at(s0, j), d)
            + decayed_offset_softfade_grad_zero(
                splat(ratio) * diff_rot[j],
                splat(duration_start),
                splat(hardness_start),
            );
        diff_vel[j] = end - start;
    }
    Ok(())
}

/// [`crate::reference::compute_softfade_inertialize_offsets`], eight joints per lane vector.
#[allow(clippy::too_many_arguments)]
pub fn compute_softfade_inertialize_offsets(
    offsets: &mut [Vec3x8],
    diff_pos: &[Vec3x8],
    diff_vel: &[Vec3x8],
    blendtime_start: f32,
    blendtime_end: f32,
    duration_start: f32,
    duration_end: f32,
    hardness_start: f32,
    hardness_end: f32,
    ratio: f32,
    dt: f32,
) -> Result<()> {
    let cols = diff_pos.len();
    let rows = rows_of(offsets.len(), cols)?;
    at_least("diff_vel (one per joint)", cols, diff_vel.len())?;
    let (r, r1) = (splat(ratio), splat(1.0 - ratio));
    for i in 0..rows {
        let (ts, te) = (splat(i as f32 * dt), splat((rows - 1 - i) as f32 * dt));
        for j in 0..cols {
            offsets[i * cols + j] =
                decayed_offset_softfade(
                    r * diff_pos[j],
                    splat(duration_start),
                    splat(hardness_start),
                    ts,
                ) + decayed_offset_softfade(
                    r1 * -diff_pos[j],
                    splat(duration_end),
                    splat(hardness_end),
                    te,
                ) + decayed_velocity_offset_cubic(r * diff_vel[j], splat(blendtime_start), ts)
                    + decayed_velocity_offset_cubic(r1 * diff_vel[j], splat(blendtime_end), te);
        }
    }
    Ok(())
}

/// `out = pos + offsets` per lane vector.
pub fn apply_positional_offsets(
    out: &mut [Vec3x8],
    pos: Slice2d<Vec3x8>,
    offsets: &[Vec3x8],
) -> Result<()> {
    same_values(pos.data().len(), out.len(), offsets.len())?;
    for ((o, p), d) in out.iter_mut().zip(pos.data()).zip(offsets) {
        *o = *p + *d;
    }
    Ok(())
}

/// `out = quat_from_scaled_angle_axis(offsets) rot` per lane vector.
pub fn apply_rotational_offsets(
    out: &mut [Quatx8],
    rot: Slice2d<Quatx8>,
    offsets: &[Vec3x8],
) -> Result<()> {
    same_values(rot.data().len(), out.len(), offsets.len())?;
    for ((o, r), d) in out.iter_mut().zip(rot.data()).zip(offsets) {
        *o = quat_mul(quat_from_scaled_angle_axis(*d), *r);
    }
    Ok(())
}

/// [`crate::reference::compute_root_inertialize_offsets`] for eight roots
/// at once (lane `i` of column 0 is the root of clip `i`; frames must
/// match). Writes column 0 of each frame of the offsets.
#[allow(clippy::too_many_arguments)]
pub fn compute_root_inertialize_offsets(
    offsets_pos: &mut [Vec3x8],
    offsets_rot: &mut [Vec3x8],
    pos: Slice2d<Vec3x8>,
    rot: Slice2d<Quatx8>,
    blendtime_start: f32,
    blendtime_end: f32,
    ratio: f32,
    dt: f32,
) -> Result<()> {
    use super::math::{Rotor, quat_inv};
    let n = rot.rows();
    let (e1, e0, s1, s0) = seam_frames(n)?;
    let cols = rot.cols();
    root_shapes(n, cols, pos.rows(), (offsets_pos.len(), offsets_rot.len()))?;
    let d = splat(dt);
    let (root_start, root_end) = (rot.at(0, 0), rot.at(e1, 0));
    let (to_start, to_end) = (
        Rotor::new(quat_inv(root_start)),
        Rotor::new(quat_inv(root_end)),
    );
    let diff_pos_vel = to_end.apply(div_dt(pos.at(e1, 0) - pos.at(e0, 0), d))
        - to_start.apply(div_dt(pos.at(s1, 0) - pos.at(s0, 0), d));
    let diff_rot_vel = to_end.apply(quat_differentiate_angular_velocity(
        rot.at(e1, 0),
        rot.at(e0, 0),
        d,
    )) - to_start.apply(quat_differentiate_angular_velocity(
        rot.at(s1, 0),
        rot.at(s0, 0),
        d,
    ));
    let (from_start, from_end) = (Rotor::new(root_start), Rotor::new(root_end));
    let (r, r1) = (splat(ratio), splat(1.0 - ratio));
    let (bs, be) = (splat(blendtime_start), splat(blendtime_end));
    for i in 0..n {
        let (ts, te) = (splat(i as f32 * dt), splat((n - 1 - i) as f32 * dt));
        offsets_pos[i * cols] =
            decayed_velocity_offset_cubic(r * from_start.apply(diff_pos_vel), bs, ts)
                + decayed_velocity_offset_cubic(r1 * from_end.apply(diff_pos_vel), be, te);
        offsets_rot[i * cols] =
            decayed_velocity_offset_cubic(r * from_start.apply(diff_rot_vel), bs, ts)
                + decayed_velocity_offset_cubic(r1 * from_end.apply(diff_rot_vel), be, te);
    }
    Ok(())
}
