//! A pack's step under level of detail ([`super::pack_step::step_pack`]):
//! a pack none of whose characters is due ([`carry_pack`]), an evaluated
//! pack that shows offsets or resumes ([`lod_pass`]: forward kinematics
//! into the worker's scratch, then [`lod_world`]), the root motion of
//! carried lanes, and the rows a resumption reads, as regions to fetch.

use super::ahead::Ahead;
use super::fk::fk_pass;
use super::lod::{lod_world, shows_rows};
use super::pack_step::{figures, pack_trans};
use super::shared::Shared;
use crate::crowd::motion::*;
use crate::crowd::schedule::{LodClocks, LodStep, bits_mask};
use crate::crowd::state::Stepx8;
use crate::crowd::store::{Pack, PackResult};
use crate::lanes::splat;

/// Whether a pack with level of detail shows its evaluated pose in every
/// lane this step (all evaluated, no offset starting or running) after
/// showing its world rows last step (its clocks then, `was`), as a crowd
/// without it: its forward kinematics writes the world output, checked
/// against those rows, and its anchors are that output.
#[inline(always)]
pub(super) fn plain(lod: &LodStep, was: &LodClocks) -> bool {
    lod.due == 0xff && lod.resumed == 0 && !lod.resumed_clocks().running().any() && shows_rows(was)
}

/// A pack none of whose characters is due this step: where the crowd
/// extracts root motion, its root motion carried ([`carry_root_motion`]);
/// its world output (its characters' anchors) is not written and what it
/// shows is made when it is read ([`super::lod::Carried`]; its schedule
/// marks its boxes stale), so its step
/// costs O(1), not O(joints). Nothing is shown that its step did not
/// already check, so it adds nothing to the velocity check.
pub(super) fn carry_pack(sh: &Shared, pack: &mut Pack) {
    if sh.extract {
        let before = *pack.root_motion;
        carry_root_motion(pack.root_motion, &before, 0xff, sh.dt);
    }
    pack.schedule.stale = 1;
    *pack.result = PackResult {
        ran: true,
        ..PackResult::default()
    };
}

/// The root motion of the `carried` lanes (bits): their last step's
/// velocity and turn rate (`before`), and those times `dt`.
#[inline(always)]
pub(super) fn carry_root_motion(
    out: &mut RootMotionx8,
    before: &RootMotionx8,
    carried: u8,
    dt: f32,
) {
    if carried == 0 {
        return;
    }
    // Bitwise selects of an opaque mask: a blend stored back becomes
    // masked stores ([`update_turn`]).
    let m = bits_mask(carried);
    let dt = splat(dt);
    out.displacement = bitselect_vec3(m, before.velocity * dt, out.displacement);
    out.velocity = bitselect_vec3(m, before.velocity, out.velocity);
    out.turn = m.bitselect(before.turn_rate * dt, out.turn);
    out.turn_rate = m.bitselect(before.turn_rate, out.turn_rate);
}

/// The world output of an evaluated pack with level of detail that is not
/// [`plain`]: forward kinematics into the worker's `evaluated` scratch,
/// then [`lod_world`] (`was`: the pack's clocks before this step).
#[inline(always)]
pub(super) fn lod_pass(
    sh: &Shared,
    pack: &mut Pack,
    step: &Stepx8,
    (local, evaluated): (&[Motionx8], &mut [Motionx8]),
    (lod, was): (&LodStep, LodClocks),
    next: &[Ahead],
) -> PackResult {
    let half_dt = splat(0.5 * sh.dt);
    let mut unused = crate::crowd::bounds::Aabbx8::EMPTY;
    let skeleton = (sh.parents, sh.tracks, None);
    fk_pass::<false>(
        (evaluated, &mut unused),
        (&step.root, local),
        skeleton,
        true,
        half_dt,
    );
    pack.schedule.stale = 0;
    let out = (&mut *pack.world, &mut *pack.bounds);
    let (offsets, at) = (&mut *pack.lod_offset, (sh.radii, sh.first, half_dt));
    let check = match sh.check {
        true => lod_world::<true>(out, offsets, evaluated, (lod, was), at, (next, sh.fetch)),
        false => lod_world::<false>(out, offsets, evaluated, (lod, was), at, (next, sh.fetch)),
    };
    let trans = pack_trans(pack);
    figures(sh, pack, (check, trans), lod.due, local.len())
}

/// The pack's rows a resumption reads, as bytes: its world output (the
/// anchors), its kept state (turn offsets or transition poses) and its
/// level of detail's offsets.
#[inline(always)]
pub(super) fn own_rows<'a, const INERT: bool>(pack: &'a Pack) -> [&'a [u8]; 3] {
    let kept: &[u8] = match INERT {
        true => bytemuck::cast_slice(&*pack.turns),
        false => bytemuck::cast_slice(&*pack.transition),
    };
    [
        bytemuck::cast_slice(&*pack.world),
        kept,
        bytemuck::cast_slice(&*pack.lod_offset),
    ]
}

/// Whether [`next_own`] fetches the next pack's offsets: not past half
/// the L3 ([`Shared::fetch`]), where a whole resumption writes them
/// without reading them. What a pack fetched for by the one before it
/// still fetches itself follows from it
/// ([`step_pack`](super::pack_step::step_pack)'s `by_previous`).
#[inline(always)]
pub(super) fn next_own_fetches_offsets(sh: &Shared) -> bool {
    !sh.fetch
}

/// The next pack's anchors (world output), kept state and, where
/// [`next_own_fetches_offsets`], offsets, as regions to fetch in one
/// part per joint while this pack's [`lod_world`] runs (the next pack
/// resumes too: it then finds them in L2 and does not fetch them again,
/// [`step_pack`](super::pack_step::step_pack)'s `by_previous`).
#[inline(always)]
pub(super) fn next_own<const INERT: bool>(sh: &Shared, pack: &Pack, joints: usize) -> [Ahead; 3] {
    // Addresses only: the next pack's rows follow this one's in each
    // field's one allocation.
    let [world, kept, lod] = own_rows::<INERT>(pack);
    let ahead = |r: &[u8]| Ahead::new(r.as_ptr() as usize + r.len(), r.len(), joints);
    let lod = match next_own_fetches_offsets(sh) {
        true => ahead(lod),
        false => Ahead::NONE,
    };
    [ahead(world), ahead(kept), lod]
}

/// Whether a resuming pack's [`lod_world`] reads all of its offsets: a
/// resumption of some of its characters (the others' offsets kept), or an
/// offset running in the pose it showed carried. A whole resumption past
/// them writes the new offsets without reading the old, save the
/// velocity check's read of the shifts (half of each joint's offset)
/// where one ran in the last step (at 60 Hz, periods 2 and 4): left to
/// the core (fetched whole, with the turns it does not read, the 100,000
/// character mix gained nothing from the streamed stores: PERF.md,
/// "Level of detail's offsets past the caches").
#[inline(always)]
pub(super) fn reads_offsets(lod: &LodStep) -> bool {
    !lod.whole() || lod.carried_clocks().running().any()
}
