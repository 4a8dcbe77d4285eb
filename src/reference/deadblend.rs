//! Dead blending: extrapolate the pose at the transition with decaying
//! velocities and cross-fade it into the new animation (dead blending
//! article; velocities article, "Dead Blending").

use super::blend::{op_blend, smoothstep_blend_alpha, smoothstep_blend_alpha_dx};
use super::kform::Kform;
use super::math::{LN2, Quat, Vec3, clampf, exp_vec3, quat_from_scaled_angle_axis, quat_mul};
use super::pose::{Pose, lengths};
use super::spring::fast_negexp;
use crate::error::Result;

/// Epsilon of the dead-blending helpers (`1e-8f`).
pub const EPS_DEADBLEND: f32 = 1e-8;
/// Default `halflife_scale` of [`estimate_halflife`] (the article's 0.3).
pub const HALFLIFE_SCALE: f32 = 0.3;
/// Default `halflife_min` of [`estimate_halflife`] (0.1 s).
pub const HALFLIFE_MIN: f32 = 0.1;
/// Default `halflife_max` of [`estimate_halflife`] (1.0 s).
pub const HALFLIFE_MAX: f32 = 1.0;

/// `x` pushed away from zero to at least `eps` in magnitude, keeping its
/// sign: `x >= 0 && x < eps ? eps : x < 0 && x > -eps ? -eps : x`.
///
/// Deviation (edge-case table): `-0.0` gives `-eps` (the published test
/// `x >= 0` is true for `-0.0` and gives `+eps`).
#[inline]
pub fn max_mag(x: f32, eps: f32) -> f32 {
    if x.is_sign_negative() {
        if x > -eps { -eps } else { x }
    } else if x < eps {
        eps
    } else {
        x
    }
}

/// [`max_mag`] per component.
#[inline]
pub fn max_mag_vec3(x: Vec3, eps: f32) -> Vec3 {
    Vec3::new(max_mag(x.x, eps), max_mag(x.y, eps), max_mag(x.z, eps))
}

/// A half-life per axis from how the source is moving relative to the
/// destination: `clamp(scale (src_dst_diff / max_mag(src_vel, 1e-8)), min, max)`
/// per component, where `src_dst_diff` is destination minus source (rotations
/// as scaled angle axis) and `src_vel` the source's velocity. Axes moving
/// slowly toward the destination get long half-lives; fast ones, or ones
/// moving away (a negative ratio), get `halflife_min`. The article's
/// defaults are [`HALFLIFE_SCALE`], [`HALFLIFE_MIN`], [`HALFLIFE_MAX`].
#[inline]
pub fn estimate_halflife(
    src_dst_diff: Vec3,
    src_vel: Vec3,
    halflife_scale: f32,
    halflife_min: f32,
    halflife_max: f32,
) -> Vec3 {
    let r = halflife_scale * (src_dst_diff / max_mag_vec3(src_vel, EPS_DEADBLEND));
    r.map(|h| clampf(h, halflife_min, halflife_max))
}

/// Per-axis decay factors for a half-life per axis: `y = ln2 / (h + 1e-8)`,
/// returning `(y, fast_negexp(y dt))`.
#[inline]
fn decay(halflife: Vec3, dt: f32) -> (Vec3, Vec3) {
    let y = halflife.map(|h| LN2 / (h + EPS_DEADBLEND));
    (y, y.map(|y| fast_negexp(y * dt)))
}

/// A rotation extrapolated for `dt` along an angular velocity that decays
/// with one half-life per axis: `y = ln2 / (halflife + 1e-8)`,
/// `x' = exp((v / (y + 1e-8)) (1 - fast_negexp(y dt)) / 2) x`,
/// `v' = v fast_negexp(y dt)`.
#[inline]
pub fn extrapolate_decay_rotation(x: Quat, v: Vec3, halflife: Vec3, dt: f32) -> (Quat, Vec3) {
    let (y, e) = decay(halflife, dt);
    let moved = (v / (y + Vec3::splat(EPS_DEADBLEND))) * (Vec3::ONE - e);
    (quat_mul(quat_from_scaled_angle_axis(moved), x), v * e)
}

/// The position twin of [`extrapolate_decay_rotation`] (reference-math.md):
/// `x' = x + (v / (y + 1e-8)) (1 - fast_negexp(y dt))`, `v' = v fast_negexp(y dt)`.
#[inline]
pub fn extrapolate_decay_position(x: Vec3, v: Vec3, halflife: Vec3, dt: f32) -> (Vec3, Vec3) {
    let (y, e) = decay(halflife, dt);
    (
        x + (v / (y + Vec3::splat(EPS_DEADBLEND))) * (Vec3::ONE - e),
        v * e,
    )
}

/// The pose at a transition extrapolated `dt` seconds forward with
/// velocities decaying at `halflife`: `y = ln2 / (halflife + 1e-8)`,
/// `alpha = (1 - fast_negexp(y dt)) / (y + 1e-8)`; positions move by
/// `vel alpha`, rotations by `exp(ang alpha / 2)`, scales by `exp(svl alpha)`,
/// and velocities are scaled by `fast_negexp(y dt)`. Joint 0 (the root) is
/// held where it is, not extrapolated, as in the article.
///
/// Deviation: the held root's velocities are zero. The published code copies
/// them, so the root claims to move while its position stays put, and a
/// dead blend's root velocity disagrees with its motion (tested against
/// finite differences in `tests/catalogue_velocities.rs`).
pub fn op_extrapolate_decayed(
    output: &mut Pose,
    input: &Pose,
    dt: f32,
    halflife: f32,
) -> Result<()> {
    let n = output.len();
    lengths(n, &[&*output, input])?;
    let y = LN2 / (halflife + EPS_DEADBLEND);
    let alpha = (1.0 - fast_negexp(y * dt)) / (y + EPS_DEADBLEND);
    let dalpha = fast_negexp(y * dt);
    for i in 0..n {
        if i == 0 {
            output.set(
                0,
                Kform {
                    vel: Vec3::ZERO,
                    ang: Vec3::ZERO,
                    svl: Vec3::ZERO,
                    ..input.get(0)
                },
            );
            continue;
        }
        output.pos[i] = input.pos[i] + input.vel[i] * alpha;
        output.rot[i] = quat_mul(
            quat_from_scaled_angle_axis(input.ang[i] * alpha),
            input.rot[i],
        );
        output.scl[i] = input.scl[i] * exp_vec3(input.svl[i] * alpha);
        output.vel[i] = input.vel[i] * dalpha;
        output.ang[i] = input.ang[i] * dalpha;
        output.svl[i] = input.svl[i] * dalpha;
    }
    Ok(())
}

/// Dead blending at `blend_time` into a transition of `blend_duration`: the
/// transition pose extrapolated `blend_time` forward ([`op_extrapolate_decayed`],
/// written to `extrapolated_pose`) blended into `input` with a smoothstep
/// weight and its rate of change over `dt` ([`op_blend`]).
#[allow(clippy::too_many_arguments)]
pub fn op_dead_blending(
    output: &mut Pose,
    extrapolated_pose: &mut Pose,
    transition_pose: &Pose,
    input: &Pose,
    extrapolation_halflife: f32,
    blend_time: f32,
    blend_duration: f32,
    dt: f32,
) -> Result<()> {
    // Every size checked before anything is written.
    lengths(output.len(), &[&*output, &*extrapolated_pose, input])?;
    lengths(extrapolated_pose.len(), &[transition_pose])?;
    op_extrapolate_decayed(
        extrapolated_pose,
        transition_pose,
        blend_time,
        extrapolation_halflife,
    )?;
    let blend_alpha = smoothstep_blend_alpha(blend_time, blend_duration);
    let blend_alpha_vel = smoothstep_blend_alpha_dx(blend_time, blend_duration, dt);
    op_blend(
        output,
        extrapolated_pose,
        input,
        blend_alpha,
        blend_alpha_vel,
        dt,
    )?;
    Ok(())
}
