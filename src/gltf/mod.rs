//! glTF 2.0 in and out (feature `gltf`), on the `gltf` crate.
//!
//! **In** ([`parse`], [`load`]): the first skin's joints become a
//! [`Skeleton`] (parent-first; a joint's parent is its nearest ancestor
//! node that is also a joint; without a skin, every node is a joint), the
//! nodes' own transforms its rest pose, and every animation's translation,
//! rotation and scale channels on those joints a [`Clip`] resampled at the
//! rate the caller picks. LINEAR (rotations by shortest-path slerp, as the
//! specification's implementation note), STEP and CUBICSPLINE (cubic
//! Hermite with tangents scaled by the key interval, rotations normalized)
//! are sampled as the specification defines them; times before the first
//! key take the first value, after the last the last. A joint with no
//! channel for a property keeps its rest value. Morph weights are ignored.
//! The static transforms of non-joint ancestors of a root joint (an
//! armature node) are folded into that root.
//!
//! Resampling: a clip of duration `d` (the last key of any channel) at
//! `rate` frames per second has `floor(d × rate + 0.01) + 1` frames at
//! times `k / rate`: the frame time is exactly `1 / rate`, so clips loaded
//! at one rate can share a crowd; less than one frame of tail is dropped
//! when `d × rate` is not whole, and a tail within 1/100 of a frame of
//! whole counts as whole (BVH's `Frame Time: 0.0083333` is 1/120 less
//! 4e-6 of a frame per frame). A time within a few f32 roundings of a key
//! takes the key's value exactly.
//!
//! Buffers: the BIN chunk of a `.glb`, or, through [`load`], files next to
//! a `.gltf`. Data URIs (`data:...;base64`) are refused with a typed error:
//! base64 would be one more dependency; convert such files to `.glb`.
//!
//! **Out** ([`write_glb`], [`write_world_glb`]): a `.glb` (12-byte header,
//! JSON chunk, BIN chunk) with one node per joint, a skin whose inverse
//! bind matrices come from the rest pose, and one animation per clip: a
//! LINEAR channel per joint for translation and rotation (and scale where
//! a joint's scale is not one), keyed at every frame. kineform's linear
//! sampling is slerp between frames too, so a clip written and read back
//! at its own rate gives its frames back up to f32 rounding (measured on
//! the five CMU clips in `tests/gltf.rs`).
//!
//! Malformed files give [`Error::Gltf`](crate::Error::Gltf) with a path
//! into the document (`animations[0].samplers[2].output`, `nodes[4]`,
//! `accessors[7]`, `buffers[0]`) and the reason, never a panic: JSON
//! errors, GLB chunk errors, the `gltf` crate's validation (indices out of
//! range, invalid enums), truncated buffers, buffer views or accessors past
//! the end of their data, sparse accessors, non-finite values, cycles and
//! shared children in the node tree, animations without channels, key
//! times that go back, output counts that do not match the input count,
//! and sizes past the limits.
//!
//! ```
//! use kineform::{data, gltf};
//!
//! // The embedded CMU clip (31 joints, 277 frames at 120 fps) to .glb and back.
//! let bvh = data::default_clip();
//! let glb = gltf::write_glb(&bvh.skeleton, None, &[("walk", &bvh.clip)])?;
//! let doc = gltf::parse(&glb, 120.0)?;
//! assert_eq!(doc.skeleton.parents(), bvh.skeleton.parents());
//! let (name, clip) = (&doc.clips[0].name, &doc.clips[0].clip);
//! assert_eq!((name.as_str(), clip.frames(), clip.joints()), ("walk", 277, 31));
//! let (a, b) = (clip.pos(100, 0), bvh.clip.pos(100, 0));
//! assert!((a.y - b.y).abs() < 1e-4);
//! # Ok::<(), kineform::Error>(())
//! ```

mod accessor;
mod checks;
mod read;
mod track;
mod write;

pub use read::{load, parse};
pub use write::{WorldFrames, write_glb, write_world_glb};

use crate::clip::Clip;
use crate::reference::Kform;
use crate::skeleton::Skeleton;

/// Most frames × joints a loaded clip may have (2^24 samples, 670 MB of
/// positions, rotations and scales): a file that asks for more is refused
/// before anything is allocated.
pub const MAX_SAMPLES: usize = 1 << 24;

/// A glTF document as kineform reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// The joints, parent-first, named after their nodes (`node{i}` for a
    /// node without a name).
    pub skeleton: Skeleton,
    /// Index of each joint's glTF node.
    pub nodes: Vec<usize>,
    /// Each joint's local transform at rest (its node's TRS; velocities
    /// zero).
    pub rest: Vec<Kform>,
    /// The skin's inverse bind matrices in joint order, column-major, when
    /// the skin has them.
    pub inverse_bind: Option<Vec<[f32; 16]>>,
    /// One clip per animation, in file order.
    pub clips: Vec<NamedClip>,
}

/// A clip and its animation's name (`animation{i}` when it has none).
#[derive(Clone, Debug, PartialEq)]
pub struct NamedClip {
    /// The animation's name.
    pub name: String,
    /// Its channels on the skeleton's joints, resampled.
    pub clip: Clip,
}

pub(crate) fn err<T>(path: impl Into<String>, reason: impl Into<String>) -> crate::Result<T> {
    Err(crate::Error::Gltf {
        path: path.into(),
        reason: reason.into(),
    })
}
