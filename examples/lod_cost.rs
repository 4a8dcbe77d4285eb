//! The cost of level of detail (issue 25), for instruction counts: a crowd
//! of the embedded CMU clip stepped `frames` times at 60 Hz, its characters
//! playing staggered loops, with a transition every 0.5 s for one
//! character in 30 (staggered), in one of these modes:
//!
//! - `off`: no level of detail ([`kineform::crowd::CrowdConfig::level_of_detail`] off);
//! - `every`: level of detail on, every character at period 1;
//! - `mix`: level of detail on, packs of eight at period 1, 2 and 4
//!   (10%, 30% and 60% of them: issue 25, item 5), phases staggered
//!   so that each step evaluates an even share;
//! - `sorted`: the same shares as `mix`, the packs in order of period as
//!   a game that sorts its characters by distance has them (the first
//!   10% of the packs at period 1, the next 30% at 2, the rest at 4);
//! - `pN` (`p2`, `p4`, `p8`, `p16`): level of detail on, every pack at
//!   period N, phases staggered by pack.
//!
//! An optional fourth argument `RUN` (default 1) gives runs of `RUN`
//! neighbouring packs (`mix`: groups of ten) the same phase, as
//! [`kineform::crowd::budget`]'s allocator does, instead of staggering
//! the phases pack by pack. An optional fifth, `JITTER` (default 0), varies
//! each frame's time by up to that share of 1/60 s either way (a fixed
//! pseudo-random sequence), as a game's measured frame time varies.
//!
//! Instructions per frame are the difference of two runs' counts over
//! their difference in frames (so that building the crowd cancels):
//!
//! ```text
//! RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/lod_cost mix 10000 8    # and 16
//! ```
//!
//! An optional sixth, `SKIN` (`skin`), also writes every character's
//! skinning matrices after each step (`Crowd::skinning_matrices_into`,
//! `[f32; 12]`, a bind pose with every joint at the origin) and prints
//! that readout's time apart: a carried pack costs its step nothing per
//! joint, but a reader makes its shown pose (the carry and any running
//! offset) joint by joint.
//!
//! With `fresh` instead, it reads only the matrices of the characters the
//! step evaluated (`Crowd::skinning_matrices_evaluated_into`): a game that
//! shows a carried character's last evaluated pose until its next
//! evaluation.
//!
//! `cargo run --release --example lod_cost -- MODE [CHARACTERS] [FRAMES] [RUN] [JITTER] [SKIN]`
//! prints the frames' wall time too (not a figure on a loaded machine).
//! `FRAMES` frames are timed after [`WARMUP`] untimed ones: the first
//! steps write memory for the first time (at 100,000 characters the
//! mix's offsets, 149 MB, first written at each pack's first
//! resumption), which a game pays once, not every frame (the mix timed
//! from its first frame read 10.96 ms a frame over 20 frames and 9.94 ms
//! over 400, every frame 14.2 and 13.7: PERF.md, "Level of detail's
//! offsets past the caches"). Instruction counts taken as the difference
//! of two runs are unchanged by it.

use std::time::{Duration, Instant};

use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, Source};
use kineform::reference::Kform;
use kineform::skinning::InverseBind;

/// Frames stepped before the timed ones (every period up to 16 evaluated
/// at least once).
const WARMUP: usize = 16;

fn main() -> kineform::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map_or("off", String::as_str);
    let n: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let frames: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(8);
    let run: usize = args.get(4).and_then(|a| a.parse().ok()).unwrap_or(1).max(1);
    let jitter: f32 = args.get(5).and_then(|a| a.parse().ok()).unwrap_or(0.0);
    let jitter = jitter.clamp(0.0, 0.5);
    let read = args.get(6).map_or("", String::as_str);
    let (skin, fresh) = (read == "skin" || read == "fresh", read == "fresh");
    let library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
    let len = library.clips()[0].last_time();
    let cfg = CrowdConfig {
        characters: n,
        level_of_detail: mode != "off",
        ..Default::default()
    };
    let mut crowd = Crowd::new(&library, cfg)?;
    let n_packs = n.div_ceil(8);
    for c in 0..n {
        let a = Source::looping(0, (c as f32 * 0.137) % len);
        crowd.play(c, a, a)?;
        let p = c / 8;
        let every: Option<u32> = mode.strip_prefix('p').and_then(|n| n.parse().ok());
        let (period, phase) = match (mode, p % 10, every) {
            ("sorted", _, _) => match 10 * p / n_packs {
                0 => (1, 0),
                1..=3 => (2, (p / run) as u32 % 2),
                _ => (4, (p / run) as u32 % 4),
            },
            ("mix", 0, _) => (1, 0),
            ("mix", 1..=3, _) => (2, (p / 10 / run) as u32 % 2),
            ("mix", _, _) => (4, (p / 10 / run) as u32 % 4),
            (_, _, Some(n)) => (n, (p / run) as u32 % n.max(1)),
            _ => (1, 0),
        };
        if mode != "off" {
            crowd.set_period(c, period, phase)?;
        }
    }
    // A 32-bit linear congruential sequence: the same frame times every run.
    let mut seed = 12345u32;
    let mut next_dt = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let u = (seed >> 8) as f32 / (1u32 << 24) as f32;
        (1.0 + jitter * (2.0 * u - 1.0)) / 60.0
    };
    let joints = crowd.skeleton().len();
    let bind = InverseBind::from_bind_pose(crowd.skeleton(), &vec![Kform::IDENTITY; joints])?;
    let mut matrices = vec![[0.0f32; 12]; if skin { n * joints } else { 0 }];
    let (mut stepping, mut reading) = (Duration::ZERO, Duration::ZERO);
    let mut evaluated = 0u64;
    for f in 0..WARMUP + frames {
        for c in (f % 30..n).step_by(30 * 30) {
            let a = Source::looping(0, (f as f32 * 0.31 + c as f32) % len);
            crowd.transition(c, a, a, 0.3, 0.1)?;
        }
        let t = Instant::now();
        let stats = crowd.step(next_dt())?;
        if f < WARMUP {
            continue;
        }
        evaluated += u64::from(stats.evaluated);
        stepping += t.elapsed();
        if skin {
            let t = Instant::now();
            match fresh {
                false => crowd.skinning_matrices_into(0..n, &bind, &mut matrices)?,
                true => crowd.skinning_matrices_evaluated_into(0..n, &bind, &mut matrices)?,
            }
            reading += t.elapsed();
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3 / frames as f64;
    println!(
        "{mode} (runs of {run}): {n} characters, {frames} frames after {WARMUP}, {:.1}% evaluated, {:.3} ms/frame{}",
        100.0 * evaluated as f64 / (n * frames) as f64,
        ms(stepping),
        match skin {
            true => format!(", skinning matrices ({read}) {:.3} ms/frame", ms(reading)),
            false => String::new(),
        }
    );
    Ok(())
}
