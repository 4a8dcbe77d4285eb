//! The transition passes, after sampling while a transition runs:
//! inertialization of the offsets, or dead blending of the extrapolated
//! transition pose into the input.

use crate::crowd::halflives::{Decay, dead_blend_joint_axes};
use crate::crowd::motion::*;
use crate::lanes::{self, CubicWeights, F32x8, Vec3x8};

/// Dead blending's fade at blend time `t` of `d`: the smoothstep weight
/// and its rate of change per second over a step of `dt`.
#[inline(always)]
pub(super) fn fade(t: F32x8, d: F32x8, dt: F32x8) -> (F32x8, F32x8) {
    (
        lanes::smoothstep_blend_alpha(t, d),
        lanes::smoothstep_blend_alpha_dx(t, d, dt) / dt,
    )
}

/// `out = inertialize(offsets, pose)` per joint (lanes past their
/// transition pass through; see [`inertialize_joint`]).
#[inline(never)]
pub(super) fn inertialize_pass(
    out: &mut [Motionx8],
    pose: &[Motionx8],
    (turns, shifts): (&[TurnOffsetx8], &[ShiftOffsetx8]),
    tracks: &[Track],
    w: &CubicWeights,
) {
    let mut pending: Option<(usize, usize)> = None;
    for j in 1..out.len().min(pose.len()).min(tracks.len()) {
        match tracks[j] {
            Track::Still => {}
            Track::Moves(k, s) => out[j] = inertialize_joint(&turns[k], &shifts[s], &pose[j], w),
            // Turning joints two at a time (see `Sampler::sample_blend`).
            Track::Turns(k) => match pending.take() {
                None => pending = Some((j, k)),
                Some((p, q)) => {
                    let [r0, r1] =
                        inertialize_turns2([&turns[q], &turns[k]], [&pose[p], &pose[j]], w);
                    put_turn(&mut out[p], r0);
                    put_turn(&mut out[j], r1);
                }
            },
        }
    }
    if let Some((p, q)) = pending {
        let zero = ShiftOffsetx8::ZERO;
        put_turn(
            &mut out[p],
            inertialize_joint(&turns[q], &zero, &pose[p], w),
        );
    }
}

/// `out = select(mask, dead_blend(transition, pose), pose)` per joint,
/// each joint's relative rotation's hemisphere in `flips` (chosen in the
/// `fresh` lanes, kept in the others), the extrapolation decaying as
/// `decay` says.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub(super) fn dead_blend_pass(
    out: &mut [Motionx8],
    pose: &[Motionx8],
    (transition, (flips, fresh)): (&[Motionx8], (&mut [u8], F32x8)),
    tracks: &[Track],
    decay: Decay,
    fade: (F32x8, F32x8),
    mask: F32x8,
) {
    let joints = out.iter_mut().zip(pose).zip(transition.iter().zip(tracks));
    let joints = joints.zip(flips.iter_mut()).skip(1);
    match decay {
        Decay::One(alpha, dalpha) => {
            for (((r, m), (t, track)), flip) in joints {
                let mut d = |m| {
                    let b = dead_blend_joint(t, m, (flip, fresh), (alpha, dalpha), fade.0, fade.1);
                    select_motion(mask, &b, m)
                };
                match track {
                    Track::Still => {}
                    Track::Turns(_) => put_turn(r, d(m)),
                    Track::Moves(..) => *r = d(m),
                }
            }
        }
        Decay::Fitted { t: bt, rot, pos } => {
            let weights = |h| lanes::extrapolate_decayed_axis_weights(bt, h);
            for (((r, m), (t, track)), flip) in joints {
                let mut d = |m, w| {
                    let b = dead_blend_joint_axes(t, m, (flip, fresh), w, fade.0, fade.1);
                    select_motion(mask, &b, m)
                };
                match *track {
                    Track::Still => {}
                    Track::Turns(k) => {
                        let still = (Vec3x8::ZERO, Vec3x8::ZERO);
                        put_turn(r, d(m, (still, weights(rot[k]))))
                    }
                    Track::Moves(k, s) => *r = d(m, (weights(pos[s]), weights(rot[k]))),
                }
            }
        }
    }
}
