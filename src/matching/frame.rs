//! The character frame: the ground-projected root a motion-matching
//! database and its queries are expressed in.
//!
//! The published motion-matching demo carries a "simulation bone" (a root
//! on the ground under the hips, facing where the hips face) and puts every
//! feature in its frame. A BVH clip has no such bone, so kineform derives it
//! from the hips, the same way for the database and for a query:
//!
//! ```text
//! pos    = (hips.x, 0, hips.z)                      the hips on the ground plane y = 0
//! f      = hips_rot * forward                        the hips' forward axis in the world
//! facing = (f.x, 0, f.z) / |(f.x, 0, f.z)|           on the ground plane, unit length
//!          (0, 0, 1) when |(f.x, f.z)| <= FACING_MIN (the hips point straight up or down)
//! yaw    = atan2(facing.x, facing.z)                 about +y; facing = (sin yaw, 0, cos yaw)
//! ```
//!
//! A point `p` in character space is `R(-yaw) (p - pos)`, a direction `v` is
//! `R(-yaw) v`: x to the character's side, y up (the world height, since
//! `pos.y = 0`), z forward. `forward` is the hips' local axis that points
//! where the character faces in the rest pose (`+z` for the CMU skeletons,
//! [`super::FeatureJoints::cmu`]).
//!
//! The frame follows the hips from frame to frame without smoothing, so a
//! query built from a character's current world pose (the crowd's output)
//! lands in exactly the frame the database used; the hips' sway in a gait
//! turns it by a few degrees each step (measured in `docs/matching.md`).
//! It is a pure function of one pose, reusable by root-motion extraction.

use crate::reference::{Quat, Vec3, quat_from_angle_axis, quat_mul_vec3};

/// Below this horizontal length the hips' forward axis gives no facing and
/// the frame faces `+z` (yaw 0).
pub const FACING_MIN: f32 = 1e-6;

/// A ground-projected root: a position on the ground plane and a facing
/// about `+y` (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CharacterFrame {
    /// Position on the ground plane (`y = 0`).
    pub pos: Vec3,
    /// Unit facing on the ground plane, `(sin yaw, 0, cos yaw)`.
    pub facing: Vec3,
}

impl CharacterFrame {
    /// The frame at `pos` (projected to `y = 0`) facing `yaw` radians about
    /// `+y`.
    pub fn new(pos: Vec3, yaw: f32) -> CharacterFrame {
        CharacterFrame {
            pos: Vec3::new(pos.x, 0.0, pos.z),
            facing: Vec3::new(yaw.sin(), 0.0, yaw.cos()),
        }
    }

    /// The frame under hips at `hips_pos` turned by `hips_rot`, whose
    /// local `forward` axis is the character's facing at rest (module
    /// docs).
    pub fn from_hips(hips_pos: Vec3, hips_rot: Quat, forward: Vec3) -> CharacterFrame {
        let f = quat_mul_vec3(hips_rot, forward);
        CharacterFrame {
            pos: Vec3::new(hips_pos.x, 0.0, hips_pos.z),
            facing: ground_direction(f),
        }
    }

    /// The facing angle about `+y`: `atan2(facing.x, facing.z)`.
    pub fn yaw(&self) -> f32 {
        self.facing.x.atan2(self.facing.z)
    }

    /// The frame's rotation: `yaw` about `+y`.
    pub fn rotation(&self) -> Quat {
        quat_from_angle_axis(self.yaw(), Vec3::new(0.0, 1.0, 0.0))
    }

    /// A world point in character space: `R(-yaw) (p - pos)`.
    pub fn to_local(&self, p: Vec3) -> Vec3 {
        self.dir_to_local(p - self.pos)
    }

    /// A world direction (or velocity) in character space: `R(-yaw) v`.
    pub fn dir_to_local(&self, v: Vec3) -> Vec3 {
        let (s, c) = (self.facing.x, self.facing.z);
        Vec3::new(c * v.x - s * v.z, v.y, s * v.x + c * v.z)
    }

    /// A character-space direction in the world: `R(yaw) v`.
    pub fn dir_to_world(&self, v: Vec3) -> Vec3 {
        let (s, c) = (self.facing.x, self.facing.z);
        Vec3::new(c * v.x + s * v.z, v.y, c * v.z - s * v.x)
    }

    /// A character-space point in the world: `R(yaw) p + pos`.
    pub fn to_world(&self, p: Vec3) -> Vec3 {
        self.dir_to_world(p) + self.pos
    }
}

/// `v` projected on the ground plane and normalized; `(0, 0, 1)` when its
/// horizontal length is at most [`FACING_MIN`] (or not finite: then NaN
/// stays NaN, so a query built from it is refused).
pub fn ground_direction(v: Vec3) -> Vec3 {
    let len = (v.x * v.x + v.z * v.z).sqrt();
    if len > FACING_MIN {
        Vec3::new(v.x / len, 0.0, v.z / len)
    } else if len.is_nan() {
        Vec3::new(f32::NAN, 0.0, f32::NAN)
    } else {
        Vec3::new(0.0, 0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_and_world_are_inverse_and_forward_is_plus_z() {
        let f = CharacterFrame::new(Vec3::new(3.0, 7.0, -2.0), 0.7);
        assert_eq!(f.pos.y, 0.0);
        let p = Vec3::new(1.5, 2.0, -4.0);
        let back = f.to_world(f.to_local(p));
        assert!((back - p).to_array().iter().all(|d| d.abs() < 1e-5));
        // The facing is +z in character space.
        let z = f.dir_to_local(f.facing);
        assert!((z.x).abs() < 1e-6 && (z.z - 1.0).abs() < 1e-6, "{z:?}");
        // Same as rotating by the frame's quaternion.
        let q = crate::reference::quat_inv_mul_vec3(f.rotation(), p - f.pos);
        assert!(
            (q - f.to_local(p))
                .to_array()
                .iter()
                .all(|d| d.abs() < 1e-5)
        );
    }

    #[test]
    fn hips_pointing_up_face_plus_z_and_nan_stays_nan() {
        let up = crate::reference::quat_from_angle_axis(
            -core::f32::consts::FRAC_PI_2,
            Vec3::new(1.0, 0.0, 0.0),
        );
        let f = CharacterFrame::from_hips(Vec3::ZERO, up, Vec3::new(0.0, 0.0, 1.0));
        assert_eq!(f.facing, Vec3::new(0.0, 0.0, 1.0));
        let n = CharacterFrame::from_hips(
            Vec3::ZERO,
            Quat::new(f32::NAN, 0.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        );
        assert!(n.facing.x.is_nan());
    }
}
