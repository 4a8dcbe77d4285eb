//! Tracking springs: springs that follow a signal's acceleration, velocity
//! and position in different proportions, removing discontinuities while
//! tracking the signal exactly where nothing is wrong (perfect tracking
//! with springs article).
//!
//! Edge cases (edge-case table): with `dt == 0` every update returns the
//! state unchanged and the targets are 0 (the published code divides by
//! zero); the exact variants with `x_gain = v_gain = 0` (no pull, where the
//! published code divides 0 by 0) advance the state by its own velocity.
//!
//! Every update flushes results below 1e-30 to zero (as the decaying
//! springs do): a spring tracking a zero signal otherwise settles into
//! subnormals and stays there, each step slowed several times by microcode
//! assists (PERF.md, "settled streams").

use super::math::{clampf, flush_tiny, lerp};
use super::spring::{damper_exact, spring_damper_exact_stiffness_damping};

/// The signal's velocity by finite difference, `(x_next - x_curr) / dt`.
#[inline]
pub fn tracking_target_velocity(x_next: f32, x_curr: f32, dt: f32) -> f32 {
    if dt == 0.0 {
        0.0
    } else {
        (x_next - x_curr) / dt
    }
}

/// The signal's acceleration by finite difference,
/// `((x_next - x_curr) / dt - (x_curr - x_prev) / dt) / dt`.
///
/// On `x(t) = t²` sampled every 0.5 s around `t = 1` (0.25, 1, 2.25) the
/// velocity toward the next sample is 2.5 and the acceleration exactly 2:
///
/// ```
/// use kineform::reference::{tracking_target_acceleration, tracking_target_velocity};
/// assert_eq!(tracking_target_velocity(2.25, 1.0, 0.5), 2.5);
/// assert_eq!(tracking_target_acceleration(2.25, 1.0, 0.25, 0.5), 2.0);
/// ```
#[inline]
pub fn tracking_target_acceleration(x_next: f32, x_curr: f32, x_prev: f32, dt: f32) -> f32 {
    if dt == 0.0 {
        0.0
    } else {
        (((x_next - x_curr) / dt) - ((x_curr - x_prev) / dt)) / dt
    }
}

/// [`tracking_target_velocity`] clipped to `[v_min, v_max]`: the article's
/// second option for signals with unknown discontinuities.
#[inline]
pub fn tracking_target_velocity_clipped(
    x_next: f32,
    x_curr: f32,
    dt: f32,
    v_min: f32,
    v_max: f32,
) -> f32 {
    clampf(tracking_target_velocity(x_next, x_curr, dt), v_min, v_max)
}

/// [`tracking_target_acceleration`] clipped to `[a_min, a_max]`.
#[inline]
pub fn tracking_target_acceleration_clipped(
    x_next: f32,
    x_curr: f32,
    x_prev: f32,
    dt: f32,
    a_min: f32,
    a_max: f32,
) -> f32 {
    clampf(
        tracking_target_acceleration(x_next, x_curr, x_prev, dt),
        a_min,
        a_max,
    )
}

/// One step of the tracking spring: `v = lerp(v, v + a_goal dt, a_gain)`,
/// `v = lerp(v, v_goal, v_gain)`, `v = lerp(v, (x_goal - x) / dt, x_gain)`,
/// `x = x + dt v`. Returns `(x, v)`.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn tracking_spring_update(
    x: f32,
    v: f32,
    x_goal: f32,
    v_goal: f32,
    a_goal: f32,
    x_gain: f32,
    v_gain: f32,
    a_gain: f32,
    dt: f32,
) -> (f32, f32) {
    if dt == 0.0 {
        return (x, v);
    }
    let v = lerp(v, v + a_goal * dt, a_gain);
    let v = lerp(v, v_goal, v_gain);
    let v = lerp(v, (x_goal - x) / dt, x_gain);
    (flush_tiny(x + dt * v), flush_tiny(v))
}

/// [`tracking_spring_update`] without the acceleration target (for steps
/// where it is known to be bad).
#[inline]
pub fn tracking_spring_update_no_acceleration(
    x: f32,
    v: f32,
    x_goal: f32,
    v_goal: f32,
    x_gain: f32,
    v_gain: f32,
    dt: f32,
) -> (f32, f32) {
    if dt == 0.0 {
        return (x, v);
    }
    let v = lerp(v, v_goal, v_gain);
    let v = lerp(v, (x_goal - x) / dt, x_gain);
    (flush_tiny(x + dt * v), flush_tiny(v))
}

/// [`tracking_spring_update`] with neither velocity nor acceleration target.
#[inline]
pub fn tracking_spring_update_no_velocity_acceleration(
    x: f32,
    v: f32,
    x_goal: f32,
    x_gain: f32,
    dt: f32,
) -> (f32, f32) {
    if dt == 0.0 {
        return (x, v);
    }
    let v = lerp(v, (x_goal - x) / dt, x_gain);
    (flush_tiny(x + dt * v), flush_tiny(v))
}

/// The tracking spring with half-lives instead of gains (`lerp` replaced by
/// `damper_exact`); the article uses 0.0 for acceleration, 0.05 for velocity
/// and 1.0 for position.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn tracking_spring_update_improved(
    x: f32,
    v: f32,
    x_goal: f32,
    v_goal: f32,
    a_goal: f32,
    x_halflife: f32,
    v_halflife: f32,
    a_halflife: f32,
    dt: f32,
) -> (f32, f32) {
    if dt == 0.0 {
        return (x, v);
    }
    let v = damper_exact(v, v + a_goal * dt, a_halflife, dt);
    let v = damper_exact(v, v_goal, v_halflife, dt);
    let v = damper_exact(v, (x_goal - x) / dt, x_halflife, dt);
    (flush_tiny(x + dt * v), flush_tiny(v))
}

/// [`tracking_spring_update_improved`] without the acceleration target.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn tracking_spring_update_no_acceleration_improved(
    x: f32,
    v: f32,
    x_goal: f32,
    v_goal: f32,
    x_halflife: f32,
    v_halflife: f32,
    dt: f32,
) -> (f32, f32) {
    if dt == 0.0 {
        return (x, v);
    }
    let v = damper_exact(v, v_goal, v_halflife, dt);
    let v = damper_exact(v, (x_goal - x) / dt, x_halflife, dt);
    (flush_tiny(x + dt * v), flush_tiny(v))
}

/// [`tracking_spring_update_improved`] with neither velocity nor acceleration target.
#[inline]
pub fn tracking_spring_update_no_velocity_acceleration_improved(
    x: f32,
    v: f32,
    x_goal: f32,
    x_halflife: f32,
    dt: f32,
) -> (f32, f32) {
    if dt == 0.0 {
        return (x, v);
    }
    let v = damper_exact(v, (x_goal - x) / dt, x_halflife, dt);
    (flush_tiny(x + dt * v), flush_tiny(v))
}

/// The spring-damper equivalent of the gains at `gain_dt` (article
/// appendix): `θ0 = (1 - αv)(1 - αx)`, `θ1 = αa θ0`, `θ2 = αv (1 - αx) / gain_dt`,
/// `θ3 = αx / gain_dt²`, stiffness `θ3`, damping `(1 - θ0) / gain_dt`, goal
/// velocity `(θ2 v_goal + θ1 a_goal) / damping`. `None` where there is no
/// pull (damping 0) or `gain_dt` is not positive.
#[inline]
fn tracking_gains_to_spring(
    v_goal: f32,
    a_goal: f32,
    x_gain: f32,
    v_gain: f32,
    a_gain: f32,
    gain_dt: f32,
) -> Option<(f32, f32, f32)> {
    let t0 = (1.0 - v_gain) * (1.0 - x_gain);
    let t1 = a_gain * (1.0 - v_gain) * (1.0 - x_gain);
    let t2 = (v_gain * (1.0 - x_gain)) / gain_dt;
    let t3 = x_gain / (gain_dt * gain_dt);
    let damping = (1.0 - t0) / gain_dt;
    if gain_dt.is_nan() || gain_dt <= 0.0 || damping == 0.0 || !damping.is_finite() {
        return None;
    }
    Some((t3, damping, (t2 * v_goal + t1 * a_goal) / damping))
}

/// The dt-invariant tracking spring: the spring-damper equivalent of the
/// gains at `gain_dt` stepped exactly by `dt` with
/// [`spring_damper_exact_stiffness_damping`].
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn tracking_spring_update_exact(
    x: f32,
    v: f32,
    x_goal: f32,
    v_goal: f32,
    a_goal: f32,
    x_gain: f32,
    v_gain: f32,
    a_gain: f32,
    dt: f32,
    gain_dt: f32,
) -> (f32, f32) {
    match tracking_gains_to_spring(v_goal, a_goal, x_gain, v_gain, a_gain, gain_dt) {
        Some((s, d, q)) => flush2(spring_damper_exact_stiffness_damping(
            x, v, x_goal, q, s, d, dt,
        )),
        None => flush2((x + v * dt, v)),
    }
}

/// [`tracking_spring_update_exact`] without the acceleration target.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn tracking_spring_update_no_acceleration_exact(
    x: f32,
    v: f32,
    x_goal: f32,
    v_goal: f32,
    x_gain: f32,
    v_gain: f32,
    dt: f32,
    gain_dt: f32,
) -> (f32, f32) {
    match tracking_gains_to_spring(v_goal, 0.0, x_gain, v_gain, 0.0, gain_dt) {
        Some((s, d, q)) => flush2(spring_damper_exact_stiffness_damping(
            x, v, x_goal, q, s, d, dt,
        )),
        None => flush2((x + v * dt, v)),
    }
}

/// [`tracking_spring_update_exact`] with neither velocity nor acceleration target.
#[inline]
pub fn tracking_spring_update_no_velocity_acceleration_exact(
    x: f32,
    v: f32,
    x_goal: f32,
    x_gain: f32,
    dt: f32,
    gain_dt: f32,
) -> (f32, f32) {
    match tracking_gains_to_spring(0.0, 0.0, x_gain, 0.0, 0.0, gain_dt) {
        Some((s, d, _)) => flush2(spring_damper_exact_stiffness_damping(
            x, v, x_goal, 0.0, s, d, dt,
        )),
        None => flush2((x + v * dt, v)),
    }
}

/// [`flush_tiny`] on both parts of a spring's state.
#[inline]
fn flush2((x, v): (f32, f32)) -> (f32, f32) {
    (flush_tiny(x), flush_tiny(v))
}
