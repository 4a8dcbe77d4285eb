//! `kineform convert` and `convert::convert_file`: BVH -> glb -> BVH keeps
//! the motion, refusals name the problem and write nothing.
#![cfg(feature = "gltf")]

use std::path::PathBuf;
use std::process::Command;

use kineform::convert::{Options, bvh_for_clip, convert_file};
use kineform::reference::{Kform, Pose, Vec3, op_fk};
use kineform::{Clip, bvh};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kineform-convert-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn world(clip: &Clip, parents: &[i32], f: usize) -> Vec<Vec3> {
    let local: Vec<Kform> = (0..clip.joints())
        .map(|j| Kform {
            pos: clip.pos(f, j).unwrap(),
            rot: clip.rot(f, j).unwrap(),
            ..Kform::IDENTITY
        })
        .collect();
    let mut w = Pose::new(local.len());
    op_fk(&mut w, &Pose::from_kforms(&local), parents).unwrap();
    w.pos
}

/// BVH -> .glb -> BVH through the library on a CMU clip: same hierarchy and
/// frames; world positions within 1e-3 units (the BVH text stores Euler
/// angles in f32 decimal, and a world position sums a chain of them).
#[test]
fn bvh_glb_bvh_keeps_the_motion() {
    let d = dir("lib");
    let src = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mocap/cmu_12_01_walk_mb.bvh"
    ));
    let (glb, back) = (d.join("walk.glb"), d.join("walk.bvh"));
    let s = convert_file(&src, &glb, &Options::default()).unwrap();
    assert_eq!((s.joints, s.clips), (31, 1));
    let orig = bvh::load(&src).unwrap();
    // No rate asked for: the animation's own key rate (120 Hz).
    let s = convert_file(&glb, &back, &Options::default()).unwrap();
    assert_eq!(s.frames, orig.clip.frames());
    let again = bvh::load(&back).unwrap();
    assert_eq!(again.skeleton, orig.skeleton);
    let mut gap = 0f32;
    for f in (0..orig.clip.frames()).step_by(7) {
        let (a, b) = (
            world(&orig.clip, orig.skeleton.parents(), f),
            world(&again.clip, orig.skeleton.parents(), f),
        );
        for (p, q) in a.iter().zip(&b) {
            let e = *p - *q;
            gap = gap.max(e.x.abs().max(e.y.abs()).max(e.z.abs()));
        }
    }
    eprintln!("BVH -> glb -> BVH world position gap {gap:e}");
    assert!(gap < 1e-3, "{gap}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn refusals_write_nothing() {
    let d = dir("refuse");
    let src = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mocap/cmu_102_01_max.bvh"
    ));
    let out = d.join("x.fbx");
    let e = convert_file(&src, &out, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("cannot write `.fbx`"), "{e}");
    assert!(!out.exists());
    let out = d.join("x.bvh");
    assert!(convert_file(&d.join("missing.glb"), &out, &Options::default()).is_err());
    assert!(!out.exists());
    let e = convert_file(
        &src,
        &out,
        &Options {
            animation: 3,
            ..Options::default()
        },
    )
    .unwrap_err();
    // Issue 21, defect 10: said in words, naming the input.
    assert!(e.to_string().contains("has 1 animation(s)"), "{e}");
    assert!(e.to_string().contains("cmu_102_01_max.bvh"), "{e}");
    assert!(!out.exists());
    // A clip with a scale has no BVH.
    let b = bvh::load(&src).unwrap();
    let mut scl = b.clip.scales().to_vec();
    scl[40] = Vec3::new(1.0, 2.0, 1.0);
    let c = Clip::new(
        b.clip.frames(),
        31,
        b.clip.frame_time(),
        b.clip.positions().to_vec(),
        b.clip.rotations().to_vec(),
        scl,
    )
    .unwrap();
    let e = bvh_for_clip(&b.skeleton, &c).unwrap_err();
    assert!(e.to_string().contains("joint 9 with scale"), "{e}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn command_line() {
    let d = dir("cli");
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/data/mocap/cmu_102_01_max.bvh");
    let exe = env!("CARGO_BIN_EXE_kineform");
    let out = Command::new(exe)
        .args(["convert", src])
        .arg(d.join("a.glb"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("31 joints, 1 clip(s), 277 frames"), "{text}");
    let out = Command::new(exe)
        .arg("convert")
        .arg(d.join("a.glb"))
        .arg(d.join("a.bvh"))
        .args(["--rate", "30"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(bvh::load(d.join("a.bvh")).unwrap().clip.frames(), 70);
    let out = Command::new(exe)
        .args(["convert", src])
        .arg(d.join("a.obj"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write `.obj`"));
    let out = Command::new(exe)
        .args(["convert", src])
        .arg(d.join("b.glb"))
        .args(["--rate", "abc"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&d).ok();
}

/// A child whose position moves gets position channels: BVH out and back
/// keeps its motion (only roots have them in the CMU files).
#[test]
fn moving_child_positions_survive_bvh() {
    let sk = kineform::Skeleton::new(vec![-1, 0]).unwrap();
    let pos: Vec<Vec3> = (0..4)
        .flat_map(|f| [Vec3::ZERO, Vec3::new(0.0, 1.0 + f as f32, 0.0)])
        .collect();
    let rot = vec![kineform::reference::Quat::IDENTITY; 8];
    let clip = Clip::new(4, 2, 0.5, pos, rot, vec![Vec3::ONE; 8]).unwrap();
    let b = bvh_for_clip(&sk, &clip).unwrap();
    let back = bvh::parse(&bvh::write(&b, &clip).unwrap()).unwrap();
    for f in 0..4 {
        assert_eq!(
            back.clip.pos(f, 1).unwrap(),
            clip.pos(f, 1).unwrap(),
            "frame {f}"
        );
    }
}

/// The default program (issue 22): BVH -> `.gltf` (its `.bin` beside it)
/// -> BVH keeps every frame of a 120 Hz clip without a rate (it resampled
/// at 60 Hz before, halving them), and `--rate` resamples.
#[test]
fn gltf_out_and_the_source_rate_from_the_command_line() {
    let d = dir("rate");
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/data/mocap/cmu_102_01_max.bvh");
    let exe = env!("CARGO_BIN_EXE_kineform");
    let run = |args: &[&std::ffi::OsStr]| {
        let out = Command::new(exe)
            .arg("convert")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let (gltf, back, half) = (d.join("w.gltf"), d.join("w.bvh"), d.join("h.bvh"));
    run(&[src.as_ref(), gltf.as_os_str()]);
    assert!(d.join("w.bin").is_file());
    let text = run(&[gltf.as_os_str(), back.as_os_str()]);
    assert!(text.contains("277 frames at 0.0083333 s"), "{text}");
    let orig = bvh::load(src).unwrap();
    let again = bvh::load(&back).unwrap();
    assert_eq!(again.clip.frames(), orig.clip.frames());
    assert_eq!(again.clip.frame_time(), orig.clip.frame_time());
    run(&[
        gltf.as_os_str(),
        half.as_os_str(),
        "--rate".as_ref(),
        "60".as_ref(),
    ]);
    assert_eq!(bvh::load(&half).unwrap().clip.frames(), 139);
    std::fs::remove_dir_all(&d).ok();
}
