//! The poses the frame's transitioning characters would have shown,
//! computed before the packs run, eight characters at a time across
//! packs, from the whole crowd's kept state ([`Kept`]): where each new
//! transition starts.

use super::pack_step::Shared;
use super::sampling::input;
use super::scratch::PackScratch;
use super::transition::{dead_blend_pass, fade, inertialize_pass};
use crate::crowd::halflives::{Decay, copy_rows_lane};
use crate::crowd::motion::*;
use crate::crowd::state::Statex8;
use crate::lanes::{self, CubicWeights, F32x8, Vec3x8, splat};

/// The whole crowd's kept state, read by [`shown_batch`].
pub(crate) struct Kept<'a> {
    pub states: &'a [Statex8],
    pub turns: &'a [TurnOffsetx8],
    pub shifts: &'a [ShiftOffsetx8],
    pub transition: &'a [Motionx8],
    pub dead_flips: &'a [u8],
    pub ab_flips: &'a [u8],
    pub fit_rot: &'a [Vec3x8],
    pub fit_pos: &'a [Vec3x8],
    pub turning: usize,
    pub moving: usize,
}

/// The poses that up to eight transitioning characters (`movers`, from any
/// packs) would have shown this frame without their commands, into `out`:
/// their states advanced, their sources sampled and blended, then
/// inertialized or dead-blended with their packs' kept state gathered into
/// lanes. Lanes past `movers.len()` repeat its last character. `out` holds
/// the rest pose where nothing moves (see [`PackScratch`]).
pub(crate) fn shown_batch<const CUBIC: bool, const INERT: bool>(
    sh: &Shared,
    movers: &[u32],
    kept: &Kept,
    out: &mut [Motionx8],
    scratch: &mut PackScratch,
) {
    let j = out.len();
    let at: [usize; 8] = core::array::from_fn(|i| movers[i.min(movers.len() - 1)] as usize);
    let mut batch = kept.states[at[0] / 8];
    for (l, &c) in at.iter().enumerate() {
        batch.copy_lane(l, &kept.states[c / 8], c % 8);
    }
    let dt = splat(sh.dt);
    let events = batch.advance(dt);
    let st = batch.step(events);
    let active = st.blend_time.simd_lt(st.duration);
    // The old sources' blend keeps each character's hemispheres (anew
    // where a source wraps around).
    let ab = &mut scratch.kept_ab_flips;
    gather_bits(ab, kept.ab_flips, j, &at);
    let fresh = mask(core::array::from_fn(|l| st.wrapped & (1 << l) != 0));
    if !active.any() {
        input::<CUBIC>(sh, &st, out, (ab, fresh), [&[], &[]]);
        return;
    }
    let old_a = &mut scratch.old_a;
    input::<CUBIC>(sh, &st, old_a, (ab, fresh), [&[], &[]]);
    if INERT {
        let (kt, ks) = (&mut scratch.kept_turns, &mut scratch.kept_shifts);
        for (l, &c) in at.iter().enumerate() {
            let (p, cl) = (c / 8, c % 8);
            let turns = &kept.turns[p * kept.turning..][..kept.turning];
            let shifts = &kept.shifts[p * kept.moving..][..kept.moving];
            kt.iter_mut()
                .zip(turns)
                .for_each(|(k, t)| copy_lane(k, l, t, cl));
            ks.iter_mut()
                .zip(shifts)
                .for_each(|(k, t)| copy_lane(k, l, t, cl));
        }
        let w = CubicWeights::new(st.blend_time, st.duration);
        inertialize_pass(out, old_a, (kt, ks), sh.tracks, &w);
    } else {
        let (kp, kq) = (&mut scratch.kept_poses, &mut scratch.kept_dead_flips);
        let (kr, ks) = (&mut scratch.kept_fit_rot, &mut scratch.kept_fit_pos);
        let fitted = sh.fit.is_some();
        for (l, &c) in at.iter().enumerate() {
            let (p, cl) = (c / 8, c % 8);
            let poses = &kept.transition[p * j..][..j];
            kp.iter_mut()
                .zip(poses)
                .for_each(|(k, t)| copy_lane(k, l, t, cl));
            if fitted {
                let rot = &kept.fit_rot[p * kept.turning..][..kept.turning];
                let pos = &kept.fit_pos[p * kept.moving..][..kept.moving];
                copy_rows_lane((kr, ks), l, (rot, pos), cl);
            }
        }
        gather_bits(kq, kept.dead_flips, j, &at);
        let decay = match fitted {
            true => Decay::Fitted {
                t: st.blend_time,
                rot: kr,
                pos: ks,
            },
            false => {
                let (alpha, dalpha) =
                    lanes::extrapolate_decayed_weights(st.blend_time, st.halflife);
                Decay::One(alpha, dalpha)
            }
        };
        dead_blend_pass(
            out,
            old_a,
            (kp, (kq, F32x8::ZERO)),
            sh.tracks,
            decay,
            fade(st.blend_time, st.duration, dt),
            opaque(active),
        );
    }
}
