//! A character's world bounding box in the reference crowd, one character
//! at a time from its world pose ([`ref_bounds`]): the 8-lane crowd's
//! `passes::fk` grows the same box as it writes each joint
//! ([`crate::crowd::bounds`] states it).

use crate::crowd::Aabb;
use crate::reference::{Pose, Vec3};

/// The box of `world`'s clip joints (crowd joints `1..`), each position
/// padded by its joint's radius (`radii`, one per clip joint, or none for
/// no padding): `min = minⱼ (pⱼ - rⱼ)`, `max = maxⱼ (pⱼ + rⱼ)` per axis;
/// all NaN where the pose is not `finite`.
pub(super) fn ref_bounds(world: &Pose, radii: &[f32], finite: bool) -> Aabb {
    if !finite {
        return Aabb {
            min: Vec3::splat(f32::NAN),
            max: Vec3::splat(f32::NAN),
        };
    }
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for (j, p) in world.pos.iter().enumerate().skip(1) {
        let r = radii.get(j - 1).copied().unwrap_or(0.0);
        for (a, x) in p.to_array().into_iter().enumerate() {
            lo[a] = lo[a].min(x - r);
            hi[a] = hi[a].max(x + r);
        }
    }
    Aabb {
        min: Vec3::new(lo[0], lo[1], lo[2]),
        max: Vec3::new(hi[0], hi[1], hi[2]),
    }
}
