//! Each worker's scratch: the poses and gathered state a pack's passes
//! (and a batch of shown poses) work in, kept across frames, one per
//! rayon worker.

use std::sync::Mutex;

use crate::crowd::motion::{Motionx8, ShiftOffsetx8, TurnOffsetx8};
use crate::crowd::state::{LayerLanes, Spanx8};
use crate::lanes::Vec3x8;

/// Scratch of one worker, about 13 KB per pose for the CMU skeleton, so a
/// pack's passes stay in L1/L2. Poses in crowd joint order (joint 0 the
/// world root): `a` the blended input, `b` the inertialized or dead-blended
/// local pose, `shown` the pose that transitioning lanes would have shown,
/// `old_a` the input of a batch of transitioning characters' old sources
/// ([`shown_batch`](super::shown::shown_batch)). Joints with a fixed position hold
/// it, and zero velocity, from the start; the passes write only their
/// rotations and angular velocities. `kept_*`: a batch's kept state,
/// gathered from its characters' packs.
pub(crate) struct PackScratch {
    pub(super) a: Vec<Motionx8>,
    pub(super) b: Vec<Motionx8>,
    pub(super) shown: Vec<Motionx8>,
    pub(super) old_a: Vec<Motionx8>,
    /// The evaluated world pose of a pack with level of detail, before
    /// what it shows is chosen ([`super::lod`]).
    pub(super) evaluated: Vec<Motionx8>,
    pub(super) kept_turns: Vec<TurnOffsetx8>,
    pub(super) kept_shifts: Vec<ShiftOffsetx8>,
    pub(super) kept_poses: Vec<Motionx8>,
    pub(super) kept_dead_flips: Vec<u8>,
    pub(super) kept_ab_flips: Vec<u8>,
    pub(super) kept_fit_rot: Vec<Vec3x8>,
    pub(super) kept_fit_pos: Vec<Vec3x8>,
    pub(super) kept_layers: Vec<LayerLanes>,
    pub(super) kept_layer_flips: Vec<u8>,
    /// Each layer's source's move in the step being run
    /// ([`crate::crowd::state::Statex8::advance`]), one per layer.
    pub(super) layer_spans: Vec<Spanx8>,
}

impl PackScratch {
    /// Bytes of one scratch for `joints` crowd joints, `turning` turn
    /// offsets and `moving` shift offsets per pack (what
    /// [`PackScratch::try_new`] reserves), `None` when it overflows.
    pub(crate) fn bytes(
        joints: usize,
        turning: usize,
        moving: usize,
        layers: usize,
    ) -> Option<usize> {
        let poses = joints.checked_mul(6 * size_of::<Motionx8>() + 2)?;
        let offsets = turning
            .checked_mul(size_of::<TurnOffsetx8>() + size_of::<Vec3x8>())?
            .checked_add(moving.checked_mul(size_of::<ShiftOffsetx8>() + size_of::<Vec3x8>())?)?;
        let layers = layers.checked_mul(size_of::<LayerLanes>() + size_of::<Spanx8>() + joints)?;
        poses.checked_add(offsets)?.checked_add(layers)
    }

    /// A worker's scratch, every vector reserved with `try_reserve`: an
    /// [`crate::Error::Size`] (nothing kept) when the memory cannot be had.
    pub(crate) fn try_new(
        rest: &[Motionx8],
        turning: usize,
        moving: usize,
        layers: usize,
    ) -> crate::Result<PackScratch> {
        use crate::error::try_vec;
        let v = || -> crate::Result<Vec<Motionx8>> {
            let mut p = try_vec("a worker's scratch poses", rest.len(), Motionx8::REST)?;
            p.copy_from_slice(rest);
            Ok(p)
        };
        Ok(PackScratch {
            a: v()?,
            b: v()?,
            shown: v()?,
            old_a: v()?,
            evaluated: v()?,
            kept_turns: try_vec("a worker's scratch", turning, TurnOffsetx8::ZERO)?,
            kept_shifts: try_vec("a worker's scratch", moving, ShiftOffsetx8::ZERO)?,
            kept_poses: v()?,
            kept_dead_flips: try_vec("a worker's scratch", rest.len(), 0)?,
            kept_ab_flips: try_vec("a worker's scratch", rest.len(), 0)?,
            kept_fit_rot: try_vec("a worker's scratch", turning, Vec3x8::ZERO)?,
            kept_fit_pos: try_vec("a worker's scratch", moving, Vec3x8::ZERO)?,
            kept_layers: try_vec("a worker's scratch", layers, bytemuck::Zeroable::zeroed())?,
            kept_layer_flips: try_vec("a worker's scratch", layers * rest.len(), 0)?,
            layer_spans: try_vec("a worker's scratch", layers, Spanx8::default())?,
        })
    }
}

/// The scratch of the threads that run a crowd's packs, kept across
/// frames: one for each rayon worker of the pool the crowd steps in (by
/// thread index, so its lock is never contended), and those made for
/// other threads (a caller's own, [`crate::crowd::PackRange::run`]), kept
/// for the next time one runs.
#[derive(Default)]
pub(crate) struct Scratches {
    pub(crate) workers: Vec<Mutex<PackScratch>>,
    pub(crate) spare: Mutex<Vec<PackScratch>>,
}

impl Scratches {
    /// Runs `f` with the calling thread's scratch: a rayon worker's own;
    /// for any other thread a spare one, made by `make` (fallibly,
    /// [`PackScratch::try_new`]) when none is free. `None`, with `f` not
    /// run, when no scratch is free and none can be made: the caller's
    /// run is left to the frame's next part, which runs on the thread
    /// that holds the frame with the spare that [`Scratches::reserve_spare`]
    /// keeps for it (issue 21: nothing a caller's threads allocate aborts).
    pub(crate) fn with<R>(
        &self,
        make: impl Fn() -> crate::Result<PackScratch>,
        f: impl FnOnce(&mut PackScratch) -> R,
    ) -> Option<R> {
        if let Some(m) = rayon::current_thread_index().and_then(|t| self.workers.get(t)) {
            return Some(f(&mut lock(m)));
        }
        let spare = lock(&self.spare).pop();
        let mut s = match spare {
            Some(s) => s,
            None => make().ok()?,
        };
        let r = f(&mut s);
        let mut spare = lock(&self.spare);
        // The room was reserved when the spare was made or kept.
        if spare.len() < spare.capacity() {
            spare.push(s);
        }
        Some(r)
    }

    /// At least one spare scratch (for the thread that holds a prepared
    /// frame, and room to keep it), made with `make` when there is none:
    /// an [`crate::Error::Size`] with nothing changed when it cannot be
    /// had. Also makes room to keep up to `keep` spares made later for a
    /// caller's threads (those past the room are dropped after their run).
    pub(crate) fn reserve_spare(
        &mut self,
        make: impl Fn() -> crate::Result<PackScratch>,
        keep: usize,
    ) -> crate::Result<()> {
        let spare = self.spare.get_mut().unwrap_or_else(|e| e.into_inner());
        let room = keep.max(1).saturating_sub(spare.len());
        spare.try_reserve(room).map_err(|_| crate::Error::Size {
            what: "a caller's thread's scratch",
            reason: "room to keep a spare scratch could not be reserved".into(),
        })?;
        if spare.is_empty() {
            spare.push(make()?);
        }
        Ok(())
    }
}

/// `m` locked (a poisoned lock is taken as it is: scratch holds nothing
/// that outlives a pack).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
