//! Blending one joint of two poses along a kept hemisphere (two-source
//! blends and dead blending's blend), with the slerp's exact angular
//! velocity, one joint or two at a time.

use super::*;
use crate::lanes::{self, F32x8, I32x8, Quatx8, Vec3x8, splat};

/// Blend of one joint, `exp(t log d) a` along `d = ±(b a⁻¹)`, velocities
/// lerped plus `(b - a) rate`, the angular velocity the slerp's exact one
/// ([`lanes::slerp_dx_parts`]). `d`'s sign: in the `fresh` lanes the short
/// way round (`w >= 0`, [`crate::reference::op_blend`]), in the others the
/// one kept in `flip` (bit per lane; updated), so the blend moves
/// continuously however far apart the two rotations turn (two-source
/// blends and dead blending, [`crate::reference::op_dead_blending`]).
#[inline(always)]
pub(crate) fn blend_kept(
    a: &Motionx8,
    b: &Motionx8,
    flip: (&mut u8, F32x8),
    alpha: F32x8,
    rate: F32x8,
) -> Motionx8 {
    let d = kept_rel(a, b, flip);
    blend_rel(a, b, d, alpha, rate)
}

/// [`blend_kept`] of two joints, the logarithm's form chosen for both at
/// once (see [`sample_linear_rows2`]).
#[inline(always)]
pub(crate) fn blend_kept2(
    a: [&Motionx8; 2],
    b: [&Motionx8; 2],
    flips: [(&mut u8, F32x8); 2],
    alpha: F32x8,
    rate: F32x8,
) -> [Motionx8; 2] {
    let [f0, f1] = flips;
    let d = [kept_rel(a[0], b[0], f0), kept_rel(a[1], b[1], f1)];
    if (d[0].w.simd_ge(F32x8::ZERO) & d[1].w.simd_ge(F32x8::ZERO)).all() {
        [
            blend_rel_in::<true>(a[0], b[0], d[0], alpha, rate),
            blend_rel_in::<true>(a[1], b[1], d[1], alpha, rate),
        ]
    } else {
        [
            blend_rel_in::<false>(a[0], b[0], d[0], alpha, rate),
            blend_rel_in::<false>(a[1], b[1], d[1], alpha, rate),
        ]
    }
}

/// The relative rotation `d = ±(b a⁻¹)` of [`blend_kept`], its hemisphere
/// chosen anew in the `fresh` lanes, kept in `flip` elsewhere (updated).
#[inline(always)]
fn kept_rel(a: &Motionx8, b: &Motionx8, flip: (&mut u8, F32x8)) -> Quatx8 {
    kept_sign(lanes::quat_mul_inv(b.rot, a.rot), flip)
}

/// `±raw`: the short way round (`w >= 0`) in the `fresh` lanes, the sign
/// kept in `flip` elsewhere (bit per lane; updated).
#[inline(always)]
fn kept_sign(raw: Quatx8, (flip, fresh): (&mut u8, F32x8)) -> Quatx8 {
    let m = fresh.bitselect(raw.w.simd_lt(F32x8::ZERO), lane_mask(*flip));
    *flip = m.to_bitmask() as u8;
    let sign = m & splat(-0.0);
    Quatx8::new(raw.w ^ sign, raw.x ^ sign, raw.y ^ sign, raw.z ^ sign)
}

/// The blend `exp(t log d) a` toward `b = ±d a`. Where every lane's `d`
/// has `w >= 0` (nearly always) the logarithm and exponential take their short forms:
/// `log d = k v` with `v` the relative rotation's vector part
/// ([`lanes::quat_log_short_factor`]), so `t log d` scales `v` once, and
/// `|t log d|² = (k t)² (v·v)`; else the general ones
/// ([`lanes::quat_slerp_parts`]), a branch taken by the whole pack.
#[inline(always)]
pub(crate) fn blend_rel(
    a: &Motionx8,
    b: &Motionx8,
    d: Quatx8,
    alpha: F32x8,
    rate: F32x8,
) -> Motionx8 {
    if d.w.simd_ge(F32x8::ZERO).all() {
        blend_rel_in::<true>(a, b, d, alpha, rate)
    } else {
        blend_rel_in::<false>(a, b, d, alpha, rate)
    }
}

/// [`blend_rel`] with the form decided: `SHORT` where every lane's `d.w >= 0`.
#[inline(always)]
fn blend_rel_in<const SHORT: bool>(
    a: &Motionx8,
    b: &Motionx8,
    d: Quatx8,
    alpha: F32x8,
    rate: F32x8,
) -> Motionx8 {
    let v = d.xyz();
    if SHORT {
        let l2 = lanes::dot(v, v);
        let k = lanes::quat_log_short_factor(d.w, l2);
        let kt = k * alpha;
        let (ca, kb) = lanes::quat_exp_short_scaled_parts(kt, l2 * (kt * kt));
        blend_along(a, b, (v, d.w, ca, kb, k), alpha, rate)
    } else {
        let (ca, kb, k) = lanes::quat_slerp_parts(d, alpha);
        blend_along(a, b, (v, d.w, ca, kb, k), alpha, rate)
    }
}

/// An additive layer's joint: the layer's sample `s` against its clip's
/// reference frame (`r_rot`, `r_pos`) gives the delta `D = ±(s r⁻¹)`
/// (positions `s - r`), applied on the left of `a` at weight `alpha`
/// changing at `rate` ([`crate::reference::kform_additive_along`]): the
/// slerp toward `D a`, whose velocity is `a.vel + s.vel` and angular
/// velocity `s.ang + R(D) a.ang` (the delta turns as `s` does, the
/// reference frame is still), so [`blend_rel`]'s exact angular velocity is
/// the additive's. `D`'s hemisphere is kept in `flip` as [`blend_kept`]'s.
#[inline(always)]
pub(crate) fn additive_kept(
    a: &Motionx8,
    s: &Motionx8,
    (r_rot, r_pos): (Quatx8, Vec3x8),
    flip: (&mut u8, F32x8),
    alpha: F32x8,
    rate: F32x8,
) -> Motionx8 {
    let d = kept_sign(lanes::quat_mul_inv(s.rot, r_rot), flip);
    let full = Motionx8 {
        pos: a.pos + (s.pos - r_pos),
        rot: a.rot,
        vel: a.vel + s.vel,
        ang: lanes::Rotor::new(d).apply_add(a.ang, s.ang),
    };
    blend_rel(a, &full, d, alpha, rate)
}

/// The lanes whose bit is set in `bits`, as a mask.
#[inline(always)]
pub(crate) fn lane_mask(bits: u8) -> F32x8 {
    let lane = I32x8::new([1, 2, 4, 8, 16, 32, 64, 128]);
    let set = (I32x8::splat(bits as i32) & lane).simd_eq(lane);
    bytemuck::cast(set)
}

/// `out[joint]`, for each of a batch's lanes `l`, the bit of character
/// `at[l]` in the crowd's per-pack, per-joint `bits` (`j` joints a pack).
pub(crate) fn gather_bits(out: &mut [u8], bits: &[u8], j: usize, at: &[usize; 8]) {
    for (joint, o) in out.iter_mut().enumerate() {
        *o = at.iter().enumerate().fold(0u8, |acc, (l, &c)| {
            let bit = (bits[(c / 8) * j + joint] >> (c % 8)) & 1;
            acc | (bit << l)
        });
    }
}

/// The blend of [`blend_kept`] from the slerp's pieces (`u`, `c` the
/// relative rotation's parts, `exp(α log d) = (ca, kb u)`, `log d = k u`;
/// [`lanes::slerp_dx_parts`]).
#[inline(always)]
pub(crate) fn blend_along(
    a: &Motionx8,
    b: &Motionx8,
    (u, c, ca, kb, k): (Vec3x8, F32x8, F32x8, F32x8, F32x8),
    alpha: F32x8,
    rate: F32x8,
) -> Motionx8 {
    Motionx8 {
        pos: lanes::lerp_vec3(a.pos, b.pos, alpha),
        rot: lanes::quat_mul(Quatx8::new(ca, u.x * kb, u.y * kb, u.z * kb), a.rot),
        vel: lanes::lerp_vec3(a.vel, b.vel, alpha) + (b.pos - a.pos) * rate,
        ang: lanes::slerp_dx_parts(u, c, ca, kb, k, alpha, rate, (a.ang, b.ang)),
    }
}
