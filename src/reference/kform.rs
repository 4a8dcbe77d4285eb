//! Kineforms: a position, rotation and scale with their velocities, and the
//! operators that compose them (velocities article, "Kineforms").

use super::math::{Quat, Vec3, cross, normalize, normalize_dx};
use super::math::{
    quat_between, quat_between_dx, quat_delta_to_angular_velocity, quat_inv, quat_inv_mul_vec3,
    quat_mul, quat_mul_vec3,
};

/// A kineform: position, rotation, scale and their velocities. `Default` is
/// the identity (unit rotation and scale, everything else zero).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
pub struct Kform {
    /// Position.
    pub pos: Vec3,
    /// Rotation.
    pub rot: Quat,
    /// Scale (per axis).
    pub scl: Vec3,
    /// Linear velocity.
    pub vel: Vec3,
    /// Angular velocity (scaled angle axis per second).
    pub ang: Vec3,
    /// Scalar velocity (rate of change of the log scale).
    pub svl: Vec3,
}

impl Kform {
    /// The identity kineform.
    pub const IDENTITY: Kform = Kform {
        pos: Vec3::ZERO,
        rot: Quat::IDENTITY,
        scl: Vec3::ONE,
        vel: Vec3::ZERO,
        ang: Vec3::ZERO,
        svl: Vec3::ZERO,
    };
}

impl Default for Kform {
    fn default() -> Kform {
        Kform::IDENTITY
    }
}

/// Composition `v * w`: the kineform `w`, moving in the frame of `v`
/// (the velocities article's `kform_mul`, the step of `op_fk`):
///
/// - `pos = R(w.pos v.scl) + v.pos`, `rot = v.rot w.rot`, `scl = w.scl v.scl`
/// - `vel = R(w.vel v.scl) + v.vel + v.ang × R(w.pos v.scl) + R(w.pos v.scl v.svl)`
/// - `ang = R(w.ang) + v.ang`, `svl = w.svl + v.svl`
///
/// A parent spinning at 1 rad/s about z carries a child one unit along x
/// at `ω × r = (0, 1, 0)` units per second (the velocities article's point):
///
/// ```
/// use kineform::reference::{Kform, Vec3, kform_mul};
/// let parent = Kform { ang: Vec3::new(0.0, 0.0, 1.0), ..Kform::IDENTITY };
/// let child = Kform { pos: Vec3::new(1.0, 0.0, 0.0), ..Kform::IDENTITY };
/// let world = kform_mul(parent, child);
/// assert_eq!(world.vel, Vec3::new(0.0, 1.0, 0.0));
/// ```
#[inline]
pub fn kform_mul(v: Kform, w: Kform) -> Kform {
    let lever = quat_mul_vec3(v.rot, w.pos * v.scl);
    Kform {
        pos: lever + v.pos,
        rot: quat_mul(v.rot, w.rot),
        scl: w.scl * v.scl,
        vel: quat_mul_vec3(v.rot, w.vel * v.scl)
            + v.vel
            + cross(v.ang, lever)
            + quat_mul_vec3(v.rot, w.pos * v.scl * v.svl),
        ang: quat_mul_vec3(v.rot, w.ang) + v.ang,
        svl: w.svl + v.svl,
    }
}

/// Division: the kineform `u` with `kform_mul(v, u) == w`, i.e. `w` relative
/// to `v` (the step of `op_bk`).
///
/// Deviation from the published reference: there `pos` is not divided by
/// `v.scl` and the expansion term is rotated and not divided, so it inverts
/// [`kform_mul`] only for unit scale and zero scalar velocity. Here it is the
/// exact inverse for any scale; for unit scale the two agree (tested in
/// `tests/suite/corrections.rs`, `kform_div_inverts_kform_mul_at_any_scale`, and
/// `tests/suite/velocities.rs`, `bk_inverts_fk`).
///
/// - `pos = R⁻¹(w.pos - v.pos) / v.scl`, `rot = v.rot⁻¹ w.rot`, `scl = w.scl / v.scl`
/// - `vel = R⁻¹(w.vel - v.vel - v.ang × (w.pos - v.pos)) / v.scl - pos v.svl`
/// - `ang = R⁻¹(w.ang - v.ang)`, `svl = w.svl - v.svl`
#[inline]
pub fn kform_div(v: Kform, w: Kform) -> Kform {
    let lever = w.pos - v.pos;
    let pos = quat_inv_mul_vec3(v.rot, lever) / v.scl;
    Kform {
        pos,
        rot: quat_mul(quat_inv(v.rot), w.rot),
        scl: w.scl / v.scl,
        vel: quat_inv_mul_vec3(v.rot, w.vel - v.vel - cross(v.ang, lever)) / v.scl - pos * v.svl,
        ang: quat_inv_mul_vec3(v.rot, w.ang - v.ang),
        svl: w.svl - v.svl,
    }
}

/// The inverse `kform_div(v, identity)`: `kform_mul(v, kform_inv(v))` is the
/// identity.
#[inline]
pub fn kform_inv(v: Kform) -> Kform {
    kform_div(v, Kform::IDENTITY)
}

/// `kform_mul(kform_inv(v), w)`.
#[inline]
pub fn kform_inv_mul(v: Kform, w: Kform) -> Kform {
    kform_mul(kform_inv(v), w)
}

/// `kform_mul(v, kform_inv(w))`.
#[inline]
pub fn kform_mul_inv(v: Kform, w: Kform) -> Kform {
    kform_mul(v, kform_inv(w))
}

/// A direction through `v`: `R(d)`.
#[inline]
pub fn kform_mul_dir(v: Kform, d: Vec3) -> Vec3 {
    quat_mul_vec3(v.rot, d)
}

/// A point through `v`: `R(pos v.scl) + v.pos`.
#[inline]
pub fn kform_mul_pos(v: Kform, pos: Vec3) -> Vec3 {
    quat_mul_vec3(v.rot, pos * v.scl) + v.pos
}

/// The velocity of a point `pos` moving at `vel` in the frame of `v`:
/// `R(vel v.scl) + v.vel + v.ang × R(pos v.scl) + R(pos v.scl v.svl)`.
#[inline]
pub fn kform_mul_vel(v: Kform, pos: Vec3, vel: Vec3) -> Vec3 {
    quat_mul_vec3(v.rot, vel * v.scl)
        + v.vel
        + cross(v.ang, quat_mul_vec3(v.rot, pos * v.scl))
        + quat_mul_vec3(v.rot, pos * v.scl * v.svl)
}

/// A kineform holding only a position and its velocity.
#[inline]
pub fn kform_from_pos_vel(pos: Vec3, vel: Vec3) -> Kform {
    Kform {
        pos,
        vel,
        ..Kform::IDENTITY
    }
}

/// `d` with its position normalized and the velocity replaced by the
/// derivative of that normalization ([`normalize_dx`]).
#[inline]
pub fn kform_pos_vel_normalize(d: Kform) -> Kform {
    Kform {
        pos: normalize(d.pos),
        vel: normalize_dx(d.pos, d.vel),
        ..d
    }
}

/// The rotation between two moving directions and its angular velocity:
/// `rot = quat_between(dir0.pos, dir1.pos)`,
/// `ang = quat_delta_to_angular_velocity(rot, quat_between_dx(...))`.
#[inline]
pub fn kform_rot_ang_between(dir0: Kform, dir1: Kform) -> Kform {
    let rot = quat_between(dir0.pos, dir1.pos);
    let drot = quat_between_dx(dir0.pos, dir0.vel, dir1.pos, dir1.vel);
    Kform {
        rot,
        ang: quat_delta_to_angular_velocity(rot, drot),
        ..Kform::IDENTITY
    }
}
