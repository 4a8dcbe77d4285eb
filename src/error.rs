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
    /// A BVH file is malformed, or a BVH file could not be written; `line`
    /// is 1-based, 0 when it is not tied to one line (then no line is
    /// shown). Input quoted in `reason` is a bounded excerpt.
    #[error("{}BVH{}: {reason}", file_prefix(path), line_text(*line))]
    Bvh {
        /// The file, when it was read with [`crate::bvh::load`].
        path: Option<String>,
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
    /// A glTF document is malformed, not supported or past a limit; `path`
    /// points into the document (`animations[0].samplers[2].output`,
    /// `buffers[1]`, `glb` for the binary container, empty for the document
    /// as a whole).
    #[error("{}glTF{}: {reason}", file_prefix(file), path_text(path))]
    Gltf {
        /// The file, when it was read with [`crate::gltf::load`].
        file: Option<String>,
        /// Where in the document.
        path: String,
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
    /// A value of a clip is not usable: not finite, a rotation that is not
    /// unit length, a scale that is not positive.
    #[error("clip frame {frame} joint {joint}: {reason}")]
    Clip {
        /// Frame of the bad value (0-based).
        frame: usize,
        /// Joint of the bad value (0-based).
        joint: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// One of many values given for a range of characters was refused
    /// ([`crate::crowd::Crowd::set_roots`]): which character, and why.
    #[error("character {character}: {error}")]
    Character {
        /// The character whose value was refused.
        character: usize,
        /// Why it was refused.
        error: Box<Error>,
    },
    /// A part of a crowd's configuration was refused (`layer 1`, `blend
    /// profile 0`), and why.
    #[error("{part}: {error}")]
    Config {
        /// Which part.
        part: String,
        /// Why it was refused.
        error: Box<Error>,
    },
    /// A joint name that the skeleton has not (a layer's mask, a blend
    /// profile).
    #[error("no joint named {name:?} in the clips' skeleton")]
    JointName {
        /// The name given.
        name: String,
    },
    /// A file could not be read or written, or was refused before it was
    /// (not a regular file, larger than its format's limit,
    /// [`crate::files`]).
    #[error("{path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's reason, or why it was refused.
        reason: String,
    },
    /// An error about what a file holds, or about what was to be written to
    /// it, with the file named ([`Error::in_file`]).
    #[error("{path}: {error}")]
    File {
        /// The file.
        path: String,
        /// What was wrong.
        error: Box<Error>,
    },
    /// A range (of characters, of frames) that is reversed or runs past
    /// the end of what it indexes.
    #[error("{what} {start}..{end} {}", range_text(*start, *end, *len))]
    Range {
        /// What the range is of.
        what: &'static str,
        /// Its start.
        start: usize,
        /// Its end (exclusive).
        end: usize,
        /// How many there are.
        len: usize,
    },
}

impl Error {
    /// This error with `path` named: [`Error::File`], unless it already
    /// names a file (an [`Error::Io`], an [`Error::File`], an
    /// [`Error::Bvh`] with its path), which is returned as it is.
    pub fn in_file(self, path: &std::path::Path) -> Error {
        match self {
            Error::Io { .. }
            | Error::File { .. }
            | Error::Bvh { path: Some(_), .. }
            | Error::Gltf { file: Some(_), .. } => self,
            Error::Gltf {
                file: None,
                path: at,
                reason,
            } => Error::Gltf {
                file: Some(path.display().to_string()),
                path: at,
                reason,
            },
            Error::Bvh {
                path: None,
                line,
                reason,
            } => Error::Bvh {
                path: Some(path.display().to_string()),
                line,
                reason,
            },
            e => Error::File {
                path: path.display().to_string(),
                error: Box::new(e),
            },
        }
    }
}

fn line_text(line: usize) -> String {
    match line {
        0 => String::new(),
        n => format!(" line {n}"),
    }
}

fn range_text(start: usize, end: usize, len: usize) -> String {
    if start > end {
        "is reversed: it starts after it ends".into()
    } else if end > len {
        format!("runs past the end (there are {len})")
    } else {
        "is empty".into()
    }
}

/// A glTF error's place in the document, after a space; nothing for the
/// document as a whole (no "glTF : JSON").
fn path_text(path: &str) -> String {
    match path {
        "" => String::new(),
        p => format!(" {p}"),
    }
}

fn file_prefix(path: &Option<String>) -> String {
    path.as_ref().map_or_else(String::new, |p| format!("{p}: "))
}

/// `Result<T, kineform::Error>`.
pub type Result<T> = core::result::Result<T, Error>;

/// [`Error::Length`] naming `what` unless `got >= expected`.
pub(crate) fn at_least(what: &'static str, expected: usize, got: usize) -> Result<()> {
    if got >= expected {
        return Ok(());
    }
    Err(Error::Length {
        what,
        expected,
        got,
    })
}

/// [`Error::Length`] naming `what` unless `got == expected`.
pub(crate) fn exactly(what: &'static str, expected: usize, got: usize) -> Result<()> {
    if got == expected {
        return Ok(());
    }
    Err(Error::Length {
        what,
        expected,
        got,
    })
}

/// `n` copies of `value` in a new vector, or [`Error::Size`] naming `what`
/// and the bytes it would need when the size overflows or the memory cannot
/// be reserved (`try_reserve`: nothing is allocated then).
pub(crate) fn try_vec<T: Clone>(what: &'static str, n: usize, value: T) -> Result<Vec<T>> {
    let mut v = try_empty(what, n)?;
    crate::pages::advise_spare(&v);
    v.resize(n, value);
    crate::pages::collapse_filled(&v);
    Ok(v)
}

/// An empty vector with room for exactly `n` elements, or [`Error::Size`]
/// naming `what` and the bytes it would need (nothing allocated).
pub(crate) fn try_empty<T>(what: &'static str, n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| refused_size::<T>(what, n))?;
    Ok(v)
}

/// [`Error::Size`] for `n` elements of `T` that could not be reserved.
pub(crate) fn refused_size<T>(what: &'static str, n: usize) -> Error {
    Error::Size {
        what,
        reason: format!(
            "{n} elements of {} bytes ({}) could not be reserved",
            core::mem::size_of::<T>(),
            bytes_text(n.checked_mul(core::mem::size_of::<T>()))
        ),
    }
}

/// `items` copied into a new vector reserved with `try_reserve`, or
/// [`Error::Size`] naming `what` (nothing allocated).
pub(crate) fn try_copy<T: Copy>(what: &'static str, items: &[T]) -> Result<Vec<T>> {
    let mut v = try_empty(what, items.len())?;
    v.extend_from_slice(items);
    Ok(v)
}

/// The `n` items of `items` in a new vector reserved with `try_reserve`
/// before any is made, or [`Error::Size`] naming `what` (nothing
/// allocated). `items` yields exactly `n` (checked in debug builds).
pub(crate) fn try_collect<T>(
    what: &'static str,
    n: usize,
    items: impl IntoIterator<Item = T>,
) -> Result<Vec<T>> {
    let mut v = try_empty(what, n)?;
    v.extend(items);
    // Every caller's `items` is a range of `n` mapped, or such ranges
    // flattened in rows of a fixed width counted into `n`: exact by
    // construction whatever the input, so this cannot fire.
    debug_assert_eq!(v.len(), n, "{what}");
    Ok(v)
}

/// Pushes `item` onto `v`, growing it with `try_reserve` (doubling, as
/// `push` does) so that a vector filled item by item from a file fails
/// with [`Error::Size`] naming `what` instead of aborting the process.
pub(crate) fn try_push<T>(what: &'static str, v: &mut Vec<T>, item: T) -> Result<()> {
    if v.len() == v.capacity() {
        let more = v.capacity().max(64);
        v.try_reserve(more)
            .map_err(|_| refused_size::<T>(what, v.len() + 1))?;
    }
    v.push(item);
    Ok(())
}

/// A byte count for messages: `"7.4 GB"`, or `"more than 2^64 bytes"`.
pub(crate) fn bytes_text(bytes: Option<usize>) -> String {
    match bytes {
        Some(b) if b >= 1 << 30 => format!("{:.1} GB", b as f64 / 1e9),
        Some(b) if b >= 1 << 20 => format!("{:.1} MB", b as f64 / 1e6),
        Some(b) => format!("{b} bytes"),
        None => "more than 2^64 bytes".into(),
    }
}

/// `a × b`, or [`Error::Size`] naming `what` when it overflows `usize`.
pub(crate) fn checked_mul(what: &'static str, a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b).ok_or_else(|| Error::Size {
        what,
        reason: format!("{a} × {b} overflows"),
    })
}
