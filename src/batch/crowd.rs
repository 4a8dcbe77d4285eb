//! Batch entry points over crowds: C characters × J joints in packs of eight.

use super::*;

fn same_shape(what: &'static str, a: &CrowdPose, b: &CrowdPose) -> Result<()> {
    same_len(what, a.characters(), b.characters())?;
    same_len(what, a.joints(), b.joints())
}

fn fits(what: &'static str, crowd: &CrowdPose, skeleton: &Skeleton) -> Result<()> {
    same_len(what, skeleton.len(), crowd.joints())
}

/// Runs `f(p, pack)` over the packs of `out`, each pack costing about
/// `ns_per_joint` per joint.
fn par_packs(
    out: &mut CrowdPose,
    ns_per_joint: usize,
    f: impl Fn(usize, &mut [Kformx8]) -> Result<()> + Send + Sync,
) -> Result<()> {
    let joints = out.joints().max(1);
    let c = chunk(out.packs(), ns_per_joint.saturating_mul(joints));
    let chunks = out.lanes_mut().par_chunks_mut(c * joints).enumerate();
    try_run(chunks, |(k, packs)| {
        for (i, pack) in packs.chunks_mut(joints).enumerate() {
            f(k * c + i, pack)?;
        }
        Ok(())
    })
}

/// Forward kinematics with velocities ([`crate::reference::op_fk`]) for
/// every character of a crowd.
pub fn op_fk(global: &mut CrowdPose, local: &CrowdPose, skeleton: &Skeleton) -> Result<()> {
    same_shape("local", global, local)?;
    fits("skeleton joints", global, skeleton)?;
    let parents = skeleton.parents();
    par_packs(global, cost_ns::FK_JOINT, |p, g| {
        lanes::pose::fk_unchecked_order(g, local.pack(p), parents);
        Ok(())
    })
}

/// Forward kinematics without velocities for every character.
pub fn op_fk_static(global: &mut CrowdPose, local: &CrowdPose, skeleton: &Skeleton) -> Result<()> {
    same_shape("local", global, local)?;
    fits("skeleton joints", global, skeleton)?;
    let parents = skeleton.parents();
    par_packs(global, cost_ns::FK_JOINT, |p, g| {
        lanes::op_fk_static(g, local.pack(p), parents)
    })
}

/// Backward kinematics for every character, the inverse of [`op_fk`].
pub fn op_bk(local: &mut CrowdPose, global: &CrowdPose, skeleton: &Skeleton) -> Result<()> {
    same_shape("global", local, global)?;
    fits("skeleton joints", local, skeleton)?;
    let parents = skeleton.parents();
    par_packs(local, cost_ns::FK_JOINT, |p, l| {
        lanes::op_bk(l, global.pack(p), parents)
    })
}

/// Velocities by finite difference of two crowd poses; only velocity
/// fields of `output` are written. Refuses a `dt` that is not 0 or
/// finite and at least [`MIN_STEP`] (dividing by a smaller one gives
/// infinities); `dt = 0` gives zero velocities.
pub fn op_finite_diff(
    output: &mut CrowdPose,
    input_curr: &CrowdPose,
    input_prev: &CrowdPose,
    dt: f32,
) -> Result<()> {
    same_shape("input_curr", output, input_curr)?;
    same_shape("input_prev", output, input_prev)?;
    check_divisor_step("dt", dt)?;
    let d = splat(dt);
    par_packs(output, cost_ns::EXP_LOG, |p, o| {
        lanes::op_finite_diff(o, input_curr.pack(p), input_prev.pack(p), d)
    })
}

/// The inertialization offset from `lhs` to `rhs` for every character.
pub fn op_inertialize_offset(
    offset: &mut CrowdPose,
    lhs: &CrowdPose,
    rhs: &CrowdPose,
) -> Result<()> {
    same_shape("lhs", offset, lhs)?;
    same_shape("rhs", offset, rhs)?;
    par_packs(offset, cost_ns::INERTIALIZE, |p, o| {
        lanes::op_inertialize_offset(o, lhs.pack(p), rhs.pack(p))
    })
}

/// Cubic inertialization of every character, each at its own
/// `blend_time[c]` (saturates: any finite value >= 0); the duration must
/// be in `[0, MAX_BLEND_TIME]`.
pub fn op_inertialize(
    output: &mut CrowdPose,
    offset: &CrowdPose,
    input: &CrowdPose,
    blend_time: &[f32],
    blend_duration: f32,
) -> Result<()> {
    same_shape("offset", output, offset)?;
    same_shape("input", output, input)?;
    same_len("blend_time", output.characters(), blend_time.len())?;
    check_blend("blend_duration", blend_duration)?;
    for &t in blend_time {
        check_time("blend_time", t)?;
    }
    let d = splat(blend_duration);
    par_packs(output, cost_ns::INERTIALIZE, |p, o| {
        let t = lane_times(blend_time, p);
        lanes::op_inertialize(o, offset.pack(p), input.pack(p), t, d)
    })
}

fn finite_all(name: &'static str, v: &[f32]) -> Result<()> {
    match v.iter().find(|x| !x.is_finite()) {
        Some(&value) => Err(Error::Parameter {
            name,
            value,
            reason: "must be finite",
        }),
        None => Ok(()),
    }
}

fn fits_clip(crowd: &CrowdPose, clip: &crate::Clip) -> Result<()> {
    same_len("clip joints", crowd.joints(), clip.joints())
}

/// Linear sampling of `clip` for every character, character `c` at
/// `times[c]` seconds ([`crate::reference::op_sample_linear`]).
pub fn op_sample_linear(output: &mut CrowdPose, clip: &crate::Clip, times: &[f32]) -> Result<()> {
    fits_clip(output, clip)?;
    same_len("times", output.characters(), times.len())?;
    finite_all("times", times)?;
    let (p, q, s, dt) = (
        clip.pos_slice(),
        clip.rot_slice(),
        clip.scl_slice(),
        clip.frame_time(),
    );
    par_packs(output, cost_ns::SAMPLE_JOINT, |k, o| {
        lanes::op_sample_linear(o, p, q, s, lane_times(times, k), dt)
    })
}

/// Cubic (Catmull-Rom) sampling of `clip` for every character
/// ([`crate::reference::op_sample_cubic`]).
pub fn op_sample_cubic(output: &mut CrowdPose, clip: &crate::Clip, times: &[f32]) -> Result<()> {
    fits_clip(output, clip)?;
    same_len("times", output.characters(), times.len())?;
    finite_all("times", times)?;
    let (p, q, s, dt) = (
        clip.pos_slice(),
        clip.rot_slice(),
        clip.scl_slice(),
        clip.frame_time(),
    );
    par_packs(output, 2 * cost_ns::SAMPLE_JOINT, |k, o| {
        lanes::op_sample_cubic(o, p, q, s, lane_times(times, k), dt)
    })
}

/// Blend of two crowd poses with a weight and its change per step for
/// every character ([`crate::reference::op_blend`]). Refuses weights
/// outside `[-1, 2]` (a blend, extrapolated by at most its own width:
/// scales blend geometrically and overflow far outside), weight
/// velocities outside `[-1e6, 1e6]` per second, and a `dt` that is not 0
/// or at least [`MIN_STEP`].
pub fn op_blend(
    output: &mut CrowdPose,
    lhs: &CrowdPose,
    rhs: &CrowdPose,
    alpha: &[f32],
    alpha_vel: &[f32],
    dt: f32,
) -> Result<()> {
    same_shape("lhs", output, lhs)?;
    same_shape("rhs", output, rhs)?;
    same_len("alpha", output.characters(), alpha.len())?;
    same_len("alpha_vel", output.characters(), alpha_vel.len())?;
    for &a in alpha {
        check_in("alpha", a, -1.0, 2.0, "must be in [-1, 2]")?;
    }
    for &v in alpha_vel {
        check_in(
            "alpha_vel",
            v,
            -MAX_TIME,
            MAX_TIME,
            "must be in [-1e6, 1e6] per second",
        )?;
    }
    check_divisor_step("dt", dt)?;
    let d = splat(dt);
    par_packs(output, cost_ns::BLEND_JOINT, |k, o| {
        lanes::op_blend(
            o,
            lhs.pack(k),
            rhs.pack(k),
            lane_times(alpha, k),
            lane_times(alpha_vel, k),
            d,
        )
    })
}

/// Decayed extrapolation of every character's pose by its own `dt[c]`
/// ([`crate::reference::op_extrapolate_decayed`]). `dt` saturates (any
/// finite value >= 0: velocities decay, so the motion converges); the
/// half-life must be in `[0, MAX_BLEND_TIME]`.
pub fn op_extrapolate_decayed(
    output: &mut CrowdPose,
    input: &CrowdPose,
    dt: &[f32],
    halflife: f32,
) -> Result<()> {
    same_shape("input", output, input)?;
    same_len("dt", output.characters(), dt.len())?;
    for &t in dt {
        check_dt("dt", t)?;
    }
    check_blend("halflife", halflife)?;
    let h = splat(halflife);
    par_packs(output, cost_ns::BLEND_JOINT, |k, o| {
        lanes::op_extrapolate_decayed(o, input.pack(k), lane_times(dt, k), h)
    })
}

/// Dead blending of every character at its own `blend_time[c]`
/// ([`crate::reference::op_dead_blending`]); `extrapolated` receives the
/// extrapolated transition poses. `blend_path` holds each joint's
/// relative rotation from one step to the next, one [`lanes::Quatx8`]
/// per pack and joint in the crowd pose's order (`pack * joints +
/// joint`): set a character's lanes to the identity at its transition
/// and pass them back unchanged every step of its blend. Blend times
/// saturate (any finite value `>= 0`); the blend duration and
/// extrapolation half-life must be in `[0, MAX_BLEND_TIME]` and `dt` 0
/// or in `[MIN_STEP, MAX_TIME]`.
#[allow(clippy::too_many_arguments)]
pub fn op_dead_blending(
    output: &mut CrowdPose,
    extrapolated: &mut CrowdPose,
    blend_path: &mut [lanes::Quatx8],
    transition: &CrowdPose,
    input: &CrowdPose,
    extrapolation_halflife: f32,
    blend_time: &[f32],
    blend_duration: f32,
    dt: f32,
) -> Result<()> {
    same_shape("extrapolated", output, extrapolated)?;
    same_shape("transition", output, transition)?;
    same_shape("input", output, input)?;
    same_len("blend_time", output.characters(), blend_time.len())?;
    same_len("blend_path", output.lanes().len(), blend_path.len())?;
    for &t in blend_time {
        check_time("blend_time", t)?;
    }
    check_blend("extrapolation_halflife", extrapolation_halflife)?;
    check_blend("blend_duration", blend_duration)?;
    check_step("dt", dt)?;
    let (h, dur, d) = (
        splat(extrapolation_halflife),
        splat(blend_duration),
        splat(dt),
    );
    let joints = output.joints().max(1);
    let c = chunk(output.packs(), 2 * cost_ns::BLEND_JOINT * joints);
    let chunks = output
        .lanes_mut()
        .par_chunks_mut(c * joints)
        .zip(extrapolated.lanes_mut().par_chunks_mut(c * joints))
        .zip(blend_path.par_chunks_mut(c * joints))
        .enumerate();
    try_run(chunks, |(k, ((out, ex), paths))| {
        let packs = out.chunks_mut(joints).zip(ex.chunks_mut(joints));
        for (i, ((o, e), path)) in packs.zip(paths.chunks_mut(joints)).enumerate() {
            let p = k * c + i;
            let (tp, x) = (transition.pack(p), input.pack(p));
            let t = lane_times(blend_time, p);
            lanes::op_dead_blending(o, e, path, tp, x, h, t, dur, d)?;
        }
        Ok(())
    })
}

/// The eight per-character values of pack `p`, zero past the end.
pub(crate) fn lane_times(t: &[f32], p: usize) -> F32x8 {
    let mut a = [0.0; 8];
    for (i, v) in t.iter().skip(p * 8).take(8).enumerate() {
        a[i] = *v;
    }
    F32x8::new(a)
}
