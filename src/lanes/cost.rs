//! Transition costs per lane ([`crate::reference::cost`] over eight values).

use super::math::{F32x8, Vec3x8, clampf, splat};
use super::spring::halflife_to_damping;
use crate::reference::cost::EPS_COST;

/// [`crate::reference::decay_spring_damper_intersection`] per lane.
#[inline(always)]
pub fn decay_spring_damper_intersection(x: F32x8, v: F32x8, halflife: F32x8) -> F32x8 {
    let y = halflife_to_damping(halflife) / splat(2.0);
    // Unfused, as the reference: at v = -x y the denominator is exactly 0.
    -x / (v + x * y)
}

/// [`crate::reference::decay_spring_damper_displacement`] per lane.
#[inline(always)]
pub fn decay_spring_damper_displacement(x: F32x8, v: F32x8, halflife: F32x8) -> F32x8 {
    let y = halflife_to_damping(halflife) / splat(2.0);
    let t = decay_spring_damper_intersection(x, v, halflife);
    let yy = y * y;
    let int_0 = (x * y * splat(2.0) + v) / yy;
    let int_t = ((-y * t).exp() / yy) * (t * v * y + x * y * (t * y + splat(2.0)) + v);
    let crosses = t.simd_gt(F32x8::ZERO) & t.is_finite();
    crosses.select((int_0 - int_t).abs() + int_t.abs(), int_0.abs())
}

/// [`crate::reference::decay_cubic`] per lane.
#[inline(always)]
pub fn decay_cubic(x: F32x8, v: F32x8, blendtime: F32x8, dt: F32x8) -> F32x8 {
    let t = clampf(dt / (blendtime + splat(EPS_COST)), F32x8::ZERO, splat(1.0));
    let (a, b, c, d) = cubic(x, v, blendtime);
    ((a * t + b) * t + c) * t + d
}

#[inline(always)]
fn cubic(x: F32x8, v: F32x8, blendtime: F32x8) -> (F32x8, F32x8, F32x8, F32x8) {
    let (d, c) = (x, v * blendtime);
    (splat(2.0) * d + c, splat(-3.0) * d - splat(2.0) * c, c, d)
}

/// [`crate::reference::decay_cubic_intersection`] per lane.
#[inline(always)]
pub fn decay_cubic_intersection(x: F32x8, v: F32x8, blendtime: F32x8) -> F32x8 {
    let (a, b, _, _) = cubic(x, v, blendtime);
    ((splat(-2.0) * a - b) / (a + splat(EPS_COST))) * blendtime
}

/// [`crate::reference::decay_cubic_displacement`] per lane.
#[inline(always)]
pub fn decay_cubic_displacement(x: F32x8, v: F32x8, blendtime: F32x8) -> F32x8 {
    let (a, b, c, d) = cubic(x, v, blendtime);
    let t = (splat(-2.0) * a - b) / (a + splat(EPS_COST));
    let int_0 = a / splat(4.0) + b / splat(3.0) + c / splat(2.0) + d;
    let t2 = t * t;
    let int_t =
        (a * t2 * t2) / splat(4.0) + (b * t2 * t) / splat(3.0) + (c * t2) / splat(2.0) + d * t;
    let inside = t.simd_ge(F32x8::ZERO) & t.simd_le(splat(1.0));
    blendtime * inside.select((int_0 - int_t).abs() + int_t.abs(), int_0.abs())
}

/// [`crate::reference::transition_feature_spring`] per lane.
#[inline(always)]
pub fn transition_feature_spring(pos: Vec3x8, vel: Vec3x8, halflife: F32x8) -> Vec3x8 {
    let y = halflife_to_damping(halflife) / splat(2.0);
    pos * (splat(2.0) / y) + vel / (y * y)
}

/// [`crate::reference::transition_feature_cubic`] per lane.
#[inline(always)]
pub fn transition_feature_cubic(pos: Vec3x8, vel: Vec3x8, blendtime: F32x8) -> Vec3x8 {
    pos * (blendtime / splat(2.0)) + vel * (blendtime * blendtime / splat(12.0))
}

/// [`crate::reference::transition_cost_spring_approx`] per lane.
#[inline(always)]
pub fn transition_cost_spring_approx(x: Vec3x8, v: Vec3x8, halflife: F32x8) -> Vec3x8 {
    let y = halflife_to_damping(halflife) / splat(2.0);
    let yy = y * y;
    let c = (splat(2.0) * y) * x + v;
    Vec3x8::new((c.x / yy).abs(), (c.y / yy).abs(), (c.z / yy).abs())
}
