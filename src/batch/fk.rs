//! Forward and backward kinematics over [`PoseStream`]s of any joint type
//! ([`crate::lanes::Jointx8`]): the type says which fields exist, so a
//! position-and-rotation crowd moves 28 bytes per character-joint each way
//! and computes nothing else.
//!
//! As everywhere in [`crate::batch`], every call validates first (shapes,
//! the skeleton) and writes nothing when it refuses; packs run in parallel
//! on the current rayon pool, each pack's result depending on that pack
//! alone, so output is bit-identical for any number of threads (and for
//! every [`FkMode`]).
//!
//! How a chain is walked depends on the working set against this
//! machine's caches and the threads it is split over ([`walk_for`],
//! [`stream_above_for`]): two packs side by side while the local and
//! global poses fit, one pack at a time beyond.

use rayon::prelude::*;

use super::caches::Caches;
use super::{chunk, cost_ns, run, same_len};
use crate::error::Result;
use crate::lanes::{FkMode, Jointx8, Kformx8, bk_unchecked, fk_packs_unchecked};
use crate::pose_stream::PoseStream;
use crate::skeleton::Skeleton;
use crate::stream::packs_for;

/// The working set (bytes of local pose read plus global pose written)
/// above which [`op_fk`] walks one pack at a time ([`Jointx8::FK_STREAM`])
/// instead of two side by side ([`Jointx8::FK`]) where this machine's
/// caches are unknown: 32 MiB, the L3 of both machine kinds of PERF.md.
/// [`stream_above_bytes`] gives the threshold this machine uses.
pub const STREAM_ABOVE_BYTES: usize = 32 << 20;

/// The working set above which [`op_fk`] walks one pack at a time, for
/// caches `caches` and a crowd split over `threads` threads (PERF.md,
/// "FK's walk by working set", has the sweeps this rule is fitted to):
///
/// - a core's L2 of 1 MiB or more (the AVX-512 Zen of issue 27, family 25
///   model 17: L2 1 MiB, L3 32 MiB), **one thread: twice the L2**. There
///   the pairs are faster only while the working set is about the L2's
///   size (64 to 1,024 characters of 31 joints, 0.1 to 3.5 MB) and 1.1 to
///   1.8x slower from 8,192 characters (14 MB, inside the L3); at 1,024
///   characters the one-pack walk already wins for `PosRotSclx8` (2.5 MB,
///   12%) and `Kformx8` (4.8 MB, 6%) and loses 2 to 3% for `PosRotx8`
///   (1.8 MB) and `Motionx8` (3.3 MB);
/// - the same caches, **`t` threads: twice the L2 per thread** (4 MiB on
///   two), at most the L3 ([`STREAM_ABOVE_BYTES`] when it is unknown). Each core then walks its share of the crowd,
///   and the pairs' advantage ends where that share leaves its L2, not
///   where the whole crowd leaves the L3: in the idle sweep of 2026-11-28
///   (12:30 UTC, PERF.md "FK's walk by working set, idle"), two threads,
///   the pairs were 1.62 to 1.77x a copy at 8,192 characters (20 to 32
///   MB, inside the L3) where one pack was 1.05 to 1.16x, and one pack was
///   ahead at 4,096 (10 to 16 MB: 1.11 to 1.33x against 1.22 to 1.65x);
///   below 8 MB the two walks were within the run's noise of each other
///   but for `Kformx8` at 2,048 (8 MB: pairs 1.26x, one pack 1.43x). An
///   earlier, less quiet run had the L3 as this threshold (the pairs
///   1.28 to 1.38x at 2,048 and 4,096 `Kformx8` characters, one pack 1.43
///   to 1.57x): the two disagree between 8 and 16 MB, and agree above;
/// - a smaller L2 with a known L3 (the Zen 3 of PERF.md: L2 512 KiB, L3 32
///   MiB), any threads: **the L3**. There the pairs are as fast as one
///   pack or faster at every size measured, in cache by 10 to 30% and
///   beyond the L3 by 0 to 15%, and the one-pack walk streams within 1.15x
///   of a copy;
/// - neither known: [`STREAM_ABOVE_BYTES`].
///
/// Two machine kinds are all this is fitted to: a CPU of another kind
/// (Intel's 2 MiB L2s, for one) gets the rule of the kind its caches
/// resemble, unmeasured; the rule for more than two threads is the
/// two-thread one extended, unmeasured (these machines have two). Every walk
/// gives the same bits, so the rule moves only time.
///
/// ```
/// use kineform::batch::caches::Caches;
/// use kineform::batch::fk::{STREAM_ABOVE_BYTES, stream_above_for};
///
/// let zen3 = Caches::new(Some(512 << 10), Some(32 << 20));
/// let zen_avx512 = Caches::new(Some(1 << 20), Some(32 << 20));
/// assert_eq!(stream_above_for(zen3, 1), 32 << 20);
/// assert_eq!(stream_above_for(zen3, 2), 32 << 20);
/// assert_eq!(stream_above_for(zen_avx512, 1), 2 << 20);
/// assert_eq!(stream_above_for(zen_avx512, 2), 4 << 20);
/// assert_eq!(stream_above_for(zen_avx512, 64), 32 << 20);
/// assert_eq!(stream_above_for(Caches::default(), 1), STREAM_ABOVE_BYTES);
/// ```
pub fn stream_above_for(caches: Caches, threads: usize) -> usize {
    match (caches.l2, caches.l3) {
        (Some(l2), l3) if l2 >= 1 << 20 => {
            let share = l2.saturating_mul(2).saturating_mul(threads.max(1));
            share.min(l3.unwrap_or(STREAM_ABOVE_BYTES))
        }
        (_, Some(l3)) => l3,
        _ => STREAM_ABOVE_BYTES,
    }
}

/// This machine's threshold on the current rayon pool:
/// [`stream_above_for`] of [`Caches::of_this_machine`] (read once) and
/// `rayon::current_num_threads()`.
pub fn stream_above_bytes() -> usize {
    stream_above_for(Caches::of_this_machine(), rayon::current_num_threads())
}

/// The walk [`op_fk`] takes over `characters × joints` of `T` on this
/// machine and the current rayon pool: [`walk_for_above`] with
/// [`stream_above_bytes`].
///
/// ```
/// use kineform::batch::fk::walk_for;
/// use kineform::lanes::{Jointx8, PosRotx8};
///
/// // 64 characters of 31 joints: 0.1 MB each way, in every L2.
/// assert_eq!(walk_for::<PosRotx8>(64, 31), PosRotx8::FK);
/// // 40,000 characters: 69 MB read and written, beyond every L3.
/// assert_eq!(walk_for::<PosRotx8>(40_000, 31), PosRotx8::FK_STREAM);
/// ```
pub fn walk_for<T: Jointx8>(characters: usize, joints: usize) -> FkMode {
    walk_for_above::<T>(characters, joints, stream_above_bytes())
}

/// [`Jointx8::FK`] (two packs side by side) while the local and global
/// poses of `characters × joints` of `T` together take at most `above`
/// bytes, else [`Jointx8::FK_STREAM`] (one pack). Every walk gives the
/// same bits.
pub fn walk_for_above<T: Jointx8>(characters: usize, joints: usize, above: usize) -> FkMode {
    let bytes = packs_for(characters)
        .saturating_mul(joints)
        .saturating_mul(2 * size_of::<T>());
    if bytes <= above { T::FK } else { T::FK_STREAM }
}

fn same_shape<T: Jointx8>(what: &'static str, a: &PoseStream<T>, b: &PoseStream<T>) -> Result<()> {
    same_len(what, a.characters(), b.characters())?;
    same_len(what, a.joints(), b.joints())
}

/// Approximate nanoseconds per pack-joint of FK or BK over `T` (scaled from
/// the kineform's by size), only to choose how finely to split.
fn ns_per_joint<T: Jointx8>() -> usize {
    (cost_ns::FK_JOINT * size_of::<T>() / size_of::<Kformx8>()).max(1)
}

/// Forward kinematics for every character: each joint is `T::mul(parent's
/// global, local)`, roots copied ([`crate::reference::op_fk_joints`] per
/// character), walked as [`walk_for`] chooses for the crowd's size.
pub fn op_fk<T: Jointx8>(
    global: &mut PoseStream<T>,
    local: &PoseStream<T>,
    skeleton: &Skeleton,
) -> Result<()> {
    let mode = walk_for::<T>(global.characters(), global.joints());
    op_fk_with(global, local, skeleton, mode)
}

/// [`op_fk`] in a chosen [`FkMode`] (for measuring the modes against each
/// other; every mode gives the same bits). The mode picks one of four
/// compiled kernels once per call.
pub fn op_fk_with<T: Jointx8>(
    global: &mut PoseStream<T>,
    local: &PoseStream<T>,
    skeleton: &Skeleton,
    mode: FkMode,
) -> Result<()> {
    same_shape("local", global, local)?;
    same_len("skeleton joints", skeleton.len(), global.joints())?;
    let joints = skeleton.len();
    let chains = skeleton.chains();
    // An even number of packs per task, so pairs are not split.
    let c = chunk(global.packs(), ns_per_joint::<T>() * joints).next_multiple_of(2);
    let chunks = global
        .lanes_mut()
        .par_chunks_mut(c * joints)
        .zip(local.lanes().par_chunks(c * joints));
    run(chunks, |(g, l)| fk_packs_unchecked(g, l, chains, mode));
    Ok(())
}

/// Backward kinematics for every character, the inverse of [`op_fk`]: each
/// joint is `T::div(parent's global, global)`, roots copied
/// ([`crate::reference::op_bk_joints`] per character).
pub fn op_bk<T: Jointx8>(
    local: &mut PoseStream<T>,
    global: &PoseStream<T>,
    skeleton: &Skeleton,
) -> Result<()> {
    same_shape("global", local, global)?;
    same_len("skeleton joints", skeleton.len(), local.joints())?;
    let joints = skeleton.len();
    let parents = skeleton.parents();
    let c = chunk(local.packs(), ns_per_joint::<T>() * joints);
    let chunks = local
        .lanes_mut()
        .par_chunks_mut(c * joints)
        .zip(global.lanes().par_chunks(c * joints));
    run(chunks, |(l, g)| {
        for (l, g) in l.chunks_exact_mut(joints).zip(g.chunks_exact(joints)) {
            bk_unchecked(l, g, parents);
        }
    });
    Ok(())
}
