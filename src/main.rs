//! `kineform`: the command-line program. `kineform crowd` (the default)
//! evaluates a crowd on motion capture every frame and reports its speed and
//! the live velocity check.

mod match_cmd;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use kineform::crowd::{
    Aabb, ClipLibrary, ClipStorage, Crowd, CrowdConfig, DeadBlendHalflives, Event, EventKind,
    FrameStats, Layer, Mask, ReferenceCrowd, RootMotion, Sampling, Transition, VelocityCheck,
    Wander, WanderConfig,
};
use kineform::markers::FootContact;
use kineform::{bvh, data};

#[derive(Parser)]
#[command(
    name = "kineform",
    version,
    about = "SIMD batch kernels for character animation",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// With no subcommand, `crowd` runs with these options.
    #[command(flatten)]
    crowd: CrowdArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate a crowd every frame: sample two sources with velocities,
    /// blend them, hide random transitions, FK to world space.
    Crowd(CrowdArgs),
    /// Convert motion between BVH and glTF by extension (.bvh, .glb, .gltf;
    /// a .gltf is written with its .bin beside it).
    Convert(ConvertArgs),
    /// A crowd that chooses its own frames by motion matching: each
    /// character follows random gamepad targets (`crowd::Matcher`).
    Match(match_cmd::MatchArgs),
}

#[derive(clap::Args)]
struct ConvertArgs {
    /// The file to read (.bvh, .glb, .gltf).
    input: PathBuf,
    /// The file to write (.bvh, .glb, .gltf).
    output: PathBuf,
    /// Frames per second at which glTF animations are resampled (default:
    /// each animation's own key rate).
    #[arg(long, value_parser = parse_fps)]
    rate: Option<f32>,
    /// Which glTF animation goes to a BVH file.
    #[arg(long, default_value_t = 0)]
    animation: usize,
}

fn run_convert(a: &ConvertArgs) -> Result<(), Box<dyn std::error::Error>> {
    let options = kineform::convert::Options {
        rate: a.rate,
        animation: a.animation,
    };
    let s = kineform::convert::convert_file(&a.input, &a.output, &options)?;
    println!(
        "{} -> {}: {} joints, {} clip(s), {} frames at {} s",
        a.input.display(),
        a.output.display(),
        s.joints,
        s.clips,
        s.frames,
        s.frame_time
    );
    Ok(())
}

#[derive(Clone, Copy, ValueEnum)]
enum TransitionArg {
    Inertialize,
    Deadblend,
}

#[derive(Clone, Copy, ValueEnum)]
enum HalflivesArg {
    /// One half-life for every joint (the transition command's).
    Command,
    /// Per joint and axis, fitted at each transition (the article's
    /// heuristic with its defaults: scale 0.3 s, clamped to 0.1 .. 1 s).
    Fitted,
}

#[derive(Clone, Copy, ValueEnum)]
enum SamplingArg {
    Linear,
    Cubic,
}

#[derive(Clone, Copy, ValueEnum)]
enum RootMotionArg {
    Apply,
    Extract,
}

#[derive(clap::Args)]
struct CrowdArgs {
    /// Number of characters.
    #[arg(long, default_value_t = 10_000, allow_negative_numbers = true,
          value_parser = clap::value_parser!(i64).range(1..=10_000_000))]
    characters: i64,
    /// Frames to time, after the warm-up.
    #[arg(long, default_value_t = 300, allow_negative_numbers = true,
          value_parser = clap::value_parser!(i64).range(1..=u32::MAX as i64))]
    frames: i64,
    /// Frames run before timing starts, so the timed frames see the
    /// crowd's steady state (characters start idle; their first transitions
    /// come in the first two seconds). Their velocities are checked too.
    #[arg(long, default_value_t = 120, allow_negative_numbers = true,
          value_parser = clap::value_parser!(i64).range(0..=u32::MAX as i64))]
    warmup: i64,
    /// Worker threads (default: one per core).
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..=1024))]
    threads: Option<i64>,
    /// BVH clips to play (default: the CMU clip embedded in the crate), on
    /// the first one's skeleton: each must have its hierarchy, or be a CMU
    /// clip of any of the conventions of data/mocap (joined through their
    /// joint map), and all its frame time.
    #[arg(long = "clip", value_name = "PATH")]
    clips: Vec<PathBuf>,
    /// How transitions are hidden.
    #[arg(long, value_enum, default_value_t = TransitionArg::Inertialize)]
    transition: TransitionArg,
    /// Dead blending's half-lives (with `--transition deadblend`).
    #[arg(long, value_enum, default_value_t = HalflivesArg::Command)]
    halflives: HalflivesArg,
    /// How clips are sampled between frames.
    #[arg(long, value_enum, default_value_t = SamplingArg::Linear)]
    sampling: SamplingArg,
    /// What the clips' root motion does (`RootMotion`): `apply` moves the
    /// characters (looping clips walk on across their seams); `extract`
    /// takes the root's place and heading out and the driver moves and
    /// turns each root by what the crowd reports after each step (its
    /// source B then plays source A's time), measuring the heading error
    /// of the integrated roots against the clips' own.
    #[arg(long, value_enum, default_value_t = RootMotionArg::Apply)]
    root_motion: RootMotionArg,
    /// Run the same crowd through the scalar reference path.
    #[arg(long)]
    scalar: bool,
    /// Store the clips compactly (`ClipStorage::Compact`: 8-byte words per
    /// frame and joint, a quarter of the full rows' bytes; rotations
    /// within 5e-6 rad of the source's).
    #[arg(long)]
    compact: bool,
    /// Leave out the live velocity check (`CrowdConfig::velocity_check`
    /// off, as a game runs): the frame no longer compares each joint's
    /// velocity with its motion, and nothing is verified.
    #[arg(long)]
    no_check: bool,
    /// Layers over every character's base, played by the driver, each
    /// from a random point of a random clip with its weight moving: 1, an
    /// override of the upper body (the chest's subtree, feathered at the
    /// chest); 2 (`--layers` alone), that and an additive on the lower
    /// back's subtree (relative to its clip's first frame). The clips'
    /// skeleton must name `Chest` and `lowerback`, as CMU's do.
    #[arg(long, num_args = 0..=1, default_value_t = 0, default_missing_value = "2",
          allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(0..=2))]
    layers: i64,
    /// Print one JSON object with every figure instead of text.
    #[arg(long)]
    json: bool,
    /// Seed of the characters' schedules.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Frames per second of game time (the step is 1 / fps).
    #[arg(long, default_value_t = 60.0, allow_negative_numbers = true, value_parser = parse_fps)]
    fps: f32,
    /// Footstep markers (foot contacts of joints named LeftFoot and
    /// RightFoot, `FootContact::CMU`) are reported for sources (the base's
    /// and, with `--layers`, the layers') whose blend weight exceeds this, in [0, 1) (`CrowdConfig::marker_weight`): 0.5,
    /// the default, the source that dominates.
    #[arg(long, default_value_t = 0.5, allow_negative_numbers = true, value_parser = parse_weight)]
    marker_weight: f32,
    /// Put no footstep markers on the clips (the crowd then spends nothing
    /// on markers).
    #[arg(long)]
    no_markers: bool,
    /// Pad every joint by this many units in the characters' bounding
    /// boxes, which are read out after each timed frame as a renderer
    /// would for culling (`CrowdConfig::joint_radii`, `Crowd::bounds_into`):
    /// finite, >= 0 and <= 1e6; 0, the default, pads none.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true, value_parser = parse_radius)]
    joint_radius: f32,
}

/// A joint radius: finite, >= 0 and <= 1e6 (`kineform::limits::MAX_POSITION`).
fn parse_radius(s: &str) -> Result<f32, String> {
    let r: f32 = s.parse().map_err(|e| format!("{e}"))?;
    match (0.0..=kineform::limits::MAX_POSITION).contains(&r) {
        true => Ok(r),
        false => Err(format!("{r} must be finite, >= 0 and <= 1e6")),
    }
}

/// A marker weight threshold, within [0, 1).
fn parse_weight(s: &str) -> Result<f32, String> {
    let w: f32 = s.parse().map_err(|e| format!("{e}"))?;
    match (0.0..1.0).contains(&w) {
        true => Ok(w),
        false => Err(format!("{w} must be within [0, 1)")),
    }
}

/// Footstep markers on every clip of `library` whose skeleton has the CMU
/// feet (LeftFoot and RightFoot, or LeftAnkle and RightAnkle in the
/// 3dsMax files' naming): their contacts, [`FootContact::CMU`], named
/// after the foot. Returns how many.
fn add_footsteps(library: &mut ClipLibrary) -> kineform::Result<usize> {
    let mut n = 0;
    for foot in ["LeftFoot", "RightFoot", "LeftAnkle", "RightAnkle"] {
        if library.skeleton().find(foot).is_none() {
            continue;
        }
        for clip in 0..library.len() {
            n += library.add_foot_contacts(clip, foot, foot, &FootContact::CMU)?;
        }
    }
    Ok(n)
}

/// A frame rate: finite, positive, and giving a finite positive step.
fn parse_fps(s: &str) -> Result<f32, String> {
    let fps: f32 = s.parse().map_err(|e| format!("{e}"))?;
    let dt = 1.0 / fps;
    if fps.is_finite() && fps > 0.0 && dt.is_finite() && dt > 0.0 {
        Ok(fps)
    } else {
        Err(format!("{fps} is not a frame rate (finite, > 0)"))
    }
}

fn main() {
    let cli = Cli::parse();
    // The SSE2 trap: a build for the default target on an AVX2 machine runs
    // at about half speed. Say so on stderr (stdout stays parseable).
    if let Some(advice) = kineform::simd_support().advice() {
        eprintln!("note: {advice}");
    }
    let args = match cli.command {
        Some(Command::Crowd(a)) => a,
        Some(Command::Match(m)) => {
            if let Err(e) = match_cmd::run(&m) {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
            return;
        }
        Some(Command::Convert(c)) => {
            // A file-size limit (RLIMIT_FSIZE, `ulimit -f`) then fails the
            // write with an error, which removes the temporary file,
            // instead of killing the process with SIGXFSZ and leaving it.
            #[cfg(unix)]
            // SAFETY: `signal` with SIG_IGN installs no handler (no code
            // runs in signal context), and it runs before any other thread
            // of this process starts.
            unsafe {
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            }
            if let Err(e) = run_convert(&c) {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
            return;
        }
        None => cli.crowd,
    };
    if matches!(args.halflives, HalflivesArg::Fitted)
        && !matches!(args.transition, TransitionArg::Deadblend)
    {
        use clap::CommandFactory;
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--halflives fitted needs --transition deadblend (inertialization has no half-lives)",
            )
            .exit();
    }
    if let Err(e) = run_crowd(&args) {
        eprintln!("error: {e}");
        // 3: the run completed but its output failed the velocity check;
        // 1: a file could not be read or a crowd could not be made.
        std::process::exit(if e.is::<CheckFailed>() { 3 } else { 1 });
    }
}

/// The clips to play: the embedded one, or the files given (the first
/// file's skeleton and bone offsets; every other file has its hierarchy,
/// or joins through the CMU joint map between their naming conventions,
/// and plays on its bones).
fn load_clips(paths: &[PathBuf]) -> Result<(ClipLibrary, String), Box<dyn std::error::Error>> {
    if paths.is_empty() {
        let b = data::default_clip();
        return Ok((ClipLibrary::from_bvh(&b)?, "embedded CMU 102_01".into()));
    }
    let mut library: Option<ClipLibrary> = None;
    for p in paths {
        let b = bvh::load(p)?;
        // The crowd puts one static world root above each character, so its
        // skeleton has one joint more than the clip's.
        if b.skeleton.len() >= kineform::skeleton::MAX_JOINTS {
            return Err(format!(
                "{}: {} joints; the crowd adds one world root joint per character, so a clip may have at most {} (a skeleton at most {})",
                p.display(),
                b.skeleton.len(),
                kineform::skeleton::MAX_JOINTS - 1,
                kineform::skeleton::MAX_JOINTS
            )
            .into());
        }
        let named = |e: kineform::Error| e.in_file(p);
        match &mut library {
            None => library = Some(ClipLibrary::from_bvh(&b).map_err(named)?),
            Some(l) => {
                let same = b.skeleton.names() == l.skeleton().names()
                    && b.skeleton.parents() == l.skeleton().parents();
                if same {
                    l.add_bvh(&b).map_err(named)?;
                } else {
                    l.add_cmu(&b).map_err(|e| {
                        format!(
                            "{}: its joints are not those of {}, and no CMU joint map joins them: {e}",
                            p.display(),
                            paths[0].display()
                        )
                    })?;
                }
            }
        }
    }
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    // `paths` is not empty (returned above), and each path either set the
    // library or returned an error: it is `Some` here.
    Ok((library.expect("at least one clip"), names.join(", ")))
}

enum AnyCrowd {
    Lanes(Box<Crowd>),
    Scalar(Box<ReferenceCrowd>),
}

impl AnyCrowd {
    /// The driver's commands for this frame, then the step, then the
    /// driver's roots moved by the extracted root motion (where it follows
    /// it); returns the step's figures.
    fn step(&mut self, wander: &mut Wander, dt: f32) -> kineform::Result<FrameStats> {
        match self {
            AnyCrowd::Lanes(c) => {
                wander.update(c.as_mut(), dt)?;
                let s = c.step(dt)?;
                wander.follow(c.as_mut(), dt)?;
                Ok(s)
            }
            AnyCrowd::Scalar(c) => {
                wander.update(c.as_mut(), dt)?;
                let s = c.step(dt)?;
                wander.follow(c.as_mut(), dt)?;
                Ok(s)
            }
        }
    }

    /// The last step's events.
    fn events(&self) -> &[Event] {
        match self {
            AnyCrowd::Lanes(c) => c.events(),
            AnyCrowd::Scalar(c) => c.events(),
        }
    }

    /// Every character's bounding box after the last step, into `out`.
    fn bounds_into(&self, out: &mut [Aabb]) -> kineform::Result<()> {
        match self {
            AnyCrowd::Lanes(c) => c.bounds_into(0..out.len(), out),
            AnyCrowd::Scalar(c) => c.bounds_into(0..out.len(), out),
        }
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// The crowd `kineform crowd` runs, from its arguments: the modes, the
/// velocity check, root motion, clip storage, markers' weight, up to two
/// layers (an upper-body override feathered at the chest and an additive
/// on the lower back) and the joints' padding in the boxes.
fn crowd_config(a: &CrowdArgs, library: &ClipLibrary) -> CrowdConfig {
    CrowdConfig {
        characters: a.characters as usize,
        transition: match a.transition {
            TransitionArg::Inertialize => Transition::Inertialize,
            TransitionArg::Deadblend => Transition::DeadBlend,
        },
        sampling: match a.sampling {
            SamplingArg::Linear => Sampling::Linear,
            SamplingArg::Cubic => Sampling::Cubic,
        },
        dead_blend_halflives: match a.halflives {
            HalflivesArg::Command => DeadBlendHalflives::Command,
            HalflivesArg::Fitted => DeadBlendHalflives::FITTED,
        },
        velocity_check: !a.no_check,
        root_motion: match a.root_motion {
            RootMotionArg::Apply => RootMotion::Apply,
            RootMotionArg::Extract => RootMotion::Extract,
        },
        clip_storage: if a.compact {
            ClipStorage::Compact
        } else {
            ClipStorage::Full
        },
        marker_weight: a.marker_weight,
        layers: [
            Layer::overriding(Mask::new().feathered("Chest", 1.0, 0.5)),
            Layer::additive(Mask::new().subtree("lowerback", 1.0), 0),
        ][..a.layers as usize]
            .to_vec(),
        joint_radii: match a.joint_radius {
            0.0 => Vec::new(),
            r => vec![r; library.skeleton().len()],
        },
        ..CrowdConfig::default()
    }
}

fn run_crowd(a: &CrowdArgs) -> Result<(), Box<dyn std::error::Error>> {
    let threads = a.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |t| t as usize,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let (mut library, source) = load_clips(&a.clips)?;
    let markers_in_clips = match a.no_markers {
        true => 0,
        false => add_footsteps(&mut library)?,
    };
    let skeleton = library.skeleton().clone();
    let cfg = crowd_config(a, &library);
    let dt = 1.0 / a.fps;
    let mut wander = Wander::new(
        cfg.characters,
        WanderConfig {
            seed: a.seed,
            layers: a.layers > 0,
            follow_root_motion: matches!(a.root_motion, RootMotionArg::Extract),
            ..WanderConfig::default()
        },
    );
    // Built in the pool it steps in: its stated size counts one worker's
    // scratch per thread of that pool.
    let mut crowd = pool.install(|| -> kineform::Result<AnyCrowd> {
        Ok(if a.scalar {
            AnyCrowd::Scalar(Box::new(ReferenceCrowd::new(&library, cfg.clone())?))
        } else {
            AnyCrowd::Lanes(Box::new(Crowd::new(&library, cfg.clone())?))
        })
    })?;
    let joints = skeleton.len();
    let frames = a.frames as usize;
    let names = skeleton.names().to_vec();

    // The first frame fills the previous-frame state of the velocity check.
    let total = Instant::now();
    pool.install(|| crowd.step(&mut wander, dt))?;
    let show_bar = !a.json && std::io::stderr().is_terminal();
    let warmup = a.warmup as usize;
    let bar = ProgressBar::new((warmup + frames) as u64);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} frames {elapsed}",
    )?);
    bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    let mut times = Vec::with_capacity(frames);
    let mut check = VelocityCheck::default();
    let mut transitions = 0u64;
    let mut commands = 0u64;
    let mut markers = 0u64;
    // The boxes as a renderer reads them after each frame (its buffer,
    // kept), and their sizes summed per axis over the timed frames.
    let mut boxes = vec![Aabb::ZERO; cfg.characters];
    let mut box_sizes = [0f64; 3];
    let mut box_largest = 0f64;
    pool.install(|| -> kineform::Result<()> {
        for f in 0..warmup + frames {
            if show_bar && total.elapsed() > Duration::from_secs(1) && bar.is_hidden() {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
            // The frame as a game runs it: the driver's commands, then the
            // step.
            let t = Instant::now();
            let s = crowd.step(&mut wander, dt)?;
            if f >= warmup {
                times.push(t.elapsed().as_secs_f64());
                commands += s.commands as u64;
                let crossed = crowd.events().iter().map(|e| match e.kind {
                    EventKind::Marker(m) => u64::from(m.count),
                    _ => 0,
                });
                markers += crossed.sum::<u64>();
                crowd.bounds_into(&mut boxes)?;
                for b in &boxes {
                    let s = b.size().to_array().map(f64::from);
                    for (sum, s) in box_sizes.iter_mut().zip(s) {
                        *sum += s;
                    }
                    box_largest = box_largest.max(s[0].max(s[1]).max(s[2]));
                }
            }
            transitions += s.transitions as u64;
            check.merge(&s.velocity);
            bar.inc(1);
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    report(
        a,
        &cfg,
        &Measured {
            threads,
            joints,
            frames,
            warmup,
            dt,
            source: &source,
            markers_in_clips,
            heading: wander.heading_error(),
            times,
            check,
            transitions,
            commands,
            markers,
            box_sizes,
            box_largest,
            total,
            names: &names,
        },
    )
}

/// What a `kineform crowd` run measured, for [`report`].
struct Measured<'a> {
    threads: usize,
    joints: usize,
    frames: usize,
    warmup: usize,
    dt: f32,
    source: &'a str,
    markers_in_clips: usize,
    /// The driver's largest heading errors: once transitions finished, and
    /// while they ran (radians).
    heading: (f32, f32),
    /// Each timed frame's seconds.
    times: Vec<f64>,
    check: VelocityCheck,
    transitions: u64,
    commands: u64,
    markers: u64,
    /// The characters' box sizes summed per axis over the timed frames, and
    /// the largest extent.
    box_sizes: [f64; 3],
    box_largest: f64,
    /// When the run started.
    total: Instant,
    /// The clip joints' names.
    names: &'a [String],
}

/// Prints a run's figures (`--json`: one JSON object) and fails with
/// [`CheckFailed`] when the velocity check failed.
fn report(
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
        print_json(a, cfg, m, &f);
    } else {
        print_text(a, cfg, m, &f);
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
fn print_json(a: &CrowdArgs, cfg: &CrowdConfig, m: &Measured, f: &Figures) {
    let Measured {
        threads,
        joints,
        frames,
        warmup,
        source,
        markers_in_clips,
        heading,
        ref check,
        transitions,
        box_largest,
        total,
        names,
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
        path,
        transition,
        sampling,
        extracting,
    } = *f;
    let joint_name = |k: usize| joint_name(names, k);
    let checked = |x: f64| (!a.no_check).then_some(x);
    let mut o = serde_json::json!({
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
        "clip_storage": if a.compact { "compact" } else { "full" },
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
    });
    // The velocity check's figures (one `json!` holds only so many
    // fields: serde_json's macro recurses once per token).
    let velocity = serde_json::json!({
            // With the check off nothing was measured: its figures are null.
            "velocity_gap_max": checked(f64::from(check.max_gap)),
            "velocity_gap_mean": checked(check.mean_gap()),
            "velocity_gap_bound": checked(f64::from(check.bound())),
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
    });
    if let (Some(o), serde_json::Value::Object(v)) = (o.as_object_mut(), velocity) {
        o.extend(v);
    }
    println!("{o}");
}

/// The text report.
fn print_text(a: &CrowdArgs, cfg: &CrowdConfig, m: &Measured, f: &Figures) {
    let Measured {
        threads,
        joints,
        frames,
        warmup,
        source,
        markers_in_clips,
        heading,
        ref check,
        transitions,
        box_largest,
        names,
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
        path,
        transition,
        sampling,
        extracting,
    } = *f;
    let joint_name = |k: usize| joint_name(names, k);
    println!(
        "kineform {} | SIMD backend: {} ({}) | {path} | threads: {threads}",
        env!("CARGO_PKG_VERSION"),
        kineform::simd_backend(),
        kineform::simd_level()
    );
    println!(
        "crowd: {} characters x {joints} joints ({source}, {} clips), {transition}, {sampling} sampling, {} layers, {frames} frames timed after {warmup} warm-up frames",
        a.characters,
        if a.compact { "compact" } else { "full" },
        cfg.layers.len()
    );
    println!(
        "frame time: median {:.3} ms, p99 {:.3} ms, best {:.3} ms; {:.1} M character-joints/s ({:.2} ns each, at the median)",
        median * 1e3,
        p99 * 1e3,
        best * 1e3,
        cj / median / 1e6,
        median * 1e9 / cj
    );
    println!("driver: {commands_per_frame:.1} commands per frame (transitions, weight targets)");
    println!(
        "markers: {markers_in_clips} footsteps in the clips; {markers_per_s:.0} crossed per second of game time ({per_character:.2} per character, sources and layers weighing over {})",
        a.marker_weight
    );
    println!(
        "bounds: mean box {:.1} x {:.1} x {:.1} units (x, y, z), largest extent {box_largest:.1}, joints padded by {}",
        box_mean[0], box_mean[1], box_mean[2], a.joint_radius
    );
    if extracting {
        println!(
            "root motion extracted, roots moved and turned by it: heading error against the clips' own up to {:.2e} rad ({:.2e} while transitions run)",
            heading.0, heading.1
        );
    }
    if a.no_check {
        println!("velocity check: off (--no-check); {transitions} transitions");
    } else {
        println!(
            "velocity check (|finite difference of world positions - propagated velocity| per frame): max {:.2}, mean {:.3} units/s; bound {:.0} (twice the top speed, {:.0}): {}; {transitions} transitions",
            check.max_gap,
            check.mean_gap(),
            check.bound(),
            check.max_speed,
            if check.passed() { "passed" } else { "FAILED" },
        );
    }
    if let Some(w) = check.worst {
        println!(
            "worst gap: character {}, joint {} ({}), frame {}",
            w.character,
            w.joint,
            joint_name(w.joint),
            w.frame
        );
    }
    if check.non_finite > 0 {
        println!("output not finite in {} character-frames", check.non_finite);
    }
}

/// The velocity check failed: the process exits with code 3.
#[derive(Debug)]
struct CheckFailed;

impl std::fmt::Display for CheckFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the velocity check failed (see above)")
    }
}

impl std::error::Error for CheckFailed {}
