//! glTF 2.0 in and out (feature `gltf`, on by default), on the `gltf` crate.
//!
//! **In** ([`parse`], [`load`]): the first skin's joints become a
//! [`Skeleton`] (parent-first; a joint's parent is its nearest ancestor
//! node that is also a joint; without a skin, every node is a joint), the
//! nodes' own transforms its rest pose, and every animation's translation,
//! rotation and scale channels on those joints a [`Clip`] resampled at a
//! [`Rate`]: the caller's, or by default each animation's own key rate.
//! LINEAR (rotations by shortest-path slerp, as the specification's
//! implementation note), STEP and CUBICSPLINE (cubic Hermite with tangents
//! scaled by the key interval, rotations normalized) are sampled as the
//! specification defines them; times before the first key take the first
//! value, after the last the last. A joint with no channel for a property
//! keeps its rest value. Morph weights are ignored.
//!
//! Nodes that are not joints but lie between a joint and its parent joint
//! (a helper), or above a root joint (an armature), are folded into the
//! joint below them, so every joint's world transform is the one glTF
//! defines: their rest transforms into the rest pose and every frame, and
//! their animated channels frame by frame. A uniform scale folds exactly; a
//! non-uniform one does not (glTF composes it as a matrix, which a joint's
//! translation, rotation and scale cannot hold once a rotation follows it),
//! so such a node is refused, named, rather than dropped. Nodes that are
//! not ancestors of a joint (meshes, cameras) and their channels are not
//! part of the skeleton and are ignored.
//!
//! Resampling: a clip of duration `d` (the last key of any channel it
//! reads) at `rate` frames per second has `floor(d × rate + 0.01) + 1`
//! frames at times `k / rate`: the frame time is exactly `1 / rate`, so
//! clips loaded at one rate can share a crowd; less than one frame of tail
//! is dropped when `d × rate` is not whole, and a tail within 1/100 of a
//! frame of whole counts as whole (BVH's `Frame Time: 0.0083333` is 1/120
//! less 4e-6 of a frame per frame). A time within a few f32 roundings of a
//! key takes the key's value exactly. [`Rate::Keys`] (the default) is each
//! animation's key rate (see its docs): a clip written at 120 frames per
//! second comes back with all its frames.
//!
//! Buffers: the BIN chunk of a `.glb` (used in place, not copied), data
//! URIs (`data:...;base64,...`, as Blender's "glTF Embedded" writes them),
//! and, through [`load`], files next to a `.gltf`: a relative URI
//! (percent-decoded), a regular file whose real path (links resolved) is
//! inside the document's folder, opened without blocking (a FIFO or a
//! device is refused, not waited on) and read no further than the buffer's
//! `byteLength`. Only the buffers that the animations and the skin use are
//! read. Sparse accessors are read through the `gltf` crate's accessor
//! iterator after every view, offset, stride and index they touch has been
//! checked.
//!
//! **Limits** (checked before anything proportional to them is allocated,
//! each refusal an [`Error::Gltf`](crate::Error::Gltf) that says the limit
//! and how much the file asks for): [`MAX_KEY_VALUES`] key values decoded
//! in the whole document (every accessor once, however many channels and
//! animations share it), [`MAX_SAMPLES`] resampled joint-frames summed over
//! every animation, [`MAX_BUFFER_BYTES`] bytes of buffers read from files
//! and data URIs, and [`MAX_JOINTS`](crate::skeleton::MAX_JOINTS) joints.
//! Work on the node tree is linear in its size (parents, cycles, folding in
//! single passes). Peak memory is then the input, the JSON as the `gltf`
//! crate holds it, at most `4 × MAX_KEY_VALUES` bytes of keys and
//! `40 × MAX_SAMPLES` bytes of clips (the figures of `tests/gltf_hostile/`).
//!
//! **Out** ([`write_glb`], [`write_gltf`], [`write_world_glb`]): a `.glb`
//! (12-byte header, JSON chunk, BIN chunk), or a `.gltf` whose buffer is a
//! `.bin` file beside it, with one node per joint, a skin whose inverse
//! bind matrices come from the rest pose, and one animation per clip: a
//! LINEAR channel per joint for translation and rotation (and scale where
//! a joint's scale is not one), keyed at every frame. Every rotation
//! written is normalized in f64 (the Khronos validator checks unit length
//! to 1e-6 or so). kineform's linear sampling is slerp between frames too,
//! so a clip written and read back at its own rate gives its frames back up
//! to f32 rounding (measured on the five CMU clips in `tests/suite/gltf.rs`).
//! `.ci/run` checks every kind of file written with the Khronos
//! validator.
//!
//! Malformed files give [`Error::Gltf`](crate::Error::Gltf) with a path
//! into the document (`animations[0].samplers[2].output`, `nodes[4]`,
//! `accessors[7]`, `buffers[0]`), the reason and, through [`load`], the
//! file, never a panic: JSON errors, GLB chunk errors, the `gltf` crate's
//! validation (indices out of range, invalid enums), truncated buffers,
//! buffer views or accessors past the end of their data, sparse indices out
//! of order or range, non-finite values, cycles and shared children in the
//! node tree, animations without channels, key times that go back or repeat, output
//! counts that do not match the input count, and sizes past the limits.
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
//! let (a, b) = (clip.pos(100, 0), bvh.clip.pos(100, 0)); // None out of range
//! assert!((a.unwrap().y - b.unwrap().y).abs() < 1e-4);
//! # Ok::<(), kineform::Error>(())
//! ```

mod accessor;
mod animation;
mod buffers;
mod checks;
mod nodes;
mod read;
mod track;
mod world;
mod write;

pub use read::{load, parse};
pub use world::{WorldFrames, write_world_glb};
pub use write::{GltfFiles, write_glb, write_gltf};

use crate::clip::Clip;
use crate::reference::Kform;
use crate::skeleton::Skeleton;

/// The glTF reader's limits, kept with every other in [`crate::limits`]:
/// joint-frames summed over a document's animations ([`MAX_SAMPLES`]), key
/// values decoded ([`MAX_KEY_VALUES`]), buffer bytes ([`MAX_BUFFER_BYTES`])
/// and the lowest key rate ([`MIN_KEY_RATE`]).
pub use crate::limits::{MAX_BUFFER_BYTES, MAX_KEY_VALUES, MAX_SAMPLES, MIN_KEY_RATE};

/// The frame rate at which animations are resampled.
///
/// `Rate::Keys` takes each animation's own: the rate of its densest
/// sampler, `(keys - 1) / (last key time - first key time)` over the
/// samplers of the channels it reads, rounded to the nearest whole number
/// of frames per second when within 1e-6 of it (the f32 rounding of key
/// times at `k / 30`), and at least [`MIN_KEY_RATE`]. Uniform keys are
/// then sampled at their own times: a clip keyed at BVH's `Frame Time:
/// 0.0083333` comes back with that frame time and its keys exactly. An
/// animation whose samplers have one key each is one frame long and gets
/// the frame time `1 / 60`. Animations of one document may get different
/// rates: pass [`Rate::Fps`] where clips must share one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Rate {
    /// Each animation's own key rate.
    #[default]
    Keys,
    /// This many frames per second (finite, > 0) for every animation.
    Fps(f32),
}

impl From<f32> for Rate {
    fn from(fps: f32) -> Rate {
        Rate::Fps(fps)
    }
}

/// So that a literal (`parse(&bytes, 30.0)`) is a rate too.
impl From<f64> for Rate {
    fn from(fps: f64) -> Rate {
        Rate::Fps(fps as f32)
    }
}

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

/// An [`Error::Gltf`](crate::Error::Gltf) at `path` (no file: [`load`]
/// adds it).
pub(crate) fn error(path: impl Into<String>, reason: impl Into<String>) -> crate::Error {
    crate::Error::Gltf {
        file: None,
        path: path.into(),
        reason: reason.into(),
    }
}

pub(crate) fn err<T>(path: impl Into<String>, reason: impl Into<String>) -> crate::Result<T> {
    Err(error(path, reason))
}
