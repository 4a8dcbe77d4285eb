//! One error type for every refusal: a batch call that refuses writes nothing.

/// Why kineform refused an input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// Two inputs that must have matching sizes do not.
    #[error("{what}: expected length {expected}, got {got}")]
    Length {
        /// Which argument.
        what: &'static str,
        /// The length it must have.
        expected: usize,
        /// The length it has.
        got: usize,
    },
    /// A scalar parameter is out of its domain (negative dt, NaN half-life, ...).
    #[error("{name} = {value}: {reason}")]
    Parameter {
        /// Which parameter.
        name: &'static str,
        /// Its value.
        value: f32,
        /// What it must be.
        reason: &'static str,
    },
    /// A skeleton hierarchy is invalid; `joint` is the first bad joint.
    #[error("skeleton joint {joint}: {reason}")]
    Skeleton {
        /// Index of the bad joint (0 for an empty skeleton).
        joint: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A BVH file is malformed; `line` is 1-based (0 when it is not tied to
    /// one line).
    #[error("BVH line {line}: {reason}")]
    Bvh {
        /// Line of the problem.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// An index (of a character, a clip, a joint) is out of range.
    #[error("{what} {index} is out of range (there are {len})")]
    Index {
        /// What the index is of.
        what: &'static str,
        /// The index given.
        index: usize,
        /// How many there are.
        len: usize,
    },
    /// A glTF document is malformed or not supported; `path` points into
    /// the document (`animations[0].samplers[2].output`, `buffers[1]`,
    /// `glb` for the binary container, empty for the JSON as a whole).
    #[error("glTF {path}: {reason}")]
    Gltf {
        /// Where in the document.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
}

/// `Result<T, kineform::Error>`.
pub type Result<T> = core::result::Result<T, Error>;
