//! Kineforms that hold only what a caller uses: a position and rotation
//! ([`PosRot`], what a renderer needs); with a scale ([`PosRotScl`]); with
//! linear and angular velocities but no scale ([`Motion`], what a crowd of
//! unit-scale clips carries); or everything ([`Kform`]).
//!
//! Each is the subset of kineforms whose missing fields are the identity's
//! (unit scale, zero velocities), and that subset is closed under the
//! velocities article's `kform_mul` and `kform_div`: composing two of them
//! leaves the missing fields at the identity. So each type's [`Joint::mul`]
//! and [`Joint::div`] are [`kform_mul`] and [`kform_div`] with the missing
//! terms left out, written in the same order so that they give the same
//! floats (`tests/suite/joints/operators.rs` checks `T::mul(v, w) ==
//! T::from_kform(kform_mul(v.to_kform(), w.to_kform()))` with `==`, NaN
//! failing). [`op_fk_joints`] and [`op_bk_joints`] are forward and backward
//! kinematics over one character's joints of any of them: the plain scalar
//! loop that the 8-lane path ([`crate::lanes::joint`]) is checked against
//! and measured beside.

use super::kform::{Kform, kform_div, kform_mul};
use super::math::{Quat, Vec3, cross, quat_inv, quat_inv_mul_vec3, quat_mul, quat_mul_vec3};
use super::pose::check_joints;
use crate::error::Result;

/// A position and a rotation: a kineform at unit scale and rest.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C)]
pub struct PosRot {
    /// Position.
    pub pos: Vec3,
    /// Rotation.
    pub rot: Quat,
}

/// A position, rotation and per-axis scale: a kineform at rest. `Default`
/// is the identity.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct PosRotScl {
    /// Position.
    pub pos: Vec3,
    /// Rotation.
    pub rot: Quat,
    /// Scale (per axis).
    pub scl: Vec3,
}

impl Default for PosRotScl {
    fn default() -> PosRotScl {
        <PosRotScl as Joint>::IDENTITY
    }
}

/// A position and rotation with their linear and angular velocities: a
/// kineform at unit scale (the crowd's joints: BVH clips have no scales).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C)]
pub struct Motion {
    /// Position.
    pub pos: Vec3,
    /// Rotation.
    pub rot: Quat,
    /// Linear velocity.
    pub vel: Vec3,
    /// Angular velocity (scaled angle axis per second).
    pub ang: Vec3,
}

/// A kineform, or the part of one a caller uses: composition, division and
/// the inverse of the velocities article restricted to the fields the type
/// holds (the module docs say why that is exact).
pub trait Joint: Copy + PartialEq + core::fmt::Debug + Default + Send + Sync {
    /// The identity.
    const IDENTITY: Self;

    /// The fields of `k` this type holds (the others are dropped).
    fn from_kform(k: Kform) -> Self;

    /// The kineform with these fields and the identity's elsewhere (unit
    /// scale, zero velocities).
    fn to_kform(self) -> Kform;

    /// Composition `v * w` ([`kform_mul`] on the fields held): the step of
    /// forward kinematics, `w` a joint's local value and `v` its parent's
    /// global one.
    fn mul(v: Self, w: Self) -> Self;

    /// Division, `w` relative to `v` ([`kform_div`] on the fields held):
    /// the step of backward kinematics, the exact inverse of [`Joint::mul`].
    fn div(v: Self, w: Self) -> Self;

    /// The inverse, `div(v, IDENTITY)`.
    #[inline]
    fn inv(v: Self) -> Self {
        Self::div(v, Self::IDENTITY)
    }
}

impl Joint for Kform {
    const IDENTITY: Kform = Kform::IDENTITY;

    #[inline]
    fn from_kform(k: Kform) -> Kform {
        k
    }

    #[inline]
    fn to_kform(self) -> Kform {
        self
    }

    #[inline]
    fn mul(v: Kform, w: Kform) -> Kform {
        kform_mul(v, w)
    }

    #[inline]
    fn div(v: Kform, w: Kform) -> Kform {
        kform_div(v, w)
    }
}

impl Joint for PosRot {
    const IDENTITY: PosRot = PosRot {
        pos: Vec3::ZERO,
        rot: Quat::IDENTITY,
    };

    #[inline]
    fn from_kform(k: Kform) -> PosRot {
        PosRot {
            pos: k.pos,
            rot: k.rot,
        }
    }

    #[inline]
    fn to_kform(self) -> Kform {
        Kform {
            pos: self.pos,
            rot: self.rot,
            ..Kform::IDENTITY
        }
    }

    /// `pos = R(w.pos) + v.pos`, `rot = v.rot w.rot`.
    #[inline]
    fn mul(v: PosRot, w: PosRot) -> PosRot {
        PosRot {
            pos: quat_mul_vec3(v.rot, w.pos) + v.pos,
            rot: quat_mul(v.rot, w.rot),
        }
    }

    /// `pos = R⁻¹(w.pos - v.pos)`, `rot = v.rot⁻¹ w.rot`.
    #[inline]
    fn div(v: PosRot, w: PosRot) -> PosRot {
        PosRot {
            pos: quat_inv_mul_vec3(v.rot, w.pos - v.pos),
            rot: quat_mul(quat_inv(v.rot), w.rot),
        }
    }
}

impl Joint for PosRotScl {
    const IDENTITY: PosRotScl = PosRotScl {
        pos: Vec3::ZERO,
        rot: Quat::IDENTITY,
        scl: Vec3::ONE,
    };

    #[inline]
    fn from_kform(k: Kform) -> PosRotScl {
        PosRotScl {
            pos: k.pos,
            rot: k.rot,
            scl: k.scl,
        }
    }

    #[inline]
    fn to_kform(self) -> Kform {
        Kform {
            pos: self.pos,
            rot: self.rot,
            scl: self.scl,
            ..Kform::IDENTITY
        }
    }

    /// `pos = R(w.pos v.scl) + v.pos`, `rot = v.rot w.rot`,
    /// `scl = w.scl v.scl`.
    #[inline]
    fn mul(v: PosRotScl, w: PosRotScl) -> PosRotScl {
        PosRotScl {
            pos: quat_mul_vec3(v.rot, w.pos * v.scl) + v.pos,
            rot: quat_mul(v.rot, w.rot),
            scl: w.scl * v.scl,
        }
    }

    /// `pos = R⁻¹(w.pos - v.pos) / v.scl`, `rot = v.rot⁻¹ w.rot`,
    /// `scl = w.scl / v.scl`.
    #[inline]
    fn div(v: PosRotScl, w: PosRotScl) -> PosRotScl {
        PosRotScl {
            pos: quat_inv_mul_vec3(v.rot, w.pos - v.pos) / v.scl,
            rot: quat_mul(quat_inv(v.rot), w.rot),
            scl: w.scl / v.scl,
        }
    }
}

impl Joint for Motion {
    const IDENTITY: Motion = Motion {
        pos: Vec3::ZERO,
        rot: Quat::IDENTITY,
        vel: Vec3::ZERO,
        ang: Vec3::ZERO,
    };

    #[inline]
    fn from_kform(k: Kform) -> Motion {
        Motion {
            pos: k.pos,
            rot: k.rot,
            vel: k.vel,
            ang: k.ang,
        }
    }

    #[inline]
    fn to_kform(self) -> Kform {
        Kform {
            pos: self.pos,
            rot: self.rot,
            vel: self.vel,
            ang: self.ang,
            ..Kform::IDENTITY
        }
    }

    /// `pos = R(w.pos) + v.pos`, `rot = v.rot w.rot`,
    /// `vel = R(w.vel) + v.vel + v.ang × R(w.pos)`, `ang = R(w.ang) + v.ang`.
    #[inline]
    fn mul(v: Motion, w: Motion) -> Motion {
        let lever = quat_mul_vec3(v.rot, w.pos);
        Motion {
            pos: lever + v.pos,
            rot: quat_mul(v.rot, w.rot),
            vel: quat_mul_vec3(v.rot, w.vel) + v.vel + cross(v.ang, lever),
            ang: quat_mul_vec3(v.rot, w.ang) + v.ang,
        }
    }

    /// `pos = R⁻¹(w.pos - v.pos)`, `rot = v.rot⁻¹ w.rot`,
    /// `vel = R⁻¹(w.vel - v.vel - v.ang × (w.pos - v.pos))`,
    /// `ang = R⁻¹(w.ang - v.ang)`.
    #[inline]
    fn div(v: Motion, w: Motion) -> Motion {
        let lever = w.pos - v.pos;
        Motion {
            pos: quat_inv_mul_vec3(v.rot, lever),
            rot: quat_mul(quat_inv(v.rot), w.rot),
            vel: quat_inv_mul_vec3(v.rot, w.vel - v.vel - cross(v.ang, lever)),
            ang: quat_inv_mul_vec3(v.rot, w.ang - v.ang),
        }
    }
}

/// Forward kinematics of one character's joints: each joint is
/// `T::mul(parent's global, local)`, roots copied ([`super::op_fk`] on the
/// fields `T` holds). Refuses, like [`super::op_fk`] and writing nothing, a
/// pose shorter than `parents` or a parent that does not precede its child.
pub fn op_fk_joints<T: Joint>(global: &mut [T], local: &[T], parents: &[i32]) -> Result<()> {
    check_joints(parents, &[global.len(), local.len()])?;
    for (i, &p) in parents.iter().enumerate() {
        global[i] = if p < 0 {
            local[i]
        } else {
            T::mul(global[p as usize], local[i])
        };
    }
    Ok(())
}

/// Backward kinematics of one character's joints: each joint is
/// `T::div(parent's global, global)`, roots copied, the exact inverse of
/// [`op_fk_joints`] ([`super::op_bk`] on the fields `T` holds).
pub fn op_bk_joints<T: Joint>(local: &mut [T], global: &[T], parents: &[i32]) -> Result<()> {
    check_joints(parents, &[global.len(), local.len()])?;
    for (i, &p) in parents.iter().enumerate() {
        local[i] = if p < 0 {
            global[i]
        } else {
            T::div(global[p as usize], global[i])
        };
    }
    Ok(())
}
