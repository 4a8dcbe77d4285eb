//! Readout (issue 27): world poses copied into a caller's memory, against a
//! copy of the bytes written, on 1 and 2 threads. 10,000 characters × 32
//! crowd joints of the embedded CMU clip (a driven crowd, transitions under
//! way), so 320,000 elements: 3.84 MB of positions, 5.12 MB of rotations,
//! 20.5 MB of 4x4 matrices.
//!
//! - `copy/<bytes>B/<t>t`: `copy_from_slice` of as many elements of that
//!   size, split into `t` halves on a pool of `t` threads: the floor.
//! - `positions_into`, `velocities_into`, `angular_velocities_into` into
//!   `[f32; 3]`, `rotations_into` into `[f32; 4]` (`x, y, z, w`), the
//!   whole crowd, on the pool.
//! - `read_world_positions`: every world position read and summed, nothing
//!   written: the reads a readout of positions cannot avoid (96 of each
//!   416-byte pack-joint), against the same copy.
//! - `output_positions`, `output_rotations`, `output_transforms` (into
//!   `[f32; 16]`: a matrix built per element, not a copy) over
//!   `world_packed()`; `stream_write_into`: a `Vec3Stream` of 320,000
//!   elements into `[f32; 3]`.
//! - `transforms_into` (`[f32; 16]`), `skinning_into_4x4` and
//!   `skinning_into_3x4` (`[f32; 12]`): the crowd's matrix readers;
//!   `output_skinning_4x4` and `output_skinning_from_lanes` (a type of the
//!   bench's own, written through `SkinMatrix::from_lanes` as every layout
//!   was before the register transposes): `skinning::skinning_matrices`
//!   over `world_packed()`. Against a copy of the matrices' bytes.
//! - `output_positions_apart`: `output::positions` over the crowd's world
//!   positions copied once into an array of their own in the same
//!   pack-major order (lane vectors of positions only, [`PosLanes`]): what
//!   a positions readout would cost with the world output's fields laid
//!   out apart instead of 416-byte pack-joints (PERF.md, "The world
//!   output's fields apart").
//!
//! `cargo bench --bench readout` runs them under criterion. With
//! `KINEFORM_ROUNDS=9` it runs them instead in 9 interleaved rounds (every
//! case once per round, the best of a few short repetitions) and prints each
//! case's median and its ratio to the copy of its bytes on its threads,
//! taken within each round (median over rounds). `KINEFORM_CASES=a,b`
//! keeps the cases whose names contain `a` or `b` (and their copies);
//! `KINEFORM_CHARACTERS=N` reads `N` characters instead of 10,000;
//! `KINEFORM_HUGE_DEST=1` puts every destination and every copy's source
//! on huge pages (`kineform::pages::huge_vec`), as the crowd's own world
//! rows are.

mod common;
use common::*;

use criterion::{Criterion, Throughput};
use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, Wander, WanderConfig};
use kineform::lanes::{F32x8, Quatx8, Vec3x8};
use kineform::output::{JointLanes, Packed};
use kineform::reference::{Kform, Quat, Vec3};
use kineform::skinning::{self, InverseBind, SkinMatrix};
use kineform::stream::Vec3Stream;
use rayon::prelude::*;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Characters read: 10,000, or `KINEFORM_CHARACTERS` (a readout past the
/// caches, for instance 100,000).
fn characters() -> usize {
    std::env::var("KINEFORM_CHARACTERS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000)
}

/// One joint's positions of eight characters alone (a world output whose
/// fields lie apart), for [`kineform::output`]'s copies.
#[derive(Clone, Copy)]
struct PosLanes(Vec3x8);

impl JointLanes for PosLanes {
    fn positions(&self) -> Vec3x8 {
        self.0
    }
    fn rotations(&self) -> Quatx8 {
        Quatx8::IDENTITY
    }
}

struct Case {
    name: String,
    bytes: usize,
    pool: Arc<rayon::ThreadPool>,
    /// Index of the copy case of the same bytes and threads.
    copy: Option<usize>,
    run: Box<dyn FnMut() + Send>,
}

impl Case {
    fn time(&mut self, iters: u64) -> Duration {
        let run = &mut self.run;
        self.pool.install(move || {
            let t = Instant::now();
            for _ in 0..iters {
                run();
            }
            t.elapsed()
        })
    }

    /// The best microseconds per run of repetitions of about 1 ms filling
    /// `budget` (short, so that most miss the other tenants' time slices).
    fn best(&mut self, budget: Duration) -> f64 {
        let once = self.time(1).max(Duration::from_nanos(100));
        let iters = (Duration::from_millis(1).as_nanos() / once.as_nanos()).max(1) as u64;
        let reps = (budget.as_nanos() / (once.as_nanos() * iters as u128)).clamp(5, 100);
        (0..reps)
            .map(|_| self.time(iters).as_secs_f64() * 1e6 / iters as f64)
            .fold(f64::INFINITY, f64::min)
    }
}

/// `n` copies of `e` for a copy's or a reader's destination: on huge
/// pages (`kineform::pages::huge_vec`) when `KINEFORM_HUGE_DEST=1`, so
/// that both sides of a ratio are; the global allocator's pages
/// otherwise.
fn buf<E: Clone>(n: usize, e: E) -> Vec<E> {
    match std::env::var("KINEFORM_HUGE_DEST").is_ok_and(|v| v == "1") {
        true => kineform::pages::huge_vec(n, e).expect("buffer"),
        false => vec![e; n],
    }
}

/// `dst = src` in `threads` halves (one per thread of the pool it runs on).
fn copy<E: Copy + Send + Sync>(dst: &mut [E], src: &[E], threads: usize) {
    let per = dst.len().div_ceil(threads);
    dst.par_chunks_mut(per)
        .zip(src.par_chunks(per))
        .for_each(|(d, s)| d.copy_from_slice(black_box(s)));
}

/// The floor: a copy of `n` elements `e` (a value that is not all zero
/// bits). The source must be memory of its own: a vector of zeros is
/// allocated zeroed (`calloc`), whose untouched pages Linux maps to its
/// one shared zero page, so a copy from it reads one 4 KiB page from L1
/// and times the writes alone. It did until 2026-12-07: on an Intel Xeon
/// (family 6 model 207) that copy took 139 µs for 3.84 MB where a copy
/// from written memory takes 263 to 273 µs (PERF.md, "On an Intel Xeon").
fn copy_case<E: Copy + Send + Sync + 'static>(
    cases: &mut Vec<Case>,
    n: usize,
    e: E,
    pool: &Arc<rayon::ThreadPool>,
) -> usize {
    let t = pool.current_num_threads();
    let (src, mut dst) = (buf(n, e), buf(n, e));
    cases.push(Case {
        name: format!("copy/{}B/{t}t", size_of::<E>()),
        bytes: n * size_of::<E>(),
        pool: pool.clone(),
        copy: None,
        run: Box::new(move || copy(&mut dst, &src, t)),
    });
    cases.len() - 1
}

/// A readout case `name` on `pool`, writing `bytes`, measured against the
/// copy case `copy`.
fn read_case(
    cases: &mut Vec<Case>,
    name: &str,
    pool: &Arc<rayon::ThreadPool>,
    (bytes, copy): (usize, usize),
    run: impl FnMut() + Send + 'static,
) {
    cases.push(Case {
        name: format!("{name}/{}t", pool.current_num_threads()),
        bytes,
        pool: pool.clone(),
        copy: Some(copy),
        run: Box::new(run),
    });
}

/// A 4x4 skinning matrix of the bench's own: no fast path knows it, so
/// it is written lane by lane through `from_lanes`, as every layout was
/// before the register transposes.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Lanes16([f32; 16]);
impl SkinMatrix for Lanes16 {
    fn from_lanes(m: &[[f32; 8]; 12], lane: usize) -> Lanes16 {
        Lanes16(<[f32; 16]>::from_lanes(m, lane))
    }
}

/// A bind pose with every joint elsewhere, turned and scaled.
fn some_bind(crowd: &Crowd) -> InverseBind {
    let local: Vec<Kform> = (0..crowd.skeleton().len())
        .map(|j| {
            let a = 0.3 + j as f32 * 0.17;
            Kform {
                pos: Vec3::new(a, 1.0 - a, 0.5 * a),
                rot: kineform::reference::quat_normalize(Quat::new(1.0, a, -0.5 * a, 0.25)),
                scl: Vec3::new(1.0 + 0.1 * a, 1.0, 0.9),
                ..Kform::IDENTITY
            }
        })
        .collect();
    InverseBind::from_bind_pose(crowd.skeleton(), &local).expect("bind")
}

fn all_cases() -> Vec<Case> {
    let chars = characters();
    let library = ClipLibrary::from_bvh(&kineform::data::default_clip()).expect("library");
    let cfg = CrowdConfig {
        characters: chars,
        ..Default::default()
    };
    let mut crowd = Crowd::new(&library, cfg).expect("crowd");
    let mut wander = Wander::new(chars, WanderConfig::default());
    for _ in 0..120 {
        wander.update(&mut crowd, 1.0 / 60.0).expect("driver");
        crowd.step(1.0 / 60.0).expect("step");
    }
    let crowd = Arc::new(crowd);
    let n = chars * crowd.skeleton().len();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let stream = Arc::new(
        Vec3Stream::from_elems(
            &(0..n)
                .map(|i| Vec3::new(i as f32, 0.5, -(i as f32)))
                .collect::<Vec<_>>(),
        )
        .expect("stream"),
    );
    // The world positions in an array of their own, once for every case
    // that reads them.
    let apart: Arc<Vec<PosLanes>> =
        Arc::new(crowd.world().iter().map(|m| PosLanes(m.pos)).collect());
    let joints = crowd.skeleton().len();
    let mut cases = Vec::new();
    let mut counts = vec![1];
    if threads > 1 {
        counts.push(2);
    }
    for t in counts {
        let p = Arc::new(pool(t));
        let c12 = copy_case(&mut cases, n, [1.0f32; 3], &p);
        let c16 = copy_case(&mut cases, n, [1.0f32; 4], &p);
        let c64 = copy_case(&mut cases, n, [1.0f32; 16], &p);
        let c48 = copy_case(&mut cases, n, [1.0f32; 12], &p);
        type Read = fn(&Crowd, &mut [[f32; 3]]);
        let reads: [(&str, Read); 3] = [
            ("positions_into", |c, o| {
                c.positions_into(0..c.characters(), o).expect("read")
            }),
            ("velocities_into", |c, o| {
                c.velocities_into(0..c.characters(), o).expect("read")
            }),
            ("angular_velocities_into", |c, o| {
                c.angular_velocities_into(0..c.characters(), o)
                    .expect("read")
            }),
        ];
        for (name, read) in reads {
            let (c, mut out) = (crowd.clone(), buf(n, [0.0f32; 3]));
            read_case(&mut cases, name, &p, (n * 12, c12), move || {
                read(&c, &mut out)
            });
        }
        // The reads alone: every world position summed, nothing written
        // (the part of the readout no transpose can remove).
        let c = crowd.clone();
        read_case(
            &mut cases,
            "read_world_positions",
            &p,
            (n * 12, c12),
            move || {
                let sum = c
                    .world()
                    .par_chunks(32 * c.skeleton().len())
                    .map(|w| {
                        w.iter()
                            .fold(F32x8::ZERO, |a, m| a + m.pos.x + m.pos.y + m.pos.z)
                    })
                    .reduce(|| F32x8::ZERO, |a, b| a + b);
                black_box(sum);
            },
        );
        let (c, mut out) = (crowd.clone(), buf(n, [0.0f32; 4]));
        read_case(&mut cases, "rotations_into", &p, (n * 16, c16), move || {
            c.rotations_into(0..chars, &mut out).expect("read")
        });
        let (c, mut out) = (crowd.clone(), buf(n, Vec3::ZERO));
        read_case(
            &mut cases,
            "output_positions",
            &p,
            (n * 12, c12),
            move || kineform::output::positions(c.world_packed(), &mut out).expect("read"),
        );
        let (c, mut out) = (crowd.clone(), buf(n, [0.0f32; 4]));
        read_case(
            &mut cases,
            "output_rotations",
            &p,
            (n * 16, c16),
            move || kineform::output::rotations(c.world_packed(), &mut out).expect("read"),
        );
        let (c, mut out) = (crowd.clone(), buf(n, [0.0f32; 16]));
        read_case(
            &mut cases,
            "output_transforms",
            &p,
            (n * 64, c64),
            move || kineform::output::transforms(c.world_packed(), &mut out).expect("read"),
        );
        let (a, mut out) = (apart.clone(), buf(n, [0.0f32; 3]));
        read_case(
            &mut cases,
            "output_positions_apart",
            &p,
            (n * 12, c12),
            move || {
                let packed = Packed::new(&a[..], chars, joints).expect("packs");
                kineform::output::positions(packed, &mut out).expect("read")
            },
        );
        // World transforms and skinning matrices of the pose shown
        // (the crowd's readers), and the skinning matrices over the packed
        // world through the transposes and through `from_lanes` (what every
        // layout took before; a type of the bench's own takes it still).
        let (c, mut out) = (crowd.clone(), buf(n, [0.0f32; 16]));
        read_case(
            &mut cases,
            "transforms_into",
            &p,
            (n * 64, c64),
            move || c.transforms_into(0..chars, &mut out).expect("read"),
        );
        let bind = Arc::new(some_bind(&crowd));
        let (c, b, mut out) = (crowd.clone(), bind.clone(), buf(n, [0.0f32; 16]));
        read_case(
            &mut cases,
            "skinning_into_4x4",
            &p,
            (n * 64, c64),
            move || {
                c.skinning_matrices_into(0..chars, &b, &mut out)
                    .expect("read")
            },
        );
        let (c, b, mut out) = (crowd.clone(), bind.clone(), buf(n, [0.0f32; 12]));
        read_case(
            &mut cases,
            "skinning_into_3x4",
            &p,
            (n * 48, c48),
            move || {
                c.skinning_matrices_into(0..chars, &b, &mut out)
                    .expect("read")
            },
        );
        let (c, b, mut out) = (crowd.clone(), bind.clone(), buf(n, [0.0f32; 16]));
        read_case(
            &mut cases,
            "output_skinning_4x4",
            &p,
            (n * 64, c64),
            move || skinning::skinning_matrices(c.world_packed(), &b, &mut out).expect("read"),
        );
        let (c, b, mut out) = (crowd.clone(), bind.clone(), buf(n, Lanes16([0.0; 16])));
        read_case(
            &mut cases,
            "output_skinning_from_lanes",
            &p,
            (n * 64, c64),
            move || skinning::skinning_matrices(c.world_packed(), &b, &mut out).expect("read"),
        );
        let (s, mut out) = (stream.clone(), buf(n, [0.0f32; 3]));
        read_case(
            &mut cases,
            "stream_write_into",
            &p,
            (n * 12, c12),
            move || s.write_into(&mut out).expect("read"),
        );
    }
    cases
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn rounds(n: usize, cases: &mut [Case], keep: &dyn Fn(&str) -> bool) {
    let mut needed: Vec<bool> = cases.iter().map(|c| keep(&c.name)).collect();
    for c in cases.iter().filter(|c| keep(&c.name)) {
        if let Some(i) = c.copy {
            needed[i] = true;
        }
    }
    let mut times = vec![Vec::new(); cases.len()];
    for round in 0..n {
        for (i, c) in cases.iter_mut().enumerate() {
            if needed[i] {
                times[i].push(c.best(Duration::from_millis(150)));
            }
        }
        eprintln!("[readout] round {} of {n} done", round + 1);
    }
    println!(
        "| case | µs (median) | GB/s written | ratio to the copy of its bytes (median of rounds) |"
    );
    println!("| --- | --- | --- | --- |");
    for (i, c) in cases.iter().enumerate() {
        if !needed[i] {
            continue;
        }
        let med = median(times[i].clone());
        let gbs = c.bytes as f64 / med / 1e3;
        let ratio = c.copy.map_or(String::new(), |k| {
            let r = median((0..n).map(|r| times[i][r] / times[k][r]).collect());
            format!("{r:.2}")
        });
        println!("| {} | {med:.1} | {gbs:.1} | {ratio} |", c.name);
    }
}

fn main() {
    banner("readout");
    let filter = std::env::var("KINEFORM_CASES").unwrap_or_default();
    let keep = move |name: &str| filter.split(',').any(|f| name.contains(f));
    let mut cases = all_cases();
    if let Some(n) = std::env::var("KINEFORM_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        rounds(n, &mut cases, &keep);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("readout");
    for case in cases.iter_mut().filter(|c| keep(&c.name)) {
        g.throughput(Throughput::Bytes(case.bytes as u64));
        let name = case.name.clone();
        g.bench_function(name, |b| b.iter_custom(|iters| case.time(iters)));
    }
    g.finish();
    c.final_summary();
}
