//! Joint-name maps: a clip whose skeleton names its joints otherwise (or
//! turns their rest frames otherwise) joins a library through a
//! [`JointMap`], which renames its joints and carries its rotations and
//! offsets into the target's rest frames; [`CmuNaming`] and
//! [`JointMap::cmu`] are the ready maps between the naming conventions of
//! the CMU clips in `data/mocap` (the crowd's
//! [`ClipLibrary::add_mapped`](crate::crowd::ClipLibrary::add_mapped) and
//! [`ClipLibrary::add_cmu`](crate::crowd::ClipLibrary::add_cmu) check the
//! hierarchy after mapping).
//!
//! A rest rotation changes a joint's frame without moving anything: with
//! `R_j` the joint's rest rotation (identity for a joint the map only
//! renames, and for a joint the map does not name), `p` its parent,
//!
//! ```text
//! rotation'  = R_p⁻¹ rotation R_j      (local, every frame)
//! position'  = R_p⁻¹ position          (local, every frame; the offset too)
//! end site'  = R_j⁻¹ end site
//! ```
//!
//! so that the world rotation becomes `W R_j` and every world position is
//! unchanged (`tests/suite/joint_map.rs` checks both on the CMU clips). This is
//! what makes a clip of one convention play right on another's bones when
//! their rest poses differ: the CMU 3dsMax-friendly files hang the arms
//! down (`LeftElbow` at `(0, -4.3, 0)` from `LeftShoulder`) where the
//! MotionBuilder-friendly ones hold them out (`LeftForeArm` at
//! `(5.0, 0, 0)` from `LeftArm`), and their arm joints' frames are turned a
//! quarter turn about z (which is also why their Euler order is ZXY there
//! and ZYX elsewhere).

use crate::bvh::Bvh;
use crate::clip::Clip;
use crate::error::{Error, Result};
use crate::reference::{Quat, Vec3, quat_inv, quat_mul, quat_mul_vec3};
use crate::skeleton::Skeleton;

/// How much a rest rotation's length may differ from 1 (it is not
/// normalized for you, as clip rotations are not).
pub const REST_UNIT_TOLERANCE: f32 = 1e-5;

/// One joint's entry: renamed from `from` to `to`, its frame turned by
/// `rest` (`None`: unturned).
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    from: String,
    to: String,
    rest: Option<Quat>,
}

/// Renames joints and turns their rest frames (module docs); joints it
/// does not name keep their name and frame. Built entry by entry:
///
/// ```
/// use kineform::joint_map::JointMap;
/// let map = JointMap::new().rename("LeftHip", "LeftUpLeg").rename("RightHip", "RightUpLeg");
/// assert_eq!(map.target("LeftHip"), "LeftUpLeg");
/// assert_eq!(map.target("Head"), "Head");
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointMap {
    entries: Vec<Entry>,
}

/// A skeleton with its offsets and clip, mapped ([`JointMap::apply`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Mapped {
    /// The same hierarchy under the target's names.
    pub skeleton: Skeleton,
    /// The offsets in the target's rest frames.
    pub offsets: Vec<Vec3>,
    /// The clip in the target's rest frames.
    pub clip: Clip,
}

impl JointMap {
    /// A map that renames nothing.
    pub fn new() -> JointMap {
        JointMap::default()
    }

    /// Joint `from` is called `to` (replacing an earlier entry for `from`).
    pub fn rename(self, from: &str, to: &str) -> JointMap {
        self.entry(from, to, None)
    }

    /// Joint `from` is called `to`, and its frame is the source frame
    /// turned by `rest` (`W_target = W_source rest`, module docs): a unit
    /// quaternion, checked when the map is applied.
    pub fn rename_turned(self, from: &str, to: &str, rest: Quat) -> JointMap {
        self.entry(from, to, Some(rest))
    }

    fn entry(mut self, from: &str, to: &str, rest: Option<Quat>) -> JointMap {
        self.entries.retain(|e| e.from != from);
        self.entries.push(Entry {
            from: from.into(),
            to: to.into(),
            rest,
        });
        self
    }

    fn find(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.from == name)
    }

    /// The name joint `name` gets.
    pub fn target<'a>(&'a self, name: &'a str) -> &'a str {
        self.find(name).map_or(name, |e| &e.to)
    }

    /// The rest rotation of joint `name` (identity when unturned).
    pub fn rest(&self, name: &str) -> Quat {
        self.find(name)
            .and_then(|e| e.rest)
            .unwrap_or(Quat::IDENTITY)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the map renames and turns nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The map between two CMU naming conventions: every joint renamed to
    /// `to`'s name for it, and the arm joints turned where the conventions'
    /// rest poses differ (module docs). Identity when `from == to`.
    ///
    /// ```
    /// use kineform::joint_map::{CmuNaming, JointMap};
    /// let map = JointMap::cmu(CmuNaming::Max, CmuNaming::MotionBuilder);
    /// assert_eq!(map.target("LeftHip"), "LeftUpLeg");
    /// // Both name a `Neck`, but not the same joint.
    /// assert_eq!(map.target("Neck"), "Neck1");
    /// assert_eq!(map.target("lowerneck"), "Neck");
    /// ```
    pub fn cmu(from: CmuNaming, to: CmuNaming) -> JointMap {
        let mut map = JointMap::new();
        if from == to {
            return map;
        }
        let (a, b) = (from.names(), to.names());
        for k in 0..CMU_JOINTS {
            // W_mb = W_from F_from and W_to = W_mb F_to⁻¹: rest F_from F_to⁻¹.
            let rest = quat_mul(from.frame(k), quat_inv(to.frame(k)));
            map = if rest == Quat::IDENTITY {
                map.rename(a[k], b[k])
            } else {
                map.rename_turned(a[k], b[k], rest)
            };
        }
        map
    }

    /// `skeleton` with its `offsets` (one per joint) and `clip` (one column
    /// per joint), mapped: joints renamed, rotations, positions and offsets
    /// carried into the target's rest frames (module docs). Refuses,
    /// naming the joint ([`Error::Skeleton`]): lengths that differ from the
    /// skeleton's, a rest rotation that is not unit length within
    /// [`REST_UNIT_TOLERANCE`], and two joints that would get one name;
    /// naming frame and joint ([`Error::Clip`]): a non-uniform scale on a
    /// turned joint (turning it would shear).
    pub fn apply(&self, skeleton: &Skeleton, offsets: &[Vec3], clip: &Clip) -> Result<Mapped> {
        let n = skeleton.len();
        for (what, got) in [
            ("offsets (one per skeleton joint)", offsets.len()),
            ("clip joints (one per skeleton joint)", clip.joints()),
        ] {
            if got != n {
                return Err(Error::Length {
                    what,
                    expected: n,
                    got,
                });
            }
        }
        let names = skeleton.names();
        let rests = self.rests(skeleton)?;
        let mapped: Vec<String> = names.iter().map(|s| self.target(s).to_string()).collect();
        one_name_each(names, &mapped)?;
        let parent_rest = |j: usize| match skeleton.parents()[j] {
            p if p >= 0 => rests[p as usize],
            _ => None,
        };
        let turn_pos = |j: usize, v: Vec3| match parent_rest(j) {
            Some(r) => quat_mul_vec3(quat_inv(r), v),
            None => v,
        };
        let turn_rot = |j: usize, q: Quat| {
            let q = match parent_rest(j) {
                Some(r) => quat_mul(quat_inv(r), q),
                None => q,
            };
            match rests[j] {
                Some(r) => quat_mul(q, r),
                None => q,
            }
        };
        let (frames, joints) = (clip.frames(), clip.joints());
        let mut pos = crate::error::try_copy("clip positions", clip.positions())?;
        let mut rot = crate::error::try_copy("clip rotations", clip.rotations())?;
        for f in 0..frames {
            for j in 0..joints {
                let i = f * joints + j;
                pos[i] = turn_pos(j, pos[i]);
                rot[i] = turn_rot(j, rot[i]);
                let s = clip.scl_at(f, j);
                if rests[j].is_some() && !(s.x == s.y && s.y == s.z) {
                    return Err(Error::Clip {
                        frame: f,
                        joint: j,
                        reason: format!(
                            "scale {s:?} is not uniform: the joint map's rest rotation of `{}` would shear it",
                            names[j]
                        ),
                    });
                }
            }
        }
        let offsets = (0..n).map(|j| turn_pos(j, offsets[j])).collect();
        Ok(Mapped {
            skeleton: Skeleton::with_names(skeleton.parents().to_vec(), mapped)?,
            offsets,
            clip: Clip::new(
                frames,
                joints,
                clip.frame_time(),
                pos,
                rot,
                crate::error::try_copy("clip scales", clip.scales())?,
            )?,
        })
    }

    /// A parsed BVH file mapped ([`JointMap::apply`]), its End Sites
    /// turned with their joints (`R_j⁻¹ end site`) and its channels kept
    /// (writing it puts the new rotations in the same Euler orders).
    pub fn apply_bvh(&self, b: &Bvh) -> Result<Bvh> {
        let m = self.apply(&b.skeleton, &b.offsets, &b.clip)?;
        let rests = self.rests(&b.skeleton)?;
        let end_sites = b
            .end_sites
            .iter()
            .zip(&rests)
            .map(|(e, r)| match (e, r) {
                (Some(e), Some(r)) => Some(quat_mul_vec3(quat_inv(*r), *e)),
                (e, _) => *e,
            })
            .collect();
        Ok(Bvh {
            skeleton: m.skeleton,
            offsets: m.offsets,
            channels: b.channels.clone(),
            end_sites,
            clip: m.clip,
        })
    }

    /// Each joint's rest rotation (`None`: unturned), checked unit.
    fn rests(&self, skeleton: &Skeleton) -> Result<Vec<Option<Quat>>> {
        let names = skeleton.names();
        let mut rests = Vec::with_capacity(names.len());
        for (j, name) in names.iter().enumerate() {
            let rest = self.find(name).and_then(|e| e.rest);
            if let Some(r) = rest {
                let len = crate::reference::quat_length(r);
                if !(len.is_finite() && (len - 1.0).abs() <= REST_UNIT_TOLERANCE) {
                    return Err(Error::Skeleton {
                        joint: j,
                        reason: format!(
                            "the joint map's rest rotation of `{name}` is {r:?}, of length {len}: it must be unit length"
                        ),
                    });
                }
            }
            rests.push(rest);
        }
        Ok(rests)
    }
}

/// Refuses two joints (`names`) that the map gives one name (`mapped`),
/// naming the second ([`Error::Skeleton`]).
fn one_name_each(names: &[String], mapped: &[String]) -> Result<()> {
    for (j, name) in mapped.iter().enumerate() {
        if let Some(k) = mapped[..j].iter().position(|m| m == name) {
            return Err(Error::Skeleton {
                joint: j,
                reason: format!(
                    "the joint map names both `{}` (joint {k}) and `{}` `{name}`",
                    names[k], names[j]
                ),
            });
        }
    }
    Ok(())
}

/// Joints of every CMU skeleton (the same hierarchy in every convention).
const CMU_JOINTS: usize = 31;

/// The MotionBuilder-friendly names (cgspeed's 2008 release: `cmu_01_01`,
/// `cmu_01_03`), in file order.
const MB: [&str; CMU_JOINTS] = [
    "Hips",
    "LHipJoint",
    "LeftUpLeg",
    "LeftLeg",
    "LeftFoot",
    "LeftToeBase",
    "RHipJoint",
    "RightUpLeg",
    "RightLeg",
    "RightFoot",
    "RightToeBase",
    "LowerBack",
    "Spine",
    "Spine1",
    "Neck",
    "Neck1",
    "Head",
    "LeftShoulder",
    "LeftArm",
    "LeftForeArm",
    "LeftHand",
    "LeftFingerBase",
    "LFingers",
    "LThumb",
    "RightShoulder",
    "RightArm",
    "RightForeArm",
    "RightHand",
    "RightFingerBase",
    "RFingers",
    "RThumb",
];

/// The 3dsMax-friendly names (`cmu_102_01_max`, `cmu_131_01_max`, the
/// embedded clip), joint for joint with [`MB`].
const MAX: [&str; CMU_JOINTS] = [
    "Hips",
    "LHipJoint",
    "LeftHip",
    "LeftKnee",
    "LeftAnkle",
    "LeftToe",
    "RHipJoint",
    "RightHip",
    "RightKnee",
    "RightAnkle",
    "RightToe",
    "lowerback",
    "Chest",
    "Chest2",
    "lowerneck",
    "Neck",
    "Head",
    "LeftCollar",
    "LeftShoulder",
    "LeftElbow",
    "LeftWrist",
    "lhand",
    "LFingers",
    "LThumb",
    "RightCollar",
    "RightShoulder",
    "RightElbow",
    "RightWrist",
    "rhand",
    "RFingers",
    "RThumb",
];

/// The 3dsMax-friendly files' turned joints: the left arm from the
/// shoulder down (a quarter turn about -z), the right (about +z), the
/// joints whose Euler order is ZXY in those files.
const MAX_LEFT_ARM: core::ops::Range<usize> = 18..24;
const MAX_RIGHT_ARM: core::ops::Range<usize> = 25..31;

/// The naming conventions of the CMU BVH conversions (cgspeed's), all of
/// the same 31-joint hierarchy. `data/mocap/README.md` lists each file's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmuNaming {
    /// MotionBuilder-friendly, fingers `LFingers`/`RFingers`
    /// (`cmu_01_01_mb`, `cmu_01_03_mb`): `LeftUpLeg`, `Spine1`, `LeftArm`,
    /// arms held out along ±x at rest.
    MotionBuilder,
    /// MotionBuilder-friendly with the fingers named `LeftHandIndex1` and
    /// `RightHandIndex1` (`cmu_12_01_walk_mb`).
    MotionBuilderIndex,
    /// 3dsMax-friendly (`cmu_102_01_max`, the embedded clip, and
    /// `cmu_131_01_max`): `LeftHip`, `Chest2`, `LeftShoulder` for the upper
    /// arm, arms hanging down along -y at rest, the arm joints' frames a
    /// quarter turn about z from the MotionBuilder files'.
    Max,
}

const ALL: [CmuNaming; 3] = [
    CmuNaming::MotionBuilder,
    CmuNaming::MotionBuilderIndex,
    CmuNaming::Max,
];

impl CmuNaming {
    /// The names, in the files' joint order.
    pub fn names(self) -> [&'static str; 31] {
        match self {
            CmuNaming::MotionBuilder => MB,
            CmuNaming::MotionBuilderIndex => {
                let mut n = MB;
                n[22] = "LeftHandIndex1";
                n[29] = "RightHandIndex1";
                n
            }
            CmuNaming::Max => MAX,
        }
    }

    /// Joint `k`'s frame against the MotionBuilder files':
    /// `W_MotionBuilder = W_self frame`.
    fn frame(self, k: usize) -> Quat {
        let h = core::f32::consts::FRAC_1_SQRT_2;
        match self {
            CmuNaming::Max if MAX_LEFT_ARM.contains(&k) => Quat::new(h, 0.0, 0.0, -h),
            CmuNaming::Max if MAX_RIGHT_ARM.contains(&k) => Quat::new(h, 0.0, 0.0, h),
            _ => Quat::IDENTITY,
        }
    }

    /// The convention whose names and hierarchy `skeleton` has (in any
    /// joint order). Refuses, naming the first joint that no convention
    /// explains ([`Error::Skeleton`]), a skeleton that is not one of them.
    pub fn of(skeleton: &Skeleton) -> Result<CmuNaming> {
        let mut best = (0, CmuNaming::MotionBuilder, 0);
        for naming in ALL {
            let names = naming.names();
            let fits = |j: usize| {
                let name = skeleton.names()[j].as_str();
                let Some(k) = names.iter().position(|n| *n == name) else {
                    return false;
                };
                let want = MB_PARENTS[k];
                match skeleton.parents()[j] {
                    p if p < 0 => want < 0,
                    p => want >= 0 && skeleton.names()[p as usize] == names[want as usize],
                }
            };
            let good = (0..skeleton.len()).take_while(|&j| fits(j)).count();
            if good == skeleton.len() && good == CMU_JOINTS {
                return Ok(naming);
            }
            if good >= best.0 {
                best = (good, naming, good);
            }
        }
        let (_, naming, j) = best;
        let reason = match skeleton.names().get(j) {
            Some(name) => format!(
                "`{name}` (parent {}) is not where the CMU conventions have it (nearest: {naming:?}, which names {})",
                skeleton.parents()[j],
                naming.names().join(", ")
            ),
            None => format!(
                "{} joints; the CMU skeletons have {CMU_JOINTS}",
                skeleton.len()
            ),
        };
        Err(Error::Skeleton { joint: j, reason })
    }
}

/// The CMU hierarchy: each joint's parent, in the files' order.
const MB_PARENTS: [i32; CMU_JOINTS] = [
    -1, 0, 1, 2, 3, 4, 0, 6, 7, 8, 9, 0, 11, 12, 13, 14, 15, 13, 17, 18, 19, 20, 21, 20, 13, 24,
    25, 26, 27, 28, 27,
];
