//! Springs and dampers over eight lanes: [`crate::reference::spring`],
//! branch-free. The three regimes of
//! [`spring_damper_exact_stiffness_damping`] are all evaluated and selected
//! per lane.

use super::angular::{quat_from_scaled_angle_axis_dx, quat_to_scaled_angle_axis_dx};
use super::math::{F32x8, Quatx8, Vec3x8, flush_tiny, flush_tiny_vec3, lerp, sin_cos, splat};
use super::math::{quat_abs, quat_from_scaled_angle_axis, quat_to_scaled_angle_axis};
use crate::reference::math::LN2;
use crate::reference::spring::EPS_SPRING;

/// `1 / (1 + x + 0.48 x² + 0.235 x³)` per lane, negative `x` clamped to 0.
/// Evaluated in the reference's order without FMA, so the two paths agree
/// to the bit: every spring, damper and inertializer is built on it.
#[inline(always)]
pub fn fast_negexp(x: F32x8) -> F32x8 {
    let x = x.simd_lt(F32x8::ZERO).select(F32x8::ZERO, x);
    splat(1.0) / (splat(1.0) + x + splat(0.48) * x * x + splat(0.235) * x * x * x)
}

/// [`crate::reference::fast_negexp_dx`] per lane.
#[inline(always)]
pub fn fast_negexp_dx(x: F32x8) -> F32x8 {
    let out = x.simd_lt(F32x8::ZERO) | x.simd_gt(splat(crate::reference::FAST_NEGEXP_DX_SETTLED));
    let x = out.select(F32x8::ZERO, x);
    let e = fast_negexp(x);
    let d = -(x.mul_add(splat(0.705), splat(0.96)).mul_add(x, splat(1.0)) * (e * e));
    out.select(F32x8::ZERO, d)
}

/// The cheap arctangent of the reference, per lane.
#[inline(always)]
pub fn fast_atan(x: F32x8) -> F32x8 {
    let z = x.abs();
    let big = z.simd_gt(splat(1.0));
    let w = big.select(splat(1.0) / z, z);
    let y = splat(core::f32::consts::FRAC_PI_4) * w
        - w * (w - splat(1.0)) * w.mul_add(splat(0.0663), splat(0.2447));
    let r = big.select(splat(core::f32::consts::FRAC_PI_2) - y, y);
    r.copysign(x)
}

/// `4 ln2 / (halflife + 1e-5)` per lane.
#[inline(always)]
pub fn halflife_to_damping(halflife: F32x8) -> F32x8 {
    splat(4.0 * LN2) / (halflife + splat(EPS_SPRING))
}

/// `4 ln2 / (damping + 1e-5)` per lane.
#[inline(always)]
pub fn damping_to_halflife(damping: F32x8) -> F32x8 {
    splat(4.0 * LN2) / (damping + splat(EPS_SPRING))
}

/// Exact damper toward `g`, per lane, with the subnormal flush.
#[inline(always)]
pub fn damper_exact(x: F32x8, g: F32x8, halflife: F32x8, dt: F32x8) -> F32x8 {
    flush_tiny(lerp(
        x,
        g,
        splat(1.0) - fast_negexp((splat(LN2) * dt) / (halflife + splat(EPS_SPRING))),
    ))
}

/// Exact damper toward zero, per lane, with the subnormal flush.
#[inline(always)]
pub fn damper_decay_exact(x: F32x8, halflife: F32x8, dt: F32x8) -> F32x8 {
    flush_tiny(x * fast_negexp((splat(LN2) * dt) / (halflife + splat(EPS_SPRING))))
}

/// Critically damped decay of `(x, v)` toward zero, per lane; saturating
/// to `(x · 0, v · 0)` where the decay factor is 0, as the reference.
#[inline(always)]
pub fn decay_spring_damper_exact(x: F32x8, v: F32x8, halflife: F32x8, dt: F32x8) -> (F32x8, F32x8) {
    let y = halflife_to_damping(halflife) / splat(2.0);
    let j1 = x.mul_add(y, v);
    let eydt = fast_negexp(y * dt);
    let settled = eydt.simd_eq(F32x8::ZERO);
    (
        settled.select(x * F32x8::ZERO, flush_tiny(eydt * j1.mul_add(dt, x))),
        settled.select(
            v * F32x8::ZERO,
            flush_tiny(eydt * (j1 * y).mul_neg_add(dt, v)),
        ),
    )
}

/// [`decay_spring_damper_exact`] per component.
#[inline(always)]
pub fn decay_spring_damper_exact_vec3(
    x: Vec3x8,
    v: Vec3x8,
    halflife: F32x8,
    dt: F32x8,
) -> (Vec3x8, Vec3x8) {
    let y = halflife_to_damping(halflife) / splat(2.0);
    let eydt = fast_negexp(y * dt);
    let settled = eydt.simd_eq(F32x8::ZERO);
    let ydt = y * dt;
    let one = |x: F32x8, v: F32x8| {
        let j1 = x.mul_add(y, v);
        (
            settled.select(x * F32x8::ZERO, flush_tiny(eydt * j1.mul_add(dt, x))),
            settled.select(v * F32x8::ZERO, flush_tiny(eydt * j1.mul_neg_add(ydt, v))),
        )
    };
    let (xx, vx) = one(x.x, v.x);
    let (xy, vy) = one(x.y, v.y);
    let (xz, vz) = one(x.z, v.z);
    (Vec3x8::new(xx, xy, xz), Vec3x8::new(vx, vy, vz))
}

/// [`decay_spring_damper_exact`] on a rotational offset (canonicalized with
/// `quat_abs`, decayed in scaled-angle-axis space), per lane.
#[inline(always)]
pub fn decay_spring_damper_exact_quat(
    x: Quatx8,
    v: Vec3x8,
    halflife: F32x8,
    dt: F32x8,
) -> (Quatx8, Vec3x8) {
    let x = quat_abs(x);
    let (s, rate) = decay_spring_damper_exact_vec3(
        quat_to_scaled_angle_axis(x),
        quat_to_scaled_angle_axis_dx(x, v),
        halflife,
        dt,
    );
    let s = flush_tiny_vec3(s);
    (
        quat_from_scaled_angle_axis(s),
        flush_tiny_vec3(quat_from_scaled_angle_axis_dx(s, rate)),
    )
}

/// Critically damped spring toward a fixed goal, per lane.
#[inline(always)]
pub fn simple_spring_damper_exact(
    x: F32x8,
    v: F32x8,
    x_goal: F32x8,
    halflife: F32x8,
    dt: F32x8,
) -> (F32x8, F32x8) {
    let y = halflife_to_damping(halflife) / splat(2.0);
    let j0 = x - x_goal;
    let j1 = j0.mul_add(y, v);
    let eydt = fast_negexp(y * dt);
    (
        eydt.mul_add(j1.mul_add(dt, j0), x_goal),
        eydt * (j1 * y).mul_neg_add(dt, v),
    )
}

/// Critically damped spring toward a moving goal, per lane.
#[inline(always)]
pub fn critical_spring_damper_exact(
    x: F32x8,
    v: F32x8,
    x_goal: F32x8,
    v_goal: F32x8,
    halflife: F32x8,
    dt: F32x8,
) -> (F32x8, F32x8) {
    let d = halflife_to_damping(halflife);
    let c = x_goal + (d * v_goal) / ((d * d) / splat(4.0));
    let y = d / splat(2.0);
    let j0 = x - c;
    let j1 = j0.mul_add(y, v);
    let eydt = fast_negexp(y * dt);
    (
        eydt.mul_add(j1.mul_add(dt, j0), c),
        eydt * (j1 * y).mul_neg_add(dt, v),
    )
}

/// Spring-damper with explicit stiffness and damping, exact in `dt`, per
/// lane: the critically, under- and over-damped solutions are all computed
/// and the reference's regime test selects one per lane.
#[inline(always)]
pub fn spring_damper_exact_stiffness_damping(
    x: F32x8,
    v: F32x8,
    x_goal: F32x8,
    v_goal: F32x8,
    stiffness: F32x8,
    damping: F32x8,
    dt: F32x8,
) -> (F32x8, F32x8) {
    let (s, d) = (stiffness, damping);
    let eps = splat(EPS_SPRING);
    let c = x_goal + (d * v_goal) / (s + eps);
    let y = d / splat(2.0);
    let disc = s - (d * d) / splat(4.0);
    let j0 = x - c;

    // Critically damped
    let j1 = j0.mul_add(y, v);
    let eydt = fast_negexp(y * dt);
    let crit_x = j0 * eydt + dt * j1 * eydt + c;
    let crit_v = -y * j0 * eydt - y * dt * j1 * eydt + j1 * eydt;

    // Under damped (w is NaN where disc < 0; those lanes are not selected)
    let w = disc.sqrt();
    let vxy = y.mul_add(j0, v);
    let ju = (vxy * vxy / (w * w + eps) + j0 * j0).sqrt();
    let p = fast_atan(j0.mul_add(y, v) / (-j0 * w + eps));
    let ju = j0.simd_gt(F32x8::ZERO).select(ju, -ju);
    let (sin, cos) = sin_cos(w.mul_add(dt, p));
    let under_x = ju * eydt * cos + c;
    let under_v = -y * ju * eydt * cos - w * ju * eydt * sin;

    // Over damped (r is NaN where disc > 0)
    let r = (d * d - splat(4.0) * s).sqrt();
    let y0 = (d + r) / splat(2.0);
    let y1 = (d - r) / splat(2.0);
    let oj1 = (c * y0 - x * y0 - v) / (y1 - y0);
    let oj0 = x - oj1 - c;
    let ey0dt = fast_negexp(y0 * dt);
    let ey1dt = fast_negexp(y1 * dt);
    let over_x = oj0 * ey0dt + oj1 * ey1dt + c;
    let over_v = -y0 * oj0 * ey0dt - y1 * oj1 * ey1dt;

    let critical = disc.abs().simd_lt(eps);
    let under = disc.simd_gt(F32x8::ZERO);
    (
        critical.select(crit_x, under.select(under_x, over_x)),
        critical.select(crit_v, under.select(under_v, over_v)),
    )
}
