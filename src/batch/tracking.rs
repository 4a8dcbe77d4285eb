//! Tracking springs over streams of signals: one spring per element, each
//! following its own targets, all with the same gains and time step.
//!
//! Every update moves `x` by `dt v` and reads `(x_goal - x) / dt`, so these
//! refuse a `dt` that is not 0 or in `[MIN_STEP, MAX_TIME]` (1e-6 to 1e6
//! s; [`super::MIN_STEP`], [`super::MAX_TIME`]); gains must be in
//! `[0, 1]`, half-lives finite and >= 0 (they saturate), and the exact
//! spring's `gain_dt` in `[1e-6, 1e6]` s (its stiffness is
//! `x_gain / gain_dt²`).

use rayon::prelude::*;

use super::{check_in, check_step, check_time, chunk, run, same_len};
use crate::error::{Error, Result};
use crate::lanes::{self, F32x8, splat};
use crate::stream::F32Stream;

/// Tracking targets for every element: the position at the end of the
/// step, its velocity and its acceleration (see `tests/suite/tracking.rs` for how
/// to derive them with [`crate::reference::tracking_target_velocity`] and
/// [`crate::reference::tracking_target_acceleration`]).
pub struct Targets<'a> {
    /// Positions.
    pub x: &'a F32Stream,
    /// Velocities.
    pub v: &'a F32Stream,
    /// Accelerations.
    pub a: &'a F32Stream,
}

/// Gains of the discrete tracking spring, each in `[0, 1]`.
#[derive(Clone, Copy, Debug)]
pub struct Gains {
    /// Position gain (the article uses 0.01 at 60 fps).
    pub x: f32,
    /// Velocity gain (0.2).
    pub v: f32,
    /// Acceleration gain (1).
    pub a: f32,
}

fn check_gains(g: Gains) -> Result<()> {
    for (name, value) in [("x_gain", g.x), ("v_gain", g.v), ("a_gain", g.a)] {
        if !(0.0..=1.0).contains(&value) {
            return Err(Error::Parameter {
                name,
                value,
                reason: "must be in [0, 1]",
            });
        }
    }
    Ok(())
}

fn check_targets(n: usize, t: &Targets) -> Result<()> {
    same_len("x_goal", n, t.x.len())?;
    same_len("v_goal", n, t.v.len())?;
    same_len("a_goal", n, t.a.len())
}

/// `(x[i], v[i]) = f(x[i], v[i], targets' [i])` for every pack, in tasks
/// of [`chunk`] packs for a kernel costing `ns_each` a pack (the callers
/// checked the lengths).
fn track(
    (x, v): (&mut F32Stream, &mut F32Stream),
    targets: &Targets,
    ns_each: usize,
    f: impl Fn(F32x8, F32x8, [F32x8; 3]) -> (F32x8, F32x8) + Send + Sync,
) {
    let c = chunk(x.packs().len(), ns_each);
    let [tx, tv, ta] = [&targets.x, &targets.v, &targets.a].map(|t| t.packs().par_chunks(c));
    let chunks = x
        .packs_mut()
        .par_chunks_mut(c)
        .zip(v.packs_mut().par_chunks_mut(c))
        .zip(tx.zip(tv.zip(ta)));
    run(chunks, move |((x, v), (tx, (tv, ta)))| {
        for k in 0..x.len() {
            (x[k], v[k]) = f(x[k], v[k], [tx[k], tv[k], ta[k]]);
        }
    });
}

/// One step of [`crate::reference::tracking_spring_update`] for every element.
pub fn tracking_spring_update(
    x: &mut F32Stream,
    v: &mut F32Stream,
    targets: &Targets,
    gains: Gains,
    dt: f32,
) -> Result<()> {
    same_len("v", x.len(), v.len())?;
    check_targets(x.len(), targets)?;
    check_gains(gains)?;
    check_step("dt", dt)?;
    let (gx, gv, ga, d) = (splat(gains.x), splat(gains.v), splat(gains.a), splat(dt));
    track((x, v), targets, 4, move |x, v, [tx, tv, ta]| {
        lanes::tracking_spring_update(x, v, tx, tv, ta, gx, gv, ga, d)
    });
    Ok(())
}

/// One step of [`crate::reference::tracking_spring_update_improved`] (half-lives,
/// `(x, v, a)`) for every element.
pub fn tracking_spring_update_improved(
    x: &mut F32Stream,
    v: &mut F32Stream,
    targets: &Targets,
    halflives: [f32; 3],
    dt: f32,
) -> Result<()> {
    same_len("v", x.len(), v.len())?;
    check_targets(x.len(), targets)?;
    for (name, h) in ["x_halflife", "v_halflife", "a_halflife"]
        .into_iter()
        .zip(halflives)
    {
        check_time(name, h)?;
    }
    check_step("dt", dt)?;
    let [hx, hv, ha] = halflives.map(splat);
    let d = splat(dt);
    track((x, v), targets, 8, move |x, v, [tx, tv, ta]| {
        lanes::tracking_spring_update_improved(x, v, tx, tv, ta, hx, hv, ha, d)
    });
    Ok(())
}

/// One step of [`crate::reference::tracking_spring_update_exact`] (gains
/// emulated at `gain_dt`, stepped exactly by `dt`) for every element.
pub fn tracking_spring_update_exact(
    x: &mut F32Stream,
    v: &mut F32Stream,
    targets: &Targets,
    gains: Gains,
    dt: f32,
    gain_dt: f32,
) -> Result<()> {
    same_len("v", x.len(), v.len())?;
    check_targets(x.len(), targets)?;
    check_gains(gains)?;
    check_step("dt", dt)?;
    check_in(
        "gain_dt",
        gain_dt,
        super::MIN_STEP,
        super::MAX_TIME,
        "must be in [1e-6, 1e6] s",
    )?;
    let (gx, gv, ga, d, gd) = (
        splat(gains.x),
        splat(gains.v),
        splat(gains.a),
        splat(dt),
        splat(gain_dt),
    );
    track((x, v), targets, 16, move |x, v, [tx, tv, ta]| {
        lanes::tracking_spring_update_exact(x, v, tx, tv, ta, gx, gv, ga, d, gd)
    });
    Ok(())
}
