//! Root motion extraction, the pass after the local pose is final (after
//! inertialization or dead blending, before forward kinematics) where the
//! crowd extracts it ([`crate::crowd::RootMotion::Extract`]): the clips'
//! horizontal root translation taken out of the pose, and what a pack
//! took out ([`RootMotionx8`]), kept across frames and reported to the
//! game.

use crate::crowd::motion::{Motionx8, RootMotionx8, mask};
use crate::lanes::{F32x8, Rotor, Vec3x8};

/// Takes the clips' root joint's horizontal translation out of its local
/// pose `m` (position and velocity x and z; its height stays), and reports
/// it in the world: the velocity turned by the character's root rotation,
/// the displacement as the change of what was taken out since the last
/// step, turned the same way (its velocity times `dt` where the sources
/// changed at once this step, by a command or a wrap around a clip: a
/// change that is not travel).
#[inline(always)]
pub(super) fn extract_root(
    m: &mut Motionx8,
    root: &Motionx8,
    out: &mut RootMotionx8,
    (jumped, first): (u8, bool),
    dt: F32x8,
) {
    let (x, z, vx, vz) = (m.pos.x, m.pos.z, m.vel.x, m.vel.z);
    m.pos.x = F32x8::ZERO;
    m.pos.z = F32x8::ZERO;
    m.vel.x = F32x8::ZERO;
    m.vel.z = F32x8::ZERO;
    let r = Rotor::new(root.rot);
    let vel = r.apply(Vec3x8::new(vx, F32x8::ZERO, vz));
    let moved = r.apply(Vec3x8::new(
        x - out.removed_x,
        F32x8::ZERO,
        z - out.removed_z,
    ));
    let jump = if first {
        mask([true; 8])
    } else {
        mask(core::array::from_fn(|l| jumped & (1 << l) != 0))
    };
    out.displacement = Vec3x8::new(
        jump.select(vel.x * dt, moved.x),
        jump.select(vel.y * dt, moved.y),
        jump.select(vel.z * dt, moved.z),
    );
    out.velocity = vel;
    out.removed_x = x;
    out.removed_z = z;
}
