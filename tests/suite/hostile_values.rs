//! Issue 21, values and sizes: finite but huge values are refused where
//! clips are made, with a stated domain (defect 4); sizes that grow with
//! the input or the thread count end in typed errors, not aborts (defect
//! 5); the crowd never reaches a state a command could not set (defect 8).

use std::path::PathBuf;
use std::process::Command;

use kineform::crowd::{
    ClipLibrary, Command as CrowdCommand, Crowd, CrowdConfig, ReferenceCrowd, Root,
};
use kineform::reference::{Quat, Vec3};
use kineform::{Clip, Error, Skeleton, bvh, limits};

fn clip(frames: usize, frame_time: f32, pos: &[Vec3], scl: Vec3) -> kineform::Result<Clip> {
    let joints = pos.len() / frames;
    Clip::new(
        frames,
        joints,
        frame_time,
        pos.to_vec(),
        vec![Quat::IDENTITY; pos.len()],
        vec![scl; pos.len()],
    )
}

/// Defect 4: a clip with positions of ±3e38, a scale of 3e38, or a step of
/// 1e33 over the shortest frame time (velocities of 1e39) was accepted,
/// and both crowds stepped it into NaN with `Ok`; now `Clip::new` (which
/// BVH, glTF and serde go through) refuses each, naming the frame and
/// joint and the domain.
#[test]
fn defect_4_finite_but_huge_clip_values_are_refused() {
    let z = Vec3::ZERO;
    let cases = [
        (
            vec![z, z, Vec3::new(3e38, 0.0, 0.0), z],
            Vec3::ONE,
            1e-2,
            (1, 0),
        ),
        (
            vec![z, Vec3::new(0.0, -3e38, 0.0), z, z],
            Vec3::ONE,
            1e-2,
            (0, 1),
        ),
        (
            vec![z, z, z, Vec3::new(0.0, 0.0, 1e33)],
            Vec3::ONE,
            1e-6,
            (1, 1),
        ),
        (vec![z; 4], Vec3::new(1.0, 3e38, 1.0), 1e-2, (0, 0)),
        (vec![z; 4], Vec3::splat(1e-30), 1e-2, (0, 0)),
    ];
    for (pos, scl, ft, (frame, joint)) in cases {
        match clip(2, ft, &pos, scl) {
            Err(Error::Clip {
                frame: f,
                joint: j,
                reason,
            }) => {
                assert_eq!((f, j), (frame, joint), "{reason}");
                assert!(reason.contains("kineform::limits"), "{reason}");
            }
            other => panic!("{pos:?} {scl:?}: {other:?}"),
        }
    }
    // The domain's edge is accepted.
    let edge = [Vec3::splat(1e6), Vec3::splat(-1e6)];
    clip(
        2,
        limits::MIN_FRAME_TIME,
        &edge,
        Vec3::splat(limits::MAX_SCALE),
    )
    .unwrap();
}

/// Defect 4: from BVH, a position channel or an OFFSET of 3e38 is refused
/// at its line, naming the frame and the joint.
#[test]
fn defect_4_huge_bvh_values_are_refused_at_their_line() {
    let text = |offset: &str, value: &str| {
        format!(
            "HIERARCHY\nROOT hips\n{{\nOFFSET 0 0 0\nCHANNELS 3 Xposition Yposition Zposition\n\
             JOINT knee\n{{\nOFFSET {offset}\nCHANNELS 1 Xrotation\n}}\n}}\n\
             MOTION\nFrames: 2\nFrame Time: 0.01\n0 0 0 0\n{value} 0 0 0\n"
        )
    };
    let e = bvh::parse(&text("0 1 0", "3e38")).unwrap_err().to_string();
    assert!(
        e.starts_with("BVH line 16: frame 1: joint 0 (`hips`)") && e.contains("MAX_POSITION"),
        "{e}"
    );
    let e = bvh::parse(&text("0 3e38 0", "0")).unwrap_err().to_string();
    assert!(
        e.starts_with("BVH line 8: OFFSET") && e.contains("MAX_POSITION"),
        "{e}"
    );
    bvh::parse(&text("0 1e6 0", "-1e6")).unwrap();
}

/// Defect 4: a library refuses bone offsets past the domain, and clips
/// whose joints reach past `MAX_REACH` from the character's root or whose
/// scales multiply past `MAX_SCALE` along a chain (forward kinematics of
/// the rest pose overflowed: a chain of 40 joints scaled by 10 each).
#[test]
fn defect_4_a_library_refuses_skeletons_whose_forward_kinematics_overflows() {
    let one = Skeleton::new(vec![-1, 0]).unwrap();
    let e = ClipLibrary::new(&one, &[Vec3::ZERO, Vec3::new(3e38, 0.0, 0.0)]).unwrap_err();
    assert!(matches!(e, Error::Skeleton { joint: 1, .. }), "{e}");

    let chain = |n: usize| Skeleton::new((0..n as i32).map(|j| j - 1).collect()).unwrap();
    let scaled = chain(40);
    let offsets = vec![Vec3::new(0.0, 1.0, 0.0); 40];
    let mut lib = ClipLibrary::new(&scaled, &offsets).unwrap();
    let c = clip(1, 0.01, &offsets, Vec3::splat(10.0)).unwrap();
    let e = lib.add(&scaled, &c).unwrap_err().to_string();
    assert!(e.contains("MAX_SCALE") && e.contains("joint 6"), "{e}");
    let c = clip(1, 0.01, &offsets, Vec3::splat(1.4)).unwrap();
    lib.add(&scaled, &c).unwrap();

    let long = chain(2000);
    let far = vec![Vec3::new(1e6, 0.0, 0.0); 2000];
    let mut lib = ClipLibrary::new(&long, &far).unwrap();
    let c = clip(1, 0.01, &far, Vec3::ONE).unwrap();
    let e = lib.add(&long, &c).unwrap_err().to_string();
    assert!(e.contains("MAX_REACH") && e.contains("joint 1000"), "{e}");
}

/// Defect 4: at the edge of the domain (positions ±1e6 a frame apart over
/// the shortest frame time, bones of 1e6 on each axis, turns of 1.5 rad a
/// frame) both crowds' world output stays finite with the velocity check
/// off, and nothing is counted as not finite.
#[test]
fn defect_4_the_domains_edge_steps_to_finite_output() {
    let skeleton = Skeleton::new(vec![-1, 0, 1, 2]).unwrap();
    let offsets = vec![Vec3::new(1e6, -1e6, 1e6); 4];
    let mut lib = ClipLibrary::new(&skeleton, &offsets).unwrap();
    let pos: Vec<Vec3> = (0..8)
        .map(|i| Vec3::splat(if i % 2 == 0 { 1e6 } else { -1e6 }))
        .collect();
    let edge = Clip::new(
        2,
        4,
        limits::MIN_FRAME_TIME,
        pos.clone(),
        (0..8)
            .map(|i| {
                kineform::reference::quat_from_angle_axis(i as f32 * 1.5, Vec3::new(0.0, 1.0, 0.0))
            })
            .collect(),
        vec![Vec3::ONE; 8],
    )
    .unwrap();
    lib.add(&skeleton, &edge).unwrap();
    let cfg = CrowdConfig {
        characters: 9,
        velocity_check: false,
        ..CrowdConfig::default()
    };
    let mut lanes = Crowd::new(&lib, cfg.clone()).unwrap();
    let mut reference = ReferenceCrowd::new(&lib, cfg).unwrap();
    for dt in [1e-3, 0.5, 1e3] {
        let a = lanes.step(dt).unwrap();
        let b = reference.step(dt).unwrap();
        assert_eq!((a.velocity.non_finite, b.velocity.non_finite), (0, 0));
        for c in 0..9 {
            for j in 0..5 {
                for k in [
                    lanes.world_kform(c, j).unwrap(),
                    reference.world_kform(c, j).unwrap(),
                ] {
                    let v = [
                        k.pos.x, k.pos.y, k.pos.z, k.vel.x, k.vel.y, k.vel.z, k.rot.w,
                    ];
                    assert!(v.iter().all(|x| x.is_finite()), "{k:?}");
                }
            }
        }
    }
}

fn run_limited(kb: u64, args: &[&str]) -> std::process::Output {
    Command::new("bash")
        .arg("-c")
        .arg(format!("ulimit -v {kb}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_kineform"))
        .args(args)
        .output()
        .unwrap()
}

/// Defect 5: `kineform crowd --scalar` with 2,000,000 characters under a
/// 4 GB address-space limit is refused with a typed error saying what
/// could not be had (each character's poses were cloned infallibly:
/// SIGABRT, exit 134), naming the whole reservation that failed.
#[test]
fn defect_5_a_reference_crowd_too_big_for_memory_is_refused_not_aborted() {
    let o = run_limited(
        4_000_000,
        &[
            "crowd",
            "--scalar",
            "--characters",
            "2000000",
            "--frames",
            "1",
            "--warmup",
            "0",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("could not be reserved") && err.contains("in all"),
        "{err}"
    );
    // The message names the reservation that failed as a whole (the
    // characters' kept states: their vector, or their poses part way),
    // not the one 512-byte vector that happened to fail inside it.
    assert!(
        err.contains("2000000 characters") && !err.contains("512 bytes"),
        "{err}"
    );
}

/// Defect 5: 8 characters of a 65,534-joint clip on 64 threads: each
/// worker's scratch (five poses, 136 MB) is part of the size the crowd
/// states and is reserved fallibly, so under a 4 GB limit the crowd is
/// refused with the scratch named (it was allocated per rayon thread at
/// the first step, outside the size check: an abort).
#[test]
fn defect_5_the_workers_scratch_is_checked_and_stated() {
    let d = std::env::temp_dir().join(format!("kineform-scratch-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let path: PathBuf = d.join("wide.bvh");
    let mut s = String::from(
        "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Yrotation Xrotation\n",
    );
    for j in 1..limits::MAX_JOINTS - 1 {
        s.push_str(&format!("JOINT j{j}\n{{\nOFFSET 1 0 0\n}}\n"));
    }
    s.push_str("}\nMOTION\nFrames: 2\nFrame Time: 0.01\n0 0 0\n0 10 0\n");
    std::fs::write(&path, s).unwrap();
    let p = path.to_str().unwrap();
    let o = run_limited(
        4_000_000,
        &[
            "crowd",
            "--clip",
            p,
            "--characters",
            "8",
            "--threads",
            "64",
            "--frames",
            "1",
            "--warmup",
            "0",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("workers' scratch") && err.contains("in all"),
        "{err}"
    );
    // On two threads it fits and runs.
    let o = run_limited(
        4_000_000,
        &[
            "crowd",
            "--clip",
            p,
            "--characters",
            "8",
            "--threads",
            "2",
            "--frames",
            "2",
            "--warmup",
            "0",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_dir_all(&d).unwrap();
}

macro_rules! root_domain {
    ($crowd:expr) => {{
        let mut crowd = $crowd;
        let fast = Root {
            vel: Vec3::new(1e5, 0.0, 0.0),
            ..Root::standing(Vec3::ZERO, 0.0)
        };
        crowd.set_root(3, fast).unwrap();
        let mut refused = None;
        for step in 1..=12 {
            match crowd.step(1.0) {
                Ok(_) => {
                    // Whatever the crowd reaches, a command may set.
                    let root = crowd.state(3).unwrap().root;
                    CrowdCommand::SetRoot(root)
                        .validate(crowd.library())
                        .unwrap();
                }
                Err(e) => {
                    refused = Some((step, e));
                    break;
                }
            }
        }
        let (step, e) = refused.expect("a root past ±1e6 is refused");
        assert_eq!(step, 12, "{e}");
        match &e {
            Error::Character {
                character: 3,
                error,
            } => {
                assert!(error.to_string().contains("recenter"), "{e}")
            }
            e => panic!("{e}"),
        }
        // Re-centred, it goes on where it was, with no jump.
        let before = crowd.state(3).unwrap().root.pos;
        assert_eq!(before.x, 1e6);
        crowd.recenter(Vec3::new(1e6, 0.0, 0.0)).unwrap();
        assert_eq!(crowd.state(3).unwrap().root.pos.x, 0.0);
        let s = crowd.step(1.0).unwrap();
        assert_eq!(crowd.state(3).unwrap().root.pos.x, 1e5);
        assert!(s.velocity.passed(), "{:?}", s.velocity);
        // An origin that would take a root out is refused, changing nothing.
        assert!(crowd.recenter(Vec3::new(-2e6, 0.0, 0.0)).is_err());
        assert!(crowd.recenter(Vec3::new(f32::NAN, 0.0, 0.0)).is_err());
        assert_eq!(crowd.state(3).unwrap().root.pos.x, 1e5);
    }};
}

/// Defect 8: a root integrated past ±1e6 made `set_root(state().root)`
/// fail (and `examples/game_loop.rs` stop after about 12 hours): now what
/// the crowd can reach a command can set: a step that would move a root
/// out is refused, naming the character and `Crowd::recenter`, which moves
/// the world's origin so the motion goes on without a jump. Both crowds.
#[test]
fn defect_8_the_crowd_never_reaches_a_root_a_command_could_not_set() {
    let library = ClipLibrary::from_bvh(&kineform::data::default_clip()).unwrap();
    let cfg = CrowdConfig {
        characters: 12,
        ..CrowdConfig::default()
    };
    root_domain!(Crowd::new(&library, cfg.clone()).unwrap());
    root_domain!(ReferenceCrowd::new(&library, cfg).unwrap());
}

/// Defect 8, found by the `clips_from_values` fuzz target: re-centring
/// judges the root a step would apply, each character's last given, in
/// both crowds alike (the reference crowd refused an origin that would
/// take an earlier, overridden root out of the domain; the 8-lane crowd,
/// which keeps only the last, accepted it).
#[test]
fn defect_8_recenter_judges_the_roots_a_step_would_apply() {
    let library = ClipLibrary::from_bvh(&kineform::data::default_clip()).unwrap();
    let cfg = CrowdConfig {
        characters: 3,
        ..CrowdConfig::default()
    };
    let far = Root::standing(Vec3::new(9e5, 0.0, 0.0), 0.0);
    let near = Root::standing(Vec3::new(1.0, 0.0, 0.0), 0.0);
    let origin = Vec3::new(-5e5, 0.0, 0.0);
    let mut lanes = Crowd::new(&library, cfg.clone()).unwrap();
    let mut reference = ReferenceCrowd::new(&library, cfg).unwrap();
    for given in [[far, near], [near, far]] {
        let last_far = given[1] == far;
        for root in given {
            lanes.set_root(1, root).unwrap();
            reference.set_root(1, root).unwrap();
        }
        let (a, b) = (lanes.recenter(origin), reference.recenter(origin));
        assert_eq!(
            (a.is_err(), b.is_err()),
            (last_far, last_far),
            "{a:?} {b:?}"
        );
        lanes.step(0.01).unwrap();
        reference.step(0.01).unwrap();
        // Re-centred: the near root moved to 500,001; refused: the far one
        // applied where it was given.
        let want = if last_far { 9e5 } else { 500_001.0 };
        assert_eq!(lanes.state(1).unwrap().root.pos.x, want);
        assert_eq!(reference.state(1).unwrap().root.pos.x, want);
    }
}

/// Defect 4, found by the `clips_from_values` fuzz target: within the
/// domain, world velocities can pass 1e19 (a joint a billion units out on
/// a root turning at 1.5e12 rad/s: 1.5 rad a frame at the shortest frame
/// time, played a million times over), whose squares overflow: finite
/// output whose velocity gap is infinite. It was counted as output that
/// is not finite; now the count looks at the output (all finite here) and
/// the check fails instead.
#[test]
fn defect_4_finite_output_whose_gap_overflows_is_not_counted_as_non_finite() {
    let skeleton = Skeleton::new(vec![-1, 0]).unwrap();
    let offsets = [Vec3::ZERO, Vec3::new(1e6, 0.0, 0.0)];
    let mut lib = ClipLibrary::new(&skeleton, &offsets).unwrap();
    let turn = |a: f32| kineform::reference::quat_from_angle_axis(a, Vec3::new(0.0, 1.0, 0.0));
    let c = Clip::new(
        2,
        2,
        limits::MIN_FRAME_TIME,
        vec![Vec3::ZERO, offsets[1], Vec3::ZERO, offsets[1]],
        vec![turn(0.0), Quat::IDENTITY, turn(1.5), Quat::IDENTITY],
        vec![Vec3::splat(1e3), Vec3::ONE, Vec3::splat(1e3), Vec3::ONE],
    )
    .unwrap();
    lib.add(&skeleton, &c).unwrap();
    let cfg = CrowdConfig {
        characters: 1,
        velocity_check: true,
        ..CrowdConfig::default()
    };
    let mut crowd = ReferenceCrowd::new(&lib, cfg).unwrap();
    crowd
        .command(
            0,
            CrowdCommand::SetRate {
                source: kineform::crowd::Which::A,
                rate: 1e6,
            },
        )
        .unwrap();
    let mut fastest = 0.0f32;
    for _ in 0..3 {
        let s = crowd.step(1.0).unwrap();
        assert_eq!(s.velocity.non_finite, 0, "{s:?}");
        for j in 0..3 {
            let k = crowd.world_kform(0, j).unwrap();
            let v = [k.pos.x, k.pos.y, k.pos.z, k.vel.x, k.vel.y, k.vel.z];
            assert!(v.iter().all(|x| x.is_finite()), "{k:?}");
            fastest = fastest.max(k.vel.x.abs().max(k.vel.z.abs()));
        }
    }
    assert!(fastest > 1e19, "velocities reach {fastest:e}");
}

/// Where the worker threads cannot be had (2,000 of them, or `--threads
/// 1024`, under a 1 GB address-space limit: their stacks alone pass it),
/// `kineform match` and `kineform crowd` are refused, naming the threads
/// (exit 1). `match` built its database on rayon's global pool before
/// making its own, and the global pool panics where its threads cannot be
/// started (exit 101); under `ulimit -v` with long clips that happened
/// once the clips had filled memory. (Every large allocation of the
/// matching job's build is fallible: tests/build_memory.rs.) Both are
/// refused before a thread starts (the binary's `pool` module).
#[test]
fn threads_that_cannot_be_started_are_refused_naming_them() {
    for (args, names) in [
        (
            &["match", "demo", "--characters", "16", "--seconds", "0.05"][..],
            "RAYON_NUM_THREADS",
        ),
        (
            &[
                "crowd",
                "--threads",
                "1024",
                "--characters",
                "16",
                "--frames",
                "1",
            ][..],
            "--threads",
        ),
    ] {
        let o = Command::new("bash")
            .arg("-c")
            .arg("ulimit -v 1000000; exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_kineform"))
            .args(args)
            .env("RAYON_NUM_THREADS", "2000")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        // Refused before any thread starts, from the address-space limit:
        // started one by one, a thread that got its stack could still die
        // on its own first allocations near the limit, aborting the process
        // (SIGABRT, about one run in thirty of the crowd's case).
        assert!(
            err.contains("could not be started")
                && err.contains(names)
                && err.contains("address space"),
            "{err}"
        );
    }
}

/// A crowd keeps its library without copying the clips (they are shared:
/// `ClipLibrary`'s clone), so a crowd of long clips holds one copy of
/// them; the library it was made from stays the caller's, and adding to
/// it afterwards leaves the crowd's clips as they were.
#[test]
fn a_crowd_shares_its_librarys_clips_and_keeps_them_when_the_library_grows() {
    let b = kineform::data::default_clip();
    let mut lib = ClipLibrary::from_bvh(&b).unwrap();
    let crowd = Crowd::new(
        &lib,
        CrowdConfig {
            characters: 8,
            ..CrowdConfig::default()
        },
    )
    .unwrap();
    let reference = ReferenceCrowd::new(
        &lib,
        CrowdConfig {
            characters: 8,
            ..CrowdConfig::default()
        },
    )
    .unwrap();
    assert!(std::ptr::eq(crowd.library().clips(), lib.clips()));
    assert!(std::ptr::eq(reference.library().clips(), lib.clips()));
    lib.add_bvh(&b).unwrap();
    assert_eq!(
        (lib.len(), crowd.library().len(), reference.library().len()),
        (2, 1, 1)
    );
    assert_eq!(crowd.library().clips()[0], lib.clips()[0]);
    assert!(!std::ptr::eq(crowd.library().clips(), lib.clips()));
}
