//! `kineform`: the command-line program. `kineform crowd` (the default)
//! evaluates a crowd on motion capture every frame and reports its speed and
//! the live velocity check.

/// `println!` that returns an error (`kineform::Error::Io` naming
/// standard output) where `println!` would panic: standard output on a
/// full disk, or a pipe its reader closed (`kineform crowd | head -1`).
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($t)*).map_err(|e| kineform::Error::Io {
            path: "standard output".into(),
            reason: e.to_string(),
        })
    }};
}

/// `eprintln!` that does not panic where standard error cannot be
/// written (`2> /dev/full`): the message is lost, the exit status stays
/// the job's (`eprintln!` panicked, exit 101).
macro_rules! tell {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($t)*);
    }};
}

mod crowd_cmd;
mod lod_cmd;
mod match_cmd;
mod match_quality;
mod pool;
mod report;

use report::CheckFailed;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use crowd_cmd::run_crowd;
use kineform::crowd::ClipLibrary;
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

/// `--no-huge-pages`, for the commands that build a crowd.
#[derive(clap::Args, Clone, Copy, Debug)]
pub(crate) struct PagesArg {
    /// Leave the crowd's large buffers on the allocator's pages instead of
    /// asking Linux for 2 MiB pages (`kineform::pages::set_huge_pages`;
    /// README, "Huge pages"): the A side of an A/B on one binary.
    #[arg(long)]
    no_huge_pages: bool,
}

impl PagesArg {
    /// Tells the crate, before anything is built.
    pub(crate) fn apply(self) {
        kineform::pages::set_huge_pages(!self.no_huge_pages);
    }
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
    say!(
        "{} -> {}: {} joints, {} clip(s), {} frames at {} s",
        a.input.display(),
        a.output.display(),
        s.joints,
        s.clips,
        s.frames,
        s.frame_time
    )?;
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
    #[command(flatten)]
    pages: PagesArg,
    /// After each frame, write every character's skinning matrices into a
    /// buffer kept across frames, as a renderer does before its upload
    /// (`Crowd::skinning_matrices_into`, three rows of the affine a joint,
    /// `[f32; 12]`; the clips' rest pose as the bind pose). Timed apart
    /// from the frame: `skinning_ms_*` in `--json`.
    #[arg(long)]
    skinning: bool,
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
    /// Frames per second of game time (the step is 1 / fps; at least 10
    /// with the velocity check on).
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
            // A clip of minutes has more footsteps than a clip may hold
            // markers (`limits::MAX_MARKERS`, which bounds the crowd's room
            // for the markers a step crosses): it plays unmarked, with a
            // note, where it failed the job by default.
            match library.add_foot_contacts(clip, foot, foot, &FootContact::CMU) {
                Ok(k) => n += k,
                Err(kineform::Error::Length { what, got, .. })
                    if what.starts_with("markers of a clip") =>
                {
                    tell!(
                        "note: clip {clip} has more {foot} footsteps than a clip may hold markers \
                         ({} at most, kineform::limits::MAX_MARKERS; {got} reached): they are \
                         not marked",
                        kineform::limits::MAX_MARKERS
                    );
                }
                Err(e) => return Err(e),
            }
        }
    }
    Ok(n)
}

/// Print clap's help, version or usage error and exit with its status,
/// or with 1 where it cannot be written (`--help > /dev/full`), naming
/// the stream: clap's own `exit` ignores a failed write and exits 0.
fn exit_clap(e: clap::Error) -> ! {
    use std::io::Write;
    let printed = e.print().and_then(|()| {
        if e.use_stderr() {
            std::io::stderr().flush()
        } else {
            std::io::stdout().flush()
        }
    });
    if let Err(io) = printed {
        let stream = if e.use_stderr() {
            "standard error"
        } else {
            "standard output"
        };
        let _ = writeln!(
            std::io::stderr(),
            "error: {}",
            kineform::Error::Io {
                path: stream.into(),
                reason: io.to_string(),
            }
        );
        std::process::exit(1);
    }
    std::process::exit(e.exit_code())
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
    let cli = Cli::try_parse().unwrap_or_else(|e| exit_clap(e));
    // The SSE2 trap: a build for the default target on an AVX2 machine runs
    // at about half speed. Say so on stderr (stdout stays parseable).
    if let Some(advice) = kineform::simd_support().advice() {
        tell!("note: {advice}");
    }
    let args = match cli.command {
        Some(Command::Crowd(a)) => a,
        Some(Command::Match(m)) => {
            if let Err(e) = match_cmd::run(&m) {
                tell!("error: {e}");
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
                tell!("error: {e}");
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
    args.pages.apply();
    if let Err(e) = run_crowd(&args) {
        tell!("error: {e}");
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
