//! [`crate::reference::heading`] in lanes: a rotation's twist about an up
//! axis, the twist angle's rate, and a twist's angle.

use super::{F32x8, Quatx8, Vec3x8, atan2_nonneg_y, cross, dot, splat};
use crate::reference::TWIST_EPS;

/// [`crate::reference::quat_twist`] per lane: `(w, u up) / sqrt(w² + u²)`,
/// the identity where `w² + u² <` [`TWIST_EPS`].
#[inline(always)]
pub fn quat_twist(q: Quatx8, up: Vec3x8) -> Quatx8 {
    let u = dot(q.xyz(), up);
    let n2 = q.w.mul_add(q.w, u * u);
    let none = n2.simd_lt(splat(TWIST_EPS));
    let s = splat(1.0) / none.select(splat(1.0), n2).sqrt();
    let us = none.select(F32x8::ZERO, u * s);
    Quatx8::new(
        none.select(splat(1.0), q.w * s),
        up.x * us,
        up.y * us,
        up.z * us,
    )
}

/// [`crate::reference::twist_rate`] per lane: `(w (w ang·up + (ang ×
/// v)·up) + u ang·v) / max(w² + u², TWIST_EPS)`.
#[inline(always)]
pub fn twist_rate(q: Quatx8, ang: Vec3x8, up: Vec3x8) -> F32x8 {
    let v = q.xyz();
    let u = dot(v, up);
    let n2 = q.w.mul_add(q.w, u * u).max(splat(TWIST_EPS));
    let along = q.w.mul_add(dot(ang, up), dot(cross(ang, v), up));
    q.w.mul_add(along, u * dot(ang, v)) / n2
}

/// [`crate::reference::twist_angle`] per lane: `2 atan2(u, w)` the short
/// way round, in `[-π, π]`.
#[inline(always)]
pub fn twist_angle(t: Quatx8, up: Vec3x8) -> F32x8 {
    let u = dot(t.xyz(), up);
    let neg = t.w.simd_lt(F32x8::ZERO);
    let (w, u) = (neg.select(-t.w, t.w), neg.select(-u, u));
    let a = atan2_nonneg_y(u.abs(), w);
    let a = a + a;
    u.is_sign_negative().select(-a, a)
}
