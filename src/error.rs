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
    /// A size that overflows, exceeds a documented limit, or needs more
    /// memory than could be reserved; nothing was allocated for it.
    #[error("{what}: {reason}")]
    Size {
        /// Which size.
        what: &'static str,
        /// Why it is refused (the limit, or the bytes it needs).
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
