//! Transitions of one joint: the inertialization offset and its decay,
//! dead blending's extrapolation and blend, one joint or two at a time.

use super::*;
use crate::lanes::{self, CubicWeights, F32x8, Quatx8, Rotor, Vec3x8, splat};

/// The offset from the displayed pose `l` to the new input `r`
/// ([`crate::reference::op_inertialize_offset`], rotation stored as a half-angle vector;
/// [`lanes::quat_log_short`] applies, `quat_abs` giving `w >= 0`). The
/// rotational offset's velocity is kept as the rate of its scaled angle
/// axis, `J(x)⁻¹ ang` ([`lanes::exp_map_dx_inv`]), which the cubic decays
/// ([`crate::reference::op_inertialize`] converts it every step; the crowd once).
#[inline(always)]
pub(crate) fn offset_between(l: &Motionx8, r: &Motionx8) -> (TurnOffsetx8, ShiftOffsetx8) {
    let rot = lanes::quat_abs(lanes::quat_mul_inv(l.rot, r.rot));
    let u = rot.xyz();
    let k = lanes::quat_log_short_factor(rot.w, lanes::dot(u, u));
    let half = u * k;
    let ang = l.ang - Rotor::new(rot).apply(r.ang);
    let turn = TurnOffsetx8 {
        rot: half,
        ang: lanes::exp_map_dx_inv(half + half, ang, rot.w * k),
    };
    let shift = ShiftOffsetx8 {
        pos: l.pos - r.pos,
        vel: l.vel - r.vel,
    };
    (turn, shift)
}

/// [`lanes::quat_exp`] and `σ = sin|v| / |v|` ([`lanes::quat_exp_sinc`]),
/// through [`lanes::quat_exp_short_scaled_parts`] when every lane is in
/// its domain (`|v| <= π/2`, nearly always for decaying offsets and
/// sampling steps): a branch taken by the whole pack, so no lane is ever
/// evaluated outside the domain.
#[inline(always)]
pub(crate) fn quat_exp_any_sinc(v: Vec3x8) -> (Quatx8, F32x8) {
    let v2 = lanes::dot(v, v);
    if v2.simd_le(splat(EXP_SHORT2)).all() {
        quat_exp_sinc_in::<true>(v, v2)
    } else {
        quat_exp_sinc_in::<false>(v, v2)
    }
}

/// The largest `|v|²` for the short form of [`quat_exp_any_sinc`]: `(π/2)²`.
const EXP_SHORT2: f32 = core::f32::consts::FRAC_PI_2 * core::f32::consts::FRAC_PI_2;

/// [`quat_exp_any_sinc`] with its form decided (`SHORT`: every lane's
/// `v2 = v·v` within [`EXP_SHORT2`]).
#[inline(always)]
fn quat_exp_sinc_in<const SHORT: bool>(v: Vec3x8, v2: F32x8) -> (Quatx8, F32x8) {
    if SHORT {
        let (c, sigma) = lanes::quat_exp_short_scaled_parts(splat(1.0), v2);
        (Quatx8::new(c, v.x * sigma, v.y * sigma, v.z * sigma), sigma)
    } else {
        lanes::quat_exp_sinc(v)
    }
}

/// The decayed offset applied to the input ([`crate::reference::op_inertialize`]), its
/// angular velocity `J(x) x'` of the decaying scaled angle axis `x`
/// ([`lanes::exp_map_dx`]). Lanes past their transition need no select:
/// their weights are exactly zero, so the offset is the identity and the
/// input passes through unchanged (bit for bit, offsets being finite).
#[inline(always)]
pub(crate) fn inertialize_joint(
    t: &TurnOffsetx8,
    s: &ShiftOffsetx8,
    i: &Motionx8,
    w: &CubicWeights,
) -> Motionx8 {
    let x = w.offset_of_doubled(t.rot, t.ang);
    let h = x * splat(0.5);
    let h2 = lanes::dot(h, h);
    if h2.simd_le(splat(EXP_SHORT2)).all() {
        inertialize_joint_in::<true>(t, s, i, w, (x, h2))
    } else {
        inertialize_joint_in::<false>(t, s, i, w, (x, h2))
    }
}

/// [`inertialize_joint`] of two joints' rotations (their positions fixed),
/// the exponential's form chosen for both at once (see
/// [`sample_linear_rows2`]).
#[inline(always)]
pub(crate) fn inertialize_turns2(
    t: [&TurnOffsetx8; 2],
    i: [&Motionx8; 2],
    w: &CubicWeights,
) -> [Motionx8; 2] {
    let s = &ShiftOffsetx8::ZERO;
    let x = [
        w.offset_of_doubled(t[0].rot, t[0].ang),
        w.offset_of_doubled(t[1].rot, t[1].ang),
    ];
    let h = [x[0] * splat(0.5), x[1] * splat(0.5)];
    let h2 = [lanes::dot(h[0], h[0]), lanes::dot(h[1], h[1])];
    let short = splat(EXP_SHORT2);
    if (h2[0].simd_le(short) & h2[1].simd_le(short)).all() {
        [
            inertialize_joint_in::<true>(t[0], s, i[0], w, (x[0], h2[0])),
            inertialize_joint_in::<true>(t[1], s, i[1], w, (x[1], h2[1])),
        ]
    } else {
        [
            inertialize_joint_in::<false>(t[0], s, i[0], w, (x[0], h2[0])),
            inertialize_joint_in::<false>(t[1], s, i[1], w, (x[1], h2[1])),
        ]
    }
}

/// [`inertialize_joint`] given the decayed scaled angle axis `x` and
/// `h2 = |x/2|²`, the exponential's form decided (`SHORT`, see
/// [`quat_exp_any_sinc`]).
#[inline(always)]
fn inertialize_joint_in<const SHORT: bool>(
    t: &TurnOffsetx8,
    s: &ShiftOffsetx8,
    i: &Motionx8,
    w: &CubicWeights,
    (x, h2): (Vec3x8, F32x8),
) -> Motionx8 {
    let (off_rot, sigma) = quat_exp_sinc_in::<SHORT>(x * splat(0.5), h2);
    let off_ang = lanes::exp_map_dx(x, w.velocity_of_doubled(t.rot, t.ang), off_rot.w, sigma);
    Motionx8 {
        pos: i.pos + w.offset(s.pos, s.vel),
        rot: lanes::quat_mul(off_rot, i.rot),
        vel: i.vel + w.velocity(s.pos, s.vel),
        ang: Rotor::new(off_rot).apply_add(i.ang, off_ang),
    }
}

/// Dead blending of one joint: the transition pose extrapolated with
/// `(alpha, dalpha)` (its turn capped, [`lanes::extrapolation_turn_scale`]),
/// blended into `input` with weight `a` changing at `ar` per second along
/// the relative rotation in the hemisphere `flip` says ([`blend_kept`],
/// [`crate::reference::op_dead_blending`]).
#[inline(always)]
pub(crate) fn dead_blend_joint(
    tp: &Motionx8,
    input: &Motionx8,
    flip: (&mut u8, F32x8),
    ex: (F32x8, F32x8),
    a: F32x8,
    ar: F32x8,
) -> Motionx8 {
    blend_kept(&extrapolated(tp, ex), input, flip, a, ar)
}

/// [`dead_blend_joint`] of two joints, the blend's forms chosen for both
/// at once ([`blend_kept2`]).
#[inline(always)]
pub(crate) fn dead_blend_joints2(
    tp: [&Motionx8; 2],
    input: [&Motionx8; 2],
    flips: [(&mut u8, F32x8); 2],
    ex: (F32x8, F32x8),
    a: F32x8,
    ar: F32x8,
) -> [Motionx8; 2] {
    let e = [extrapolated(tp[0], ex), extrapolated(tp[1], ex)];
    blend_kept2([&e[0], &e[1]], input, flips, a, ar)
}

/// The transition pose `tp` extrapolated with `(alpha, dalpha)`, its turn
/// capped ([`lanes::extrapolation_turn_scale`]).
#[inline(always)]
fn extrapolated(tp: &Motionx8, ex: (F32x8, F32x8)) -> Motionx8 {
    let moved = tp.ang * ex.0;
    let s = lanes::extrapolation_turn_scale(lanes::dot(moved, moved));
    Motionx8 {
        pos: tp.pos + tp.vel * ex.0,
        rot: lanes::quat_mul(lanes::quat_from_scaled_angle_axis(moved * s), tp.rot),
        vel: tp.vel * ex.1,
        ang: tp.ang * (ex.1 * (s * s * s)),
    }
}
