//! `kineform`: the command-line program. `kineform crowd` (the default)
//! evaluates a crowd on motion capture every frame and reports its speed and
//! the live velocity check.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use kineform::crowd::{
    Crowd, CrowdConfig, FrameStats, ReferenceCrowd, Sampling, Transition, VelocityCheck,
};
use kineform::{Clip, Skeleton, bvh, data};

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
}

#[derive(Clone, Copy, ValueEnum)]
enum TransitionArg {
    Inertialize,
    Deadblend,
}

#[derive(Clone, Copy, ValueEnum)]
enum SamplingArg {
    Linear,
    Cubic,
}

#[derive(clap::Args)]
struct CrowdArgs {
    /// Number of characters.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    characters: u32,
    /// Frames to time, after the warm-up.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..))]
    frames: u32,
    /// Frames run before timing starts, so the timed frames see the
    /// crowd's steady state (characters start idle; their first transitions
    /// come in the first two seconds). Their velocities are checked too.
    #[arg(long, default_value_t = 120)]
    warmup: u32,
    /// Worker threads (default: one per core).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// BVH clips to play (default: the CMU clip embedded in the crate); all
    /// must share a skeleton and frame time.
    #[arg(long = "clip", value_name = "PATH")]
    clips: Vec<PathBuf>,
    /// How transitions are hidden.
    #[arg(long, value_enum, default_value_t = TransitionArg::Inertialize)]
    transition: TransitionArg,
    /// How clips are sampled between frames.
    #[arg(long, value_enum, default_value_t = SamplingArg::Linear)]
    sampling: SamplingArg,
    /// Run the same crowd through the scalar reference path.
    #[arg(long)]
    scalar: bool,
    /// Print one JSON object with every figure instead of text.
    #[arg(long)]
    json: bool,
    /// Seed of the characters' schedules.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() {
    let cli = Cli::parse();
    let args = match cli.command {
        Some(Command::Crowd(a)) => a,
        None => cli.crowd,
    };
    if let Err(e) = run_crowd(&args) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn load_clips(
    paths: &[PathBuf],
) -> Result<(Vec<Clip>, Skeleton, String), Box<dyn std::error::Error>> {
    if paths.is_empty() {
        let b = data::default_clip();
        return Ok((vec![b.clip], b.skeleton, "embedded CMU 102_01".into()));
    }
    let mut clips = Vec::new();
    let mut skeleton: Option<Skeleton> = None;
    for p in paths {
        let b = bvh::load(p)?;
        match &skeleton {
            None => skeleton = Some(b.skeleton.clone()),
            Some(s) if s.parents() != b.skeleton.parents() => {
                return Err(format!(
                    "{}: its skeleton differs from {}'s",
                    p.display(),
                    paths[0].display()
                )
                .into());
            }
            Some(_) => {}
        }
        clips.push(b.clip);
    }
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    Ok((
        clips,
        skeleton.expect("at least one clip"),
        names.join(", "),
    ))
}

enum AnyCrowd {
    Lanes(Box<Crowd>),
    Scalar(Box<ReferenceCrowd>),
}

impl AnyCrowd {
    fn step(&mut self) -> FrameStats {
        match self {
            AnyCrowd::Lanes(c) => c.step(),
            AnyCrowd::Scalar(c) => c.step(),
        }
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn run_crowd(a: &CrowdArgs) -> Result<(), Box<dyn std::error::Error>> {
    let threads = a.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |t| t as usize,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let (clips, skeleton, source) = load_clips(&a.clips)?;
    let cfg = CrowdConfig {
        characters: a.characters as usize,
        transition: match a.transition {
            TransitionArg::Inertialize => Transition::Inertialize,
            TransitionArg::Deadblend => Transition::DeadBlend,
        },
        sampling: match a.sampling {
            SamplingArg::Linear => Sampling::Linear,
            SamplingArg::Cubic => Sampling::Cubic,
        },
        seed: a.seed,
        ..CrowdConfig::default()
    };
    let mut crowd = if a.scalar {
        AnyCrowd::Scalar(Box::new(ReferenceCrowd::new(
            &clips,
            &skeleton,
            cfg.clone(),
        )?))
    } else {
        AnyCrowd::Lanes(Box::new(Crowd::new(&clips, &skeleton, cfg.clone())?))
    };
    let joints = skeleton.len();
    let frames = a.frames as usize;

    // The first frame fills the previous-frame state of the velocity check.
    let total = Instant::now();
    pool.install(|| crowd.step());
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
    pool.install(|| {
        for f in 0..warmup + frames {
            if show_bar && total.elapsed() > Duration::from_secs(1) && bar.is_hidden() {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
            let t = Instant::now();
            let s = crowd.step();
            if f >= warmup {
                times.push(t.elapsed().as_secs_f64());
            }
            transitions += s.transitions as u64;
            check.max_gap = check.max_gap.max(s.velocity.max_gap);
            check.sum_gap += s.velocity.sum_gap;
            check.samples += s.velocity.samples;
            check.max_speed = check.max_speed.max(s.velocity.max_speed);
            bar.inc(1);
        }
    });
    bar.finish_and_clear();
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
    let transition = match cfg.transition {
        Transition::Inertialize => "inertialize",
        Transition::DeadBlend => "deadblend",
    };
    let sampling = match cfg.sampling {
        Sampling::Linear => "linear",
        Sampling::Cubic => "cubic",
    };
    if a.json {
        let o = serde_json::json!({
            "version": env!("CARGO_PKG_VERSION"),
            "simd_backend": kineform::simd_backend(),
            "path": path,
            "threads": threads,
            "characters": a.characters,
            "joints": joints,
            "frames": frames,
            "warmup_frames": warmup,
            "clips": source,
            "transition": transition,
            "sampling": sampling,
            "frame_ms_median": median * 1e3,
            "frame_ms_p99": p99 * 1e3,
            "frame_ms_best": best * 1e3,
            "character_joints_per_s": cj / median,
            "ns_per_character_joint": median * 1e9 / cj,
            "transitions": transitions,
            "velocity_gap_max": check.max_gap,
            "velocity_gap_mean": check.mean_gap(),
            "max_speed": check.max_speed,
            "total_s": total.elapsed().as_secs_f64(),
        });
        println!("{o}");
    } else {
        println!(
            "kineform {} | SIMD backend: {} | {path} | threads: {threads}",
            env!("CARGO_PKG_VERSION"),
            kineform::simd_backend()
        );
        println!(
            "crowd: {} characters x {joints} joints ({source}), {transition}, {sampling} sampling, {frames} frames timed after {warmup} warm-up frames",
            a.characters
        );
        println!(
            "frame time: median {:.3} ms, p99 {:.3} ms, best {:.3} ms; {:.1} M character-joints/s ({:.2} ns each, at the median)",
            median * 1e3,
            p99 * 1e3,
            best * 1e3,
            cj / median / 1e6,
            median * 1e9 / cj
        );
        println!(
            "velocity check (|finite difference of world positions - propagated velocity| per frame): max {:.2}, mean {:.3} units/s (speeds up to {:.0}); {transitions} transitions",
            check.max_gap,
            check.mean_gap(),
            check.max_speed
        );
    }
    Ok(())
}
