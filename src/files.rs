//! Files on disk, read and written one way by every part of kineform (the
//! BVH loader, the glTF loader, `kineform convert`, the CLI's clips):
//!
//! - [`read_file`] opens regular files only (a link to `/dev/zero`, a
//!   FIFO, a device or a directory is refused without a byte read, and
//!   opening never waits for a FIFO's writer), refuses a file larger than
//!   the format's limit before reading it, and never reads past the limit
//!   if the file grows meanwhile;
//! - [`write_file`] replaces a file whole or not at all: the bytes go to a
//!   temporary file beside it, are flushed to the disk, and the temporary
//!   file is renamed over the target; a write that fails part way (a full
//!   disk, a file-size limit) removes the temporary file and leaves every
//!   existing file as it was. So the output may be the input.
//!
//! Every refusal is an [`Error::Io`] naming the path.

use std::io::{Read, Write};
use std::path::Path;

use crate::error::{Error, Result};

/// Whether [`read_file`] follows a symbolic link in the path's last
/// component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// Follows it (to a regular file: the type is checked on the file
    /// opened). What a command-line input wants.
    Follow,
    /// Refuses a path whose last component is a symbolic link. What a
    /// file named inside another file (a glTF buffer URI) wants.
    Refuse,
}

fn io(path: &Path, reason: impl Into<String>) -> Error {
    Error::Io {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

/// What kind of file `t` is, in words, for a refusal.
fn kind(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading without blocking on a FIFO (`O_NONBLOCK`, and
/// `O_NOFOLLOW` for [`Links::Refuse`]).
fn open(path: &Path, links: Links) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let nofollow = match links {
            Links::Follow => 0,
            Links::Refuse => libc::O_NOFOLLOW,
        };
        o.custom_flags(libc::O_NONBLOCK | nofollow);
    }
    #[cfg(not(unix))]
    if links == Links::Refuse
        && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
    {
        return Err(std::io::Error::other("is a symbolic link"));
    }
    o.open(path)
}

/// The bytes of the regular file `path`, at most `limit` of them; `format`
/// names the kind of file for the refusal (`".bvh"`).
///
/// Refused with [`Error::Io`] naming the path, nothing read: a path that
/// cannot be opened; one that is not a regular file (a FIFO, a device such
/// as `/dev/zero`, a directory: checked on the file opened, so a link
/// swapped in meanwhile is caught too); with [`Links::Refuse`], a path
/// whose last component is a symbolic link; a file larger than `limit`
/// (also when it grows while being read); memory for it that cannot be
/// reserved.
pub fn read_file(path: &Path, limit: u64, format: &str, links: Links) -> Result<Vec<u8>> {
    let mut file = open(path, links).map_err(|e| {
        #[cfg(unix)]
        if links == Links::Refuse && e.raw_os_error() == Some(libc::ELOOP) {
            return io(path, "is a symbolic link, which is not followed here");
        }
        io(path, e.to_string())
    })?;
    let meta = file.metadata().map_err(|e| io(path, e.to_string()))?;
    if !meta.is_file() {
        return Err(io(
            path,
            format!("is {}: only regular files are read", kind(meta.file_type())),
        ));
    }
    let too_big = |len: u64| {
        io(
            path,
            format!(
                "is {len} bytes, more than the {limit} bytes a {format} file may have (kineform::limits)"
            ),
        )
    };
    if meta.len() > limit {
        return Err(too_big(meta.len()));
    }
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(meta.len() as usize).map_err(|_| {
        io(
            path,
            format!("{} bytes could not be reserved to read it", meta.len()),
        )
    })?;
    // One byte past the limit tells a file that grew past it.
    (&mut file)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| io(path, e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Replaces `path` with `bytes` whole, or leaves it as it was (module
/// docs): a temporary file in the same folder, written, flushed to the
/// disk (`fsync`), given the permissions of the file it replaces (a new
/// file those `std::fs::write` gives: 0o666 less the umask), and
/// renamed over `path` (atomic on POSIX file systems). An existing `path`
/// that is not a regular file (a link, a FIFO, a device, a folder) is
/// refused, nothing written; so is a folder where no temporary file can be
/// made. Any failure removes the temporary file.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    write_files(&[(path, bytes)])
}

/// Replaces each `(path, bytes)` whole, as [`write_file`] does one: every
/// file is first written in full to its temporary file and flushed to the
/// disk, and only then are the temporary files renamed over their paths,
/// in order. A write that fails part way (a full disk, a file-size limit)
/// leaves every existing file as it was, the other files of the set too
/// (a `.gltf` and its `.bin`).
pub fn write_files(files: &[(&Path, &[u8])]) -> Result<()> {
    let mut staged = Vec::with_capacity(files.len());
    for &(path, bytes) in files {
        staged.push((path, stage(path, bytes)?));
    }
    for (path, tmp) in staged {
        tmp.persist(path).map_err(|e| {
            io(
                path,
                format!(
                    "not written ({}); the files before it in the set were replaced",
                    e.error
                ),
            )
        })?;
    }
    Ok(())
}

/// `bytes` in a temporary file beside `path`, flushed to the disk, with the
/// permissions `path` has (or a new file's), for [`write_files`] to rename.
fn stage(path: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile> {
    // `q.gltf/` names a directory that is not there: its temporary file
    // (beside it, in `.`) would stage, and only the rename fail, after
    // the files before it in the set were replaced.
    if path
        .as_os_str()
        .to_string_lossy()
        .ends_with(['/', std::path::MAIN_SEPARATOR])
    {
        return Err(io(
            path,
            "ends with a path separator: a file's name must not".to_string(),
        ));
    }
    let existing = match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => Some(m),
        Ok(m) => {
            return Err(io(
                path,
                format!(
                    "is {}: kineform writes only regular files, replacing them whole",
                    kind(m.file_type())
                ),
            ));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(path, e.to_string())),
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let failed = |e: std::io::Error| {
        io(
            path,
            format!("not written ({e}); every existing file is as it was"),
        )
    };
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".kineform-tmp");
    // A new file gets the permissions `std::fs::write` would give it
    // (0o666 less the umask), not the temporary file's 0o600.
    #[cfg(unix)]
    if existing.is_none() {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(failed)?;
    tmp.write_all(bytes).map_err(failed)?;
    tmp.flush().map_err(failed)?;
    if let Some(m) = existing {
        tmp.as_file()
            .set_permissions(m.permissions())
            .map_err(failed)?;
    }
    tmp.as_file().sync_all().map_err(failed)?;
    Ok(tmp)
}
