//! Forward kinematics with velocities (op_fk semantics), ns per
//! character-joint: the scalar reference, 8-lane on one thread and 8-lane
//! with rayon, on the 31-joint CMU skeleton and a 100-joint synthetic one,
//! 10,000 characters, with data in cache (one pack reused) and streaming
//! (every character its own data).

mod common;
use common::*;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use kineform::lanes::{self, Kformx8};
use kineform::reference::{self as r, Pose};
use kineform::skinning::{self, InverseBind};
use kineform::stream::CrowdPose;
use kineform::{Skeleton, batch};
use std::hint::black_box;

const CHARACTERS: usize = 10_000;

fn fk(c: &mut Criterion) {
    banner("fk");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let one = pool(1);
    let all = pool(threads);
    for (name, skel) in [
        ("cmu31", cmu_skeleton()),
        ("synthetic100", synthetic_skeleton(100)),
    ] {
        let joints = skel.len();
        let parents = skel.parents().to_vec();
        let mut group = c.benchmark_group(format!("fk/{name}"));
        group.throughput(Throughput::Elements((CHARACTERS * joints) as u64));
        let mut rng = Rng::new(7);

        // In cache: one character (scalar) or one pack (lanes) reused.
        let local = random_pose(&mut rng, joints);
        let mut global = Pose::new(joints);
        group.bench_function(BenchmarkId::new("reference", "cache"), |b| {
            b.iter(|| {
                for _ in 0..CHARACTERS {
                    r::op_fk(&mut global, black_box(&local), &parents).unwrap();
                }
            })
        });
        let pack = random_pack(&mut rng, joints);
        let mut out = vec![Kformx8::IDENTITY; joints];
        group.bench_function(BenchmarkId::new("lanes", "cache"), |b| {
            b.iter(|| {
                for _ in 0..CHARACTERS / 8 {
                    lanes::op_fk(&mut out, black_box(&pack), &parents).unwrap();
                }
            })
        });

        // Streaming: every character its own local and global pose.
        let locals: Vec<Pose> = (0..CHARACTERS)
            .map(|_| random_pose(&mut rng, joints))
            .collect();
        let mut globals: Vec<Pose> = (0..CHARACTERS).map(|_| Pose::new(joints)).collect();
        group.bench_function(BenchmarkId::new("reference", "stream"), |b| {
            b.iter(|| {
                for (g, l) in globals.iter_mut().zip(&locals) {
                    r::op_fk(g, l, &parents).unwrap();
                }
            })
        });
        let crowd_local = CrowdPose::from_poses(&locals, joints).expect("crowd");
        let mut crowd_global = CrowdPose::new(CHARACTERS, joints).unwrap();
        for (label, p) in [("lanes", &one), ("lanes+rayon", &all)] {
            group.bench_function(BenchmarkId::new(label, "stream"), |b| {
                p.install(|| {
                    b.iter(|| {
                        batch::crowd::op_fk(&mut crowd_global, &crowd_local, &skel).expect("fk")
                    })
                })
            });
        }
        group.finish();
        let _: &Skeleton = &skel;
    }
}

/// Skinning matrices (world × inverse bind, `kineform::skinning`) against
/// FK alone, on the CMU skeleton, 10,000 characters, all threads: FK, FK
/// then 4x4 matrices, FK then 3x4 rows, and the matrices alone.
fn skinning(c: &mut Criterion) {
    banner("skinning");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let all = pool(threads);
    let skel = cmu_skeleton();
    let joints = skel.len();
    let mut rng = Rng::new(11);
    let locals: Vec<Pose> = (0..CHARACTERS)
        .map(|_| random_pose(&mut rng, joints))
        .collect();
    let local = CrowdPose::from_poses(&locals, joints).expect("crowd");
    let mut world = CrowdPose::new(CHARACTERS, joints).unwrap();
    let bind = InverseBind::from_bind_pose(&skel, &locals[0].to_kforms()).expect("bind");
    let mut m4 = vec![[0.0f32; 16]; CHARACTERS * joints];
    let mut m3 = vec![[0.0f32; 12]; CHARACTERS * joints];
    let mut group = c.benchmark_group("skinning/cmu31");
    group.throughput(Throughput::Elements((CHARACTERS * joints) as u64));
    group.bench_function("fk", |b| {
        all.install(|| b.iter(|| batch::crowd::op_fk(&mut world, &local, &skel).expect("fk")))
    });
    group.bench_function("fk+4x4", |b| {
        all.install(|| {
            b.iter(|| {
                batch::crowd::op_fk(&mut world, &local, &skel).expect("fk");
                skinning::skinning_matrices(world.packed(), &bind, &mut m4).expect("skin")
            })
        })
    });
    group.bench_function("fk+3x4", |b| {
        all.install(|| {
            b.iter(|| {
                batch::crowd::op_fk(&mut world, &local, &skel).expect("fk");
                skinning::skinning_matrices(world.packed(), &bind, &mut m3).expect("skin")
            })
        })
    });
    group.bench_function("4x4 alone", |b| {
        all.install(|| {
            b.iter(|| skinning::skinning_matrices(world.packed(), &bind, &mut m4).expect("skin"))
        })
    });
    group.finish();
}

criterion_group!(benches, fk, skinning);
criterion_main!(benches);
