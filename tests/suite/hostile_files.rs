//! Issue 21, files on disk: `kineform convert` never destroys a file
//! (defect 3), files are read as regular files within their format's
//! limit (defect 7), one set of limits that what kineform writes it can
//! read (defect 9), and errors that say what happened and name the file
//! (defect 10).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use kineform::files::{Links, read_file, write_file};
use kineform::limits;
use kineform::{Error, bvh};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kineform-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn mocap(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/mocap")
        .join(name)
}

fn files_in(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

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

/// `f()` on another thread, or `None` when it has not returned after 10 s
/// (a hang: the thread is left blocked).
fn within<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(10)).ok()
}

/// Defect 7: a FIFO as input is refused at once, naming it (it hung for
/// ever: `open` waited for a writer), through the loader and the CLI.
#[test]
fn defect_7_a_fifo_is_refused_without_waiting() {
    let d = dir("fifo");
    let fifo = d.join("clip.bvh");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let f = fifo.clone();
    let e = within(move || bvh::load(&f).map(|_| ()).unwrap_err().to_string())
        .expect("bvh::load on a FIFO returned");
    assert!(e.contains("FIFO") && e.contains("clip.bvh"), "{e}");
    let f = fifo.clone();
    let o = within(move || {
        Command::new(env!("CARGO_BIN_EXE_kineform"))
            .args(["crowd", "--characters", "8", "--frames", "1", "--clip"])
            .arg(&f)
            .output()
            .unwrap()
    })
    .expect("kineform crowd --clip FIFO returned");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("FIFO"));
}

/// Defect 7: a `.bvh` that is a link to `/dev/zero` (read until memory ran
/// out), a folder, and a file past the format's byte limit (a sparse file
/// of 1 GiB + 1 byte: refused by its size, nothing read) are refused with
/// the path named.
#[test]
fn defect_7_only_regular_files_within_the_limit_are_read() {
    let d = dir("kinds");
    let zero = d.join("zero.bvh");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let z = zero.clone();
    let e = within(move || bvh::load(&z).map(|_| ()).unwrap_err().to_string())
        .expect("bvh::load on /dev/zero returned");
    assert!(
        e.contains("character device") && e.contains("zero.bvh"),
        "{e}"
    );
    let e = bvh::load(&d).unwrap_err().to_string();
    assert!(e.contains("directory"), "{e}");
    let big = d.join("big.bvh");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(limits::MAX_BVH_BYTES + 1).unwrap();
    let e = bvh::load(&big).unwrap_err().to_string();
    assert!(
        e.contains("big.bvh") && e.contains(&limits::MAX_BVH_BYTES.to_string()),
        "{e}"
    );
    // The convert command names them too.
    let o = Command::new(env!("CARGO_BIN_EXE_kineform"))
        .arg("convert")
        .args([&zero, &d.join("out.bvh")])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("zero.bvh"));
    assert!(!d.join("out.bvh").exists());
}

/// Defect 7: the shared reader follows a link to a regular file where
/// asked to and refuses it where not (a file named inside another), and
/// reads within the limit only.
#[test]
fn defect_7_read_file_follows_links_only_when_asked() {
    let d = dir("links");
    let target = d.join("data.bin");
    std::fs::write(&target, b"12345").unwrap();
    let link = d.join("link.bin");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert_eq!(
        read_file(&link, 5, ".bin", Links::Follow).unwrap(),
        b"12345"
    );
    let e = read_file(&link, 5, ".bin", Links::Refuse).unwrap_err();
    assert!(e.to_string().contains("symbolic link"), "{e}");
    assert_eq!(
        read_file(&target, 5, ".bin", Links::Refuse).unwrap(),
        b"12345"
    );
    let e = read_file(&target, 4, ".bin", Links::Follow).unwrap_err();
    assert!(e.to_string().contains("more than the 4 bytes"), "{e}");
}

/// A BVH of `joints` joints (every joint a child of the root, which has
/// three rotation channels) and `frames` frames.
fn wide_bvh(joints: usize, frames: usize, frame_time: &str) -> String {
    let mut s = String::from(
        "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Yrotation Xrotation\n",
    );
    for j in 1..joints {
        s.push_str(&format!("JOINT j{j}\n{{\nOFFSET 1 0 0\n}}\n"));
    }
    s.push_str(&format!(
        "}}\nMOTION\nFrames: {frames}\nFrame Time: {frame_time}\n"
    ));
    for _ in 0..frames {
        s.push_str("0 0 0\n");
    }
    s
}

/// Defect 9: a 2 MB BVH at the joint cap asking for more samples than a
/// clip may hold is refused at its `Frames:` line (it became a 524 MB
/// clip: the old cap, 2^26 samples, made a clip and a `.glb` that
/// kineform's own glTF reader refused); one within the cap loads.
#[test]
fn defect_9_a_bvh_past_the_sample_limit_is_refused_at_its_header() {
    let joints = limits::MAX_JOINTS;
    // 2^23 samples: the cap every reader holds (MAX_SAMPLES).
    assert_eq!(limits::MAX_SAMPLES, 1 << 23);
    let frames = (1 << 23) / joints + 1;
    let text = wide_bvh(joints, frames, "0.01");
    assert!(text.len() < 3_000_000);
    let e = bvh::parse(&text).unwrap_err().to_string();
    assert!(e.contains("Frames") && e.contains("MAX_SAMPLES"), "{e}");
    let ok = wide_bvh(joints, frames - 1, "0.01");
    let b = bvh::parse(&ok).unwrap();
    assert!(b.clip.frames() * b.clip.joints() <= limits::MAX_SAMPLES);
}

/// Defect 9: a frame time whose clip no command could play through (a
/// 1e37 s frame time loaded, but commands refuse times past 1e6) is
/// refused where it is read, naming the line; so is a clip built with it.
#[test]
fn defect_9_a_clip_longer_than_a_command_can_reach_is_refused() {
    for ft in ["1e37", "2e6"] {
        let e = bvh::parse(&wide_bvh(2, 2, ft)).unwrap_err().to_string();
        assert!(e.contains("line ") && e.contains("Frame Time"), "{ft}: {e}");
    }
    let e = bvh::parse(&wide_bvh(2, 3, "6e5")).unwrap_err().to_string();
    assert!(e.contains("MAX_TIME"), "{e}");
    bvh::parse(&wide_bvh(2, 3, "5e5")).unwrap();
    let v = kineform::reference::Vec3::ZERO;
    let q = kineform::reference::Quat::IDENTITY;
    let s = kineform::reference::Vec3::ONE;
    let clip = |ft: f32| kineform::Clip::new(2, 1, ft, vec![v; 2], vec![q; 2], vec![s; 2]);
    assert!(clip(1e37).is_err() && clip(2e6).is_err() && clip(1e6).is_ok());
}

/// Defect 9: the limits agree: the most samples a reader accepts, written
/// back as BVH (at most `BVH_BYTES_PER_SAMPLE` a sample) with a hierarchy
/// of the most joints, and as `.glb`, fit the byte limits their readers
/// hold files to.
#[test]
fn defect_9_what_kineform_writes_fits_what_it_reads() {
    let samples = limits::MAX_SAMPLES as u64;
    // A joint's hierarchy lines, as the writer indents them: a name of
    // `j65534`, offsets of 15 characters, 16 tabs.
    let hierarchy = limits::MAX_JOINTS as u64 * 200;
    assert!(samples * limits::BVH_BYTES_PER_SAMPLE + hierarchy <= limits::MAX_BVH_BYTES);
    assert!(samples * limits::GLB_BYTES_PER_SAMPLE < limits::MAX_GLB_BYTES / 2);
}

/// Defect 9: every number the BVH writer prints takes at most 15
/// characters (the bound `BVH_BYTES_PER_SAMPLE` rests on) and reads back
/// as the same f32, whatever its size: tiny angles, positions at the
/// domain's edge, subnormals.
#[test]
fn defect_9_bvh_numbers_are_short_and_read_back() {
    use kineform::reference::{Quat, Vec3, quat_from_angle_axis};
    let angles = [0.0f32, 1e-30, -3e-9, 1e-5, 0.3, 1.0, -2.5, 3.1, 1e-40];
    let positions = [
        0.0f32,
        1e-38,
        -1e-7,
        0.1,
        123.456,
        -999_999.94,
        1e6,
        -1e6,
        2e-45,
    ];
    let n = angles.len();
    // Frame 0 at the origin: the root's OFFSET is 0, so its channels carry
    // the positions exactly.
    let pos: Vec<Vec3> = (0..n)
        .map(|i| match i {
            0 => Vec3::ZERO,
            _ => Vec3::new(positions[i], -positions[i], positions[(i + 3) % n]),
        })
        .collect();
    let rot: Vec<Quat> = angles
        .iter()
        .map(|&a| quat_from_angle_axis(a, Vec3::new(0.0, 1.0, 0.0)))
        .collect();
    let clip = kineform::Clip::new(n, 1, 1e-6, pos, rot, vec![Vec3::ONE; n]).unwrap();
    let skeleton = kineform::Skeleton::new(vec![-1]).unwrap();
    let b = kineform::convert::bvh_for_clip(&skeleton, &clip).unwrap();
    let text = bvh::write(&b, &clip).unwrap();
    let motion = &text[text.find("Frame Time").unwrap()..];
    for word in motion
        .split_whitespace()
        .filter(|w| w.parse::<f32>().is_ok())
    {
        assert!(word.len() <= 15, "{word} in\n{motion}");
    }
    let again = bvh::parse(&text).unwrap();
    assert_eq!(again.clip.positions(), clip.positions());
    assert_eq!(again.clip.frame_time(), clip.frame_time());
}

/// Defect 10: a writer's refusal is not "BVH line 0": it says it could
/// not write; converting names the file each error is about.
#[test]
fn defect_10_errors_say_what_happened_and_name_the_file() {
    use kineform::reference::{Quat, Vec3};
    let b = kineform::data::default_clip();
    let mut named = b.clone();
    let mut names = b.skeleton.names().to_vec();
    names[3] = "two\nlines".into();
    named.skeleton = kineform::Skeleton::with_names(b.skeleton.parents().to_vec(), names).unwrap();
    let e = bvh::write(&named, &named.clip).unwrap_err().to_string();
    assert!(
        !e.contains("line 0") && e.starts_with("BVH: cannot write joint 3"),
        "{e}"
    );

    let d = dir("names");
    let scaled = kineform::Clip::new(
        1,
        1,
        0.1,
        vec![Vec3::ZERO],
        vec![Quat::IDENTITY],
        vec![Vec3::splat(2.0)],
    )
    .unwrap();
    let skeleton = kineform::Skeleton::new(vec![-1]).unwrap();
    let e = kineform::convert::bvh_for_clip(&skeleton, &scaled)
        .unwrap_err()
        .in_file(&d.join("out.bvh"))
        .to_string();
    assert!(
        e.contains("out.bvh: BVH: cannot write joint 0 with scale"),
        "{e}"
    );

    let input = d.join("walk.bvh");
    std::fs::copy(mocap("cmu_102_01_max.bvh"), &input).unwrap();
    let options = kineform::convert::Options {
        animation: 3,
        ..Default::default()
    };
    let e = kineform::convert::convert_file(&input, &d.join("o.bvh"), &options).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("walk.bvh")
            && text.contains("has 1 animation(s)")
            && !text.contains("expected length"),
        "{text}"
    );
    let e = kineform::convert::convert_file(&input, &d.join("o.xyz"), &Default::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("o.xyz") && e.contains("cannot write `.xyz`"),
        "{e}"
    );
    std::fs::write(d.join("bad.bvh"), "HIERARCHY\nROOT a\n{\nOFFSET 0 0 x\n").unwrap();
    let e =
        kineform::convert::convert_file(&d.join("bad.bvh"), &d.join("o.bvh"), &Default::default())
            .unwrap_err()
            .to_string();
    assert!(
        e.starts_with(&format!("{}: BVH line 4", d.join("bad.bvh").display())),
        "{e}"
    );
    assert_eq!(files_in(&d), ["bad.bvh", "walk.bvh"], "nothing written");

    // An error that names no file gets the file; one that does keeps it.
    let io = Error::Io {
        path: "a".into(),
        reason: "r".into(),
    };
    assert_eq!(io.clone().in_file(Path::new("b")), io);
    let plain = Error::Index {
        what: "joint",
        index: 4,
        len: 2,
    };
    assert_eq!(
        plain.in_file(Path::new("f.glb")).to_string(),
        "f.glb: joint 4 is out of range (there are 2)"
    );
}

/// Defect 10: reversed and empty ranges say so (`positions_into(5..3)`
/// said the end was out of range).
#[test]
fn defect_10_ranges_say_they_are_reversed() {
    use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig};
    let library = ClipLibrary::from_bvh(&kineform::data::default_clip()).unwrap();
    let cfg = CrowdConfig {
        characters: 16,
        ..CrowdConfig::default()
    };
    let crowd = Crowd::new(&library, cfg).unwrap();
    let mut out = vec![[0.0f32; 3]; 0];
    #[allow(clippy::reversed_empty_ranges)]
    let e = crowd
        .positions_into(5..3, &mut out)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "characters 5..3 is reversed: it starts after it ends");
    let e = crowd
        .positions_into(10..20, &mut out)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "characters 10..20 runs past the end (there are 16)");
    let clip = kineform::data::default_clip().clip;
    let e = clip.excerpt(5..5).unwrap_err().to_string();
    assert_eq!(e, "excerpt's frames 5..5 is empty");
}

/// Defect 10: memory refusals say what could not be had, in words and
/// bytes ("world output: expected length 0, got 3328000000" before).
#[test]
fn defect_10_memory_refusals_say_what_could_not_be_had() {
    use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, ReferenceCrowd};
    let library = ClipLibrary::from_bvh(&kineform::data::default_clip()).unwrap();
    for characters in [1usize << 40, usize::MAX / 2] {
        let cfg = CrowdConfig {
            characters,
            ..CrowdConfig::default()
        };
        for e in [
            Crowd::new(&library, cfg.clone()).err().unwrap(),
            ReferenceCrowd::new(&library, cfg).err().unwrap(),
        ] {
            let text = e.to_string();
            assert!(matches!(e, Error::Size { .. }), "{text}");
            assert!(!text.contains("expected length"), "{text}");
            assert!(
                text.contains("could not be reserved") || text.contains("more than the"),
                "{text}"
            );
        }
    }
}

/// Defect 9, found by the `clips_from_values` fuzz target: a skeleton
/// whose joints are parent-first but not depth-first (the root's two
/// children before the first one's child, as glTF skins may be) was
/// written with its hierarchy depth-first and its motion in joint order,
/// so every joint read back another's motion (a position past the limit
/// in the case found). Now each joint reads back its own motion, by name.
#[test]
fn defect_9_a_skeleton_out_of_depth_first_order_reads_back_its_own_motion() {
    use kineform::reference::{Vec3, quat_dot, quat_from_angle_axis};
    let skeleton = kineform::Skeleton::new(vec![-1, 0, 0, 1]).unwrap();
    let frames = 3;
    let pos: Vec<Vec3> = (0..frames * 4)
        .map(|i| Vec3::new(i as f32, (i % 4) as f32 * 10.0, 0.5))
        .collect();
    let rot = (0..frames * 4)
        .map(|i| quat_from_angle_axis(0.1 * i as f32, Vec3::new(0.0, 0.6, 0.8)))
        .collect();
    let clip = kineform::Clip::new(frames, 4, 0.1, pos, rot, vec![Vec3::ONE; frames * 4]).unwrap();
    let b = kineform::convert::bvh_for_clip(&skeleton, &clip).unwrap();
    let back = bvh::parse(&bvh::write(&b, &clip).unwrap()).unwrap();
    let names = back.skeleton.names();
    assert_eq!(names, ["joint0", "joint1", "joint3", "joint2"]);
    for (k, name) in names.iter().enumerate() {
        let j = skeleton.find(name).unwrap();
        for f in 0..frames {
            let (p, q) = (back.clip.pos(f, k), clip.pos(f, j));
            assert!(
                (p - q).to_array().iter().all(|d| d.abs() < 1e-4),
                "{name} {f}: {p:?} {q:?}"
            );
            let dot = quat_dot(back.clip.rot(f, k), clip.rot(f, j)).abs();
            assert!(dot > 1.0 - 1e-6, "{name} frame {f}: {dot}");
        }
    }
}

/// The error of a refusal (without printing a large accepted value).
fn refused<T>(r: kineform::Result<T>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

/// A BVH chain of `joints` joints, each `offset` units along x from its
/// parent (the root has three rotation channels, the others none), two
/// frames.
fn chain_bvh(joints: usize, offset: &str) -> String {
    let mut s = format!(
        "HIERARCHY\nROOT j0\n{{\nOFFSET {offset} 0 0\nCHANNELS 3 Zrotation Yrotation Xrotation\n"
    );
    for j in 1..joints {
        s.push_str(&format!("JOINT j{j}\n{{\nOFFSET {offset} 0 0\n"));
    }
    s.push_str(&"}\n".repeat(joints));
    s.push_str("MOTION\nFrames: 2\nFrame Time: 0.01\n0 0 0\n0 0 0\n");
    s
}

/// Defect 9: one domain for clips in every reader, writer and library: a
/// chain whose joints reach past `MAX_REACH` from the root (1,001 joints
/// 1e6 apart, each offset within `MAX_POSITION`) loaded from BVH and from
/// glTF (a `ClipLibrary` refused it, so a file kineform read could not
/// be played), and was written by both writers. Now the readers refuse it
/// naming the joint (BVH: its line), the writers refuse to write it, and
/// 1,000 joints (a reach of exactly 1e9) are accepted.
#[test]
fn defect_9_a_clip_past_the_reach_limit_is_refused_by_every_reader_and_writer() {
    let e = refused(bvh::parse(&chain_bvh(1001, "1e6")));
    // Joint 1000's `JOINT` line: 5 lines for the root, 3 per joint
    // (joint j at line 3j + 3).
    assert!(
        e.contains("MAX_REACH") && e.contains("joint 1000") && e.contains("line 3003"),
        "{e}"
    );
    bvh::parse(&chain_bvh(1000, "1e6")).unwrap();

    let near = bvh::parse(&chain_bvh(1001, "1e5")).unwrap();
    let far_pos: Vec<_> = near.clip.positions().iter().map(|p| *p * 10.0).collect();
    let far = kineform::Clip::new(
        2,
        1001,
        0.01,
        far_pos,
        near.clip.rotations().to_vec(),
        near.clip.scales().to_vec(),
    )
    .unwrap();
    let e = bvh::write(&near, &far).unwrap_err().to_string();
    assert!(e.contains("MAX_REACH"), "{e}");
    bvh::write(&near, &near.clip).unwrap();

    #[cfg(feature = "gltf")]
    {
        use kineform::gltf;
        let e = gltf::write_glb(&near.skeleton, None, &[("far", &far)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("MAX_REACH") && e.contains("far"), "{e}");
        // A file that another writer made: kineform's own, with every
        // 1e5 of its translations' keys made 1e6 (the rest pose and the
        // inverse bind matrices are left as they were).
        let mut glb = gltf::write_glb(&near.skeleton, None, &[("near", &near.clip)]).unwrap();
        gltf::parse(&glb, gltf::Rate::Keys).unwrap();
        let (from, to) = (1e5f32.to_le_bytes(), 1e6f32.to_le_bytes());
        let mut patched = 0;
        for i in 0..glb.len() - 3 {
            if glb[i..i + 4] == from {
                glb[i..i + 4].copy_from_slice(&to);
                patched += 1;
            }
        }
        assert!(patched >= 2 * 1001, "{patched}");
        let e = refused(gltf::parse(&glb, gltf::Rate::Keys));
        assert!(
            e.contains("MAX_REACH") && e.contains("animations[0]") && e.contains("joint 1000"),
            "{e}"
        );
    }
}
