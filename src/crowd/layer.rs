//! Layers and blend profiles, as a crowd's configuration gives them
//! ([`CrowdConfig::layers`](super::CrowdConfig::layers),
//! [`CrowdConfig::blend_profiles`](super::CrowdConfig::blend_profiles)):
//! fixed for the crowd's life, like its transition kind, because each
//! layer keeps per-character state and each profile a row of per-joint
//! scales.
//!
//! A character's pose is built bottom up: the base (sources A and B
//! blended at B's weight), then each layer in order, each on the pose
//! below it:
//!
//! - an **override** layer ([`LayerMode::Override`]) replaces the pose
//!   below on the joints of its mask: joint `j` is the slerp (positions
//!   and velocities lerped) from the pose below toward the layer's source
//!   at weight `m_j w`, its mask's weight times the layer's;
//! - an **additive** layer ([`LayerMode::Additive`]) adds its source's
//!   motion relative to a reference frame of the source's clip: with
//!   `S` the source's sample and `R` the clip's reference frame, the
//!   delta `D = S R⁻¹` (positions `S - R`) is applied on the left of the
//!   pose below, scaled by `m_j w` in scaled-angle-axis space
//!   ([`crate::reference::kform_additive_along`]).
//!
//! Both keep exact velocities: a masked slerp's angular velocity is the
//! slerp's ([`crate::reference::quat_slerp_dx`], with the weight's rate
//! `m_j ẇ`), an additive's is [`crate::reference::quat_additive_dx`].
//! Each joint's relative rotation (the layer's pose against the pose
//! below, or the delta) is turned along a hemisphere kept from step to
//! step and chosen anew, the short way round, where the character's
//! sources jump (a command, a wrap around a clip) or where the layer's
//! weight is zero and still (at zero weight every choice shows the same
//! pose), so a layer moves continuously however far its rotations turn.
//!
//! Masks and profiles name joints of the clips' skeleton
//! ([`ClipLibrary::skeleton`](super::ClipLibrary::skeleton)); the crowd
//! refuses an unknown name, a weight outside `[0, 1]` or a scale outside
//! `(0, 1]` when it is built, naming the layer or profile.

use crate::error::{Error, Result};
use crate::skeleton::Skeleton;

/// The most layers a crowd has above its base. Each layer keeps, per pack
/// of eight characters, a source's lanes and a weight spring (about 400
/// bytes) and a hemisphere bit per joint, and costs a pass over its
/// mask's joints while its weight is not zero. Runtimes' characters
/// layer an upper body, an additive (breathing, leaning, recoil) and an
/// aim or a face; four covers those with one to spare, and keeps a
/// layered pack's working set (its sources' rows and a few poses of 13 KB)
/// within L2.
pub const MAX_LAYERS: usize = 4;

/// The most blend profiles a crowd has ([`BlendProfile`]): each is a row
/// of per-joint scales, read per lane while a transition with it runs.
pub const MAX_BLEND_PROFILES: usize = 16;

/// Joints of the clips' skeleton, by name.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Joints {
    /// A joint and every joint below it.
    Subtree(String),
    /// These joints alone.
    Named(Vec<String>),
}

impl Joints {
    /// `joint` and every joint below it.
    pub fn subtree(joint: &str) -> Joints {
        Joints::Subtree(joint.to_string())
    }

    /// The joints `names`.
    pub fn named(names: &[&str]) -> Joints {
        Joints::Named(names.iter().map(|n| n.to_string()).collect())
    }

    /// Visits each chosen joint of `skeleton` with whether it is a
    /// subtree's root; refuses an unknown name.
    fn each(&self, skeleton: &Skeleton, mut f: impl FnMut(usize, bool)) -> Result<()> {
        let find = |name: &str| {
            skeleton.find(name).ok_or_else(|| Error::JointName {
                name: name.to_string(),
            })
        };
        match self {
            Joints::Subtree(name) => {
                let top = find(name)?;
                let mut inside = vec![false; skeleton.len()];
                inside[top] = true;
                f(top, true);
                // Parents come before their children (a skeleton's rule).
                for (j, &p) in skeleton.parents().iter().enumerate().skip(top + 1) {
                    if p >= 0 && inside[p as usize] {
                        inside[j] = true;
                        f(j, false);
                    }
                }
            }
            Joints::Named(names) => {
                for name in names {
                    f(find(name)?, false);
                }
            }
        }
        Ok(())
    }
}

/// Per-joint weights in `[0, 1]` of a layer, built from joint names:
/// every joint starts at 0, then each part in order sets its joints'
/// weight. The usual upper-body mask is a subtree from the spine, its
/// boundary joint feathered so the seam with the legs is soft:
///
/// ```
/// use kineform::crowd::Mask;
/// let upper = Mask::new().feathered("Chest", 1.0, 0.5); // Chest at 0.5, above it 1
/// let arms = Mask::new().subtree("LeftShoulder", 1.0).subtree("RightShoulder", 1.0);
/// let breath = Mask::new().joints(&["lowerback", "Chest", "Chest2"], 0.8);
/// # let _ = (upper, arms, breath);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Mask {
    /// The parts, applied in order (a later part's weights replace an
    /// earlier one's on the joints they share).
    pub parts: Vec<MaskPart>,
}

/// One part of a [`Mask`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MaskPart {
    /// The joints.
    pub joints: Joints,
    /// Their weight, in `[0, 1]`.
    pub weight: f32,
    /// A subtree's root (its boundary joint) at this weight instead, in
    /// `[0, 1]`: a feather, so that the joint where the masked part meets
    /// the rest turns part way. `None`: `weight`. Ignored for
    /// [`Joints::Named`].
    #[cfg_attr(feature = "serde", serde(default))]
    pub boundary: Option<f32>,
}

/// `v` if finite and in `[0, 1]`, else [`Error::Parameter`] named `name`.
fn unit(name: &'static str, v: f32) -> Result<f32> {
    match v.is_finite() && (0.0..=1.0).contains(&v) {
        true => Ok(v),
        false => Err(Error::Parameter {
            name,
            value: v,
            reason: "must be in [0, 1]",
        }),
    }
}

impl Mask {
    /// No joint (every weight 0).
    pub fn new() -> Mask {
        Mask::default()
    }

    /// `joint` and every joint below it at `weight` (the whole body:
    /// the clips' root joint's subtree).
    pub fn subtree(mut self, joint: &str, weight: f32) -> Mask {
        self.parts.push(MaskPart {
            joints: Joints::subtree(joint),
            weight,
            boundary: None,
        });
        self
    }

    /// `joint`'s subtree at `weight`, `joint` itself at `boundary`.
    pub fn feathered(mut self, joint: &str, weight: f32, boundary: f32) -> Mask {
        self.parts.push(MaskPart {
            joints: Joints::subtree(joint),
            weight,
            boundary: Some(boundary),
        });
        self
    }

    /// The joints `names` at `weight`.
    pub fn joints(mut self, names: &[&str], weight: f32) -> Mask {
        self.parts.push(MaskPart {
            joints: Joints::named(names),
            weight,
            boundary: None,
        });
        self
    }

    /// The weight of each joint of `skeleton` (the clips' joints, in
    /// order). Refuses a name `skeleton` has not ([`Error::JointName`]) or
    /// a weight outside `[0, 1]` ([`Error::Parameter`]).
    pub fn weights(&self, skeleton: &Skeleton) -> Result<Vec<f32>> {
        let mut w = vec![0.0; skeleton.len()];
        for part in &self.parts {
            let weight = unit("mask weight", part.weight)?;
            let boundary = match part.boundary {
                Some(b) => unit("mask boundary weight", b)?,
                None => weight,
            };
            part.joints.each(skeleton, |j, top| {
                w[j] = if top { boundary } else { weight };
            })?;
        }
        Ok(w)
    }
}

/// What a layer does with its source ([`super::CrowdConfig::layers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum LayerMode {
    /// Replaces the pose below on its mask's joints, by its weight.
    Override,
    /// Adds its source's motion relative to frame `reference_frame` of
    /// the source's clip (the clip's last frame where it has fewer), by
    /// its weight.
    Additive {
        /// The reference frame, counted from the clip's first (0).
        reference_frame: usize,
    },
}

/// One layer of a crowd: what it does and on which joints.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Layer {
    /// Override or additive.
    pub mode: LayerMode,
    /// The joints it acts on, and how much.
    pub mask: Mask,
}

impl Layer {
    /// An override layer on `mask`.
    pub fn overriding(mask: Mask) -> Layer {
        Layer {
            mode: LayerMode::Override,
            mask,
        }
    }

    /// An additive layer on `mask`, relative to frame `reference_frame` of
    /// its source's clip.
    pub fn additive(mask: Mask, reference_frame: usize) -> Layer {
        Layer {
            mode: LayerMode::Additive { reference_frame },
            mask,
        }
    }
}

/// How one joint takes a transition under a [`BlendProfile`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum JointBlend {
    /// Blends over this fraction of the transition's duration, in
    /// `(0, 1]` (dead blending's extrapolation half-life scaled the same):
    /// the command's duration is its slowest joint's.
    Scale(f32),
    /// Takes the new pose at once: no blend, no offset.
    Snap,
}

/// One part of a [`BlendProfile`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ProfilePart {
    /// The joints.
    pub joints: Joints,
    /// How they blend.
    pub blend: JointBlend,
}

/// A per-joint transition profile (Unreal's blend profiles and filtered
/// bones): joints blend over a fraction of a transition's duration (and
/// dead blending's half-life), or snap to the new pose. Every joint
/// starts at the full duration (scale 1); parts apply in order. A
/// character's transitions use the profile its
/// [`Command::SetBlendProfile`](super::Command::SetBlendProfile) chose,
/// latched when each transition starts, for inertialization and dead
/// blending alike:
///
/// ```
/// use kineform::crowd::{BlendProfile, Joints};
/// // The legs settle fast, the hands snap.
/// let p = BlendProfile::new()
///     .scale(Joints::subtree("LHipJoint"), 0.4)
///     .scale(Joints::subtree("RHipJoint"), 0.4)
///     .snap(Joints::named(&["lhand", "rhand"]));
/// # let _ = p;
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BlendProfile {
    /// The parts, applied in order.
    pub parts: Vec<ProfilePart>,
}

impl BlendProfile {
    /// Every joint over the full duration.
    pub fn new() -> BlendProfile {
        BlendProfile::default()
    }

    /// `joints` over `scale` times the duration.
    pub fn scale(mut self, joints: Joints, scale: f32) -> BlendProfile {
        self.parts.push(ProfilePart {
            joints,
            blend: JointBlend::Scale(scale),
        });
        self
    }

    /// `joints` snap.
    pub fn snap(mut self, joints: Joints) -> BlendProfile {
        self.parts.push(ProfilePart {
            joints,
            blend: JointBlend::Snap,
        });
        self
    }

    /// Each joint's scale of the duration on `skeleton` (the clips'
    /// joints), 0 for a joint that snaps. Refuses an unknown name or a
    /// scale outside `(0, 1]`.
    pub fn scales(&self, skeleton: &Skeleton) -> Result<Vec<f32>> {
        let mut s = vec![1.0; skeleton.len()];
        for part in &self.parts {
            let v = match part.blend {
                JointBlend::Snap => 0.0,
                JointBlend::Scale(x) if x.is_finite() && x > 0.0 && x <= 1.0 => x,
                JointBlend::Scale(x) => {
                    return Err(Error::Parameter {
                        name: "blend profile scale",
                        value: x,
                        reason: "must be in (0, 1] (JointBlend::Snap for none)",
                    });
                }
            };
            part.joints.each(skeleton, |j, _| s[j] = v)?;
        }
        Ok(s)
    }
}

/// A crowd's layers and profiles resolved on its skeleton, per crowd joint
/// (joint 0, the character's root, is never masked and never scaled).
#[derive(Clone, Debug, Default)]
pub(crate) struct Layout {
    pub(crate) layers: Vec<LayerPlan>,
    /// Row `p` (crowd joints) of profile `p - 1`'s scales; row 0, no
    /// profile, all 1. A scale of 0 snaps.
    profiles: Vec<f32>,
    joints: usize,
}

/// One layer resolved: its mode and its mask per crowd joint.
#[derive(Clone, Debug)]
pub(crate) struct LayerPlan {
    /// `Some(frame)` for an additive layer's reference frame.
    pub(crate) reference: Option<usize>,
    pub(crate) mask: Vec<f32>,
}

impl Layout {
    /// Whether a layer's mask covers the clips' root joint (crowd joint 1).
    pub(crate) fn covers_root(&self) -> bool {
        self.layers
            .iter()
            .any(|l| l.mask.get(1).is_some_and(|&w| w > 0.0))
    }

    /// Resolves `layers` and `profiles` on the clips' skeleton `clips`
    /// (crowd joint `j + 1` is its joint `j`), each refusal naming the
    /// layer or profile ([`Error::Config`]).
    pub(crate) fn new(
        layers: &[Layer],
        profiles: &[BlendProfile],
        clips: &Skeleton,
    ) -> Result<Layout> {
        if layers.len() > MAX_LAYERS {
            return Err(Error::Length {
                what: "layers (at most MAX_LAYERS, 4)",
                expected: MAX_LAYERS,
                got: layers.len(),
            });
        }
        if profiles.len() > MAX_BLEND_PROFILES {
            return Err(Error::Length {
                what: "blend profiles (at most MAX_BLEND_PROFILES, 16)",
                expected: MAX_BLEND_PROFILES,
                got: profiles.len(),
            });
        }
        let joints = clips.len() + 1;
        let in_crowd = |w: Vec<f32>, root: f32| std::iter::once(root).chain(w).collect();
        let named = |part: String| {
            move |e| Error::Config {
                part,
                error: Box::new(e),
            }
        };
        let mut plans = Vec::with_capacity(layers.len());
        for (k, l) in layers.iter().enumerate() {
            let mask = l.mask.weights(clips).map_err(named(format!("layer {k}")))?;
            let reference = match l.mode {
                LayerMode::Override => None,
                LayerMode::Additive { reference_frame } => Some(reference_frame),
            };
            plans.push(LayerPlan {
                reference,
                mask: in_crowd(mask, 0.0),
            });
        }
        let mut table = vec![1.0; joints];
        for (p, profile) in profiles.iter().enumerate() {
            let s = profile
                .scales(clips)
                .map_err(named(format!("blend profile {p}")))?;
            table.extend(in_crowd(s, 1.0).iter());
        }
        Ok(Layout {
            layers: plans,
            profiles: table,
            joints,
        })
    }

    /// Crowd joint `j`'s scale under profile row `row` (0: no profile).
    #[inline(always)]
    pub(crate) fn scale(&self, row: usize, j: usize) -> f32 {
        self.profiles[row * self.joints + j]
    }
}
