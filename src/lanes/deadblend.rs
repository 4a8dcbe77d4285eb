//! Dead blending for eight characters ([`crate::reference::deadblend`] per lane).

use super::blend::weight_rate;
use super::blend::{kform_blend_along, smoothstep_blend_alpha, smoothstep_blend_alpha_dx};
use super::kform::Kformx8;
use super::math::{
    F32x8, Quatx8, Vec3x8, clampf, dot, exp_vec3, quat_dot, quat_from_scaled_angle_axis, quat_mul,
    quat_mul_inv, splat,
};
use super::math::{quat_abs, quat_to_scaled_angle_axis};
use super::spring::{fast_negexp, fast_negexp_dx};
use crate::error::Result;
use crate::reference::deadblend::{
    EPS_DEADBLEND, EXTRAPOLATION_MAX_ANGLE, EXTRAPOLATION_MAX_LOG_SCALE,
};
use crate::reference::deadblend::{one_entry_per_joint, one_per_joint, path_per_joint};
use crate::reference::math::LN2;
use crate::reference::pose::pose_lengths;

/// [`crate::reference::max_mag`] per lane (the sign of zero respected).
#[inline(always)]
pub fn max_mag(x: F32x8, eps: F32x8) -> F32x8 {
    let neg = x.is_sign_negative();
    let small = x.abs().simd_lt(eps);
    small.select(neg.select(-eps, eps), x)
}

/// [`max_mag`] per component.
#[inline(always)]
pub fn max_mag_vec3(x: Vec3x8, eps: F32x8) -> Vec3x8 {
    Vec3x8::new(max_mag(x.x, eps), max_mag(x.y, eps), max_mag(x.z, eps))
}

/// [`crate::reference::estimate_halflife`] per lane.
#[inline(always)]
pub fn estimate_halflife(
    src_dst_diff: Vec3x8,
    src_vel: Vec3x8,
    halflife_scale: F32x8,
    halflife_min: F32x8,
    halflife_max: F32x8,
) -> Vec3x8 {
    let r = halflife_scale * (src_dst_diff / max_mag_vec3(src_vel, splat(EPS_DEADBLEND)));
    Vec3x8::new(
        clampf(r.x, halflife_min, halflife_max),
        clampf(r.y, halflife_min, halflife_max),
        clampf(r.z, halflife_min, halflife_max),
    )
}

/// [`crate::reference::fit_joint_halflives`] per lane (eight characters'
/// same joint, or eight joints). The rotation difference's `quat_abs`
/// decides its side from `dst_rot · src_rot` with the reference's bits
/// ([`super::math::quat_mul_inv`]), so half-turn ties agree too.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn fit_joint_halflives(
    src_pos: Vec3x8,
    src_vel: Vec3x8,
    src_rot: Quatx8,
    src_ang: Vec3x8,
    dst_pos: Vec3x8,
    dst_rot: Quatx8,
    halflife: F32x8,
    min_halflife: F32x8,
    max_halflife: F32x8,
) -> (Vec3x8, Vec3x8) {
    let rot_diff = quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(dst_rot, src_rot)));
    (
        estimate_halflife(
            dst_pos - src_pos,
            src_vel,
            halflife,
            min_halflife,
            max_halflife,
        ),
        estimate_halflife(rot_diff, src_ang, halflife, min_halflife, max_halflife),
    )
}

/// [`crate::reference::fit_halflives`] for eight characters: element `j` of
/// every slice is joint `j` of the eight characters (a pack of a
/// [`crate::stream::CrowdPose`]), joint 0 being the root, which gets
/// `root_halflife` on every axis. Parameters are per lane. Refuses, as
/// the reference does and writing nothing, slices whose lengths differ.
#[allow(clippy::too_many_arguments)]
pub fn fit_halflives(
    halflives_pos: &mut [Vec3x8],
    halflives_rot: &mut [Vec3x8],
    src_pos: &[Vec3x8],
    src_vel: &[Vec3x8],
    src_rot: &[Quatx8],
    src_ang: &[Vec3x8],
    dst_pos: &[Vec3x8],
    dst_rot: &[Quatx8],
    halflife: F32x8,
    min_halflife: F32x8,
    max_halflife: F32x8,
    root_halflife: F32x8,
) -> Result<()> {
    let n = halflives_pos.len();
    let lens = [
        halflives_rot.len(),
        src_pos.len(),
        src_vel.len(),
        src_rot.len(),
        src_ang.len(),
        dst_pos.len(),
        dst_rot.len(),
    ];
    one_entry_per_joint(n, lens)?;
    let root = Vec3x8::new(root_halflife, root_halflife, root_halflife);
    for j in 0..n {
        (halflives_pos[j], halflives_rot[j]) = if j == 0 {
            (root, root)
        } else {
            fit_joint_halflives(
                src_pos[j],
                src_vel[j],
                src_rot[j],
                src_ang[j],
                dst_pos[j],
                dst_rot[j],
                halflife,
                min_halflife,
                max_halflife,
            )
        };
    }
    Ok(())
}

#[inline(always)]
fn decay(halflife: Vec3x8, dt: F32x8) -> (Vec3x8, Vec3x8) {
    let f = |h: F32x8| splat(LN2) / (h + splat(EPS_DEADBLEND));
    let y = Vec3x8::new(f(halflife.x), f(halflife.y), f(halflife.z));
    (
        y,
        Vec3x8::new(
            fast_negexp(y.x * dt),
            fast_negexp(y.y * dt),
            fast_negexp(y.z * dt),
        ),
    )
}

/// [`crate::reference::extrapolate_decay_rotation`] per lane.
#[inline(always)]
pub fn extrapolate_decay_rotation(
    x: Quatx8,
    v: Vec3x8,
    halflife: Vec3x8,
    dt: F32x8,
) -> (Quatx8, Vec3x8) {
    let (y, e) = decay(halflife, dt);
    let eps = Vec3x8::splat(crate::reference::Vec3::splat(EPS_DEADBLEND));
    let moved = (v / (y + eps)) * (Vec3x8::ONE - e);
    (quat_mul(quat_from_scaled_angle_axis(moved), x), v * e)
}

/// [`crate::reference::extrapolate_decay_position`] per lane.
#[inline(always)]
pub fn extrapolate_decay_position(
    x: Vec3x8,
    v: Vec3x8,
    halflife: Vec3x8,
    dt: F32x8,
) -> (Vec3x8, Vec3x8) {
    let (y, e) = decay(halflife, dt);
    let eps = Vec3x8::splat(crate::reference::Vec3::splat(EPS_DEADBLEND));
    (x + (v / (y + eps)) * (Vec3x8::ONE - e), v * e)
}

/// [`crate::reference::extrapolation_turn_scale`] per lane.
#[inline(always)]
pub fn extrapolation_turn_scale(z2: F32x8) -> F32x8 {
    const INV_MAX2: f32 = 1.0 / (EXTRAPOLATION_MAX_ANGLE * EXTRAPOLATION_MAX_ANGLE);
    splat(1.0) / z2.mul_add(splat(INV_MAX2), splat(1.0)).sqrt()
}

/// [`crate::reference::extrapolation_scale_cap`] per lane and component.
#[inline(always)]
pub fn extrapolation_scale_cap(m: Vec3x8) -> Vec3x8 {
    const INV_MAX2: f32 = 1.0 / (EXTRAPOLATION_MAX_LOG_SCALE * EXTRAPOLATION_MAX_LOG_SCALE);
    let c = |m: F32x8| splat(1.0) / (m * m).mul_add(splat(INV_MAX2), splat(1.0)).sqrt();
    Vec3x8::new(c(m.x), c(m.y), c(m.z))
}

/// One joint of [`op_extrapolate_decayed`] with `alpha` and `dalpha`
/// precomputed.
#[inline(always)]
pub fn kform_extrapolate_decayed(k: &Kformx8, alpha: F32x8, dalpha: F32x8) -> Kformx8 {
    let moved = k.ang * alpha;
    let s = extrapolation_turn_scale(dot(moved, moved));
    let grown = k.svl * alpha;
    let c = extrapolation_scale_cap(grown);
    Kformx8 {
        pos: k.pos + k.vel * alpha,
        rot: quat_mul(quat_from_scaled_angle_axis(moved * s), k.rot),
        scl: k.scl * exp_vec3(grown * c),
        vel: k.vel * dalpha,
        ang: k.ang * (dalpha * (s * s * s)),
        svl: k.svl * dalpha * (c * c * c),
    }
}

/// [`crate::reference::quat_relative_along`] per lane: `to from⁻¹`,
/// negated where its dot product with `path` is negative.
#[inline(always)]
pub fn quat_relative_along(path: Quatx8, from: Quatx8, to: Quatx8) -> Quatx8 {
    let d = quat_mul_inv(to, from);
    let sign = quat_dot(d, path).simd_lt(F32x8::ZERO) & splat(-0.0);
    Quatx8::new(d.w ^ sign, d.x ^ sign, d.y ^ sign, d.z ^ sign)
}

/// `(alpha, dalpha)` of the decayed extrapolation: `y = ln2 / (h + 1e-8)`,
/// `alpha = (1 - fast_negexp(y dt)) / (y + 1e-8)` and its rate
/// `dalpha = -fast_negexp_dx(y dt) y / (y + 1e-8)`
/// ([`crate::reference::op_extrapolate_decayed`]).
#[inline(always)]
pub fn extrapolate_decayed_weights(dt: F32x8, halflife: F32x8) -> (F32x8, F32x8) {
    let y = splat(LN2) / (halflife + splat(EPS_DEADBLEND));
    let inv = splat(1.0) / (y + splat(EPS_DEADBLEND));
    let e = fast_negexp(y * dt);
    ((splat(1.0) - e) * inv, -fast_negexp_dx(y * dt) * (y * inv))
}

/// [`crate::reference::op_extrapolate_decayed`] for eight characters (joint 0
/// held, with zero velocities).
pub fn op_extrapolate_decayed(
    output: &mut [Kformx8],
    input: &[Kformx8],
    dt: F32x8,
    halflife: F32x8,
) -> Result<()> {
    pose_lengths(output.len(), &[input.len()])?;
    let (alpha, dalpha) = extrapolate_decayed_weights(dt, halflife);
    for (i, (o, k)) in output.iter_mut().zip(input).enumerate() {
        *o = if i == 0 {
            Kformx8 {
                vel: Vec3x8::ZERO,
                ang: Vec3x8::ZERO,
                svl: Vec3x8::ZERO,
                ..*k
            }
        } else {
            kform_extrapolate_decayed(k, alpha, dalpha)
        };
    }
    Ok(())
}

/// [`crate::reference::extrapolate_decayed_axis_weights`] per lane: per
/// axis `y = ln2 / (h + 1e-8)`, `alpha = (1 - fast_negexp(y t)) / (y + 1e-8)`,
/// `dalpha = -fast_negexp_dx(y t) y / (y + 1e-8)`.
#[inline(always)]
pub fn extrapolate_decayed_axis_weights(t: F32x8, halflife: Vec3x8) -> (Vec3x8, Vec3x8) {
    let (x, y, z) = (
        extrapolate_decayed_weights(t, halflife.x),
        extrapolate_decayed_weights(t, halflife.y),
        extrapolate_decayed_weights(t, halflife.z),
    );
    (Vec3x8::new(x.0, y.0, z.0), Vec3x8::new(x.1, y.1, z.1))
}

/// [`crate::reference::extrapolate_decayed_rotation_axes`] per lane: the
/// capped scaled angle axis `m s` of `m = ang alpha`, and its exact angular
/// velocity `J(m s) (s ṁ - m s³ (m·ṁ) / θ²)`.
#[inline(always)]
pub fn extrapolate_decayed_rotation_axes(
    rot: Quatx8,
    ang: Vec3x8,
    (alpha, dalpha): (Vec3x8, Vec3x8),
) -> (Quatx8, Vec3x8) {
    const INV_MAX2: f32 = 1.0 / (EXTRAPOLATION_MAX_ANGLE * EXTRAPOLATION_MAX_ANGLE);
    let (moved, rate) = (ang * alpha, ang * dalpha);
    let s = extrapolation_turn_scale(dot(moved, moved));
    let ds = -(s * s * s) * dot(moved, rate) * splat(INV_MAX2);
    let (m, dm) = (moved * s, rate * s + moved * ds);
    (
        quat_mul(quat_from_scaled_angle_axis(m), rot),
        super::angular::quat_from_scaled_angle_axis_dx(m, dm),
    )
}

/// [`crate::reference::kform_extrapolate_decayed_axes`] per lane.
#[inline(always)]
pub fn kform_extrapolate_decayed_axes(
    k: &Kformx8,
    (pa, pd): (Vec3x8, Vec3x8),
    rot_weights: (Vec3x8, Vec3x8),
) -> Kformx8 {
    let (rot, ang) = extrapolate_decayed_rotation_axes(k.rot, k.ang, rot_weights);
    let grown = k.svl * pa;
    let c = extrapolation_scale_cap(grown);
    Kformx8 {
        pos: k.pos + k.vel * pa,
        rot,
        scl: k.scl * exp_vec3(grown * c),
        vel: k.vel * pd,
        ang,
        svl: k.svl * pd * (c * c * c),
    }
}

/// [`crate::reference::op_extrapolate_decayed_axes`] for eight characters:
/// element `i` of `halflives_pos` and `halflives_rot` is joint `i`'s
/// half-lives per axis and lane (joint 0 held, with zero velocities).
/// Refuses, as the reference does and writing nothing, an input shorter
/// than `output` and half-life slices with other than one entry per joint.
pub fn op_extrapolate_decayed_axes(
    output: &mut [Kformx8],
    input: &[Kformx8],
    halflives_pos: &[Vec3x8],
    halflives_rot: &[Vec3x8],
    t: F32x8,
) -> Result<()> {
    let n = output.len();
    pose_lengths(n, &[input.len()])?;
    one_per_joint(n, halflives_pos.len(), halflives_rot.len())?;
    for (i, (o, k)) in output.iter_mut().zip(input).enumerate() {
        *o = if i == 0 {
            Kformx8 {
                vel: Vec3x8::ZERO,
                ang: Vec3x8::ZERO,
                svl: Vec3x8::ZERO,
                ..*k
            }
        } else {
            kform_extrapolate_decayed_axes(
                k,
                extrapolate_decayed_axis_weights(t, halflives_pos[i]),
                extrapolate_decayed_axis_weights(t, halflives_rot[i]),
            )
        };
    }
    Ok(())
}

/// [`crate::reference::op_dead_blending`] for eight characters
/// (`blend_path` one relative rotation per joint, kept from call to call).
#[allow(clippy::too_many_arguments)]
pub fn op_dead_blending(
    output: &mut [Kformx8],
    extrapolated_pose: &mut [Kformx8],
    blend_path: &mut [Quatx8],
    transition_pose: &[Kformx8],
    input: &[Kformx8],
    extrapolation_halflife: F32x8,
    blend_time: F32x8,
    blend_duration: F32x8,
    dt: F32x8,
) -> Result<()> {
    // Every size checked before anything is written, in the reference's
    // order.
    let n = output.len();
    pose_lengths(n, &[extrapolated_pose.len(), input.len()])?;
    pose_lengths(extrapolated_pose.len(), &[transition_pose.len()])?;
    path_per_joint(n, blend_path.len())?;
    op_extrapolate_decayed(
        extrapolated_pose,
        transition_pose,
        blend_time,
        extrapolation_halflife,
    )?;
    let a = smoothstep_blend_alpha(blend_time, blend_duration);
    let rate = weight_rate(
        smoothstep_blend_alpha_dx(blend_time, blend_duration, dt),
        dt,
    );
    for (((o, e), p), x) in output
        .iter_mut()
        .zip(extrapolated_pose.iter())
        .zip(blend_path.iter_mut())
        .zip(input)
    {
        *p = quat_relative_along(*p, e.rot, x.rot);
        *o = kform_blend_along(e, x, *p, a, rate);
    }
    Ok(())
}
