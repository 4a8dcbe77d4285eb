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

use rayon::prelude::*;

use super::{chunk, cost_ns, run, same_len};
use crate::error::Result;
use crate::lanes::{FkMode, Jointx8, Kformx8, bk_unchecked, fk_packs_unchecked};
use crate::pose_stream::PoseStream;
use crate::skeleton::Skeleton;

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
/// character), walked in `T`'s own [`Jointx8::FK`] mode.
pub fn op_fk<T: Jointx8>(
    global: &mut PoseStream<T>,
    local: &PoseStream<T>,
    skeleton: &Skeleton,
) -> Result<()> {
    op_fk_with(global, local, skeleton, T::FK)
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
