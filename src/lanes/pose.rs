//! Whole-pose operators over eight characters that share one skeleton: a
//! pose is a slice with one [`Kformx8`] per joint, lane `i` being character
//! `i` ([`crate::reference::pose`] per lane). Like the reference these panic
//! when a pose is shorter than `parents` or a parent does not precede its
//! child; [`crate::batch`] validates first and never panics.

use super::joint::Jointx8;
use super::kform::{Kformx8, kform_div, kform_mul_into};
use super::math::quat_to_scaled_angle_axis;
use super::math::{F32x8, Rotor, Vec3x8, div_dt, log_vec3, quat_abs, quat_mul, quat_mul_inv};

/// A pose of eight characters: one [`Kformx8`] per joint.
pub type Posex8 = [Kformx8];

/// Panics when a pose is shorter than `parents` or a parent does not
/// precede its child.
pub(super) fn check_hierarchy(parents: &[i32], poses: &[usize]) {
    for &n in poses {
        assert!(
            n >= parents.len(),
            "pose has {n} joints, parents has {}",
            parents.len()
        );
    }
    for (i, &p) in parents.iter().enumerate() {
        assert!(
            p < i as i32 && p >= -1,
            "joint {i}: parent {p} must be -1 or precede it"
        );
    }
}

/// Forward kinematics with velocities for eight characters.
pub fn op_fk(global: &mut Posex8, local: &Posex8, parents: &[i32]) {
    check_hierarchy(parents, &[global.len(), local.len()]);
    fk_unchecked_order(global, local, parents);
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
pub fn op_fk_static(global: &mut Posex8, local: &Posex8, parents: &[i32]) {
    check_hierarchy(parents, &[global.len(), local.len()]);
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
}

/// Backward kinematics for eight characters, the exact inverse of [`op_fk`].
pub fn op_bk(local: &mut Posex8, global: &Posex8, parents: &[i32]) {
    check_hierarchy(parents, &[global.len(), local.len()]);
    for (i, &p) in parents.iter().enumerate() {
        local[i] = if p < 0 {
            global[i]
        } else {
            kform_div(global[p as usize], global[i])
        };
    }
}

/// Velocities by finite difference for eight characters, each lane with its
/// own `dt` (zero where `dt == 0`); only the velocity fields are written.
pub fn op_finite_diff(output: &mut Posex8, input_curr: &Posex8, input_prev: &Posex8, dt: F32x8) {
    let n = output.len();
    assert!(
        input_curr.len() >= n && input_prev.len() >= n,
        "pose lengths differ"
    );
    for ((o, c), p) in output.iter_mut().zip(input_curr).zip(input_prev) {
        o.vel = div_dt(c.pos - p.pos, dt);
        o.ang = div_dt(
            quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(c.rot, p.rot))),
            dt,
        );
        o.svl = div_dt(log_vec3(c.scl / p.scl), dt);
    }
}

/// [`op_finite_diff`] with `output` as the current pose, for eight characters.
pub fn op_finite_diff_inplace(output: &mut Posex8, input_prev: &Posex8, dt: F32x8) {
    let n = output.len();
    assert!(input_prev.len() >= n, "pose lengths differ");
    for (o, p) in output.iter_mut().zip(input_prev) {
        o.vel = div_dt(o.pos - p.pos, dt);
        o.ang = div_dt(
            quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(o.rot, p.rot))),
            dt,
        );
        o.svl = div_dt(log_vec3(o.scl / p.scl), dt);
    }
}

/// The pose `dt` earlier along its own velocities, for eight characters
/// ([`crate::reference::op_extrapolate_prev`] per lane).
pub fn op_extrapolate_prev(proj: &mut Posex8, pose: &Posex8, dt: F32x8) {
    let n = proj.len();
    assert!(pose.len() >= n, "pose lengths differ");
    for (o, p) in proj.iter_mut().zip(pose) {
        o.pos = p.pos - p.vel * dt;
        o.rot =
            super::math::quat_inv_mul(super::math::quat_from_scaled_angle_axis(p.ang * dt), p.rot);
        o.scl = p.scl / super::math::exp_vec3(p.svl * dt);
        o.vel = p.vel;
        o.ang = p.ang;
        o.svl = p.svl;
    }
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
