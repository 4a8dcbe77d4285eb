//! Whole-pose operators over eight characters that share one skeleton: a
//! pose is a slice with one [`Kformx8`] per joint, lane `i` being character
//! `i` ([`crate::reference::pose`] per lane). Like the reference they
//! refuse, writing nothing and with the reference's error, a pose shorter
//! than the output (or than `parents`) and a parent that does not precede
//! its child.

use super::joint::Jointx8;
use super::kform::{Kformx8, kform_div, kform_mul_into};
use super::math::quat_to_scaled_angle_axis;
use super::math::{F32x8, Rotor, Vec3x8, div_dt, log_vec3, quat_abs, quat_mul, quat_mul_inv};
use crate::error::Result;
use crate::reference::pose::{check_parents, pose_lengths};

/// A pose of eight characters: one [`Kformx8`] per joint.
pub type Posex8 = [Kformx8];

/// [`crate::reference::pose::check_hierarchy`] for poses of `poses`
/// joints: each has every joint of `parents` ([`crate::Error::Length`]),
/// and each parent precedes its child ([`crate::Error::Skeleton`]).
pub(super) fn check_hierarchy(parents: &[i32], poses: &[usize]) -> Result<()> {
    pose_lengths(parents.len(), poses)?;
    check_parents(parents)
}

/// Forward kinematics with velocities for eight characters.
pub fn op_fk(global: &mut Posex8, local: &Posex8, parents: &[i32]) -> Result<()> {
    check_hierarchy(parents, &[global.len(), local.len()])?;
    fk_unchecked_order(global, local, parents);
    Ok(())
}

/// [`op_fk`] without the hierarchy check, for callers holding a validated
/// [`crate::Skeleton`]. Still memory safe: a bad index panics.
#[inline]
pub(crate) fn fk_unchecked_order(global: &mut Posex8, local: &Posex8, parents: &[i32]) {
    for (i, (&p, l)) in parents.iter().zip(local).enumerate() {
        // Parents precede children: split so the parent is read from the
        // finished part while the child is written, with no aliasing.
        let (done, rest) = global.split_at_mut(i);
        match usize::try_from(p) {
            Ok(p) => kform_mul_into(&mut rest[0], &done[p], l),
            Err(_) => Kformx8::copy(&mut rest[0], l),
        }
    }
}

/// Forward kinematics of positions, rotations and scales for eight
/// characters; global velocities set to zero.
pub fn op_fk_static(global: &mut Posex8, local: &Posex8, parents: &[i32]) -> Result<()> {
    check_hierarchy(parents, &[global.len(), local.len()])?;
    for (i, (&p, l)) in parents.iter().zip(local).enumerate() {
        let mut g = *l;
        if p >= 0 {
            let par = global[p as usize];
            g.pos = Rotor::new(par.rot).apply_add(l.pos * par.scl, par.pos);
            g.rot = quat_mul(par.rot, l.rot);
            g.scl = l.scl * par.scl;
        }
        g.vel = Vec3x8::ZERO;
        g.ang = Vec3x8::ZERO;
        g.svl = Vec3x8::ZERO;
        global[i] = g;
    }
    Ok(())
}

/// Backward kinematics for eight characters, the exact inverse of [`op_fk`].
pub fn op_bk(local: &mut Posex8, global: &Posex8, parents: &[i32]) -> Result<()> {
    check_hierarchy(parents, &[local.len(), global.len()])?;
    for (i, &p) in parents.iter().enumerate() {
        local[i] = if p < 0 {
            global[i]
        } else {
            kform_div(global[p as usize], global[i])
        };
    }
    Ok(())
}

/// Velocities by finite difference for eight characters, each lane with its
/// own `dt` (zero where `dt == 0`); only the velocity fields are written.
pub fn op_finite_diff(
    output: &mut Posex8,
    input_curr: &Posex8,
    input_prev: &Posex8,
    dt: F32x8,
) -> Result<()> {
    let n = output.len();
    pose_lengths(n, &[input_curr.len(), input_prev.len()])?;
    for ((o, c), p) in output.iter_mut().zip(input_curr).zip(input_prev) {
        o.vel = div_dt(c.pos - p.pos, dt);
        o.ang = div_dt(
            quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(c.rot, p.rot))),
            dt,
        );
        o.svl = div_dt(log_vec3(c.scl / p.scl), dt);
    }
    Ok(())
}

/// [`op_finite_diff`] with `output` as the current pose, for eight characters.
pub fn op_finite_diff_inplace(output: &mut Posex8, input_prev: &Posex8, dt: F32x8) -> Result<()> {
    pose_lengths(output.len(), &[input_prev.len()])?;
    for (o, p) in output.iter_mut().zip(input_prev) {
        o.vel = div_dt(o.pos - p.pos, dt);
        o.ang = div_dt(
            quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(o.rot, p.rot))),
            dt,
        );
        o.svl = div_dt(log_vec3(o.scl / p.scl), dt);
    }
    Ok(())
}

/// The pose `dt` earlier along its own velocities, for eight characters
/// ([`crate::reference::op_extrapolate_prev`] per lane).
pub fn op_extrapolate_prev(proj: &mut Posex8, pose: &Posex8, dt: F32x8) -> Result<()> {
    pose_lengths(proj.len(), &[pose.len()])?;
    for (o, p) in proj.iter_mut().zip(pose) {
        o.pos = p.pos - p.vel * dt;
        o.rot =
            super::math::quat_inv_mul(super::math::quat_from_scaled_angle_axis(p.ang * dt), p.rot);
        o.scl = p.scl / super::math::exp_vec3(p.svl * dt);
        o.vel = p.vel;
        o.ang = p.ang;
        o.svl = p.svl;
    }
    Ok(())
}

/// [`crate::reference::op_timescale`] for eight characters, each at its
/// own `factor`.
pub fn op_timescale(output: &mut Posex8, factor: F32x8) {
    for o in output.iter_mut() {
        kform_timescale(o, factor);
    }
}

/// One joint of [`op_timescale`].
#[inline(always)]
pub fn kform_timescale(k: &mut Kformx8, factor: F32x8) {
    k.vel = k.vel * factor;
    k.ang = k.ang * factor;
    k.svl = k.svl * factor;
}
