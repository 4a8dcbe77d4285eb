//! `crowd/tasks/*`: the step run as tasks on threads of the caller's own
//! against `Crowd::step` on rayon (the bench's docs).

use super::{DT, driven};
use crate::common::pool;
use criterion::{Criterion, Throughput};
use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, PackRange, ShownRange, Source};
use kineform::data;
use std::time::{Duration, Instant};

/// The step run as tasks on the caller's threads (module docs).
pub(crate) fn tasks(c: &mut Criterion) {
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
