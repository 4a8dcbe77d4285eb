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
    for ((r, m), t) in out.iter_mut().zip(pose).zip(tracks).skip(1) {
        match *t {
            Track::Still => {}
            Track::Turns(k) => {
                let zero = ShiftOffsetx8::ZERO;
                put_turn(r, inertialize_joint(&turns[k], &zero, m, w));
            }
            Track::Moves(k, s) => *r = inertialize_joint(&turns[k], &shifts[s], m, w),
        }
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
