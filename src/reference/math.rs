//! Vectors, quaternions and the helpers the articles use without defining
//! them (reference-math.md, "Conventions").
//!
//! `Vec3 = (x, y, z)`, `Quat = (w, x, y, z)` with w first, Hamilton product.
//! Rotational offsets and angular velocities live in scaled-angle-axis space
//! so that they add like vectors.

use core::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

/// `ln 2`, the constant every half-life conversion uses (`0.69314718056`).
pub const LN2: f32 = core::f32::consts::LN_2;

/// Epsilon of [`normalize`], [`normalize_dx`], [`quat_normalize`] and the
/// small-angle branches of [`quat_exp`] and [`quat_log`] (the articles' `1e-8f`).
pub const EPS_NORMALIZE: f32 = 1e-8;

/// Below this angle (radians, between the two quaternions as 4-vectors)
/// [`quat_slerp_shortest`] uses normalized lerp; the slerp weights are
/// exact to f32 precision above it and nlerp's error below it is < 1e-10.
pub const SLERP_NLERP_ANGLE: f32 = 1e-3;

/// Values whose magnitude is below this are flushed to zero by decaying
/// kernels (reference-math.md, last paragraph): subnormals are slow on x86.
pub const FLUSH_TINY: f32 = 1e-30;

/// A 3-vector: positions, velocities, scales, scaled-angle-axis rotations.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
pub struct Vec3 {
    /// x component.
    pub x: f32,
    /// y component.
    pub y: f32,
    /// z component.
    pub z: f32,
}

impl Vec3 {
    /// `(0, 0, 0)`.
    pub const ZERO: Vec3 = Vec3::new(0.0, 0.0, 0.0);
    /// `(1, 1, 1)`, the identity scale.
    pub const ONE: Vec3 = Vec3::new(1.0, 1.0, 1.0);

    /// `(x, y, z)`.
    pub const fn new(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3 { x, y, z }
    }

    /// `(v, v, v)`.
    pub const fn splat(v: f32) -> Vec3 {
        Vec3 { x: v, y: v, z: v }
    }

    /// Applies `f` to each component.
    pub fn map(self, f: impl Fn(f32) -> f32) -> Vec3 {
        Vec3::new(f(self.x), f(self.y), f(self.z))
    }

    /// The components as an array `[x, y, z]`.
    pub const fn to_array(self) -> [f32; 3] {
        [self.x, self.y, self.z]
    }
}

impl Add for Vec3 {
    type Output = Vec3;
    fn add(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}
impl AddAssign for Vec3 {
    fn add_assign(&mut self, o: Vec3) {
        *self = *self + o;
    }
}
impl Sub for Vec3 {
    type Output = Vec3;
    fn sub(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}
impl SubAssign for Vec3 {
    fn sub_assign(&mut self, o: Vec3) {
        *self = *self - o;
    }
}
impl Neg for Vec3 {
    type Output = Vec3;
    fn neg(self) -> Vec3 {
        Vec3::new(-self.x, -self.y, -self.z)
    }
}
/// Component-wise product (scales combine this way).
impl Mul for Vec3 {
    type Output = Vec3;
    fn mul(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x * o.x, self.y * o.y, self.z * o.z)
    }
}
impl Mul<f32> for Vec3 {
    type Output = Vec3;
    fn mul(self, s: f32) -> Vec3 {
        Vec3::new(self.x * s, self.y * s, self.z * s)
    }
}
impl Mul<Vec3> for f32 {
    type Output = Vec3;
    fn mul(self, v: Vec3) -> Vec3 {
        v * self
    }
}
/// Component-wise quotient.
impl Div for Vec3 {
    type Output = Vec3;
    fn div(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x / o.x, self.y / o.y, self.z / o.z)
    }
}
impl Div<f32> for Vec3 {
    type Output = Vec3;
    fn div(self, s: f32) -> Vec3 {
        Vec3::new(self.x / s, self.y / s, self.z / s)
    }
}

/// `a · b`.
#[inline]
pub fn dot(a: Vec3, b: Vec3) -> f32 {
    a.x * b.x + a.y * b.y + a.z * b.z
}

/// `a × b`.
#[inline]
pub fn cross(a: Vec3, b: Vec3) -> Vec3 {
    Vec3::new(
        a.y * b.z - a.z * b.y,
        a.z * b.x - a.x * b.z,
        a.x * b.y - a.y * b.x,
    )
}

/// `|v|`.
#[inline]
pub fn length(v: Vec3) -> f32 {
    dot(v, v).sqrt()
}

/// `v / (|v| + 1e-8)`: finite for a zero vector (reference-math.md).
#[inline]
pub fn normalize(v: Vec3) -> Vec3 {
    v / (length(v) + EPS_NORMALIZE)
}

/// Derivative of [`normalize`] (velocities article, "Procedural Animation"):
/// `(dv - n (dv · n)) / (|v| + 1e-8)` with `n = normalize(v)`.
#[inline]
pub fn normalize_dx(v: Vec3, dv: Vec3) -> Vec3 {
    let n = normalize(v);
    (dv - n * dot(dv, n)) / (length(v) + EPS_NORMALIZE)
}

/// `x` clamped to `[lo, hi]` (the articles' `clampf`); NaN stays NaN.
#[inline]
pub fn clampf(x: f32, lo: f32, hi: f32) -> f32 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// `(1 - t) x + t y` (the articles' `lerpf`).
#[inline]
pub fn lerp(x: f32, y: f32, t: f32) -> f32 {
    (1.0 - t) * x + t * y
}

/// [`lerp`] per component.
#[inline]
pub fn lerp_vec3(x: Vec3, y: Vec3, t: f32) -> Vec3 {
    (1.0 - t) * x + t * y
}

/// `exp` per component.
#[inline]
pub fn exp_vec3(v: Vec3) -> Vec3 {
    v.map(f32::exp)
}

/// `ln` per component.
#[inline]
pub fn log_vec3(v: Vec3) -> Vec3 {
    v.map(f32::ln)
}

/// Exponential interpolation of scales, `x^(1-t) y^t` (reference-math.md:
/// scales combine multiplicatively).
#[inline]
pub fn eerp(x: f32, y: f32, t: f32) -> f32 {
    x.powf(1.0 - t) * y.powf(t)
}

/// [`eerp`] per component.
#[inline]
pub fn eerp_vec3(x: Vec3, y: Vec3, t: f32) -> Vec3 {
    Vec3::new(eerp(x.x, y.x, t), eerp(x.y, y.y, t), eerp(x.z, y.z, t))
}

/// `v / dt`, or zero when `dt == 0`: the edge-case table's rule for
/// finite differences (the published reference returns NaN or infinity).
#[inline]
pub fn div_dt(v: Vec3, dt: f32) -> Vec3 {
    if dt == 0.0 { Vec3::ZERO } else { v / dt }
}

/// `x`, or `0` when `|x| < 1e-30` (subnormal flush, reference-math.md).
#[inline]
pub fn flush_tiny(x: f32) -> f32 {
    if x.abs() < FLUSH_TINY { 0.0 } else { x }
}

/// [`flush_tiny`] per component.
#[inline]
pub fn flush_tiny_vec3(v: Vec3) -> Vec3 {
    v.map(flush_tiny)
}

/// A quaternion `(w, x, y, z)`, unit length when it is a rotation.
/// `Default` is the identity.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
pub struct Quat {
    /// Scalar part.
    pub w: f32,
    /// Vector part, x.
    pub x: f32,
    /// Vector part, y.
    pub y: f32,
    /// Vector part, z.
    pub z: f32,
}

impl Default for Quat {
    fn default() -> Quat {
        Quat::IDENTITY
    }
}

impl Quat {
    /// `(1, 0, 0, 0)`.
    pub const IDENTITY: Quat = Quat::new(1.0, 0.0, 0.0, 0.0);

    /// `(w, x, y, z)`.
    pub const fn new(w: f32, x: f32, y: f32, z: f32) -> Quat {
        Quat { w, x, y, z }
    }

    /// The vector part `(x, y, z)`.
    pub const fn xyz(self) -> Vec3 {
        Vec3::new(self.x, self.y, self.z)
    }

    /// The components as an array `[w, x, y, z]`.
    pub const fn to_array(self) -> [f32; 4] {
        [self.w, self.x, self.y, self.z]
    }
}

impl Add for Quat {
    type Output = Quat;
    fn add(self, o: Quat) -> Quat {
        Quat::new(self.w + o.w, self.x + o.x, self.y + o.y, self.z + o.z)
    }
}
impl Sub for Quat {
    type Output = Quat;
    fn sub(self, o: Quat) -> Quat {
        Quat::new(self.w - o.w, self.x - o.x, self.y - o.y, self.z - o.z)
    }
}
impl Neg for Quat {
    type Output = Quat;
    fn neg(self) -> Quat {
        Quat::new(-self.w, -self.x, -self.y, -self.z)
    }
}
impl Mul<f32> for Quat {
    type Output = Quat;
    fn mul(self, s: f32) -> Quat {
        Quat::new(self.w * s, self.x * s, self.y * s, self.z * s)
    }
}
impl Mul<Quat> for f32 {
    type Output = Quat;
    fn mul(self, q: Quat) -> Quat {
        q * self
    }
}
impl Div<f32> for Quat {
    type Output = Quat;
    fn div(self, s: f32) -> Quat {
        Quat::new(self.w / s, self.x / s, self.y / s, self.z / s)
    }
}

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
/// finite input (tested in `tests/edge_cases.rs`).
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
