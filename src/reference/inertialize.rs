//! Inertializers: offset-based transitions that decay the difference
//! between the source and destination animations (transition cost article,
//! "Appendix: Cubic Inertializer"; reference-math.md, "Inertializers on
//! single values"; velocities article, "Inertialization").

use super::angular::{quat_from_scaled_angle_axis_dx, quat_to_scaled_angle_axis_dx};
use super::deadblend::extrapolation_scale_cap;
use super::kform::Kform;
use super::math::{Quat, Vec3, clampf, exp_vec3, log_vec3, quat_abs, quat_from_scaled_angle_axis};
use super::math::{quat_mul, quat_mul_inv, quat_mul_vec3, quat_to_scaled_angle_axis};
use super::pose::{Pose, lengths};
use super::spring::{decay_spring_damper_exact_quat, decay_spring_damper_exact_vec3};
use crate::error::Result;

/// Epsilon added to blend times (`1e-8f`).
pub const EPS_BLEND: f32 = 1e-8;

/// Cubic decay of an initial offset `init_x` moving at `init_v`, reaching
/// zero with zero velocity at `blendtime`: with `t = clamp(dt / (blendtime +
/// 1e-8), 0, 1)`, `d = x`, `c = v blendtime`, `b = -3d - 2c`, `a = 2d + c`,
/// returns `(a t³ + b t² + c t + d, (3a t² + 2b t + c) / (blendtime + 1e-8))`.
///
/// An offset of 1 at rest, blend time 0.3 s: halfway through (`t = 0.5`) it
/// is `2/8 - 3/4 + 1 = 0.5`, moving at `(6/4 - 3) / 0.3 = -5` per second;
/// at the blend time it is 0 and still.
///
/// ```
/// use kineform::reference::{Vec3, decayed_offset_cubic};
/// let one = Vec3::new(1.0, 0.0, 0.0);
/// let (x, v) = decayed_offset_cubic(one, Vec3::ZERO, 0.3, 0.15);
/// assert!((x.x - 0.5).abs() < 1e-6 && (v.x + 5.0).abs() < 1e-4);
/// let (x, v) = decayed_offset_cubic(one, Vec3::ZERO, 0.3, 0.3);
/// assert!(x.x.abs() < 1e-6 && v.x.abs() < 1e-4);
/// ```
#[inline]
pub fn decayed_offset_cubic(init_x: Vec3, init_v: Vec3, blendtime: f32, dt: f32) -> (Vec3, Vec3) {
    let t = clampf(dt / (blendtime + EPS_BLEND), 0.0, 1.0);
    let d = init_x;
    let c = init_v * blendtime;
    let b = -3.0 * d - 2.0 * c;
    let a = 2.0 * d + c;
    (
        a * (t * t * t) + b * (t * t) + c * t + d,
        (3.0 * a * (t * t) + 2.0 * b * t + c) / (blendtime + EPS_BLEND),
    )
}

/// [`decayed_offset_cubic`] of a rotational offset: decayed in
/// scaled-angle-axis space (after `quat_abs`, so the short way round) and
/// turned back into a quaternion. `init_v` and the returned velocity are
/// angular velocities.
///
/// Correction of the published code, which decays the angular velocity as
/// if it were the scaled angle axis's rate: the two are equal only while
/// the offset and its velocity are parallel. Here the rate is
/// `J(x)⁻¹ init_v` ([`quat_to_scaled_angle_axis_dx`]) and the angular
/// velocity returned `J(x(t)) x'(t)` ([`quat_from_scaled_angle_axis_dx`]),
/// so it is the derivative of the rotation returned (tested against finite
/// differences in `tests/suite/catalogue_velocities.rs`).
#[inline]
pub fn decayed_offset_cubic_quat(
    init_x: Quat,
    init_v: Vec3,
    blendtime: f32,
    dt: f32,
) -> (Quat, Vec3) {
    let init_x = quat_abs(init_x);
    let (x, v) = decayed_offset_cubic(
        quat_to_scaled_angle_axis(init_x),
        quat_to_scaled_angle_axis_dx(init_x, init_v),
        blendtime,
        dt,
    );
    (
        quat_from_scaled_angle_axis(x),
        quat_from_scaled_angle_axis_dx(x, v),
    )
}

/// Starts a cubic transition from the source to the destination: the offset
/// becomes the currently displayed value (source plus the still-decaying
/// old offset) minus the destination, and the offset time restarts.
/// Returns the new `(off_x, off_v, off_t)`.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn inertialize_cubic_transition(
    off_x: Vec3,
    off_v: Vec3,
    off_t: f32,
    src_x: Vec3,
    src_v: Vec3,
    dst_x: Vec3,
    dst_v: Vec3,
    blendtime: f32,
) -> (Vec3, Vec3, f32) {
    let (dec_x, dec_v) = decayed_offset_cubic(off_x, off_v, blendtime, off_t);
    ((dec_x + src_x) - dst_x, (dec_v + src_v) - dst_v, 0.0)
}

/// Advances a cubic transition by `dt` and applies the decayed offset to the
/// input. Returns `(out_x, out_v, off_t)`.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn inertialize_cubic_update(
    off_t: f32,
    off_x: Vec3,
    off_v: Vec3,
    in_x: Vec3,
    in_v: Vec3,
    blendtime: f32,
    dt: f32,
) -> (Vec3, Vec3, f32) {
    let off_t = off_t + dt;
    let (dec_x, dec_v) = decayed_offset_cubic(off_x, off_v, blendtime, off_t);
    (in_x + dec_x, in_v + dec_v, off_t)
}

/// [`inertialize_cubic_transition`] for rotations. The displayed value is
/// `dec_x src_x` turning at `dec_v + R(dec_x) src_v`; the new offset is
/// `quat_abs(displayed dst_x⁻¹)` and its velocity `displayed_v - R(off_x) dst_v`.
///
/// Deviation from reference-math.md (`off_v = dec_v + src_v - dst_v`): that
/// offset velocity, fed to [`inertialize_cubic_update_quat`] (which rotates
/// the input velocity by the offset, as `op_inertialize` does), makes the
/// output's angular velocity jump at the transition. Rotating both input
/// velocities keeps it continuous; the two agree when the offsets are
/// identity. Offsets are canonicalized with `quat_abs` (edge-case table).
/// Tested in `tests/suite/edge_cases.rs` (`transitions_are_continuous_in_value_and_velocity`)
/// and `tests/suite/corrections.rs`.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn inertialize_cubic_transition_quat(
    off_x: Quat,
    off_v: Vec3,
    off_t: f32,
    src_x: Quat,
    src_v: Vec3,
    dst_x: Quat,
    dst_v: Vec3,
    blendtime: f32,
) -> (Quat, Vec3, f32) {
    let (dec_x, dec_v) = decayed_offset_cubic_quat(off_x, off_v, blendtime, off_t);
    let cur_x = quat_mul(dec_x, src_x);
    let cur_v = dec_v + quat_mul_vec3(dec_x, src_v);
    let new_x = quat_abs(quat_mul_inv(cur_x, dst_x));
    (new_x, cur_v - quat_mul_vec3(new_x, dst_v), 0.0)
}

/// [`inertialize_cubic_update`] for rotations: `out_x = dec_x in_x`,
/// `out_v = dec_v + R(dec_x) in_v`. Returns `(out_x, out_v, off_t)`.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn inertialize_cubic_update_quat(
    off_t: f32,
    off_x: Quat,
    off_v: Vec3,
    in_x: Quat,
    in_v: Vec3,
    blendtime: f32,
    dt: f32,
) -> (Quat, Vec3, f32) {
    let off_t = off_t + dt;
    let (dec_x, dec_v) = decayed_offset_cubic_quat(off_x, off_v, blendtime, off_t);
    (
        quat_mul(dec_x, in_x),
        dec_v + quat_mul_vec3(dec_x, in_v),
        off_t,
    )
}

/// Starts a spring transition (reference-math.md):
/// `off_x = (src_x + off_x) - dst_x`, `off_v = (src_v + off_v) - dst_v`.
/// Returns the new `(off_x, off_v)`.
#[inline]
pub fn inertialize_transition(
    off_x: Vec3,
    off_v: Vec3,
    src_x: Vec3,
    src_v: Vec3,
    dst_x: Vec3,
    dst_v: Vec3,
) -> (Vec3, Vec3) {
    ((src_x + off_x) - dst_x, (src_v + off_v) - dst_v)
}

/// Decays a spring offset by `dt` and applies it to the input
/// (reference-math.md). Returns `(out_x, out_v, off_x, off_v)`.
#[inline]
pub fn inertialize_update(
    off_x: Vec3,
    off_v: Vec3,
    in_x: Vec3,
    in_v: Vec3,
    halflife: f32,
    dt: f32,
) -> (Vec3, Vec3, Vec3, Vec3) {
    let (off_x, off_v) = decay_spring_damper_exact_vec3(off_x, off_v, halflife, dt);
    (in_x + off_x, in_v + off_v, off_x, off_v)
}

/// [`inertialize_transition`] for rotations, with the same continuity
/// correction as [`inertialize_cubic_transition_quat`]: the displayed value
/// is `off_x src_x` turning at `off_v + R(off_x) src_v` (tested in
/// `tests/suite/corrections.rs`, `quaternion_transitions_keep_the_displayed_angular_velocity`).
#[inline]
pub fn inertialize_transition_quat(
    off_x: Quat,
    off_v: Vec3,
    src_x: Quat,
    src_v: Vec3,
    dst_x: Quat,
    dst_v: Vec3,
) -> (Quat, Vec3) {
    let cur_x = quat_mul(off_x, src_x);
    let cur_v = off_v + quat_mul_vec3(off_x, src_v);
    let new_x = quat_abs(quat_mul_inv(cur_x, dst_x));
    (new_x, cur_v - quat_mul_vec3(new_x, dst_v))
}

/// [`inertialize_update`] for rotations: the offset decays with
/// [`decay_spring_damper_exact_quat`], `out_x = off_x in_x`,
/// `out_v = off_v + R(off_x) in_v`. Returns `(out_x, out_v, off_x, off_v)`.
#[inline]
pub fn inertialize_update_quat(
    off_x: Quat,
    off_v: Vec3,
    in_x: Quat,
    in_v: Vec3,
    halflife: f32,
    dt: f32,
) -> (Quat, Vec3, Quat, Vec3) {
    let (off_x, off_v) = decay_spring_damper_exact_quat(off_x, off_v, halflife, dt);
    (
        quat_mul(off_x, in_x),
        off_v + quat_mul_vec3(off_x, in_v),
        off_x,
        off_v,
    )
}

/// The offset pose of a transition from `lhs` (what is displayed now) to
/// `rhs` (the new input), for [`op_inertialize`]:
/// `pos = lhs.pos - rhs.pos`, `rot = quat_abs(lhs.rot rhs.rot⁻¹)`,
/// `scl = lhs.scl / rhs.scl`, `vel = lhs.vel - rhs.vel`,
/// `ang = lhs.ang - R(rot) rhs.ang`, `svl = lhs.svl - rhs.svl`.
///
/// Deviations from the published reference: the rotation offset goes
/// through `quat_abs` (edge-case table), and the angular velocity offset
/// rotates `rhs.ang` by it, because [`op_inertialize`] rotates the input's
/// angular velocity; the published `lhs.ang - rhs.ang` makes the output's
/// angular velocity jump at the transition (tested in `tests/suite/edge_cases.rs`,
/// `transitions_are_continuous_in_value_and_velocity`).
pub fn op_inertialize_offset(offset: &mut Pose, lhs: &Pose, rhs: &Pose) -> Result<()> {
    let n = offset.len();
    lengths(n, &[&*offset, lhs, rhs])?;
    for i in 0..n {
        let rot = quat_abs(quat_mul_inv(lhs.rot[i], rhs.rot[i]));
        offset.pos[i] = lhs.pos[i] - rhs.pos[i];
        offset.rot[i] = rot;
        offset.scl[i] = lhs.scl[i] / rhs.scl[i];
        offset.vel[i] = lhs.vel[i] - rhs.vel[i];
        offset.ang[i] = lhs.ang[i] - quat_mul_vec3(rot, rhs.ang[i]);
        offset.svl[i] = lhs.svl[i] - rhs.svl[i];
    }
    Ok(())
}

/// Cubic inertialization of a whole pose (velocities article,
/// "Inertialization"): with `t = clamp(blend_time / (blend_duration + 1e-8),
/// 0, 1)` and the weights `w0 = 2t³ - 3t² + 1`, `w1 = (t³ - 2t² + t) duration`,
/// `w2 = (6t² - 6t) / (duration + 1e-8)`, `w3 = 3t² - 4t + 1`, the offset
/// decays as `off = w0 x + w1 v`, `off_vel = w2 x + w3 v` (rotations in
/// scaled-angle-axis space, scales in log space) and is applied to `input`:
/// `pos = in + off`, `rot = off_rot in`, `ang = R(off_rot) in.ang + off_ang`,
/// `scl = in.scl off_scl`.
///
/// Deviation: the scale's velocity offset carries it by `w1 v` capped as
/// dead blending's extrapolation is ([`extrapolation_scale_cap`]: `m c`
/// with `m = w1 v`, at rate `w3 v c³`), so a scale velocity of a clip with
/// tiny frames played fast moves the scale by at most a factor of 2 per
/// axis instead of overflowing to infinity.
///
/// The offset rotation goes through `quat_abs` first (edge-case table).
///
/// Correction of the published code: `offset.ang` is the offset's angular
/// velocity ([`op_inertialize_offset`]), which the published code decays
/// as if it were the rate of the offset's scaled angle axis, and whose
/// decayed rate it then adds as an angular velocity. The two agree only
/// while the offset and its velocity are parallel; a knee offset of a
/// radian turning across itself at 10 rad/s is off by several rad/s. Here
/// the rate is `J(x)⁻¹ ang` and the angular velocity added
/// `J(off) off_vel` ([`quat_to_scaled_angle_axis_dx`],
/// [`quat_from_scaled_angle_axis_dx`]), so the output's angular velocity is
/// the derivative of its rotation (tested against finite differences in
/// `tests/suite/catalogue_velocities.rs`).
pub fn op_inertialize(
    output: &mut Pose,
    offset: &Pose,
    input: &Pose,
    blend_time: f32,
    blend_duration: f32,
) -> Result<()> {
    let n = output.len();
    lengths(n, &[&*output, offset, input])?;
    for i in 0..n {
        let k = kform_inertialize(&offset.get(i), &input.get(i), blend_time, blend_duration);
        output.set(i, k);
    }
    Ok(())
}

/// One joint of [`op_inertialize`]: the offset `offset` decayed at
/// `blend_time` of `blend_duration` and applied to `input` (a crowd's
/// blend profile gives each joint its own duration).
#[inline]
pub fn kform_inertialize(
    offset: &Kform,
    input: &Kform,
    blend_time: f32,
    blend_duration: f32,
) -> Kform {
    let t = clampf(blend_time / (blend_duration + EPS_BLEND), 0.0, 1.0);
    let w0 = 2.0 * t * t * t - 3.0 * t * t + 1.0;
    let w1 = (t * t * t - 2.0 * t * t + t) * blend_duration;
    let w2 = (6.0 * t * t - 6.0 * t) / (blend_duration + EPS_BLEND);
    let w3 = 3.0 * t * t - 4.0 * t + 1.0;
    let off_rot_abs = quat_abs(offset.rot);
    let off_rot_saa = quat_to_scaled_angle_axis(off_rot_abs);
    let off_rot_rate = quat_to_scaled_angle_axis_dx(off_rot_abs, offset.ang);
    let off_log_scl = log_vec3(offset.scl);
    let off_pos = w0 * offset.pos + w1 * offset.vel;
    let off_vel = w2 * offset.pos + w3 * offset.vel;
    let off_saa = w0 * off_rot_saa + w1 * off_rot_rate;
    let off_rot = quat_from_scaled_angle_axis(off_saa);
    let off_ang = quat_from_scaled_angle_axis_dx(off_saa, w2 * off_rot_saa + w3 * off_rot_rate);
    let carried = w1 * offset.svl;
    let c = extrapolation_scale_cap(carried);
    let off_scl = exp_vec3(w0 * off_log_scl + carried * c);
    let off_svl = w2 * off_log_scl + w3 * offset.svl * (c * c * c);
    Kform {
        pos: input.pos + off_pos,
        vel: input.vel + off_vel,
        rot: quat_mul(off_rot, input.rot),
        ang: quat_mul_vec3(off_rot, input.ang) + off_ang,
        scl: input.scl * off_scl,
        svl: input.svl + off_svl,
    }
}
