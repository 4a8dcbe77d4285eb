//! Angular velocities of rotations built in scaled-angle-axis space for
//! eight characters ([`crate::reference::angular`] per lane).
//!
//! The reference composes Jacobians literally; here each is written in
//! the half-angle quantities a caller usually has at hand. For a rotation
//! `q = exp(v / 2) = (c, (σ/2) v)` with half-angle `x = |v| / 2`,
//! `c = cos x` and `σ = sin(x) / x`:
//!
//! - `J(v) dv = dv + (σ c - 1) dv⊥ + ½ σ² (v × dv)`,
//! - `J(v)⁻¹ ω = ω + (c / σ - 1) ω⊥ - ½ (v × ω)`,
//!
//! with `y⊥ = y - (y·v) v / |v|²` the part of `y` across `v` (the
//! component along `v` is left alone by both). For the slerp
//! `exp(α log d) a` toward `b = d a` with `d = (c, u)`, `s = |u| = sin x`,
//! `sa = sin(αx)`, `ca = cos(αx)`, the weights `kb = sa / s` and
//! `ka = ca - c kb` (the slerp's own coefficients `sin(αx)/sin x` and
//! `sin((1-α)x)/sin x`) and `cb = cos((1-α)x) = c ca + s sa`:
//!
//! `ω = α̇ w + ka ca ω_a + kb cb ω_b + ((1-α) - ka ca) P(ω_a)
//!      + (α - kb cb) P(ω_b) + ka kb (u × (ω_a - ω_b))`,
//!
//! `w` the scaled angle axis of `d` and `P(y) = (y·u) u / s²` the part of
//! `y` along the axis: along the axis the angular velocities lerp, across
//! it each is turned by part of the angle and weighted like the
//! quaternions. For close rotations it is the published
//! `lerp(ω_a, ω_b, α) + α̇ w`.

use super::math::{F32x8, Quatx8, Vec3x8, atan2_nonneg_y, cross, dot, quat_exp, sin_cos, splat};

/// Squared lengths below this count as zero where a direction is divided
/// out: the parts along and across an axis of length `1e-10` are below
/// any f32 difference of the results.
const TINY2: f32 = 1e-20;

/// `y` minus its part along `v`: `y - (y·v) v / |v|²`, with `|v|²` given
/// (`y` itself where `v` is zero).
#[inline(always)]
fn across(y: Vec3x8, v: Vec3x8, v2: F32x8) -> Vec3x8 {
    y - v * (dot(y, v) / v2.max(splat(TINY2)))
}

/// `J(v) dv` given `c = cos(|v|/2)` and `σ = sin(|v|/2) / (|v|/2)` of the
/// rotation `exp(v / 2)` (module docs): for callers that have already
/// built the rotation.
#[inline(always)]
pub fn exp_map_dx(v: Vec3x8, dv: Vec3x8, c: F32x8, sigma: F32x8) -> Vec3x8 {
    let v2 = dot(v, v);
    let half_s2 = splat(0.5) * sigma * sigma;
    dv + across(dv, v, v2) * sigma.mul_sub(c, splat(1.0)) + cross(v, dv) * half_s2
}

/// `J(v)⁻¹ ω` given `c / σ` of the rotation `exp(v / 2)` (module docs; for
/// a shortest-arc rotation `q` with `log(q) = k q.xyz`, `c / σ = q.w k`).
#[inline(always)]
pub fn exp_map_dx_inv(v: Vec3x8, w: Vec3x8, c_over_sigma: F32x8) -> Vec3x8 {
    let v2 = dot(v, v);
    w + across(w, v, v2) * (c_over_sigma - splat(1.0)) - cross(v, w) * splat(0.5)
}

/// The slerp's exact angular velocity (module docs) from its pieces: `u`
/// and `c` the relative rotation's vector and scalar parts, `ca` and `kb`
/// those of `exp(α log d) = (ca, kb u)`, `k` the logarithm's factor
/// (`log d = k u`), `alpha` and `rate` the weight and its rate per second,
/// `a` and `b` the two angular velocities.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn slerp_dx_parts(
    u: Vec3x8,
    c: F32x8,
    ca: F32x8,
    kb: F32x8,
    k: F32x8,
    alpha: F32x8,
    rate: F32x8,
    (a, b): (Vec3x8, Vec3x8),
) -> Vec3x8 {
    let s2 = dot(u, u);
    let ka = c.mul_neg_add(kb, ca);
    let cb = c.mul_add(ca, s2 * kb);
    let (wa, wb) = (ka * ca, kb * cb);
    let inv = splat(1.0) / s2.max(splat(TINY2));
    let pa = (splat(1.0) - alpha - wa) * dot(a, u) * inv;
    let pb = (alpha - wb) * dot(b, u) * inv;
    let t = (rate + rate) * k + pa + pb;
    a * wa + b * wb + u * t + cross(u, a - b) * (ka * kb)
}

/// `sin(x) / x` and `cos(x)` for `x >= 0` given `x` (1 and 1 at 0).
#[inline(always)]
fn sinc_cos(x: F32x8) -> (F32x8, F32x8) {
    let (s, c) = sin_cos(x);
    let tiny = x.simd_lt(splat(1e-10));
    (tiny.select(splat(1.0), s / x), c)
}

/// [`crate::reference::quat_from_scaled_angle_axis_dx`] per lane.
#[inline(always)]
pub fn quat_from_scaled_angle_axis_dx(v: Vec3x8, dv: Vec3x8) -> Vec3x8 {
    let x = splat(0.5) * dot(v, v).sqrt();
    let (sigma, c) = sinc_cos(x);
    exp_map_dx(v, dv, c, sigma)
}

/// `(c / σ, log factor)` of `q`: with `l = |q.xyz|`, `x = atan2(l, q.w)`,
/// the logarithm is `k q.xyz` with `k = x / l` (1 where `l` is zero), and
/// `c / σ = q.w k`.
#[inline(always)]
fn log_factor(q: Quatx8) -> F32x8 {
    let l2 = dot(q.xyz(), q.xyz());
    let l = l2.sqrt();
    l2.simd_lt(splat(TINY2))
        .select(splat(1.0), atan2_nonneg_y(l, q.w) / l)
}

/// [`crate::reference::quat_to_scaled_angle_axis_dx`] per lane.
#[inline(always)]
pub fn quat_to_scaled_angle_axis_dx(q: Quatx8, ang: Vec3x8) -> Vec3x8 {
    let k = log_factor(q);
    let v = q.xyz() * (k + k);
    exp_map_dx_inv(v, ang, q.w * k)
}

/// The pieces of the slerp `exp(α log d)` for a unit `d` in either
/// hemisphere: `(ca, kb, k)` with `exp(α log d) = (ca, kb d.xyz)` and
/// `log d = k d.xyz` (module docs; `kb = α k sinc(α x)`).
#[inline(always)]
pub fn quat_slerp_parts(rel: Quatx8, alpha: F32x8) -> (F32x8, F32x8, F32x8) {
    let u = rel.xyz();
    let k = log_factor(rel);
    let x = k * dot(u, u).sqrt();
    let (sinc, ca) = sinc_cos(alpha * x);
    (ca, alpha * k * sinc, k)
}

/// [`crate::reference::quat_slerp_dx`] per lane.
#[inline(always)]
pub fn quat_slerp_dx(
    rel: Quatx8,
    alpha: F32x8,
    alpha_rate: F32x8,
    q_ang: Vec3x8,
    p_ang: Vec3x8,
) -> Vec3x8 {
    let (ca, kb, k) = quat_slerp_parts(rel, alpha);
    slerp_dx_parts(
        rel.xyz(),
        rel.w,
        ca,
        kb,
        k,
        alpha,
        alpha_rate,
        (q_ang, p_ang),
    )
}

/// `exp(v)` and `σ = sin|v| / |v|` per lane (the rotation
/// `quat_from_scaled_angle_axis(2 v)` and the factor [`exp_map_dx`] takes).
#[inline(always)]
pub fn quat_exp_sinc(v: Vec3x8) -> (Quatx8, F32x8) {
    let q = quat_exp(v);
    let v2 = dot(v, v);
    let sigma = v2
        .simd_lt(splat(TINY2))
        .select(splat(1.0), dot(q.xyz(), v) / v2.max(splat(TINY2)));
    (q, sigma)
}

/// [`crate::reference::quat_additive_dx`] per lane: the slerp's angular
/// velocity toward `p = rel q`, whose angular velocity is
/// `ω_rel + R(rel) ω_q` ([`quat_slerp_dx`]).
#[inline(always)]
pub fn quat_additive_dx(
    rel: Quatx8,
    alpha: F32x8,
    alpha_rate: F32x8,
    q_ang: Vec3x8,
    rel_ang: Vec3x8,
) -> Vec3x8 {
    let p_ang = super::math::Rotor::new(rel).apply_add(q_ang, rel_ang);
    quat_slerp_dx(rel, alpha, alpha_rate, q_ang, p_ang)
}
