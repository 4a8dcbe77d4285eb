//! Kineforms over eight lanes: [`crate::reference::kform`] per lane.

use bytemuck::{Pod, Zeroable};

use super::math::{Quatx8, Rotor, Vec3x8, cross, cross_add, normalize, normalize_dx, quat_between};
use super::math::{quat_between_dx, quat_delta_to_angular_velocity, quat_inv, quat_mul};
use crate::reference::kform::Kform;

/// Eight [`Kform`]s, one per lane: 19 lane vectors (608 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Kformx8 {
    /// Positions.
    pub pos: Vec3x8,
    /// Rotations.
    pub rot: Quatx8,
    /// Scales.
    pub scl: Vec3x8,
    /// Linear velocities.
    pub vel: Vec3x8,
    /// Angular velocities.
    pub ang: Vec3x8,
    /// Scalar velocities.
    pub svl: Vec3x8,
}

impl Default for Kformx8 {
    fn default() -> Kformx8 {
        Kformx8::IDENTITY
    }
}

impl Kformx8 {
    /// The identity in every lane.
    pub const IDENTITY: Kformx8 = Kformx8::splat(Kform::IDENTITY);

    /// The same kineform in every lane.
    pub const fn splat(k: Kform) -> Kformx8 {
        Kformx8 {
            pos: Vec3x8::splat(k.pos),
            rot: Quatx8::splat(k.rot),
            scl: Vec3x8::splat(k.scl),
            vel: Vec3x8::splat(k.vel),
            ang: Vec3x8::splat(k.ang),
            svl: Vec3x8::splat(k.svl),
        }
    }

    /// Lane `i` holds `k[i]`.
    pub fn from_array(k: [Kform; 8]) -> Kformx8 {
        Kformx8 {
            pos: Vec3x8::from_array(k.map(|k| k.pos)),
            rot: Quatx8::from_array(k.map(|k| k.rot)),
            scl: Vec3x8::from_array(k.map(|k| k.scl)),
            vel: Vec3x8::from_array(k.map(|k| k.vel)),
            ang: Vec3x8::from_array(k.map(|k| k.ang)),
            svl: Vec3x8::from_array(k.map(|k| k.svl)),
        }
    }

    /// The eight lanes.
    pub fn to_array(self) -> [Kform; 8] {
        let (pos, rot, scl) = (
            self.pos.to_array(),
            self.rot.to_array(),
            self.scl.to_array(),
        );
        let (vel, ang, svl) = (
            self.vel.to_array(),
            self.ang.to_array(),
            self.svl.to_array(),
        );
        core::array::from_fn(|i| Kform {
            pos: pos[i],
            rot: rot[i],
            scl: scl[i],
            vel: vel[i],
            ang: ang[i],
            svl: svl[i],
        })
    }

    /// Lane `i` (panics when `i >= 8`).
    pub fn lane(self, i: usize) -> Kform {
        self.to_array()[i]
    }
}

/// Composition `v * w` per lane. The two rotated velocity terms of the
/// reference, `R(w.vel v.scl) + R(w.pos v.scl v.svl)`, share one rotation
/// here (`R` is linear), and the parent's rotation is prepared once for the
/// three vectors it turns.
#[inline(always)]
pub fn kform_mul(v: Kformx8, w: Kformx8) -> Kformx8 {
    let mut out = Kformx8::IDENTITY;
    kform_mul_into(&mut out, &v, &w);
    out
}

/// [`kform_mul`] written field by field into `out`, in the order that keeps
/// the fewest lane vectors live (each field is stored as soon as it is
/// known): the step of forward kinematics. Measured about 15% faster than
/// building the whole result first, which spills to the stack. The parent's
/// angular velocity is added after the rotation (off the chain's critical
/// path), and the lever dies into the carried velocity `v.ang × lever +
/// v.vel` before the local velocity is formed: 23 to 19 spilled lane
/// vectors touched per joint in the compiled FK loop, and 3 to 5% faster in
/// `benches/fk_floor.rs` (kineform FK in cache, two packs side by side,
/// 2.04 to 2.11 down to 2.00 to 2.03 ns per character-joint over
/// alternated runs).
#[inline(always)]
pub fn kform_mul_into(out: &mut Kformx8, v: &Kformx8, w: &Kformx8) {
    out.rot = quat_mul(v.rot, w.rot);
    out.scl = w.scl * v.scl;
    out.svl = w.svl + v.svl;
    let r = Rotor::new(v.rot);
    out.ang = r.apply(w.ang) + v.ang;
    let lever = r.apply(w.pos * v.scl);
    out.pos = lever + v.pos;
    let carried = cross_add(v.ang, lever, v.vel);
    let ls = w.pos * v.scl;
    let local_vel = Vec3x8::new(
        w.vel.x.mul_add(v.scl.x, ls.x * v.svl.x),
        w.vel.y.mul_add(v.scl.y, ls.y * v.svl.y),
        w.vel.z.mul_add(v.scl.z, ls.z * v.svl.z),
    );
    out.vel = r.apply_add(local_vel, carried);
}

/// Division per lane: the exact inverse of [`kform_mul`] (see
/// [`crate::reference::kform_div`]).
#[inline(always)]
pub fn kform_div(v: Kformx8, w: Kformx8) -> Kformx8 {
    let r = Rotor::new(quat_inv(v.rot));
    let lever = w.pos - v.pos;
    let pos = r.apply(lever) / v.scl;
    Kformx8 {
        pos,
        rot: quat_mul(quat_inv(v.rot), w.rot),
        scl: w.scl / v.scl,
        vel: r.apply(w.vel - v.vel - cross(v.ang, lever)) / v.scl - pos * v.svl,
        ang: r.apply(w.ang - v.ang),
        svl: w.svl - v.svl,
    }
}

/// The inverse `kform_div(v, identity)` per lane.
#[inline(always)]
pub fn kform_inv(v: Kformx8) -> Kformx8 {
    kform_div(v, Kformx8::IDENTITY)
}

/// `kform_mul(kform_inv(v), w)` per lane.
#[inline(always)]
pub fn kform_inv_mul(v: Kformx8, w: Kformx8) -> Kformx8 {
    kform_mul(kform_inv(v), w)
}

/// `kform_mul(v, kform_inv(w))` per lane.
#[inline(always)]
pub fn kform_mul_inv(v: Kformx8, w: Kformx8) -> Kformx8 {
    kform_mul(v, kform_inv(w))
}

/// `R(d)` per lane.
#[inline(always)]
pub fn kform_mul_dir(v: Kformx8, d: Vec3x8) -> Vec3x8 {
    Rotor::new(v.rot).apply(d)
}

/// `R(pos v.scl) + v.pos` per lane.
#[inline(always)]
pub fn kform_mul_pos(v: Kformx8, pos: Vec3x8) -> Vec3x8 {
    Rotor::new(v.rot).apply_add(pos * v.scl, v.pos)
}

/// `R(vel v.scl) + v.vel + v.ang × R(pos v.scl) + R(pos v.scl v.svl)` per lane.
#[inline(always)]
pub fn kform_mul_vel(v: Kformx8, pos: Vec3x8, vel: Vec3x8) -> Vec3x8 {
    let r = Rotor::new(v.rot);
    let ls = pos * v.scl;
    let lever = r.apply(ls);
    r.apply_add(vel * v.scl + ls * v.svl, cross(v.ang, lever) + v.vel)
}

/// A kineform holding only a position and its velocity, per lane.
#[inline(always)]
pub fn kform_from_pos_vel(pos: Vec3x8, vel: Vec3x8) -> Kformx8 {
    Kformx8 {
        pos,
        vel,
        ..Kformx8::IDENTITY
    }
}

/// Position normalized, velocity its derivative, per lane.
#[inline(always)]
pub fn kform_pos_vel_normalize(d: Kformx8) -> Kformx8 {
    Kformx8 {
        pos: normalize(d.pos),
        vel: normalize_dx(d.pos, d.vel),
        ..d
    }
}

/// Rotation between two moving directions and its angular velocity, per lane.
#[inline(always)]
pub fn kform_rot_ang_between(dir0: Kformx8, dir1: Kformx8) -> Kformx8 {
    let rot = quat_between(dir0.pos, dir1.pos);
    let drot = quat_between_dx(dir0.pos, dir0.vel, dir1.pos, dir1.vel);
    Kformx8 {
        rot,
        ang: quat_delta_to_angular_velocity(rot, drot),
        ..Kformx8::IDENTITY
    }
}
