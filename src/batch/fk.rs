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
//! How a chain is walked depends on the working set ([`walk_for`]): two
//! packs side by side while the local and global poses fit in the
//! last-level cache, one pack at a time beyond it.

use rayon::prelude::*;

use super::{chunk, cost_ns, run, same_len};
use crate::error::Result;
use crate::lanes::{FkMode, Jointx8, Kformx8, bk_unchecked, fk_packs_unchecked};
use crate::pose_stream::PoseStream;
use crate::skeleton::Skeleton;
use crate::stream::packs_for;

/// The working set (bytes of local pose read plus global pose written)
/// above which [`op_fk`] walks one pack at a time ([`Jointx8::FK_STREAM`])
/// instead of two side by side ([`Jointx8::FK`]): 32 MiB, the L3 of both
/// machine kinds of PERF.md. Beyond it the data streams from DRAM, and on
/// the Zen 5 of issue 27 the one-pack walk streamed 1.4 to 2.0x faster
/// than the pairs (within 1.01 to 1.24x of a copy, the pairs 1.15 to
/// 2.33x); in cache the pairs are faster (two chains for the core to
/// overlap). PERF.md, "FK streaming: the walk by working set", has the
/// sweep on the Zen 3.
pub const STREAM_ABOVE_BYTES: usize = 32 << 20;

/// The walk [`op_fk`] takes over `characters × joints` of `T`:
/// [`Jointx8::FK`] (two packs side by side) while the local and global
/// poses together take at most [`STREAM_ABOVE_BYTES`], else
/// [`Jointx8::FK_STREAM`] (one pack). Every walk gives the same bits.
///
/// ```
/// use kineform::batch::fk::{STREAM_ABOVE_BYTES, walk_for};
/// use kineform::lanes::{Jointx8, PosRotx8};
///
/// // 1,000 characters of 31 joints: 1.7 MB each way, in cache.
/// assert_eq!(walk_for::<PosRotx8>(1_000, 31), PosRotx8::FK);
/// // 40,000 characters: 69 MB read and written, streaming.
/// assert_eq!(walk_for::<PosRotx8>(40_000, 31), PosRotx8::FK_STREAM);
/// ```
pub fn walk_for<T: Jointx8>(characters: usize, joints: usize) -> FkMode {
    let bytes = packs_for(characters)
        .saturating_mul(joints)
        .saturating_mul(2 * size_of::<T>());
    if bytes <= STREAM_ABOVE_BYTES {
        T::FK
    } else {
        T::FK_STREAM
    }
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
