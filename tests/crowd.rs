//! The crowd (issue 4): the fused 8-lane pipeline against the reference
//! pipeline run character by character, its live velocity check, thread
//! independence, refusals, and the command line.
//!
//! Tolerances (lanes vs reference, over 300 frames of the CMU clip, every
//! character and joint of the crowd skeleton, all four modes); measured
//! worst cases are about a tenth of each:
//! - positions: 2e-4 units + 2e-6 relative. World positions reach 100+
//!   units (the grid) at the end of a 32-joint FK chain; f32 rounding there
//!   is a few ULP per step, and the lanes' exp/log/sin polynomials differ
//!   from libm by up to 2e-7 rad, which a 20-unit bone turns into 4e-6.
//! - rotations: `1 - |dot| <= 1e-5` (worst seen 1.3e-6: ~30 quaternion
//!   products each off by a few ULP).
//! - velocities: 2e-3 units/s + 1e-5 relative; angular velocities 2e-4
//!   rad/s + 1e-5 relative. Velocities scale position differences by up to
//!   the blend's weight rate and lever arms by angular velocities of up to
//!   30 rad/s, and the sampled ones divide a per-frame step by 1/120 s.

use kineform::crowd::{Crowd, CrowdConfig, ReferenceCrowd, Sampling, Transition};
use kineform::reference::{self as r, Kform};
use kineform::{Clip, Error, Skeleton, data};

fn clip() -> (Vec<Clip>, Skeleton) {
    let b = data::default_clip();
    (vec![b.clip], b.skeleton)
}

const MODES: [(Sampling, Transition); 4] = [
    (Sampling::Linear, Transition::Inertialize),
    (Sampling::Linear, Transition::DeadBlend),
    (Sampling::Cubic, Transition::Inertialize),
    (Sampling::Cubic, Transition::DeadBlend),
];

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

#[derive(Default, Debug)]
struct Diffs {
    pos: f32,
    rot: f32,
    vel: f32,
    ang: f32,
}

impl Diffs {
    /// Every difference within its tolerance.
    fn within(&self) -> bool {
        self.pos <= 1.0 && self.rot <= 1.0 && self.vel <= 1.0 && self.ang <= 1.0
    }
}

/// Largest scaled differences between the two crowds' world poses.
fn compare(a: &Kform, b: &Kform, d: &mut Diffs) {
    // |x - y| over its tolerance `abs + rel |y|`.
    let scaled =
        |x: r::Vec3, y: r::Vec3, abs: f32, rel: f32| r::length(x - y) / (abs + rel * r::length(y));
    d.pos = d.pos.max(scaled(a.pos, b.pos, 2e-4, 2e-6));
    d.rot = d.rot.max((1.0 - r::quat_dot(a.rot, b.rot).abs()) / 1e-5);
    d.vel = d.vel.max(scaled(a.vel, b.vel, 2e-3, 1e-5));
    d.ang = d.ang.max(scaled(a.ang, b.ang, 2e-4, 1e-5));
}

/// What a lanes-vs-reference run saw.
struct Run {
    diffs: Diffs,
    transitions: u32,
    /// Jumps made while the character's previous transition still ran.
    interrupted: u32,
    clips_played: Vec<bool>,
}

/// Runs the 8-lane and the reference crowd side by side for `frames`
/// frames on two threads, asserting the same schedule every frame, and
/// returns the worst differences of every character's world pose.
fn run_both(clips: &[Clip], skel: &Skeleton, cfg: CrowdConfig, frames: usize) -> Run {
    let (n, dt, duration) = (cfg.characters, cfg.dt, cfg.blend_duration);
    let mut lanes = Crowd::new(clips, skel, cfg.clone()).unwrap();
    let mut reference = ReferenceCrowd::new(clips, skel, cfg).unwrap();
    let joints = lanes.skeleton().len();
    let mut run = Run {
        diffs: Diffs::default(),
        transitions: 0,
        interrupted: 0,
        clips_played: vec![false; clips.len()],
    };
    pool(2).install(|| {
        for _ in 0..frames {
            let running: Vec<bool> = (0..n)
                .map(|c| lanes.character(c).unwrap().blend_time() + dt < duration)
                .collect();
            let (sl, sr) = (lanes.step(), reference.step());
            assert_eq!(sl.transitions, sr.transitions, "the same schedule");
            run.transitions += sl.transitions;
            for (c, was_running) in running.into_iter().enumerate() {
                let jumped = lanes.character(c).unwrap().blend_time() == 0.0;
                run.interrupted += u32::from(jumped && was_running);
                let sources = lanes.character(c).unwrap().sources();
                assert_eq!(sources, reference.character(c).unwrap().sources());
                run.clips_played[sources.0.clip] = true;
                for j in 0..joints {
                    compare(
                        &lanes.world_kform(c, j).unwrap(),
                        &reference.world_kform(c, j).unwrap(),
                        &mut run.diffs,
                    );
                }
            }
        }
    });
    assert!(lanes.world_kform(n, 0).is_none() && lanes.world_kform(0, joints).is_none());
    run
}

#[test]
fn lanes_crowd_equals_reference_crowd() {
    let (clips, skel) = clip();
    for (sampling, transition) in MODES {
        // 9 characters: one full pack and a partial one.
        let cfg = CrowdConfig {
            characters: 9,
            sampling,
            transition,
            seed: 7,
            ..Default::default()
        };
        let Run {
            diffs: d,
            transitions,
            ..
        } = run_both(&clips, &skel, cfg, 300);
        println!(
            "{sampling:?} {transition:?}: {transitions} transitions, worst diff / tolerance {d:?}"
        );
        assert!(
            transitions >= 9,
            "the run must cross transitions ({transitions})"
        );
        assert!(d.within(), "{sampling:?} {transition:?}: {d:?}");
    }
}

/// Jumps every 0.1 to 0.4 s, so characters often jump while their last
/// transition still runs (the pose they would have shown is then itself
/// inertialized or dead-blended, from offsets gathered across packs), in
/// three packs.
#[test]
fn interrupted_transitions_equal_reference() {
    let (clips, skel) = clip();
    for (sampling, transition) in MODES {
        let cfg = CrowdConfig {
            characters: 24,
            sampling,
            transition,
            seed: 3,
            transition_every: (0.1, 0.4),
            ..Default::default()
        };
        let Run {
            diffs: d,
            interrupted,
            ..
        } = run_both(&clips, &skel, cfg, 150);
        println!("{sampling:?} {transition:?}: {interrupted} interrupted, {d:?}");
        assert!(
            interrupted >= 50,
            "few interrupted transitions ({interrupted})"
        );
        assert!(d.within(), "{sampling:?} {transition:?}: {d:?}");
    }
}

/// Two clips of different subjects (different bone lengths, so joints whose
/// position differs between clips get position rows in the database): the
/// 8-lane crowd still equals the reference crowd.
#[test]
fn two_clips_of_different_subjects() {
    let (mut clips, skel) = clip();
    let other = kineform::bvh::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mocap/cmu_131_01_max.bvh"
    ))
    .unwrap();
    assert_eq!(other.skeleton.parents(), skel.parents());
    // One clip: only the root moves (BVH position channels); two subjects:
    // most joints' offsets differ between them (21 of 31 here).
    assert_eq!(
        kineform::database::Database::new(&clips)
            .unwrap()
            .moving_joints(),
        1
    );
    // Still joints (position and rotation constant in every frame): in
    // 102_01 the hip joints, collars, hands and fingers; the crowd skips
    // their sampling and transitions, so both runs below cover them.
    let still = |db: &kineform::database::Database| -> Vec<usize> {
        (0..db.joints())
            .filter(|&j| db.still_rotation(j).is_some())
            .collect()
    };
    let one = kineform::database::Database::new(&clips).unwrap();
    assert_eq!(still(&one), [1, 6, 17, 21, 22, 24, 28, 29]);
    clips.push(other.clip);
    let both = kineform::database::Database::new(&clips).unwrap();
    let moving = both.moving_joints();
    assert!(moving > 1 && moving <= skel.len(), "{moving}");
    // A joint still in one clip but moving (offsets differ) or turning in
    // the other is not still.
    let s2 = still(&both);
    assert!(
        s2.iter().all(|j| still(&one).contains(j)) && s2.len() < 8,
        "{s2:?}"
    );
    let cfg = CrowdConfig {
        characters: 9,
        seed: 21,
        ..Default::default()
    };
    let Run {
        diffs: d,
        clips_played,
        ..
    } = run_both(&clips, &skel, cfg, 240);
    assert_eq!(clips_played, [true, true], "both clips played");
    assert!(d.within(), "{d:?}");
}

/// The live check: the propagated world velocities against the finite
/// difference of world positions, `|(p1 - p0) / dt - (v0 + v1) / 2|`. The
/// lanes gap equals the reference pipeline's within 0.1% (the same math),
/// the check passes (its bound, twice the top speed, holds), and a finer
/// step shrinks the mean. How the largest gap converges, and the snaps it
/// would show, is `tests/continuity.rs`'s.
#[test]
fn world_velocities_match_finite_differences() {
    let (clips, skel) = clip();
    for (sampling, transition) in MODES {
        let run = |dt: f32, scalar: bool| {
            let cfg = CrowdConfig {
                characters: 24,
                sampling,
                transition,
                dt,
                seed: 3,
                ..Default::default()
            };
            let (mut sum, mut n, mut speed) = (0.0f64, 0u64, 0.0f32);
            let mut check = kineform::crowd::VelocityCheck::default();
            let mut lanes = Crowd::new(&clips, &skel, cfg.clone()).unwrap();
            let mut reference = ReferenceCrowd::new(&clips, &skel, cfg).unwrap();
            for _ in 0..(4.0 / dt) as usize {
                let s = if scalar {
                    reference.step()
                } else {
                    lanes.step()
                };
                sum += s.velocity.sum_gap;
                n += s.velocity.samples;
                speed = speed.max(s.velocity.max_speed);
                check.merge(&s.velocity);
            }
            assert!(check.passed(), "{check:?}");
            ((sum / n as f64) as f32, speed)
        };
        let (g60, speed) = run(1.0 / 60.0, false);
        let (r60, _) = run(1.0 / 60.0, true);
        let (g240, _) = run(1.0 / 240.0, false);
        println!(
            "{sampling:?} {transition:?}: mean gap {g60} (reference {r60}) at 60 Hz, {g240} at 240 Hz; speeds up to {speed}"
        );
        assert!(
            (g60 - r60).abs() <= 1e-3 * r60,
            "lanes {g60} vs reference {r60}"
        );
        assert!(g60 < 0.012 * speed, "{g60} vs {speed}");
        assert!(g240 < 0.5 * g60, "{g240} vs {g60}");
    }
}

#[test]
fn one_thread_and_two_give_identical_bytes() {
    let (clips, skel) = clip();
    for (sampling, transition) in MODES {
        // 100 characters: 13 packs, the last one partial.
        let cfg = CrowdConfig {
            characters: 100,
            sampling,
            transition,
            seed: 11,
            ..Default::default()
        };
        let mut one = Crowd::new(&clips, &skel, cfg.clone()).unwrap();
        let mut two = Crowd::new(&clips, &skel, cfg).unwrap();
        for f in 0..150 {
            let s1 = pool(1).install(|| one.step());
            let s2 = pool(2).install(|| two.step());
            assert_eq!(s1.transitions, s2.transitions);
            assert_eq!(s1.velocity.max_gap.to_bits(), s2.velocity.max_gap.to_bits());
            let (b1, b2): (&[u8], &[u8]) = (
                bytemuck::cast_slice(one.world()),
                bytemuck::cast_slice(two.world()),
            );
            assert!(
                b1 == b2,
                "frame {f}: world output differs between 1 and 2 threads"
            );
        }
    }
}

#[test]
fn bad_configurations_are_refused() {
    let (clips, skel) = clip();
    let ok = CrowdConfig {
        characters: 16,
        ..Default::default()
    };
    let bad = [
        CrowdConfig {
            characters: 0,
            ..ok.clone()
        },
        CrowdConfig {
            dt: 0.0,
            ..ok.clone()
        },
        CrowdConfig {
            dt: -1.0 / 60.0,
            ..ok.clone()
        },
        CrowdConfig {
            dt: f32::NAN,
            ..ok.clone()
        },
        CrowdConfig {
            blend_duration: 0.0,
            ..ok.clone()
        },
        CrowdConfig {
            blend_duration: f32::INFINITY,
            ..ok.clone()
        },
        CrowdConfig {
            extrapolation_halflife: f32::NAN,
            ..ok.clone()
        },
        CrowdConfig {
            transition_every: (3.0, 2.0),
            ..ok.clone()
        },
        CrowdConfig {
            transition_every: (0.0, 2.0),
            ..ok.clone()
        },
        CrowdConfig {
            playback_rate: (1.0, f32::INFINITY),
            ..ok.clone()
        },
        CrowdConfig {
            playback_rate: (-1.0, 1.0),
            ..ok.clone()
        },
        CrowdConfig {
            spacing: f32::NAN,
            ..ok.clone()
        },
    ];
    for cfg in bad {
        let e1 = Crowd::new(&clips, &skel, cfg.clone()).err();
        let e2 = ReferenceCrowd::new(&clips, &skel, cfg.clone()).err();
        assert!(
            matches!(e1, Some(Error::Parameter { .. } | Error::Length { .. })),
            "{cfg:?}: {e1:?}"
        );
        assert!(
            matches!(e2, Some(Error::Parameter { .. } | Error::Length { .. })),
            "{cfg:?}: {e2:?}"
        );
    }
    // No clips; a clip on another skeleton.
    assert!(matches!(
        Crowd::new(&[], &skel, ok.clone()),
        Err(Error::Length { .. })
    ));
    let other = Skeleton::new(vec![-1, 0]).unwrap();
    assert!(matches!(
        Crowd::new(&clips, &other, ok.clone()),
        Err(Error::Length { .. })
    ));
    assert!(matches!(
        ReferenceCrowd::new(&clips, &other, ok.clone()),
        Err(Error::Length { .. })
    ));
    // Scales other than 1: the reference crowd plays them, the 8-lane one
    // says why it cannot.
    let c = &clips[0];
    let mut scl = c.scales().to_vec();
    scl[5] = r::Vec3::new(1.5, 1.0, 1.0);
    let scaled = Clip::new(
        c.frames(),
        c.joints(),
        c.frame_time(),
        c.positions().to_vec(),
        c.rotations().to_vec(),
        scl,
    )
    .unwrap();
    let e = Crowd::new(std::slice::from_ref(&scaled), &skel, ok.clone())
        .err()
        .unwrap();
    assert!(e.to_string().contains("unit scales"), "{e}");
    assert!(ReferenceCrowd::new(&[scaled], &skel, ok).is_ok());
}

/// Any f32 a caller could pass: special values, extremes, subnormals and
/// ordinary magnitudes of both signs.
fn any_f32() -> impl proptest::strategy::Strategy<Value = f32> {
    use proptest::prelude::*;
    prop_oneof![
        Just(f32::NAN),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(f32::MAX),
        Just(f32::MIN_POSITIVE),
        Just(1e-40),
        -10.0f32..10.0,
        0.0f32..1e-3,
        1e3f32..1e30,
    ]
}

/// Usually a valid (finite, positive) value, extremes included; now and
/// then anything at all.
fn mostly_valid() -> impl proptest::strategy::Strategy<Value = f32> {
    use proptest::prelude::*;
    prop_oneof![
        6 => 1e-3f32..10.0,
        1 => Just(f32::MIN_POSITIVE),
        1 => Just(1e-30f32),
        1 => Just(1e30f32),
        1 => any_f32(),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    /// Any configuration either is refused with an error or runs: no f32
    /// value makes the crowd panic (NaN or infinite positions may come out
    /// of absurd spacings; that is the caller's input, not a crash).
    #[test]
    fn no_configuration_panics(dt in mostly_valid(), blend in mostly_valid(), hl in mostly_valid(), every in (mostly_valid(), mostly_valid()),
                               rate in (mostly_valid(), mostly_valid()), spacing in mostly_valid(), characters in 1usize..20, cubic: bool, dead: bool) {
        let (clips, skel) = clip();
        let cfg = CrowdConfig {
            characters,
            sampling: if cubic { Sampling::Cubic } else { Sampling::Linear },
            transition: if dead { Transition::DeadBlend } else { Transition::Inertialize },
            dt,
            blend_duration: blend,
            extrapolation_halflife: hl,
            transition_every: every,
            playback_rate: rate,
            spacing,
            seed: 5,
        };
        let lanes = Crowd::new(&clips, &skel, cfg.clone());
        let reference = ReferenceCrowd::new(&clips, &skel, cfg);
        proptest::prop_assert_eq!(lanes.is_ok(), reference.is_ok());
        if let (Ok(mut l), Ok(mut r)) = (lanes, reference) {
            for _ in 0..3 {
                let (sl, sr) = (l.step(), r.step());
                proptest::prop_assert_eq!(sl.transitions, sr.transitions);
            }
        }
    }
}

#[cfg(feature = "cli")]
mod cli {
    use std::process::Command;

    fn kineform(args: &[&str]) -> std::process::Output {
        Command::new(env!("CARGO_BIN_EXE_kineform"))
            .args(args)
            .output()
            .unwrap()
    }

    #[test]
    fn json_has_every_figure() {
        for extra in [
            &[][..],
            &["--scalar"],
            &["--transition", "deadblend", "--sampling", "cubic"],
        ] {
            let mut args = vec![
                "crowd",
                "--characters",
                "20",
                "--frames",
                "30",
                "--threads",
                "2",
                "--json",
            ];
            args.extend_from_slice(extra);
            let out = kineform(&args);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            for key in [
                "simd_backend",
                "threads",
                "frame_ms_median",
                "frame_ms_p99",
                "character_joints_per_s",
                "velocity_gap_max",
                "velocity_gap_mean",
                "velocity_gap_bound",
                "velocity_check_passed",
                "velocity_gap_worst",
                "non_finite_character_frames",
            ] {
                assert!(!v[key].is_null(), "{key} missing in {v}");
            }
            // The verdict: passed, the worst place named, nothing non-finite.
            assert_eq!(v["velocity_check_passed"], true, "{v}");
            assert_eq!(v["non_finite_character_frames"], 0, "{v}");
            let worst = &v["velocity_gap_worst"];
            assert!(worst["character"].as_u64().unwrap() < 20, "{v}");
            assert!(worst["joint"].as_u64().unwrap() < 32, "{v}");
            assert!(worst["joint_name"].is_string(), "{v}");
            assert!(
                v["velocity_gap_max"].as_f64() <= v["velocity_gap_bound"].as_f64(),
                "{v}"
            );
            assert_eq!(v["characters"], 20);
            assert_eq!(v["threads"], 2);
            assert_eq!(v["joints"], 31);
            let gap = v["velocity_gap_mean"].as_f64().unwrap();
            assert!(
                gap > 0.0 && gap < 0.02 * v["max_speed"].as_f64().unwrap(),
                "{v}"
            );
        }
    }

    #[test]
    fn text_output_names_backend_and_timings() {
        let out = kineform(&["--characters", "16", "--frames", "5", "--threads", "1"]);
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        for needle in [
            "SIMD backend",
            "threads: 1",
            "median",
            "p99",
            "character-joints/s",
            "velocity check",
            "bound",
            "passed",
            "worst gap: character",
        ] {
            assert!(text.contains(needle), "{needle} missing in {text}");
        }
    }

    #[test]
    fn bad_arguments_exit_with_a_reason() {
        // Usage errors: clap's exit code 2 and a message naming the problem.
        for (args, needle) in [
            (&["--characters", "0"][..], "characters"),
            (&["--characters", "many"], "characters"),
            (&["--transition", "teleport"], "teleport"),
            (&["--sampling", "quintic"], "quintic"),
            (&["--threads", "0"], "threads"),
            (&["--fps", "0"], "fps"),
            (&["--fps", "nan"], "fps"),
            (&["--frobnicate"], "frobnicate"),
        ] {
            let out = kineform(args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(needle), "{args:?}: {err}");
        }
        // Run-time errors: exit code 1 and the file and reason.
        let out = kineform(&["--clip", "/no/such/file.bvh", "--frames", "1"]);
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/file.bvh"));
        let dir = std::env::temp_dir().join(format!("kineform-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.bvh");
        std::fs::write(&bad, "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0\n").unwrap();
        let out = kineform(&["--clip", bad.to_str().unwrap(), "--frames", "1"]);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("line 4"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
