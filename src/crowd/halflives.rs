//! Dead blending with half-lives fitted per joint and axis at each
//! transition ([`super::DeadBlendHalflives::Fitted`]): the fit's
//! parameters in lanes and the fit of one joint at a transition, how a
//! dead blend's extrapolation decays (one half-life or fitted ones), and
//! one joint's dead blend with per-axis weights. The state they keep, per
//! pack, is a row of half-lives per axis for each turning joint
//! (rotations) and each moving joint (positions), numbered as [`Track`]
//! numbers the inertialization offsets.

use super::motion::{Motionx8, Track, bitselect_vec3, blend_kept, copy_lane, quat_exp_any_sinc};
use crate::lanes::{self, F32x8, Vec3x8, splat};

/// The parameters of dead blending's fitted half-lives
/// ([`super::DeadBlendHalflives::Fitted`]) in lanes.
#[derive(Clone, Copy)]
pub(crate) struct Fit {
    scale: F32x8,
    min: F32x8,
    max: F32x8,
}

impl Fit {
    pub(crate) fn new((scale, min, max): (f32, f32, f32)) -> Fit {
        Fit {
            scale: splat(scale),
            min: splat(min),
            max: splat(max),
        }
    }

    /// Fits joint `track`'s half-lives from the shown pose `src` to the
    /// new input `dst` ([`lanes::fit_joint_halflives`]) into the `m` lanes
    /// of its rows of `rot` and `pos` (rotations for a turning joint,
    /// positions too for a moving one).
    #[inline(always)]
    pub(crate) fn joint(
        &self,
        m: F32x8,
        (src, dst): (&Motionx8, &Motionx8),
        track: Track,
        (rot, pos): (&mut [Vec3x8], &mut [Vec3x8]),
    ) {
        let fit = || {
            lanes::fit_joint_halflives(
                src.pos, src.vel, src.rot, src.ang, dst.pos, dst.rot, self.scale, self.min,
                self.max,
            )
        };
        match track {
            Track::Still => {}
            Track::Turns(k) => rot[k] = bitselect_vec3(m, fit().1, rot[k]),
            Track::Moves(k, s) => {
                let (hp, hr) = fit();
                rot[k] = bitselect_vec3(m, hr, rot[k]);
                pos[s] = bitselect_vec3(m, hp, pos[s]);
            }
        }
    }
}

/// How a dead blend's extrapolation decays: one pair of weights `(alpha,
/// dalpha)` for every joint (the command's half-life,
/// [`lanes::extrapolate_decayed_weights`]), or per joint and axis from
/// fitted half-lives at blend time `t` (rotations for the turning joints'
/// rows, positions for the moving joints', as [`Track`] numbers them).
#[derive(Clone, Copy)]
pub(crate) enum Decay<'a> {
    One(F32x8, F32x8),
    Fitted {
        t: F32x8,
        rot: &'a [Vec3x8],
        pos: &'a [Vec3x8],
    },
}

/// Copies lane `from` of a pack's fitted half-lives `src` (rotation rows,
/// position rows) into lane `to` of `dst`'s.
pub(crate) fn copy_rows_lane(
    (dst_rot, dst_pos): (&mut [Vec3x8], &mut [Vec3x8]),
    to: usize,
    (src_rot, src_pos): (&[Vec3x8], &[Vec3x8]),
    from: usize,
) {
    for (d, s) in dst_rot.iter_mut().zip(src_rot) {
        copy_lane(d, to, s, from);
    }
    for (d, s) in dst_pos.iter_mut().zip(src_pos) {
        copy_lane(d, to, s, from);
    }
}

/// [`dead_blend_joint`](super::motion::dead_blend_joint) with a half-life per axis
/// ([`crate::reference::op_extrapolate_decayed_axes`]): the transition pose
/// extrapolated with per-axis weights `(alpha, dalpha)` for its position
/// and its rotation ([`lanes::extrapolate_decayed_axis_weights`]), the
/// rotation's scaled angle axis `m = ang alpha` capped to `m s`
/// ([`lanes::extrapolation_turn_scale`]) with the exact angular velocity
/// `J(m s) (s ṁ - m s³ (m·ṁ) / θ²)` ([`lanes::exp_map_dx`];
/// [`lanes::extrapolate_decayed_rotation_axes`] with the exponential's
/// short form, `|m s| < π/2`), then blended as [`dead_blend_joint`](super::motion::dead_blend_joint).
#[inline(always)]
pub(crate) fn dead_blend_joint_axes(
    tp: &Motionx8,
    input: &Motionx8,
    flip: (&mut u8, F32x8),
    ((pa, pd), (ra, rd)): ((Vec3x8, Vec3x8), (Vec3x8, Vec3x8)),
    a: F32x8,
    ar: F32x8,
) -> Motionx8 {
    const INV_MAX2: f32 = 1.0
        / (crate::reference::EXTRAPOLATION_MAX_ANGLE * crate::reference::EXTRAPOLATION_MAX_ANGLE);
    let (moved, rate) = (tp.ang * ra, tp.ang * rd);
    let s = lanes::extrapolation_turn_scale(lanes::dot(moved, moved));
    let ds = -(s * s * s) * lanes::dot(moved, rate) * splat(INV_MAX2);
    let (m, dm) = (moved * s, rate * s + moved * ds);
    let (q, sigma) = quat_exp_any_sinc(m * splat(0.5));
    let e = Motionx8 {
        pos: tp.pos + tp.vel * pa,
        rot: lanes::quat_mul(q, tp.rot),
        vel: tp.vel * pd,
        ang: lanes::exp_map_dx(m, dm, q.w, sigma),
    };
    blend_kept(&e, input, flip, a, ar)
}
