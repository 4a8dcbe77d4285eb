//! A validated joint hierarchy, checked once so kernels need not check again.

use crate::error::{Error, Result};

pub use crate::limits::MAX_JOINTS;

/// A joint hierarchy in parent-first order: `parents[i]` is -1 for a root,
/// else the index of joint `i`'s parent, which is smaller than `i`.
///
/// With the `serde` feature it serializes as `{ "parents": [...], "names":
/// [...] }` and deserializing validates as [`Skeleton::with_names`] does.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "SkeletonData")
)]
pub struct Skeleton {
    parents: Vec<i32>,
    names: Vec<String>,
    /// The joints cut into chains once, for forward kinematics (derived
    /// from `parents`: not serialized, rebuilt on the way in).
    #[cfg_attr(feature = "serde", serde(skip))]
    chains: Vec<Chain>,
}

/// A run of consecutive joints `start..end` in which every joint after the
/// first is the child of the joint before it; `parent` is the first joint's
/// parent (-1 for a root). Forward kinematics walks a chain with no check
/// of the hierarchy inside it: the joint just computed is the next one's
/// parent, kept in registers or read straight back
/// ([`crate::lanes::fk_packs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chain {
    /// First joint of the run.
    pub start: usize,
    /// One past the last joint.
    pub end: usize,
    /// Parent of `start`: -1 for a root, else a joint before `start`.
    pub parent: i32,
}

/// `parents` (validated: each parent precedes its child) cut into maximal
/// [`Chain`]s, in joint order.
fn chains_of(parents: &[i32]) -> Vec<Chain> {
    let mut chains: Vec<Chain> = Vec::new();
    for (j, &p) in parents.iter().enumerate() {
        match chains.last_mut() {
            Some(c) if p >= 0 && p as usize + 1 == j => c.end = j + 1,
            _ => chains.push(Chain {
                start: j,
                end: j + 1,
                parent: p,
            }),
        }
    }
    chains
}

impl Skeleton {
    /// Validates `parents` (joints named `joint0`, `joint1`, ...).
    pub fn new(parents: Vec<i32>) -> Result<Skeleton> {
        let names = (0..parents.len()).map(|i| format!("joint{i}")).collect();
        Skeleton::with_names(parents, names)
    }

    /// Validates `parents` and keeps a name per joint. Errors name the first
    /// bad joint: no joints, more than [`MAX_JOINTS`], a parent that is not
    /// -1 and not smaller than its child, or a name count that differs.
    pub fn with_names(parents: Vec<i32>, names: Vec<String>) -> Result<Skeleton> {
        let bad = |joint: usize, reason: String| Err(Error::Skeleton { joint, reason });
        if parents.is_empty() {
            return bad(0, "a skeleton needs at least one joint (a root)".into());
        }
        if parents.len() > MAX_JOINTS {
            return bad(
                MAX_JOINTS,
                format!("{} joints; at most {MAX_JOINTS} are allowed", parents.len()),
            );
        }
        if names.len() != parents.len() {
            return bad(
                names.len().min(parents.len()),
                format!("{} names for {} joints", names.len(), parents.len()),
            );
        }
        for (i, &p) in parents.iter().enumerate() {
            if p < -1 || p >= i as i32 {
                return bad(
                    i,
                    format!("parent {p} must be -1 (a root) or a joint index smaller than {i}"),
                );
            }
        }
        let chains = chains_of(&parents);
        Ok(Skeleton {
            parents,
            names,
            chains,
        })
    }

    /// Parent of each joint, -1 for roots.
    pub fn parents(&self) -> &[i32] {
        &self.parents
    }

    /// The joints cut into [`Chain`]s: every joint in exactly one, in joint
    /// order. A skeleton in depth-first order (as BVH files are) has one
    /// chain per branch: the 31-joint CMU skeleton has 7.
    pub fn chains(&self) -> &[Chain] {
        &self.chains
    }

    /// Name of each joint.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Number of joints.
    pub fn len(&self) -> usize {
        self.parents.len()
    }

    /// Always false: a skeleton has at least one joint.
    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// Index of the joint called `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Depth of the deepest chain, counting a root as 1.
    pub fn depth(&self) -> usize {
        let mut depth = vec![0usize; self.len()];
        for (i, &p) in self.parents.iter().enumerate() {
            depth[i] = if p < 0 { 1 } else { depth[p as usize] + 1 };
        }
        depth.into_iter().max().unwrap_or(0)
    }
}

/// The serialized form of a [`Skeleton`], validated on the way in.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct SkeletonData {
    parents: Vec<i32>,
    names: Vec<String>,
}

#[cfg(feature = "serde")]
impl TryFrom<SkeletonData> for Skeleton {
    type Error = Error;
    fn try_from(d: SkeletonData) -> Result<Skeleton> {
        Skeleton::with_names(d.parents, d.names)
    }
}
