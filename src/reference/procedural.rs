//! Procedural adjustments that carry velocities (velocities article,
//! "Procedural Animation" and "Finite Difference"): look-at written with
//! kineforms, and two-bone IK whose velocity comes from evaluating it twice.
//!
//! The article indexes fixed bones (`Bone_Head`, `Bone_LeftUpLeg`, ...);
//! here the joints are parameters: `head`, and `chain = [hip, knee, heel]`.
//! A joint past a pose (or past `parents`) is refused with
//! [`Error::Length`](crate::Error::Length), a hierarchy whose parent does
//! not precede its child with [`Error::Skeleton`](crate::Error::Skeleton),
//! writing nothing.

use super::kform::{
    kform_from_pos_vel, kform_inv_mul, kform_mul, kform_pos_vel_normalize, kform_rot_ang_between,
};
use super::math::{Quat, Vec3, clampf, cross, dot, length, normalize};
use super::math::{
    quat_between, quat_from_angle_axis, quat_inv_mul, quat_inv_mul_vec3, quat_mul, quat_mul_vec3,
};
use super::pose::op_fk_static;
use super::pose::{Pose, check_parents, lengths, op_extrapolate_prev, op_finite_diff_inplace};
use crate::error::{Result, at_least};

/// [`Error::Length`](crate::Error::Length) unless joint `j` is in every pose (and every field of
/// each): the joints of the procedural operators are parameters.
fn has_joint(j: usize, poses: &[&Pose]) -> Result<()> {
    lengths(j.saturating_add(1), poses)
}

/// `chain` is three joints of the poses and of `parents`, and `parents` is
/// a hierarchy (so the hip's parent, which the IK reads, is in the poses).
fn has_chain(chain: [usize; 3], parents: &[i32], poses: &[&Pose]) -> Result<()> {
    for j in chain {
        has_joint(j, poses)?;
        chain_in_parents(j, parents)?;
    }
    check_parents(parents)
}

/// [`Error::Length`](crate::Error::Length) unless chain joint `j` is one of `parents`' (shared
/// with [`crate::lanes::procedural`]).
pub(crate) fn chain_in_parents(j: usize, parents: &[i32]) -> Result<()> {
    at_least(
        "parents (an IK chain joint is past them)",
        j.saturating_add(1),
        parents.len(),
    )
}

/// The article's default forward axis of the head and the knee, `(0, 1, 0)`.
pub const DEFAULT_FWD: Vec3 = Vec3::new(0.0, 1.0, 0.0);
/// Default length kept short of full extension by two-bone IK (0.01).
pub const IK_MAX_LENGTH_BUFFER: f32 = 0.01;
/// Default time step of the double evaluation of [`op_two_bone_ik`] (0.01 s).
pub const IK_DELTA: f32 = 0.01;

/// Turns joint `head` so that its `fwd` axis points at `target_pos`:
/// the target in the head's frame, `quat_between(fwd, normalize(target))`,
/// applied on the right of the head's local rotation.
pub fn op_lookat_static(
    local: &mut Pose,
    global: &Pose,
    head: usize,
    target_pos: Vec3,
    fwd: Vec3,
) -> Result<()> {
    has_joint(head, &[&*local, global])?;
    let tar_pos = quat_inv_mul_vec3(global.rot[head], target_pos - global.pos[head]);
    let diff = quat_between(fwd, normalize(tar_pos));
    local.rot[head] = quat_mul(local.rot[head], diff);
    Ok(())
}

/// [`op_lookat_static`] with velocities, through kineforms: the target (at
/// `target_pos` moving at `target_vel`) relative to the moving head, the
/// rotation and angular velocity between `fwd` and that direction
/// ([`kform_rot_ang_between`]), composed onto the head's local kineform.
/// Writes the head's local rotation and angular velocity.
pub fn op_lookat(
    local: &mut Pose,
    global: &Pose,
    head: usize,
    target_pos: Vec3,
    target_vel: Vec3,
    fwd: Vec3,
) -> Result<()> {
    has_joint(head, &[&*local, global])?;
    let tar = kform_inv_mul(global.get(head), kform_from_pos_vel(target_pos, target_vel));
    let diff = kform_rot_ang_between(
        kform_from_pos_vel(fwd, Vec3::ZERO),
        kform_pos_vel_normalize(tar),
    );
    let head_rot = kform_mul(local.get(head), diff);
    local.rot[head] = head_rot.rot;
    local.ang[head] = head_rot.ang;
    Ok(())
}

/// `acos` of a cosine clamped to `[-1, 1]`.
#[inline]
fn acos_clamped(x: f32) -> f32 {
    clampf(x, -1.0, 1.0).acos()
}

/// Two-bone IK (law of cosines) on `chain = [hip, knee, heel]`: rotates the
/// hip and the knee in the plane of the leg so the heel reaches
/// `heel_target`, clamped to the leg's length minus `max_length_buffer`.
/// The bend axis is the leg direction crossed with the knee's `fwd` axis.
/// Writes the local rotations of the hip and the knee; `global` must be the
/// FK of `local` (velocities unused). The bend plane is undefined when the
/// knee's `fwd` axis lies along the leg; the result is then arbitrary (and
/// the two paths may pick different planes).
///
/// Deviations: the published code takes the bend axis from `Bone_RightLeg`
/// while solving the left leg (a typo; the chain's own knee is used here),
/// and guards the law-of-cosines divisions against zero-length bones.
#[allow(clippy::too_many_arguments)]
pub fn op_two_bone_ik_static(
    local: &mut Pose,
    global: &Pose,
    parents: &[i32],
    chain: [usize; 3],
    heel_target: Vec3,
    fwd: Vec3,
    max_length_buffer: f32,
) -> Result<()> {
    has_chain(chain, parents, &[&*local, global])?;
    let [hip, knee, heel] = chain;
    let (a, b, c) = (global.pos[hip], global.pos[knee], global.pos[heel]);
    let max_extension = length(a - b) + length(b - c) - max_length_buffer;
    let t = if length(heel_target - a) > max_extension {
        a + max_extension * normalize(heel_target - a)
    } else {
        heel_target
    };

    let axis_dwn = normalize(c - a);
    let axis_rot = normalize(cross(axis_dwn, quat_mul_vec3(global.rot[knee], fwd)));

    let lab = length(b - a);
    let lcb = length(b - c);
    let lat = length(t - a);
    let ac_ab_0 = acos_clamped(dot(normalize(c - a), normalize(b - a)));
    let ba_bc_0 = acos_clamped(dot(normalize(a - b), normalize(c - b)));
    let ac_ab_1 = acos_clamped((lab * lab + lat * lat - lcb * lcb) / (2.0 * lab * lat).max(1e-8));
    let ba_bc_1 = acos_clamped((lab * lab + lcb * lcb - lat * lat) / (2.0 * lab * lcb).max(1e-8));

    let r0 = quat_from_angle_axis(ac_ab_1 - ac_ab_0, axis_rot);
    let r1 = quat_from_angle_axis(ba_bc_1 - ba_bc_0, axis_rot);
    let c_a = normalize(c - a);
    let t_a = normalize(t - a);
    let r2 = quat_from_angle_axis(acos_clamped(dot(c_a, t_a)), normalize(cross(c_a, t_a)));

    let hip_parent = match usize::try_from(parents[hip]) {
        Ok(p) => global.rot[p],
        Err(_) => Quat::IDENTITY,
    };
    local.rot[hip] = quat_inv_mul(hip_parent, quat_mul(r2, quat_mul(r0, global.rot[hip])));
    local.rot[knee] = quat_inv_mul(global.rot[hip], quat_mul(r1, global.rot[knee]));
    Ok(())
}

/// Two-bone IK with velocities by evaluating it twice (velocities article,
/// "Finite Difference"): once on the current pose and target, once on the
/// pose extrapolated `delta` seconds back along its velocities
/// ([`op_extrapolate_prev`]) with the target at `heel_pos - delta heel_vel`;
/// the local velocities are then the finite difference of the two
/// ([`op_finite_diff_inplace`]). `local_temp`, `global_curr` and
/// `global_temp` are scratch poses: `local_temp` of `local_curr`'s joints
/// exactly, the global poses of at least `bone_parents`' joints (as every
/// pose here); all are checked before any is written.
#[allow(clippy::too_many_arguments)]
pub fn op_two_bone_ik(
    local_curr: &mut Pose,
    local_temp: &mut Pose,
    global_curr: &mut Pose,
    global_temp: &mut Pose,
    bone_parents: &[i32],
    chain: [usize; 3],
    heel_pos: Vec3,
    heel_vel: Vec3,
    delta: f32,
) -> Result<()> {
    // Every size checked before anything is written: the steps below
    // check their own, but a refusal by the second would leave the
    // first's output written.
    let scratch = [&*local_curr, &*local_temp, &*global_curr, &*global_temp];
    has_chain(chain, bone_parents, &scratch)?;
    lengths(local_temp.len(), &[&*local_temp, &*local_curr])?;
    lengths(local_curr.len(), &[&*local_curr, &*local_temp])?;
    // `has_chain` checked the hierarchy itself.
    lengths(bone_parents.len(), &scratch)?;
    op_extrapolate_prev(local_temp, local_curr, delta)?;
    op_fk_static(global_curr, local_curr, bone_parents)?;
    op_fk_static(global_temp, local_temp, bone_parents)?;
    op_two_bone_ik_static(
        local_curr,
        global_curr,
        bone_parents,
        chain,
        heel_pos,
        DEFAULT_FWD,
        IK_MAX_LENGTH_BUFFER,
    )?;
    op_two_bone_ik_static(
        local_temp,
        global_temp,
        bone_parents,
        chain,
        heel_pos - delta * heel_vel,
        DEFAULT_FWD,
        IK_MAX_LENGTH_BUFFER,
    )?;
    op_finite_diff_inplace(local_curr, local_temp, delta)?;
    Ok(())
}
