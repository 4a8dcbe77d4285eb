//! Eight-lane quaternion functions: [`crate::reference::quat`] over
//! [`F32x8`] lanes, branch-free (per-lane select), lane `i` holding element
//! `i`. The types, the vector helpers and the polynomial kernels they use
//! are in [`super::math`].

use super::math::*;
use crate::reference::math::{EPS_NORMALIZE, QUAT_BETWEEN_OPPOSITE, SLERP_NLERP_ANGLE};

/// `q · p` per lane, rounded exactly as [`crate::reference::quat_dot`]
/// rounds it: `((qw pw + qx px) + qy py) + qz pz`, four products and three
/// sums, no fused multiply-add, so every lane's bits are the reference's.
///
/// Hemisphere choices hang on its sign ([`quat_slerp_shortest`]'s flip; the
/// `w` of [`quat_mul_inv`], which is this dot product, under [`quat_abs`]).
/// For `p` orthogonal to `q` in 4D (a half turn apart) the sign is decided
/// by rounding alone, and a fused evaluation leaves a residue of its own
/// sign, so the lanes took the other hemisphere about one time in thirteen
/// (issue 14; `tests/suite/hemisphere_ties.rs`).
#[inline(always)]
pub fn quat_dot(q: Quatx8, p: Quatx8) -> F32x8 {
    ((q.w * p.w + q.x * p.x) + q.y * p.y) + q.z * p.z
}

/// `q · q` with fused multiply-adds (a length has no sign to decide).
#[inline(always)]
fn quat_norm2(q: Quatx8) -> F32x8 {
    q.w.mul_add(q.w, q.x.mul_add(q.x, q.y.mul_add(q.y, q.z * q.z)))
}

/// `|q|` per lane.
#[inline(always)]
pub fn quat_length(q: Quatx8) -> F32x8 {
    quat_norm2(q).sqrt()
}

/// `q / (|q| + 1e-8)` per lane.
#[inline(always)]
pub fn quat_normalize(q: Quatx8) -> Quatx8 {
    q / (quat_length(q) + splat(EPS_NORMALIZE))
}

/// Derivative of [`quat_normalize`].
#[inline(always)]
pub fn quat_normalize_dx(q: Quatx8, dq: Quatx8) -> Quatx8 {
    let n = quat_normalize(q);
    (dq - n * quat_dot(dq, n)) / (quat_length(q) + splat(EPS_NORMALIZE))
}

/// Hamilton product `q * p` per lane.
#[inline(always)]
pub fn quat_mul(q: Quatx8, p: Quatx8) -> Quatx8 {
    Quatx8::new(
        q.w.mul_sub(p.w, q.x.mul_add(p.x, q.y.mul_add(p.y, q.z * p.z))),
        q.w.mul_add(p.x, q.x.mul_add(p.w, q.y.mul_sub(p.z, q.z * p.y))),
        q.w.mul_add(p.y, q.y.mul_add(p.w, q.z.mul_sub(p.x, q.x * p.z))),
        q.w.mul_add(p.z, q.z.mul_add(p.w, q.x.mul_sub(p.y, q.y * p.x))),
    )
}

/// The conjugate per lane.
#[inline(always)]
pub fn quat_inv(q: Quatx8) -> Quatx8 {
    Quatx8::new(q.w, -q.x, -q.y, -q.z)
}

/// `q * inv(p)` per lane. Its `w` is `q · p`, computed by [`quat_dot`] so
/// that it has the reference's bits: `quat_abs` of this product (the short
/// way from `p` to `q`, used by blends, sampling, inertialization offsets,
/// finite differences and loop differences) then picks the reference's
/// side at a half-turn tie. The vector part keeps its fused evaluation.
#[inline(always)]
pub fn quat_mul_inv(q: Quatx8, p: Quatx8) -> Quatx8 {
    let r = quat_mul(q, quat_inv(p));
    Quatx8::new(quat_dot(q, p), r.x, r.y, r.z)
}

/// `inv(q) * p` per lane; its `w` is `q · p` from [`quat_dot`], as in
/// [`quat_mul_inv`].
#[inline(always)]
pub fn quat_inv_mul(q: Quatx8, p: Quatx8) -> Quatx8 {
    let r = quat_mul(quat_inv(q), p);
    Quatx8::new(quat_dot(q, p), r.x, r.y, r.z)
}

/// A rotation prepared for rotating several vectors: the scalar part and
/// twice the vector part, so each [`Rotor::apply`] costs 15 lane ops.
#[derive(Clone, Copy)]
pub struct Rotor {
    w: F32x8,
    u: Vec3x8,
    u2: Vec3x8,
}

impl Rotor {
    /// Prepares `q`.
    #[inline(always)]
    pub fn new(q: Quatx8) -> Rotor {
        let u = q.xyz();
        Rotor {
            w: q.w,
            u,
            u2: u + u,
        }
    }

    /// `v + w t + u × t` with `t = 2 (u × v)`.
    #[inline(always)]
    pub fn apply(&self, v: Vec3x8) -> Vec3x8 {
        let t = cross(self.u2, v);
        let s = Vec3x8::new(
            self.w.mul_add(t.x, v.x),
            self.w.mul_add(t.y, v.y),
            self.w.mul_add(t.z, v.z),
        );
        cross_add(self.u, t, s)
    }

    /// `apply(v) + c`, with the add folded into the rotation.
    #[inline(always)]
    pub fn apply_add(&self, v: Vec3x8, c: Vec3x8) -> Vec3x8 {
        let t = cross(self.u2, v);
        let s = Vec3x8::new(
            self.w.mul_add(t.x, v.x + c.x),
            self.w.mul_add(t.y, v.y + c.y),
            self.w.mul_add(t.z, v.z + c.z),
        );
        cross_add(self.u, t, s)
    }
}

/// Rotates `v` by `q` per lane: `v + qw t + u × t` with `t = 2 (u × v)`.
#[inline(always)]
pub fn quat_mul_vec3(q: Quatx8, v: Vec3x8) -> Vec3x8 {
    Rotor::new(q).apply(v)
}

/// Rotates `v` by `inv(q)` per lane.
#[inline(always)]
pub fn quat_inv_mul_vec3(q: Quatx8, v: Vec3x8) -> Vec3x8 {
    quat_mul_vec3(quat_inv(q), v)
}

/// `-q` where `qw < 0`, else `q`.
#[inline(always)]
pub fn quat_abs(q: Quatx8) -> Quatx8 {
    // Flip the sign bits of every component where w is negative.
    let sign = q.w.simd_lt(F32x8::ZERO) & splat(-0.0);
    Quatx8::new(q.w ^ sign, q.x ^ sign, q.y ^ sign, q.z ^ sign)
}

/// Quaternion exponential per lane: `h = |v|`; `normalize((1, v))` where
/// `h < 1e-8`, else `(cos h, v sin(h) / h)`.
///
/// `1 / h` comes from [`rsqrt`] (no sqrt, no division), with `h²` clamped to
/// at least 1e-30 so it stays finite. Below `h = 1e-8` the general formula
/// then gives `(1, v (1 ± 1 ULP))`, and the reference's `normalize((1, v))`
/// is exactly `(1, v)` there (`|(1, v)|` and `1 + 1e-8` both round to 1), so
/// no separate branch is needed; a zero vector gives the identity exactly.
#[inline(always)]
pub fn quat_exp(v: Vec3x8) -> Quatx8 {
    let h2 = dot(v, v).max(splat(1e-30));
    let inv_h = rsqrt(h2);
    let (s, c) = sin_cos_nonneg(h2 * inv_h);
    let k = s * inv_h;
    Quatx8::new(c, v.x * k, v.y * k, v.z * k)
}

/// Quaternion logarithm per lane: `l = |(qx, qy, qz)|`; the vector part where
/// `l < 1e-8`, else `(qx, qy, qz) atan2(l, qw) / l`, with `1 / l` from
/// [`rsqrt`].
#[inline(always)]
pub fn quat_log(q: Quatx8) -> Vec3x8 {
    let v = q.xyz();
    let l2 = dot(v, v);
    let inv_l = rsqrt(l2);
    // l > 0 wherever the result is kept, so no zero handling is needed.
    let k = atan2_positive_y(l2 * inv_l, q.w) * inv_l;
    l2.simd_lt(splat(EPS_NORMALIZE * EPS_NORMALIZE))
        .select(v, v * k)
}

/// `sin(h) / h - 1` and `cos(h) - 1` as polynomials in `s = h²` on
/// `h ∈ [0, π/2]` (minimax, tools/fit_poly.py; f32 Horner error 8.7e-8 and
/// 1.1e-7).
const SINC_SHORT: [f32; 4] = [
    -0.166_666_6,
    0.008_333_087,
    -0.000_198_109_93,
    2.608_646_4e-6,
];
const COS_SHORT: [f32; 5] = [
    -0.5,
    0.041_666_64,
    -0.001_388_84,
    2.476_173e-5,
    -2.607_421_8e-7,
];

/// [`quat_exp`] for `|v| <= π/2`, the half-angle vectors of shortest-arc
/// rotations (what [`quat_log_short`] gives, scaled by a weight in
/// `[0, 1]`): `(cos h, v sin(h)/h)` with both as polynomials in
/// `h² = v·v`, so no square root and no range reduction. Max error about
/// 2e-7 on that domain; beyond `|v| = π/2` the error grows (use
/// [`quat_exp`]).
#[inline(always)]
pub fn quat_exp_short(v: Vec3x8) -> Quatx8 {
    quat_exp_short_scaled(v, splat(1.0), dot(v, v))
}

/// [`quat_exp_short`] of `a u`, given `s = |a u|²`: the scale is folded
/// into the sine's factor, one multiply per lane instead of three, and `s`
/// often comes cheaper than a dot product (the crowd's clip database stores
/// each step's squared half-angle; a blend knows its logarithm's length).
#[inline(always)]
pub fn quat_exp_short_scaled(u: Vec3x8, a: F32x8, s: F32x8) -> Quatx8 {
    let (c, k) = quat_exp_short_scaled_parts(a, s);
    Quatx8::new(c, u.x * k, u.y * k, u.z * k)
}

/// The scalar part and the vector factor of [`quat_exp_short_scaled`]:
/// `(c, k)` with `quat_exp_short_scaled(u, a, s) = (c, k u)`, `k = a sin(h)/h`.
#[inline(always)]
pub fn quat_exp_short_scaled_parts(a: F32x8, s: F32x8) -> (F32x8, F32x8) {
    (
        s.mul_add(horner(&COS_SHORT, s), splat(1.0)),
        a * s.mul_add(horner(&SINC_SHORT, s), splat(1.0)),
    )
}

/// The largest `s = v·v` for [`quat_exp_small_scaled`]: half-angles up to 0.2
/// rad, rotations up to 23°, which a 120 Hz clip's frame-to-frame steps
/// stay below unless a joint turns faster than 48 rad/s.
pub const EXP_SMALL_S: f32 = 0.04;

/// [`quat_exp`] of `v = a u` for `s = v·v <= EXP_SMALL_S`, given `s`
/// (the scale folded in as in [`quat_exp_short_scaled`]): the Taylor series
/// `cos h = 1 - s/2 + s²/24 - s³/720` and `sin(h)/h = 1 - s/6 + s²/120`,
/// truncated below 7e-11 and 1.3e-8 on that domain (two fewer multiply-adds
/// each than [`quat_exp_short`]). Callers check the domain for the whole
/// pack ([`F32x8::all`]) and take [`quat_exp_short_scaled`] otherwise.
#[inline(always)]
pub fn quat_exp_small_scaled(u: Vec3x8, a: F32x8, s: F32x8) -> Quatx8 {
    let c = s.mul_add(
        s.mul_add(
            s.mul_add(splat(-1.0 / 720.0), splat(1.0 / 24.0)),
            splat(-0.5),
        ),
        splat(1.0),
    );
    let k = a * s.mul_add(s.mul_add(splat(1.0 / 120.0), splat(-1.0 / 6.0)), splat(1.0));
    Quatx8::new(c, u.x * k, u.y * k, u.z * k)
}

/// [`quat_log`] for unit quaternions with `w >= 0` (what [`quat_abs`]
/// gives): with `t = l / (1 + w) = tan(h / 2) ∈ [0, 1]`, `h = 2 atan(t)`,
/// so `h / l = 2 (atan(t) / t) / (1 + w)`, a polynomial in `t²` and one
/// division; no square root, no special case at `l = 0`. Max error about
/// 2e-7 for unit input; for `w < 0` use [`quat_log`].
#[inline(always)]
pub fn quat_log_short(q: Quatx8) -> Vec3x8 {
    let v = q.xyz();
    v * quat_log_short_factor(q.w, dot(v, v))
}

/// The factor `k` of [`quat_log_short`]`(q) = k (qx, qy, qz)`, from `w = qw`
/// and `l2 = |(qx, qy, qz)|²`: for callers that go on to scale the
/// logarithm or need its length (`k² l2`).
#[inline(always)]
pub fn quat_log_short_factor(w: F32x8, l2: F32x8) -> F32x8 {
    let r = splat(1.0) / (splat(1.0) + w);
    let s = l2 * (r * r);
    (r + r) * s.mul_add(horner(&ATAN_P, s), splat(1.0))
}

/// `quat_exp(v / 2)` per lane.
#[inline(always)]
pub fn quat_from_scaled_angle_axis(v: Vec3x8) -> Quatx8 {
    quat_exp(v * splat(0.5))
}

/// `2 quat_log(q)` per lane.
#[inline(always)]
pub fn quat_to_scaled_angle_axis(q: Quatx8) -> Vec3x8 {
    let v = quat_log(q);
    v + v
}

/// A rotation of `angle` radians about a unit `axis`, per lane.
#[inline(always)]
pub fn quat_from_angle_axis(angle: F32x8, axis: Vec3x8) -> Quatx8 {
    let (s, c) = sin_cos(angle * splat(0.5));
    Quatx8::new(c, s * axis.x, s * axis.y, s * axis.z)
}

/// `quat_to_scaled_angle_axis(quat_abs(next * inv(curr))) / dt`, zero where
/// `dt == 0`.
#[inline(always)]
pub fn quat_differentiate_angular_velocity(next: Quatx8, curr: Quatx8, dt: F32x8) -> Vec3x8 {
    div_dt(
        quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(next, curr))),
        dt,
    )
}

/// `quat_from_scaled_angle_axis(vel dt) * curr` per lane.
#[inline(always)]
pub fn quat_integrate_angular_velocity(vel: Vec3x8, curr: Quatx8, dt: F32x8) -> Quatx8 {
    quat_mul(quat_from_scaled_angle_axis(vel * dt), curr)
}

/// Normalized lerp per lane.
#[inline(always)]
pub fn quat_nlerp(q: Quatx8, p: Quatx8, alpha: F32x8) -> Quatx8 {
    let a0 = splat(1.0) - alpha;
    let r = Quatx8::new(
        a0.mul_add(q.w, alpha * p.w),
        a0.mul_add(q.x, alpha * p.x),
        a0.mul_add(q.y, alpha * p.y),
        a0.mul_add(q.z, alpha * p.z),
    );
    r / quat_length(r)
}

/// Spherical interpolation the short way round, per lane, with the
/// reference's edge cases: `q` exactly where the (sign-corrected) inputs are
/// equal, normalized lerp below [`SLERP_NLERP_ANGLE`]. The flip is decided
/// by [`quat_dot`], whose bits are the reference's, so a tie (`p`
/// orthogonal to `q`) flips exactly when the reference flips.
#[inline(always)]
pub fn quat_slerp_shortest(q: Quatx8, p: Quatx8, alpha: F32x8) -> Quatx8 {
    let flip = quat_dot(q, p).simd_lt(F32x8::ZERO) & splat(-0.0);
    let p = Quatx8::new(p.w ^ flip, p.x ^ flip, p.y ^ flip, p.z ^ flip);
    let equal = q.w.simd_eq(p.w) & q.x.simd_eq(p.x) & q.y.simd_eq(p.y) & q.z.simd_eq(p.z);
    let theta = splat(2.0) * atan2_nonneg_y(quat_length(q - p), quat_length(q + p));
    let (s0, _) = sin_cos((splat(1.0) - alpha) * theta);
    let (s1, _) = sin_cos(alpha * theta);
    let (st, _) = sin_cos(theta);
    let a0 = s0 / st;
    let a1 = s1 / st;
    let slerp = Quatx8::new(
        q.w.mul_add(a0, p.w * a1),
        q.x.mul_add(a0, p.x * a1),
        q.y.mul_add(a0, p.y * a1),
        q.z.mul_add(a0, p.z * a1),
    );
    let r = theta
        .simd_lt(splat(SLERP_NLERP_ANGLE))
        .select(quat_nlerp(q, p, alpha), slerp);
    equal.select(q, r)
}

/// The rotation taking direction `p` to direction `q`, per lane, with the
/// reference's edge cases (half turn for opposite directions, identity for
/// a zero vector, exact normalization).
#[inline(always)]
pub fn quat_between(p: Vec3x8, q: Vec3x8) -> Quatx8 {
    let pq2 = dot(p, p) * dot(q, q);
    let s = pq2.sqrt();
    let c = cross(p, q);
    let w = s + dot(p, q);
    let n2 = w.mul_add(w, dot(c, c));
    let n = n2.sqrt();
    let regular = Quatx8::new(w / n, c.x / n, c.y / n, c.z / n);
    // Half turn about the axis orthogonal to p through its smallest component.
    let (ax, ay, az) = (p.x.abs(), p.y.abs(), p.z.abs());
    let pick_x = ax.simd_le(ay) & ax.simd_le(az);
    let pick_y = !pick_x & ay.simd_le(az);
    let pick_z = !(pick_x | pick_y);
    let one = splat(1.0);
    let e = Vec3x8::new(pick_x & one, pick_y & one, pick_z & one);
    let axis = cross(p, e);
    let axis = axis / length(axis);
    let opposite = n2.simd_le(splat(QUAT_BETWEEN_OPPOSITE) * (s * s));
    let half = Quatx8::new(F32x8::ZERO, axis.x, axis.y, axis.z);
    let r = opposite.select(half, regular);
    pq2.simd_eq(F32x8::ZERO).select(Quatx8::IDENTITY, r)
}

/// Derivative of [`quat_between`] per lane.
#[inline(always)]
pub fn quat_between_dx(p: Vec3x8, dp: Vec3x8, q: Vec3x8, dq: Vec3x8) -> Quatx8 {
    let c = cross(p, q);
    let dc = cross(dp, q) + cross(p, dq);
    let pp = dot(p, p);
    let qq = dot(q, q);
    let root = (pp * qq).sqrt();
    let a = root + dot(p, q);
    let d_pq2 = (dot(dp, p) + dot(p, dp)) * qq + (dot(dq, q) + dot(q, dq)) * pp;
    let da = d_pq2 / (splat(2.0) * root + splat(EPS_NORMALIZE)) + dot(dp, q) + dot(p, dq);
    quat_normalize_dx(
        Quatx8::new(a, c.x, c.y, c.z),
        Quatx8::new(da, dc.x, dc.y, dc.z),
    )
}

/// `2 × vector part of (dq * inv(q))` per lane.
#[inline(always)]
pub fn quat_delta_to_angular_velocity(q: Quatx8, dq: Quatx8) -> Vec3x8 {
    let v = quat_mul_inv(dq, q).xyz();
    v + v
}
