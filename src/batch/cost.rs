//! Transition costs over streams: motion-matching features for a database
//! of joint positions and velocities (frames × joints, any layout, one
//! element per joint sample), and displacements.
//!
//! Features and displacements grow with the half-life or blend time
//! (as its square for the velocity term), so these refuse one outside
//! `[0, MAX_TIME]` ([`super::MAX_TIME`], 1e6 s) rather than overflow.

use super::{check_bounded_time, same_len};
use crate::error::Result;
use crate::lanes::{self, splat};
use crate::stream::{F32Stream, Vec3Stream};

/// Spring features `2 pos / y + vel / y²` for every sample of a database
/// ([`crate::reference::transition_feature_spring`]).
pub fn transition_features_spring(
    out: &mut Vec3Stream,
    pos: &Vec3Stream,
    vel: &Vec3Stream,
    halflife: f32,
) -> Result<()> {
    same_len("pos", out.len(), pos.len())?;
    same_len("vel", out.len(), vel.len())?;
    check_bounded_time("halflife", halflife)?;
    let h = splat(halflife);
    let ab = (pos.packs(), vel.packs());
    super::map2(out.packs_mut(), ab, 2, move |a, b| {
        lanes::transition_feature_spring(a, b, h)
    });
    Ok(())
}

/// Cubic features `z pos / 2 + z² vel / 12` for every sample of a database
/// ([`crate::reference::transition_feature_cubic`]).
pub fn transition_features_cubic(
    out: &mut Vec3Stream,
    pos: &Vec3Stream,
    vel: &Vec3Stream,
    blendtime: f32,
) -> Result<()> {
    same_len("pos", out.len(), pos.len())?;
    same_len("vel", out.len(), vel.len())?;
    check_bounded_time("blendtime", blendtime)?;
    let z = splat(blendtime);
    let ab = (pos.packs(), vel.packs());
    super::map2(out.packs_mut(), ab, 2, move |a, b| {
        lanes::transition_feature_cubic(a, b, z)
    });
    Ok(())
}

/// [`crate::reference::decay_spring_damper_displacement`] for every pair of
/// position and velocity differences.
pub fn decay_spring_damper_displacement(
    out: &mut F32Stream,
    x: &F32Stream,
    v: &F32Stream,
    halflife: f32,
) -> Result<()> {
    same_len("x", out.len(), x.len())?;
    same_len("v", out.len(), v.len())?;
    check_bounded_time("halflife", halflife)?;
    let h = splat(halflife);
    let ab = (x.packs(), v.packs());
    super::map2(out.packs_mut(), ab, 8, move |a, b| {
        lanes::decay_spring_damper_displacement(a, b, h)
    });
    Ok(())
}

/// [`crate::reference::decay_cubic_displacement`] for every pair of
/// position and velocity differences.
pub fn decay_cubic_displacement(
    out: &mut F32Stream,
    x: &F32Stream,
    v: &F32Stream,
    blendtime: f32,
) -> Result<()> {
    same_len("x", out.len(), x.len())?;
    same_len("v", out.len(), v.len())?;
    check_bounded_time("blendtime", blendtime)?;
    let z = splat(blendtime);
    let ab = (x.packs(), v.packs());
    super::map2(out.packs_mut(), ab, 4, move |a, b| {
        lanes::decay_cubic_displacement(a, b, z)
    });
    Ok(())
}
