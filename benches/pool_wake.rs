//! What a parallel part costs after a pass on one thread: `rayon::join` of
//! two tasks of `WORK` µs each (busy loops on the clock) inside a pool of
//! `RAYON_NUM_THREADS` workers, right after `GAP` µs of work on the
//! joining worker alone, for several gaps. With the other worker still
//! looking for work the join takes `WORK`; after a gap long enough for
//! it to fall asleep (rayon's idle workers yield 32 rounds, then sleep on
//! a futex), it takes `WORK` plus the time to wake it, and the joining
//! worker may fall asleep in turn while it waits. PERF.md ("Idle workers
//! and the matching update") has the figures of the machines measured.
//!
//! `RAYON_NUM_THREADS=2 cargo bench --bench pool_wake [-- WORK]`: per
//! gap, the join's median, 10th and 90th percentile, and the median time
//! each task started after the join began.

use std::time::Instant;

/// Busy work on the joining thread or a task, `us` microseconds by the
/// clock; returns a value the optimizer cannot drop.
fn busy(us: f64) -> f64 {
    let t = Instant::now();
    let mut x = 1.0f64;
    while t.elapsed().as_secs_f64() * 1e6 < us {
        for _ in 0..100 {
            x = x * 1.000_000_1 + 1e-9;
        }
    }
    x
}

/// Percentile `p` of sorted `v`.
fn pct(v: &[f64], p: f64) -> f64 {
    v[((v.len() - 1) as f64 * p) as usize]
}

fn main() {
    let work: f64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(50.0);
    let pool = rayon::ThreadPoolBuilder::new().build().unwrap();
    let threads = pool.current_num_threads();
    println!("pool of {threads} workers, two tasks of {work} µs each");
    println!("gap µs | join µs: median (10th, 90th) | first task starts | second starts");
    pool.install(|| {
        let mut sink = 0.0;
        for gap in [0.0, 5.0, 20.0, 100.0, 500.0, 2000.0] {
            let (mut total, mut a, mut b) = (Vec::new(), Vec::new(), Vec::new());
            for round in 0..1100 {
                sink += busy(gap);
                let t = Instant::now();
                let task = || {
                    let s = t.elapsed().as_secs_f64() * 1e6;
                    (s, busy(work))
                };
                let ((sa, xa), (sb, xb)) = rayon::join(task, task);
                let e = t.elapsed().as_secs_f64() * 1e6;
                sink += xa + xb;
                if round >= 100 {
                    total.push(e);
                    a.push(sa);
                    b.push(sb);
                }
            }
            for v in [&mut total, &mut a, &mut b] {
                v.sort_by(f64::total_cmp);
            }
            println!(
                "{gap:6} | {:7.1} ({:.1}, {:.1}) | {:5.1} | {:5.1}",
                pct(&total, 0.5),
                pct(&total, 0.1),
                pct(&total, 0.9),
                pct(&a, 0.5),
                pct(&b, 0.5)
            );
        }
        // Keeps the busy loops' results alive.
        assert!(sink.is_finite());
    });
}
