//! Mirroring clips left for right, to double a matching database.
//!
//! A reflection `M` across the plane through the origin whose normal is the
//! skeleton's lateral axis (`x` for the CMU skeletons, whose left side is
//! `+x`) turns a motion into its mirror image. Joint `j`'s partner `m(j)`
//! (`LeftFoot` for `RightFoot`, itself for a joint on the midline) takes
//! `j`'s mirrored values:
//!
//! ```text
//! world:  W'[m(j)] = M W[j] M,   P'[m(j)] = M P[j]
//! local:  rot'[m(j)] = (w, -M v)  for rot[j] = (w, v)   (x normal: (w, x, -y, -z))
//!         pos'[m(j)] = M pos[j]                          (x normal: (-x, y, z))
//!         scl'[m(j)] = scl[j]
//! ```
//!
//! A rotation's axis is a pseudovector, so it turns by `det(M) M = -M`.
//! The local formulas give exactly the mirrored world pose when the
//! hierarchy is symmetric (`parent(m(j)) = m(parent(j))`, checked by
//! [`MirrorMap::new`]) and each joint's rest frame is the mirror of its
//! partner's (true of every CMU convention: identity frames, and in the
//! 3dsMax-friendly files arm frames turned a quarter turn about `-z` on
//! the left and `+z` on the right, which `M` swaps). Played on a
//! library's bones, whose left and right lengths differ slightly in
//! captured skeletons, the mirrored clip is the mirror image up to that
//! asymmetry (`tests/suite/matching.rs` measures both).

use crate::clip::Clip;
use crate::crowd::ClipLibrary;
use crate::error::{Error, Result, try_empty, try_vec};
use crate::joint_map::CmuNaming;
use crate::reference::{Quat, Vec3};
use crate::skeleton::Skeleton;

/// The mirror plane's normal, a skeleton axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum MirrorAxis {
    /// Mirror `x` (the CMU skeletons' lateral axis).
    X,
    /// Mirror `y`.
    Y,
    /// Mirror `z`.
    Z,
}

/// Which joint takes which joint's mirrored values, and across which
/// plane (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct MirrorMap {
    partner: Vec<usize>,
    axis: MirrorAxis,
}

impl MirrorMap {
    /// The map of `skeleton` pairing each `(left, right)` of `pairs` by
    /// name (every joint not named is its own partner), mirroring across
    /// `axis`. Refuses, naming the joint ([`Error::Skeleton`]): a name the
    /// skeleton lacks, a joint in two pairs or paired with itself, and a
    /// pairing the hierarchy does not mirror (`parent(m(j)) != m(parent(j))`).
    pub fn new(skeleton: &Skeleton, pairs: &[(&str, &str)], axis: MirrorAxis) -> Result<MirrorMap> {
        let n = skeleton.len();
        let mut partner: Vec<usize> = (0..n).collect();
        let mut paired = vec![false; n];
        let find = |name: &str| {
            skeleton.find(name).ok_or_else(|| Error::Skeleton {
                joint: 0,
                reason: format!("the mirror map names `{name}`, which the skeleton lacks"),
            })
        };
        for &(a, b) in pairs {
            let (i, k) = (find(a)?, find(b)?);
            for j in [i, k] {
                if paired[j] || i == k {
                    return Err(Error::Skeleton {
                        joint: j,
                        reason: format!(
                            "the mirror map pairs `{}` twice (or with itself)",
                            skeleton.names()[j]
                        ),
                    });
                }
                paired[j] = true;
            }
            partner[i] = k;
            partner[k] = i;
        }
        let parents = skeleton.parents();
        for j in 0..n {
            let (p, pm) = (parents[j], parents[partner[j]]);
            let want = if p < 0 {
                -1
            } else {
                partner[p as usize] as i32
            };
            if pm != want {
                return Err(Error::Skeleton {
                    joint: j,
                    reason: format!(
                        "the mirror map pairs `{}` with `{}`, whose parents are not partners",
                        skeleton.names()[j],
                        skeleton.names()[partner[j]]
                    ),
                });
            }
        }
        Ok(MirrorMap { partner, axis })
    }

    /// The map of a CMU skeleton of any naming convention
    /// ([`CmuNaming`]): the legs from the hip joints down and the arms from
    /// the shoulders (collars) down, across `x`. Refuses, naming the joint,
    /// a skeleton of no CMU convention.
    pub fn cmu(skeleton: &Skeleton) -> Result<MirrorMap> {
        let names = CmuNaming::of(skeleton)?.names();
        // The CMU hierarchy's file order: left leg 1-5, right leg 6-10,
        // left arm 17-23, right arm 24-30.
        let pairs: Vec<(&str, &str)> = (1..=5)
            .map(|k| (names[k], names[k + 5]))
            .chain((17..=23).map(|k| (names[k], names[k + 7])))
            .collect();
        MirrorMap::new(skeleton, &pairs, MirrorAxis::X)
    }

    /// Joint `j`'s partner (`j` itself on the midline). Panics when `j` is
    /// not a joint of the map's skeleton.
    pub fn partner(&self, j: usize) -> usize {
        self.partner[j]
    }

    /// Number of joints.
    pub fn len(&self) -> usize {
        self.partner.len()
    }

    /// True for a map of no joints.
    pub fn is_empty(&self) -> bool {
        self.partner.is_empty()
    }

    /// The mirror plane's normal.
    pub fn axis(&self) -> MirrorAxis {
        self.axis
    }

    /// `M v`: a point or direction mirrored.
    pub fn mirror_vec3(&self, v: Vec3) -> Vec3 {
        match self.axis {
            MirrorAxis::X => Vec3::new(-v.x, v.y, v.z),
            MirrorAxis::Y => Vec3::new(v.x, -v.y, v.z),
            MirrorAxis::Z => Vec3::new(v.x, v.y, -v.z),
        }
    }

    /// `M R M` for the rotation `q`: `(w, -M v)`.
    pub fn mirror_quat(&self, q: Quat) -> Quat {
        let v = self.mirror_vec3(q.xyz());
        Quat::new(q.w, -v.x, -v.y, -v.z)
    }

    /// `clip` mirrored (module docs): joint `m(j)` of each frame takes joint
    /// `j`'s mirrored position and rotation and its scale. Refuses a clip
    /// whose joint count is not the map's.
    pub fn mirror_clip(&self, clip: &Clip) -> Result<Clip> {
        let joints = clip.joints();
        if joints != self.partner.len() {
            return Err(Error::Length {
                what: "clip joints (one per joint of the mirror map)",
                expected: self.partner.len(),
                got: joints,
            });
        }
        let n = clip.frames() * joints;
        let (mut pos, mut rot, mut scl) = (
            try_vec("mirrored clip positions", n, Vec3::ZERO)?,
            try_vec("mirrored clip rotations", n, Quat::IDENTITY)?,
            try_vec("mirrored clip scales", n, Vec3::ONE)?,
        );
        for f in 0..clip.frames() {
            for j in 0..joints {
                let to = f * joints + self.partner[j];
                pos[to] = self.mirror_vec3(clip.pos_at(f, j));
                rot[to] = self.mirror_quat(clip.rot_at(f, j));
                scl[to] = clip.scl_at(f, j);
            }
        }
        Clip::new(clip.frames(), joints, clip.frame_time(), pos, rot, scl)
    }
}

/// Adds a mirrored copy of each of `library`'s clips to it, after the
/// clips it holds; returns the mirrored copies' indices (clip `i`'s mirror
/// is `clips[i]` of the result). Refuses, adding nothing, a map of another
/// joint count, and mirrored clips that cannot be had in memory
/// ([`Error::Size`] naming what, instead of an abort) or that
/// [`ClipLibrary::add`] refuses. One clip's mirror is made at a time, so
/// the memory it needs beyond the mirrored clips is one clip's.
pub fn add_mirrored(library: &mut ClipLibrary, map: &MirrorMap) -> Result<Vec<usize>> {
    let before = library.len();
    let skeleton = library.skeleton().clone();
    let mut added = try_empty("mirrored clip indices", before)?;
    for i in 0..before {
        let done = map
            .mirror_clip(&library.clips()[i])
            .and_then(|m| library.add(&skeleton, &m));
        match done {
            Ok(k) => added.push(k),
            Err(e) => {
                library.truncate(before);
                return Err(e);
            }
        }
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirroring_twice_is_the_identity_and_quaternions_stay_rotations() {
        let b = crate::data::default_clip();
        let map = MirrorMap::cmu(&b.skeleton).unwrap();
        let twice = map.mirror_clip(&map.mirror_clip(&b.clip).unwrap()).unwrap();
        assert_eq!(twice, b.clip);
        // The left foot's partner is the right foot.
        let l = b.skeleton.find("LeftAnkle").unwrap();
        assert_eq!(b.skeleton.names()[map.partner(l)], "RightAnkle");
        assert_eq!(map.partner(0), 0);
    }

    #[test]
    fn refuses_unknown_names_double_pairs_and_asymmetric_pairs() {
        let s = crate::data::default_clip().skeleton;
        let x = MirrorAxis::X;
        assert!(MirrorMap::new(&s, &[("LeftHip", "Nope")], x).is_err());
        let e = MirrorMap::new(&s, &[("LeftHip", "RightHip"), ("LeftHip", "RightKnee")], x);
        assert!(e.is_err());
        // Knees paired without their hips: parents are not partners.
        let e = MirrorMap::new(&s, &[("LeftKnee", "RightKnee")], x).unwrap_err();
        assert!(e.to_string().contains("parents are not partners"), "{e}");
    }
}
