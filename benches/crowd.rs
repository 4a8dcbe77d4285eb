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

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use kineform::crowd::command::Which;
use kineform::crowd::{
    ClipEnd, ClipLibrary, ClipStorage, Command, Crowd, CrowdConfig, DeadBlendHalflives, PackRange,
    ReferenceCrowd, Root, Sampling, ShownRange, Source, Transition, Wander, WanderConfig,
};
use kineform::data;
use kineform::markers::FootContact;
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
    let mut counts = vec![1];
    if threads > 1 {
        counts.push(threads);
    }
    for t in counts {
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

/// The step run as tasks on the caller's threads (module docs).
fn tasks(c: &mut Criterion) {
    let library = ClipLibrary::from_bvh(&data::default_clip()).expect("library");
    let joints = library.skeleton().len();
    let t = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cfg = CrowdConfig {
        characters: 10_000,
        ..Default::default()
    };
    let n = cfg.characters;
    let p = pool(t);
    let mut group = c.benchmark_group("crowd/tasks");
    group.throughput(Throughput::Elements((n * joints) as u64));
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(6));
    // Each part split into 8 runs per thread, which `t` threads started
    // for the part take in turn (a job system's queue: a thread the
    // machine slows down takes fewer); `shown` false leaves the shown
    // poses to `packs()`, which computes them on the calling thread.
    fn on_threads<T: Send>(runs: impl Iterator<Item = T>, t: usize, run: fn(T)) {
        let queue = std::sync::Mutex::new(runs.collect::<Vec<T>>().into_iter());
        let next = || queue.lock().unwrap_or_else(|e| e.into_inner()).next();
        std::thread::scope(|s| {
            for _ in 0..t {
                s.spawn(|| {
                    while let Some(r) = next() {
                        run(r)
                    }
                });
            }
        });
    }
    let own_threads = |crowd: &mut Crowd, shown: bool| {
        let mut frame = crowd.prepare(DT).expect("prepare");
        if shown {
            on_threads(frame.shown().split(8 * t), t, ShownRange::run);
        }
        on_threads(frame.packs().split(8 * t), t, PackRange::run);
        frame.finish()
    };
    for way in ["step", "own_threads"] {
        let (mut crowd, mut wander) = driven(&library, cfg.clone(), &p);
        group.bench_function(format!("{way}_{t}t"), |bch| {
            bch.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    wander.update(&mut crowd, DT).expect("driver");
                    let start = Instant::now();
                    let stats = match way {
                        "step" => p.install(|| crowd.step(DT)).expect("step"),
                        _ => own_threads(&mut crowd, true),
                    };
                    spent += start.elapsed();
                    std::hint::black_box(stats);
                }
                spent
            })
        });
    }
    // Every character starts a transition every frame.
    let all_transition = |crowd: &mut Crowd, frame: usize| {
        for c in 0..n {
            let t = ((c * 7 + frame) % 100) as f32 * 0.015;
            let (a, b) = (Source::looping(0, t), Source::looping(0, t + 0.1));
            crowd.transition(c, a, b, 0.3, 0.1).expect("transition");
        }
    };
    for way in ["step", "shown_split", "shown_on_one_thread"] {
        let (mut crowd, _) = driven(&library, cfg.clone(), &p);
        let mut frame = 0;
        group.bench_function(format!("all_transition_{way}_{t}t"), |bch| {
            bch.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    all_transition(&mut crowd, frame);
                    frame += 1;
                    let start = Instant::now();
                    let stats = match way {
                        "step" => p.install(|| crowd.step(DT)).expect("step"),
                        "shown_split" => own_threads(&mut crowd, true),
                        _ => own_threads(&mut crowd, false),
                    };
                    spent += start.elapsed();
                    std::hint::black_box(stats);
                }
                spent
            })
        });
    }
    group.finish();
}

/// All shipped clips (the embedded one and `data/mocap`'s five, joined
/// through the CMU joint maps) repeated until the database holds at least
/// `frames` frames.
fn shipped_clips_repeated(frames: usize) -> ClipLibrary {
    let mut library = ClipLibrary::from_bvh(&data::default_clip()).expect("library");
    let dir = format!("{}/data/mocap", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("data/mocap")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "bvh"))
        .collect();
    files.sort();
    for f in files {
        library
            .add_cmu(&kineform::bvh::load(f).expect("bvh"))
            .expect("cmu clip");
    }
    let once = library.clips().to_vec();
    let skeleton = library.skeleton().clone();
    let total = |l: &ClipLibrary| l.clips().iter().map(|c| c.frames()).sum::<usize>();
    while total(&library) < frames {
        for c in &once {
            library.add(&skeleton, c).expect("the same clip again");
        }
    }
    library
}

/// Full against compact and stepped clips (issue 27, item 3): the demo's
/// frame (linear sampling, inertialization, velocity check off as a game
/// runs) of 10,000 characters on the embedded clip (277 frames: 213 KB
/// full, 53 KB compact, 104 KB stepped, all in L2) and on every shipped
/// clip repeated to 102,685 frames (92 MB full, beyond the 32 MiB L3;
/// 23 MB compact, 45 MB stepped), on
/// 1 and all threads. Run the group more than once and compare rounds
/// (the two storages of a size run back to back).
fn clips(c: &mut Criterion) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let sizes = [
        (
            "cmu_277_frames",
            ClipLibrary::from_bvh(&data::default_clip()).expect("library"),
        ),
        ("shipped_100k_frames", shipped_clips_repeated(100_000)),
    ];
    for (name, library) in &sizes {
        let joints = library.skeleton().len();
        let mut group = c.benchmark_group(format!("crowd/clips/{name}"));
        group.throughput(Throughput::Elements((10_000 * joints) as u64));
        group
            .sample_size(20)
            .measurement_time(Duration::from_secs(5));
        let mut ts = vec![1];
        if threads > 1 {
            ts.push(threads);
        }
        for t in ts {
            let p = pool(t);
            for storage in [
                ClipStorage::Full,
                ClipStorage::Compact,
                ClipStorage::Stepped,
            ] {
                let cfg = CrowdConfig {
                    characters: 10_000,
                    clip_storage: storage,
                    ..Default::default()
                };
                let (mut crowd, mut wander) = driven(library, cfg, &p);
                let id = format!("{}_{t}t", storage.name());
                group.bench_function(id, |bch| {
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
    }
}

/// The demo's frame (the driver's commands, the step, and the events
/// copied into the game's buffer) on clips without markers (`none`), with
/// the feet's contacts detected on both feet (`feet`: the ankles' on the
/// embedded clip, `FootContact::CMU`), and with 64 markers evenly spread
/// (`dense`: every source's move is checked against 8 chunks), on 1 and all
/// threads.
fn markers(c: &mut Criterion) {
    banner("crowd markers");
    let plain = ClipLibrary::from_bvh(&data::default_clip()).expect("library");
    let joints = plain.skeleton().len();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut feet = plain.clone();
    let mut found = 0;
    // The embedded clip names its feet in 3dsMax's convention.
    for foot in ["LeftAnkle", "RightAnkle"] {
        found += feet
            .add_foot_contacts(0, foot, foot, &FootContact::CMU)
            .expect("foot contacts");
    }
    let mut dense = plain.clone();
    let last = dense.clips()[0].last_time();
    for i in 0..64 {
        dense
            .add_marker(0, "m", last * i as f32 / 64.0)
            .expect("marker");
    }
    eprintln!("feet: {found} markers; dense: 64");
    let cfg = CrowdConfig {
        characters: 10_000,
        velocity_check: true,
        ..Default::default()
    };
    let mut group = c.benchmark_group("crowd/markers");
    group.throughput(Throughput::Elements((cfg.characters * joints) as u64));
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(6));
    let mut counts = vec![1];
    if threads > 1 {
        counts.push(threads);
    }
    for t in counts {
        let p = pool(t);
        for (name, library) in [("none", &plain), ("feet", &feet), ("dense", &dense)] {
            let (mut crowd, mut wander) = driven(library, cfg.clone(), &p);
            let mut events = Vec::new();
            group.bench_function(format!("{name}_10k_{t}t"), |bch| {
                bch.iter_custom(|iters| {
                    in_pool(&p, iters, || {
                        wander.update(&mut crowd, DT).expect("driver");
                        std::hint::black_box(crowd.step(DT).expect("step"));
                        crowd.events_into(&mut events);
                        std::hint::black_box(events.len());
                    })
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, crowd, tasks, clips, markers);
criterion_main!(benches);
