//! What a matching database holds: the feature set, its weights, the
//! trajectory offsets, which frames are searched, and the joints the
//! features are read from.

use crate::batch::MAX_TIME;
use crate::error::{Error, Result};
use crate::joint_map::CmuNaming;
use crate::reference::Vec3;
use crate::skeleton::Skeleton;

/// The features that describe the feet (the rest of the set, hip velocity
/// and the trajectory, is common to all).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum FootFeatures {
    /// The published demo's: each foot's position and velocity in
    /// character space, positions weighted `position_weight` (0.75 in the
    /// demo) and velocities `velocity_weight` (1.0).
    PositionVelocity {
        /// Weight of each foot's position group ([`WEIGHT_RANGE`]).
        position_weight: f32,
        /// Weight of each foot's velocity group ([`WEIGHT_RANGE`]).
        velocity_weight: f32,
    },
    /// The transition-cost article's spring-inertializer feature per foot,
    /// `2 pos / y + vel / y²` with `y = halflife_to_damping(halflife) / 2`
    /// ([`crate::reference::transition_feature_spring`]), one weight in
    /// place of two.
    Spring {
        /// The inertializer's half-life, seconds (`[0, 1e6]`).
        halflife: f32,
        /// Weight of each foot's group ([`WEIGHT_RANGE`]).
        weight: f32,
    },
    /// The article's cubic-inertializer feature per foot,
    /// `z pos / 2 + z² vel / 12` with `z` the blend time
    /// ([`crate::reference::transition_feature_cubic`]).
    Cubic {
        /// The inertializer's blend time, seconds (`[0, 1e6]`).
        blendtime: f32,
        /// Weight of each foot's group ([`WEIGHT_RANGE`]).
        weight: f32,
    },
}

impl FootFeatures {
    /// The demo's feature set: positions weighted 0.75, velocities 1.0.
    pub const DEMO: FootFeatures = FootFeatures::PositionVelocity {
        position_weight: 0.75,
        velocity_weight: 1.0,
    };
    /// The article's spring feature with the demo's inertialization
    /// half-life, 0.1 s, weight 1.
    pub const SPRING: FootFeatures = FootFeatures::Spring {
        halflife: 0.1,
        weight: 1.0,
    };
    /// The article's cubic feature with a 0.3 s blend time, weight 1.
    pub const CUBIC: FootFeatures = FootFeatures::Cubic {
        blendtime: 0.3,
        weight: 1.0,
    };
}

/// The joints the features are read from, and the hips' forward axis
/// ([`super::CharacterFrame::from_hips`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FeatureJoints {
    /// The hips (the joint the character frame is derived from).
    pub hips: usize,
    /// The left foot (ankle).
    pub left_foot: usize,
    /// The right foot (ankle).
    pub right_foot: usize,
    /// The hips' local axis that faces forward at rest.
    pub forward: Vec3,
}

impl FeatureJoints {
    /// The CMU skeletons' (any naming, [`CmuNaming`]): `Hips`, the ankles
    /// (`LeftFoot`/`RightFoot` or `LeftAnkle`/`RightAnkle`), forward `+z`.
    pub fn cmu(skeleton: &Skeleton) -> Result<FeatureJoints> {
        let names = CmuNaming::of(skeleton)?.names();
        // `CmuNaming::of` checks the names a skeleton has, not that it has
        // each of them: a skeleton whose right leg carries the left leg's
        // names has no `RightFoot`.
        let find = |k: usize| {
            skeleton.find(names[k]).ok_or_else(|| Error::JointName {
                name: names[k].to_string(),
            })
        };
        Ok(FeatureJoints {
            hips: find(0)?,
            left_foot: find(4)?,
            right_foot: find(9)?,
            forward: Vec3::new(0.0, 0.0, 1.0),
        })
    }

    /// Refuses, naming it, a joint index past `joints` or a forward axis
    /// that is not finite and non-zero.
    pub fn check(&self, joints: usize) -> Result<()> {
        for (what, j) in [
            ("hips joint", self.hips),
            ("left foot joint", self.left_foot),
            ("right foot joint", self.right_foot),
        ] {
            if j >= joints {
                return Err(Error::Index {
                    what,
                    index: j,
                    len: joints,
                });
            }
        }
        let f = self.forward;
        let len2 = f.x * f.x + f.y * f.y + f.z * f.z;
        if !(len2.is_finite() && len2 > 0.0) {
            return Err(Error::Parameter {
                name: "forward axis length squared",
                value: len2,
                reason: "the hips' forward axis must be finite and non-zero",
            });
        }
        Ok(())
    }
}

/// How a [`super::MatchDatabase`] is built. `Default` is the published
/// demo's setup on the CMU clips (module docs of [`super`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MatchConfig {
    /// The feet's features.
    pub feet: FootFeatures,
    /// Weight of the hip velocity group (1.0 in the demo;
    /// [`WEIGHT_RANGE`]).
    pub hip_velocity_weight: f32,
    /// Weight of the trajectory positions group (1.0; [`WEIGHT_RANGE`]).
    pub trajectory_position_weight: f32,
    /// Weight of the trajectory directions group (1.5; [`WEIGHT_RANGE`]).
    pub trajectory_direction_weight: f32,
    /// How far ahead the three trajectory points are, seconds (the demo's
    /// 20, 40 and 60 frames at 60 Hz: 1/3, 2/3, 1 s); rounded to whole
    /// clip frames, each in `(0, 60]` s and increasing.
    pub trajectory_times: [f32; 3],
    /// Clip frames per database frame (2: the CMU clips' 120 Hz taken at
    /// the demo's 60 Hz). At least 1.
    pub frame_step: usize,
    /// Frames this close to the end of a clip or before a cut are not
    /// searched, seconds (the demo's 20 frames at 60 Hz: 1/3 s); `[0, 60]`.
    pub end_margin: f32,
    /// A step between two clip frames in which the joints' world
    /// positions move faster than this on average, in the clips' units per
    /// second, is a cut: the frames before and after belong to different
    /// ranges (section "Cuts" of [`super`]). Positive; `f32::INFINITY`
    /// finds no cut.
    pub cut_speed: f32,
    /// The joints the features are read from; `None`: the CMU joints
    /// ([`FeatureJoints::cmu`]). Their forward axis must be finite and
    /// non-zero ([`MatchConfig::check`]); their indices within the
    /// skeleton a database is built from.
    pub joints: Option<FeatureJoints>,
}

impl Default for MatchConfig {
    fn default() -> MatchConfig {
        MatchConfig {
            feet: FootFeatures::DEMO,
            hip_velocity_weight: 1.0,
            trajectory_position_weight: 1.0,
            trajectory_direction_weight: 1.5,
            trajectory_times: [1.0 / 3.0, 2.0 / 3.0, 1.0],
            frame_step: 2,
            end_margin: 1.0 / 3.0,
            cut_speed: DEFAULT_CUT_SPEED,
            joints: None,
        }
    }
}

/// The default cut threshold, 200 units per second of mean joint speed
/// (in CMU units, about 11 m/s): the shipped clips' real motion stays
/// under 70 and the MotionBuilder files' synthetic T-pose steps exceed 400
/// (`docs/matching.md`, "Cuts"). Clips in metres want about 11.
pub const DEFAULT_CUT_SPEED: f32 = 200.0;

/// Longest trajectory offset and end margin, seconds.
pub const MAX_HORIZON: f32 = 60.0;

/// The range of a feature group's weight, `[1e-6, 1e6]`. A group's
/// features are divided by its scale, the mean of their standard
/// deviations over the weight: a weight near `f32::MAX` made that scale
/// so small that the normalized features overflowed to infinity (a
/// database built with non-finite features, which
/// [`super::MatchDatabase::from_parts`] then refused), and one near 0 an
/// infinite scale refused as a group that does not vary.
pub const WEIGHT_RANGE: core::ops::RangeInclusive<f32> = 1e-6..=1e6;

fn positive_weight(name: &'static str, w: f32) -> Result<()> {
    if WEIGHT_RANGE.contains(&w) {
        Ok(())
    } else {
        Err(Error::Parameter {
            name,
            value: w,
            reason: "a feature weight must be in [1e-6, 1e6]",
        })
    }
}

impl MatchConfig {
    /// The default with the feet's features `feet`.
    pub fn with_feet(feet: FootFeatures) -> MatchConfig {
        MatchConfig {
            feet,
            ..MatchConfig::default()
        }
    }

    /// Refuses, naming the parameter and its range, anything outside the
    /// ranges of the fields' docs; every weight must be within
    /// [`WEIGHT_RANGE`].
    pub fn check(&self) -> Result<()> {
        // The joints' indices are checked against a skeleton where there
        // is one (`MatchDatabase::build`); their forward axis here.
        if let Some(j) = self.joints {
            j.check(usize::MAX)?;
        }
        match self.feet {
            FootFeatures::PositionVelocity {
                position_weight,
                velocity_weight,
            } => {
                positive_weight("foot position weight", position_weight)?;
                positive_weight("foot velocity weight", velocity_weight)?;
            }
            FootFeatures::Spring { halflife, weight } => {
                positive_weight("foot spring feature weight", weight)?;
                bounded_time("halflife", halflife)?;
            }
            FootFeatures::Cubic { blendtime, weight } => {
                positive_weight("foot cubic feature weight", weight)?;
                bounded_time("blendtime", blendtime)?;
            }
        }
        positive_weight("hip velocity weight", self.hip_velocity_weight)?;
        positive_weight(
            "trajectory position weight",
            self.trajectory_position_weight,
        )?;
        positive_weight(
            "trajectory direction weight",
            self.trajectory_direction_weight,
        )?;
        let mut last = 0.0;
        for t in self.trajectory_times {
            if !(t > last && t <= MAX_HORIZON) {
                return Err(Error::Parameter {
                    name: "trajectory time",
                    value: t,
                    reason: "trajectory times must increase, each in (0, 60] seconds",
                });
            }
            last = t;
        }
        if self.frame_step == 0 {
            return Err(Error::Parameter {
                name: "frame_step",
                value: 0.0,
                reason: "a database takes every frame_step-th clip frame: at least 1",
            });
        }
        if !(0.0..=MAX_HORIZON).contains(&self.end_margin) {
            return Err(Error::Parameter {
                name: "end_margin",
                value: self.end_margin,
                reason: "the end margin must be in [0, 60] seconds",
            });
        }
        if self.cut_speed.is_nan() || self.cut_speed <= 0.0 {
            return Err(Error::Parameter {
                name: "cut_speed",
                value: self.cut_speed,
                reason: "the cut threshold must be positive (infinity: no cuts)",
            });
        }
        Ok(())
    }
}

fn bounded_time(name: &'static str, t: f32) -> Result<()> {
    if (0.0..=MAX_TIME).contains(&t) {
        Ok(())
    } else {
        Err(Error::Parameter {
            name,
            value: t,
            reason: "must be in [0, 1e6] seconds",
        })
    }
}
