//! Tracking springs per lane ([`crate::reference::tracking`] over eight
//! signals; every parameter a lane vector).

use super::math::{F32x8, clampf, flush_tiny, lerp, splat};
use super::spring::{damper_exact, spring_damper_exact_stiffness_damping};

#[inline(always)]
fn zero_dt(dt: F32x8) -> F32x8 {
    dt.simd_eq(F32x8::ZERO)
}

/// [`crate::reference::tracking_target_velocity`] per lane.
#[inline(always)]
pub fn tracking_target_velocity(x_next: F32x8, x_curr: F32x8, dt: F32x8) -> F32x8 {
    zero_dt(dt).select(F32x8::ZERO, (x_next - x_curr) / dt)
}

/// [`crate::reference::tracking_target_acceleration`] per lane.
#[inline(always)]
pub fn tracking_target_acceleration(
    x_next: F32x8,
    x_curr: F32x8,
    x_prev: F32x8,
    dt: F32x8,
) -> F32x8 {
    zero_dt(dt).select(
        F32x8::ZERO,
        (((x_next - x_curr) / dt) - ((x_curr - x_prev) / dt)) / dt,
    )
}

/// [`crate::reference::tracking_target_velocity_clipped`] per lane.
#[inline(always)]
pub fn tracking_target_velocity_clipped(
    x_next: F32x8,
    x_curr: F32x8,
    dt: F32x8,
    v_min: F32x8,
    v_max: F32x8,
) -> F32x8 {
    clampf(tracking_target_velocity(x_next, x_curr, dt), v_min, v_max)
}

/// [`crate::reference::tracking_target_acceleration_clipped`] per lane.
#[inline(always)]
pub fn tracking_target_acceleration_clipped(
    x_next: F32x8,
    x_curr: F32x8,
    x_prev: F32x8,
    dt: F32x8,
    a_min: F32x8,
    a_max: F32x8,
) -> F32x8 {
    clampf(
        tracking_target_acceleration(x_next, x_curr, x_prev, dt),
        a_min,
        a_max,
    )
}

#[inline(always)]
fn finish(x: F32x8, v0: F32x8, v: F32x8, dt: F32x8) -> (F32x8, F32x8) {
    let z = zero_dt(dt);
    (
        z.select(x, flush_tiny(x + dt * v)),
        z.select(v0, flush_tiny(v)),
    )
}

/// [`crate::reference::tracking_spring_update`] per lane.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn tracking_spring_update(
    x: F32x8,
    v: F32x8,
    x_goal: F32x8,
    v_goal: F32x8,
    a_goal: F32x8,
    x_gain: F32x8,
    v_gain: F32x8,
    a_gain: F32x8,
    dt: F32x8,
) -> (F32x8, F32x8) {
    let w = lerp(v, v + a_goal * dt, a_gain);
    let w = lerp(w, v_goal, v_gain);
    let w = lerp(w, (x_goal - x) / dt, x_gain);
    finish(x, v, w, dt)
}

/// [`crate::reference::tracking_spring_update_no_acceleration`] per lane.
#[inline(always)]
pub fn tracking_spring_update_no_acceleration(
    x: F32x8,
    v: F32x8,
    x_goal: F32x8,
    v_goal: F32x8,
    x_gain: F32x8,
    v_gain: F32x8,
    dt: F32x8,
) -> (F32x8, F32x8) {
    let w = lerp(v, v_goal, v_gain);
    let w = lerp(w, (x_goal - x) / dt, x_gain);
    finish(x, v, w, dt)
}

/// [`crate::reference::tracking_spring_update_no_velocity_acceleration`] per lane.
#[inline(always)]
pub fn tracking_spring_update_no_velocity_acceleration(
    x: F32x8,
    v: F32x8,
    x_goal: F32x8,
    x_gain: F32x8,
    dt: F32x8,
) -> (F32x8, F32x8) {
    let w = lerp(v, (x_goal - x) / dt, x_gain);
    finish(x, v, w, dt)
}

/// [`crate::reference::tracking_spring_update_improved`] per lane.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn tracking_spring_update_improved(
    x: F32x8,
    v: F32x8,
    x_goal: F32x8,
    v_goal: F32x8,
    a_goal: F32x8,
    x_halflife: F32x8,
    v_halflife: F32x8,
    a_halflife: F32x8,
    dt: F32x8,
) -> (F32x8, F32x8) {
    let w = damper_exact(v, v + a_goal * dt, a_halflife, dt);
    let w = damper_exact(w, v_goal, v_halflife, dt);
    let w = damper_exact(w, (x_goal - x) / dt, x_halflife, dt);
    finish(x, v, w, dt)
}

/// [`crate::reference::tracking_spring_update_no_acceleration_improved`] per lane.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn tracking_spring_update_no_acceleration_improved(
    x: F32x8,
    v: F32x8,
    x_goal: F32x8,
    v_goal: F32x8,
    x_halflife: F32x8,
    v_halflife: F32x8,
    dt: F32x8,
) -> (F32x8, F32x8) {
    let w = damper_exact(v, v_goal, v_halflife, dt);
    let w = damper_exact(w, (x_goal - x) / dt, x_halflife, dt);
    finish(x, v, w, dt)
}

/// [`crate::reference::tracking_spring_update_no_velocity_acceleration_improved`] per lane.
#[inline(always)]
pub fn tracking_spring_update_no_velocity_acceleration_improved(
    x: F32x8,
    v: F32x8,
    x_goal: F32x8,
    x_halflife: F32x8,
    dt: F32x8,
) -> (F32x8, F32x8) {
    let w = damper_exact(v, (x_goal - x) / dt, x_halflife, dt);
    finish(x, v, w, dt)
}

/// Stiffness, damping, goal velocity and a "has pull" mask from the gains
/// (see the reference's `tracking_gains_to_spring`).
#[inline(always)]
fn gains_to_spring(
    v_goal: F32x8,
    a_goal: F32x8,
    x_gain: F32x8,
    v_gain: F32x8,
    a_gain: F32x8,
    gain_dt: F32x8,
) -> (F32x8, F32x8, F32x8, F32x8) {
    let one = splat(1.0);
    let t0 = (one - v_gain) * (one - x_gain);
    let t1 = a_gain * (one - v_gain) * (one - x_gain);
    let t2 = (v_gain * (one - x_gain)) / gain_dt;
    let t3 = x_gain / (gain_dt * gain_dt);
    let damping = (one - t0) / gain_dt;
    let ok = gain_dt.simd_gt(F32x8::ZERO) & !damping.simd_eq(F32x8::ZERO) & damping.is_finite();
    (t3, damping, (t2 * v_goal + t1 * a_goal) / damping, ok)
}

/// [`crate::reference::tracking_spring_update_exact`] per lane.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn tracking_spring_update_exact(
    x: F32x8,
    v: F32x8,
    x_goal: F32x8,
    v_goal: F32x8,
    a_goal: F32x8,
    x_gain: F32x8,
    v_gain: F32x8,
    a_gain: F32x8,
    dt: F32x8,
    gain_dt: F32x8,
) -> (F32x8, F32x8) {
    let (s, d, q, ok) = gains_to_spring(v_goal, a_goal, x_gain, v_gain, a_gain, gain_dt);
    let (sx, sv) = spring_damper_exact_stiffness_damping(x, v, x_goal, q, s, d, dt);
    (
        flush_tiny(ok.select(sx, x + v * dt)),
        flush_tiny(ok.select(sv, v)),
    )
}

/// [`crate::reference::tracking_spring_update_no_acceleration_exact`] per lane.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn tracking_spring_update_no_acceleration_exact(
    x: F32x8,
    v: F32x8,
    x_goal: F32x8,
    v_goal: F32x8,
    x_gain: F32x8,
    v_gain: F32x8,
    dt: F32x8,
    gain_dt: F32x8,
) -> (F32x8, F32x8) {
    tracking_spring_update_exact(
        x,
        v,
        x_goal,
        v_goal,
        F32x8::ZERO,
        x_gain,
        v_gain,
        F32x8::ZERO,
        dt,
        gain_dt,
    )
}

/// [`crate::reference::tracking_spring_update_no_velocity_acceleration_exact`] per lane.
#[inline(always)]
pub fn tracking_spring_update_no_velocity_acceleration_exact(
    x: F32x8,
    v: F32x8,
    x_goal: F32x8,
    x_gain: F32x8,
    dt: F32x8,
    gain_dt: F32x8,
) -> (F32x8, F32x8) {
    tracking_spring_update_exact(
        x,
        v,
        x_goal,
        F32x8::ZERO,
        F32x8::ZERO,
        x_gain,
        F32x8::ZERO,
        F32x8::ZERO,
        dt,
        gain_dt,
    )
}
