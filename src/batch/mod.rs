//! Batch entry points: one kernel over a whole [`Stream`](crate::stream::Stream) or [`CrowdPose`].
//!
//! Every call validates its inputs first (lengths, skeleton, `dt`,
//! half-lives, blend durations) and returns an [`Error`] without writing
//! anything when it refuses; it never panics. Packs run in parallel on the
//! current rayon pool (`ThreadPool::install` chooses the thread count);
//! each pack's result depends on that pack alone, so output is bit-identical
//! for any number of threads.
//!
//! Every accepted parameter gives finite output on finite inputs (issue
//! 13; checked for every entry point by `tests/suite/edge_cases.rs` and the
//! `batch_api` fuzz target). Each function's docs say which of two ways it
//! keeps that promise for extreme values:
//!
//! - **saturates**: the math has a finite limit and the kernel reaches it
//!   (a spring or damper stepped by an enormous `dt` has settled; an
//!   inertialization past its blend time shows the input), so any finite
//!   value in the domain is accepted;
//! - **refuses** with [`Error::Parameter`] naming the range, where the
//!   quantity grows without bound: half-lives, blend times and time steps
//!   above [`MAX_TIME`] where the result scales with them, and non-zero
//!   steps below [`MIN_STEP`] where the math divides by them.
//!
//! "Finite inputs" means inputs of bounded size (the tests use positions
//! and velocities up to 100, unit rotations, scales in `[0.5, 2]`): with
//! values near `f32::MAX` even a sum overflows.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::lanes::{self, F32x8, Kformx8, splat};
use crate::skeleton::Skeleton;
use crate::stream::{CrowdPose, F32Stream, KformStream, QuatStream, Vec3Stream};

pub mod caches;
pub mod cost;
pub mod crowd;
pub mod deadblend;
pub mod fk;
pub mod looping;
pub mod tracking;

/// Work below which a batch runs on the calling thread, in nanoseconds of
/// one core: entering rayon from outside its pool costs a cross-thread
/// wakeup of tens of microseconds on the 2-core machine of PERF.md, so
/// smaller jobs are faster serial. Tasks are cut to at least a quarter of
/// this much work.
pub const SERIAL_BELOW_NS: usize = 50_000;

/// Approximate cost of one lane value of each kernel, in nanoseconds on
/// the machine of PERF.md (8-lane, one core): used only to decide between
/// serial and parallel and how finely to split.
pub(crate) mod cost_ns {
    pub const DAMPER: usize = 1;
    pub const SPRING: usize = 4;
    pub const EXP_LOG: usize = 12;
    pub const INERTIALIZE: usize = 60;
    pub const FK_JOINT: usize = 20;
    pub const SAMPLE_JOINT: usize = 150;
    pub const BLEND_JOINT: usize = 120;
    pub const FIT_HALFLIFE_JOINT: usize = 50;
}

/// Packs per task for a kernel costing `ns_each` per pack over `n` packs:
/// all of them (one task, run on the calling thread) when the whole job is
/// under [`SERIAL_BELOW_NS`], else a quarter of that much work per task.
pub(crate) fn chunk(n: usize, ns_each: usize) -> usize {
    if n.saturating_mul(ns_each) < SERIAL_BELOW_NS {
        n.max(1)
    } else {
        (SERIAL_BELOW_NS / 4 / ns_each.max(1)).max(1)
    }
}

/// Runs `f` on each chunk. Kernels loop over the packs of a chunk inside
/// `f`, so the `#[inline(always)]` lane code is inlined into that loop
/// rather than called through rayon once per pack (measured 2x slower). A
/// single chunk runs on the calling thread: rayon only reaches its pool
/// when it splits.
pub(crate) fn run<I: IndexedParallelIterator>(chunks: I, f: impl Fn(I::Item) + Send + Sync) {
    chunks.for_each(f);
}

/// [`run`] of a kernel that checks its own shapes and returns the first
/// refusal. Not atomic: other chunks may have run when one refuses. The
/// callers check every shape first, so none refuses and nothing is
/// written on a refusal; this only passes the kernel's `Result` on
/// without a panic path.
pub(crate) fn try_run<I: IndexedParallelIterator>(
    chunks: I,
    f: impl Fn(I::Item) -> Result<()> + Send + Sync,
) -> Result<()> {
    chunks.try_for_each(f)
}

/// `out[i] = f(a[i])` for every pack, in tasks of [`chunk`] packs for a
/// kernel costing `ns_each` a pack (the callers checked the lengths).
///
/// These helpers and their callers' closures take what they use by value
/// (`move`): with the splatted constants borrowed instead, the catalogue
/// bench's cost and tracking kernels ran 1.1 to 2x slower (Zen 4,
/// 2026-12-06).
pub(crate) fn map1<O: Send, A: Copy + Sync>(
    out: &mut [O],
    a: &[A],
    ns_each: usize,
    f: impl Fn(A) -> O + Send + Sync,
) {
    let c = chunk(out.len(), ns_each);
    run(out.par_chunks_mut(c).zip(a.par_chunks(c)), move |(o, a)| {
        for (o, a) in o.iter_mut().zip(a) {
            *o = f(*a);
        }
    });
}

/// `out[i] = f(a[i], b[i])` for every pack, as [`map1`].
pub(crate) fn map2<O: Send, A: Copy + Sync, B: Copy + Sync>(
    out: &mut [O],
    (a, b): (&[A], &[B]),
    ns_each: usize,
    f: impl Fn(A, B) -> O + Send + Sync,
) {
    let c = chunk(out.len(), ns_each);
    let chunks = out
        .par_chunks_mut(c)
        .zip(a.par_chunks(c).zip(b.par_chunks(c)));
    run(chunks, move |(o, (a, b))| {
        for ((o, a), b) in o.iter_mut().zip(a).zip(b) {
            *o = f(*a, *b);
        }
    });
}

/// `x[i] = f(x[i], g[i])` for every pack, as [`map1`].
pub(crate) fn update_with<X: Copy + Send, G: Copy + Sync>(
    x: &mut [X],
    g: &[G],
    ns_each: usize,
    f: impl Fn(X, G) -> X + Send + Sync,
) {
    let c = chunk(x.len(), ns_each);
    run(x.par_chunks_mut(c).zip(g.par_chunks(c)), move |(x, g)| {
        for (x, g) in x.iter_mut().zip(g) {
            *x = f(*x, *g);
        }
    });
}

/// `(x[i], v[i]) = f(x[i], v[i])` for every pack, as [`map1`].
pub(crate) fn update2<X: Copy + Send, V: Copy + Send>(
    x: &mut [X],
    v: &mut [V],
    ns_each: usize,
    f: impl Fn(X, V) -> (X, V) + Send + Sync,
) {
    let c = chunk(x.len(), ns_each);
    run(
        x.par_chunks_mut(c).zip(v.par_chunks_mut(c)),
        move |(x, v)| {
            for (x, v) in x.iter_mut().zip(v) {
                (*x, *v) = f(*x, *v);
            }
        },
    );
}

pub(crate) use crate::error::exactly as same_len;

/// `dt` must be finite and not negative (a negative `dt` would pass the pole
/// of `fast_negexp` in the published reference).
pub(crate) fn check_dt(name: &'static str, dt: f32) -> Result<()> {
    if dt.is_finite() && dt >= 0.0 {
        Ok(())
    } else {
        Err(Error::Parameter {
            name,
            value: dt,
            reason: "must be finite and >= 0",
        })
    }
}

/// Longest half-life, blend time or time step (seconds, 11.6 days) accepted
/// where the result grows with it (transition costs, tracking springs,
/// loop offsets): bounded inputs then give outputs far inside f32.
pub const MAX_TIME: f32 = 1e6;

/// Shortest non-zero time step (seconds) accepted where the math divides by
/// it (finite differences, tracking targets): a smaller one turns ordinary
/// differences into infinities. `dt = 0` stays accepted and gives zero
/// velocities (edge-case table).
pub const MIN_STEP: f32 = 1e-6;

/// A half-life or blend time in `[0, MAX_TIME]`.
pub(crate) fn check_bounded_time(name: &'static str, t: f32) -> Result<()> {
    if (0.0..=MAX_TIME).contains(&t) {
        Ok(())
    } else {
        Err(Error::Parameter {
            name,
            value: t,
            reason: "must be in [0, 1e6] s",
        })
    }
}

/// A step that is divided by and scales the result: 0, or in
/// `[MIN_STEP, MAX_TIME]`.
pub(crate) fn check_step(name: &'static str, dt: f32) -> Result<()> {
    if dt == 0.0 || (MIN_STEP..=MAX_TIME).contains(&dt) {
        Ok(())
    } else {
        Err(Error::Parameter {
            name,
            value: dt,
            reason: "must be 0 or in [1e-6, 1e6] s",
        })
    }
}

/// A step that is divided by: 0, or finite and at least `MIN_STEP`.
pub(crate) fn check_divisor_step(name: &'static str, dt: f32) -> Result<()> {
    if dt == 0.0 || (dt.is_finite() && dt >= MIN_STEP) {
        Ok(())
    } else {
        Err(Error::Parameter {
            name,
            value: dt,
            reason: "must be 0, or finite and at least 1e-6 s",
        })
    }
}

/// Longest blend duration or extrapolation half-life accepted (seconds).
/// Scales are blended and extrapolated in log space, so a scale offset or
/// scalar velocity carried over a blend grows as the exponential of its
/// length: an extrapolation over a half-life `h` scales by
/// `exp(svl · 1.44 h)`, which leaves f32 near 60 s for a scalar velocity of
/// 1 per second.
pub const MAX_BLEND_TIME: f32 = 60.0;

/// A blend duration or extrapolation half-life in `[0, MAX_BLEND_TIME]`.
pub(crate) fn check_blend(name: &'static str, t: f32) -> Result<()> {
    check_in(
        name,
        t,
        0.0,
        MAX_BLEND_TIME,
        "must be in [0, 60] s (scales blend and extrapolate exponentially)",
    )
}

/// A value in `[lo, hi]` (NaN refused), with `reason` naming the range.
pub(crate) fn check_in(
    name: &'static str,
    v: f32,
    lo: f32,
    hi: f32,
    reason: &'static str,
) -> Result<()> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(Error::Parameter {
            name,
            value: v,
            reason,
        })
    }
}

/// A value that must be finite and strictly positive.
pub(crate) fn positive(name: &'static str, v: f32) -> Result<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(Error::Parameter {
            name,
            value: v,
            reason: "must be finite and > 0",
        })
    }
}

/// Half-lives and blend durations must be finite and not negative.
pub(crate) fn check_time(name: &'static str, t: f32) -> Result<()> {
    check_dt(name, t)
}

/// [`lanes::damper_exact`] over a stream: `x` moves toward `goal`.
/// Saturates: any finite `halflife, dt >= 0` (an enormous `dt` reaches the goal).
pub fn damper_exact(x: &mut F32Stream, goal: &F32Stream, halflife: f32, dt: f32) -> Result<()> {
    same_len("goal", x.len(), goal.len())?;
    check_time("halflife", halflife)?;
    check_dt("dt", dt)?;
    let (h, d) = (splat(halflife), splat(dt));
    update_with(x.packs_mut(), goal.packs(), cost_ns::DAMPER, move |x, g| {
        lanes::damper_exact(x, g, h, d)
    });
    Ok(())
}

/// [`lanes::damper_decay_exact`] over a stream, in place. Saturates: any
/// finite `halflife, dt >= 0`.
pub fn damper_decay_exact(x: &mut F32Stream, halflife: f32, dt: f32) -> Result<()> {
    check_time("halflife", halflife)?;
    check_dt("dt", dt)?;
    let (h, d) = (splat(halflife), splat(dt));
    let c = chunk(x.packs().len(), cost_ns::DAMPER);
    run(x.packs_mut().par_chunks_mut(c), move |x| {
        for x in x {
            *x = lanes::damper_decay_exact(*x, h, d);
        }
    });
    Ok(())
}

/// [`lanes::decay_spring_damper_exact`] over a stream of `(x, v)` pairs.
/// Saturates in `dt`: any finite `dt >= 0` (an enormous `dt` has settled
/// the spring at zero). Refuses a half-life outside `[0, MAX_TIME]`: with
/// both enormous, the state grows by `v dt` before it decays.
pub fn decay_spring_damper_exact(
    x: &mut F32Stream,
    v: &mut F32Stream,
    halflife: f32,
    dt: f32,
) -> Result<()> {
    same_len("v", x.len(), v.len())?;
    check_bounded_time("halflife", halflife)?;
    check_dt("dt", dt)?;
    let (h, d) = (splat(halflife), splat(dt));
    let (x, v) = (x.packs_mut(), v.packs_mut());
    update2(x, v, cost_ns::SPRING, move |x, v| {
        lanes::decay_spring_damper_exact(x, v, h, d)
    });
    Ok(())
}

/// [`lanes::decay_spring_damper_exact_vec3`] over a stream of offsets.
/// Saturates, as [`decay_spring_damper_exact`].
pub fn decay_spring_damper_exact_vec3(
    x: &mut Vec3Stream,
    v: &mut Vec3Stream,
    halflife: f32,
    dt: f32,
) -> Result<()> {
    same_len("v", x.len(), v.len())?;
    check_bounded_time("halflife", halflife)?;
    check_dt("dt", dt)?;
    let (h, d) = (splat(halflife), splat(dt));
    let (x, v) = (x.packs_mut(), v.packs_mut());
    update2(x, v, 3 * cost_ns::SPRING, move |x, v| {
        lanes::decay_spring_damper_exact_vec3(x, v, h, d)
    });
    Ok(())
}

/// [`lanes::decay_spring_damper_exact_quat`] over a stream of rotational
/// offsets and angular velocities. Saturates, as
/// [`decay_spring_damper_exact`].
pub fn decay_spring_damper_exact_quat(
    x: &mut QuatStream,
    v: &mut Vec3Stream,
    halflife: f32,
    dt: f32,
) -> Result<()> {
    same_len("v", x.len(), v.len())?;
    check_bounded_time("halflife", halflife)?;
    check_dt("dt", dt)?;
    let (h, d) = (splat(halflife), splat(dt));
    let (x, v) = (x.packs_mut(), v.packs_mut());
    update2(x, v, 2 * cost_ns::EXP_LOG, move |x, v| {
        lanes::decay_spring_damper_exact_quat(x, v, h, d)
    });
    Ok(())
}

/// [`lanes::quat_exp`] over a stream: `out[i] = quat_exp(v[i])`.
pub fn quat_exp(out: &mut QuatStream, v: &Vec3Stream) -> Result<()> {
    same_len("v", out.len(), v.len())?;
    map1(
        out.packs_mut(),
        v.packs(),
        cost_ns::EXP_LOG,
        lanes::quat_exp,
    );
    Ok(())
}

/// [`lanes::quat_log`] over a stream: `out[i] = quat_log(q[i])`.
pub fn quat_log(out: &mut Vec3Stream, q: &QuatStream) -> Result<()> {
    same_len("q", out.len(), q.len())?;
    map1(
        out.packs_mut(),
        q.packs(),
        cost_ns::EXP_LOG,
        lanes::quat_log,
    );
    Ok(())
}

/// The inertialization offset from `lhs` to `rhs` over a stream of joints
/// ([`crate::reference::op_inertialize_offset`]).
pub fn op_inertialize_offset(
    offset: &mut KformStream,
    lhs: &KformStream,
    rhs: &KformStream,
) -> Result<()> {
    same_len("lhs", offset.len(), lhs.len())?;
    same_len("rhs", offset.len(), rhs.len())?;
    let c = chunk(offset.packs().len(), cost_ns::INERTIALIZE);
    let chunks = offset
        .packs_mut()
        .par_chunks_mut(c)
        .zip(lhs.packs().par_chunks(c).zip(rhs.packs().par_chunks(c)));
    try_run(chunks, |(o, (l, r))| lanes::op_inertialize_offset(o, l, r))
}

/// Cubic inertialization over a stream of joints, all at one blend time
/// ([`crate::reference::op_inertialize`]). `blend_time` saturates (any
/// finite value >= 0: past the duration the offset is gone); the duration
/// must be in `[0, MAX_BLEND_TIME]`.
pub fn op_inertialize(
    output: &mut KformStream,
    offset: &KformStream,
    input: &KformStream,
    blend_time: f32,
    blend_duration: f32,
) -> Result<()> {
    same_len("offset", output.len(), offset.len())?;
    same_len("input", output.len(), input.len())?;
    check_time("blend_time", blend_time)?;
    check_blend("blend_duration", blend_duration)?;
    let (t, d) = (splat(blend_time), splat(blend_duration));
    let c = chunk(output.packs().len(), cost_ns::INERTIALIZE);
    let chunks = output.packs_mut().par_chunks_mut(c).zip(
        offset
            .packs()
            .par_chunks(c)
            .zip(input.packs().par_chunks(c)),
    );
    try_run(chunks, move |(o, (off, i))| {
        lanes::op_inertialize(o, off, i, t, d)
    })
}
