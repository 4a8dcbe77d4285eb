//! The worker pool of `kineform crowd` and `kineform match`, refused before
//! any thread starts where the process's address-space limit (`ulimit -v`,
//! `RLIMIT_AS`) cannot hold its threads.
//!
//! Why before: rayon refuses a pool whose threads the system will not
//! create, but a thread that is created can still die on its own first
//! allocations once the limit is nearly spent (the runtime's alternate
//! signal stack, glibc's TLS destructor list or its per-thread malloc
//! arena), and those abort the process (SIGABRT) instead of failing the
//! pool's build. `--threads 1024` under a 1 GB limit did so about one run
//! in thirty (tests/suite/hostile_values.rs).

/// Address space a worker thread takes: rayon's stack (2 MiB unless
/// `RUST_MIN_STACK` says otherwise) and its guard, and room for the small
/// allocations of its start.
const PER_THREAD: u64 = 3 << 20;

/// Address space a thread's own malloc arena reserves (glibc: 64 MiB on
/// 64-bit), for at most [`ARENAS_PER_CORE`] arenas a core.
const ARENA: u64 = 64 << 20;

/// glibc's arena limit per core on 64-bit (`M_ARENA_MAX`'s default).
const ARENAS_PER_CORE: u64 = 8;

/// A rayon pool of `threads` workers (`None`: rayon's choice,
/// `RAYON_NUM_THREADS` else one a core), or why it cannot be had: `what`
/// names the setting that chose the count.
pub fn worker_pool(threads: Option<usize>, what: &str) -> Result<rayon::ThreadPool, String> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        b = b.num_threads(t);
    }
    let n = threads.unwrap_or_else(rayon_threads);
    if let Some((need, room)) = short_of_address_space(n) {
        return Err(format!(
            "{n} worker threads ({what}) could not be started: they need about {} MiB of \
             address space and the process's limit (ulimit -v) leaves {} MiB",
            need >> 20,
            room >> 20
        ));
    }
    b.build()
        .map_err(|e| format!("{n} worker threads ({what}) could not be started: {e}"))
}

/// The thread count rayon's builder picks without `num_threads`.
fn rayon_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `Some((need, room))` where `threads` workers need more address space
/// than the limit leaves; `None` where there is no limit, or room.
#[cfg(target_os = "linux")]
fn short_of_address_space(threads: usize) -> Option<(u64, u64)> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one `rlimit` through a pointer to a live,
    // properly aligned local; it keeps no pointer past the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } != 0
        || lim.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    // The process's mapped size now (`/proc/self/statm`'s first field, in
    // pages); unreadable, nothing is refused here.
    let pages: u64 = std::fs::read_to_string("/proc/self/statm")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let used = pages.saturating_mul(4096);
    let room = lim.rlim_cur.saturating_sub(used);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let t = threads as u64;
    let arenas = t.min(ARENAS_PER_CORE * cores);
    let need = t
        .saturating_mul(PER_THREAD)
        .saturating_add(arenas.saturating_mul(ARENA));
    (need > room).then_some((need, room))
}

/// No check where the limit cannot be read this way.
#[cfg(not(target_os = "linux"))]
fn short_of_address_space(_threads: usize) -> Option<(u64, u64)> {
    None
}
