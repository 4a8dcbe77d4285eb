//! The last pass of a pack's frame: forward kinematics of the local pose
//! from the character's root straight into the world output, with the
//! velocity check against the previous frame's ([`crate::crowd::check`]).

use crate::crowd::check::{PackCheck, write_world};
use crate::crowd::motion::{Motionx8, Track, motion_mul};
use crate::lanes::{F32x8, splat};

/// Forward kinematics of a pack's `local` pose straight into its `world`
/// output (parents first), each joint checked against the previous frame's
/// by [`write_world`] when `CHECK`. Joint 0 is `root` (`local[0]` is not
/// read).
#[inline(never)]
pub(super) fn fk_pass<const CHECK: bool>(
    world: &mut [Motionx8],
    (root, local): (&Motionx8, &[Motionx8]),
    (parents, tracks): (&[i32], &[Track]),
    first: bool,
    half_dt: F32x8,
) -> PackCheck {
    let mut check = PackCheck::EMPTY;
    let skip = first || !CHECK;
    write_world(
        &mut world[0],
        root,
        (F32x8::ZERO, skip),
        half_dt,
        &mut check,
    );
    for j in 1..local.len() {
        let (done, rest) = world.split_at_mut(j);
        let (p, l) = (&done[parents[j] as usize], &local[j]);
        let g = match tracks[j] {
            Track::Moves(..) => motion_mul::<true, true>(p, l),
            Track::Turns(_) => motion_mul::<false, true>(p, l),
            Track::Still => motion_mul::<false, false>(p, l),
        };
        write_world(
            &mut rest[0],
            &g,
            (splat(j as f32), skip),
            half_dt,
            &mut check,
        );
    }
    check
}
