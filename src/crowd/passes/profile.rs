//! Blend profiles in a pack's transitions ([`crate::crowd::BlendProfile`]):
//! where a lane whose transition runs has one, each joint blends over its
//! own share of the duration (dead blending's half-lives scaled the same)
//! or snaps. These passes take the transitions of such packs one joint at
//! a time; packs whose transitions have no profile keep the passes of
//! `transition`, paired and with one set of weights for every joint.

use super::transition::fade;
use crate::crowd::halflives::dead_blend_joint_axes;
use crate::crowd::layer::Layout;
use crate::crowd::motion::*;
use crate::lanes::{self, CubicWeights, F32x8, I32x8, Vec3x8, splat};

/// The profile rows of a pack's (or a batch's) lanes.
#[derive(Clone, Copy)]
pub(super) struct Profiles<'a> {
    layout: &'a Layout,
    rows: [usize; 8],
}

impl<'a> Profiles<'a> {
    /// The rows `profile` gives each lane, or `None` where no lane of
    /// `lanes` has a profile.
    #[inline(always)]
    pub(super) fn of(layout: &'a Layout, profile: I32x8, lanes: F32x8) -> Option<Profiles<'a>> {
        let with: F32x8 = bytemuck::cast(profile.simd_ne(I32x8::ZERO));
        if !(with & lanes).any() {
            return None;
        }
        let rows = profile.to_array().map(|p| p.max(0) as usize);
        Some(Profiles { layout, rows })
    }

    /// Joint `j`'s scale of the duration in each lane (0: it snaps).
    #[inline(always)]
    pub(super) fn scale(&self, j: usize) -> F32x8 {
        F32x8::new(self.rows.map(|row| self.layout.scale(row, j)))
    }

    /// The lanes that snap joint `j`.
    #[inline(always)]
    pub(super) fn snaps(&self, j: usize) -> F32x8 {
        self.scale(j).simd_eq(F32x8::ZERO)
    }
}

/// [`super::transition::inertialize_pass`] with each joint's offsets
/// decayed over its own duration, `duration` times its scale (joints that
/// snap have no offset: [`clear_snapped`]).
#[inline(never)]
pub(super) fn inertialize_profiled(
    out: &mut [Motionx8],
    pose: &[Motionx8],
    (turns, shifts): (&[TurnOffsetx8], &[ShiftOffsetx8]),
    tracks: &[Track],
    (blend_time, duration): (F32x8, F32x8),
    p: &Profiles,
) {
    for j in 1..out.len().min(pose.len()).min(tracks.len()) {
        let w = || CubicWeights::new(blend_time, duration * p.scale(j));
        match tracks[j] {
            Track::Still => {}
            Track::Turns(k) => {
                let m = inertialize_joint(&turns[k], &ShiftOffsetx8::ZERO, &pose[j], &w());
                put_turn(&mut out[j], m);
            }
            Track::Moves(k, s) => out[j] = inertialize_joint(&turns[k], &shifts[s], &pose[j], &w()),
        }
    }
}

/// At a transition's start, the offsets of the joints that the `m` lanes'
/// profiles snap cleared, so those joints show the new pose at once.
#[inline(always)]
pub(super) fn clear_snapped(
    m: F32x8,
    p: &Profiles,
    tracks: &[Track],
    (turns, shifts): (&mut [TurnOffsetx8], &mut [ShiftOffsetx8]),
) {
    for (j, t) in tracks.iter().enumerate().skip(1) {
        let (k, s) = match *t {
            Track::Still => continue,
            Track::Turns(k) => (k, None),
            Track::Moves(k, s) => (k, Some(s)),
        };
        let snap = m & p.snaps(j);
        update_turn(snap, &TurnOffsetx8::ZERO, &mut turns[k]);
        if let Some(s) = s {
            update_shift(snap, &ShiftOffsetx8::ZERO, &mut shifts[s]);
        }
    }
}

/// When a dead blend's joints take its transition: blend time `t` of
/// `duration`, the step `dt`, the command's half-life, and the fitted
/// half-lives per axis where the crowd fits them (rotation rows, position
/// rows).
#[derive(Clone, Copy)]
pub(super) struct DeadTiming<'a> {
    pub t: F32x8,
    pub duration: F32x8,
    pub dt: F32x8,
    pub halflife: F32x8,
    pub fitted: Option<(&'a [Vec3x8], &'a [Vec3x8])>,
}

/// [`super::transition::dead_blend_pass`] with each joint's fade over its
/// own duration and its extrapolation at its own half-lives (both scaled by
/// its profile); a joint that snaps shows the input (fade 1).
#[inline(never)]
pub(super) fn dead_blend_profiled(
    out: &mut [Motionx8],
    pose: &[Motionx8],
    (transition, (flips, fresh)): (&[Motionx8], (&mut [u8], F32x8)),
    tracks: &[Track],
    tm: DeadTiming,
    p: &Profiles,
    mask: F32x8,
) {
    let n = out.len().min(pose.len()).min(transition.len());
    for j in 1..n.min(tracks.len()).min(flips.len()) {
        let (k, s) = match tracks[j] {
            Track::Still => continue,
            Track::Turns(k) => (k, None),
            Track::Moves(k, s) => (k, Some(s)),
        };
        let scale = p.scale(j);
        let snap = scale.simd_eq(F32x8::ZERO);
        let (fa, fr) = fade(tm.t, tm.duration * scale, tm.dt);
        let (fa, fr) = (snap.select(splat(1.0), fa), snap.select(F32x8::ZERO, fr));
        let (tp, m, flip) = (&transition[j], &pose[j], (&mut flips[j], fresh));
        let b = match tm.fitted {
            None => {
                let ex = lanes::extrapolate_decayed_weights(tm.t, tm.halflife * scale);
                dead_blend_joint(tp, m, flip, ex, fa, fr)
            }
            Some((rot, pos)) => {
                let w = |h: Vec3x8| lanes::extrapolate_decayed_axis_weights(tm.t, h * scale);
                let still = (Vec3x8::ZERO, Vec3x8::ZERO);
                let pw = s.map_or(still, |s| w(pos[s]));
                dead_blend_joint_axes(tp, m, flip, (pw, w(rot[k])), fa, fr)
            }
        };
        match s {
            Some(_) => out[j] = select_motion(mask, &b, m),
            None => put_turn(&mut out[j], select_motion(mask, &b, m)),
        }
    }
}
