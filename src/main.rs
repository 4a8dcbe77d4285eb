//! `kineform`: the command-line program. `kineform crowd` (the default)
//! evaluates a crowd on motion capture every frame and reports its speed and
//! the live velocity check.

mod lod_cmd;
mod match_cmd;
mod match_quality;
mod report;

use report::{CheckFailed, Measured, report};

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
use lod_cmd::LodDriver;

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
    /// Store the clips as stepped words (`ClipStorage::Stepped`: a
    /// rotation word and its step to the next frame, 16 bytes per frame and
    /// turning joint, about half the full rows' bytes; faster to sample
    /// than compact words).
    #[arg(long, conflicts_with = "compact")]
    stepped: bool,
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
    /// Level of detail: `--lod`, `--budget MS`.
    #[command(flatten)]
    lod: lod_cmd::LodArgs,
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
    /// The drivers' commands for this frame (level of detail's, where
    /// it runs, and the wanderers'), then the step, then the driver's
    /// roots moved by the extracted root motion (where it follows it);
    /// returns the step's figures.
    fn step(
        &mut self,
        wander: &mut Wander,
        lod: Option<&mut LodDriver>,
        dt: f32,
    ) -> kineform::Result<FrameStats> {
        match self {
            AnyCrowd::Lanes(c) => {
                if let Some(lod) = lod {
                    lod.before(c.as_mut())?;
                }
                wander.update(c.as_mut(), dt)?;
                let s = c.step(dt)?;
                wander.follow(c.as_mut(), dt)?;
                Ok(s)
            }
            AnyCrowd::Scalar(c) => {
                if let Some(lod) = lod {
                    lod.before(c.as_mut())?;
                }
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

    /// The bounding boxes of characters `chars` after the last step,
    /// into `out`.
    fn bounds_into(&self, chars: std::ops::Range<usize>, out: &mut [Aabb]) -> kineform::Result<()> {
        match self {
            AnyCrowd::Lanes(c) => c.bounds_into(chars, out),
            AnyCrowd::Scalar(c) => c.bounds_into(chars, out),
        }
    }
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
        clip_storage: match (a.compact, a.stepped) {
            (true, _) => ClipStorage::Compact,
            (_, true) => ClipStorage::Stepped,
            _ => ClipStorage::Full,
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
        level_of_detail: a.lod.on(),
        ..CrowdConfig::default()
    }
}

/// The pool `kineform crowd` steps in (`--threads`, else every core) and
/// its thread count.
fn crowd_pool(a: &CrowdArgs) -> Result<(usize, rayon::ThreadPool), Box<dyn std::error::Error>> {
    let threads = a.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |t| t as usize,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    Ok((threads, pool))
}

/// The crowd of `--scalar` or the 8-lane one, built in the pool it steps
/// in: its stated size counts one worker's scratch per thread of that pool.
fn build_crowd(
    pool: &rayon::ThreadPool,
    a: &CrowdArgs,
    library: &ClipLibrary,
    cfg: &CrowdConfig,
) -> kineform::Result<AnyCrowd> {
    pool.install(|| {
        Ok(if a.scalar {
            AnyCrowd::Scalar(Box::new(ReferenceCrowd::new(library, cfg.clone())?))
        } else {
            AnyCrowd::Lanes(Box::new(Crowd::new(library, cfg.clone())?))
        })
    })
}

/// A progress bar of `len` frames, hidden until the run has taken a
/// second (and never shown for `--json` or when stderr is not a terminal).
fn frames_bar(
    a: &CrowdArgs,
    len: usize,
) -> Result<(ProgressBar, bool), Box<dyn std::error::Error>> {
    let show = !a.json && std::io::stderr().is_terminal();
    let bar = ProgressBar::new(len as u64);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} frames {elapsed}",
    )?);
    bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    Ok((bar, show))
}

/// What the timed frames add up: their times, commands and markers, and
/// the characters' boxes as a renderer reads them after each frame (its
/// buffer, kept), their sizes summed per axis and the largest extent.
struct Timed {
    times: Vec<f64>,
    commands: u64,
    markers: u64,
    boxes: Vec<Aabb>,
    box_sizes: [f64; 3],
    box_largest: f64,
}

impl Timed {
    fn new(frames: usize, characters: usize) -> Timed {
        Timed {
            times: Vec::with_capacity(frames),
            commands: 0,
            markers: 0,
            boxes: vec![Aabb::ZERO; characters],
            box_sizes: [0.0; 3],
            box_largest: 0.0,
        }
    }

    /// A timed frame of `seconds` whose step gave `s`.
    fn record(&mut self, crowd: &AnyCrowd, s: &FrameStats, seconds: f64) -> kineform::Result<()> {
        self.times.push(seconds);
        self.commands += s.commands as u64;
        let crossed = crowd.events().iter().map(|e| match e.kind {
            EventKind::Marker(m) => u64::from(m.count),
            _ => 0,
        });
        self.markers += crossed.sum::<u64>();
        crowd.bounds_into(0..self.boxes.len(), &mut self.boxes)?;
        for b in &self.boxes {
            let s = b.size().to_array().map(f64::from);
            for (sum, s) in self.box_sizes.iter_mut().zip(s) {
                *sum += s;
            }
            self.box_largest = self.box_largest.max(s[0].max(s[1]).max(s[2]));
        }
        Ok(())
    }
}

fn run_crowd(a: &CrowdArgs) -> Result<(), Box<dyn std::error::Error>> {
    let (threads, pool) = crowd_pool(a)?;
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
    let mut crowd = build_crowd(&pool, a, &library, &cfg)?;
    let clip_table_bytes = match &crowd {
        AnyCrowd::Lanes(c) => c.clip_table_bytes(),
        AnyCrowd::Scalar(c) => c.clip_table_bytes(),
    };
    let mut lod = LodDriver::new(&a.lod, cfg.characters);
    let joints = skeleton.len();
    let frames = a.frames as usize;
    let names = skeleton.names().to_vec();

    // The first frame fills the previous-frame state of the velocity check.
    let total = Instant::now();
    let first = pool.install(|| crowd.step(&mut wander, lod.as_mut(), dt))?;
    if let Some(lod) = &mut lod {
        lod.after(|r, b| crowd.bounds_into(r, b), &first, dt, false)?;
    }
    let warmup = a.warmup as usize;
    let (bar, show_bar) = frames_bar(a, warmup + frames)?;
    let mut timed = Timed::new(frames, cfg.characters);
    let mut check = VelocityCheck::default();
    let mut transitions = 0u64;
    pool.install(|| -> kineform::Result<()> {
        for f in 0..warmup + frames {
            if show_bar && total.elapsed() > Duration::from_secs(1) && bar.is_hidden() {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
            // The frame as a game runs it: the driver's commands, then the
            // step.
            let t = Instant::now();
            let s = crowd.step(&mut wander, lod.as_mut(), dt)?;
            if f >= warmup {
                timed.record(&crowd, &s, t.elapsed().as_secs_f64())?;
            }
            if let Some(lod) = &mut lod {
                lod.after(|r, b| crowd.bounds_into(r, b), &s, dt, f >= warmup)?;
            }
            transitions += s.transitions as u64;
            check.merge(&s.velocity);
            bar.inc(1);
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    let Timed {
        times,
        commands,
        markers,
        box_sizes,
        box_largest,
        ..
    } = timed;
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
            lod: lod.as_ref(),
            clip_table_bytes,
        },
    )
}
