//! Root motion extraction, the pass after the local pose is final (after
//! inertialization or dead blending, before forward kinematics) where the
//! crowd extracts it ([`crate::crowd::RootMotion::Extract`]): the clips'
//! root joint's place on the ground and heading taken out of the pose,
//! and what a pack took out ([`RootMotionx8`]), kept across frames and
//! reported to the game.

use crate::crowd::motion::{Motionx8, RootMotionx8, mask};
use crate::crowd::place::ground_x8;
use crate::lanes::{self, F32x8, Rotor, Vec3x8};

/// Takes the clips' root joint's place on the ground and its heading (the
/// twist of its rotation about `up`, [`lanes::quat_twist`]) out of its
/// local pose `m`, keeping its height and its swing: position and
/// velocity along `up` only, rotation `twist⁻¹ q`, angular velocity
/// `twist⁻¹ ω - ψ̇ up` with `ψ̇` the twist angle's rate
/// ([`lanes::twist_rate`]), so that the pose's velocities stay the
/// derivatives of what is left. Reports in the world what was taken out:
/// the displacement since the last step and the velocity, measured in the
/// heading taken out last step and turned by the character's root
/// rotation; the turn since the last step and the twist's rate. Where the
/// sources changed at once this step (`jumped`, by a command, or the
/// crowd's `first` step) the velocities times `dt` are reported instead
/// (a change that is not travel), measured in this step's heading.
#[inline(always)]
pub(super) fn extract_root(
    m: &mut Motionx8,
    root: &Motionx8,
    out: &mut RootMotionx8,
    (jumped, first): (u8, bool),
    (dt, up): (F32x8, Vec3x8),
) {
    let twist = lanes::quat_twist(m.rot, up);
    let rate = lanes::twist_rate(m.rot, m.ang, up);
    let (place, vel) = (ground_x8(m.pos, up), ground_x8(m.vel, up));
    let untwist = lanes::quat_inv(twist);
    m.pos -= place;
    m.vel -= vel;
    m.rot = lanes::quat_mul(untwist, m.rot);
    m.ang = Rotor::new(untwist).apply(m.ang) - up * rate;
    let jump = if first {
        mask([true; 8])
    } else {
        mask(core::array::from_fn(|l| jumped & (1 << l) != 0))
    };
    let from = jump.select(twist, out.removed_rot);
    let to_world = Rotor::new(lanes::quat_mul(root.rot, lanes::quat_inv(from)));
    let vel = to_world.apply(vel);
    let moved = to_world.apply(place - out.removed_pos);
    let turned = lanes::twist_angle(lanes::quat_mul(lanes::quat_inv(from), twist), up);
    out.displacement = Vec3x8::new(
        jump.select(vel.x * dt, moved.x),
        jump.select(vel.y * dt, moved.y),
        jump.select(vel.z * dt, moved.z),
    );
    out.velocity = vel;
    out.turn = jump.select(rate * dt, turned);
    out.turn_rate = rate;
    out.removed_pos = place;
    out.removed_rot = twist;
}

/// The shown root `s` moved and turned onto the place of the new input's
/// root `to` (on the ground and about `up`), rigidly: `(T_to T_s⁻¹) s`
/// with `T` the twists, its position's ground part `to`'s; its height,
/// swing and velocities kept relative to its place.
#[inline(always)]
pub(super) fn onto_place(s: &Motionx8, to: &Motionx8, up: Vec3x8) -> Motionx8 {
    let turn = lanes::quat_mul(
        lanes::quat_twist(to.rot, up),
        lanes::quat_inv(lanes::quat_twist(s.rot, up)),
    );
    let r = Rotor::new(turn);
    Motionx8 {
        pos: s.pos - ground_x8(s.pos, up) + ground_x8(to.pos, up),
        rot: lanes::quat_mul(turn, s.rot),
        vel: r.apply(s.vel),
        ang: r.apply(s.ang),
    }
}
