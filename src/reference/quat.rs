//! Quaternion functions of the articles (`Quat = (w, x, y, z)`, Hamilton
//! product; reference-math.md, "Conventions"): products and inverses,
//! rotating vectors, exponential and logarithm maps, interpolation, the
//! rotation between two vectors, angular velocities from rotations. The
//! types and the vector helpers are in [`super::math`].

use super::math::*;

/// `q · p` as 4-vectors.
#[inline]
pub fn quat_dot(q: Quat, p: Quat) -> f32 {
    q.w * p.w + q.x * p.x + q.y * p.y + q.z * p.z
}

/// `|q|` as a 4-vector.
#[inline]
pub fn quat_length(q: Quat) -> f32 {
    quat_dot(q, q).sqrt()
}

/// `q / (|q| + 1e-8)`.
#[inline]
pub fn quat_normalize(q: Quat) -> Quat {
    q / (quat_length(q) + EPS_NORMALIZE)
}

/// Derivative of [`quat_normalize`]: [`normalize_dx`] on four components
/// (reference-math.md).
#[inline]
pub fn quat_normalize_dx(q: Quat, dq: Quat) -> Quat {
    let n = quat_normalize(q);
    (dq - n * quat_dot(dq, n)) / (quat_length(q) + EPS_NORMALIZE)
}

/// Hamilton product `q * p` (reference-math.md, "Conventions").
#[inline]
pub fn quat_mul(q: Quat, p: Quat) -> Quat {
    Quat::new(
        q.w * p.w - q.x * p.x - q.y * p.y - q.z * p.z,
        q.w * p.x + q.x * p.w + q.y * p.z - q.z * p.y,
        q.w * p.y - q.x * p.z + q.y * p.w + q.z * p.x,
        q.w * p.z + q.x * p.y - q.y * p.x + q.z * p.w,
    )
}

/// The conjugate `(w, -x, -y, -z)`, the inverse of a unit quaternion.
#[inline]
pub fn quat_inv(q: Quat) -> Quat {
    Quat::new(q.w, -q.x, -q.y, -q.z)
}

/// `q * inv(p)`.
#[inline]
pub fn quat_mul_inv(q: Quat, p: Quat) -> Quat {
    quat_mul(q, quat_inv(p))
}

/// `inv(q) * p`.
#[inline]
pub fn quat_inv_mul(q: Quat, p: Quat) -> Quat {
    quat_mul(quat_inv(q), p)
}

/// Rotates `v` by `q`: with `u = (qx, qy, qz)` and `t = 2 (u × v)`,
/// `v + qw t + u × t`.
#[inline]
pub fn quat_mul_vec3(q: Quat, v: Vec3) -> Vec3 {
    let u = q.xyz();
    let t = 2.0 * cross(u, v);
    v + q.w * t + cross(u, t)
}

/// Rotates `v` by `inv(q)`.
#[inline]
pub fn quat_inv_mul_vec3(q: Quat, v: Vec3) -> Vec3 {
    quat_mul_vec3(quat_inv(q), v)
}

/// `-q` when `qw < 0`, else `q`: picks the short way round.
#[inline]
pub fn quat_abs(q: Quat) -> Quat {
    if q.w < 0.0 { -q } else { q }
}

/// Quaternion exponential of a half-angle vector (reference-math.md):
/// `h = |v|`; for `h < 1e-8` `normalize((1, v))`, else
/// `(cos h, v sin(h) / h)`.
#[inline]
pub fn quat_exp(v: Vec3) -> Quat {
    let halfangle = length(v);
    if halfangle < EPS_NORMALIZE {
        quat_normalize(Quat::new(1.0, v.x, v.y, v.z))
    } else {
        let c = halfangle.cos();
        let s = halfangle.sin() / halfangle;
        Quat::new(c, s * v.x, s * v.y, s * v.z)
    }
}

/// Quaternion logarithm, the half-angle vector of `q` (reference-math.md):
/// `l = |(qx, qy, qz)|`; for `l < 1e-8` `(qx, qy, qz)`, else
/// `(qx, qy, qz) atan2(l, qw) / l`.
///
/// Deviation from the published reference, which uses
/// `acos(clamp(qw, -1, 1))`: that returns the zero vector for a slightly
/// denormalized `|qw| > 1` and loses half the digits near `qw = ±1`;
/// `atan2(l, qw)` is the same angle for unit input and correct for any
/// finite input (tested in `tests/suite/edge_cases.rs`).
#[inline]
pub fn quat_log(q: Quat) -> Vec3 {
    let v = q.xyz();
    let l = length(v);
    if l < EPS_NORMALIZE {
        v
    } else {
        v * (l.atan2(q.w) / l)
    }
}

/// `quat_exp(v / 2)`: a rotation from its scaled angle axis.
#[inline]
pub fn quat_from_scaled_angle_axis(v: Vec3) -> Quat {
    quat_exp(v * 0.5)
}

/// `2 quat_log(q)`: the scaled angle axis of a rotation.
#[inline]
pub fn quat_to_scaled_angle_axis(q: Quat) -> Vec3 {
    2.0 * quat_log(q)
}

/// A rotation of `angle` radians about a unit `axis`.
#[inline]
pub fn quat_from_angle_axis(angle: f32, axis: Vec3) -> Quat {
    let (s, c) = (angle * 0.5).sin_cos();
    Quat::new(c, s * axis.x, s * axis.y, s * axis.z)
}

/// Angular velocity taking `curr` to `next` in `dt`:
/// `quat_to_scaled_angle_axis(quat_abs(next * inv(curr))) / dt`; zero when
/// `dt == 0` (edge-case table).
#[inline]
pub fn quat_differentiate_angular_velocity(next: Quat, curr: Quat, dt: f32) -> Vec3 {
    div_dt(
        quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(next, curr))),
        dt,
    )
}

/// `quat_from_scaled_angle_axis(vel dt) * curr`: `curr` advanced by the
/// angular velocity `vel` for `dt`.
#[inline]
pub fn quat_integrate_angular_velocity(vel: Vec3, curr: Quat, dt: f32) -> Quat {
    quat_mul(quat_from_scaled_angle_axis(vel * dt), curr)
}

/// Normalized lerp of `q` toward `p`.
#[inline]
pub fn quat_nlerp(q: Quat, p: Quat, alpha: f32) -> Quat {
    let r = q * (1.0 - alpha) + p * alpha;
    r / quat_length(r)
}

/// Spherical interpolation the short way round (reference-math.md).
///
/// Deviations from the published reference (edge-case table): equal or
/// opposite inputs return `q` exactly (the reference lands up to 3e-4 off,
/// because the f32 dot rounds to 0.99999994 and `acos` magnifies it); the
/// angle comes from `2 atan2(|q - p|, |q + p|)`, accurate at every angle;
/// below [`SLERP_NLERP_ANGLE`] the result is normalized lerp.
#[inline]
pub fn quat_slerp_shortest(q: Quat, p: Quat, alpha: f32) -> Quat {
    let p = if quat_dot(q, p) < 0.0 { -p } else { p };
    if p == q {
        return q;
    }
    let theta = 2.0 * quat_length(q - p).atan2(quat_length(q + p));
    if theta < SLERP_NLERP_ANGLE {
        quat_nlerp(q, p, alpha)
    } else {
        let s = theta.sin();
        let a0 = ((1.0 - alpha) * theta).sin() / s;
        let a1 = (alpha * theta).sin() / s;
        q * a0 + p * a1
    }
}

/// The rotation taking direction `p` to direction `q` (reference-math.md):
/// `normalize((sqrt(|p|²|q|²) + p·q, p × q))`.
///
/// Deviations from the published reference (edge-case table): opposite
/// directions give a half turn about an axis orthogonal to `p` (the
/// reference gives the zero quaternion); a zero vector gives the identity;
/// the result is normalized exactly, not with `+1e-8`, so tiny vectors
/// still give a unit quaternion.
#[inline]
pub fn quat_between(p: Vec3, q: Vec3) -> Quat {
    let pq2 = dot(p, p) * dot(q, q);
    if pq2 == 0.0 {
        return Quat::IDENTITY;
    }
    let s = pq2.sqrt();
    let c = cross(p, q);
    let w = s + dot(p, q);
    let n2 = w * w + dot(c, c);
    if n2 <= QUAT_BETWEEN_OPPOSITE * (s * s) {
        let axis = normalize_exact(cross(p, least_aligned_axis(p)));
        return Quat::new(0.0, axis.x, axis.y, axis.z);
    }
    let n = n2.sqrt();
    Quat::new(w / n, c.x / n, c.y / n, c.z / n)
}

/// [`quat_between`] treats `p` and `q` as opposite when the unnormalized
/// result is shorter than `1e-6 |p| |q|` (its square below `1e-12 (|p||q|)²`):
/// there the cross product has no reliable direction.
pub const QUAT_BETWEEN_OPPOSITE: f32 = 1e-12;

/// The basis axis least aligned with `p` (the one of its smallest component).
fn least_aligned_axis(p: Vec3) -> Vec3 {
    let (ax, ay, az) = (p.x.abs(), p.y.abs(), p.z.abs());
    if ax <= ay && ax <= az {
        Vec3::new(1.0, 0.0, 0.0)
    } else if ay <= az {
        Vec3::new(0.0, 1.0, 0.0)
    } else {
        Vec3::new(0.0, 0.0, 1.0)
    }
}

fn normalize_exact(v: Vec3) -> Vec3 {
    v / length(v)
}

/// Derivative of [`quat_between`] with respect to time, given the rates
/// `dp`, `dq` (velocities article, "Procedural Animation").
#[inline]
pub fn quat_between_dx(p: Vec3, dp: Vec3, q: Vec3, dq: Vec3) -> Quat {
    let c = cross(p, q);
    let dc = cross(dp, q) + cross(p, dq);
    let pp = dot(p, p);
    let qq = dot(q, q);
    let a = (pp * qq).sqrt() + dot(p, q);
    let d_pq2 = (dot(dp, p) + dot(p, dp)) * qq + (dot(dq, q) + dot(q, dq)) * pp;
    let da = d_pq2 / (2.0 * (pp * qq).sqrt() + EPS_NORMALIZE) + dot(dp, q) + dot(p, dq);
    quat_normalize_dx(Quat::new(a, c.x, c.y, c.z), Quat::new(da, dc.x, dc.y, dc.z))
}

/// `2 × vector part of (dq * inv(q))`: the angular velocity of a rotation
/// `q` changing at rate `dq` (reference-math.md).
#[inline]
pub fn quat_delta_to_angular_velocity(q: Quat, dq: Quat) -> Vec3 {
    2.0 * quat_mul_inv(dq, q).xyz()
}
