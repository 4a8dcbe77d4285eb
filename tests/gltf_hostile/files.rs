//! Defects 7 and 10: buffer files inside the document's folder, and
//! errors (and damaged GLB containers) that name what is wrong.

use super::*;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kineform-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A one-joint `.gltf` whose buffer is the file `uri`, and that buffer.
fn with_buffer_file(uri: &str) -> (Value, Vec<u8>) {
    let mut b = Builder::new();
    b.node(json!({"name": "a"}));
    let t = b.floats(&[0.0, 1.0], "SCALAR");
    let v = b.floats(&[0.0, 0.0, 0.0, 4.0, 0.0, 0.0], "VEC3");
    b.channels(0, t, v, "LINEAR", &[(0, "translation")]);
    let doc: Value = serde_json::from_slice(&b.gltf(uri)).unwrap();
    (doc, b.bin)
}

/// Defect 7, glTF's part: a buffer URI names a regular file inside the
/// document's folder (links resolved), is read no further than its
/// `byteLength`, and a FIFO, a device, a folder or a link out of the folder
/// is refused, named, without waiting.
#[cfg(unix)]
#[test]
fn defect7_gltf_buffer_uris_are_regular_files_inside_the_folder() {
    use std::os::unix::fs::symlink;
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let d = temp_dir("buffers");
    let outside = temp_dir("buffers-outside");
    let (doc, bin) = with_buffer_file("anim.bin");
    std::fs::write(d.join("anim.bin"), &bin).unwrap();
    std::fs::write(outside.join("anim.bin"), &bin).unwrap();
    let load = |uri: &str| {
        let mut doc = doc.clone();
        doc["buffers"][0]["uri"] = json!(uri);
        let path = d.join("doc.gltf");
        std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
        within(Duration::from_secs(10), move || gltf::load(&path, 1.0))
            .unwrap_or_else(|| panic!("{uri}: still reading after 10 s"))
            .0
    };
    assert_eq!(
        load("anim.bin").unwrap().clips[0].clip.pos(1, 0).unwrap().x,
        4.0
    );
    // A percent-encoded name.
    std::fs::write(d.join("my anim.bin"), &bin).unwrap();
    assert!(load("my%20anim.bin").is_ok());
    // A link inside the folder to a file inside it is followed.
    symlink(d.join("anim.bin"), d.join("inside.bin")).unwrap();
    assert!(load("inside.bin").is_ok());
    // Refused: a link out of the folder, to a device, a FIFO (directly
    // and through a link), a folder, a path out of the folder.
    symlink(outside.join("anim.bin"), d.join("out.bin")).unwrap();
    symlink("/dev/zero", d.join("zero.bin")).unwrap();
    let fifo = d.join("fifo.bin");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    symlink(&fifo, d.join("to_fifo.bin")).unwrap();
    std::fs::create_dir(d.join("folder.bin")).unwrap();
    for (uri, says) in [
        ("out.bin", "outside the document's folder"),
        ("zero.bin", "outside the document's folder"),
        ("fifo.bin", "not a regular file"),
        ("to_fifo.bin", "not a regular file"),
        ("folder.bin", "not a regular file"),
        (
            "../buffers-outside/anim.bin",
            "inside the document's folder",
        ),
        ("/etc/passwd", "inside the document's folder"),
        ("file:///etc/passwd", "inside the document's folder"),
    ] {
        let (path, reason) = refusal(load(uri));
        assert!(
            path == "buffers[0]" && reason.contains(says),
            "{uri}: {path}: {reason}"
        );
    }
    // Read no further than byteLength: a 64 MB file for a 32-byte buffer.
    let mut big = bin.clone();
    big.resize(64 << 20, 0);
    std::fs::write(d.join("big.bin"), &big).unwrap();
    drop(big);
    let (r, peak) = peak_of(|| load("big.bin"));
    assert!(r.is_ok());
    assert!(
        peak < 1 << 20,
        "peak {peak} bytes for a {}-byte buffer",
        bin.len()
    );
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(&outside).ok();
}

/// Defect 10, glTF's part: errors of a file read with `load` name it; a
/// document without animations says so in words when a BVH is asked of
/// it; limits say what they are and what the file asks for.
#[test]
fn defect10_gltf_errors_name_the_file_and_say_what_is_wrong() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let d = temp_dir("errors");
    let mut b = Builder::new();
    b.node(json!({"name": "a"}));
    let t = b.floats(&[1.0, 0.0], "SCALAR");
    let v = b.floats(&[0.0; 6], "VEC3");
    b.channels(0, t, v, "LINEAR", &[(0, "translation")]);
    let bad = d.join("back.glb");
    std::fs::write(&bad, b.glb()).unwrap();
    let e = gltf::load(&bad, 30.0).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}: glTF animations[0]", bad.display())),
        "{e}"
    );
    assert!(e.contains("key times go back"), "{e}");
    // No animations, and a BVH asked of it.
    let mut s = Builder::new();
    s.node(json!({"name": "a"}));
    let still = d.join("still.glb");
    std::fs::write(&still, s.glb()).unwrap();
    let e = kineform::convert::convert_file(&still, &d.join("x.bvh"), &Default::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&still.display().to_string()) && e.contains("has no animations"),
        "{e}"
    );
    assert!(!d.join("x.bvh").exists());
    // A limit says what it is and what the file asks for.
    let (_, reason) = refusal(gltf::parse(&shared_short_sampler(1, 1, 1e9), 30.0));
    assert!(
        reason.contains("30000000001 frames") && reason.contains("limit is 8388608"),
        "{reason}"
    );
    std::fs::remove_dir_all(&d).ok();
}

/// Defect 10, the GLB container: a damaged `.glb` says what is damaged
/// (the `gltf` crate said "binary container: could not completely read
/// the object" of a file cut short or a header length past its end, and
/// "BIN\0 chunk length exceeds that of slice" of a chunk longer than the
/// file), a document-wide error reads "glTF: JSON" (not "glTF : JSON"),
/// and a limit's numbers past 1e12 are written in scientific notation.
#[test]
fn defect10_damaged_glb_containers_say_what_is_damaged() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut b = Builder::new();
    b.node(json!({"name": "a"}));
    let t = b.floats(&[0.0, 1.0], "SCALAR");
    let v = b.floats(&[0.0; 6], "VEC3");
    b.channels(0, t, v, "LINEAR", &[(0, "translation")]);
    let good = b.glb();
    gltf::parse(&good, 30.0).unwrap();
    let set = |at: usize, word: u32| {
        let mut g = good.clone();
        g[at..at + 4].copy_from_slice(&word.to_le_bytes());
        g
    };
    let json_len = u32::from_le_bytes(good[12..16].try_into().unwrap()) as usize;
    let bin_at = 20 + json_len;
    let total = good.len() as u32;
    // The JSON chunk and 4 bytes of a chunk header, the length made to fit.
    let mut cut = good[..bin_at + 4].to_vec();
    cut[8..12].copy_from_slice(&(bin_at as u32 + 4).to_le_bytes());
    let cases: Vec<(Vec<u8>, String)> = vec![
        (
            good[..good.len() - 9].to_vec(),
            format!(
                "the header says the file is {total} bytes, but it has {}: it is cut short",
                total - 9
            ),
        ),
        (
            set(8, u32::MAX),
            format!("the header says the file is 4294967295 bytes, but it has {total}"),
        ),
        (set(4, 1), "version 1: only glTF 2.0".into()),
        (
            set(16, u32::from_le_bytes(*b"JSOX")),
            "the JSON chunk (the first): its type is `JSOX`, not `JSON`".into(),
        ),
        (
            set(12, u32::MAX),
            format!(
                "the JSON chunk (the first): its header says 4294967295 bytes, but {} follow it",
                good.len() - 20
            ),
        ),
        (
            set(bin_at, 1 << 20),
            format!(
                "the BIN chunk (after the JSON chunk): its header says 1048576 bytes, but {} follow it",
                good.len() - bin_at - 8
            ),
        ),
        (
            cut,
            "the BIN chunk (after the JSON chunk): the file ends 4 bytes into its 8-byte chunk header".into(),
        ),
    ];
    for (file, want) in cases {
        let (path, reason) = refusal(gltf::parse(&file, 30.0));
        assert!(path == "glb" && reason.contains(&want), "{path}: {reason}");
    }
    let e = gltf::parse(b"{ not json", 30.0).unwrap_err().to_string();
    assert!(e.starts_with("glTF: JSON: "), "{e}");
    // A key time of 3e38 s: its frames in scientific notation.
    let mut h = Builder::new();
    h.node(json!({"name": "a"}));
    let t = h.floats(&[0.0, 3e38], "SCALAR");
    let v = h.floats(&[0.0; 6], "VEC3");
    h.channels(0, t, v, "LINEAR", &[(0, "translation")]);
    let (_, reason) = refusal(gltf::parse(&h.glb(), 1.0));
    assert!(
        reason.starts_with(
            "3.000e38 s at 1 frames/s is 3.000e38 frames x (1 joints) = 3.000e38 joint-frames"
        ),
        "{reason}"
    );
}
