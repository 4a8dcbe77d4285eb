//! `kineform crowd`'s report: what a run measured ([`Measured`]), the
//! figures derived from it ([`Figures`]), printed as text or one JSON
//! object, and the velocity check's verdict ([`CheckFailed`]).

use std::time::Instant;

use kineform::crowd::{
    CrowdConfig, DeadBlendHalflives, RootMotion, Sampling, Transition, VelocityCheck,
};

use crate::CrowdArgs;

/// The value at fraction `p` of `sorted` (nearest rank; `sorted` not empty).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// What a `kineform crowd` run measured, for [`report`].
pub(crate) struct Measured<'a> {
    pub(crate) threads: usize,
    pub(crate) joints: usize,
    pub(crate) frames: usize,
    pub(crate) warmup: usize,
    pub(crate) dt: f32,
    pub(crate) source: &'a str,
    pub(crate) markers_in_clips: usize,
    /// The driver's largest heading errors: once transitions finished, and
    /// while they ran (radians).
    pub(crate) heading: (f32, f32),
    /// Each timed frame's seconds.
    pub(crate) times: Vec<f64>,
    /// With `--skinning`, each timed frame's seconds writing the skinning
    /// matrices (empty without).
    pub(crate) skinning_times: Vec<f64>,
    /// The skinning matrices' bytes (0 without `--skinning`).
    pub(crate) skinning_bytes: usize,
    pub(crate) check: VelocityCheck,
    pub(crate) transitions: u64,
    pub(crate) commands: u64,
    pub(crate) markers: u64,
    /// The characters' box sizes summed per axis over the timed frames, and
    /// the largest extent.
    pub(crate) box_sizes: [f64; 3],
    pub(crate) box_largest: f64,
    /// When the run started.
    pub(crate) total: Instant,
    /// The clip joints' names.
    pub(crate) names: &'a [String],
    /// Level of detail's driver and figures, where it ran.
    pub(crate) lod: Option<&'a crate::lod_cmd::LodDriver>,
    /// Bytes of the clips' frame tables in the run's storage
    /// (`Database::table_bytes`).
    pub(crate) clip_table_bytes: usize,
}

/// Prints a run's figures (`--json`: one JSON object) and fails with
/// [`CheckFailed`] when the velocity check failed.
pub(crate) fn report(
    a: &CrowdArgs,
    cfg: &CrowdConfig,
    m: &Measured,
) -> Result<(), Box<dyn std::error::Error>> {
    let Measured {
        joints,
        frames,
        dt,
        ref times,
        ref check,
        commands,
        markers,
        box_sizes,
        ..
    } = *m;
    let commands_per_frame = commands as f64 / frames.max(1) as f64;
    // Markers crossed per second of game time, and per character.
    let game_s = frames.max(1) as f64 * f64::from(dt);
    let markers_per_s = markers as f64 / game_s;
    let per_character = markers_per_s / a.characters as f64;
    // The mean box, per axis, over every character and timed frame.
    let box_mean = box_sizes.map(|s| s / (frames.max(1) * cfg.characters) as f64);
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let (median, p99) = (percentile(&sorted, 0.5), percentile(&sorted, 0.99));
    // The fastest frame: on a shared machine the least disturbed one.
    let best = sorted.first().copied().unwrap_or(0.0);
    // Character-joints counted on the clip's skeleton (the crowd adds one
    // static world root per character, which is also evaluated).
    let cj = (a.characters as usize * (joints)) as f64;
    let path = if a.scalar {
        "scalar reference"
    } else {
        "8-lane"
    };
    let transition = match (cfg.transition, cfg.dead_blend_halflives) {
        (Transition::Inertialize, _) => "inertialize",
        (Transition::DeadBlend, DeadBlendHalflives::Command) => "deadblend",
        (Transition::DeadBlend, DeadBlendHalflives::Fitted { .. }) => {
            "deadblend (fitted half-lives)"
        }
    };
    let sampling = match cfg.sampling {
        Sampling::Linear => "linear",
        Sampling::Cubic => "cubic",
    };
    let extracting = cfg.root_motion == RootMotion::Extract;
    let f = Figures {
        commands_per_frame,
        markers_per_s,
        per_character,
        box_mean,
        median,
        p99,
        best,
        cj,
        path,
        transition,
        sampling,
        extracting,
    };
    if a.json {
        print_json(a, cfg, m, &f)?;
    } else {
        print_text(a, cfg, m, &f)?;
    }
    if !check.passed() {
        return Err(CheckFailed.into());
    }
    Ok(())
}

/// The figures [`report`] derives from a run's [`Measured`].
struct Figures {
    commands_per_frame: f64,
    /// Markers crossed per second of game time, and per character.
    markers_per_s: f64,
    per_character: f64,
    /// The mean box, per axis, over every character and timed frame.
    box_mean: [f64; 3],
    /// Frame seconds: median, 99th percentile, fastest.
    median: f64,
    p99: f64,
    best: f64,
    /// Character-joints a frame.
    cj: f64,
    path: &'static str,
    transition: &'static str,
    sampling: &'static str,
    extracting: bool,
}

/// Crowd joint `k`'s name: clip joint `k - 1`; joint 0 is the world root.
fn joint_name(names: &[String], k: usize) -> String {
    match k.checked_sub(1) {
        Some(c) => names.get(c).cloned().unwrap_or_default(),
        None => "root".to_string(),
    }
}

/// The `--json` report: one object.
fn print_json(a: &CrowdArgs, cfg: &CrowdConfig, m: &Measured, f: &Figures) -> kineform::Result<()> {
    let mut o = run_json(a, cfg, m, f);
    // The figures and the velocity check's, each its own `json!` (one
    // holds only so many fields: serde_json's macro recurses once per
    // token).
    merge(&mut o, figures_json(a, m, f));
    merge(&mut o, velocity_json(a, m));
    o["level_of_detail"] = m.lod.map_or(serde_json::Value::Null, |l| l.json());
    // Null without `--skinning`.
    let skin = skinning_ms(&m.skinning_times);
    o["skinning_ms_median"] = serde_json::json!(skin.map(|s| s.0));
    o["skinning_ms_p99"] = serde_json::json!(skin.map(|s| s.1));
    o["skinning_bytes"] = serde_json::json!(skin.map(|_| m.skinning_bytes));
    say!("{o}")
}

/// `more`'s fields added to the object `o`.
fn merge(o: &mut serde_json::Value, more: serde_json::Value) {
    if let (Some(o), serde_json::Value::Object(v)) = (o.as_object_mut(), more) {
        o.extend(v);
    }
}

/// The run of the `--json` report: the build, the crowd and how it was
/// configured, and the driver's heading errors.
fn run_json(a: &CrowdArgs, cfg: &CrowdConfig, m: &Measured, f: &Figures) -> serde_json::Value {
    let Measured {
        threads,
        joints,
        frames,
        warmup,
        source,
        heading,
        clip_table_bytes,
        ..
    } = *m;
    let Figures {
        path,
        transition,
        sampling,
        extracting,
        ..
    } = *f;
    serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "simd_backend": kineform::simd_backend(),
        "simd_level": kineform::simd_level(),
        "path": path,
        "threads": threads,
        "characters": a.characters,
        "joints": joints,
        "frames": frames,
        "warmup_frames": warmup,
        "clips": source,
        "transition": transition,
        "sampling": sampling,
        "clip_storage": cfg.clip_storage.name(),
        "clip_table_bytes": clip_table_bytes,
        "huge_pages": kineform::pages::huge_pages(),
        "layers": cfg.layers.len(),
        "root_motion": match cfg.root_motion {
            RootMotion::Apply => "apply",
            RootMotion::Extract => "extract",
        },
        // Radians, null when root motion is applied: the heading the
        // driver turned each root to by the reported turns against its
        // clip's own (source A's) since its sources were last set, once
        // their transition finished, and while it ran.
        "heading_error_max": extracting.then_some(heading.0),
        "heading_error_in_transitions_max": extracting.then_some(heading.1),
    })
}

/// The figures of the `--json` report: frame times, transitions and
/// commands, markers, bounds, and the run's whole time.
fn figures_json(a: &CrowdArgs, m: &Measured, f: &Figures) -> serde_json::Value {
    let Measured {
        markers_in_clips,
        transitions,
        box_largest,
        total,
        ..
    } = *m;
    let Figures {
        commands_per_frame,
        markers_per_s,
        per_character,
        box_mean,
        median,
        p99,
        best,
        cj,
        ..
    } = *f;
    serde_json::json!({
        "frame_ms_median": median * 1e3,
        "frame_ms_p99": p99 * 1e3,
        "frame_ms_best": best * 1e3,
        "character_joints_per_s": cj / median,
        "ns_per_character_joint": median * 1e9 / cj,
        "transitions": transitions,
        "commands_per_frame": commands_per_frame,
        "markers_in_clips": markers_in_clips,
        "marker_weight": a.marker_weight,
        "markers_per_s": markers_per_s,
        "markers_per_character_s": per_character,
        "joint_radius": a.joint_radius,
        "bounds_mean_size": box_mean,
        "bounds_largest_extent": box_largest,
        "total_s": total.elapsed().as_secs_f64(),
    })
}

/// The velocity check's figures of the `--json` report (null where the
/// check was off, but for the count of output that is not finite).
fn velocity_json(a: &CrowdArgs, m: &Measured) -> serde_json::Value {
    let (check, names) = (&m.check, m.names);
    let joint_name = |k: usize| joint_name(names, k);
    let checked = |x: f64| (!a.no_check).then_some(x);
    serde_json::json!({
            // With the check off nothing was measured: its figures are null.
            "velocity_gap_max": checked(f64::from(check.max_gap)),
            "velocity_gap_mean": checked(check.mean_gap()),
            "velocity_gap_bound": checked(f64::from(check.bound())),
            "velocity_gap_rounding": checked(f64::from(check.rounding)),
            "velocity_check": !a.no_check,
            "velocity_check_passed": (!a.no_check).then(|| check.passed()),
            "velocity_gap_worst": check.worst.map(|w| serde_json::json!({
                "character": w.character,
                "joint": w.joint,
                "joint_name": joint_name(w.joint),
                "frame": w.frame,
            })),
            // Counted with the check off too.
            "non_finite_character_frames": check.non_finite,
            "max_speed": checked(f64::from(check.max_speed)),
    })
}

/// The text report.
fn print_text(a: &CrowdArgs, cfg: &CrowdConfig, m: &Measured, f: &Figures) -> kineform::Result<()> {
    print_text_run(a, cfg, m, f)?;
    print_text_motion(a, m, f)?;
    print_text_check(a, m)?;
    if let Some(lod) = m.lod {
        say!("{}", lod.text())?;
    }
    Ok(())
}

/// The text report's run: the build, the crowd and how it was
/// configured, the frame times (and the skinning readout's, with
/// `--skinning`).
fn print_text_run(
    a: &CrowdArgs,
    cfg: &CrowdConfig,
    m: &Measured,
    f: &Figures,
) -> kineform::Result<()> {
    let Measured {
        threads,
        joints,
        frames,
        warmup,
        source,
        ..
    } = *m;
    let Figures {
        median,
        p99,
        best,
        cj,
        path,
        transition,
        sampling,
        ..
    } = *f;
    say!(
        "kineform {} | SIMD backend: {} ({}) | {path} | threads: {threads}",
        env!("CARGO_PKG_VERSION"),
        kineform::simd_backend(),
        kineform::simd_level()
    )?;
    say!(
        "crowd: {} characters x {joints} joints ({source}, {} clips: {} bytes of tables), {transition}, {sampling} sampling, {} layers, {frames} frames timed after {warmup} warm-up frames",
        a.characters,
        cfg.clip_storage.name(),
        m.clip_table_bytes,
        cfg.layers.len()
    )?;
    say!(
        "frame time: median {:.3} ms, p99 {:.3} ms, best {:.3} ms; {:.1} M character-joints/s ({:.2} ns each, at the median)",
        median * 1e3,
        p99 * 1e3,
        best * 1e3,
        cj / median / 1e6,
        median * 1e9 / cj
    )?;
    if let Some((median, p99)) = skinning_ms(&m.skinning_times) {
        say!(
            "skinning matrices (--skinning, [f32; 12] a joint, {} bytes) after each frame: median {median:.3} ms, p99 {p99:.3} ms",
            m.skinning_bytes
        )?;
    }
    Ok(())
}

/// The text report's motion: the driver's commands, the markers crossed,
/// the characters' bounds, and the heading errors where root motion is
/// extracted.
fn print_text_motion(a: &CrowdArgs, m: &Measured, f: &Figures) -> kineform::Result<()> {
    let Measured {
        markers_in_clips,
        heading,
        box_largest,
        ..
    } = *m;
    let Figures {
        commands_per_frame,
        markers_per_s,
        per_character,
        box_mean,
        extracting,
        ..
    } = *f;
    say!("driver: {commands_per_frame:.1} commands per frame (transitions, weight targets)")?;
    say!(
        "markers: {markers_in_clips} footsteps in the clips; {markers_per_s:.0} crossed per second of game time ({per_character:.2} per character, sources and layers weighing over {})",
        a.marker_weight
    )?;
    say!(
        "bounds: mean box {:.1} x {:.1} x {:.1} units (x, y, z), largest extent {box_largest:.1}, joints padded by {}",
        box_mean[0],
        box_mean[1],
        box_mean[2],
        a.joint_radius
    )?;
    if extracting {
        say!(
            "root motion extracted, roots moved and turned by it: heading error against the clips' own up to {:.2e} rad ({:.2e} while transitions run)",
            heading.0,
            heading.1
        )?;
    }
    Ok(())
}

/// The text report's velocity check: its verdict (or that it was off),
/// the transitions, the worst gap, and the frames whose output was not
/// finite.
fn print_text_check(a: &CrowdArgs, m: &Measured) -> kineform::Result<()> {
    let Measured {
        ref check,
        transitions,
        names,
        ..
    } = *m;
    let joint_name = |k: usize| joint_name(names, k);
    if a.no_check {
        say!("velocity check: off (--no-check); {transitions} transitions")?;
    } else {
        say!(
            "velocity check (|finite difference of world positions - propagated velocity| per frame): max {:.2}, mean {:.3} units/s; bound {:.3} (twice the top speed, {:.0}, plus {:.1e} for f32 rounding): {}; {transitions} transitions",
            check.max_gap,
            check.mean_gap(),
            check.bound(),
            check.max_speed,
            check.rounding,
            if check.passed() { "passed" } else { "FAILED" },
        )?;
    }
    if let Some(w) = check.worst {
        say!(
            "worst gap: character {}, joint {} ({}), frame {}",
            w.character,
            w.joint,
            joint_name(w.joint),
            w.frame
        )?;
    }
    if check.non_finite > 0 {
        say!("output not finite in {} character-frames", check.non_finite)?;
    }
    Ok(())
}

/// The velocity check failed: the process exits with code 3.
#[derive(Debug)]
pub(crate) struct CheckFailed;

impl std::fmt::Display for CheckFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the velocity check failed (see above)")
    }
}

impl std::error::Error for CheckFailed {}

/// The median and 99th percentile of the skinning readout's times, in
/// milliseconds; `None` without `--skinning`.
fn skinning_ms(times: &[f64]) -> Option<(f64, f64)> {
    if times.is_empty() {
        return None;
    }
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some((
        percentile(&sorted, 0.5) * 1e3,
        percentile(&sorted, 0.99) * 1e3,
    ))
}
