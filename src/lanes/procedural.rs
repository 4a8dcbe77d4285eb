//! Look-at and two-bone IK with velocities for eight characters
//! ([`crate::reference::procedural`] per lane; each lane its own target).

use super::kform::{
    Kformx8, kform_from_pos_vel, kform_inv_mul, kform_mul, kform_pos_vel_normalize,
    kform_rot_ang_between,
};
use super::math::{F32x8, Quatx8, Rotor, Vec3x8, clampf, cross, dot, length, normalize, splat};
use super::math::{quat_between, quat_from_angle_axis, quat_inv_mul, quat_inv_mul_vec3, quat_mul};
use super::pose::{op_extrapolate_prev, op_finite_diff_inplace, op_fk_static};
use crate::error::Result;
use crate::reference::pose::{check_parents, pose_lengths};
use crate::reference::procedural::{DEFAULT_FWD, IK_MAX_LENGTH_BUFFER, chain_in_parents};

/// Joint `j` is in poses of `lens` joints (the reference's `has_joint`).
fn has_joint(j: usize, lens: &[usize]) -> Result<()> {
    pose_lengths(j.saturating_add(1), lens)
}

/// `chain` is three joints of the poses and of `parents`, and `parents` is
/// a hierarchy (the reference's `has_chain`, its checks in its order).
fn has_chain(chain: [usize; 3], parents: &[i32], lens: &[usize]) -> Result<()> {
    for j in chain {
        has_joint(j, lens)?;
        chain_in_parents(j, parents)?;
    }
    check_parents(parents)
}

/// [`crate::reference::op_lookat_static`] for eight characters.
pub fn op_lookat_static(
    local: &mut [Kformx8],
    global: &[Kformx8],
    head: usize,
    target_pos: Vec3x8,
    fwd: Vec3x8,
) -> Result<()> {
    has_joint(head, &[local.len(), global.len()])?;
    let tar_pos = quat_inv_mul_vec3(global[head].rot, target_pos - global[head].pos);
    let diff = quat_between(fwd, normalize(tar_pos));
    local[head].rot = quat_mul(local[head].rot, diff);
    Ok(())
}

/// [`crate::reference::op_lookat`] for eight characters.
pub fn op_lookat(
    local: &mut [Kformx8],
    global: &[Kformx8],
    head: usize,
    target_pos: Vec3x8,
    target_vel: Vec3x8,
    fwd: Vec3x8,
) -> Result<()> {
    has_joint(head, &[local.len(), global.len()])?;
    let tar = kform_inv_mul(global[head], kform_from_pos_vel(target_pos, target_vel));
    let diff = kform_rot_ang_between(
        kform_from_pos_vel(fwd, Vec3x8::ZERO),
        kform_pos_vel_normalize(tar),
    );
    let head_rot = kform_mul(local[head], diff);
    local[head].rot = head_rot.rot;
    local[head].ang = head_rot.ang;
    Ok(())
}

#[inline(always)]
fn acos_clamped(x: F32x8) -> F32x8 {
    clampf(x, splat(-1.0), splat(1.0)).acos()
}

/// [`crate::reference::op_two_bone_ik_static`] for eight characters.
#[allow(clippy::too_many_arguments)]
pub fn op_two_bone_ik_static(
    local: &mut [Kformx8],
    global: &[Kformx8],
    parents: &[i32],
    chain: [usize; 3],
    heel_target: Vec3x8,
    fwd: Vec3x8,
    max_length_buffer: F32x8,
) -> Result<()> {
    has_chain(chain, parents, &[local.len(), global.len()])?;
    let [hip, knee, heel] = chain;
    let (a, b, c) = (global[hip].pos, global[knee].pos, global[heel].pos);
    let max_extension = length(a - b) + length(b - c) - max_length_buffer;
    let reach = length(heel_target - a);
    let clamped = a + max_extension * normalize(heel_target - a);
    let t = reach.simd_gt(max_extension).select(clamped, heel_target);

    let axis_dwn = normalize(c - a);
    let axis_rot = normalize(cross(axis_dwn, Rotor::new(global[knee].rot).apply(fwd)));
    let (lab, lcb, lat) = (length(b - a), length(b - c), length(t - a));
    let tiny = splat(1e-8);
    let ac_ab_0 = acos_clamped(dot(normalize(c - a), normalize(b - a)));
    let ba_bc_0 = acos_clamped(dot(normalize(a - b), normalize(c - b)));
    let ac_ab_1 =
        acos_clamped((lab * lab + lat * lat - lcb * lcb) / (splat(2.0) * lab * lat).max(tiny));
    let ba_bc_1 =
        acos_clamped((lab * lab + lcb * lcb - lat * lat) / (splat(2.0) * lab * lcb).max(tiny));
    let r0 = quat_from_angle_axis(ac_ab_1 - ac_ab_0, axis_rot);
    let r1 = quat_from_angle_axis(ba_bc_1 - ba_bc_0, axis_rot);
    let c_a = normalize(c - a);
    let t_a = normalize(t - a);
    let r2 = quat_from_angle_axis(acos_clamped(dot(c_a, t_a)), normalize(cross(c_a, t_a)));
    let hip_parent = match usize::try_from(parents[hip]) {
        Ok(p) => global[p].rot,
        Err(_) => Quatx8::IDENTITY,
    };
    local[hip].rot = quat_inv_mul(hip_parent, quat_mul(r2, quat_mul(r0, global[hip].rot)));
    local[knee].rot = quat_inv_mul(global[hip].rot, quat_mul(r1, global[knee].rot));
    Ok(())
}

/// [`crate::reference::op_two_bone_ik`] for eight characters.
#[allow(clippy::too_many_arguments)]
pub fn op_two_bone_ik(
    local_curr: &mut [Kformx8],
    local_temp: &mut [Kformx8],
    global_curr: &mut [Kformx8],
    global_temp: &mut [Kformx8],
    bone_parents: &[i32],
    chain: [usize; 3],
    heel_pos: Vec3x8,
    heel_vel: Vec3x8,
    delta: F32x8,
) -> Result<()> {
    // The reference's checks in its order, all before anything is written.
    let (lc, lt) = (local_curr.len(), local_temp.len());
    let scratch = [lc, lt, global_curr.len(), global_temp.len()];
    has_chain(chain, bone_parents, &scratch)?;
    pose_lengths(lt, &[lc])?;
    pose_lengths(lc, &[lt])?;
    // `has_chain` checked the hierarchy itself.
    pose_lengths(bone_parents.len(), &scratch)?;
    let fwd = Vec3x8::splat(DEFAULT_FWD);
    let buffer = splat(IK_MAX_LENGTH_BUFFER);
    op_extrapolate_prev(local_temp, local_curr, delta)?;
    op_fk_static(global_curr, local_curr, bone_parents)?;
    op_fk_static(global_temp, local_temp, bone_parents)?;
    op_two_bone_ik_static(
        local_curr,
        global_curr,
        bone_parents,
        chain,
        heel_pos,
        fwd,
        buffer,
    )?;
    op_two_bone_ik_static(
        local_temp,
        global_temp,
        bone_parents,
        chain,
        heel_pos - delta * heel_vel,
        fwd,
        buffer,
    )?;
    op_finite_diff_inplace(local_curr, local_temp, delta)
}
