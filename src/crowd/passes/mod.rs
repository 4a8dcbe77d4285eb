//! One pack's frame as a few passes over its joints whose data stays in
//! L1/L2: sample source A; sample source B and blend; on a transition, the
//! new offsets (or transition poses) from the poses the transitioning
//! characters would have shown ([`shown_batch`](shown::shown_batch), computed eight at a time
//! across packs before the packs run); inertialize or dead-blend; pull the
//! clips' root place and heading out where the crowd extracts it; forward
//! kinematics from the character's root straight into the world output,
//! with the velocity check. PERF.md has the figures and where the time
//! goes. A pack's state comes from the store
//! ([`crate::crowd::store::Pack`]); what every pack reads is [`Shared`].
//!
//! One file per part, in the order a frame runs them:
//!
//! - `shared`: what every pack's frame reads ([`Shared`]).
//! - `shown`: before the packs run, the poses the frame's transitioning
//!   characters would have shown ([`shown_batch`](shown::shown_batch)), eight at a time
//!   across packs, from the store's kept state ([`ShownPoses`], and the
//!   runs of batches a frame splits among threads, [`ShownBatches`]).
//! - `pack_step`: one pack's frame ([`step_pack`]); it runs the passes
//!   below in order.
//! - `sampling`: source A sampled, source B sampled and blended in, each
//!   source's root joint at its place ([`crate::crowd::place`]).
//! - `layers`: each layer of the crowd on the pose below it, override or
//!   additive, on its mask's joints (skipped where its weight is zero in
//!   the whole pack).
//! - `profile`: blend profiles, per-joint durations and snaps, for the
//!   transitions that run with one.
//! - `transition`: inertialization, or dead blending, while a transition
//!   runs.
//! - `root_motion`: the clips' root place and heading taken out of the
//!   pose where the crowd extracts it (kept per pack as
//!   [`RootMotionx8`](crate::crowd::motion::RootMotionx8)).
//! - `fk`: forward kinematics into the world output, with the velocity
//!   check.
//! - `pack_lod`: a pack's step under level of detail: a pack none of
//!   whose characters is due runs its commands and carries its root
//!   motion only; an evaluated pack that resumes characters or shows an
//!   offset runs forward kinematics into the worker's scratch, then
//!   `lod`; and the rows a resumption reads, as regions to fetch.
//! - `lod`: level of detail's world output (`lod_world`) of a pack some
//!   of whose characters are carried between evaluations, or hide the
//!   gap of one ([`crate::crowd::schedule`]).
//! - `scratch` and `ahead`: each thread's scratch ([`PackScratch`],
//!   [`Scratches`]), and the next pack's memory fetched into L2 while this
//!   one runs ([`Ahead`]).

mod ahead;
mod fk;
mod layers;
mod lod;
mod pack_lod;
mod pack_step;
mod profile;
mod root_motion;
mod sampling;
mod scratch;
mod shared;
mod shown;
#[cfg(test)]
mod testing;
mod transition;

pub(crate) use ahead::{Ahead, fetch_ahead_above};
pub(crate) use layers::LayerPass;
pub(crate) use lod::Carried;
pub(crate) use pack_step::step_pack;
pub(crate) use scratch::{PackScratch, Scratches};
pub(crate) use shared::Shared;
pub(crate) use shown::{ShownBatches, ShownPoses};
