//! `kineform crowd`: the crowd built from the command line's arguments,
//! stepped frame after frame under the wandering driver (and level of
//! detail's, with `--lod`), its frames timed, and what a renderer reads
//! after each frame (every character's bounding box, and with
//! `--skinning` its skinning matrices) read into buffers kept across
//! frames.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use kineform::crowd::{
    Aabb, ClipLibrary, ClipStorage, Crowd, CrowdConfig, DeadBlendHalflives, Event, EventKind,
    FrameStats, Layer, Mask, ReferenceCrowd, RootMotion, Sampling, Transition, VelocityCheck,
    Wander, WanderConfig,
};
use kineform::reference::Kform;
use kineform::skinning::InverseBind;

use crate::lod_cmd::{Detailed, LodDriver};
use crate::report::{Measured, report};
use crate::{
    CrowdArgs, HalflivesArg, RootMotionArg, SamplingArg, TransitionArg, add_footsteps, load_clips,
};

/// The crowd `kineform crowd` runs: the 8-lane one, or with `--scalar`
/// the reference.
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
            AnyCrowd::Lanes(c) => driven_step(c.as_mut(), wander, lod, dt, |c| c.step(dt)),
            AnyCrowd::Scalar(c) => driven_step(c.as_mut(), wander, lod, dt, |c| c.step(dt)),
        }
    }

    /// The last step's events.
    fn events(&self) -> &[Event] {
        match self {
            AnyCrowd::Lanes(c) => c.events(),
            AnyCrowd::Scalar(c) => c.events(),
        }
    }

    /// Bytes of the clips' frame tables in the crowd's storage.
    fn clip_table_bytes(&self) -> usize {
        match self {
            AnyCrowd::Lanes(c) => c.clip_table_bytes(),
            AnyCrowd::Scalar(c) => c.clip_table_bytes(),
        }
    }

    /// The crowd skeleton.
    fn skeleton(&self) -> &kineform::Skeleton {
        match self {
            AnyCrowd::Lanes(c) => c.skeleton(),
            AnyCrowd::Scalar(c) => c.skeleton(),
        }
    }

    /// Every character's skinning matrices after the last step, into `out`.
    fn skinning_matrices_into(
        &self,
        bind: &InverseBind,
        out: &mut [[f32; 12]],
    ) -> kineform::Result<()> {
        match self {
            AnyCrowd::Lanes(c) => c.skinning_matrices_into(0..c.characters(), bind, out),
            AnyCrowd::Scalar(c) => c.skinning_matrices_into(0..c.characters(), bind, out),
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
    let pool = crate::pool::worker_pool(Some(threads), "--threads")?;
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
    /// With `--skinning`: the bind pose, the renderer's buffer (kept) and
    /// each timed frame's seconds writing it.
    skinning: Option<Skinning>,
    skinning_times: Vec<f64>,
    commands: u64,
    markers: u64,
    boxes: Vec<Aabb>,
    box_sizes: [f64; 3],
    box_largest: f64,
}

impl Timed {
    /// Room for `frames` frame times (and as many skinning times with
    /// `skinning`), reserved before the crowd is built: a count no memory
    /// holds (`--frames 4294967295`, 34 GB of times) is refused with the
    /// bytes it needs, where an infallible reservation aborted the
    /// process. The skinning buffer is given once the crowd is built
    /// ([`Timed::skinning`]).
    fn new(frames: usize, characters: usize, skinning: bool) -> kineform::Result<Timed> {
        let room = |n: usize| -> kineform::Result<Vec<f64>> {
            let mut v = Vec::new();
            v.try_reserve_exact(n).map_err(|_| kineform::Error::Size {
                what: "--frames",
                reason: format!(
                    "{n} frame times ({} bytes) could not be reserved",
                    n.saturating_mul(8)
                ),
            })?;
            Ok(v)
        };
        Ok(Timed {
            times: room(frames)?,
            skinning_times: room(if skinning { frames } else { 0 })?,
            skinning: None,
            commands: 0,
            markers: 0,
            boxes: vec![Aabb::ZERO; characters],
            box_sizes: [0.0; 3],
            box_largest: 0.0,
        })
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
        if let Some((bind, matrices)) = &mut self.skinning {
            let t = Instant::now();
            crowd.skinning_matrices_into(bind, matrices)?;
            self.skinning_times.push(t.elapsed().as_secs_f64());
        }
        Ok(())
    }
}

/// `--skinning`'s bind pose and the renderer's buffer of matrices.
type Skinning = (InverseBind, Vec<[f32; 12]>);

/// With `--skinning`: the crowd skeleton's bind pose (its root at the
/// origin, each clip joint at its rest offset, unturned), and the
/// renderer's buffer of one `[f32; 12]` a character and joint, refused
/// with an error naming its size when it cannot be allocated.
fn skinning_buffer(
    crowd: &AnyCrowd,
    library: &ClipLibrary,
    characters: usize,
) -> Result<Skinning, Box<dyn std::error::Error>> {
    let skeleton = crowd.skeleton();
    let offsets = library.offsets();
    let local: Vec<Kform> = (0..skeleton.len())
        .map(|j| Kform {
            pos: j
                .checked_sub(1)
                .and_then(|k| offsets.get(k))
                .copied()
                .unwrap_or_default(),
            ..Kform::IDENTITY
        })
        .collect();
    let bind = InverseBind::from_bind_pose(skeleton, &local)?;
    let n = characters.saturating_mul(skeleton.len());
    let mut matrices = Vec::new();
    matrices.try_reserve_exact(n).map_err(|_| {
        format!(
            "--skinning: {n} skinning matrices ({} bytes) could not be allocated",
            n.saturating_mul(48)
        )
    })?;
    matrices.resize(n, [0.0f32; 12]);
    Ok((bind, matrices))
}

/// The lowest `--fps` the velocity check runs at (found by a command-line
/// audit: at 0.2 fps a wanderer's transition, between two frames where its
/// clips are held and still, gave a gap of 58.9 units/s against a bound of
/// 7.6e-5).
const MIN_CHECKED_FPS: f32 = 10.0;

/// `kineform crowd`: the clips and the crowd built from the arguments, the
/// frames run and timed ([`run_frames`]), the figures reported.
pub(crate) fn run_crowd(a: &CrowdArgs) -> Result<(), Box<dyn std::error::Error>> {
    if !a.no_check && a.fps < MIN_CHECKED_FPS {
        return Err(format!(
            "--fps {}: the velocity check compares frames 1/fps apart, and under {MIN_CHECKED_FPS} \
             fps they miss the motion between them (its bound, twice the top speed seen at the \
             frames, no longer holds: a held clip's transition is all in one step); give --fps \
             {MIN_CHECKED_FPS} or more, or --no-check",
            a.fps
        )
        .into());
    }
    let (threads, pool) = crowd_pool(a)?;
    let (mut library, source) = load_clips(&a.clips)?;
    let markers_in_clips = match a.no_markers {
        true => 0,
        false => add_footsteps(&mut library)?,
    };
    let skeleton = library.skeleton().clone();
    let cfg = crowd_config(a, &library);
    let dt = 1.0 / a.fps;
    let (frames, warmup) = (a.frames as usize, a.warmup as usize);
    let mut timed = Timed::new(frames, cfg.characters, a.skinning)?;
    let mut wander = wanderers(a, &cfg);
    let mut crowd = build_crowd(&pool, a, &library, &cfg)?;
    let mut lod = LodDriver::new(&a.lod, cfg.characters);
    if a.skinning {
        timed.skinning = Some(skinning_buffer(&crowd, &library, cfg.characters)?);
    }
    let total = Instant::now();
    let bar = frames_bar(a, warmup + frames)?;
    let run = Run {
        dt,
        warmup,
        frames,
        total,
        bar,
    };
    let (check, transitions) =
        pool.install(|| run_frames(&run, (&mut crowd, &mut wander, &mut lod), &mut timed))?;
    let skinning_bytes = timed.skinning.as_ref().map_or(0, |s| size_of_val(&s.1[..]));
    let Timed {
        times,
        skinning_times,
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
            joints: skeleton.len(),
            frames,
            warmup,
            dt,
            source: &source,
            markers_in_clips,
            heading: wander.heading_error(),
            times,
            skinning_times,
            skinning_bytes,
            check,
            transitions,
            commands,
            markers,
            box_sizes,
            box_largest,
            total,
            names: skeleton.names(),
            lod: lod.as_ref(),
            clip_table_bytes: crowd.clip_table_bytes(),
        },
    )
}

/// The run's frame time, frames (untimed, then timed), start and
/// progress bar (and whether it may be shown).
struct Run {
    dt: f32,
    warmup: usize,
    frames: usize,
    total: Instant,
    bar: (ProgressBar, bool),
}

/// The wandering driver of `kineform crowd` for `cfg`'s characters.
fn wanderers(a: &CrowdArgs, cfg: &CrowdConfig) -> Wander {
    Wander::new(
        cfg.characters,
        WanderConfig {
            seed: a.seed,
            layers: a.layers > 0,
            follow_root_motion: matches!(a.root_motion, RootMotionArg::Extract),
            ..WanderConfig::default()
        },
    )
}

/// A first frame (it fills the previous-frame state of the velocity
/// check), then the warm-up frames and the timed ones, each as a game runs
/// it (the drivers' commands, then the step), the timed ones recorded in
/// `timed`; returns every frame's velocity check merged and the
/// transitions started.
fn run_frames(
    run: &Run,
    (crowd, wander, lod): (&mut AnyCrowd, &mut Wander, &mut Option<LodDriver>),
    timed: &mut Timed,
) -> kineform::Result<(VelocityCheck, u64)> {
    let dt = run.dt;
    let first = crowd.step(wander, lod.as_mut(), dt)?;
    if let Some(lod) = lod.as_mut() {
        lod.after(|r, b| crowd.bounds_into(r, b), &first, dt, false)?;
    }
    let (bar, show_bar) = &run.bar;
    let mut check = VelocityCheck::default();
    let mut transitions = 0u64;
    for f in 0..run.warmup + run.frames {
        if *show_bar && run.total.elapsed() > Duration::from_secs(1) && bar.is_hidden() {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        let t = Instant::now();
        let s = crowd.step(wander, lod.as_mut(), dt)?;
        if f >= run.warmup {
            timed.record(crowd, &s, t.elapsed().as_secs_f64())?;
        }
        if let Some(lod) = lod.as_mut() {
            lod.after(|r, b| crowd.bounds_into(r, b), &s, dt, f >= run.warmup)?;
        }
        transitions += s.transitions as u64;
        check.merge(&s.velocity);
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok((check, transitions))
}

/// [`AnyCrowd::step`] for either crowd: level of detail's commands (where
/// it runs) and the wanderers', `step`, then the roots the wanderers
/// follow.
fn driven_step<C: Detailed>(
    crowd: &mut C,
    wander: &mut Wander,
    lod: Option<&mut LodDriver>,
    dt: f32,
    step: impl FnOnce(&mut C) -> kineform::Result<FrameStats>,
) -> kineform::Result<FrameStats> {
    if let Some(lod) = lod {
        lod.before(crowd)?;
    }
    wander.update(crowd, dt)?;
    let s = step(crowd)?;
    wander.follow(crowd, dt)?;
    Ok(s)
}
