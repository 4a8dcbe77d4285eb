//! The crowd's frame (issue 4): 10,000 characters x 31 joints of the
//! embedded CMU clip, sample two sources with velocities -> blend ->
//! transitions -> FK with velocities -> world output and velocity check.
//! One criterion iteration is one frame of a crowd already in its steady
//! state (warmed up for 3 seconds of game time, so transitions are under
//! way), through the 8-lane fused path on 1 and on all cores, and the
//! scalar reference path on a 1,000-character crowd (the same per
//! character-joint work; 10,000 would take seconds a frame).
//! Throughput is in character-joints (clip joints, 31 per character).
//!
//! Frames run inside the thread pool, one `install` per criterion sample,
//! as the main job and an engine's frame loop run them: entering a pool
//! from outside it costs a cross-thread wake-up, which is not the frame's
//! work and is measured on its own (`crowd/pool_install`).

mod common;
use common::*;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use kineform::crowd::{Crowd, CrowdConfig, ReferenceCrowd, Sampling, Transition};
use kineform::data;
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

fn crowd(c: &mut Criterion) {
    banner("crowd");
    let b = data::default_clip();
    let (clips, skel) = (vec![b.clip], b.skeleton);
    let joints = skel.len();
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
            let mut crowd = Crowd::new(&clips, &skel, cfg.clone()).expect("crowd");
            p.install(|| {
                (0..WARMUP_FRAMES).for_each(|_| {
                    let _ = crowd.step();
                })
            });
            group.bench_function(BenchmarkId::new("lanes", format!("10k_{t}t")), |bch| {
                bch.iter_custom(|iters| {
                    in_pool(&p, iters, || {
                        std::hint::black_box(crowd.step());
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
        let mut reference = ReferenceCrowd::new(&clips, &skel, cfg).expect("crowd");
        p.install(|| {
            (0..WARMUP_FRAMES).for_each(|_| {
                let _ = reference.step();
            })
        });
        group.bench_function(BenchmarkId::new("reference", "1k_1t"), |bch| {
            bch.iter_custom(|iters| {
                in_pool(&p, iters, || {
                    std::hint::black_box(reference.step());
                })
            })
        });
        group.finish();
    }

    // What entering the pool from outside costs per call (the previous
    // form of these benchmarks paid it every frame).
    let mut group = c.benchmark_group("crowd/pool_install");
    for t in [1, threads] {
        let p = pool(t);
        group.bench_function(format!("{t}t"), |bch| bch.iter(|| p.install(|| ())));
    }
    group.finish();
}

criterion_group!(benches, crowd);
criterion_main!(benches);
