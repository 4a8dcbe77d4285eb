//! Buffers: the GLB BIN chunk in place, data URIs decoded, and files
//! beside a `.gltf` opened with care (issue 21, defect 7): a relative path
//! inside the document's folder once links are resolved, a regular file
//! (a FIFO or a device is refused, not waited on), read no further than
//! the buffer's `byteLength`.

use std::borrow::Cow;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use base64::Engine;

use super::{MAX_BUFFER_BYTES, err, error};
use crate::error::{Result, bytes_text};

/// Each buffer's bytes where `needed`, `None` elsewhere, each checked to
/// hold its `byteLength`. `bin` is the GLB BIN chunk; `dir` the folder of
/// a `.gltf` read from a file.
pub(super) fn buffers<'a>(
    doc: &::gltf::Document,
    bin: Option<&'a [u8]>,
    dir: Option<&Path>,
    needed: &[bool],
) -> Result<Vec<Option<Cow<'a, [u8]>>>> {
    // Bytes to read or decode, by the buffers' own lengths, before any is.
    let mut outside = 0usize;
    for b in doc.buffers().filter(|b| needed[b.index()]) {
        if let ::gltf::buffer::Source::Uri(_) = b.source() {
            outside = outside.saturating_add(b.length());
        }
    }
    if outside > MAX_BUFFER_BYTES {
        return err(
            "buffers",
            format!(
                "the animations use {} of buffers outside the file ({outside} bytes); the limit is {MAX_BUFFER_BYTES} bytes",
                bytes_text(Some(outside))
            ),
        );
    }
    let mut out = Vec::with_capacity(doc.buffers().len());
    for b in doc.buffers() {
        if !needed[b.index()] {
            out.push(None);
            continue;
        }
        let path = format!("buffers[{}]", b.index());
        let bytes: Cow<'a, [u8]> = match b.source() {
            ::gltf::buffer::Source::Bin => match bin {
                Some(chunk) => Cow::Borrowed(chunk),
                None => return err(path, "refers to the GLB BIN chunk, and there is none"),
            },
            ::gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                Cow::Owned(data_uri(uri, &path)?)
            }
            ::gltf::buffer::Source::Uri(uri) => {
                let Some(dir) = dir else {
                    return err(
                        path,
                        format!(
                            "external buffer `{uri}`: parse() has no folder to read it from; use load()"
                        ),
                    );
                };
                Cow::Owned(read_file(dir, uri, b.length(), &path)?)
            }
        };
        if bytes.len() < b.length() {
            return err(path, truncated(b.length(), bytes.len()));
        }
        out.push(Some(bytes));
    }
    Ok(out)
}

fn truncated(length: usize, there: usize) -> String {
    format!("truncated: byteLength is {length} but {there} bytes are there")
}

/// A `data:[<media type>];base64,<data>` URI's bytes (RFC 2397; glTF's
/// data URIs are base64). Padding is optional.
fn data_uri(uri: &str, path: &str) -> Result<Vec<u8>> {
    let rest = &uri["data:".len()..];
    let Some((head, data)) = rest.split_once(',') else {
        return err(path, "a data URI without a comma before its data");
    };
    if !head.ends_with(";base64") {
        return err(
            path,
            format!("data URI `data:{head},...` is not base64 (glTF's data URIs are)"),
        );
    }
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    engine
        .decode(data.trim_end())
        .map_err(|e| error(path, format!("data URI: {e}")))
}

/// The file `uri` names in `dir`: at most `len` bytes of a regular file
/// whose real path is inside `dir`'s.
fn read_file(dir: &Path, uri: &str, len: usize, path: &str) -> Result<Vec<u8>> {
    let (file, real) = resolve(dir, uri, path)?;
    read_regular(&file, &real, len, path)
}

/// The file a buffer URI names inside `dir` (as named, and with its links
/// resolved): refused unless it is a percent-encoded relative path without
/// `..` or a scheme that stays inside `dir` once links are followed.
fn resolve(dir: &Path, uri: &str, path: &str) -> Result<(PathBuf, PathBuf)> {
    let outside = || {
        err(
            path,
            format!("buffer URI `{uri}` must be a relative path inside the document's folder"),
        )
    };
    if uri.contains(':') {
        return outside(); // a scheme (file:, http:) or a drive
    }
    let Ok(rel) = percent_encoding::percent_decode_str(uri).decode_utf8() else {
        return err(
            path,
            format!("buffer URI `{uri}` is not UTF-8 once percent-decoded"),
        );
    };
    let rel = Path::new(rel.as_ref());
    if rel.as_os_str().is_empty()
        || rel
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return outside();
    }
    let file = dir.join(rel);
    let io =
        |what: &str, e: std::io::Error| error(path, format!("{}: {what}: {e}", file.display()));
    let real_dir = dir.canonicalize().map_err(|e| io("its folder", e))?;
    let real = file.canonicalize().map_err(|e| io("cannot open", e))?;
    if !real.starts_with(&real_dir) {
        return err(
            path,
            format!(
                "{} is a link to {}, outside the document's folder: refused",
                file.display(),
                real.display()
            ),
        );
    }
    Ok((file, real))
}

/// `len` bytes of `real` (shown as `file`), refused unless it is a regular
/// file (checked before and after opening, without following a link or
/// waiting on a FIFO put in its place) holding at least that many; the
/// room for them reserved fallibly.
fn read_regular(file: &Path, real: &Path, len: usize, path: &str) -> Result<Vec<u8>> {
    let io =
        |what: &str, e: std::io::Error| error(path, format!("{}: {what}: {e}", file.display()));
    let regular = |meta: &std::fs::Metadata| -> Result<()> {
        if meta.is_file() {
            return Ok(());
        }
        err(
            path,
            format!(
                "{} is not a regular file (a folder, FIFO, socket or device): refused",
                file.display()
            ),
        )
    };
    let meta = std::fs::metadata(real).map_err(|e| io("cannot open", e))?;
    regular(&meta)?;
    if meta.len() < len as u64 {
        return err(
            path,
            format!(
                "{}: {}",
                file.display(),
                truncated(len, meta.len() as usize)
            ),
        );
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        // Not blocking: a FIFO put in the file's place since the check
        // above is opened without waiting for a writer, then refused below.
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    let f = options.open(real).map_err(|e| io("cannot open", e))?;
    regular(&f.metadata().map_err(|e| io("cannot open", e))?)?;
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(len).map_err(|_| {
        error(
            path,
            format!(
                "{} for its bytes could not be reserved",
                bytes_text(Some(len))
            ),
        )
    })?;
    f.take(len as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| io("reading", e))?;
    Ok(bytes)
}
