//! One group per article family, scalar reference beside 8-lane (one
//! thread), in elements per second: a character-joint for pose operators
//! (1,024 characters on the CMU skeleton), an element for streams (8,192).

mod common;
use common::*;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kineform::batch::looping::{LoopMethod, LoopOptions, make_loop};
use kineform::batch::tracking::{Gains, Targets};
use kineform::batch::{cost, crowd, deadblend, tracking};
use kineform::reference::{self as r, Pose, Quat, Vec3};
use kineform::stream::{CrowdHalflives, CrowdPose, F32Stream, Vec3Stream};
use std::hint::black_box;

const CHARS: usize = 1024;
const N: usize = 8192;

fn catalogue(c: &mut Criterion) {
    banner("catalogue");
    let one = pool(1);
    let mut rng = Rng::new(11);
    let clip = kineform::data::default_clip().clip;
    let j = clip.joints();
    let (p, q, s, ft) = (
        clip.pos_slice(),
        clip.rot_slice(),
        clip.scl_slice(),
        clip.frame_time(),
    );
    let times: Vec<f32> = (0..CHARS)
        .map(|_| rng.range(0.0, clip.last_time()))
        .collect();
    let cj = (CHARS * j) as u64;

    // Propagating velocities: sampling and blending a crowd.
    let mut g = c.benchmark_group("velocities");
    g.throughput(Throughput::Elements(cj));
    let mut out = Pose::new(j);
    g.bench_function("op_sample_linear/reference", |b| {
        b.iter(|| {
            for t in &times {
                r::op_sample_linear(&mut out, p, q, s, black_box(*t), ft).unwrap();
            }
        })
    });
    g.bench_function("op_sample_cubic/reference", |b| {
        b.iter(|| {
            for t in &times {
                r::op_sample_cubic(&mut out, p, q, s, black_box(*t), ft).unwrap();
            }
        })
    });
    let mut lin = CrowdPose::new(CHARS, j).unwrap();
    let mut cub = CrowdPose::new(CHARS, j).unwrap();
    g.bench_function("op_sample_linear/lanes", |b| {
        one.install(|| b.iter(|| crowd::op_sample_linear(&mut lin, &clip, &times).unwrap()))
    });
    g.bench_function("op_sample_cubic/lanes", |b| {
        one.install(|| b.iter(|| crowd::op_sample_cubic(&mut cub, &clip, &times).unwrap()))
    });
    let lin_poses: Vec<Pose> = (0..CHARS).map(|k| lin.pose(k).unwrap()).collect();
    let cub_poses: Vec<Pose> = (0..CHARS).map(|k| cub.pose(k).unwrap()).collect();
    let alpha: Vec<f32> = (0..CHARS).map(|_| rng.range(0.0, 1.0)).collect();
    let av = vec![0.01f32; CHARS];
    g.bench_function("op_blend/reference", |b| {
        b.iter(|| {
            for k in 0..CHARS {
                r::op_blend(
                    &mut out,
                    &lin_poses[k],
                    &cub_poses[k],
                    alpha[k],
                    av[k],
                    1.0 / 60.0,
                )
                .unwrap()
            }
        })
    });
    let mut bl = CrowdPose::new(CHARS, j).unwrap();
    g.bench_function("op_blend/lanes", |b| {
        one.install(|| {
            b.iter(|| crowd::op_blend(&mut bl, &lin, &cub, &alpha, &av, 1.0 / 60.0).unwrap())
        })
    });
    g.finish();

    // Dead blending a crowd.
    let mut g = c.benchmark_group("deadblend");
    g.throughput(Throughput::Elements(cj));
    let (mut o2, mut e2) = (Pose::new(j), Pose::new(j));
    let mut path2 = vec![r::Quat::IDENTITY; j];
    g.bench_function("op_dead_blending/reference", |b| {
        b.iter(|| {
            for k in 0..CHARS {
                r::op_dead_blending(
                    &mut o2,
                    &mut e2,
                    &mut path2,
                    &lin_poses[k],
                    &cub_poses[k],
                    0.2,
                    times[k] * 0.1,
                    0.5,
                    1.0 / 60.0,
                )
                .unwrap()
            }
        })
    });
    let (mut db, mut dx) = (
        CrowdPose::new(CHARS, j).unwrap(),
        CrowdPose::new(CHARS, j).unwrap(),
    );
    let mut path = vec![kineform::lanes::Quatx8::IDENTITY; db.lanes().len()];
    let bt: Vec<f32> = times.iter().map(|t| t * 0.1).collect();
    g.bench_function("op_dead_blending/lanes", |b| {
        one.install(|| {
            b.iter(|| {
                crowd::op_dead_blending(
                    &mut db,
                    &mut dx,
                    &mut path,
                    &lin,
                    &cub,
                    0.2,
                    &bt,
                    0.5,
                    1.0 / 60.0,
                )
                .unwrap()
            })
        })
    });
    // Per-joint, per-axis half-lives fitted at a transition (from the
    // linear sample toward the cubic one), the article's defaults.
    let (mut hp, mut hr) = (vec![Vec3::ZERO; j], vec![Vec3::ZERO; j]);
    g.bench_function("fit_halflives/reference", |b| {
        b.iter(|| {
            for k in 0..CHARS {
                let (s, d) = (&lin_poses[k], &cub_poses[k]);
                r::fit_halflives(
                    &mut hp, &mut hr, &s.pos, &s.vel, &s.rot, &s.ang, &d.pos, &d.rot, 0.3, 0.1,
                    1.0, 0.1,
                )
                .unwrap();
                black_box((&hp, &hr));
            }
        })
    });
    let mut fitted = CrowdHalflives::new(CHARS, j).unwrap();
    g.bench_function("fit_halflives/lanes", |b| {
        one.install(|| {
            b.iter(|| {
                deadblend::fit_halflives(&mut fitted, &lin, &cub, 0.3, 0.1, 1.0, 0.1).unwrap()
            })
        })
    });
    g.finish();

    // Transition cost: features of a database, displacements.
    let mut g = c.benchmark_group("cost");
    g.throughput(Throughput::Elements(N as u64));
    let pos: Vec<Vec3> = (0..N).map(|_| rng.vec3(1.0)).collect();
    let vel: Vec<Vec3> = (0..N).map(|_| rng.vec3(5.0)).collect();
    let mut fo = vec![Vec3::ZERO; N];
    g.bench_function("transition_features_spring/reference", |b| {
        b.iter(|| {
            for k in 0..N {
                fo[k] = r::transition_feature_spring(pos[k], vel[k], black_box(0.15))
            }
        })
    });
    let (ps, vs) = (
        Vec3Stream::from_elems(&pos).unwrap(),
        Vec3Stream::from_elems(&vel).unwrap(),
    );
    let mut fs = Vec3Stream::new(N).unwrap();
    g.bench_function("transition_features_spring/lanes", |b| {
        one.install(|| {
            b.iter(|| cost::transition_features_spring(&mut fs, &ps, &vs, black_box(0.15)).unwrap())
        })
    });
    let (x, v): (Vec<f32>, Vec<f32>) = (
        pos.iter().map(|p| p.x).collect(),
        vel.iter().map(|p| p.y).collect(),
    );
    let mut d = vec![0.0f32; N];
    g.bench_function("decay_spring_damper_displacement/reference", |b| {
        b.iter(|| {
            for k in 0..N {
                d[k] = r::decay_spring_damper_displacement(x[k], v[k], black_box(0.15))
            }
        })
    });
    let (xs, vs1) = (
        F32Stream::from_elems(&x).unwrap(),
        F32Stream::from_elems(&v).unwrap(),
    );
    let mut ds = F32Stream::new(N).unwrap();
    g.bench_function("decay_spring_damper_displacement/lanes", |b| {
        one.install(|| {
            b.iter(|| {
                cost::decay_spring_damper_displacement(&mut ds, &xs, &vs1, black_box(0.15)).unwrap()
            })
        })
    });
    g.bench_function("decay_cubic_displacement/reference", |b| {
        b.iter(|| {
            for k in 0..N {
                d[k] = r::decay_cubic_displacement(x[k], v[k], black_box(0.3))
            }
        })
    });
    g.bench_function("decay_cubic_displacement/lanes", |b| {
        one.install(|| {
            b.iter(|| cost::decay_cubic_displacement(&mut ds, &xs, &vs1, black_box(0.3)).unwrap())
        })
    });
    g.finish();

    // Tracking springs over a stream of signals.
    let mut g = c.benchmark_group("tracking");
    g.throughput(Throughput::Elements(N as u64));
    let tv: Vec<f32> = v.iter().map(|v| v * 0.1).collect();
    let ta: Vec<f32> = x.iter().map(|x| -x).collect();
    let (mut sx, mut sv) = (x.clone(), vec![0.0f32; N]);
    g.bench_function("tracking_spring_update_exact/reference", |b| {
        b.iter(|| {
            for k in 0..N {
                (sx[k], sv[k]) = r::tracking_spring_update_exact(
                    sx[k],
                    sv[k],
                    x[k],
                    tv[k],
                    ta[k],
                    0.01,
                    0.2,
                    1.0,
                    black_box(1.0 / 60.0),
                    1.0 / 60.0,
                )
            }
        })
    });
    g.bench_function("tracking_spring_update/reference", |b| {
        b.iter(|| {
            for k in 0..N {
                (sx[k], sv[k]) = r::tracking_spring_update(
                    sx[k],
                    sv[k],
                    x[k],
                    tv[k],
                    ta[k],
                    0.01,
                    0.2,
                    1.0,
                    black_box(1.0 / 60.0),
                )
            }
        })
    });
    let (tx8, tv8, ta8) = (
        F32Stream::from_elems(&x).unwrap(),
        F32Stream::from_elems(&tv).unwrap(),
        F32Stream::from_elems(&ta).unwrap(),
    );
    let targets = Targets {
        x: &tx8,
        v: &tv8,
        a: &ta8,
    };
    let (mut xs8, mut vs8) = (
        F32Stream::from_elems(&x).unwrap(),
        F32Stream::new(N).unwrap(),
    );
    let gains = Gains {
        x: 0.01,
        v: 0.2,
        a: 1.0,
    };
    g.bench_function("tracking_spring_update_exact/lanes", |b| {
        one.install(|| {
            b.iter(|| {
                tracking::tracking_spring_update_exact(
                    &mut xs8,
                    &mut vs8,
                    &targets,
                    gains,
                    black_box(1.0 / 60.0),
                    1.0 / 60.0,
                )
                .unwrap()
            })
        })
    });
    g.bench_function("tracking_spring_update/lanes", |b| {
        one.install(|| {
            b.iter(|| {
                tracking::tracking_spring_update(
                    &mut xs8,
                    &mut vs8,
                    &targets,
                    gains,
                    black_box(1.0 / 60.0),
                )
                .unwrap()
            })
        })
    });
    g.finish();

    // Looping: the whole embedded clip (277 frames x 31 joints), rotations
    // and positions, cubic offsets.
    let mut g = c.benchmark_group("looping");
    g.throughput(Throughput::Elements((clip.frames() * j) as u64));
    let n = clip.frames();
    g.bench_function("cubic_loop/reference", |b| {
        b.iter(|| {
            let (mut dr, mut dw) = (vec![Vec3::ZERO; j], vec![Vec3::ZERO; j]);
            r::compute_start_end_rotational_difference(&mut dr, &mut dw, q, ft).unwrap();
            let (mut dp, mut dv) = (vec![Vec3::ZERO; j], vec![Vec3::ZERO; j]);
            r::compute_start_end_positional_difference(&mut dp, &mut dv, p, ft).unwrap();
            let mut off = vec![Vec3::ZERO; n * j];
            r::compute_inertialize_both_offsets_cubic(&mut off, &dr, &dw, 0.25, 0.25, 0.5, ft)
                .unwrap();
            let mut outq = vec![Quat::IDENTITY; n * j];
            r::apply_rotational_offsets(&mut outq, q, &off).unwrap();
            r::compute_inertialize_both_offsets_cubic(&mut off, &dp, &dv, 0.25, 0.25, 0.5, ft)
                .unwrap();
            let mut outp = vec![Vec3::ZERO; n * j];
            r::apply_positional_offsets(&mut outp, p, &off).unwrap();
            black_box((outq, outp))
        })
    });
    let opts = LoopOptions {
        method: LoopMethod::Cubic {
            blendtime_start: 0.25,
            blendtime_end: 0.25,
        },
        ratio: 0.5,
        root_in_character_space: false,
    };
    g.bench_function("cubic_loop/lanes", |b| {
        b.iter(|| make_loop(&clip, &opts).unwrap())
    });
    g.finish();
}

criterion_group!(benches, catalogue);
criterion_main!(benches);
