//! Blends and additives with velocities for eight characters
//! ([`crate::reference::blend`] per lane; weights are lane vectors).

use super::angular::{quat_additive_dx, quat_slerp_parts, slerp_dx_parts};
use super::kform::Kformx8;
use super::math::{F32x8, Quatx8, Rotor, Vec3x8, clampf, exp_vec3, lerp_vec3, log_vec3, splat};
use super::math::{
    quat_abs, quat_from_scaled_angle_axis, quat_mul, quat_mul_inv, quat_to_scaled_angle_axis,
};
use crate::error::Result;
use crate::reference::blend::EPS_SMOOTHSTEP;
use crate::reference::pose::pose_lengths;

/// `3x² - 2x³` per lane.
#[inline(always)]
pub fn smoothstep(x: F32x8) -> F32x8 {
    x * x * (splat(3.0) - splat(2.0) * x)
}

/// `6x - 6x²` per lane.
#[inline(always)]
pub fn smoothstep_dx(x: F32x8) -> F32x8 {
    splat(6.0) * x * (splat(1.0) - x)
}

/// [`crate::reference::smoothstep_blend_alpha`] per lane.
#[inline(always)]
pub fn smoothstep_blend_alpha(blend_time: F32x8, blend_duration: F32x8) -> F32x8 {
    smoothstep(clampf(
        blend_time / blend_duration.max(splat(EPS_SMOOTHSTEP)),
        F32x8::ZERO,
        splat(1.0),
    ))
}

/// [`crate::reference::smoothstep_blend_alpha_dx`] per lane.
#[inline(always)]
pub fn smoothstep_blend_alpha_dx(
    blend_time: F32x8,
    blend_duration: F32x8,
    blend_dt: F32x8,
) -> F32x8 {
    let d = blend_duration.max(splat(EPS_SMOOTHSTEP));
    smoothstep_dx(clampf(blend_time / d, F32x8::ZERO, splat(1.0))) * (blend_dt / d)
}

/// `alpha_vel / dt`, 0 where `dt == 0`.
#[inline(always)]
pub fn weight_rate(alpha_vel: F32x8, dt: F32x8) -> F32x8 {
    dt.simd_eq(F32x8::ZERO).select(F32x8::ZERO, alpha_vel / dt)
}

/// One joint of [`op_blend`]: `rate` is `alpha_vel / dt` (0 for a static blend).
///
/// The reference's terms, with the work they share done once: the
/// rotation's slerp is `exp(alpha log d) l` with `d = quat_abs(r l⁻¹)` (for
/// unit quaternions `quat_slerp_shortest` exactly: the shortest arc from
/// `l` to `r`, and `l` itself for equal or opposite inputs), whose pieces
/// also give its exact angular velocity ([`slerp_dx_parts`],
/// [`crate::reference::quat_slerp_dx`]); the scale's `eerp` and its
/// velocity term share `ln l.scl` and `ln r.scl` (`ln(r / l) = ln r - ln l`).
#[inline(always)]
pub fn kform_blend(l: &Kformx8, r: &Kformx8, alpha: F32x8, rate: F32x8) -> Kformx8 {
    kform_blend_along(l, r, quat_abs(quat_mul_inv(r.rot, l.rot)), alpha, rate)
}

/// [`kform_blend`] along the relative rotation `rel` from `l.rot` to
/// `r.rot` (`r.rot = ±rel l.rot`), whichever hemisphere it is in: the
/// rotation is `exp(alpha log rel) l.rot` (dead blending's path,
/// [`crate::reference::op_dead_blending`]).
#[inline(always)]
pub fn kform_blend_along(
    l: &Kformx8,
    r: &Kformx8,
    rel: Quatx8,
    alpha: F32x8,
    rate: F32x8,
) -> Kformx8 {
    let (ca, kb, k) = quat_slerp_parts(rel, alpha);
    let u = rel.xyz();
    let (ll, lr) = (log_vec3(l.scl), log_vec3(r.scl));
    let keep = splat(1.0) - alpha;
    let eerp = |x: F32x8, y: F32x8| keep.mul_add(x, alpha * y).exp();
    Kformx8 {
        pos: lerp_vec3(l.pos, r.pos, alpha),
        rot: quat_mul(Quatx8::new(ca, u.x * kb, u.y * kb, u.z * kb), l.rot),
        scl: Vec3x8::new(eerp(ll.x, lr.x), eerp(ll.y, lr.y), eerp(ll.z, lr.z)),
        vel: lerp_vec3(l.vel, r.vel, alpha) + (r.pos - l.pos) * rate,
        ang: slerp_dx_parts(u, rel.w, ca, kb, k, alpha, rate, (l.ang, r.ang)),
        svl: lerp_vec3(l.svl, r.svl, alpha) + (lr - ll) * rate,
    }
}

/// Blend with fixed weights for eight characters.
pub fn op_blend_static(
    output: &mut [Kformx8],
    lhs: &[Kformx8],
    rhs: &[Kformx8],
    alpha: F32x8,
) -> Result<()> {
    pose_lengths(output.len(), &[lhs.len(), rhs.len()])?;
    for ((o, l), r) in output.iter_mut().zip(lhs).zip(rhs) {
        *o = kform_blend(l, r, alpha, F32x8::ZERO);
    }
    Ok(())
}

/// Blend with changing weights for eight characters.
pub fn op_blend(
    output: &mut [Kformx8],
    lhs: &[Kformx8],
    rhs: &[Kformx8],
    alpha: F32x8,
    alpha_vel: F32x8,
    dt: F32x8,
) -> Result<()> {
    pose_lengths(output.len(), &[lhs.len(), rhs.len()])?;
    let rate = weight_rate(alpha_vel, dt);
    for ((o, l), r) in output.iter_mut().zip(lhs).zip(rhs) {
        *o = kform_blend(l, r, alpha, rate);
    }
    Ok(())
}

/// [`crate::reference::kform_additive_along`] per lane: the additive `add`
/// applied on the left of `base` at weight `alpha` changing at `rate`, its
/// rotation taken along `rel` (`±add.rot`), the angular velocity exact
/// ([`quat_additive_dx`]).
#[inline(always)]
pub fn kform_additive_along(
    base: &Kformx8,
    add: &Kformx8,
    rel: Quatx8,
    alpha: F32x8,
    rate: F32x8,
) -> Kformx8 {
    let log_scl = log_vec3(add.scl);
    Kformx8 {
        pos: alpha * add.pos + base.pos,
        rot: quat_mul(
            quat_from_scaled_angle_axis(alpha * quat_to_scaled_angle_axis(rel)),
            base.rot,
        ),
        scl: exp_vec3(alpha * log_scl) * base.scl,
        vel: base.vel + alpha * add.vel + add.pos * rate,
        ang: quat_additive_dx(rel, alpha, rate, base.ang, add.ang),
        svl: base.svl + alpha * add.svl + log_scl * rate,
    }
}

/// Additive on the left with fixed weights, eight characters.
pub fn op_additive_inplace_static(
    output: &mut [Kformx8],
    add: &[Kformx8],
    alpha: F32x8,
    _dt: F32x8,
) -> Result<()> {
    op_additive_inplace(output, add, alpha, F32x8::ZERO, F32x8::ZERO)
}

/// Additive on the right with fixed weights, eight characters.
pub fn op_additive_local_inplace_static(
    output: &mut [Kformx8],
    add: &[Kformx8],
    alpha: F32x8,
) -> Result<()> {
    op_additive_local_inplace(output, add, alpha, F32x8::ZERO, F32x8::ZERO)
}

/// Additive on the left with changing weights, eight characters (with the
/// reference's correction: the exact angular velocity).
pub fn op_additive_inplace(
    output: &mut [Kformx8],
    add: &[Kformx8],
    alpha: F32x8,
    alpha_vel: F32x8,
    dt: F32x8,
) -> Result<()> {
    pose_lengths(output.len(), &[add.len()])?;
    let rate = weight_rate(alpha_vel, dt);
    for (o, a) in output.iter_mut().zip(add) {
        *o = kform_additive_along(o, a, quat_abs(a.rot), alpha, rate);
    }
    Ok(())
}

/// Additive on the right with changing weights, eight characters (with the
/// reference's corrections: the weight's angular contribution is rotated
/// by the current rotation, and the additive's angular velocity is the
/// exact one).
pub fn op_additive_local_inplace(
    output: &mut [Kformx8],
    add: &[Kformx8],
    alpha: F32x8,
    alpha_vel: F32x8,
    dt: F32x8,
) -> Result<()> {
    pose_lengths(output.len(), &[add.len()])?;
    let rate = weight_rate(alpha_vel, dt);
    for (o, a) in output.iter_mut().zip(add) {
        let rel = quat_abs(a.rot);
        let add_rot = quat_from_scaled_angle_axis(alpha * quat_to_scaled_angle_axis(rel));
        let log_scl = log_vec3(a.scl);
        let cur_rot = o.rot;
        let own = quat_additive_dx(rel, alpha, rate, Vec3x8::ZERO, a.ang);
        o.pos += alpha * a.pos;
        o.rot = quat_mul(cur_rot, add_rot);
        o.scl = o.scl * exp_vec3(alpha * log_scl);
        o.vel = o.vel + alpha * a.vel + a.pos * rate;
        o.ang += Rotor::new(cur_rot).apply(own);
        o.svl = o.svl + alpha * a.svl + log_scl * rate;
    }
    Ok(())
}
