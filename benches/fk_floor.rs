//! Forward kinematics of every joint type against its floor (PERF.md, "FK
//! at the floor"), in ns per character-joint on the 31-joint CMU skeleton.
//!
//! - `peak/fma`: one thread's multiply-add throughput (12 independent
//!   chains of `F32x8::mul_add`); the compute floor of a kernel is its
//!   multiplies and multiply-adds at this rate.
//! - `<type>/copy/...`: a copy of exactly the bytes FK of that type reads
//!   and writes, in the same layout, tasks and threads, with FK's loads and
//!   stores (`Jointx8::copy` per joint: it cannot become a `memcpy` call
//!   with non-temporal stores); the memory floor of a kernel is its bytes at
//!   this rate.
//! - `<type>/fk/...`: `batch::fk::op_fk` (the walk its working set
//!   chooses, `batch::fk::walk_for`), and
//!   `<type>/fk_<mode>/...` each mode of `batch::fk::op_fk_with`.
//! - `<type>/scalar/...`: the reference path, `reference::op_fk_joints`,
//!   one character at a time (characters one after another in memory), on
//!   one thread or split over the pool like the lanes.
//! - `crowd_pose/...`: the previous paths over `CrowdPose` (`batch::crowd::
//!   op_fk` and `op_fk_static`, 76 bytes each way, zeros stored).
//!
//! - `<type>/bk/...`: `batch::fk::op_bk`, backward kinematics.
//!
//! In L1: 8 characters (one pack), one thread. In cache: 64 characters (8
//! packs, in L2), one and two threads. Streaming: 40,000 characters (34.7 MB each way for positions and rotations, 94 MB for
//! kineforms: beyond the 32 MB L3), one and two threads.
//!
//! `cargo bench --bench fk_floor` runs these under criterion. With
//! `KINEFORM_ROUNDS=9` it runs them instead in 9 interleaved rounds (every
//! case once per round, the best time of a few repetitions per case and
//! round) and prints each case's median and its ratio to its floor taken
//! within each round: on a VM whose other tenants take a varying share of
//! the cores, a ratio of two figures measured seconds apart says little,
//! and the best of a few short repetitions is the one the other tenants
//! disturbed least. `KINEFORM_CASES=a,b` keeps only the cases whose names
//! contain `a` or `b`; `KINEFORM_NO_STREAM=1` does not even build the
//! streaming cases (for `valgrind --tool=callgrind`).
//!
//! `KINEFORM_SWEEP=1` (with `KINEFORM_ROUNDS`) replaces the sizes with the
//! walk sweep: every type at 64 to 40,000 characters ([`SWEEP`]) on one and
//! two threads, the copy, `op_fk` (the walk the working set chooses) and
//! the walks by name (`fk_mem`: one pack at a time, parents read back;
//! `fk_regs`: one pack, parents in registers; `fk_mem2`: two packs side by
//! side): where a one-pack walk overtakes the pairs is the threshold of
//! `batch::fk::walk_for` (`stream_above_for`; the bench prints this
//! machine's caches and thresholds on 1 and 2 threads first).
//! `KINEFORM_SIZES=1024,2048` sweeps those crowd sizes only.

mod common;
use common::*;

use criterion::{Criterion, Throughput};
use kineform::lanes::{F32x8, FkMode, Jointx8, Kformx8, Motionx8, PosRotSclx8, PosRotx8, Walk};
use kineform::pose_stream::PoseStream;
use kineform::reference::{self as r, Joint};
use kineform::stream::CrowdPose;
use kineform::{Skeleton, batch};
use rayon::prelude::*;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

const IN_CACHE: usize = 64;
const STREAMING: usize = 40_000;
/// Crowd sizes of the walk sweep (`KINEFORM_SWEEP=1`): from 0.3 MB of
/// kineforms (read and written) to 69 MB of positions and rotations and
/// 188 MB of kineforms.
const SWEEP: [usize; 9] = [64, 256, 1024, 2048, 4096, 8192, 16_384, 24_576, 40_000];

const MODES: [(&str, FkMode); 4] = [
    (
        "regs",
        FkMode {
            walk: Walk::Registers,
            pairs: false,
        },
    ),
    (
        "regs2",
        FkMode {
            walk: Walk::Registers,
            pairs: true,
        },
    ),
    (
        "mem",
        FkMode {
            walk: Walk::Memory,
            pairs: false,
        },
    ),
    (
        "mem2",
        FkMode {
            walk: Walk::Memory,
            pairs: true,
        },
    ),
];

/// What a case's time is compared with.
#[derive(Clone, Copy)]
enum Floor {
    /// None (the peak and the copies themselves).
    None,
    /// A kernel of `ops` multiplies and multiply-adds per pack-joint whose
    /// bytes are those of the copy case `copy` (its index), on `threads`.
    Kernel {
        ops: usize,
        copy: usize,
        threads: usize,
    },
}

struct Case {
    name: String,
    /// Character-joints per run.
    elems: usize,
    pool: Option<Arc<rayon::ThreadPool>>,
    floor: Floor,
    run: Box<dyn FnMut() + Send>,
}

impl Case {
    /// Runs `iters` times inside the case's pool (entered once).
    fn time(&mut self, iters: u64) -> Duration {
        let run = &mut self.run;
        let mut go = move || {
            let t = Instant::now();
            for _ in 0..iters {
                run();
            }
            t.elapsed()
        };
        match &self.pool {
            Some(p) => p.install(go),
            None => go(),
        }
    }

    /// The best ns per character-joint of a few repetitions filling about
    /// `budget`.
    fn best(&mut self, budget: Duration) -> f64 {
        let once = self.time(1).max(Duration::from_nanos(100));
        let iters = (Duration::from_millis(2).as_nanos() / once.as_nanos()).max(1) as u64;
        let reps = (budget.as_nanos() / (once.as_nanos() * iters as u128)).clamp(3, 50);
        (0..reps)
            .map(|_| self.time(iters).as_nanos() as f64 / (iters * self.elems as u64) as f64)
            .fold(f64::INFINITY, f64::min)
    }
}

/// `out = inp`, joint by joint with `Jointx8::copy` (the loads and stores
/// of FK without its arithmetic; it cannot become a `memcpy` call with
/// non-temporal stores), in the tasks `batch::fk` cuts: `packs` packs of
/// `joints` joints each, the task size of `batch::fk::op_fk`.
fn copy<T: Jointx8>(out: &mut [T], inp: &[T], per_task: usize) {
    out.par_chunks_mut(per_task)
        .zip(inp.par_chunks(per_task))
        .for_each(|(o, i)| {
            for (o, i) in o.iter_mut().zip(i) {
                T::copy(o, black_box(i));
            }
        });
}

/// `out = inp` with `copy_from_slice` (the C library's `memcpy`) per task
/// of `per_task` joints: a second way to copy the same bytes in the same
/// tasks; the floor takes the faster of the two.
fn memcpy<T: Jointx8>(out: &mut [T], inp: &[T], per_task: usize) {
    out.par_chunks_mut(per_task)
        .zip(inp.par_chunks(per_task))
        .for_each(|(o, i)| o.copy_from_slice(black_box(i)));
}

/// Joints per task of `batch::fk` for `T` (its `chunk` arithmetic: a
/// quarter of `SERIAL_BELOW_NS` of work per task, at 20 ns per kineform
/// pack-joint scaled by size, rounded to an even number of packs).
fn per_task<T: Jointx8>(packs: usize, joints: usize) -> usize {
    let ns = (20 * size_of::<T>() / size_of::<Kformx8>()).max(1) * joints;
    let c = if packs * ns < batch::SERIAL_BELOW_NS {
        packs.max(1)
    } else {
        (batch::SERIAL_BELOW_NS / 4 / ns).max(1)
    };
    c.next_multiple_of(2) * joints
}

/// Ymm multiply-adds per run of `peak/fma`.
const PEAK_FMAS: usize = 12 * 10_000;

fn peak_case() -> Case {
    Case {
        name: "peak/fma".into(),
        elems: PEAK_FMAS,
        pool: None,
        floor: Floor::None,
        run: Box::new(|| {
            let (m, a) = (
                black_box(F32x8::splat(0.999_9)),
                black_box(F32x8::splat(1e-3)),
            );
            let mut acc = [F32x8::splat(1.0); 12];
            for _ in 0..PEAK_FMAS / 12 {
                for x in acc.iter_mut() {
                    *x = x.mul_add(m, a);
                }
            }
            black_box(acc);
        }),
    }
}

/// Multiplies and multiply-adds per pack-joint of `T::mul` (counted in the
/// compiled loops; PERF.md).
fn fma_ops<T: Jointx8>() -> usize {
    match size_of::<T>() / 32 {
        7 => 31,
        10 => 37,
        13 => 67,
        _ => 79,
    }
}

/// Multiplies and multiply-adds per pack-joint of `T::div` (counted in the
/// compiled loops; PERF.md). Divisions are not counted.
fn bk_ops<T: Jointx8>() -> usize {
    match size_of::<T>() / 32 {
        7 => 31,
        10 => 37,
        13 => 67,
        _ => 70,
    }
}

/// The cases of one joint type, appended to `cases`.
fn joint_cases<T: Jointx8>(cases: &mut Vec<Case>, name: &str, skel: &Skeleton) {
    let joints = skel.len();
    let skel = Arc::new(skel.clone());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pools = [1, threads].map(|t| Arc::new(pool(t)));
    let mut rng = Rng::new(11);
    let sweep = std::env::var_os("KINEFORM_SWEEP").is_some();
    let sizes: Vec<usize> = std::env::var("KINEFORM_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| SWEEP.to_vec());
    let labels: Vec<(String, usize)> = if sweep {
        sizes.iter().map(|&n| (format!("n{n}"), n)).collect()
    } else {
        [("l1", 8), ("cache", IN_CACHE), ("stream", STREAMING)]
            .map(|(l, n)| (l.to_string(), n))
            .to_vec()
    };
    let no_stream = std::env::var_os("KINEFORM_NO_STREAM").is_some();
    for (label, chars) in labels
        .into_iter()
        .filter(|l| !no_stream || l.1 != STREAMING)
    {
        let elems: Arc<Vec<T::Elem>> = Arc::new(
            (0..chars * joints)
                .map(|_| T::Elem::from_kform(rng.kform()))
                .collect(),
        );
        let e = elems.clone();
        let local = Arc::new(
            PoseStream::<T>::from_fn(chars, joints, move |c, j| e[c * joints + j]).expect("local"),
        );
        let pools: &[Arc<rayon::ThreadPool>] = if chars == 8 && !sweep {
            &pools[..1]
        } else {
            &pools
        };
        for p in pools {
            let t = p.current_num_threads();
            let id = |what: &str| format!("{name}/{what}/{label}/{t}t");
            let src = local.clone();
            let mut dst = PoseStream::<T>::new(chars, joints).expect("copy");
            let task = per_task::<T>(local.packs(), joints);
            let copy_index = cases.len();
            cases.push(Case {
                name: id("copy"),
                elems: chars * joints,
                pool: Some(p.clone()),
                floor: Floor::None,
                run: Box::new(move || copy(dst.lanes_mut(), src.lanes(), task)),
            });
            let (src, mut dst) = (
                local.clone(),
                PoseStream::<T>::new(chars, joints).expect("copy"),
            );
            cases.push(Case {
                name: id("memcpy"),
                elems: chars * joints,
                pool: Some(p.clone()),
                floor: Floor::None,
                run: Box::new(move || memcpy(dst.lanes_mut(), src.lanes(), task)),
            });
            let floor = Floor::Kernel {
                ops: fma_ops::<T>(),
                copy: copy_index,
                threads: t,
            };
            let modes: &[(&str, Option<FkMode>)] = &[
                ("fk", None),
                ("fk_regs", Some(MODES[0].1)),
                ("fk_regs2", Some(MODES[1].1)),
                ("fk_mem", Some(MODES[2].1)),
                ("fk_mem2", Some(MODES[3].1)),
            ];
            for &(what, mode) in modes {
                let sweep_mode = matches!(what, "fk" | "fk_regs" | "fk_mem" | "fk_mem2");
                if sweep && !sweep_mode
                    || !sweep && mode.is_some() && (chars != IN_CACHE && t == 1 || chars == 8)
                {
                    continue;
                }
                let (l, s) = (local.clone(), skel.clone());
                let mut g = PoseStream::<T>::new(chars, joints).expect("global");
                cases.push(Case {
                    name: id(what),
                    elems: chars * joints,
                    pool: Some(p.clone()),
                    floor,
                    // `fk`: `op_fk` itself, the walk its working set
                    // chooses (`walk_for`); the others each walk by name.
                    run: Box::new(move || match mode {
                        Some(mode) => batch::fk::op_fk_with(&mut g, &l, &s, mode).expect("fk"),
                        None => batch::fk::op_fk(&mut g, &l, &s).expect("fk"),
                    }),
                });
            }
            if sweep {
                continue;
            }
            let (g, s) = (local.clone(), skel.clone());
            let mut l = PoseStream::<T>::new(chars, joints).expect("local");
            cases.push(Case {
                name: id("bk"),
                elems: chars * joints,
                pool: Some(p.clone()),
                floor: Floor::Kernel {
                    ops: bk_ops::<T>(),
                    copy: copy_index,
                    threads: t,
                },
                run: Box::new(move || batch::fk::op_bk(&mut l, &g, &s).expect("bk")),
            });
            let (l, parents) = (elems.clone(), skel.parents().to_vec());
            let mut out = vec![T::Elem::IDENTITY; l.len()];
            cases.push(Case {
                name: id("scalar"),
                elems: chars * joints,
                pool: Some(p.clone()),
                floor,
                run: Box::new(move || {
                    out.par_chunks_mut(joints * 64)
                        .zip(l.par_chunks(joints * 64))
                        .for_each(|(g, l)| {
                            for (g, l) in g.chunks_mut(joints).zip(l.chunks(joints)) {
                                r::op_fk_joints(g, l, &parents).expect("sized");
                            }
                        })
                }),
            });
        }
    }
}

/// The previous paths over `CrowdPose`, compared with the floors of the
/// kineform copy cases.
fn crowd_pose_cases(cases: &mut Vec<Case>, skel: &Skeleton) {
    let joints = skel.len();
    let skel = Arc::new(skel.clone());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut rng = Rng::new(11);
    let no_stream = std::env::var_os("KINEFORM_NO_STREAM").is_some();
    let labels = [("cache", IN_CACHE, 1), ("stream", STREAMING, threads)];
    for (label, chars, t) in labels
        .into_iter()
        .filter(|l| !no_stream || l.1 != STREAMING)
    {
        let copy = cases
            .iter()
            .position(|c| c.name == format!("kform/copy/{label}/{t}t"))
            .expect("kform copy case");
        let mut local = CrowdPose::new(chars, joints).expect("size");
        for ch in 0..chars {
            for j in 0..joints {
                local.set(ch, j, rng.kform());
            }
        }
        let local = Arc::new(local);
        let p = Arc::new(pool(t));
        for (what, ops, stat) in [("op_fk", 79, false), ("op_fk_static", 37, true)] {
            let (l, s) = (local.clone(), skel.clone());
            let mut g = CrowdPose::new(chars, joints).expect("size");
            cases.push(Case {
                name: format!("crowd_pose/{what}/{label}/{t}t"),
                elems: chars * joints,
                pool: Some(p.clone()),
                floor: Floor::Kernel {
                    ops,
                    copy,
                    threads: t,
                },
                run: Box::new(move || {
                    if stat {
                        batch::crowd::op_fk_static(&mut g, &l, &s).expect("fk")
                    } else {
                        batch::crowd::op_fk(&mut g, &l, &s).expect("fk")
                    }
                }),
            });
        }
    }
}

fn all_cases() -> Vec<Case> {
    let skel = cmu_skeleton();
    let mut cases = vec![peak_case()];
    joint_cases::<PosRotx8>(&mut cases, "pos_rot", &skel);
    joint_cases::<PosRotSclx8>(&mut cases, "pos_rot_scl", &skel);
    joint_cases::<Motionx8>(&mut cases, "motion", &skel);
    joint_cases::<Kformx8>(&mut cases, "kform", &skel);
    if std::env::var_os("KINEFORM_SWEEP").is_none() {
        crowd_pose_cases(&mut cases, &skel);
    }
    cases
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The interleaved rounds (see the module docs).
fn rounds(n: usize, cases: &mut [Case], keep: &dyn Fn(&str) -> bool) {
    let peak = 0;
    let mut needed: Vec<bool> = cases.iter().map(|c| keep(&c.name)).collect();
    needed[peak] = true;
    for c in cases.iter().filter(|c| keep(&c.name)) {
        if let Floor::Kernel { copy, .. } = c.floor {
            needed[copy] = true;
            needed[copy + 1] = true;
        }
    }
    let mut times = vec![Vec::new(); cases.len()];
    for round in 0..n {
        for (i, c) in cases.iter_mut().enumerate() {
            if needed[i] {
                let budget =
                    Duration::from_millis(if c.name.contains("stream") { 150 } else { 30 });
                times[i].push(c.best(budget));
            }
        }
        eprintln!("[fk_floor] round {} of {n} done", round + 1);
    }
    println!(
        "| case | ns per character-joint (median) | floor ns | ratio to floor (median of rounds) | bound by |"
    );
    println!("| --- | --- | --- | --- | --- |");
    for (i, c) in cases.iter().enumerate() {
        if times[i].is_empty() || !keep(&c.name) {
            continue;
        }
        let med = median(times[i].clone());
        match c.floor {
            Floor::None => println!("| {} | {med:.3} | | | |", c.name),
            Floor::Kernel { ops, copy, threads } => {
                // Per round: the larger of the compute floor (ops ymm FMAs
                // per 8 character-joints at the round's peak, split over the
                // threads) and the memory floor (the round's copy).
                let per_round: Vec<(f64, f64, bool)> = (0..n)
                    .map(|k| {
                        let compute = ops as f64 * times[peak][k] / 8.0 / threads as f64;
                        let memory = times[copy][k].min(times[copy + 1][k]);
                        let floor = compute.max(memory);
                        (floor, times[i][k] / floor, compute >= memory)
                    })
                    .collect();
                let floor = median(per_round.iter().map(|x| x.0).collect());
                let ratio = median(per_round.iter().map(|x| x.1).collect());
                let compute = per_round.iter().filter(|x| x.2).count() * 2 > n;
                let by = if compute {
                    format!("{ops} FMA-pipe ops")
                } else {
                    "bytes".to_string()
                };
                println!("| {} | {med:.3} | {floor:.3} | {ratio:.2} | {by} |", c.name);
            }
        }
    }
}

fn main() {
    banner("fk_floor");
    for t in [1, 2] {
        eprintln!(
            "[fk_floor] caches {:?}, {t} threads: op_fk walks one pack above {} bytes of local and global pose",
            batch::caches::Caches::of_this_machine(),
            pool(t).install(batch::fk::stream_above_bytes)
        );
    }
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
    for case in cases.iter_mut().filter(|c| keep(&c.name)) {
        let name = case.name.clone();
        let (group, id) = name.split_once('/').expect("group/id");
        let mut g = c.benchmark_group(group);
        g.throughput(Throughput::Elements(case.elems as u64));
        if id.contains("stream") {
            g.sample_size(20);
            g.measurement_time(Duration::from_secs(4));
        }
        g.bench_function(id, |b| b.iter_custom(|iters| case.time(iters)));
        g.finish();
    }
    c.final_summary();
}
