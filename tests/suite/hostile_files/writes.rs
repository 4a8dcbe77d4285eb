//! Defect 3: `kineform convert` and `write_file` never destroy a file.

use super::*;

/// `kineform ARGS` under `ulimit -f BLOCKS` (1 KiB blocks).
fn kineform_with_file_limit(blocks: u32, args: &[&Path]) -> std::process::Output {
    Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -f {blocks}; exec \"$0\" convert \"$1\" \"$2\""
        ))
        .arg(env!("CARGO_BIN_EXE_kineform"))
        .args(args)
        .output()
        .unwrap()
}

/// Defect 3: a 2 MB BVH converted onto itself, and onto another existing
/// file, under a 100 KB file-size limit (as a full disk would stop it):
/// the write fails part way, the command fails with the output named, and
/// every file is as it was, with no temporary file left. Before the fix
/// the input was left truncated at 100 KB.
#[test]
fn defect_3_a_convert_that_fails_part_way_leaves_every_file_as_it_was() {
    let d = dir("fsize");
    let input = d.join("in.bvh");
    std::fs::copy(mocap("cmu_01_01_mb.bvh"), &input).unwrap();
    let other = d.join("other.bvh");
    std::fs::write(&other, "an existing file\n").unwrap();
    let before = std::fs::read(&input).unwrap();
    assert!(before.len() > 2_000_000);
    for out in [&input, &other] {
        let o = kineform_with_file_limit(100, &[&input, out]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&out.display().to_string()) && err.contains("not written"),
            "{err}"
        );
        assert_eq!(std::fs::read(&input).unwrap(), before, "the input is whole");
        assert_eq!(std::fs::read(&other).unwrap(), b"an existing file\n");
        assert_eq!(
            files_in(&d),
            ["in.bvh", "other.bvh"],
            "no temporary file left"
        );
    }
}

/// Defect 3: the output may be the input (the write is atomic): the file
/// is replaced whole by its conversion, the same text a conversion to
/// another file gives.
#[test]
fn defect_3_converting_a_file_onto_itself_replaces_it_whole() {
    let d = dir("inplace");
    let (input, copy) = (d.join("walk.bvh"), d.join("copy.bvh"));
    std::fs::copy(mocap("cmu_12_01_walk_mb.bvh"), &input).unwrap();
    let options = kineform::convert::Options::default();
    kineform::convert::convert_file(&input, &copy, &options).unwrap();
    kineform::convert::convert_file(&input, &input, &options).unwrap();
    assert_eq!(
        std::fs::read(&input).unwrap(),
        std::fs::read(&copy).unwrap()
    );
    assert_eq!(files_in(&d), ["copy.bvh", "walk.bvh"]);
    bvh::load(&input).unwrap();
}

/// Defect 3: [`write_file`] refuses to replace what is not a regular file
/// (a link, a folder), and a folder that does not exist, creating nothing.
#[test]
fn defect_3_write_file_replaces_regular_files_only() {
    let d = dir("write");
    let target = d.join("target.txt");
    std::fs::write(&target, "kept").unwrap();
    let link = d.join("link.txt");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let e = write_file(&link, b"new").unwrap_err().to_string();
    assert!(e.contains("symbolic link") && e.contains("link.txt"), "{e}");
    let e = write_file(&d, b"new").unwrap_err().to_string();
    assert!(e.contains("directory"), "{e}");
    let e = write_file(&d.join("no/such/dir.txt"), b"new").unwrap_err();
    assert!(e.to_string().contains("not written"), "{e}");
    assert_eq!(std::fs::read(&target).unwrap(), b"kept");
    assert_eq!(files_in(&d), ["link.txt", "target.txt"]);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    write_file(&target, b"replaced").unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"replaced");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&target), 0o640, "the replaced file's permissions kept");
    // A new file gets what std::fs::write gives one.
    let (new, plain) = (d.join("new.txt"), d.join("plain.txt"));
    write_file(&new, b"x").unwrap();
    std::fs::write(&plain, b"x").unwrap();
    assert_eq!(mode(&new), mode(&plain));
}

/// A set whose last file's name ends with a path separator (`q.gltf/`,
/// a `.gltf` written with its `.bin`) is refused before any file of the
/// set is replaced: its temporary file staged beside it and only the
/// rename failed, after the `.bin` before it had replaced the existing
/// one (found by a command-line audit, `kineform convert a.bvh q.gltf/`).
/// Mutation caught: the separator check removed (`q.bin` replaced).
#[test]
fn a_name_ending_with_a_separator_replaces_nothing() {
    let d = dir("separator");
    let (bin, gltf) = (d.join("q.bin"), format!("{}/q.gltf/", d.display()));
    std::fs::write(&bin, b"kept\n").unwrap();
    let set: [(&std::path::Path, &[u8]); 2] =
        [(&bin, b"new buffer"), (std::path::Path::new(&gltf), b"{}")];
    let e = kineform::files::write_files(&set).unwrap_err().to_string();
    assert!(e.contains("separator"), "{e}");
    assert_eq!(std::fs::read(&bin).unwrap(), b"kept\n");
    assert_eq!(files_in(&d), ["q.bin"], "no temporary file left");
}
