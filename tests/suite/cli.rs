//! The command line's errors on hostile files (issue 13, defect 8): a
//! parse error names the file and line and quotes a bounded excerpt, a
//! UTF-8 byte order mark is accepted, and a clip too large for the crowd
//! says that the crowd adds a root joint; every shipped clip plays in one
//! crowd (issue 22).

use kineform::bvh::{self, Channel};
use kineform::reference::{Quat, Vec3};
use kineform::{Clip, Skeleton};
use std::path::PathBuf;
use std::process::Command;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("kineform-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `kineform` on one clip for a single small frame: (exit code, stderr).
/// The main job run with `args` then `extra`.
fn kineform(args: &[&str], extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kineform"))
        .args(args)
        .args(extra)
        .output()
        .unwrap()
}

/// [`kineform`]'s `--json` object, the run asserted to succeed.
fn kineform_json(args: &[&str], extra: &[&str]) -> serde_json::Value {
    let out = kineform(args, extra);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?} {extra:?}: {err}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn run(clip: &std::path::Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kineform"))
        .args([
            "--characters",
            "8",
            "--frames",
            "1",
            "--warmup",
            "0",
            "--threads",
            "1",
            "--json",
        ])
        .arg("--clip")
        .arg(clip)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const CMU: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/mocap/cmu_102_01_max.bvh");

/// Issue 13, defect 8: a parse error did not name the file, and quoted the
/// whole offending line.
#[test]
fn parse_errors_name_the_file_and_quote_a_bounded_excerpt() {
    let text = std::fs::read_to_string(CMU).unwrap();
    let file = dir().join("long line.bvh");
    let long = "7".repeat(1_000_000) + "x";
    std::fs::write(
        &file,
        text.replacen("Frame Time:", &format!("{long}\nFrame Time:"), 1),
    )
    .unwrap();
    let (code, err) = run(&file);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("{}: BVH line ", file.display())),
        "{err}"
    );
    assert!(err.len() < 400, "{} bytes of error", err.len());
}

/// Issue 13, defect 8: a UTF-8 byte order mark was refused with an
/// invisible character in the message.
#[test]
fn a_byte_order_mark_is_accepted() {
    let file = dir().join("bom.bvh");
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(std::fs::read(CMU).unwrap());
    std::fs::write(&file, bytes).unwrap();
    let (code, err) = run(&file);
    assert_eq!(code, 0, "{err}");
}

/// Issue 13, defect 8: a 65,535-joint file (the most a skeleton may have)
/// was refused as "skeleton joint 65535: 65536 joints" without saying that
/// the crowd adds a root joint.
#[test]
fn a_clip_too_large_for_the_crowd_says_the_crowd_adds_a_root() {
    let n = kineform::skeleton::MAX_JOINTS;
    let skeleton = Skeleton::new((0..n).map(|j| if j == 0 { -1 } else { 0 }).collect()).unwrap();
    let mut channels = vec![vec![]; n];
    channels[0] = vec![Channel::Zrotation, Channel::Xrotation, Channel::Yrotation];
    let offsets = vec![Vec3::ZERO; n];
    let clip = Clip::new(
        2,
        n,
        1.0 / 120.0,
        vec![Vec3::ZERO; 2 * n],
        vec![Quat::IDENTITY; 2 * n],
        vec![Vec3::ONE; 2 * n],
    )
    .unwrap();
    let b = bvh::Bvh {
        skeleton,
        offsets,
        channels,
        end_sites: vec![None; n],
        clip,
    };
    let file = dir().join("wide.bvh");
    std::fs::write(&file, bvh::write(&b, &b.clip).unwrap()).unwrap();
    let (code, err) = run(&file);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("65535 joints; the crowd adds one world root joint per character"),
        "{err}"
    );
}

/// `--no-check` turns the crowd's live velocity check off and says so: no
/// verdict, and every figure the check would measure null; without it the
/// check runs and passes. Output that is not finite is counted either way
/// (issue 21, defect 4): 0 here, not null.
#[test]
fn no_check_leaves_the_velocity_check_out_and_says_so() {
    let json = |extra: &[&str]| -> serde_json::Value {
        let out = Command::new(env!("CARGO_BIN_EXE_kineform"))
            .args([
                "crowd",
                "--characters",
                "16",
                "--frames",
                "3",
                "--warmup",
                "30",
            ])
            .args(["--threads", "1", "--json"])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let on = json(&[]);
    assert_eq!(on["velocity_check"], true);
    assert_eq!(on["velocity_check_passed"], true);
    assert!(on["velocity_gap_max"].as_f64().unwrap() > 0.0, "{on}");
    for extra in [&["--no-check"][..], &["--no-check", "--scalar"]] {
        let off = json(extra);
        assert_eq!(off["velocity_check"], false, "{extra:?}");
        assert!(off["velocity_check_passed"].is_null(), "{off}");
        for k in [
            "velocity_gap_max",
            "velocity_gap_mean",
            "velocity_gap_bound",
            "max_speed",
        ] {
            assert!(off[k].is_null(), "{k}: {off}");
        }
        assert_eq!(off["non_finite_character_frames"], 0, "{off}");
    }
}

/// Issue 22, item 3: the five shipped clips, of three joint-naming
/// conventions, play in one crowd (`--clip` five times; each joins the
/// first's skeleton through its CMU joint map), with the velocity check
/// passing, whichever convention comes first.
#[test]
fn every_shipped_clip_plays_in_one_crowd() {
    let files = [
        "cmu_12_01_walk_mb.bvh",
        "cmu_01_01_mb.bvh",
        "cmu_01_03_mb.bvh",
        "cmu_102_01_max.bvh",
        "cmu_131_01_max.bvh",
    ];
    let path = |f: &str| format!("{}/data/mocap/{f}", env!("CARGO_MANIFEST_DIR"));
    for first in [0, 3] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kineform"));
        cmd.args(["crowd", "--characters", "40", "--frames", "30"])
            .args(["--warmup", "150", "--threads", "1", "--json"]);
        for k in 0..5 {
            cmd.arg("--clip").arg(path(files[(first + k) % 5]));
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["velocity_check_passed"], true, "{v}");
        assert!(v["transitions"].as_u64().unwrap() > 20, "{v}");
        let clips = v["clips"].as_str().unwrap();
        assert!(files.iter().all(|f| clips.contains(f)), "{clips}");
    }
}

/// Issue 23, item 6: `--layers` gives every character an upper-body
/// override and an additive (`--layers 1` the override alone), played by
/// the driver with their weights moving, in both crowds; `--json`
/// reports the layer count and the
/// velocity check passes. A clip set whose skeleton has no `Chest` is
/// refused with the layer and the joint named.
#[test]
fn layers_play_in_the_main_job() {
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_kineform"))
            .args(["crowd", "--characters", "24", "--frames", "20"])
            .args(["--warmup", "100", "--threads", "1", "--json"])
            .args(extra)
            .output()
            .unwrap()
    };
    for (extra, layers) in [
        (&["--layers"][..], 2),
        (&["--layers", "--scalar"], 2),
        (&["--layers", "1"], 1),
        (&[], 0),
    ] {
        let out = run(extra);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["layers"], layers, "{v}");
        assert_eq!(v["velocity_check_passed"], true, "{v}");
    }
    let mb = format!("{}/data/mocap/cmu_01_01_mb.bvh", env!("CARGO_MANIFEST_DIR"));
    let out = run(&["--layers", "--clip", &mb]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("layer 0") && err.contains("\"Chest\""),
        "{err}"
    );
}

/// Issue 24, item 3: the crowd job puts footstep markers on the clips
/// (foot contacts of LeftFoot and RightFoot) and reports how many its
/// characters cross: on the CMU walk (8 contacts in 4.4 s, 1.84 a second)
/// played at rates 0.8 to 1.2 by the dominant source (`--marker-weight
/// 0.5`), about as many per character and second; more when both sources
/// count (`--marker-weight 0`: source B blends in and out).
#[test]
fn the_crowd_job_reports_footsteps_per_second() {
    let walk = format!(
        "{}/data/mocap/cmu_12_01_walk_mb.bvh",
        env!("CARGO_MANIFEST_DIR")
    );
    let json = |weight: &str| -> serde_json::Value {
        let out = Command::new(env!("CARGO_BIN_EXE_kineform"))
            .args(["crowd", "--characters", "64", "--frames", "600"])
            .args(["--warmup", "120", "--threads", "1", "--json", "--no-check"])
            .args(["--marker-weight", weight, "--clip", &walk])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let v = json("0.5");
    assert_eq!(v["markers_in_clips"], 8, "{v}");
    let dominant = v["markers_per_character_s"].as_f64().unwrap();
    assert!((1.2..=2.4).contains(&dominant), "{v}");
    let both = json("0")["markers_per_character_s"].as_f64().unwrap();
    assert!(
        both > 1.3 * dominant && both < 2.2 * dominant,
        "{both} against {dominant}"
    );
}

/// `kineform match --json` runs a small matching crowd and reports its
/// figures: about ten searches a character a second (one each 0.1 s), some
/// transitions, a finite trajectory error and search share.
#[test]
fn match_reports_its_figures_in_json() {
    let out = Command::new(env!("CARGO_BIN_EXE_kineform"))
        .args([
            "match",
            "spring",
            "--characters",
            "16",
            "--seconds",
            "2",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = |k: &str| j[k].as_f64().unwrap_or_else(|| panic!("{k} in {j}"));
    assert!((8.0..15.0).contains(&f("searches_per_second")), "{j}");
    assert!(f("transitions_per_second") > 0.0, "{j}");
    assert!(f("mean_trajectory_error").is_finite(), "{j}");
    assert!((0.0..=1.0).contains(&f("search_time_share")), "{j}");
    assert_eq!(j["features"], "spring");
}

/// `kineform match --compact` runs the matching crowd on compact clips
/// and says so: a quarter of the full rows' table bytes, and the crowd
/// still walks (the searches as often; poses within the codec's error,
/// so the same kind of figures, not the same bits). `--stepped` likewise,
/// in at most half the full rows' bytes and more than the compact ones.
#[test]
fn match_runs_on_compact_clips() {
    let base = ["match", "--characters", "16", "--seconds", "1", "--json"];
    let run = |extra: &[&str]| kineform_json(&base, extra);
    let (full, compact) = (run(&[]), run(&["--compact"]));
    assert_eq!(full["clip_storage"], "full");
    assert_eq!(compact["clip_storage"], "compact");
    let bytes = |j: &serde_json::Value| j["clip_table_bytes"].as_u64().unwrap();
    // A quarter (to within 1% for any header a format might add).
    let (c, f) = (bytes(&compact), bytes(&full));
    assert!(c > 0 && 400 * c <= 101 * f, "{compact} {full}");
    let searches = |j: &serde_json::Value| j["searches_per_second"].as_f64().unwrap();
    assert!((searches(&compact) / searches(&full) - 1.0).abs() < 0.02);
    assert!(
        compact["mean_trajectory_error"]
            .as_f64()
            .unwrap()
            .is_finite()
    );
    let stepped = run(&["--stepped"]);
    assert_eq!(stepped["clip_storage"], "stepped");
    let s = bytes(&stepped);
    assert!(c < s && 2 * s <= f, "{stepped} {compact} {full}");
    assert!((searches(&stepped) / searches(&full) - 1.0).abs() < 0.02);
}

/// `kineform crowd` reports its storage and the bytes of its clips'
/// tables: compact clips a quarter of the full rows', stepped ones at most
/// a half and more than compact; `--compact` with `--stepped` is refused.
#[test]
fn crowd_reports_its_clip_storage_and_bytes() {
    let base = [
        "crowd",
        "--characters",
        "16",
        "--frames",
        "2",
        "--warmup",
        "1",
        "--json",
    ];
    let run = |extra: &[&str]| kineform(&base, extra);
    let json = |extra: &[&str]| kineform_json(&base, extra);
    let (full, compact, stepped) = (json(&[]), json(&["--compact"]), json(&["--stepped"]));
    let bytes = |j: &serde_json::Value, name: &str| {
        assert_eq!(j["clip_storage"], name, "{j}");
        j["clip_table_bytes"].as_u64().unwrap()
    };
    let (f, c, s) = (
        bytes(&full, "full"),
        bytes(&compact, "compact"),
        bytes(&stepped, "stepped"),
    );
    assert!(c > 0 && 4 * c <= f && c < s && 2 * s <= f, "{f} {c} {s}");
    let both = run(&["--compact", "--stepped"]);
    assert!(!both.status.success());
    assert!(String::from_utf8_lossy(&both.stderr).contains("cannot be used with"));
}

/// Issue 25, item 5: `--lod` sets periods by distance to a camera
/// circling the crowd and `--budget MS` has the crowd's allocator choose
/// them, in both crowds, with their figures in `--json`: with bands some
/// but not all characters evaluated a frame, at least three periods in
/// use, and periods changing during the timed frames as the camera
/// moves; a budget of 10 s a frame puts everyone at period 1, with
/// every frame fitting; one of a nanosecond everyone at period 16, with
/// none fitting. The velocity check passes throughout. A budget of 0,
/// NaN or over 10 s is refused by the parser, naming the range.
#[test]
fn level_of_detail_runs_in_the_main_job() {
    let base = [
        "crowd",
        "--characters",
        "400",
        "--frames",
        "60",
        "--warmup",
        "30",
        "--threads",
        "1",
        "--json",
    ];
    let run = |extra: &[&str]| kineform(&base, extra);
    let json = |extra: &[&str]| -> serde_json::Value {
        let v = kineform_json(&base, extra);
        assert_eq!(v["velocity_check_passed"], true, "{v}");
        v["level_of_detail"].clone()
    };
    let at = |l: &serde_json::Value| -> Vec<f64> {
        let at = l["characters_at_period_mean"].as_array().unwrap();
        at.iter().map(|x| x.as_f64().unwrap()).collect()
    };
    for scalar in [&[][..], &["--scalar"]] {
        let bands = json(&[&["--lod"], scalar].concat());
        assert_eq!(bands["mode"], "bands", "{bands}");
        let share = bands["evaluated_share"].as_f64().unwrap();
        assert!(share > 0.05 && share < 0.9, "{bands}");
        // The bands mix periods: at least three in use.
        assert!(
            at(&bands).iter().filter(|&&n| n > 0.0).count() >= 3,
            "{bands}"
        );
        assert!(bands["period_changes_per_frame"].as_f64().unwrap() > 0.0);
        let all = json(&[&["--budget", "10000"], scalar].concat());
        assert_eq!(at(&all), [400.0, 0.0, 0.0, 0.0, 0.0], "{all}");
        assert_eq!(all["frames_fitting"], 60, "{all}");
        assert!(all["measured_cpu_ms_mean"].as_f64().unwrap() > 0.0);
        let none = json(&[&["--budget", "1e-6"], scalar].concat());
        assert_eq!(at(&none), [0.0, 0.0, 0.0, 0.0, 400.0], "{none}");
        assert_eq!(none["frames_fitting"], 0, "{none}");
    }
    assert!(json(&[]).is_null());
    for bad in ["0", "NaN", "20000", "-1", "1e-44"] {
        let out = run(&["--budget", bad]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--budget") && err.contains("10000"), "{err}");
    }
}

/// `--skinning` writes every character's skinning matrices after each
/// timed frame, in both crowds, and reports the readout's times and bytes
/// (16 characters × 32 crowd joints × 48 bytes of the embedded clip);
/// without it the figures are null.
#[test]
fn skinning_readout_runs_in_the_main_job() {
    let base = [
        "crowd",
        "--characters",
        "16",
        "--frames",
        "3",
        "--warmup",
        "1",
        "--json",
    ];
    for extra in [&["--skinning"][..], &["--skinning", "--scalar"]] {
        let j = kineform_json(&base, extra);
        let joints = j["joints"].as_u64().unwrap() + 1;
        assert_eq!(j["skinning_bytes"].as_u64(), Some(16 * joints * 48), "{j}");
        let (median, p99) = (
            j["skinning_ms_median"].as_f64().unwrap(),
            j["skinning_ms_p99"].as_f64().unwrap(),
        );
        assert!(median > 0.0 && p99 >= median, "{j}");
    }
    let off = kineform_json(&base, &[]);
    assert!(off["skinning_ms_median"].is_null() && off["skinning_bytes"].is_null());
}

#[test]
fn huge_pages_are_on_by_default_and_off_with_the_flag() {
    // The JSON reports what the crate was asked (kineform::pages), so an
    // A/B of the advice runs one binary.
    let crowd = [
        "--characters",
        "16",
        "--frames",
        "2",
        "--warmup",
        "0",
        "--json",
    ];
    let matching = ["match", "--characters", "16", "--seconds", "0.05", "--json"];
    for args in [&crowd[..], &matching[..]] {
        assert_eq!(kineform_json(args, &[])["huge_pages"], true, "{args:?}");
        let off = kineform_json(args, &["--no-huge-pages"]);
        assert_eq!(off["huge_pages"], false, "{args:?}");
    }
}

/// Found by a command-line audit (2026-12-06): standard output that cannot
/// be written (a full disk, `/dev/full`; a reader that closed its pipe)
/// ends each job with an error naming standard output and exit code 1,
/// where `println!` panicked (exit 101); `--frames` past what memory holds
/// is refused before anything runs (it aborted the process reserving 34 GB
/// of frame times); `match --seconds 0` runs no frame and is refused (it
/// printed a report of zeros); `crowd --fps` under 10 with the velocity
/// check on is refused (its frames miss the motion between them); and a
/// `match --clip` the CMU joint map cannot join is named. `--help` and
/// `--version` that cannot be written end the same way (2026-12-07: clap's
/// `exit` ignored the failed write and exited 0). Mutations caught: `say!`
/// made `println!` again (the first case panics, exit 101); `Cli::parse()`
/// again in place of `exit_clap` (`--help` exits 0). Standard error that
/// cannot be written leaves the job's status (`eprintln!` panicked).
#[test]
fn output_that_cannot_be_written_and_sizes_that_cannot_run_are_refused() {
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let crowd = [
        "crowd",
        "--characters",
        "8",
        "--frames",
        "2",
        "--warmup",
        "0",
    ];
    let json = [&crowd[..], &["--json"]].concat();
    let jobs: [&[&str]; 6] = [
        &crowd,
        &json,
        &["match", "--characters", "8", "--seconds", "0.05"],
        &["--help"],
        &["match", "--help"],
        &["--version"],
    ];
    // `args` run with standard output (`on_stderr` false) or standard
    // error on `/dev/full`.
    let on_full = |args: &[&str], on_stderr: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kineform"));
        cmd.args(args);
        match on_stderr {
            false => cmd.stdout(full()),
            true => cmd.stderr(full()),
        };
        cmd.output().unwrap()
    };
    for args in jobs {
        let out = on_full(args, false);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("standard output") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
    // Standard error that cannot be written: the job's status stands
    // (1 for a refusal; `eprintln!` panicked, exit 101). Mutation caught:
    // `tell!` made `eprintln!` again (exit 101).
    let jobs: [&[&str]; 2] = [
        &["convert", "/nonexistent/in.bvh", "/tmp/kineform-never.glb"],
        &["crowd", "--characters", "8", "--frames", "2", "--fps", "1"],
    ];
    for args in jobs {
        let out = on_full(args, true);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
    }
    let out = kineform(
        &["crowd", "--characters", "1", "--frames", "4294967295"],
        &[],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--frames") && err.contains("could not be reserved"),
        "{err}"
    );
    // Frames too far apart for the velocity check's bound (at 0.2 fps it
    // failed, exit 3, on a correct crowd): refused unless it is off.
    let slow = [
        "crowd",
        "--characters",
        "8",
        "--frames",
        "2",
        "--fps",
        "0.2",
    ];
    let out = kineform(&slow, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--fps 0.2") && err.contains("--no-check"),
        "{err}"
    );
    assert!(kineform(&slow, &["--no-check"]).status.success());
    let out = kineform(&["match", "--seconds", "0"], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--seconds 0") && out.stdout.is_empty(),
        "{err}"
    );
    // A clip whose joints the CMU map cannot place: its hips renamed.
    let d = dir();
    let text = std::fs::read_to_string(format!(
        "{}/data/mocap/cmu_102_01_max.bvh",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replacen("LHipJoint", "Tail", 1);
    let odd = d.join("odd_joints.bvh");
    std::fs::write(&odd, text).unwrap();
    let out = kineform(
        &["match", "--seconds", "0.05", "--clip"],
        &[odd.to_str().unwrap()],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("odd_joints.bvh"), "{err}");
}
