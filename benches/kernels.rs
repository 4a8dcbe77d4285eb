//! Per-element kernels over streams, elements per second: for each kernel
//! one group with the scalar reference, 8-lane on one thread and 8-lane with
//! rayon on every core. Streams of 8,192 elements: inputs and outputs of
//! each kernel fit in the 512 KB L2 of this machine (the kineform streams of
//! op_inertialize, 3 x 600 KB, do not), so these measure the kernels,
//! not DRAM; benches/fk.rs has streaming rows. The lane rows run the whole
//! timing loop inside the pool (`install` once), so each batch call starts
//! on a pool thread like a real caller's frame job, instead of paying a
//! cross-thread wakeup per call.

mod common;
use common::*;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use kineform::batch;
use kineform::reference::{self as r, Kform, Pose, Quat, Vec3};
use kineform::stream::{F32Stream, KformStream, QuatStream, Vec3Stream};
use std::hint::black_box;

const N: usize = 8_192;
const H: f32 = 0.15;
const DT: f32 = 1.0 / 60.0;
const H_LONG: f32 = 1000.0;

fn kernels(c: &mut Criterion) {
    banner("kernels");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (one, all) = (pool(1), pool(threads));
    let mut rng = Rng::new(3);
    let xs: Vec<f32> = (0..N).map(|_| rng.range(-10.0, 10.0)).collect();
    let gs: Vec<f32> = (0..N).map(|_| rng.range(-10.0, 10.0)).collect();
    let vs3: Vec<Vec3> = (0..N).map(|_| rng.vec3(5.0)).collect();
    let ws3: Vec<Vec3> = (0..N).map(|_| rng.vec3(5.0)).collect();
    let qs: Vec<Quat> = (0..N).map(|_| rng.quat()).collect();

    // damper_exact: x moves toward its own goal.
    let mut g = c.benchmark_group("damper_exact");
    g.throughput(Throughput::Elements(N as u64));
    let mut x = xs.clone();
    g.bench_function("reference", |b| {
        b.iter(|| {
            let (h, dt) = (black_box(H), black_box(DT));
            for (x, g) in x.iter_mut().zip(black_box(&gs)) {
                *x = r::damper_exact(*x, *g, h, dt);
            }
        })
    });
    let mut xs8 = F32Stream::from_elems(&xs).unwrap();
    let gs8 = F32Stream::from_elems(&gs).unwrap();
    for (label, p) in [("lanes", &one), ("lanes+rayon", &all)] {
        g.bench_function(label, |b| {
            p.install(|| b.iter(|| batch::damper_exact(&mut xs8, &gs8, black_box(H), DT).unwrap()))
        });
    }
    g.finish();

    // decay_spring_damper_exact_vec3: offsets and their velocities, in
    // place. A 1000 s half-life keeps the state from decaying to zero over
    // millions of calls (the kernel's work does not depend on the values),
    // so no reset copy is timed.
    let mut g = c.benchmark_group("decay_spring_damper_exact_vec3");
    g.throughput(Throughput::Elements(N as u64));
    let (mut x, mut v) = (vs3.clone(), ws3.clone());
    g.bench_function("reference", |b| {
        b.iter(|| {
            let (h, dt) = (black_box(H_LONG), black_box(DT));
            for (x, v) in x.iter_mut().zip(v.iter_mut()) {
                (*x, *v) = r::decay_spring_damper_exact_vec3(*x, *v, h, dt);
            }
        })
    });
    let (mut x8, mut v8) = (
        Vec3Stream::from_elems(&vs3).unwrap(),
        Vec3Stream::from_elems(&ws3).unwrap(),
    );
    for (label, p) in [("lanes", &one), ("lanes+rayon", &all)] {
        g.bench_function(label, |b| {
            p.install(|| {
                b.iter(|| {
                    batch::decay_spring_damper_exact_vec3(&mut x8, &mut v8, black_box(H_LONG), DT)
                        .unwrap()
                })
            })
        });
    }
    g.finish();

    // quat_exp and quat_log.
    let mut g = c.benchmark_group("quat_exp");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![Quat::IDENTITY; N];
    g.bench_function("reference", |b| {
        b.iter(|| {
            for (o, v) in out.iter_mut().zip(black_box(&vs3)) {
                *o = r::quat_exp(*v);
            }
        })
    });
    let v8 = Vec3Stream::from_elems(&vs3).unwrap();
    let mut q8 = QuatStream::new(N).unwrap();
    for (label, p) in [("lanes", &one), ("lanes+rayon", &all)] {
        g.bench_function(label, |b| {
            p.install(|| b.iter(|| batch::quat_exp(&mut q8, &v8).unwrap()))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("quat_log");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = vec![Vec3::ZERO; N];
    g.bench_function("reference", |b| {
        b.iter(|| {
            for (o, q) in out.iter_mut().zip(black_box(&qs)) {
                *o = r::quat_log(*q);
            }
        })
    });
    let q8 = QuatStream::from_elems(&qs).unwrap();
    let mut l8 = Vec3Stream::new(N).unwrap();
    for (label, p) in [("lanes", &one), ("lanes+rayon", &all)] {
        g.bench_function(label, |b| {
            p.install(|| b.iter(|| batch::quat_log(&mut l8, &q8).unwrap()))
        });
    }
    g.finish();

    // Cubic inertialization of a pose of N joints (offset + input -> output).
    let ka: Vec<Kform> = (0..N).map(|_| rng.kform()).collect();
    let kb: Vec<Kform> = (0..N).map(|_| rng.kform()).collect();
    let (pa, pb) = (Pose::from_kforms(&ka), Pose::from_kforms(&kb));
    let mut off = Pose::new(N);
    r::op_inertialize_offset(&mut off, &pa, &pb).unwrap();
    let mut g = c.benchmark_group("op_inertialize");
    g.throughput(Throughput::Elements(N as u64));
    let mut out = Pose::new(N);
    g.bench_function(BenchmarkId::new("reference", N), |b| {
        b.iter(|| r::op_inertialize(&mut out, &off, &pb, black_box(0.1), 0.3).unwrap())
    });
    let (sa, sb) = (
        KformStream::from_elems(&ka).unwrap(),
        KformStream::from_elems(&kb).unwrap(),
    );
    let mut soff = KformStream::new(N).unwrap();
    batch::op_inertialize_offset(&mut soff, &sa, &sb).unwrap();
    let mut sout = KformStream::new(N).unwrap();
    for (label, p) in [("lanes", &one), ("lanes+rayon", &all)] {
        g.bench_function(BenchmarkId::new(label, N), |b| {
            p.install(|| {
                b.iter(|| {
                    batch::op_inertialize(&mut sout, &soff, &sb, black_box(0.1), 0.3).unwrap()
                })
            })
        });
    }
    g.finish();
}

/// Streams that have settled toward zero goals: 8,192 dampers and tracking
/// springs stepped 20,000 times before timing, so their state is what a
/// long-idle signal holds (without the subnormal flush, subnormals, which
/// x86 handles with microcode assists; with it, zeros). One thread.
fn settled(c: &mut Criterion) {
    use kineform::batch::tracking::{self, Gains, Targets};
    let one = pool(1);
    let zeros = F32Stream::new(N).unwrap();
    let start: Vec<f32> = (0..N).map(|i| 1.0 + (i % 7) as f32).collect();
    let targets = Targets {
        x: &zeros,
        v: &zeros,
        a: &zeros,
    };
    let gains = Gains {
        x: 0.01,
        v: 0.2,
        a: 1.0,
    };
    let mut g = c.benchmark_group("settled");
    g.throughput(Throughput::Elements(N as u64));
    let mut x = F32Stream::from_elems(&start).unwrap();
    let step = |x: &mut F32Stream| batch::damper_exact(x, &zeros, black_box(0.05), DT).unwrap();
    (0..20_000).for_each(|_| step(&mut x));
    g.bench_function("damper_exact toward zero/lanes", |b| {
        one.install(|| b.iter(|| step(&mut x)))
    });
    type Update = fn(&mut F32Stream, &mut F32Stream, &Targets, Gains) -> kineform::Result<()>;
    let updates: [(&str, Update); 3] = [
        ("tracking_spring_update/lanes", |x, v, t, g| {
            tracking::tracking_spring_update(x, v, t, g, black_box(DT))
        }),
        ("tracking_spring_update_improved/lanes", |x, v, t, _| {
            tracking::tracking_spring_update_improved(x, v, t, [1.0, 0.05, 0.0], black_box(DT))
        }),
        ("tracking_spring_update_exact/lanes", |x, v, t, g| {
            tracking::tracking_spring_update_exact(x, v, t, g, black_box(DT), DT)
        }),
    ];
    for (name, update) in updates {
        let (mut x, mut v) = (
            F32Stream::from_elems(&start).unwrap(),
            F32Stream::new(N).unwrap(),
        );
        (0..20_000).for_each(|_| update(&mut x, &mut v, &targets, gains).unwrap());
        g.bench_function(name, |b| {
            one.install(|| b.iter(|| update(&mut x, &mut v, &targets, gains).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(benches, kernels, settled);
criterion_main!(benches);
