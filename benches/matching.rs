//! Motion-matching search throughput (issue 26, item 5): queries per
//! second of the brute-force and the accelerated search against database
//! size, on one and two threads.
//!
//! The database is the shipped one (the five CMU clips of `data/mocap`
//! and their mirror images, 9,060 frames at 60 Hz, 8,854 searched; the
//! demo's 27 features, or the article's spring feature, 21) and copies of
//! its clips 4 and 16 times over (36,240 and 144,960 frames).
//!
//! - `matching/<set>/<method>/<n>x/<t>t`: one batch of [`QUERIES`]
//!   queries, each a character playing a searched frame (its pose
//!   features, seeded with it) and asked to turn by up to 90 degrees and
//!   change speed by up to half (its own trajectory turned and scaled
//!   about it): [`turned`].
//! - `matching/mixed_<set>/...`: the pessimistic case, a frame's pose with the
//!   trajectory of another frame anywhere in the database.
//! - `matching/demo/reference/1x/1t`: the scalar reference, for scale.
//!
//! After each row its process CPU time per query is printed beside the
//! wall time (`[matching] ... ns CPU a query`): this machine is shared,
//! and the CPU time is what the search itself cost (on two threads it
//! adds both threads' time, so it shows the parallel overhead, not the
//! speed-up; the wall time shows that where two cores are free).
//! Before each group the accelerated search's work per query is printed
//! (box packs bounded and frame packs compared, of the packs a
//! brute force reads). Throughput is in queries. A batch runs inside a pool of `t` threads,
//! one `install` per criterion sample, as a crowd's frame would.

mod common;
use common::*;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use kineform::crowd::ClipLibrary;
use kineform::matching::{
    self, FootFeatures, Match, MatchConfig, MatchDatabase, MirrorMap, QueryBatch, TrajectoryPoint,
    search,
};
use kineform::reference::Vec3;
use std::time::{Duration, Instant};

/// Queries per batch.
const QUERIES: usize = 512;

fn library(copies: usize) -> ClipLibrary {
    let load = |f: &str| {
        kineform::bvh::load(format!("{}/data/mocap/{f}", env!("CARGO_MANIFEST_DIR")))
            .expect("shipped clip")
    };
    let mut lib = ClipLibrary::from_bvh(&kineform::data::default_clip()).expect("library");
    for f in [
        "cmu_01_01_mb.bvh",
        "cmu_01_03_mb.bvh",
        "cmu_12_01_walk_mb.bvh",
        "cmu_131_01_max.bvh",
    ] {
        lib.add_cmu(&load(f)).expect("CMU clip");
    }
    let map = MirrorMap::cmu(lib.skeleton()).expect("mirror map");
    matching::add_mirrored(&mut lib, &map).expect("mirrored");
    let (skeleton, clips) = (lib.skeleton().clone(), lib.clips().to_vec());
    for _ in 1..copies {
        for c in &clips {
            lib.add(&skeleton, c).expect("copy");
        }
    }
    lib
}

/// Characters playing searched frames of the shipped database, asked to
/// turn by up to 90 degrees either way and to go 0.5 to 1.5 times as far.
fn turned(db: &MatchDatabase, lib: &ClipLibrary, n: usize) -> QueryBatch {
    let inputs = MatchDatabase::frame_inputs(lib, db.config()).expect("inputs");
    let mut rng = Rng::new(26);
    let mut batch = QueryBatch::new(db);
    while batch.len() < n {
        let f = (rng.f32() * inputs.len() as f32) as usize % inputs.len();
        if !db.searchable(f) {
            continue;
        }
        let i = &inputs[f];
        let (turn, scale) = (rng.range(-1.57, 1.57), rng.range(0.5, 1.5));
        let (s, c) = turn.sin_cos();
        let rot = |v: Vec3| Vec3::new(c * v.x + s * v.z, 0.0, c * v.z - s * v.x);
        let trajectory = i.trajectory.map(|t| {
            let local = i.frame.to_local(t.pos);
            TrajectoryPoint {
                pos: i.frame.to_world(rot(local) * scale),
                facing: i.frame.dir_to_world(rot(i.frame.dir_to_local(t.facing))),
            }
        });
        batch
            .push_frame(db, f, &i.frame, &trajectory)
            .expect("query");
    }
    batch
}

/// A searched frame's pose with another frame's trajectory.
fn mixed(db: &MatchDatabase, lib: &ClipLibrary, n: usize) -> QueryBatch {
    let inputs = MatchDatabase::frame_inputs(lib, db.config()).expect("inputs");
    let mut rng = Rng::new(7);
    let mut batch = QueryBatch::new(db);
    while batch.len() < n {
        let pick = |rng: &mut Rng| (rng.f32() * inputs.len() as f32) as usize % inputs.len();
        let (f, g) = (pick(&mut rng), pick(&mut rng));
        if !db.searchable(f) {
            continue;
        }
        let (a, b) = (&inputs[f], &inputs[g]);
        let trajectory = b.trajectory.map(|t| TrajectoryPoint {
            pos: a.frame.to_world(b.frame.to_local(t.pos)),
            facing: a.frame.dir_to_world(b.frame.dir_to_local(t.facing)),
        });
        batch
            .push_frame(db, f, &a.frame, &trajectory)
            .expect("query");
    }
    batch
}

/// What the accelerated search did per query of `batch`, averaged, with
/// the database's frame packs for scale.
fn stats(label: &str, db: &MatchDatabase, batch: &QueryBatch) {
    let mut sum = search::SearchStats::default();
    for i in 0..batch.len() {
        let q = batch.get(i).expect("query");
        let (_, s) = search::accelerated_one(db, q, batch.seed(i)).expect("search");
        sum.box_packs += s.box_packs;
        sum.frame_packs += s.frame_packs;
    }
    let n = batch.len().max(1) as f64;
    eprintln!(
        "[matching] {label}: per query {:.1} box packs, {:.1} frame packs of {}",
        sum.box_packs as f64 / n,
        sum.frame_packs as f64 / n,
        db.searchable_frames().div_ceil(8),
    );
}

/// CPU time used by this process so far (all threads): on a machine
/// shared with other jobs, the time the searches themselves took.
#[cfg(unix)]
fn process_cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec for the call's duration;
    // CLOCK_PROCESS_CPUTIME_ID is supported on Linux, and on failure `t`
    // stays zero (the figure then reads as zero, never as garbage).
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// No process CPU clock here: the CPU figures read zero.
#[cfg(not(unix))]
fn process_cpu_time() -> Duration {
    Duration::ZERO
}

type Search = fn(&MatchDatabase, &QueryBatch, &mut [Match]) -> kineform::Result<()>;

fn bench_batch(
    c: &mut Criterion,
    group: &str,
    db: &MatchDatabase,
    batch: &QueryBatch,
    runs: &[(&str, Search, usize, usize)],
) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(batch.len() as u64));
    let mut out = vec![
        Match {
            frame: 0,
            distance: 0.0
        };
        batch.len()
    ];
    for &(method, f, copies, threads) in runs {
        let p = pool(threads);
        let id = format!("{method}/{copies}x/{threads}t");
        let (mut cpu, mut wall, mut searched) = (Duration::ZERO, Duration::ZERO, 0u64);
        g.bench_function(
            BenchmarkId::new(method, format!("{copies}x/{threads}t")),
            |b| {
                b.iter_custom(|iters| {
                    p.install(|| {
                        let c = process_cpu_time();
                        let t = Instant::now();
                        for _ in 0..iters {
                            f(db, batch, &mut out).expect("search");
                        }
                        let e = t.elapsed();
                        cpu += process_cpu_time().saturating_sub(c);
                        wall += e;
                        searched += iters * batch.len() as u64;
                        e
                    })
                })
            },
        );
        if searched == 0 {
            continue; // filtered out
        }
        let per = |d: Duration| d.as_nanos() as f64 / searched as f64;
        eprintln!(
            "[matching] {group}/{id}: {:.0} ns CPU a query ({:.0} ns wall; CPU / wall {:.2})",
            per(cpu),
            per(wall),
            cpu.as_secs_f64() / wall.as_secs_f64().max(1e-9),
        );
    }
    g.finish();
}

fn matching(c: &mut Criterion) {
    banner("matching");
    for (set, feet) in [
        ("demo", FootFeatures::DEMO),
        ("spring", FootFeatures::SPRING),
    ] {
        let base = library(1);
        for copies in [1, 4, 16] {
            let lib = library(copies);
            let db = MatchDatabase::build(&lib, &MatchConfig::with_feet(feet)).expect("database");
            let m = db.memory();
            eprintln!(
                "[matching] {set} {copies}x: {} frames, {} searched, {} bytes ({} a frame)",
                m.frames,
                db.searchable_frames(),
                m.bytes,
                m.bytes_per_frame
            );
            let queries = turned(&db, &base, QUERIES);
            stats(&format!("{set} {copies}x turned"), &db, &queries);
            // Queries whose frames are in the first copy: the same
            // queries at every size.
            let mut runs: Vec<(&str, Search, usize, usize)> = Vec::new();
            for threads in [1, 2] {
                runs.push(("brute", search::brute_force, copies, threads));
                runs.push(("accelerated", search::accelerated, copies, threads));
            }
            if copies == 1 && set == "demo" {
                runs.push(("reference", search::reference, 1, 1));
            }
            bench_batch(c, &format!("matching/{set}"), &db, &queries, &runs);
            if copies == 1 {
                let queries = mixed(&db, &base, QUERIES);
                stats(&format!("{set} {copies}x mixed"), &db, &queries);
                let runs: Vec<(&str, Search, usize, usize)> = vec![
                    ("brute", search::brute_force, 1, 1),
                    ("accelerated", search::accelerated, 1, 1),
                ];
                bench_batch(c, &format!("matching/mixed_{set}"), &db, &queries, &runs);
            }
        }
    }
}

criterion_group!(benches, matching);
criterion_main!(benches);
