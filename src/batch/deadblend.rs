//! Dead blending over crowds with half-lives fitted per character, joint
//! and axis at each transition (Dead Blending Node article; the batch
//! siblings [`super::crowd::op_extrapolate_decayed`] and
//! [`super::crowd::op_dead_blending`] use one half-life for every joint).

use rayon::prelude::*;

use super::{check_time, chunk, cost_ns, positive, run, same_len};
use crate::error::{Error, Result};
use crate::lanes::{self, splat};
use crate::stream::{CrowdHalflives, CrowdPose};

/// [`lanes::fit_halflives`] for every character of a crowd: `halflives`
/// receives, per character, joint and axis, the half-lives of a dead blend
/// from `src` (positions, velocities, rotations, angular velocities) to
/// `dst` (positions, rotations): `root_halflife` for joint 0, else
/// [`crate::reference::fit_joint_halflives`] with `halflife` as the
/// heuristic's scale, clamped to `[min_halflife, max_halflife]`.
///
/// Refuses, writing nothing: crowds of different shapes; `halflife` not
/// finite and > 0; `min_halflife`, `max_halflife` or `root_halflife` not
/// finite and >= 0; `max_halflife < min_halflife`. Finite poses then give
/// finite half-lives in `[min, max]` (the root's is `root_halflife`).
/// Bit-identical for any thread count.
#[allow(clippy::too_many_arguments)]
pub fn fit_halflives(
    halflives: &mut CrowdHalflives,
    src: &CrowdPose,
    dst: &CrowdPose,
    halflife: f32,
    min_halflife: f32,
    max_halflife: f32,
    root_halflife: f32,
) -> Result<()> {
    same_len("dst characters", src.characters(), dst.characters())?;
    same_len("dst joints", src.joints(), dst.joints())?;
    same_len(
        "halflives characters",
        src.characters(),
        halflives.characters(),
    )?;
    same_len("halflives joints", src.joints(), halflives.joints())?;
    positive("halflife", halflife)?;
    check_time("min_halflife", min_halflife)?;
    check_time("max_halflife", max_halflife)?;
    check_time("root_halflife", root_halflife)?;
    if max_halflife < min_halflife {
        return Err(Error::Parameter {
            name: "max_halflife",
            value: max_halflife,
            reason: "must be >= min_halflife",
        });
    }
    let joints = src.joints();
    if joints == 0 || src.characters() == 0 {
        return Ok(());
    }
    let (h, lo, hi, root) = (
        splat(halflife),
        splat(min_halflife),
        splat(max_halflife),
        splat(root_halflife),
    );
    let c = chunk(src.packs(), cost_ns::FIT_HALFLIFE_JOINT * joints);
    let (hp, hr) = halflives.lanes_mut();
    let chunks = hp
        .par_chunks_mut(c * joints)
        .zip(hr.par_chunks_mut(c * joints))
        .enumerate();
    run(chunks, |(k, (hp, hr))| {
        for (i, (hp, hr)) in hp.chunks_mut(joints).zip(hr.chunks_mut(joints)).enumerate() {
            let (s, d) = (src.pack(k * c + i), dst.pack(k * c + i));
            for (j, ((hp, hr), (s, d))) in hp.iter_mut().zip(hr).zip(s.iter().zip(d)).enumerate() {
                (*hp, *hr) = if j == 0 {
                    let r = lanes::Vec3x8::new(root, root, root);
                    (r, r)
                } else {
                    lanes::fit_joint_halflives(s.pos, s.vel, s.rot, s.ang, d.pos, d.rot, h, lo, hi)
                };
            }
        }
    });
    Ok(())
}
