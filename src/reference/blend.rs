//! Two-way blends and additive animation with velocities (velocities
//! article, "Two Way Blend" and "Additive Animations").

#![allow(clippy::assign_op_pattern)] // `x = x + ...` as the article writes it

use super::angular::quat_slerp_dx;
use super::kform::Kform;
use super::math::Quat;
use super::math::{clampf, eerp_vec3, exp_vec3, lerp_vec3, log_vec3};
use super::math::{
    quat_abs, quat_from_scaled_angle_axis, quat_mul, quat_mul_inv, quat_mul_vec3,
    quat_slerp_shortest, quat_to_scaled_angle_axis,
};
use super::pose::{Pose, lengths};
use crate::error::Result;

/// Epsilon of the smoothstep blend helpers (`1e-8f`).
pub const EPS_SMOOTHSTEP: f32 = 1e-8;

/// `3x² - 2x³`.
#[inline]
pub fn smoothstep(x: f32) -> f32 {
    3.0 * x * x - 2.0 * x * x * x
}

/// `6x - 6x²`, the derivative of [`smoothstep`].
#[inline]
pub fn smoothstep_dx(x: f32) -> f32 {
    6.0 * x - 6.0 * x * x
}

/// `smoothstep(clamp(blend_time / max(blend_duration, 1e-8), 0, 1))`.
#[inline]
pub fn smoothstep_blend_alpha(blend_time: f32, blend_duration: f32) -> f32 {
    smoothstep(clampf(
        blend_time / blend_duration.max(EPS_SMOOTHSTEP),
        0.0,
        1.0,
    ))
}

/// The change of [`smoothstep_blend_alpha`] over one step of `blend_dt`:
/// `smoothstep_dx(x) blend_dt / max(blend_duration, 1e-8)`.
#[inline]
pub fn smoothstep_blend_alpha_dx(blend_time: f32, blend_duration: f32, blend_dt: f32) -> f32 {
    let d = blend_duration.max(EPS_SMOOTHSTEP);
    smoothstep_dx(clampf(blend_time / d, 0.0, 1.0)) * (blend_dt / d)
}

/// `alpha_vel / dt`, or 0 when `dt == 0` (edge-case table: the published
/// blends divide by zero).
#[inline]
pub fn weight_rate(alpha_vel: f32, dt: f32) -> f32 {
    if dt == 0.0 { 0.0 } else { alpha_vel / dt }
}

/// Blend with a fixed weight: positions and velocities lerped, rotations
/// slerped, scales eerped; the angular velocity is the slerp's
/// ([`quat_slerp_dx`] with a zero weight rate).
///
/// Correction of the published code, which lerps the angular velocities:
/// that is the slerp's angular velocity only while the two rotations are
/// close; a quarter turn apart it is off by about a tenth of the inputs'
/// difference in angular velocity (tested against finite differences in
/// `tests/catalogue_velocities.rs`).
pub fn op_blend_static(output: &mut Pose, lhs: &Pose, rhs: &Pose, alpha: f32) -> Result<()> {
    let n = output.len();
    lengths(n, &[&*output, lhs, rhs])?;
    for i in 0..n {
        output.pos[i] = lerp_vec3(lhs.pos[i], rhs.pos[i], alpha);
        output.rot[i] = quat_slerp_shortest(lhs.rot[i], rhs.rot[i], alpha);
        output.scl[i] = eerp_vec3(lhs.scl[i], rhs.scl[i], alpha);
        output.vel[i] = lerp_vec3(lhs.vel[i], rhs.vel[i], alpha);
        let rel = quat_abs(quat_mul_inv(rhs.rot[i], lhs.rot[i]));
        output.ang[i] = quat_slerp_dx(rel, alpha, 0.0, lhs.ang[i], rhs.ang[i]);
        output.svl[i] = lerp_vec3(lhs.svl[i], rhs.svl[i], alpha);
    }
    Ok(())
}

/// Blend with a changing weight: as [`op_blend_static`], plus the velocity
/// the changing weight introduces, `(rhs - lhs) alpha_vel / dt` (rotations
/// in scaled-angle-axis space, scales in log space). `alpha_vel` is the
/// change of `alpha` over the step `dt`; with `dt == 0` that term is 0.
///
/// The angular velocity is the slerp's exact one, [`quat_slerp_dx`]
/// (correction of the published `lerp(ang) + saa(rhs lhs⁻¹) rate`, its
/// first-order limit; see [`op_blend_static`]).
pub fn op_blend(
    output: &mut Pose,
    lhs: &Pose,
    rhs: &Pose,
    alpha: f32,
    alpha_vel: f32,
    dt: f32,
) -> Result<()> {
    let n = output.len();
    lengths(n, &[&*output, lhs, rhs])?;
    let rate = weight_rate(alpha_vel, dt);
    for i in 0..n {
        output.pos[i] = lerp_vec3(lhs.pos[i], rhs.pos[i], alpha);
        output.rot[i] = quat_slerp_shortest(lhs.rot[i], rhs.rot[i], alpha);
        output.scl[i] = eerp_vec3(lhs.scl[i], rhs.scl[i], alpha);
        output.vel[i] = lerp_vec3(lhs.vel[i], rhs.vel[i], alpha) + (rhs.pos[i] - lhs.pos[i]) * rate;
        let rel = quat_abs(quat_mul_inv(rhs.rot[i], lhs.rot[i]));
        output.ang[i] = quat_slerp_dx(rel, alpha, rate, lhs.ang[i], rhs.ang[i]);
        output.svl[i] =
            lerp_vec3(lhs.svl[i], rhs.svl[i], alpha) + log_vec3(rhs.scl[i] / lhs.scl[i]) * rate;
    }
    Ok(())
}

/// One joint of a blend along the relative rotation `rel` from `l.rot` to
/// `r.rot` (`r.rot = ±rel l.rot`), in whichever hemisphere `rel` is: the
/// rotation `exp(alpha log rel) l.rot` with its exact angular velocity
/// ([`quat_slerp_dx`]); positions, scales and velocities as [`op_blend`],
/// `rate` the weight's change per second. With `rel = quat_abs(r l⁻¹)` it
/// is [`op_blend`]'s joint; dead blending and the crowd follow `rel` from
/// step to step instead ([`super::deadblend::quat_relative_along`]).
#[inline]
pub fn kform_blend_along(l: &Kform, r: &Kform, rel: Quat, alpha: f32, rate: f32) -> Kform {
    Kform {
        pos: lerp_vec3(l.pos, r.pos, alpha),
        rot: quat_mul(
            quat_from_scaled_angle_axis(alpha * quat_to_scaled_angle_axis(rel)),
            l.rot,
        ),
        scl: eerp_vec3(l.scl, r.scl, alpha),
        vel: lerp_vec3(l.vel, r.vel, alpha) + (r.pos - l.pos) * rate,
        ang: quat_slerp_dx(rel, alpha, rate, l.ang, r.ang),
        svl: lerp_vec3(l.svl, r.svl, alpha) + log_vec3(r.scl / l.scl) * rate,
    }
}

/// The additive rotation scaled by `alpha` in scaled-angle-axis space.
#[inline]
fn scaled_additive(add: super::math::Quat, alpha: f32) -> super::math::Quat {
    quat_from_scaled_angle_axis(alpha * quat_to_scaled_angle_axis(quat_abs(add)))
}

/// Applies `add` with a fixed weight `alpha` on the left (in the parent's
/// frame): `pos += alpha add.pos`, `rot = add_rot rot`,
/// `scl = exp(alpha log add.scl) scl`, `ang = R(add_rot) ang + alpha add.ang`.
/// `_dt` is unused, as in the published signature.
pub fn op_additive_inplace_static(
    output: &mut Pose,
    add: &Pose,
    alpha: f32,
    _dt: f32,
) -> Result<()> {
    let n = output.len();
    lengths(n, &[&*output, add])?;
    for i in 0..n {
        let add_rot = scaled_additive(add.rot[i], alpha);
        output.pos[i] = alpha * add.pos[i] + output.pos[i];
        output.rot[i] = quat_mul(add_rot, output.rot[i]);
        output.scl[i] = exp_vec3(alpha * log_vec3(add.scl[i])) * output.scl[i];
        output.vel[i] = output.vel[i] + alpha * add.vel[i];
        output.ang[i] = quat_mul_vec3(add_rot, output.ang[i]) + alpha * add.ang[i];
        output.svl[i] = output.svl[i] + alpha * add.svl[i];
    }
    Ok(())
}

/// Applies `add` with a fixed weight on the right (in the joint's own
/// frame): `rot = rot add_rot`, `ang += R(rot) (alpha add.ang)`.
pub fn op_additive_local_inplace_static(output: &mut Pose, add: &Pose, alpha: f32) -> Result<()> {
    let n = output.len();
    lengths(n, &[&*output, add])?;
    for i in 0..n {
        let add_rot = scaled_additive(add.rot[i], alpha);
        let cur_rot = output.rot[i];
        output.pos[i] = alpha * add.pos[i] + output.pos[i];
        output.rot[i] = quat_mul(cur_rot, add_rot);
        output.scl[i] = exp_vec3(alpha * log_vec3(add.scl[i])) * output.scl[i];
        output.vel[i] = output.vel[i] + alpha * add.vel[i];
        output.ang[i] = output.ang[i] + quat_mul_vec3(cur_rot, alpha * add.ang[i]);
        output.svl[i] = output.svl[i] + alpha * add.svl[i];
    }
    Ok(())
}

/// [`op_additive_inplace_static`] with a changing weight: adds the additive
/// itself times `alpha_vel / dt` to the velocities (0 when `dt == 0`).
pub fn op_additive_inplace(
    output: &mut Pose,
    add: &Pose,
    alpha: f32,
    alpha_vel: f32,
    dt: f32,
) -> Result<()> {
    let n = output.len();
    lengths(n, &[&*output, add])?;
    let rate = weight_rate(alpha_vel, dt);
    for i in 0..n {
        let add_saa = quat_to_scaled_angle_axis(quat_abs(add.rot[i]));
        let add_rot = quat_from_scaled_angle_axis(alpha * add_saa);
        output.pos[i] = alpha * add.pos[i] + output.pos[i];
        output.rot[i] = quat_mul(add_rot, output.rot[i]);
        output.scl[i] = exp_vec3(alpha * log_vec3(add.scl[i])) * output.scl[i];
        output.vel[i] = output.vel[i] + alpha * add.vel[i] + add.pos[i] * rate;
        output.ang[i] = quat_mul_vec3(add_rot, output.ang[i]) + alpha * add.ang[i] + add_saa * rate;
        output.svl[i] = output.svl[i] + alpha * add.svl[i] + log_vec3(add.scl[i]) * rate;
    }
    Ok(())
}

/// [`op_additive_local_inplace_static`] with a changing weight.
///
/// Deviation: the weight's own contribution to the angular velocity,
/// `add_saa alpha_vel / dt`, is rotated into the parent's frame by the
/// current rotation (`R(rot) add_saa`), as the additive's angular velocity
/// is; the published code adds it unrotated, which disagrees with the
/// finite difference whenever `rot` is not the identity (tested in
/// `tests/catalogue_velocities.rs`, `additives_with_a_changing_weight`;
/// the corrections are listed in `tests/corrections.rs`).
pub fn op_additive_local_inplace(
    output: &mut Pose,
    add: &Pose,
    alpha: f32,
    alpha_vel: f32,
    dt: f32,
) -> Result<()> {
    let n = output.len();
    lengths(n, &[&*output, add])?;
    let rate = weight_rate(alpha_vel, dt);
    for i in 0..n {
        let add_saa = quat_to_scaled_angle_axis(quat_abs(add.rot[i]));
        let add_rot = quat_from_scaled_angle_axis(alpha * add_saa);
        let cur_rot = output.rot[i];
        output.pos[i] = output.pos[i] + alpha * add.pos[i];
        output.rot[i] = quat_mul(cur_rot, add_rot);
        output.scl[i] = output.scl[i] * exp_vec3(alpha * log_vec3(add.scl[i]));
        output.vel[i] = output.vel[i] + alpha * add.vel[i] + add.pos[i] * rate;
        output.ang[i] = output.ang[i] + quat_mul_vec3(cur_rot, alpha * add.ang[i] + add_saa * rate);
        output.svl[i] = output.svl[i] + alpha * add.svl[i] + log_vec3(add.scl[i]) * rate;
    }
    Ok(())
}
