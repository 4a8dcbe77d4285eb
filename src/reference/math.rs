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
#[derive(Clone, Copy, Debug, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
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
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
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

// The quaternion functions live in `quat.rs` (file for file with
// `lanes::quat`); re-exported so `math::quat_*` paths keep working.
pub use super::quat::*;
