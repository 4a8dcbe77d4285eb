//! Joints of eight characters holding only what a caller uses
//! ([`crate::reference::joint`] per lane): [`PosRotx8`] (7 lane vectors,
//! 28 bytes per character-joint), [`PosRotSclx8`] (10, 40 bytes),
//! [`Motionx8`] (13, 52 bytes: the crowd's joints) and [`Kformx8`] (19, 76
//! bytes); forward kinematics over packs of them, chain by chain, is
//! [`super::chain::fk_packs`].
//!
//! Each type's [`Jointx8::mul`] leaves the terms of a missing field out at
//! compile time; nothing is stored for a field a type does not hold. The
//! terms are summed so that a joint's global value depends on its parent's
//! through as few dependent operations as possible (the parent's position,
//! velocity and angular velocity are added last), because down a chain each
//! joint waits for the one before it.
//!

use bytemuck::{Pod, Zeroable};

use super::chain::{FkMode, Walk};
use super::kform::{Kformx8, kform_div, kform_mul, kform_mul_into};
use super::math::{Quatx8, Rotor, Vec3x8, cross, cross_add, quat_inv, quat_mul};
use crate::error::Result;
use crate::reference::joint::{Joint, Motion, PosRot, PosRotScl};
use crate::reference::kform::Kform;
use crate::reference::pose::check_joints;

/// Eight [`PosRot`]s, one per lane: 7 lane vectors (224 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct PosRotx8 {
    /// Positions.
    pub pos: Vec3x8,
    /// Rotations.
    pub rot: Quatx8,
}

/// Eight [`PosRotScl`]s, one per lane: 10 lane vectors (320 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct PosRotSclx8 {
    /// Positions.
    pub pos: Vec3x8,
    /// Rotations.
    pub rot: Quatx8,
    /// Scales.
    pub scl: Vec3x8,
}

/// Eight [`Motion`]s, one per lane: 13 lane vectors (416 bytes). The same
/// fields in the same order as the crowd's world output, so the crowd can
/// use this type for it.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Motionx8 {
    /// Positions.
    pub pos: Vec3x8,
    /// Rotations.
    pub rot: Quatx8,
    /// Linear velocities.
    pub vel: Vec3x8,
    /// Angular velocities.
    pub ang: Vec3x8,
}

/// A joint of eight characters: [`Kformx8`] or a part of it. The lane
/// version of [`Joint`], with the same operations per lane.
pub trait Jointx8: Copy + Pod + Send + Sync + PartialEq + core::fmt::Debug {
    /// The scalar joint of one lane.
    type Elem: Joint;

    /// The identity in every lane.
    const IDENTITY: Self;

    /// How [`super::chain::fk_packs`] runs for this type when not told
    /// otherwise and the data is in cache (chosen by measurement, PERF.md):
    /// two packs side by side for every type.
    const FK: FkMode;

    /// How it runs over a working set beyond this machine's threshold
    /// ([`crate::batch::fk::walk_for`]): one pack at a time; by default the
    /// parents read back from the output, for [`PosRotx8`] and
    /// [`PosRotSclx8`] kept in registers (their one-pack loops do not
    /// spill). PERF.md, "FK streaming: the walk by working set".
    const FK_STREAM: FkMode = FkMode {
        walk: Walk::Memory,
        pairs: false,
    };

    /// Lane `i` holds `e[i]`.
    fn from_array(e: [Self::Elem; 8]) -> Self;

    /// The eight lanes.
    fn to_array(self) -> [Self::Elem; 8];

    /// [`Joint::from_kform`] per lane.
    fn from_kform(k: &Kformx8) -> Self;

    /// [`Joint::to_kform`] per lane.
    fn to_kform(&self) -> Kformx8;

    /// [`Joint::mul`] per lane.
    fn mul(v: &Self, w: &Self) -> Self;

    /// `*out = mul(v, w)`, written the way that keeps the fewest values
    /// live (for [`Kformx8`], field by field as each is known).
    #[inline(always)]
    fn mul_into(out: &mut Self, v: &Self, w: &Self) {
        *out = Self::mul(v, w);
    }

    /// [`Joint::div`] per lane.
    fn div(v: &Self, w: &Self) -> Self;

    /// [`Joint::inv`] per lane.
    #[inline(always)]
    fn inv(v: &Self) -> Self {
        Self::div(v, &Self::IDENTITY)
    }

    /// `*out = *v`, field by field (a whole-struct copy of a few hundred
    /// bytes can compile to a `memcpy` call).
    fn copy(out: &mut Self, v: &Self);
}

/// The Hamilton product `q p` ([`quat_mul`]) with each component summed as
/// two pairs, `(a + b) + (c + d)`, rather than as one chain of four: the
/// same 8 multiplies and 8 multiply-adds plus 4 adds, but `q` reaches the
/// result through a multiply, a multiply-add and an add (about 10 cycles)
/// instead of a multiply and three multiply-adds (about 15). Down a chain
/// each joint's rotation waits for its parent's, so this is the latency
/// forward kinematics pays per joint. Measured (PERF.md) 2 to 7% faster
/// for [`PosRotx8`], whose step is short enough for the latency to show,
/// and 5 to 10% slower for [`Motionx8`] (more values live, more spills),
/// so only [`PosRotx8`] uses it.
#[inline(always)]
fn quat_mul_pairs(q: Quatx8, p: Quatx8) -> Quatx8 {
    Quatx8::new(
        q.w.mul_sub(p.w, q.x * p.x) - q.y.mul_add(p.y, q.z * p.z),
        q.w.mul_add(p.x, q.x * p.w) + q.y.mul_sub(p.z, q.z * p.y),
        q.w.mul_add(p.y, q.y * p.w) + q.z.mul_sub(p.x, q.x * p.z),
        q.w.mul_add(p.z, q.z * p.w) + q.x.mul_sub(p.y, q.y * p.x),
    )
}

macro_rules! lanes_of {
    ($t:ident, $elem:ident, $($f:ident: $ft:ident),+) => {
        impl $t {
            /// The same value in every lane.
            pub const fn splat(e: $elem) -> $t {
                $t { $($f: $ft::splat(e.$f)),+ }
            }

            /// Lane `i` holds `e[i]`.
            pub fn from_array(e: [$elem; 8]) -> $t {
                $t { $($f: $ft::from_array(e.map(|e| e.$f))),+ }
            }

            /// The eight lanes.
            pub fn to_array(self) -> [$elem; 8] {
                $(let $f = self.$f.to_array();)+
                core::array::from_fn(|i| $elem { $($f: $f[i]),+ })
            }

            /// Lane `i` (panics when `i >= 8`).
            pub fn lane(self, i: usize) -> $elem {
                self.to_array()[i]
            }
        }

        impl Default for $t {
            fn default() -> $t {
                <$t as Jointx8>::IDENTITY
            }
        }
    };
}

lanes_of!(PosRotx8, PosRot, pos: Vec3x8, rot: Quatx8);
lanes_of!(PosRotSclx8, PosRotScl, pos: Vec3x8, rot: Quatx8, scl: Vec3x8);
lanes_of!(Motionx8, Motion, pos: Vec3x8, rot: Quatx8, vel: Vec3x8, ang: Vec3x8);

impl Jointx8 for PosRotx8 {
    type Elem = PosRot;
    const IDENTITY: PosRotx8 = PosRotx8::splat(PosRot::IDENTITY);
    const FK: FkMode = FkMode {
        walk: Walk::Memory,
        pairs: true,
    };
    /// One pack, the parent in registers: a 59-instruction loop without
    /// spills, the fastest one-pack walk for this type in cache and
    /// streaming (PERF.md).
    const FK_STREAM: FkMode = FkMode {
        walk: Walk::Registers,
        pairs: false,
    };

    fn from_array(e: [PosRot; 8]) -> PosRotx8 {
        PosRotx8::from_array(e)
    }

    fn to_array(self) -> [PosRot; 8] {
        PosRotx8::to_array(self)
    }

    #[inline(always)]
    fn from_kform(k: &Kformx8) -> PosRotx8 {
        PosRotx8 {
            pos: k.pos,
            rot: k.rot,
        }
    }

    #[inline(always)]
    fn to_kform(&self) -> Kformx8 {
        Kformx8 {
            pos: self.pos,
            rot: self.rot,
            ..Kformx8::IDENTITY
        }
    }

    /// `pos = R(w.pos) + v.pos`, `rot = v.rot w.rot`: 31 multiplies or
    /// multiply-adds, 6 adds.
    #[inline(always)]
    fn mul(v: &PosRotx8, w: &PosRotx8) -> PosRotx8 {
        let r = Rotor::new(v.rot);
        PosRotx8 {
            pos: r.apply(w.pos) + v.pos,
            rot: quat_mul_pairs(v.rot, w.rot),
        }
    }

    /// `pos = R⁻¹(w.pos - v.pos)`, `rot = v.rot⁻¹ w.rot`.
    #[inline(always)]
    fn div(v: &PosRotx8, w: &PosRotx8) -> PosRotx8 {
        let inv = quat_inv(v.rot);
        PosRotx8 {
            pos: Rotor::new(inv).apply(w.pos - v.pos),
            rot: quat_mul(inv, w.rot),
        }
    }

    #[inline(always)]
    fn copy(out: &mut PosRotx8, v: &PosRotx8) {
        out.pos = v.pos;
        out.rot = v.rot;
    }
}

impl Jointx8 for PosRotSclx8 {
    type Elem = PosRotScl;
    const IDENTITY: PosRotSclx8 = PosRotSclx8::splat(PosRotScl::IDENTITY);
    const FK: FkMode = FkMode {
        walk: Walk::Memory,
        pairs: true,
    };
    /// One pack, the parent in registers (the faster one-pack walk for
    /// this type, PERF.md).
    const FK_STREAM: FkMode = FkMode {
        walk: Walk::Registers,
        pairs: false,
    };

    fn from_array(e: [PosRotScl; 8]) -> PosRotSclx8 {
        PosRotSclx8::from_array(e)
    }

    fn to_array(self) -> [PosRotScl; 8] {
        PosRotSclx8::to_array(self)
    }

    #[inline(always)]
    fn from_kform(k: &Kformx8) -> PosRotSclx8 {
        PosRotSclx8 {
            pos: k.pos,
            rot: k.rot,
            scl: k.scl,
        }
    }

    #[inline(always)]
    fn to_kform(&self) -> Kformx8 {
        Kformx8 {
            pos: self.pos,
            rot: self.rot,
            scl: self.scl,
            ..Kformx8::IDENTITY
        }
    }

    /// `pos = R(w.pos v.scl) + v.pos`, `rot = v.rot w.rot`,
    /// `scl = w.scl v.scl`: 37 multiplies or multiply-adds, 6 adds.
    #[inline(always)]
    fn mul(v: &PosRotSclx8, w: &PosRotSclx8) -> PosRotSclx8 {
        let r = Rotor::new(v.rot);
        PosRotSclx8 {
            pos: r.apply(w.pos * v.scl) + v.pos,
            rot: quat_mul(v.rot, w.rot),
            scl: w.scl * v.scl,
        }
    }

    /// [`Jointx8::mul`] stored field by field as each is known.
    #[inline(always)]
    fn mul_into(out: &mut PosRotSclx8, v: &PosRotSclx8, w: &PosRotSclx8) {
        out.rot = quat_mul(v.rot, w.rot);
        out.scl = w.scl * v.scl;
        out.pos = Rotor::new(v.rot).apply(w.pos * v.scl) + v.pos;
    }

    /// `pos = R⁻¹(w.pos - v.pos) / v.scl`, `rot = v.rot⁻¹ w.rot`,
    /// `scl = w.scl / v.scl`, dividing once per axis (`1 / v.scl`, a true
    /// division) and multiplying twice: within an ULP of the reference's
    /// two divisions, and half the divider's time, which is what BK of this
    /// type waits on.
    #[inline(always)]
    fn div(v: &PosRotSclx8, w: &PosRotSclx8) -> PosRotSclx8 {
        let inv = quat_inv(v.rot);
        let inv_scl = Vec3x8::ONE / v.scl;
        PosRotSclx8 {
            pos: Rotor::new(inv).apply(w.pos - v.pos) * inv_scl,
            rot: quat_mul(inv, w.rot),
            scl: w.scl * inv_scl,
        }
    }

    #[inline(always)]
    fn copy(out: &mut PosRotSclx8, v: &PosRotSclx8) {
        out.pos = v.pos;
        out.rot = v.rot;
        out.scl = v.scl;
    }
}

impl Jointx8 for Motionx8 {
    type Elem = Motion;
    const IDENTITY: Motionx8 = Motionx8::splat(Motion::IDENTITY);
    const FK: FkMode = FkMode {
        walk: Walk::Memory,
        pairs: true,
    };

    fn from_array(e: [Motion; 8]) -> Motionx8 {
        Motionx8::from_array(e)
    }

    fn to_array(self) -> [Motion; 8] {
        Motionx8::to_array(self)
    }

    #[inline(always)]
    fn from_kform(k: &Kformx8) -> Motionx8 {
        Motionx8 {
            pos: k.pos,
            rot: k.rot,
            vel: k.vel,
            ang: k.ang,
        }
    }

    #[inline(always)]
    fn to_kform(&self) -> Kformx8 {
        Kformx8 {
            pos: self.pos,
            rot: self.rot,
            vel: self.vel,
            ang: self.ang,
            ..Kformx8::IDENTITY
        }
    }

    /// `pos = R(w.pos) + v.pos`, `rot = v.rot w.rot`,
    /// `vel = (R(w.vel) + v.ang × R(w.pos)) + v.vel`,
    /// `ang = R(w.ang) + v.ang`: 67 multiplies or multiply-adds, 12 adds.
    #[inline(always)]
    fn mul(v: &Motionx8, w: &Motionx8) -> Motionx8 {
        let r = Rotor::new(v.rot);
        let lever = r.apply(w.pos);
        Motionx8 {
            pos: lever + v.pos,
            rot: quat_mul(v.rot, w.rot),
            vel: cross_add(v.ang, lever, r.apply(w.vel)) + v.vel,
            ang: r.apply(w.ang) + v.ang,
        }
    }

    /// [`Jointx8::mul`] stored field by field as each is known, the lever
    /// dying before the angular velocity is rotated.
    #[inline(always)]
    fn mul_into(out: &mut Motionx8, v: &Motionx8, w: &Motionx8) {
        out.rot = quat_mul(v.rot, w.rot);
        let r = Rotor::new(v.rot);
        let lever = r.apply(w.pos);
        out.pos = lever + v.pos;
        out.vel = cross_add(v.ang, lever, r.apply(w.vel)) + v.vel;
        out.ang = r.apply(w.ang) + v.ang;
    }

    /// `pos = R⁻¹(w.pos - v.pos)`, `rot = v.rot⁻¹ w.rot`,
    /// `vel = R⁻¹(w.vel - v.vel - v.ang × (w.pos - v.pos))`,
    /// `ang = R⁻¹(w.ang - v.ang)`.
    #[inline(always)]
    fn div(v: &Motionx8, w: &Motionx8) -> Motionx8 {
        let inv = quat_inv(v.rot);
        let r = Rotor::new(inv);
        let lever = w.pos - v.pos;
        Motionx8 {
            pos: r.apply(lever),
            rot: quat_mul(inv, w.rot),
            vel: r.apply(w.vel - v.vel - cross(v.ang, lever)),
            ang: r.apply(w.ang - v.ang),
        }
    }

    #[inline(always)]
    fn copy(out: &mut Motionx8, v: &Motionx8) {
        out.pos = v.pos;
        out.rot = v.rot;
        out.vel = v.vel;
        out.ang = v.ang;
    }
}

impl Jointx8 for Kformx8 {
    type Elem = Kform;
    const IDENTITY: Kformx8 = Kformx8::IDENTITY;
    const FK: FkMode = FkMode {
        walk: Walk::Memory,
        pairs: true,
    };

    fn from_array(e: [Kform; 8]) -> Kformx8 {
        Kformx8::from_array(e)
    }

    fn to_array(self) -> [Kform; 8] {
        Kformx8::to_array(self)
    }

    #[inline(always)]
    fn from_kform(k: &Kformx8) -> Kformx8 {
        *k
    }

    #[inline(always)]
    fn to_kform(&self) -> Kformx8 {
        *self
    }

    /// [`kform_mul`]: 79 multiplies or multiply-adds.
    #[inline(always)]
    fn mul(v: &Kformx8, w: &Kformx8) -> Kformx8 {
        kform_mul(*v, *w)
    }

    #[inline(always)]
    fn mul_into(out: &mut Kformx8, v: &Kformx8, w: &Kformx8) {
        kform_mul_into(out, v, w);
    }

    /// [`kform_div`].
    #[inline(always)]
    fn div(v: &Kformx8, w: &Kformx8) -> Kformx8 {
        kform_div(*v, *w)
    }

    #[inline(always)]
    fn copy(out: &mut Kformx8, v: &Kformx8) {
        out.pos = v.pos;
        out.rot = v.rot;
        out.scl = v.scl;
        out.vel = v.vel;
        out.ang = v.ang;
        out.svl = v.svl;
    }
}

/// Forward kinematics of one pack (eight characters, one `T` per joint),
/// joint by joint in `parents` order: [`crate::reference::op_fk_joints`]
/// per lane. Refuses, as the reference does and writing nothing, a pose
/// shorter than `parents` or a parent that does not precede its child.
pub fn op_fk_joints<T: Jointx8>(global: &mut [T], local: &[T], parents: &[i32]) -> Result<()> {
    check_joints(parents, &[global.len(), local.len()])?;
    for (i, (&p, l)) in parents.iter().zip(local).enumerate() {
        let (done, rest) = global.split_at_mut(i);
        match usize::try_from(p) {
            Ok(p) => T::mul_into(&mut rest[0], &done[p], l),
            Err(_) => T::copy(&mut rest[0], l),
        }
    }
    Ok(())
}

/// Backward kinematics of one pack: [`crate::reference::op_bk_joints`] per
/// lane, the exact inverse of [`op_fk_joints`]. Refuses like it.
pub fn op_bk_joints<T: Jointx8>(local: &mut [T], global: &[T], parents: &[i32]) -> Result<()> {
    check_joints(parents, &[global.len(), local.len()])?;
    bk_unchecked(local, global, parents);
    Ok(())
}

/// [`op_bk_joints`] without the hierarchy check (a bad index still panics).
#[inline(always)]
pub(crate) fn bk_unchecked<T: Jointx8>(local: &mut [T], global: &[T], parents: &[i32]) {
    for ((l, g), &p) in local.iter_mut().zip(global).zip(parents) {
        match usize::try_from(p) {
            Ok(p) => *l = T::div(&global[p], g),
            Err(_) => T::copy(l, g),
        }
    }
}
