//! Angular velocities of rotations built in scaled-angle-axis space: the
//! exponential map's derivative and the exact angular velocity of a slerp.
//!
//! The articles turn rates in scaled-angle-axis space into angular
//! velocities by taking them as equal: the velocity of
//! `quat_from_scaled_angle_axis(v)` is written `dv`, and a blend's angular
//! velocity is the lerp of its inputs' plus the weight's rate times their
//! difference. Both are first-order: they are exact only while `v` keeps
//! its direction (or is small), and a blend's only while its inputs are
//! close. Where they are not (an inertialization offset whose velocity is
//! not parallel to the offset; two sources a quarter turn apart), the
//! propagated velocity disagrees with the motion by `|v| |dv| / 2` or so,
//! whatever the step: at the crowd's knees and ankles about 150-250
//! units/s of world velocity. kineform computes the exact derivative (a
//! correction of the published code; `tests/suite/continuity/` and the
//! finite-difference proofs in `tests/suite/catalogue_velocities.rs` fail on the
//! published formulas).
//!
//! For `R(t) = exp([v(t)]×)` the angular velocity (in the frame the
//! rotation is applied from, as the articles' velocities are) is
//! `ω = J(v) dv` with the left Jacobian of the exponential map
//!
//! `J(v) = I + (1 - cos θ)/θ² [v]× + (θ - sin θ)/θ³ [v]×²`, `θ = |v|`,
//!
//! and `J(v)⁻¹ = I - ½ [v]× + (1/θ² - (1 + cos θ)/(2 θ sin θ)) [v]×²`.

use super::math::{
    Quat, Vec3, cross, dot, length, quat_from_scaled_angle_axis, quat_mul_vec3,
    quat_to_scaled_angle_axis,
};

/// Below this angle (radians) the Jacobians' coefficients come from their
/// Taylor series: `(1 - cos θ)/θ² = 1/2 - θ²/24 + θ⁴/720` and
/// `(θ - sin θ)/θ³ = 1/6 - θ²/120 + θ⁴/5040`, whose next terms are under
/// 1e-13 here, where the closed forms lose digits to cancellation.
pub const JACOBIAN_SERIES_ANGLE: f32 = 0.05;

/// The coefficients `a = (1 - cos θ)/θ²` and `b = (θ - sin θ)/θ³` of
/// `J(v) = I + a [v]× + b [v]×²`, from `θ² = |v|²`.
fn jacobian_coefficients(theta2: f32) -> (f32, f32) {
    let theta = theta2.sqrt();
    if theta < JACOBIAN_SERIES_ANGLE {
        (
            0.5 - theta2 / 24.0 + theta2 * theta2 / 720.0,
            1.0 / 6.0 - theta2 / 120.0 + theta2 * theta2 / 5040.0,
        )
    } else {
        (
            (1.0 - theta.cos()) / theta2,
            (theta - theta.sin()) / (theta2 * theta),
        )
    }
}

/// The angular velocity of `quat_from_scaled_angle_axis(v)` while `v`
/// changes at `dv` per second: `J(v) dv`, that is
/// `dv + (1 - cos θ)/θ² (v × dv) + (θ - sin θ)/θ³ (v × (v × dv))`
/// with `θ = |v|` (module docs). Equal to `dv` when `dv` is parallel to `v`.
#[inline]
pub fn quat_from_scaled_angle_axis_dx(v: Vec3, dv: Vec3) -> Vec3 {
    let (a, b) = jacobian_coefficients(dot(v, v));
    let c = cross(v, dv);
    dv + a * c + b * cross(v, c)
}

/// The rate of change of `quat_to_scaled_angle_axis(q)` while `q` turns at
/// angular velocity `ang`: `J(v)⁻¹ ang` with `v` the scaled angle axis of
/// `q`, that is `ang - ½ v × ang + (1/θ² - (1 + cos θ)/(2 θ sin θ)) v × (v × ang)`
/// (the inverse of [`quat_from_scaled_angle_axis_dx`]). `q`'s hemisphere
/// is `q`'s own: the scaled angle axis of a quaternion with `w < 0` has
/// `θ > π`; at `θ = 2π` (`q = -1`) the map is singular.
///
/// The `[v]×²` coefficient is evaluated as `(1 - h cot h) / θ²` with the
/// half angle `h = atan2(|q.xyz|, q.w)` and `cot h = q.w / |q.xyz|` read
/// off `q` (the same number; near a half turn `1 + cos θ` and `sin θ`
/// computed from `θ` lose most of their digits).
#[inline]
pub fn quat_to_scaled_angle_axis_dx(q: Quat, ang: Vec3) -> Vec3 {
    let v = quat_to_scaled_angle_axis(q);
    let theta2 = dot(v, v);
    let k = if theta2.sqrt() < JACOBIAN_SERIES_ANGLE {
        1.0 / 12.0 + theta2 / 720.0
    } else {
        let l = length(q.xyz());
        (1.0 - q.w * l.atan2(q.w) / l) / theta2
    };
    let c = cross(v, ang);
    ang - 0.5 * c + k * cross(v, c)
}

/// The exact angular velocity of `exp(alpha log(rel)) q`, the slerp from
/// `q` toward `p = rel q` at weight `alpha` (for
/// [`super::math::quat_slerp_shortest`], `rel = quat_abs(p q⁻¹)`), when
/// `q` and `p` turn at `q_ang` and `p_ang` and the weight changes at
/// `alpha_rate` per second:
///
/// `ω = J(α w) (α̇ w + α ẇ) + R(α w) ω_q`, with `w` the scaled angle axis
/// of `rel` and `ẇ = J(w)⁻¹ (ω_p - R(w) ω_q)` its rate.
///
/// The published blends take `lerp(ω_q, ω_p, α) + α̇ w`, its limit for
/// small `w`; the two differ by about `α (1 - α) |w| |ω_p - ω_q| / 2`.
#[inline]
pub fn quat_slerp_dx(rel: Quat, alpha: f32, alpha_rate: f32, q_ang: Vec3, p_ang: Vec3) -> Vec3 {
    let w = quat_to_scaled_angle_axis(rel);
    let w_rate = quat_to_scaled_angle_axis_dx(rel, p_ang - quat_mul_vec3(rel, q_ang));
    let part = alpha * w;
    quat_from_scaled_angle_axis_dx(part, alpha_rate * w + alpha * w_rate)
        + quat_mul_vec3(quat_from_scaled_angle_axis(part), q_ang)
}

/// The exact angular velocity of an additive rotation applied on the left,
/// `exp(alpha log(rel)) q`, when the additive `rel` turns at `rel_ang`
/// (its angular velocity, in the frame it is applied from), `q` turns at
/// `q_ang` and the weight changes at `alpha_rate` per second:
///
/// `ω = J(α w) (α̇ w + α J(w)⁻¹ ω_rel) + R(α w) ω_q`, with `w` the scaled
/// angle axis of `rel` (in `rel`'s own hemisphere).
///
/// It is [`quat_slerp_dx`] toward `p = rel q` (whose angular velocity is
/// `ω_rel + R(rel) ω_q`). The published additives take
/// `R(α w) ω_q + α ω_rel + α̇ w`, its limit for small `w`; the two differ
/// by about `α |w| |ω_rel| / 2` (a correction of the published code, as
/// the blends' in issue 11: `tests/suite/catalogue_velocities.rs`,
/// `additives_with_a_changing_weight`).
#[inline]
pub fn quat_additive_dx(
    rel: Quat,
    alpha: f32,
    alpha_rate: f32,
    q_ang: Vec3,
    rel_ang: Vec3,
) -> Vec3 {
    let w = quat_to_scaled_angle_axis(rel);
    let w_rate = quat_to_scaled_angle_axis_dx(rel, rel_ang);
    let part = alpha * w;
    quat_from_scaled_angle_axis_dx(part, alpha_rate * w + alpha * w_rate)
        + quat_mul_vec3(quat_from_scaled_angle_axis(part), q_ang)
}
