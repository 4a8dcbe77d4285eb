//! Inertializers over eight lanes: [`crate::reference::inertialize`] per
//! lane. Blend times are lane vectors, so each lane (each character of a
//! pack) can be at its own point of its own transition.

use super::angular::{quat_from_scaled_angle_axis_dx, quat_to_scaled_angle_axis_dx};
use super::kform::Kformx8;
use super::math::{F32x8, Quatx8, Rotor, Vec3x8, clampf, exp_vec3, log_vec3, quat_abs, splat};
use super::math::{quat_from_scaled_angle_axis, quat_mul, quat_mul_inv, quat_to_scaled_angle_axis};
use super::spring::{decay_spring_damper_exact_quat, decay_spring_damper_exact_vec3};
use crate::error::Result;
use crate::reference::inertialize::EPS_BLEND;
use crate::reference::pose::pose_lengths;

/// Cubic decay of an offset per lane; returns `(offset, its velocity)`.
#[inline(always)]
pub fn decayed_offset_cubic(
    init_x: Vec3x8,
    init_v: Vec3x8,
    blendtime: F32x8,
    dt: F32x8,
) -> (Vec3x8, Vec3x8) {
    let t = clampf(dt / (blendtime + splat(EPS_BLEND)), F32x8::ZERO, splat(1.0));
    let (t2, t3) = (t * t, t * t * t);
    let d = init_x;
    let c = init_v * blendtime;
    let b = splat(-3.0) * d - splat(2.0) * c;
    let a = splat(2.0) * d + c;
    (
        a * t3 + b * t2 + c * t + d,
        (splat(3.0) * a * t2 + splat(2.0) * b * t + c) / (blendtime + splat(EPS_BLEND)),
    )
}

/// [`decayed_offset_cubic`] of a rotational offset per lane.
#[inline(always)]
pub fn decayed_offset_cubic_quat(
    init_x: Quatx8,
    init_v: Vec3x8,
    blendtime: F32x8,
    dt: F32x8,
) -> (Quatx8, Vec3x8) {
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

/// Starts a cubic transition per lane; returns `(off_x, off_v, off_t)`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn inertialize_cubic_transition(
    off_x: Vec3x8,
    off_v: Vec3x8,
    off_t: F32x8,
    src_x: Vec3x8,
    src_v: Vec3x8,
    dst_x: Vec3x8,
    dst_v: Vec3x8,
    blendtime: F32x8,
) -> (Vec3x8, Vec3x8, F32x8) {
    let (dec_x, dec_v) = decayed_offset_cubic(off_x, off_v, blendtime, off_t);
    (
        (dec_x + src_x) - dst_x,
        (dec_v + src_v) - dst_v,
        F32x8::ZERO,
    )
}

/// Advances a cubic transition per lane; returns `(out_x, out_v, off_t)`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn inertialize_cubic_update(
    off_t: F32x8,
    off_x: Vec3x8,
    off_v: Vec3x8,
    in_x: Vec3x8,
    in_v: Vec3x8,
    blendtime: F32x8,
    dt: F32x8,
) -> (Vec3x8, Vec3x8, F32x8) {
    let off_t = off_t + dt;
    let (dec_x, dec_v) = decayed_offset_cubic(off_x, off_v, blendtime, off_t);
    (in_x + dec_x, in_v + dec_v, off_t)
}

/// [`inertialize_cubic_transition`] for rotations per lane, continuous in
/// angular velocity (see the reference).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn inertialize_cubic_transition_quat(
    off_x: Quatx8,
    off_v: Vec3x8,
    off_t: F32x8,
    src_x: Quatx8,
    src_v: Vec3x8,
    dst_x: Quatx8,
    dst_v: Vec3x8,
    blendtime: F32x8,
) -> (Quatx8, Vec3x8, F32x8) {
    let (dec_x, dec_v) = decayed_offset_cubic_quat(off_x, off_v, blendtime, off_t);
    let cur_x = quat_mul(dec_x, src_x);
    let cur_v = Rotor::new(dec_x).apply_add(src_v, dec_v);
    let new_x = quat_abs(quat_mul_inv(cur_x, dst_x));
    (new_x, cur_v - Rotor::new(new_x).apply(dst_v), F32x8::ZERO)
}

/// [`inertialize_cubic_update`] for rotations per lane.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn inertialize_cubic_update_quat(
    off_t: F32x8,
    off_x: Quatx8,
    off_v: Vec3x8,
    in_x: Quatx8,
    in_v: Vec3x8,
    blendtime: F32x8,
    dt: F32x8,
) -> (Quatx8, Vec3x8, F32x8) {
    let off_t = off_t + dt;
    let (dec_x, dec_v) = decayed_offset_cubic_quat(off_x, off_v, blendtime, off_t);
    (
        quat_mul(dec_x, in_x),
        Rotor::new(dec_x).apply_add(in_v, dec_v),
        off_t,
    )
}

/// Starts a spring transition per lane; returns `(off_x, off_v)`.
#[inline(always)]
pub fn inertialize_transition(
    off_x: Vec3x8,
    off_v: Vec3x8,
    src_x: Vec3x8,
    src_v: Vec3x8,
    dst_x: Vec3x8,
    dst_v: Vec3x8,
) -> (Vec3x8, Vec3x8) {
    ((src_x + off_x) - dst_x, (src_v + off_v) - dst_v)
}

/// Decays a spring offset and applies it per lane; returns
/// `(out_x, out_v, off_x, off_v)`.
#[inline(always)]
pub fn inertialize_update(
    off_x: Vec3x8,
    off_v: Vec3x8,
    in_x: Vec3x8,
    in_v: Vec3x8,
    halflife: F32x8,
    dt: F32x8,
) -> (Vec3x8, Vec3x8, Vec3x8, Vec3x8) {
    let (off_x, off_v) = decay_spring_damper_exact_vec3(off_x, off_v, halflife, dt);
    (in_x + off_x, in_v + off_v, off_x, off_v)
}

/// [`inertialize_transition`] for rotations per lane.
#[inline(always)]
pub fn inertialize_transition_quat(
    off_x: Quatx8,
    off_v: Vec3x8,
    src_x: Quatx8,
    src_v: Vec3x8,
    dst_x: Quatx8,
    dst_v: Vec3x8,
) -> (Quatx8, Vec3x8) {
    let cur_x = quat_mul(off_x, src_x);
    let cur_v = Rotor::new(off_x).apply_add(src_v, off_v);
    let new_x = quat_abs(quat_mul_inv(cur_x, dst_x));
    (new_x, cur_v - Rotor::new(new_x).apply(dst_v))
}

/// [`inertialize_update`] for rotations per lane.
#[inline(always)]
pub fn inertialize_update_quat(
    off_x: Quatx8,
    off_v: Vec3x8,
    in_x: Quatx8,
    in_v: Vec3x8,
    halflife: F32x8,
    dt: F32x8,
) -> (Quatx8, Vec3x8, Quatx8, Vec3x8) {
    let (off_x, off_v) = decay_spring_damper_exact_quat(off_x, off_v, halflife, dt);
    (
        quat_mul(off_x, in_x),
        Rotor::new(off_x).apply_add(in_v, off_v),
        off_x,
        off_v,
    )
}

/// The offset of a transition from `lhs` to `rhs` for one joint of eight
/// characters (see [`crate::reference::op_inertialize_offset`]).
#[inline(always)]
pub fn kform_inertialize_offset(lhs: Kformx8, rhs: Kformx8) -> Kformx8 {
    let rot = quat_abs(quat_mul_inv(lhs.rot, rhs.rot));
    Kformx8 {
        pos: lhs.pos - rhs.pos,
        rot,
        scl: lhs.scl / rhs.scl,
        vel: lhs.vel - rhs.vel,
        ang: lhs.ang - Rotor::new(rot).apply(rhs.ang),
        svl: lhs.svl - rhs.svl,
    }
}

/// `a x + b v` per component, fused: `x.mul_add(a, b v)`.
#[inline(always)]
fn weigh(x: Vec3x8, a: F32x8, v: Vec3x8, b: F32x8) -> Vec3x8 {
    Vec3x8::new(
        x.x.mul_add(a, v.x * b),
        x.y.mul_add(a, v.y * b),
        x.z.mul_add(a, v.z * b),
    )
}

/// The weights of the cubic decay at one blend time (velocities article,
/// `op_inertialize`): `off = w0 x + w1 v`, `off_vel = w2 x + w3 v`.
#[derive(Clone, Copy)]
pub struct CubicWeights {
    w0: F32x8,
    w1: F32x8,
    w2: F32x8,
    w3: F32x8,
}

impl CubicWeights {
    /// With `t = clamp(blend_time / (blend_duration + 1e-8), 0, 1)`:
    /// `w0 = 2t³ - 3t² + 1`, `w1 = (t³ - 2t² + t) duration`,
    /// `w2 = (6t² - 6t) / (duration + 1e-8)`, `w3 = 3t² - 4t + 1`.
    #[inline(always)]
    pub fn new(blend_time: F32x8, blend_duration: F32x8) -> CubicWeights {
        let t = clampf(
            blend_time / (blend_duration + splat(EPS_BLEND)),
            F32x8::ZERO,
            splat(1.0),
        );
        let t2 = t * t;
        let t3 = t2 * t;
        CubicWeights {
            w0: splat(2.0).mul_add(t3, splat(-3.0).mul_add(t2, splat(1.0))),
            w1: (splat(-2.0).mul_add(t2, t3) + t) * blend_duration,
            w2: splat(6.0).mul_add(t2, splat(-6.0) * t) / (blend_duration + splat(EPS_BLEND)),
            w3: splat(3.0).mul_add(t2, splat(-4.0).mul_add(t, splat(1.0))),
        }
    }

    /// `w0 x + w1 v`, as a multiply and a multiply-add per component.
    #[inline(always)]
    pub fn offset(&self, x: Vec3x8, v: Vec3x8) -> Vec3x8 {
        weigh(x, self.w0, v, self.w1)
    }

    /// `w2 x + w3 v`, as a multiply and a multiply-add per component.
    #[inline(always)]
    pub fn velocity(&self, x: Vec3x8, v: Vec3x8) -> Vec3x8 {
        weigh(x, self.w2, v, self.w3)
    }

    /// [`CubicWeights::offset`] of `2 x`: `(2 w0) x + w1 v`, for offsets
    /// stored as half-angle vectors (the doubling on the weight, once per
    /// pack, instead of on each joint's three components).
    #[inline(always)]
    pub fn offset_of_doubled(&self, x: Vec3x8, v: Vec3x8) -> Vec3x8 {
        weigh(x, self.w0 + self.w0, v, self.w1)
    }

    /// [`CubicWeights::velocity`] of `2 x`: `(2 w2) x + w3 v`.
    #[inline(always)]
    pub fn velocity_of_doubled(&self, x: Vec3x8, v: Vec3x8) -> Vec3x8 {
        weigh(x, self.w2 + self.w2, v, self.w3)
    }
}

/// Cubic inertialization of one joint of eight characters: the offset
/// decayed with `w` applied to `input` (see [`crate::reference::op_inertialize`]).
#[inline(always)]
pub fn kform_inertialize(offset: Kformx8, input: Kformx8, w: &CubicWeights) -> Kformx8 {
    let off_abs = quat_abs(offset.rot);
    let off_rot_saa = quat_to_scaled_angle_axis(off_abs);
    let off_rot_rate = quat_to_scaled_angle_axis_dx(off_abs, offset.ang);
    let off_log_scl = log_vec3(offset.scl);
    let off_saa = w.offset(off_rot_saa, off_rot_rate);
    let off_rot = quat_from_scaled_angle_axis(off_saa);
    let off_ang = quat_from_scaled_angle_axis_dx(off_saa, w.velocity(off_rot_saa, off_rot_rate));
    let carried = w.w1 * offset.svl;
    let c = super::deadblend::extrapolation_scale_cap(carried);
    Kformx8 {
        pos: input.pos + w.offset(offset.pos, offset.vel),
        vel: input.vel + w.velocity(offset.pos, offset.vel),
        rot: quat_mul(off_rot, input.rot),
        ang: Rotor::new(off_rot).apply_add(input.ang, off_ang),
        scl: input.scl * exp_vec3(w.w0 * off_log_scl + carried * c),
        svl: input.svl + w.w2 * off_log_scl + w.w3 * offset.svl * (c * c * c),
    }
}

/// [`crate::reference::op_inertialize_offset`] for a pose of eight
/// characters (one [`Kformx8`] per joint). Refuses, as the reference does
/// and writing nothing, a pose shorter than `offset`.
pub fn op_inertialize_offset(
    offset: &mut [Kformx8],
    lhs: &[Kformx8],
    rhs: &[Kformx8],
) -> Result<()> {
    pose_lengths(offset.len(), &[lhs.len(), rhs.len()])?;
    for ((o, l), r) in offset.iter_mut().zip(lhs).zip(rhs) {
        *o = kform_inertialize_offset(*l, *r);
    }
    Ok(())
}

/// [`crate::reference::op_inertialize`] for a pose of eight characters, each
/// lane at its own `blend_time`. Refuses, as the reference does and
/// writing nothing, a pose shorter than `output`.
pub fn op_inertialize(
    output: &mut [Kformx8],
    offset: &[Kformx8],
    input: &[Kformx8],
    blend_time: F32x8,
    blend_duration: F32x8,
) -> Result<()> {
    pose_lengths(output.len(), &[offset.len(), input.len()])?;
    let w = CubicWeights::new(blend_time, blend_duration);
    for ((o, off), i) in output.iter_mut().zip(offset).zip(input) {
        *o = kform_inertialize(*off, *i, &w);
    }
    Ok(())
}
