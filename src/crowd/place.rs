//! Where a source's clip stands on the ground: a [`Place`], a turn about
//! the crowd's up axis and a shift along the ground, applied to the
//! clips' root joint as the source is sampled. A looping source's place
//! moves on by its clip's net motion over a loop (its root's place and
//! heading at the last frame relative to the first, [`ClipRows::net`]) at
//! each wrap, and back at each wrap backwards, so that a clip that
//! travels keeps travelling across its seam instead of jumping back
//! ([`super::RootMotion`]); [`Command::Play`](super::Command::Play) and
//! [`Command::Transition`](super::Command::Transition) put their sources
//! back at their clips' own place. Kept per pack in lanes
//! ([`Placex8`], in [`super::motion::RootMotionx8`]), per character in the
//! reference crowd ([`Place`]).

use super::motion::Motionx8;
use super::state::{ClipRows, Spanx8};
use crate::database::Database;
use crate::error::{Error, Result};
use crate::lanes::{self, F32x8, I32x8, Quatx8, Rotor, Vec3x8};
use crate::reference::{self as r, Kform, Quat, Vec3};

/// The crowd's up axis ([`super::CrowdConfig::up`]): +y or +z.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Up {
    Y,
    Z,
}

impl Up {
    /// `(0, 1, 0)` or `(0, 0, 1)`; anything else is refused, naming the
    /// first component that differs from both.
    pub(crate) fn of(v: Vec3) -> Result<Up> {
        match (v.x, v.y, v.z) {
            (0.0, 1.0, 0.0) => Ok(Up::Y),
            (0.0, 0.0, 1.0) => Ok(Up::Z),
            _ => {
                let reason = "up must be (0, 1, 0) or (0, 0, 1)";
                let (name, value) = match (v.x != 0.0, v.z == 1.0) {
                    (true, _) => ("up x", v.x),
                    (false, true) => ("up y", v.y),
                    (false, false) => ("up z", v.z),
                };
                Err(Error::Parameter {
                    name,
                    value,
                    reason,
                })
            }
        }
    }

    /// The axis.
    pub(crate) fn vec(self) -> Vec3 {
        match self {
            Up::Y => Vec3::new(0.0, 1.0, 0.0),
            Up::Z => Vec3::new(0.0, 0.0, 1.0),
        }
    }

    /// `v` on the ground: its component along the axis zeroed.
    pub(crate) fn ground(self, v: Vec3) -> Vec3 {
        match self {
            Up::Y => Vec3::new(v.x, 0.0, v.z),
            Up::Z => Vec3::new(v.x, v.y, 0.0),
        }
    }
}

/// `v` on the ground per lane (`up` one of the axes): `v - up (v·up)`.
#[inline(always)]
pub(crate) fn ground_x8(v: Vec3x8, up: Vec3x8) -> Vec3x8 {
    v - up * lanes::dot(v, up)
}

/// A turn about the up axis (`rot`, a twist) and a shift along the ground
/// (`pos`, nothing along up): `x ↦ rot x + pos`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Place {
    pub rot: Quat,
    pub pos: Vec3,
}

impl Place {
    pub(crate) const IDENTITY: Place = Place {
        rot: Quat::IDENTITY,
        pos: Vec3::ZERO,
    };

    /// A root joint's place: the twist of its rotation about `up`
    /// ([`r::quat_twist`]) and its position on the ground.
    pub(crate) fn of_root(pos: Vec3, rot: Quat, up: Up) -> Place {
        Place {
            rot: r::quat_twist(rot, up.vec()),
            pos: up.ground(pos),
        }
    }

    /// `self ∘ b`: `b` first.
    pub(crate) fn then(self, b: Place) -> Place {
        Place {
            rot: r::quat_normalize(r::quat_mul(self.rot, b.rot)),
            pos: r::quat_mul_vec3(self.rot, b.pos) + self.pos,
        }
    }

    /// The inverse: `x ↦ rot⁻¹ (x - pos)`.
    pub(crate) fn inverse(self) -> Place {
        let rot = r::quat_inv(self.rot);
        Place {
            rot,
            pos: -r::quat_mul_vec3(rot, self.pos),
        }
    }

    /// `self` composed `n` times (the inverse's for `n < 0`), by squaring
    /// (the base squared only while bits remain: a wrap's one lap is one
    /// composition, not two).
    pub(crate) fn pow(self, n: i64) -> Place {
        let (mut base, mut k) = match n < 0 {
            true => (self.inverse(), n.unsigned_abs()),
            false => (self, n as u64),
        };
        let mut acc = Place::IDENTITY;
        while k > 0 {
            if k & 1 == 1 {
                acc = acc.then(base);
            }
            k >>= 1;
            if k > 0 {
                base = base.then(base);
            }
        }
        acc
    }

    /// A joint's motion `k` moved by the place: position, rotation and
    /// both velocities turned, the position shifted.
    pub(crate) fn apply(self, k: &Kform) -> Kform {
        Kform {
            pos: r::quat_mul_vec3(self.rot, k.pos) + self.pos,
            rot: r::quat_mul(self.rot, k.rot),
            vel: r::quat_mul_vec3(self.rot, k.vel),
            ang: r::quat_mul_vec3(self.rot, k.ang),
            ..*k
        }
    }
}

/// The net motion of a loop of the clip at database frames `start ..=
/// start + last`: the place of its root joint (clip joint 0) at the last
/// frame relative to the first's, `G(last) ∘ G(0)⁻¹` (identity for a clip
/// of one frame), as sampling reads the frames (decoded where compact).
pub(crate) fn loop_net(db: &Database, start: usize, last: usize, up: Up) -> Place {
    let at = |f| {
        db.frame_joint(f, 0)
            .map_or(Place::IDENTITY, |(p, q)| Place::of_root(p, q, up))
    };
    at(start + last).then(at(start).inverse())
}

/// [`Place`] in lanes.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Placex8 {
    pub(crate) rot: Quatx8,
    pub(crate) pos: Vec3x8,
}

impl Placex8 {
    pub(crate) const IDENTITY: Placex8 = Placex8 {
        rot: Quatx8::IDENTITY,
        pos: Vec3x8::ZERO,
    };

    /// [`Place::apply`] per lane.
    #[inline(always)]
    pub(crate) fn apply(&self, m: &Motionx8) -> Motionx8 {
        let r = Rotor::new(self.rot);
        Motionx8 {
            pos: r.apply(m.pos) + self.pos,
            rot: lanes::quat_mul(self.rot, m.rot),
            vel: r.apply(m.vel),
            ang: r.apply(m.ang),
        }
    }

    /// Lane `l`.
    pub(crate) fn lane(&self, l: usize) -> Place {
        Place {
            rot: self.rot.lane(l),
            pos: self.pos.lane(l),
        }
    }

    /// Lane `l` set to `p`.
    pub(crate) fn set_lane(&mut self, l: usize, p: Place) {
        let f = bytemuck::cast_mut::<Placex8, [[f32; 8]; 7]>(self);
        let v = [
            p.rot.w, p.rot.x, p.rot.y, p.rot.z, p.pos.x, p.pos.y, p.pos.z,
        ];
        for (field, v) in f.iter_mut().zip(v) {
            field[l & 7] = v;
        }
    }
}

/// Sources A's and B's places moved on by the laps their advance wrapped
/// (`spans`, [`Spanx8::laps`]): `place ∘ net^laps` with the net of the
/// source's clip (`clips`, indices into `rows`). Lanes that did not wrap
/// are left as they are.
pub(crate) fn wrap_places(
    places: &mut [Placex8; 2],
    spans: &[Spanx8; 2],
    clips: [I32x8; 2],
    rows: &[ClipRows],
) {
    for ((place, span), clip) in places.iter_mut().zip(spans).zip(clips) {
        // Most packs wrap nowhere: one comparison of the lanes finds it.
        if span.laps.simd_eq(F32x8::ZERO).all() {
            continue;
        }
        let laps = span.laps.to_array();
        let clip = clip.to_array();
        for l in (0..8).filter(|&l| laps[l] != 0.0) {
            let net = rows[clip[l] as usize].net;
            place.set_lane(l, place.lane(l).then(net.pow(laps[l] as i64)));
        }
    }
}

/// Places of the lanes in `reset` back at their clips' own place.
pub(crate) fn reset_places(places: &mut [Placex8; 2], reset: u8) {
    if reset == 0 {
        return;
    }
    for p in places.iter_mut() {
        for l in (0..8).filter(|&l| reset & (1 << l) != 0) {
            p.set_lane(l, Place::IDENTITY);
        }
    }
}

/// [`wrap_places`] for one character of the reference crowd (lane `l`).
pub(crate) fn wrap_place(
    places: &mut [Place; 2],
    spans: &[Spanx8; 2],
    clips: [usize; 2],
    rows: &[ClipRows],
    l: usize,
) {
    for ((place, span), clip) in places.iter_mut().zip(spans).zip(clips) {
        let laps = span.laps.to_array()[l & 7];
        if laps != 0.0 {
            *place = place.then(rows[clip].net.pow(laps as i64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::{Quat, Vec3};

    /// `pow(n)` is `n` compositions (of the inverse for `n < 0`), to
    /// rounding, and `pow(1)` is one composition with the identity, bit
    /// for bit (a wrap's lap). Mutation: squaring the base before
    /// composing gives `self²` for `n = 1`.
    #[test]
    fn pow_composes_n_times() {
        let rot = crate::reference::quat_normalize(Quat::new(0.9, 0.1, -0.3, 0.2));
        let p = Place {
            rot,
            pos: Vec3::new(1.5, -0.25, 3.0),
        };
        let bits = |q: Place| {
            [
                q.rot.w, q.rot.x, q.rot.y, q.rot.z, q.pos.x, q.pos.y, q.pos.z,
            ]
            .map(f32::to_bits)
        };
        assert_eq!(bits(p.pow(1)), bits(Place::IDENTITY.then(p)));
        for n in -6i64..=9 {
            let step = if n < 0 { p.inverse() } else { p };
            let mut want = Place::IDENTITY;
            for _ in 0..n.unsigned_abs() {
                want = want.then(step);
            }
            let got = p.pow(n);
            let d = |a: f32, b: f32| (a - b).abs();
            let rot = [
                d(got.rot.w, want.rot.w),
                d(got.rot.x, want.rot.x),
                d(got.rot.y, want.rot.y),
                d(got.rot.z, want.rot.z),
            ];
            let pos = [
                d(got.pos.x, want.pos.x),
                d(got.pos.y, want.pos.y),
                d(got.pos.z, want.pos.z),
            ];
            assert!(rot.iter().all(|&e| e < 1e-5), "{n}: {rot:?}");
            assert!(pos.iter().all(|&e| e < 1e-4), "{n}: {pos:?}");
        }
    }
}
