//! Springs and dampers (reference-math.md, "Springs and dampers", from the
//! same author's "Spring-It-On"), the building blocks of inertialization,
//! tracking springs and dead blending.

use super::angular::{quat_from_scaled_angle_axis_dx, quat_to_scaled_angle_axis_dx};
use super::math::{LN2, Quat, Vec3, flush_tiny, flush_tiny_vec3, lerp};
use super::math::{quat_abs, quat_from_scaled_angle_axis, quat_to_scaled_angle_axis};

/// Epsilon added to half-lives and to the stiffness test (`1e-5f`).
pub const EPS_SPRING: f32 = 1e-5;

/// `1 / (1 + x + 0.48 x² + 0.235 x³)`, an approximation of `exp(-x)` for
/// `x >= 0`.
///
/// Deviation (edge-case table): a negative argument is clamped to 0; the
/// published function passes a pole near `x = -1.29`. NaN stays NaN.
#[inline]
pub fn fast_negexp(x: f32) -> f32 {
    let x = if x < 0.0 { 0.0 } else { x };
    1.0 / (1.0 + x + 0.48 * x * x + 0.235 * x * x * x)
}

/// The derivative of [`fast_negexp`]:
/// `-(1 + 0.96 x + 0.705 x²) fast_negexp(x)²` for `x > 0`, 0 for `x < 0`
/// (where the argument is clamped) and beyond [`FAST_NEGEXP_DX_SETTLED`]
/// (where it is below 3e-15 and its terms would overflow).
#[inline]
pub fn fast_negexp_dx(x: f32) -> f32 {
    // NaN passes both tests and stays NaN.
    #[allow(clippy::manual_range_contains)]
    if x < 0.0 || x > FAST_NEGEXP_DX_SETTLED {
        return 0.0;
    }
    let e = fast_negexp(x);
    -(1.0 + 0.96 * x + 0.705 * x * x) * (e * e)
}

/// Where [`fast_negexp_dx`] is taken as 0 (`|f'(1e4)| < 3e-15`).
pub const FAST_NEGEXP_DX_SETTLED: f32 = 1e4;

/// A cheap arctangent, max error about 1e-3 rad (reference-math.md):
/// `z = |x|`, `w = z > 1 ? 1/z : z`,
/// `y = (π/4) w - w (w - 1)(0.2447 + 0.0663 w)`,
/// result `±(z > 1 ? π/2 - y : y)` signed like `x`.
#[inline]
pub fn fast_atan(x: f32) -> f32 {
    let z = x.abs();
    let w = if z > 1.0 { 1.0 / z } else { z };
    let y = (core::f32::consts::PI / 4.0) * w - w * (w - 1.0) * (0.2447 + 0.0663 * w);
    let r = if z > 1.0 {
        core::f32::consts::FRAC_PI_2 - y
    } else {
        y
    };
    r.copysign(x)
}

/// `4 ln2 / (halflife + 1e-5)`.
#[inline]
pub fn halflife_to_damping(halflife: f32) -> f32 {
    (4.0 * LN2) / (halflife + EPS_SPRING)
}

/// `4 ln2 / (damping + 1e-5)`.
#[inline]
pub fn damping_to_halflife(damping: f32) -> f32 {
    (4.0 * LN2) / (damping + EPS_SPRING)
}

/// Exact damper toward `g`:
/// `lerp(x, g, 1 - fast_negexp(ln2 dt / (halflife + 1e-5)))`, with the
/// subnormal flush (a damper toward zero would otherwise settle into
/// subnormals and stay there, each step slowed by microcode assists).
///
/// After one half-life a damper is halfway to its goal (to `fast_negexp`'s
/// accuracy, 4e-4 here); after two, three quarters:
///
/// ```
/// use kineform::reference::damper_exact;
/// let x = damper_exact(0.0, 1.0, 0.5, 0.5);
/// assert!((x - 0.5).abs() < 1e-3);
/// let x = damper_exact(x, 1.0, 0.5, 0.5);
/// assert!((x - 0.75).abs() < 1e-3);
/// ```
#[inline]
pub fn damper_exact(x: f32, g: f32, halflife: f32, dt: f32) -> f32 {
    flush_tiny(lerp(
        x,
        g,
        1.0 - fast_negexp((LN2 * dt) / (halflife + EPS_SPRING)),
    ))
}

/// Exact damper toward zero: `x fast_negexp(ln2 dt / (halflife + 1e-5))`,
/// with the subnormal flush.
#[inline]
pub fn damper_decay_exact(x: f32, halflife: f32, dt: f32) -> f32 {
    flush_tiny(x * fast_negexp((LN2 * dt) / (halflife + EPS_SPRING)))
}

/// Critically damped spring decaying `(x, v)` toward zero:
/// `y = halflife_to_damping(h) / 2`, `j1 = v + x y`, `e = fast_negexp(y dt)`,
/// `x' = e (x + j1 dt)`, `v' = e (v - j1 y dt)`; results below 1e-30 flushed.
///
/// Saturates: where `e` is 0 (an enormous `dt`; `fast_negexp` reaches 0
/// once its cubic overflows) the spring has settled and the result is
/// `(0, 0)` (`x · 0`, so NaN and infinite inputs stay NaN), where the
/// published formula gives `0 · ∞ = NaN`.
#[inline]
pub fn decay_spring_damper_exact(x: f32, v: f32, halflife: f32, dt: f32) -> (f32, f32) {
    let y = halflife_to_damping(halflife) / 2.0;
    let j1 = v + x * y;
    let eydt = fast_negexp(y * dt);
    if eydt == 0.0 {
        return (x * 0.0, v * 0.0);
    }
    (
        flush_tiny(eydt * (x + j1 * dt)),
        flush_tiny(eydt * (v - j1 * y * dt)),
    )
}

/// [`decay_spring_damper_exact`] per component (saturating likewise).
#[inline]
pub fn decay_spring_damper_exact_vec3(x: Vec3, v: Vec3, halflife: f32, dt: f32) -> (Vec3, Vec3) {
    let y = halflife_to_damping(halflife) / 2.0;
    let j1 = v + x * y;
    let eydt = fast_negexp(y * dt);
    if eydt == 0.0 {
        return (x * 0.0, v * 0.0);
    }
    (
        flush_tiny_vec3(eydt * (x + j1 * dt)),
        flush_tiny_vec3(eydt * (v - j1 * (y * dt))),
    )
}

/// [`decay_spring_damper_exact`] on a rotation: the offset is decayed in
/// scaled-angle-axis space and turned back into a quaternion; `v` is an
/// angular velocity.
///
/// Deviation: the offset is passed through `quat_abs` first, so a
/// negative-w offset decays the short way round (edge-case table).
///
/// Correction of the published code, which decays the angular velocity as
/// the scaled angle axis's rate: the spring runs on the rate
/// `J(x)⁻¹ v` ([`quat_to_scaled_angle_axis_dx`]) and returns the angular
/// velocity `J(x') x'_rate` ([`quat_from_scaled_angle_axis_dx`]), the
/// derivative of the rotation returned (equal to the published result
/// when `v` is parallel to the offset).
#[inline]
pub fn decay_spring_damper_exact_quat(x: Quat, v: Vec3, halflife: f32, dt: f32) -> (Quat, Vec3) {
    let y = halflife_to_damping(halflife) / 2.0;
    let x = quat_abs(x);
    let j0 = quat_to_scaled_angle_axis(x);
    let rate = quat_to_scaled_angle_axis_dx(x, v);
    let j1 = rate + j0 * y;
    let eydt = fast_negexp(y * dt);
    if eydt == 0.0 {
        // Settled (saturating as [`decay_spring_damper_exact`]).
        return (quat_from_scaled_angle_axis(j0 * 0.0), v * 0.0);
    }
    let saa = flush_tiny_vec3(eydt * (j0 + j1 * dt));
    (
        quat_from_scaled_angle_axis(saa),
        flush_tiny_vec3(quat_from_scaled_angle_axis_dx(
            saa,
            eydt * (rate - j1 * (y * dt)),
        )),
    )
}

/// Critically damped spring toward a fixed `x_goal`:
/// [`decay_spring_damper_exact`] on `x - x_goal`, then `x_goal` added back.
#[inline]
pub fn simple_spring_damper_exact(
    x: f32,
    v: f32,
    x_goal: f32,
    halflife: f32,
    dt: f32,
) -> (f32, f32) {
    let y = halflife_to_damping(halflife) / 2.0;
    let j0 = x - x_goal;
    let j1 = v + j0 * y;
    let eydt = fast_negexp(y * dt);
    (eydt * (j0 + j1 * dt) + x_goal, eydt * (v - j1 * y * dt))
}

/// Critically damped spring toward a goal moving at `v_goal`:
/// `d = halflife_to_damping(h)`, `c = x_goal + d v_goal / (d²/4)`, `y = d/2`,
/// `j0 = x - c`, `j1 = v + j0 y`, `x' = e (j0 + j1 dt) + c`,
/// `v' = e (v - j1 y dt)`.
#[inline]
pub fn critical_spring_damper_exact(
    x: f32,
    v: f32,
    x_goal: f32,
    v_goal: f32,
    halflife: f32,
    dt: f32,
) -> (f32, f32) {
    let d = halflife_to_damping(halflife);
    let c = x_goal + (d * v_goal) / ((d * d) / 4.0);
    let y = d / 2.0;
    let j0 = x - c;
    let j1 = v + j0 * y;
    let eydt = fast_negexp(y * dt);
    (eydt * (j0 + j1 * dt) + c, eydt * (v - j1 * y * dt))
}

/// Spring-damper with explicit stiffness `s` and damping `d`, exact in `dt`
/// (reference-math.md): `c = x_goal + d v_goal / (s + 1e-5)`, `y = d/2`, and
/// one of three regimes chosen by `s - d²/4`: critically damped when
/// `|s - d²/4| < 1e-5`, under-damped when positive, over-damped when negative.
///
/// The regime test is absolute, as in the reference, so a large damping can
/// flip regimes by rounding (edge-case table: kept for parity). The
/// under-damped phase uses [`fast_atan`], so that regime is exact only to
/// about 1e-3 of its amplitude, as in the reference.
#[inline]
pub fn spring_damper_exact_stiffness_damping(
    x: f32,
    v: f32,
    x_goal: f32,
    v_goal: f32,
    stiffness: f32,
    damping: f32,
    dt: f32,
) -> (f32, f32) {
    let g = x_goal;
    let q = v_goal;
    let s = stiffness;
    let d = damping;
    let c = g + (d * q) / (s + EPS_SPRING);
    let y = d / 2.0;

    if (s - (d * d) / 4.0).abs() < EPS_SPRING {
        // Critically damped
        let j0 = x - c;
        let j1 = v + j0 * y;
        let eydt = fast_negexp(y * dt);
        (
            j0 * eydt + dt * j1 * eydt + c,
            -y * j0 * eydt - y * dt * j1 * eydt + j1 * eydt,
        )
    } else if s - (d * d) / 4.0 > 0.0 {
        // Under damped
        let w = (s - (d * d) / 4.0).sqrt();
        let vxy = v + y * (x - c);
        let mut j = (vxy * vxy / (w * w + EPS_SPRING) + (x - c) * (x - c)).sqrt();
        let p = fast_atan((v + (x - c) * y) / (-(x - c) * w + EPS_SPRING));
        j = if (x - c) > 0.0 { j } else { -j };
        let eydt = fast_negexp(y * dt);
        let (sin, cos) = (w * dt + p).sin_cos();
        (j * eydt * cos + c, -y * j * eydt * cos - w * j * eydt * sin)
    } else {
        // Over damped
        let r = (d * d - 4.0 * s).sqrt();
        let y0 = (d + r) / 2.0;
        let y1 = (d - r) / 2.0;
        let j1 = (c * y0 - x * y0 - v) / (y1 - y0);
        let j0 = x - j1 - c;
        let ey0dt = fast_negexp(y0 * dt);
        let ey1dt = fast_negexp(y1 * dt);
        (
            j0 * ey0dt + j1 * ey1dt + c,
            -y0 * j0 * ey0dt - y1 * j1 * ey1dt,
        )
    }
}
