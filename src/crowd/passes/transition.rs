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
    match decay {
        Decay::One(alpha, dalpha) => {
            let ex = (alpha, dalpha);
            let mut pending: Option<usize> = None;
            let n = out.len().min(pose.len()).min(transition.len());
            for j in 1..n.min(tracks.len()).min(flips.len()) {
                match tracks[j] {
                    Track::Still => {}
                    Track::Moves(..) => {
                        let (t, m) = (&transition[j], &pose[j]);
                        let b = dead_blend_joint(t, m, (&mut flips[j], fresh), ex, fade.0, fade.1);
                        out[j] = select_motion(mask, &b, m);
                    }
                    // Turning joints two at a time (see `Sampler::sample_blend`).
                    Track::Turns(_) => match pending.take() {
                        None => pending = Some(j),
                        Some(p) => {
                            let (flo, fhi) = flips.split_at_mut(j);
                            let [b0, b1] = dead_blend_joints2(
                                [&transition[p], &transition[j]],
                                [&pose[p], &pose[j]],
                                [(&mut flo[p], fresh), (&mut fhi[0], fresh)],
                                ex,
                                fade.0,
                                fade.1,
                            );
                            put_turn(&mut out[p], select_motion(mask, &b0, &pose[p]));
                            put_turn(&mut out[j], select_motion(mask, &b1, &pose[j]));
                        }
                    },
                }
            }
            if let Some(p) = pending {
                let (t, m) = (&transition[p], &pose[p]);
                let b = dead_blend_joint(t, m, (&mut flips[p], fresh), ex, fade.0, fade.1);
                put_turn(&mut out[p], select_motion(mask, &b, m));
            }
        }
        Decay::Fitted { t: bt, rot, pos } => {
            let joints = out.iter_mut().zip(pose).zip(transition.iter().zip(tracks));
            let joints = joints.zip(flips.iter_mut()).skip(1);
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

#[cfg(test)]
mod tests {
    //! The passes walk turning joints two at a time; each joint must get
    //! what the single-joint function gives it (its own offsets, pose,
    //! transition pose and hemisphere bit), whatever its neighbours hold.
    use super::*;
    use crate::crowd::passes::testing::{close, lanes, motions, vec3};
    use crate::lanes::splat;
    use rand::{Rng, SeedableRng};

    /// Joint 0 the root (not read), then an odd number of turning joints
    /// with a moving joint between two that pair (its pending partner
    /// waits across it) and a still joint between two more.
    const TRACKS: [Track; 8] = [
        Track::Still,
        Track::Turns(0),
        Track::Moves(1, 0),
        Track::Turns(2),
        Track::Turns(3),
        Track::Still,
        Track::Turns(4),
        Track::Turns(5),
    ];

    #[test]
    fn dead_blend_pass_gives_each_joint_its_own_blend() {
        let mut r = rand_pcg::Pcg32::seed_from_u64(7);
        for round in 0..50 {
            let pose = motions(&mut r, 8);
            let tp = motions(&mut r, 8);
            let flips: Vec<u8> = (0..8).map(|_| r.random()).collect();
            let fresh = crate::crowd::motion::lane_mask(r.random());
            let mask = crate::crowd::motion::lane_mask(r.random());
            let ex = (lanes(&mut r, 0.0, 1.0), lanes(&mut r, -2.0, 0.0));
            let fade = (lanes(&mut r, 0.0, 1.0), lanes(&mut r, 0.0, 5.0));
            // Odd rounds with half-lives fitted per joint and axis (rows
            // as the tracks give them: turns 0..6, one position row).
            let fitted = round % 2 == 1;
            let half = |r: &mut rand_pcg::Pcg32| {
                Vec3x8::new(lanes(r, 0.1, 1.0), lanes(r, 0.1, 1.0), lanes(r, 0.1, 1.0))
            };
            let rot: Vec<Vec3x8> = (0..6).map(|_| half(&mut r)).collect();
            let pos = [half(&mut r)];
            let t = lanes(&mut r, 0.0, 0.5);
            let decay = match fitted {
                true => Decay::Fitted {
                    t,
                    rot: &rot,
                    pos: &pos,
                },
                false => Decay::One(ex.0, ex.1),
            };
            let mut out = pose.clone();
            let mut got_flips = flips.clone();
            dead_blend_pass(
                &mut out,
                &pose,
                (&tp, (&mut got_flips, fresh)),
                &TRACKS,
                decay,
                fade,
                mask,
            );
            for (j, tr) in TRACKS.iter().enumerate().skip(1) {
                if *tr == Track::Still {
                    assert_eq!(out[j], pose[j], "round {round} joint {j}");
                    continue;
                }
                let mut flip = flips[j];
                let f = (&mut flip, fresh);
                let w = |h| lanes::extrapolate_decayed_axis_weights(t, h);
                let b = match (*tr, fitted) {
                    (_, false) => dead_blend_joint(&tp[j], &pose[j], f, ex, fade.0, fade.1),
                    (Track::Turns(k), true) => {
                        let still = (Vec3x8::ZERO, Vec3x8::ZERO);
                        let axes = (still, w(rot[k]));
                        dead_blend_joint_axes(&tp[j], &pose[j], f, axes, fade.0, fade.1)
                    }
                    (Track::Moves(k, s), true) => {
                        let axes = (w(pos[s]), w(rot[k]));
                        dead_blend_joint_axes(&tp[j], &pose[j], f, axes, fade.0, fade.1)
                    }
                    (Track::Still, true) => unreachable!(),
                };
                let mut want = select_motion(mask, &b, &pose[j]);
                if matches!(tr, Track::Turns(_)) {
                    (want.pos, want.vel) = (pose[j].pos, pose[j].vel);
                }
                close(&out[j], &want, &format!("round {round} joint {j}"));
                assert_eq!(
                    got_flips[j], flip,
                    "round {round} joint {j}: hemisphere bits"
                );
            }
        }
    }

    #[test]
    fn inertialize_pass_gives_each_joint_its_own_offset() {
        let mut r = rand_pcg::Pcg32::seed_from_u64(11);
        for round in 0..50 {
            let pose = motions(&mut r, 8);
            let turns: Vec<TurnOffsetx8> = (0..6)
                .map(|_| TurnOffsetx8 {
                    rot: vec3(&mut r, 1.0),
                    ang: vec3(&mut r, 4.0),
                })
                .collect();
            let shifts = [ShiftOffsetx8 {
                pos: vec3(&mut r, 1.0),
                vel: vec3(&mut r, 2.0),
            }];
            let w = CubicWeights::new(lanes(&mut r, 0.0, 0.4), splat(0.3));
            let mut out = pose.clone();
            inertialize_pass(&mut out, &pose, (&turns, &shifts), &TRACKS, &w);
            for (j, t) in TRACKS.iter().enumerate().skip(1) {
                let want = match *t {
                    Track::Still => pose[j],
                    Track::Turns(k) => {
                        let m = inertialize_joint(&turns[k], &ShiftOffsetx8::ZERO, &pose[j], &w);
                        Motionx8 {
                            pos: pose[j].pos,
                            vel: pose[j].vel,
                            ..m
                        }
                    }
                    Track::Moves(k, s) => inertialize_joint(&turns[k], &shifts[s], &pose[j], &w),
                };
                close(&out[j], &want, &format!("round {round} joint {j}"));
            }
        }
    }
}
