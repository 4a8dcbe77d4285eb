//! The poses the frame's transitioning characters would have shown,
//! computed before the packs run, eight characters at a time across
//! packs, from the store's kept state ([`PackStore`]): where each
//! new transition starts. [`ShownPoses`] holds them with the characters
//! they are for; [`ShownBatches`] is a run of batches to compute, which
//! splits into disjoint runs for threads.

use super::layers::layers;
use super::profile::{DeadTiming, Profiles, dead_blend_profiled, inertialize_profiled};
use super::sampling::input;
use super::scratch::PackScratch;
use super::shared::Shared;
use super::transition::{dead_blend_pass, fade, inertialize_pass};
use crate::crowd::halflives::{Decay, copy_rows_lane};
use crate::crowd::motion::*;
use crate::crowd::place::{Placex8, wrap_places};
use crate::crowd::state::{Statex8, Stepx8};
use crate::crowd::store::PackStore;
use crate::lanes::{self, CubicWeights, F32x8, splat};

/// The frame's transitioning characters (`movers`, in character order)
/// and the poses they would have shown, `j` joints for each batch of
/// eight (a batch's lanes past the last mover repeat it); which batches
/// are computed. Kept from frame to frame for its memory: batches start at
/// rest, as the scratch poses do, and the passes write only what moves.
#[derive(Default)]
pub(crate) struct ShownPoses {
    pub(crate) movers: Vec<u32>,
    pub(crate) poses: Vec<Motionx8>,
    done: Vec<bool>,
}

impl ShownPoses {
    /// Room for up to `movers` transitioning characters' batches of poses
    /// of `joints` joints, reserved with `try_reserve` before a frame is
    /// planned, so that [`ShownPoses::plan`] allocates nothing: an
    /// [`crate::Error::Size`] with nothing changed when it cannot be had.
    pub(crate) fn reserve(&mut self, movers: usize, joints: usize) -> crate::Result<()> {
        let batches = movers.div_ceil(8);
        let refused = || crate::Error::Size {
            what: "the frame's shown poses",
            reason: format!(
                "poses of {joints} joints for {movers} transitioning characters could not be reserved"
            ),
        };
        let poses = batches.checked_mul(joints).ok_or_else(refused)?;
        fn room<T>(v: &mut Vec<T>, n: usize) -> Result<(), std::collections::TryReserveError> {
            v.try_reserve(n.saturating_sub(v.len()))
        }
        room(&mut self.movers, movers)
            .and_then(|_| room(&mut self.poses, poses))
            .and_then(|_| room(&mut self.done, batches))
            .map_err(|_| refused())
    }

    /// Room for the batches of this frame's `movers` (none computed yet),
    /// poses of `rest.len()` joints (reserved by [`ShownPoses::reserve`]).
    pub(crate) fn plan(&mut self, rest: &[Motionx8]) {
        let batches = self.movers.len().div_ceil(8);
        while self.poses.len() < batches * rest.len() {
            self.poses.extend_from_slice(rest);
        }
        self.done.clear();
        self.done.resize(batches, false);
    }

    /// Every batch of this frame, to compute.
    pub(crate) fn all_mut(&mut self, joints: usize) -> ShownBatches<'_> {
        let batches = self.done.len();
        ShownBatches {
            first: 0,
            movers: &self.movers,
            poses: &mut self.poses[..batches * joints],
            done: &mut self.done,
            joints,
        }
    }
}

/// A run of batches of shown poses to compute.
pub(crate) struct ShownBatches<'a> {
    first: usize,
    movers: &'a [u32],
    poses: &'a mut [Motionx8],
    done: &'a mut [bool],
    joints: usize,
}

impl<'a> ShownBatches<'a> {
    /// The batches of the run.
    pub(crate) fn range(&self) -> core::ops::Range<usize> {
        self.first..self.first + self.done.len()
    }

    /// The first `mid` batches (at most all) and the rest.
    pub(crate) fn split_at(self, mid: usize) -> (ShownBatches<'a>, ShownBatches<'a>) {
        let mid = mid.min(self.done.len());
        let at = (mid * 8).min(self.movers.len());
        let (m0, m1) = self.movers.split_at(at);
        let (p0, p1) = self.poses.split_at_mut(mid * self.joints);
        let (d0, d1) = self.done.split_at_mut(mid);
        let j = self.joints;
        let part = |first, movers, poses, done| ShownBatches {
            first,
            movers,
            poses,
            done,
            joints: j,
        };
        (
            part(self.first, m0, p0, d0),
            part(self.first + mid, m1, p1, d1),
        )
    }

    /// Whether every batch of the run is computed (nothing left to run,
    /// so no scratch is needed for it).
    pub(crate) fn all_done(&self) -> bool {
        self.done.iter().all(|&d| d)
    }

    /// Computes the run's batches not yet computed.
    pub(crate) fn run<const CUBIC: bool, const INERT: bool>(
        self,
        sh: &Shared,
        store: &PackStore,
        scratch: &mut PackScratch,
    ) {
        let poses = self.poses.chunks_mut(self.joints);
        let batches = poses.zip(self.movers.chunks(8)).zip(self.done);
        for ((out, movers), done) in batches.filter(|b| !*b.1) {
            shown_batch::<CUBIC, INERT>(sh, store, movers, out, scratch);
            *done = true;
        }
    }
}

/// The poses that up to eight transitioning characters (`movers`, from any
/// packs) would have shown this frame without their commands, into `out`:
/// their states advanced (their layers' too), their sources sampled and
/// blended and their layers applied, then inertialized or dead-blended
/// with their packs' kept state gathered into lanes. Lanes past
/// `movers.len()` repeat its last character. `out` holds the rest pose
/// where nothing moves (see [`PackScratch`]).
pub(crate) fn shown_batch<const CUBIC: bool, const INERT: bool>(
    sh: &Shared,
    store: &PackStore,
    movers: &[u32],
    out: &mut [Motionx8],
    scratch: &mut PackScratch,
) {
    let j = out.len();
    let at: [usize; 8] = core::array::from_fn(|i| movers[i.min(movers.len() - 1)] as usize);
    let mut batch: Statex8 = store.states[at[0] / 8];
    let kl = &mut scratch.kept_layers;
    for (l, &c) in at.iter().enumerate() {
        batch.copy_lane(l, &store.states[c / 8], c % 8);
        let rows = kl.iter_mut().zip(store.layers.pack(c / 8));
        rows.for_each(|(k, t)| copy_lane(k, l, t, c % 8));
    }
    let events = batch.advance(splat(sh.dt), kl, &mut scratch.layer_spans);
    // The old sources' places, moved on by their wraps.
    let mut places = [Placex8::IDENTITY; 2];
    for (l, &c) in at.iter().enumerate() {
        let kept = &store.root_motion[c / 8].places;
        for (p, k) in places.iter_mut().zip(kept) {
            copy_lane(p, l, k, c % 8);
        }
    }
    wrap_places(
        &mut places,
        &events.spans,
        [batch.a.clip, batch.b.clip],
        sh.rows,
    );
    let st = batch.step(&events, kl);
    let active = st.blend_time.simd_lt(st.duration);
    // The old sources' blend keeps each character's hemispheres (anew
    // where a source wraps around), its layers' too.
    let ab = &mut scratch.kept_ab_flips;
    gather_bits(ab, &store.ab_flips, j, &at);
    let lf = &mut scratch.kept_layer_flips;
    gather_bits(lf, &store.layer_flips, store.layer_flips.per(), &at);
    // ... and where the character was carried last step (level of
    // detail: its hemispheres were not kept up while it was not sampled).
    let carried = at.iter().enumerate().fold(0u8, |b, (l, &c)| {
        b | (((store.schedule[c / 8].carried >> (c % 8)) & 1) << l)
    });
    let anew = st.wrapped | carried;
    let fresh = mask(core::array::from_fn(|l| anew & (1 << l) != 0));
    if !active.any() {
        input::<CUBIC>(sh, &st, out, ((ab, fresh), &places), [&[], &[]]);
        layers::<CUBIC>(sh, (&st, kl), out, (lf, anew));
        return;
    }
    let old_a = &mut scratch.old_a;
    input::<CUBIC>(sh, &st, old_a, ((ab, fresh), &places), [&[], &[]]);
    layers::<CUBIC>(sh, (&st, kl), old_a, (lf, anew));
    if INERT {
        shown_inertialized(sh, store, &at, &st, out, scratch);
    } else {
        shown_dead_blended(sh, store, &at, &st, out, scratch);
    }
}

/// The shown poses of [`shown_batch`] while a transition runs, by
/// inertialization: the characters `at`'s offsets gathered into lanes,
/// applied to their old sources' input (`scratch.old_a`).
#[inline(always)]
fn shown_inertialized(
    sh: &Shared,
    store: &PackStore,
    at: &[usize; 8],
    st: &Stepx8,
    out: &mut [Motionx8],
    scratch: &mut PackScratch,
) {
    let (kt, ks) = (&mut scratch.kept_turns, &mut scratch.kept_shifts);
    for (l, &c) in at.iter().enumerate() {
        let (p, cl) = (c / 8, c % 8);
        kt.iter_mut()
            .zip(store.turns.pack(p))
            .for_each(|(k, t)| copy_lane(k, l, t, cl));
        ks.iter_mut()
            .zip(store.shifts.pack(p))
            .for_each(|(k, t)| copy_lane(k, l, t, cl));
    }
    let (bt, dur) = (st.blend_time, st.duration);
    match Profiles::of(sh.layout, st.profile, bt.simd_lt(dur)) {
        None => inertialize_pass(
            out,
            &scratch.old_a,
            (kt, ks),
            sh.tracks,
            &CubicWeights::new(bt, dur),
        ),
        Some(p) => inertialize_profiled(out, &scratch.old_a, (kt, ks), sh.tracks, (bt, dur), &p),
    }
}

/// The shown poses of [`shown_batch`] while a transition runs, by dead
/// blending: the characters `at`'s transition poses, hemispheres and
/// fitted half-lives gathered into lanes, blended into their old sources'
/// input (`scratch.old_a`).
#[inline(always)]
fn shown_dead_blended(
    sh: &Shared,
    store: &PackStore,
    at: &[usize; 8],
    st: &Stepx8,
    out: &mut [Motionx8],
    scratch: &mut PackScratch,
) {
    let j = out.len();
    let (kp, kq) = (&mut scratch.kept_poses, &mut scratch.kept_dead_flips);
    let (kr, ks) = (&mut scratch.kept_fit_rot, &mut scratch.kept_fit_pos);
    let fitted = sh.fit.is_some();
    for (l, &c) in at.iter().enumerate() {
        let (p, cl) = (c / 8, c % 8);
        kp.iter_mut()
            .zip(store.transition.pack(p))
            .for_each(|(k, t)| copy_lane(k, l, t, cl));
        if fitted {
            let rows = (store.fit_rot.pack(p), store.fit_pos.pack(p));
            copy_rows_lane((kr, ks), l, rows, cl);
        }
    }
    gather_bits(kq, &store.dead_flips, j, at);
    let active = st.blend_time.simd_lt(st.duration);
    if let Some(p) = Profiles::of(sh.layout, st.profile, active) {
        let tm = DeadTiming {
            t: st.blend_time,
            duration: st.duration,
            dt: splat(sh.dt),
            halflife: st.halflife,
            fitted: fitted.then_some((&kr[..], &ks[..])),
        };
        let kept = (&kp[..], (&mut kq[..], F32x8::ZERO));
        dead_blend_profiled(out, &scratch.old_a, kept, sh.tracks, tm, &p, opaque(active));
        return;
    }
    let decay = match fitted {
        true => Decay::Fitted {
            t: st.blend_time,
            rot: kr,
            pos: ks,
        },
        false => {
            let (alpha, dalpha) = lanes::extrapolate_decayed_weights(st.blend_time, st.halflife);
            Decay::One(alpha, dalpha)
        }
    };
    dead_blend_pass(
        out,
        &scratch.old_a,
        (kp, (kq, F32x8::ZERO)),
        sh.tracks,
        decay,
        fade(st.blend_time, st.duration, splat(sh.dt)),
        opaque(active),
    );
}
