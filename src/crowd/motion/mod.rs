//! The per-joint math of a pack's passes: a joint's motion in lanes
//! ([`Motionx8`]), sampling a database row, blending, the inertialization
//! offset and its decay, dead blending, and the forward kinematics step.
//! Each is the reference's math ([`crate::reference`]) written for eight
//! characters with the work its callers share done once.

use crate::crowd::place::Placex8;
use crate::database::Database;
use crate::lanes::{self, F32x8, Quatx8, Rotor, Vec3x8};

/// Position, rotation and their velocities of one joint of eight characters:
/// a kineform without scale (the 8-lane crowd plays unit-scale clips). Also
/// the crowd's world-space output.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
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

impl Motionx8 {
    /// At rest: zero position and velocities, identity rotation.
    pub const REST: Motionx8 = Motionx8 {
        pos: Vec3x8::ZERO,
        rot: Quatx8::IDENTITY,
        vel: Vec3x8::ZERO,
        ang: Vec3x8::ZERO,
    };
}

/// A crowd's world output read by [`crate::output`]'s copies and
/// [`crate::skinning`] (unit scale).
impl crate::output::JointLanes for Motionx8 {
    #[inline(always)]
    fn positions(&self) -> Vec3x8 {
        self.pos
    }
    #[inline(always)]
    fn rotations(&self) -> Quatx8 {
        self.rot
    }
}

/// The rotational half of an inertialization offset of one joint of eight
/// characters: the rotation as a half-angle vector (logged once, at the
/// transition) and the angular velocity. Kept for every joint.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct TurnOffsetx8 {
    pub(crate) rot: Vec3x8,
    pub(crate) ang: Vec3x8,
}

/// The positional half of an inertialization offset: kept only for joints
/// whose position moves. Every other joint's offset is [`ShiftOffsetx8::ZERO`],
/// its local position being the same in every pose.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct ShiftOffsetx8 {
    pub(crate) pos: Vec3x8,
    pub(crate) vel: Vec3x8,
}

impl ShiftOffsetx8 {
    pub(crate) const ZERO: ShiftOffsetx8 = ShiftOffsetx8 {
        pos: Vec3x8::ZERO,
        vel: Vec3x8::ZERO,
    };
}

/// A world-space inertialization offset of one joint of eight characters
/// (level of detail, [`crate::crowd::schedule`]): the gap between the pose
/// they would have shown carried and the evaluated one, rotation and
/// position.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct LodOffsetx8 {
    pub(crate) turn: TurnOffsetx8,
    pub(crate) shift: ShiftOffsetx8,
}

impl LodOffsetx8 {
    pub(crate) const ZERO: LodOffsetx8 = LodOffsetx8 {
        turn: TurnOffsetx8::ZERO,
        shift: ShiftOffsetx8::ZERO,
    };
}

/// The root motion a pack took out of its poses (root motion extraction)
/// and where its sources' clips stand: the clips' root's place on the
/// ground and heading last step (in the sources' places' frame), this
/// step's world displacement, velocity, turn and turn rate
/// ([`crate::crowd::RootDelta`]), and the places of sources A and B
/// ([`crate::crowd::place`], kept under both root motions).
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct RootMotionx8 {
    pub(crate) removed_pos: Vec3x8,
    pub(crate) removed_rot: Quatx8,
    pub(crate) displacement: Vec3x8,
    pub(crate) velocity: Vec3x8,
    pub(crate) turn: F32x8,
    pub(crate) turn_rate: F32x8,
    pub(crate) places: [Placex8; 2],
}

impl RootMotionx8 {
    /// The eight lanes' displacement, velocity, turn and turn rate, one
    /// [`crate::crowd::RootDelta`] a lane.
    #[inline]
    pub(crate) fn deltas(&self) -> [crate::crowd::RootDelta; 8] {
        let (d, v) = (self.displacement.to_array(), self.velocity.to_array());
        let (t, r) = (self.turn.to_array(), self.turn_rate.to_array());
        core::array::from_fn(|l| crate::crowd::RootDelta {
            displacement: d[l],
            velocity: v[l],
            turn: t[l],
            turn_rate: r[l],
        })
    }

    /// Nothing taken out yet, both sources at their clips' own place.
    pub(crate) const REST: RootMotionx8 = RootMotionx8 {
        removed_pos: Vec3x8::ZERO,
        removed_rot: Quatx8::IDENTITY,
        displacement: Vec3x8::ZERO,
        velocity: Vec3x8::ZERO,
        turn: F32x8::ZERO,
        turn_rate: F32x8::ZERO,
        places: [Placex8::IDENTITY; 2],
    };
}

/// What a crowd joint's local pose does over the clips, which decides the
/// work its passes do and the state it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Track {
    /// Position and rotation the same in every frame of every clip
    /// ([`Database::still_rotation`]; 8 of the embedded clip's 31 joints):
    /// sampling, blending and transitions all give that pose with zero
    /// velocities, as the reference computes them exactly, so the scratch
    /// poses hold it from the start and only FK reads it. Also joint 0,
    /// the world root, which is set per pack.
    Still,
    /// A fixed position and an animated rotation: its row among a pack's
    /// turn offsets.
    Turns(usize),
    /// Animated position and rotation: its rows among the turn and the
    /// shift offsets.
    Moves(usize, usize),
}

impl TurnOffsetx8 {
    pub(crate) const ZERO: TurnOffsetx8 = TurnOffsetx8 {
        rot: Vec3x8::ZERO,
        ang: Vec3x8::ZERO,
    };
}

impl Track {
    /// Per crowd joint (joint 0 the world root), from the database.
    /// Turn offsets follow the database's rotation rows.
    pub(crate) fn of(db: &Database) -> Vec<Track> {
        core::iter::once(Track::Still)
            .chain(
                (0..db.joints()).map(|j| match (db.turning_row(j), db.moving_row(j)) {
                    (None, _) => Track::Still,
                    (Some(k), None) => Track::Turns(k),
                    (Some(k), Some(s)) => Track::Moves(k, s),
                }),
            )
            .collect()
    }
}

mod blend;
mod sample;
mod transition;

pub(crate) use blend::*;
pub(crate) use sample::*;
pub(crate) use transition::*;

#[inline(always)]
pub(crate) fn select_motion(m: F32x8, a: &Motionx8, b: &Motionx8) -> Motionx8 {
    Motionx8 {
        pos: m.select(a.pos, b.pos),
        rot: m.select(a.rot, b.rot),
        vel: m.select(a.vel, b.vel),
        ang: m.select(a.ang, b.ang),
    }
}

/// `state = mask ? new : state`, for the state kept across frames. A
/// bitwise select (and, and-not, or) rather than a blend: LLVM turns a
/// blend stored back where it was loaded from into masked stores
/// (`vmaskmovps`), which are microcoded and many times slower than a store
/// on AMD Zen; with the mask opaque (see [`mask`]) it cannot here.
#[inline(always)]
pub(crate) fn update_turn(m: F32x8, new: &TurnOffsetx8, state: &mut TurnOffsetx8) {
    *state = TurnOffsetx8 {
        rot: bitselect_vec3(m, new.rot, state.rot),
        ang: bitselect_vec3(m, new.ang, state.ang),
    };
}

/// [`update_turn`] for a [`ShiftOffsetx8`].
#[inline(always)]
pub(crate) fn update_shift(m: F32x8, new: &ShiftOffsetx8, state: &mut ShiftOffsetx8) {
    *state = ShiftOffsetx8 {
        pos: bitselect_vec3(m, new.pos, state.pos),
        vel: bitselect_vec3(m, new.vel, state.vel),
    };
}

/// [`update_turn`] for a [`Motionx8`].
#[inline(always)]
pub(crate) fn update_motion(m: F32x8, new: &Motionx8, state: &mut Motionx8) {
    let v = |n, o| bitselect_vec3(m, n, o);
    let mut rot = state.rot;
    update_quat(m, &new.rot, &mut rot);
    *state = Motionx8 {
        pos: v(new.pos, state.pos),
        rot,
        vel: v(new.vel, state.vel),
        ang: v(new.ang, state.ang),
    };
}

/// [`update_turn`] for a [`Quatx8`].
#[inline(always)]
pub(crate) fn update_quat(m: F32x8, new: &Quatx8, state: &mut Quatx8) {
    let (n, o) = (new, *state);
    *state = Quatx8::new(
        m.bitselect(n.w, o.w),
        m.bitselect(n.x, o.x),
        m.bitselect(n.y, o.y),
        m.bitselect(n.z, o.z),
    );
}

/// `m ? n : o` per component, bitwise (see [`update_turn`]).
#[inline(always)]
pub(crate) fn bitselect_vec3(m: F32x8, n: Vec3x8, o: Vec3x8) -> Vec3x8 {
    Vec3x8::new(
        m.bitselect(n.x, o.x),
        m.bitselect(n.y, o.y),
        m.bitselect(n.z, o.z),
    )
}

/// Forward kinematics step at unit scale ([`lanes::kform_mul`] without
/// the scale terms): `pos = R l.pos + p.pos`, `rot = p.rot l.rot`,
/// `vel = R l.vel + ω_p × (R l.pos) + v_p`, `ang = R l.ang + ω_p`. `VEL` and
/// `ANG` say whether the local velocity and angular velocity can be
/// non-zero: a joint with a fixed position has no local velocity, a still
/// joint no angular velocity either, and their terms are left out (exactly:
/// rotating a zero vector gives zero).
#[inline(always)]
pub(crate) fn motion_mul<const VEL: bool, const ANG: bool>(p: &Motionx8, l: &Motionx8) -> Motionx8 {
    let r = Rotor::new(p.rot);
    let lever = r.apply(l.pos);
    let carried = lanes::cross_add(p.ang, lever, p.vel);
    Motionx8 {
        pos: lever + p.pos,
        rot: lanes::quat_mul(p.rot, l.rot),
        vel: if VEL {
            r.apply_add(l.vel, carried)
        } else {
            carried
        },
        ang: if ANG {
            r.apply_add(l.ang, p.ang)
        } else {
            p.ang
        },
    }
}

/// `*o = m` for a joint whose local position is fixed: only the rotation and
/// angular velocity are stored. Every local pose of such a joint holds the
/// fixed position and zero velocity from the start ([`PackScratch::try_new`](super::passes::PackScratch::try_new)),
/// which is what `m.pos` and `m.vel` would be, and the compiler drops the
/// arithmetic behind them.
#[inline(always)]
pub(crate) fn put_turn(o: &mut Motionx8, m: Motionx8) {
    o.rot = m.rot;
    o.ang = m.ang;
}

/// `*o = *m` field by field: a whole 416-byte row copied from memory at
/// once compiles to a call to `memcpy` (64 instructions a row on the
/// crowd's hot paths: the root row in forward kinematics, the new anchors
/// in `lod_world`).
#[inline(always)]
pub(crate) fn put_motion(o: &mut Motionx8, m: &Motionx8) {
    (o.pos, o.rot, o.vel, o.ang) = (m.pos, m.rot, m.vel, m.ang);
}

/// A lane mask from eight flags, opaque to the optimizer so that the
/// bitwise selects of [`update_turn`] stay bitwise.
pub(crate) fn mask(b: [bool; 8]) -> F32x8 {
    opaque(F32x8::new(
        b.map(|b| if b { f32::from_bits(u32::MAX) } else { 0.0 }),
    ))
}

/// `m`, opaque to the optimizer (see [`mask`]).
pub(crate) fn opaque(m: F32x8) -> F32x8 {
    std::hint::black_box(m)
}

/// Copies lane `from` of `src` into lane `to` of `dst`, two 8-lane
/// structures of `f32` lanes (component `c` of lane `l` at `8c + l`).
#[inline(always)]
pub(crate) fn copy_lane<T: bytemuck::Pod>(dst: &mut T, to: usize, src: &T, from: usize) {
    let d: &mut [f32] = bytemuck::cast_slice_mut(core::slice::from_mut(dst));
    let s: &[f32] = bytemuck::cast_slice(core::slice::from_ref(src));
    for (d, s) in d.chunks_exact_mut(8).zip(s.chunks_exact(8)) {
        d[to & 7] = s[from & 7];
    }
}
