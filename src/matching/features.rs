//! Feature vectors: their groups (the layout), the world-space inputs they
//! are made of, and the raw (unnormalized) values, computed by one
//! function for the database and for a query.

use super::config::{FootFeatures, MatchConfig};
use super::frame::{CharacterFrame, ground_direction};
use crate::reference::{Quat, Vec3, transition_feature_cubic, transition_feature_spring};

/// What a group of features describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum GroupKind {
    /// Left foot position, character space (3).
    LeftFootPosition,
    /// Right foot position (3).
    RightFootPosition,
    /// Left foot velocity, character space (3).
    LeftFootVelocity,
    /// Right foot velocity (3).
    RightFootVelocity,
    /// Left foot, the article's spring feature (3).
    LeftFootSpring,
    /// Right foot, the article's spring feature (3).
    RightFootSpring,
    /// Left foot, the article's cubic feature (3).
    LeftFootCubic,
    /// Right foot, the article's cubic feature (3).
    RightFootCubic,
    /// Hip velocity, character space (3).
    HipVelocity,
    /// The trajectory's three future positions, `(x, z)` each (6).
    TrajectoryPositions,
    /// The trajectory's three future facings, `(x, z)` each (6).
    TrajectoryDirections,
}

impl GroupKind {
    /// The group's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            GroupKind::LeftFootPosition => "left foot position",
            GroupKind::RightFootPosition => "right foot position",
            GroupKind::LeftFootVelocity => "left foot velocity",
            GroupKind::RightFootVelocity => "right foot velocity",
            GroupKind::LeftFootSpring => "left foot spring feature",
            GroupKind::RightFootSpring => "right foot spring feature",
            GroupKind::LeftFootCubic => "left foot cubic feature",
            GroupKind::RightFootCubic => "right foot cubic feature",
            GroupKind::HipVelocity => "hip velocity",
            GroupKind::TrajectoryPositions => "trajectory positions",
            GroupKind::TrajectoryDirections => "trajectory directions",
        }
    }

    /// Number of features in the group.
    pub fn dims(self) -> usize {
        match self {
            GroupKind::TrajectoryPositions | GroupKind::TrajectoryDirections => 6,
            _ => 3,
        }
    }
}

/// One group of a layout: `len` features from `offset`, normalized
/// together and weighted `weight`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Group {
    /// What it describes.
    pub kind: GroupKind,
    /// Its first feature.
    pub offset: usize,
    /// Its number of features.
    pub len: usize,
    /// Its weight.
    pub weight: f32,
}

/// The groups of a feature vector, in order (the demo's order: feet, hip
/// velocity, trajectory positions, trajectory directions). Searches see
/// vectors padded with zeros to [`FeatureLayout::padded`], a multiple of
/// four ([`super::reference::distance`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FeatureLayout {
    groups: Vec<Group>,
    dims: usize,
}

impl FeatureLayout {
    /// The layout `cfg` describes: 27 features for the demo's set (feet
    /// positions, feet velocities, hip velocity, trajectory), 21 for the
    /// article's (one inertialization group per foot in place of the two).
    pub fn new(cfg: &MatchConfig) -> FeatureLayout {
        use GroupKind::*;
        let mut kinds: Vec<(GroupKind, f32)> = match cfg.feet {
            FootFeatures::PositionVelocity {
                position_weight: p,
                velocity_weight: v,
            } => vec![
                (LeftFootPosition, p),
                (RightFootPosition, p),
                (LeftFootVelocity, v),
                (RightFootVelocity, v),
            ],
            FootFeatures::Spring { weight, .. } => {
                vec![(LeftFootSpring, weight), (RightFootSpring, weight)]
            }
            FootFeatures::Cubic { weight, .. } => {
                vec![(LeftFootCubic, weight), (RightFootCubic, weight)]
            }
        };
        kinds.push((HipVelocity, cfg.hip_velocity_weight));
        kinds.push((TrajectoryPositions, cfg.trajectory_position_weight));
        kinds.push((TrajectoryDirections, cfg.trajectory_direction_weight));
        let mut offset = 0;
        let groups = kinds
            .into_iter()
            .map(|(kind, weight)| {
                let g = Group {
                    kind,
                    offset,
                    len: kind.dims(),
                    weight,
                };
                offset += g.len;
                g
            })
            .collect();
        FeatureLayout {
            groups,
            dims: offset,
        }
    }

    /// The groups, in order.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// Number of features.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Number of features with the zero padding searches use: `dims`
    /// rounded up to a multiple of 4.
    pub fn padded(&self) -> usize {
        self.dims.div_ceil(4) * 4
    }
}

/// One character's (or one database frame's) world-space state, as the
/// crowd's outputs give it: the hips' position, rotation and velocity and
/// each foot's position and velocity.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WorldPose {
    /// Hips position.
    pub hips_pos: Vec3,
    /// Hips rotation.
    pub hips_rot: Quat,
    /// Hips velocity.
    pub hips_vel: Vec3,
    /// Left foot position.
    pub left_foot_pos: Vec3,
    /// Left foot velocity.
    pub left_foot_vel: Vec3,
    /// Right foot position.
    pub right_foot_pos: Vec3,
    /// Right foot velocity.
    pub right_foot_vel: Vec3,
}

/// A point of a trajectory, world space: where the character will stand
/// and which way it will face (a direction on the ground plane; it is
/// projected and normalized, [`ground_direction`]).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TrajectoryPoint {
    /// Position (its height is ignored).
    pub pos: Vec3,
    /// Facing.
    pub facing: Vec3,
}

/// The feet's inputs in character space, before the feet's features are
/// made of them.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub(crate) struct LocalFeet {
    pub left_pos: Vec3,
    pub left_vel: Vec3,
    pub right_pos: Vec3,
    pub right_vel: Vec3,
}

impl LocalFeet {
    pub(crate) fn new(frame: &CharacterFrame, pose: &WorldPose) -> LocalFeet {
        LocalFeet {
            left_pos: frame.to_local(pose.left_foot_pos),
            left_vel: frame.dir_to_local(pose.left_foot_vel),
            right_pos: frame.to_local(pose.right_foot_pos),
            right_vel: frame.dir_to_local(pose.right_foot_vel),
        }
    }
}

/// The raw features of `pose` in `frame` with the future `trajectory`
/// (module docs of [`super`]), written to `out[..layout.dims()]`. The
/// feet's inertialization features are left to `feet` (the database
/// computes them in batch; [`raw_features`] with the reference formulas).
pub(crate) fn raw_features_with(
    layout: &FeatureLayout,
    frame: &CharacterFrame,
    pose: &WorldPose,
    trajectory: &[TrajectoryPoint; 3],
    feet: &LocalFeet,
    foot_features: [Vec3; 2],
    out: &mut [f32],
) {
    for g in layout.groups() {
        let o = &mut out[g.offset..g.offset + g.len];
        let put = |o: &mut [f32], v: Vec3| o.copy_from_slice(&v.to_array());
        match g.kind {
            GroupKind::LeftFootPosition => put(o, feet.left_pos),
            GroupKind::RightFootPosition => put(o, feet.right_pos),
            GroupKind::LeftFootVelocity => put(o, feet.left_vel),
            GroupKind::RightFootVelocity => put(o, feet.right_vel),
            GroupKind::LeftFootSpring | GroupKind::LeftFootCubic => put(o, foot_features[0]),
            GroupKind::RightFootSpring | GroupKind::RightFootCubic => put(o, foot_features[1]),
            GroupKind::HipVelocity => put(o, frame.dir_to_local(pose.hips_vel)),
            GroupKind::TrajectoryPositions => {
                for (k, t) in trajectory.iter().enumerate() {
                    let p = frame.to_local(Vec3::new(t.pos.x, 0.0, t.pos.z));
                    o[2 * k] = p.x;
                    o[2 * k + 1] = p.z;
                }
            }
            GroupKind::TrajectoryDirections => {
                for (k, t) in trajectory.iter().enumerate() {
                    let d = frame.dir_to_local(ground_direction(t.facing));
                    o[2 * k] = d.x;
                    o[2 * k + 1] = d.z;
                }
            }
        }
    }
}

/// The feet's inertialization features by the reference formulas
/// (zeros for the demo's set, which does not use them).
pub(crate) fn foot_features(feet_cfg: FootFeatures, feet: &LocalFeet) -> [Vec3; 2] {
    match feet_cfg {
        FootFeatures::PositionVelocity { .. } => [Vec3::ZERO; 2],
        FootFeatures::Spring { halflife, .. } => [
            transition_feature_spring(feet.left_pos, feet.left_vel, halflife),
            transition_feature_spring(feet.right_pos, feet.right_vel, halflife),
        ],
        FootFeatures::Cubic { blendtime, .. } => [
            transition_feature_cubic(feet.left_pos, feet.left_vel, blendtime),
            transition_feature_cubic(feet.right_pos, feet.right_vel, blendtime),
        ],
    }
}

/// The raw features of `pose` in `frame` with the future `trajectory`,
/// into `out[..layout.dims()]`, all by the reference formulas.
pub(crate) fn raw_features(
    layout: &FeatureLayout,
    feet_cfg: FootFeatures,
    frame: &CharacterFrame,
    pose: &WorldPose,
    trajectory: &[TrajectoryPoint; 3],
    out: &mut [f32],
) {
    let feet = LocalFeet::new(frame, pose);
    let ff = foot_features(feet_cfg, &feet);
    raw_features_with(layout, frame, pose, trajectory, &feet, ff, out);
}
