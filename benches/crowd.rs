//! The crowd's frame: 10,000 characters x 31 joints of the embedded CMU
//! clip, sample two sources with velocities -> blend -> transitions -> FK
//! with velocities -> world output and velocity check. One criterion
//! iteration is one frame of a crowd already in its steady state (warmed
//! up for 3 seconds of game time, so transitions are under way).
//!
//! - `crowd/<mode>/lanes/10k_<t>t`: the demo's frame, the random driver's
//!   commands then the step (as `kineform crowd` runs it), on 1 and all
//!   cores; `reference/1k_1t` the scalar path on 1,000 characters (the
//!   same per character-joint work; 10,000 would take seconds a frame).
//! - `crowd/commanded/*`: the crowd stepping with no commands; with every
//!   root moved every frame (`roots_only`: the game moves its array of
//!   roots and hands it over with `set_roots`); with that and 2% of the
//!   characters given a transition, a weight target or a rate change each
//!   frame (`commands`); `commands_only` what giving those costs on its own
//!   (moving the game's roots, validation, staging and queueing; the
//!   draining steps untimed). The commanded crowds start a transition in
//!   about 97% of the packs within a few frames, the quiet one in few: the
//!   difference between `roots_only` and `commands` is mostly the
//!   transitions' own work, not the commands'.
//! - `crowd/check/*`: the step with the live velocity check off and on.
//! - `crowd/deadblend_halflives/*`: the demo's frame with dead blending,
//!   its extrapolation decaying at the command's one half-life
//!   (`command`) or at half-lives fitted per joint and axis at each
//!   transition (`fitted`, `DeadBlendHalflives::FITTED`), on 1 and all
//!   cores.
//! - `crowd/readout/*`: every character's world positions into a caller's
//!   buffer (`positions_into` on 1 and all threads; `output::positions`
//!   over `world_packed`), rotations, against a plain copy of as many
//!   bytes as the positions.
//!
//! - `crowd/tasks/*`: the step run as tasks on threads of the caller's
//!   own (`Crowd::prepare`, the shown poses and the packs each split into
//!   8 runs per thread, taken in turn by `std::thread::scope` threads
//!   started for each part, `finish`) against `Crowd::step` on rayon, on
//!   the demo's frame; and on
//!   a frame in which every character starts a transition (the shown
//!   poses as large as they get: 1,250 batches), with the shown poses
//!   split among the threads or computed on one before the packs run.
//!   Only the step is timed (the commands are given untimed).
//!
//! - `crowd/clips/*`: full against compact and stepped clips (`CrowdConfig::clip_storage`)
//!   on the embedded clip and on every shipped clip repeated to 102,685
//!   frames, a database beyond L3 in full rows (see [`clips`]).
//! - `crowd/markers/*`: the demo's frame with the events copied out, on
//!   clips without markers, with foot contacts on both feet, and with 64
//!   markers (the cost of finding the markers crossed).
//!
//! Throughput is in character-joints (clip joints, 31 per character).
//! Frames run inside the thread pool, one `install` per criterion sample,
//! as the main job and an engine's frame loop run them.

mod common;
use common::*;

#[path = "crowd/clips.rs"]
mod clips;
#[path = "crowd/markers.rs"]
mod markers;
#[path = "crowd/tasks.rs"]
mod tasks;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use kineform::crowd::command::Which;
use kineform::crowd::{
    ClipEnd, ClipLibrary, Command, Crowd, CrowdConfig, DeadBlendHalflives, ReferenceCrowd, Root,
    Sampling, Source, Transition, Wander, WanderConfig,
};
use kineform::data;
use kineform::reference::Vec3;
use std::time::{Duration, Instant};

/// `iters` runs of `f` on a worker of `p`, timed there.
fn in_pool(p: &rayon::ThreadPool, iters: u64, mut f: impl FnMut() + Send) -> Duration {
    p.install(|| {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        t.elapsed()
    })
}

const WARMUP_FRAMES: usize = 180;
const DT: f32 = 1.0 / 60.0;

/// A crowd driven by the demo's driver, warmed up.
fn driven(library: &ClipLibrary, cfg: CrowdConfig, p: &rayon::ThreadPool) -> (Crowd, Wander) {
    let mut crowd = Crowd::new(library, cfg.clone()).expect("crowd");
    let mut wander = Wander::new(cfg.characters, WanderConfig::default());
    p.install(|| {
        for _ in 0..WARMUP_FRAMES {
            wander.update(&mut crowd, DT).expect("driver");
            crowd.step(DT).expect("step");
        }
    });
    (crowd, wander)
}

fn crowd(c: &mut Criterion) {
    banner("crowd");
    let library = ClipLibrary::from_bvh(&data::default_clip()).expect("library");
    let joints = library.skeleton().len();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());

    let modes = [
        (
            "linear_inertialize",
            Sampling::Linear,
            Transition::Inertialize,
        ),
        (
            "cubic_inertialize",
            Sampling::Cubic,
            Transition::Inertialize,
        ),
        ("linear_deadblend", Sampling::Linear, Transition::DeadBlend),
    ];
    for (name, sampling, transition) in modes {
        let cfg = CrowdConfig {
            characters: 10_000,
            sampling,
            transition,
            // The demo's frame, as `kineform crowd` runs it (and as the
            // figures of PERF.md were taken before the default turned off).
            velocity_check: true,
            ..Default::default()
        };
        let mut group = c.benchmark_group(format!("crowd/{name}"));
        group.throughput(Throughput::Elements((cfg.characters * joints) as u64));
        group
            .sample_size(30)
            .measurement_time(Duration::from_secs(6));
        // The main target is measured on 1 and all threads; the other
        // modes on 1.
        let thread_counts: Vec<usize> = if name == "linear_inertialize" && threads > 1 {
            vec![1, threads]
        } else {
            vec![1]
        };
        for t in thread_counts {
            let p = pool(t);
            let (mut crowd, mut wander) = driven(&library, cfg.clone(), &p);
            group.bench_function(BenchmarkId::new("lanes", format!("10k_{t}t")), |bch| {
                bch.iter_custom(|iters| {
                    in_pool(&p, iters, || {
                        wander.update(&mut crowd, DT).expect("driver");
                        std::hint::black_box(crowd.step(DT).expect("step"));
                    })
                })
            });
        }
        group.finish();

        let cfg = CrowdConfig {
            characters: 1_000,
            ..cfg
        };
        let mut group = c.benchmark_group(format!("crowd/{name}"));
        group.throughput(Throughput::Elements((cfg.characters * joints) as u64));
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(4));
        let p = pool(1);
        let mut reference = ReferenceCrowd::new(&library, cfg.clone()).expect("crowd");
        let mut wander = Wander::new(cfg.characters, WanderConfig::default());
        p.install(|| {
            for _ in 0..WARMUP_FRAMES {
                wander.update(&mut reference, DT).expect("driver");
                reference.step(DT).expect("step");
            }
        });
        group.bench_function(BenchmarkId::new("reference", "1k_1t"), |bch| {
            bch.iter_custom(|iters| {
                in_pool(&p, iters, || {
                    wander.update(&mut reference, DT).expect("driver");
                    std::hint::black_box(reference.step(DT).expect("step"));
                })
            })
        });
        group.finish();
    }

    let cfg = CrowdConfig {
        characters: 10_000,
        velocity_check: true,
        ..Default::default()
    };
    let p = pool(threads);
    let n = cfg.characters;

    // Commands: every root moved every frame, 2% of the characters given a
    // transition, a weight target or a rate change.
    let mut group = c.benchmark_group("crowd/commanded");
    group.throughput(Throughput::Elements((n * joints) as u64));
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(6));
    let (mut quiet, _) = driven(&library, cfg.clone(), &p);
    group.bench_function(format!("no_commands_{threads}t"), |bch| {
        bch.iter_custom(|iters| {
            in_pool(&p, iters, || {
                std::hint::black_box(quiet.step(DT).expect("step"));
            })
        })
    });
    let (mut busy, _) = driven(&library, cfg.clone(), &p);
    let mut frame = 0usize;
    // The game's own array of roots, moved along their velocity and
    // handed over whole each frame.
    let standing: Vec<Root> = (0..n)
        .map(|c| Root {
            pos: Vec3::new(c as f32, 0.0, 0.0),
            vel: Vec3::new(0.0, 0.0, 50.0),
            ..Root::standing(Vec3::ZERO, 0.0)
        })
        .collect();
    let give = |crowd: &mut Crowd, roots: &mut Vec<Root>, frame: usize, mix: bool| {
        for r in roots.iter_mut() {
            r.pos += r.vel * DT;
        }
        crowd.set_roots(0, roots).expect("roots");
        for k in 0..if mix { n / 50 } else { 0 } {
            let c = (frame * 7919 + k * 104_729) % n;
            let cmd = match k % 3 {
                0 => Command::Transition {
                    a: Source::looping(0, (k % 100) as f32 * 0.01),
                    b: Source {
                        end: ClipEnd::Hold,
                        ..Source::looping(0, 0.1 + (k % 100) as f32 * 0.01)
                    },
                    duration: 0.3,
                    halflife: 0.2,
                },
                1 => Command::WeightToward {
                    target: (k % 10) as f32 / 10.0,
                    halflife: 0.5,
                },
                _ => Command::SetRate {
                    source: Which::A,
                    rate: 0.8 + (k % 5) as f32 * 0.1,
                },
            };
            crowd.command(c, cmd).expect("command");
        }
    };
    let (mut roots, _) = driven(&library, cfg.clone(), &p);
    let (mut frame_r, mut roots_r, mut roots_b, mut roots_q) =
        (0usize, standing.clone(), standing.clone(), standing.clone());
    group.bench_function(format!("roots_only_{threads}t"), |bch| {
        bch.iter_custom(|iters| {
            in_pool(&p, iters, || {
                give(&mut roots, &mut roots_r, frame_r, false);
                frame_r += 1;
                std::hint::black_box(roots.step(DT).expect("step"));
            })
        })
    });
    group.bench_function(format!("commands_{threads}t"), |bch| {
        bch.iter_custom(|iters| {
            in_pool(&p, iters, || {
                give(&mut busy, &mut roots_b, frame, true);
                frame += 1;
                std::hint::black_box(busy.step(DT).expect("step"));
            })
        })
    });
    // Queueing alone (validation and the queue), the steps that drain the
    // queue untimed.
    let (mut queue_only, _) = driven(&library, cfg.clone(), &p);
    group.bench_function("commands_only", |bch| {
        bch.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for i in 0..iters {
                let t = Instant::now();
                give(&mut queue_only, &mut roots_q, i as usize, true);
                spent += t.elapsed();
                p.install(|| queue_only.step(DT).expect("step"));
            }
            spent
        })
    });
    group.finish();

    // The velocity check off and on.
    let mut group = c.benchmark_group("crowd/check");
    group.throughput(Throughput::Elements((n * joints) as u64));
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(6));
    for check in [false, true] {
        let (mut crowd, mut wander) = driven(
            &library,
            CrowdConfig {
                velocity_check: check,
                ..cfg.clone()
            },
            &p,
        );
        group.bench_function(
            format!("{}_{threads}t", if check { "on" } else { "off" }),
            |bch| {
                bch.iter_custom(|iters| {
                    in_pool(&p, iters, || {
                        wander.update(&mut crowd, DT).expect("driver");
                        std::hint::black_box(crowd.step(DT).expect("step"));
                    })
                })
            },
        );
    }
    group.finish();

    // Dead blending with the command's one half-life and with half-lives
    // fitted per joint and axis at each transition, on 1 and all threads.
    let mut group = c.benchmark_group("crowd/deadblend_halflives");
    group.throughput(Throughput::Elements((n * joints) as u64));
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(6));
    for t in thread_counts(threads) {
        let p = pool(t);
        for (name, dead_blend_halflives) in [
            ("command", DeadBlendHalflives::Command),
            ("fitted", DeadBlendHalflives::FITTED),
        ] {
            let cfg = CrowdConfig {
                transition: Transition::DeadBlend,
                dead_blend_halflives,
                ..cfg.clone()
            };
            let (mut crowd, mut wander) = driven(&library, cfg, &p);
            group.bench_function(format!("{name}_10k_{t}t"), |bch| {
                bch.iter_custom(|iters| {
                    in_pool(&p, iters, || {
                        wander.update(&mut crowd, DT).expect("driver");
                        std::hint::black_box(crowd.step(DT).expect("step"));
                    })
                })
            });
        }
    }
    group.finish();

    // Reading every world position out, against a plain copy of the bytes.
    let (crowd, _) = driven(&library, cfg.clone(), &p);
    let cj = n * (joints + 1);
    let mut out = vec![[0.0f32; 3]; cj];
    let src = vec![[1.0f32; 3]; cj];
    let mut group = c.benchmark_group("crowd/readout");
    group.throughput(Throughput::Bytes((cj * 12) as u64));
    let counts: &[usize] = if threads > 1 { &[1, threads] } else { &[1] };
    for &t in counts {
        let pt = pool(t);
        group.bench_function(format!("positions_into_{t}t"), |bch| {
            bch.iter_custom(|iters| {
                in_pool(&pt, iters, || {
                    crowd.positions_into(0..n, &mut out).expect("read")
                })
            })
        });
    }
    let mut rot = vec![[0.0f32; 4]; cj];
    group.bench_function(
        format!("rotations_into_{threads}t_(16_bytes_each)"),
        |bch| {
            bch.iter_custom(|iters| {
                in_pool(&p, iters, || {
                    crowd.rotations_into(0..n, &mut rot).expect("read")
                })
            })
        },
    );
    let mut all = vec![kineform::reference::Vec3::ZERO; cj];
    group.bench_function(format!("output_positions_{threads}t"), |bch| {
        bch.iter_custom(|iters| {
            in_pool(&p, iters, || {
                kineform::output::positions(crowd.world_packed(), &mut all).expect("read")
            })
        })
    });
    group.bench_function("plain_copy", |bch| {
        bch.iter(|| out.copy_from_slice(std::hint::black_box(&src)))
    });
    group.finish();
}

criterion_group!(benches, crowd, tasks::tasks, clips::clips, markers::markers);
criterion_main!(benches);
