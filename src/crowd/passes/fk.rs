//! The last pass of a pack's frame: forward kinematics of the local pose
//! from the character's root straight into the world output, with the
//! velocity check against the previous frame's ([`crate::crowd::check`])
//! and the characters' bounding boxes ([`crate::crowd::bounds`]).

use crate::crowd::bounds::Aabbx8;
use crate::crowd::check::{PackCheck, write_world};
use crate::crowd::motion::{Motionx8, Track, motion_mul};
use crate::lanes::{F32x8, splat};

/// Forward kinematics of a pack's `local` pose straight into its `world`
/// output (parents first), each joint checked against the previous frame's
/// by [`write_world`] when `CHECK`; then the characters' `bounds` from
/// their clip joints' world positions, padded by their radii where
/// `radii` (one per crowd joint) are given ([`bounds_of`]; NaN where a
/// lane's output is not finite). Joint 0 is `root` (`local[0]` is not
/// read; it is not in the bounds).
#[inline(never)]
pub(super) fn fk_pass<const CHECK: bool>(
    (world, bounds): (&mut [Motionx8], &mut Aabbx8),
    (root, local): (&Motionx8, &[Motionx8]),
    (parents, tracks, radii): (&[i32], &[Track], Option<&[f32]>),
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
    *bounds = pack_bounds(world, radii, &check);
    check
}

/// The finished box of a pack whose world output `world` was just
/// written ([`bounds_of`], padded by `radii` where given), NaN in the lanes
/// `check` found not finite ([`Aabbx8::finished`]).
#[inline(always)]
pub(super) fn pack_bounds(world: &[Motionx8], radii: Option<&[f32]>, check: &PackCheck) -> Aabbx8 {
    match radii {
        Some(radii) => bounds_of::<true>(world, radii),
        None => bounds_of::<false>(world, &[]),
    }
    .finished(check.finite())
}

/// The box of a pack's clip joints (`world[1..]`, just written, in L1),
/// each position padded by its joint's radius where `PADDED` (`radii`,
/// one per crowd joint: [`Aabbx8::grow`]), else as it is
/// ([`Aabbx8::grow_point`]). A loop of its own rather than a step of the
/// forward kinematics above, whose registers it would crowd (a third more
/// instructions: PERF.md, "Bounds").
#[inline(always)]
pub(super) fn bounds_of<const PADDED: bool>(world: &[Motionx8], radii: &[f32]) -> Aabbx8 {
    let mut b = Aabbx8::EMPTY;
    let radii = match PADDED {
        true => &radii[..world.len()],
        false => radii,
    };
    for (j, w) in world.iter().enumerate().skip(1) {
        match PADDED {
            true => b.grow(&w.pos, splat(radii[j])),
            false => b.grow_point(&w.pos),
        }
    }
    b
}
