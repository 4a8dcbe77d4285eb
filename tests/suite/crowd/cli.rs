//! The main job's `crowd` command on the crowd runtime.

use std::process::Command;

fn kineform(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kineform"))
        .args(args)
        .output()
        .unwrap()
}

/// Fitted half-lives belong to dead blending: asked for with
/// inertialization, the program refuses (exit 2) instead of ignoring them.
#[test]
fn fitted_halflives_need_dead_blending() {
    let out = kineform(&[
        "crowd",
        "--characters",
        "8",
        "--frames",
        "2",
        "--halflives",
        "fitted",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--transition deadblend"), "{err}");
}

#[test]
fn json_has_every_figure() {
    let mut plain_boxes = None;
    for extra in [
        &[][..],
        &["--scalar"],
        &["--transition", "deadblend", "--sampling", "cubic"],
        &["--transition", "deadblend", "--halflives", "fitted"],
        &["--joint-radius", "2"],
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
            "commands_per_frame",
            "velocity_gap_max",
            "velocity_gap_mean",
            "velocity_gap_bound",
            "velocity_check_passed",
            "velocity_gap_worst",
            "non_finite_character_frames",
            "bounds_mean_size",
            "bounds_largest_extent",
        ] {
            assert!(!v[key].is_null(), "{key} missing in {v}");
        }
        // The characters' boxes (issue 24 item 4), read out after each
        // frame: a standing body's size, the mocap's units (inches
        // over 0.45), tallest on y; padded by 2 units per joint, the
        // same run's boxes are 4 units larger on every axis.
        let size: Vec<f64> = v["bounds_mean_size"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_f64().unwrap())
            .collect();
        assert!(
            size.len() == 3 && size.iter().all(|s| *s > 2.0 && *s < 100.0),
            "{v}"
        );
        assert!(size[1] > size[0] && size[1] > size[2], "{v}");
        match (extra, &plain_boxes) {
            (&[], _) => plain_boxes = Some(size),
            (&["--joint-radius", _], Some(plain)) => {
                for (p, s) in plain.iter().zip(&size) {
                    assert!((s - p - 4.0).abs() < 1e-3, "{plain:?} {size:?}");
                }
            }
            _ => {}
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
        assert!(v["commands_per_frame"].as_f64().unwrap() > 0.0, "{v}");
        assert_eq!(
            v["transition"].as_str().unwrap().contains("fitted"),
            extra.contains(&"fitted"),
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
        "commands per frame",
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
        // Negative numbers get their range, not "unexpected argument".
        (&["--fps", "-3"], "-3 is not a frame rate (finite, > 0)"),
        (&["--characters", "-5"], "-5 is not in 1..=10000000"),
        (&["--threads", "-1"], "-1 is not in 1..=1024"),
        (&["--warmup", "-2"], "-2 is not in 0..="),
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
    // A clip of another hierarchy, of no CMU convention: refused,
    // naming the file and the joint.
    let two = dir.join("two.bvh");
    std::fs::write(
        &two,
        "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n JOINT Tail\n {\n  OFFSET 0 -1 0\n  CHANNELS 3 Zrotation Yrotation Xrotation\n  End Site\n  {\n   OFFSET 0 -1 0\n  }\n }\n}\nMOTION\nFrames: 2\nFrame Time: .0083333\n0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0\n",
    )
    .unwrap();
    let out = kineform(&[
        "--clip",
        &format!(
            "{}/data/mocap/cmu_102_01_max.bvh",
            env!("CARGO_MANIFEST_DIR")
        ),
        "--clip",
        two.to_str().unwrap(),
        "--frames",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("two.bvh") && err.contains("joint") && err.contains("`Tail`"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
