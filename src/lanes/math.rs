//! Eight-lane vectors and quaternions: [`crate::reference::math`] over
//! [`F32x8`] lanes, branch-free (per-lane select), lane `i` holding element `i`.
//!
//! Transcendentals on the hot paths (`sin`/`cos` for [`quat_exp`], `atan2`
//! for [`quat_log`]) are minimax polynomials fitted by `tools/fit_poly.py`
//! (max error about 1e-7 absolute on the reduced range); `exp` and `ln` come
//! from `wide`.

use bytemuck::{Pod, Zeroable};
use core::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

use crate::reference::math as r;
use crate::reference::math::{EPS_NORMALIZE, FLUSH_TINY};

/// Eight f32 lanes (`wide::f32x8`: one ymm register with AVX).
pub type F32x8 = wide::f32x8;

/// Eight i32 lanes (frame indices).
pub type I32x8 = wide::i32x8;

/// `F32x8::splat`, short.
#[inline(always)]
pub fn splat(v: f32) -> F32x8 {
    F32x8::splat(v)
}

/// Eight [`r::Vec3`], one per lane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Vec3x8 {
    /// x of each lane.
    pub x: F32x8,
    /// y of each lane.
    pub y: F32x8,
    /// z of each lane.
    pub z: F32x8,
}

/// Eight [`r::Quat`], one per lane. `Default` is the identity in every lane.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Quatx8 {
    /// w of each lane.
    pub w: F32x8,
    /// x of each lane.
    pub x: F32x8,
    /// y of each lane.
    pub y: F32x8,
    /// z of each lane.
    pub z: F32x8,
}

impl Default for Quatx8 {
    fn default() -> Quatx8 {
        Quatx8::IDENTITY
    }
}

impl Vec3x8 {
    /// Zero in every lane.
    pub const ZERO: Vec3x8 = Vec3x8::splat(r::Vec3::ZERO);
    /// One in every lane.
    pub const ONE: Vec3x8 = Vec3x8::splat(r::Vec3::ONE);

    /// `(x, y, z)` from lane vectors.
    #[inline(always)]
    pub const fn new(x: F32x8, y: F32x8, z: F32x8) -> Vec3x8 {
        Vec3x8 { x, y, z }
    }

    /// The same vector in every lane.
    #[inline(always)]
    pub const fn splat(v: r::Vec3) -> Vec3x8 {
        Vec3x8::new(F32x8::splat(v.x), F32x8::splat(v.y), F32x8::splat(v.z))
    }

    /// Lane `i` holds `v[i]`.
    pub fn from_array(v: [r::Vec3; 8]) -> Vec3x8 {
        Vec3x8::new(
            F32x8::new(v.map(|v| v.x)),
            F32x8::new(v.map(|v| v.y)),
            F32x8::new(v.map(|v| v.z)),
        )
    }

    /// The eight lanes.
    pub fn to_array(self) -> [r::Vec3; 8] {
        let (x, y, z) = (self.x.to_array(), self.y.to_array(), self.z.to_array());
        core::array::from_fn(|i| r::Vec3::new(x[i], y[i], z[i]))
    }

    /// Lane `i` (panics when `i >= 8`).
    pub fn lane(self, i: usize) -> r::Vec3 {
        r::Vec3::new(
            self.x.as_array()[i],
            self.y.as_array()[i],
            self.z.as_array()[i],
        )
    }
}

impl Quatx8 {
    /// The identity in every lane.
    pub const IDENTITY: Quatx8 = Quatx8::splat(r::Quat::IDENTITY);

    /// `(w, x, y, z)` from lane vectors.
    #[inline(always)]
    pub const fn new(w: F32x8, x: F32x8, y: F32x8, z: F32x8) -> Quatx8 {
        Quatx8 { w, x, y, z }
    }

    /// The same quaternion in every lane.
    #[inline(always)]
    pub const fn splat(q: r::Quat) -> Quatx8 {
        Quatx8::new(
            F32x8::splat(q.w),
            F32x8::splat(q.x),
            F32x8::splat(q.y),
            F32x8::splat(q.z),
        )
    }

    /// Lane `i` holds `q[i]`.
    pub fn from_array(q: [r::Quat; 8]) -> Quatx8 {
        Quatx8::new(
            F32x8::new(q.map(|q| q.w)),
            F32x8::new(q.map(|q| q.x)),
            F32x8::new(q.map(|q| q.y)),
            F32x8::new(q.map(|q| q.z)),
        )
    }

    /// The eight lanes.
    pub fn to_array(self) -> [r::Quat; 8] {
        let (w, x, y, z) = (
            self.w.to_array(),
            self.x.to_array(),
            self.y.to_array(),
            self.z.to_array(),
        );
        core::array::from_fn(|i| r::Quat::new(w[i], x[i], y[i], z[i]))
    }

    /// Lane `i` (panics when `i >= 8`).
    pub fn lane(self, i: usize) -> r::Quat {
        r::Quat::new(
            self.w.as_array()[i],
            self.x.as_array()[i],
            self.y.as_array()[i],
            self.z.as_array()[i],
        )
    }

    /// The vector part.
    #[inline(always)]
    pub fn xyz(self) -> Vec3x8 {
        Vec3x8::new(self.x, self.y, self.z)
    }
}

/// Per-lane select of whole vectors: `mask.select(a, b)`.
impl wide::Select<Vec3x8> for F32x8 {
    #[inline(always)]
    fn select(self, t: Vec3x8, f: Vec3x8) -> Vec3x8 {
        Vec3x8::new(
            self.select(t.x, f.x),
            self.select(t.y, f.y),
            self.select(t.z, f.z),
        )
    }
}

/// Per-lane select of whole quaternions: `mask.select(a, b)`.
impl wide::Select<Quatx8> for F32x8 {
    #[inline(always)]
    fn select(self, t: Quatx8, f: Quatx8) -> Quatx8 {
        Quatx8::new(
            self.select(t.w, f.w),
            self.select(t.x, f.x),
            self.select(t.y, f.y),
            self.select(t.z, f.z),
        )
    }
}

impl Add for Vec3x8 {
    type Output = Vec3x8;
    #[inline(always)]
    fn add(self, o: Vec3x8) -> Vec3x8 {
        Vec3x8::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}
impl AddAssign for Vec3x8 {
    #[inline(always)]
    fn add_assign(&mut self, o: Vec3x8) {
        *self = *self + o;
    }
}
impl Sub for Vec3x8 {
    type Output = Vec3x8;
    #[inline(always)]
    fn sub(self, o: Vec3x8) -> Vec3x8 {
        Vec3x8::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}
impl SubAssign for Vec3x8 {
    #[inline(always)]
    fn sub_assign(&mut self, o: Vec3x8) {
        *self = *self - o;
    }
}
impl Neg for Vec3x8 {
    type Output = Vec3x8;
    #[inline(always)]
    fn neg(self) -> Vec3x8 {
        Vec3x8::new(-self.x, -self.y, -self.z)
    }
}
impl Mul for Vec3x8 {
    type Output = Vec3x8;
    #[inline(always)]
    fn mul(self, o: Vec3x8) -> Vec3x8 {
        Vec3x8::new(self.x * o.x, self.y * o.y, self.z * o.z)
    }
}
impl Mul<F32x8> for Vec3x8 {
    type Output = Vec3x8;
    #[inline(always)]
    fn mul(self, s: F32x8) -> Vec3x8 {
        Vec3x8::new(self.x * s, self.y * s, self.z * s)
    }
}
impl Mul<Vec3x8> for F32x8 {
    type Output = Vec3x8;
    #[inline(always)]
    fn mul(self, v: Vec3x8) -> Vec3x8 {
        v * self
    }
}
impl Div for Vec3x8 {
    type Output = Vec3x8;
    #[inline(always)]
    fn div(self, o: Vec3x8) -> Vec3x8 {
        Vec3x8::new(self.x / o.x, self.y / o.y, self.z / o.z)
    }
}
impl Div<F32x8> for Vec3x8 {
    type Output = Vec3x8;
    #[inline(always)]
    fn div(self, s: F32x8) -> Vec3x8 {
        Vec3x8::new(self.x / s, self.y / s, self.z / s)
    }
}

impl Add for Quatx8 {
    type Output = Quatx8;
    #[inline(always)]
    fn add(self, o: Quatx8) -> Quatx8 {
        Quatx8::new(self.w + o.w, self.x + o.x, self.y + o.y, self.z + o.z)
    }
}
impl Sub for Quatx8 {
    type Output = Quatx8;
    #[inline(always)]
    fn sub(self, o: Quatx8) -> Quatx8 {
        Quatx8::new(self.w - o.w, self.x - o.x, self.y - o.y, self.z - o.z)
    }
}
impl Neg for Quatx8 {
    type Output = Quatx8;
    #[inline(always)]
    fn neg(self) -> Quatx8 {
        Quatx8::new(-self.w, -self.x, -self.y, -self.z)
    }
}
impl Mul<F32x8> for Quatx8 {
    type Output = Quatx8;
    #[inline(always)]
    fn mul(self, s: F32x8) -> Quatx8 {
        Quatx8::new(self.w * s, self.x * s, self.y * s, self.z * s)
    }
}
impl Div<F32x8> for Quatx8 {
    type Output = Quatx8;
    #[inline(always)]
    fn div(self, s: F32x8) -> Quatx8 {
        Quatx8::new(self.w / s, self.x / s, self.y / s, self.z / s)
    }
}

/// `a · b` per lane.
#[inline(always)]
pub fn dot(a: Vec3x8, b: Vec3x8) -> F32x8 {
    a.x.mul_add(b.x, a.y.mul_add(b.y, a.z * b.z))
}

/// `a × b` per lane.
#[inline(always)]
pub fn cross(a: Vec3x8, b: Vec3x8) -> Vec3x8 {
    Vec3x8::new(
        a.y.mul_sub(b.z, a.z * b.y),
        a.z.mul_sub(b.x, a.x * b.z),
        a.x.mul_sub(b.y, a.y * b.x),
    )
}

/// `c + a × b` per lane, fused.
#[inline(always)]
pub fn cross_add(a: Vec3x8, b: Vec3x8, c: Vec3x8) -> Vec3x8 {
    Vec3x8::new(
        a.z.mul_neg_add(b.y, a.y.mul_add(b.z, c.x)),
        a.x.mul_neg_add(b.z, a.z.mul_add(b.x, c.y)),
        a.y.mul_neg_add(b.x, a.x.mul_add(b.y, c.z)),
    )
}

/// `|v|` per lane.
#[inline(always)]
pub fn length(v: Vec3x8) -> F32x8 {
    dot(v, v).sqrt()
}

/// `v / (|v| + 1e-8)` per lane.
#[inline(always)]
pub fn normalize(v: Vec3x8) -> Vec3x8 {
    v / (length(v) + splat(EPS_NORMALIZE))
}

/// Derivative of [`normalize`]: `(dv - n (dv · n)) / (|v| + 1e-8)`.
#[inline(always)]
pub fn normalize_dx(v: Vec3x8, dv: Vec3x8) -> Vec3x8 {
    let n = normalize(v);
    (dv - n * dot(dv, n)) / (length(v) + splat(EPS_NORMALIZE))
}

/// `x` clamped to `[lo, hi]` per lane; NaN stays NaN.
#[inline(always)]
pub fn clampf(x: F32x8, lo: F32x8, hi: F32x8) -> F32x8 {
    let x = x.simd_lt(lo).select(lo, x);
    x.simd_gt(hi).select(hi, x)
}

/// `(1 - t) x + t y` per lane.
#[inline(always)]
pub fn lerp(x: F32x8, y: F32x8, t: F32x8) -> F32x8 {
    (splat(1.0) - t).mul_add(x, t * y)
}

/// [`lerp`] per component.
#[inline(always)]
pub fn lerp_vec3(x: Vec3x8, y: Vec3x8, t: F32x8) -> Vec3x8 {
    Vec3x8::new(lerp(x.x, y.x, t), lerp(x.y, y.y, t), lerp(x.z, y.z, t))
}

/// `exp` per component.
#[inline(always)]
pub fn exp_vec3(v: Vec3x8) -> Vec3x8 {
    Vec3x8::new(v.x.exp(), v.y.exp(), v.z.exp())
}

/// `ln` per component.
#[inline(always)]
pub fn log_vec3(v: Vec3x8) -> Vec3x8 {
    Vec3x8::new(v.x.ln(), v.y.ln(), v.z.ln())
}

/// `x^(1-t) y^t` per lane, as `exp((1-t) ln x + t ln y)`.
#[inline(always)]
pub fn eerp(x: F32x8, y: F32x8, t: F32x8) -> F32x8 {
    (splat(1.0) - t).mul_add(x.ln(), t * y.ln()).exp()
}

/// [`eerp`] per component.
#[inline(always)]
pub fn eerp_vec3(x: Vec3x8, y: Vec3x8, t: F32x8) -> Vec3x8 {
    Vec3x8::new(eerp(x.x, y.x, t), eerp(x.y, y.y, t), eerp(x.z, y.z, t))
}

/// `v / dt` per lane, zero where `dt == 0`.
#[inline(always)]
pub fn div_dt(v: Vec3x8, dt: F32x8) -> Vec3x8 {
    dt.simd_eq(F32x8::ZERO).select(Vec3x8::ZERO, v / dt)
}

/// `x`, or `0` where `|x| < 1e-30`.
#[inline(always)]
pub fn flush_tiny(x: F32x8) -> F32x8 {
    x.abs().simd_lt(splat(FLUSH_TINY)).select(F32x8::ZERO, x)
}

/// [`flush_tiny`] per component.
#[inline(always)]
pub fn flush_tiny_vec3(v: Vec3x8) -> Vec3x8 {
    Vec3x8::new(flush_tiny(v.x), flush_tiny(v.y), flush_tiny(v.z))
}

pub(super) const ATAN_P: [f32; 7] = [
    -0.333_316_6,
    0.199_627_04,
    -0.139_765_81,
    0.097_942_33,
    -0.057_773_56,
    0.023_040_114,
    -0.004_355_399_4,
];
const SIN_P: [f32; 3] = [-0.166_666_51, 0.008_331_979, -0.000_194_956_36];
const COS_P: [f32; 3] = [0.041_666_646, -0.001_388_736_8, 2.443_845_2e-5];

#[inline(always)]
pub(super) fn horner<const N: usize>(c: &[f32; N], s: F32x8) -> F32x8 {
    let mut acc = splat(c[N - 1]);
    for &k in c[..N - 1].iter().rev() {
        acc = acc.mul_add(s, splat(k));
    }
    acc
}

/// `atan2(y, x)` per lane for `y >= 0` (angles in `[0, π]`): reduced to
/// `atan(min/max)` on `[0, 1]`, then reflected. Max error about 1e-7 rad.
#[inline(always)]
pub fn atan2_nonneg_y(y: F32x8, x: F32x8) -> F32x8 {
    let a = atan2_positive_y(y, x);
    // 0/0 when both are zero: atan2(0, +x) = 0, atan2(0, -x) = π.
    let zero = (y | x.abs()).simd_eq(F32x8::ZERO);
    zero.select(
        x.is_sign_negative()
            .select(splat(core::f32::consts::PI), F32x8::ZERO),
        a,
    )
}

/// [`atan2_nonneg_y`] for `y > 0` (NaN where both are zero).
#[inline(always)]
pub(super) fn atan2_positive_y(y: F32x8, x: F32x8) -> F32x8 {
    let ax = x.abs();
    let swap = y.simd_gt(ax);
    let num = swap.select(ax, y);
    let den = swap.select(y, ax);
    let t = num / den;
    let s = t * t;
    let a = (t * s).mul_add(horner(&ATAN_P, s), t);
    let a = swap.select(splat(core::f32::consts::FRAC_PI_2) - a, a);
    x.simd_lt(F32x8::ZERO)
        .select(splat(core::f32::consts::PI) - a, a)
}

/// `(sin x, cos x)` per lane: Cody-Waite reduction by π/2 with FMA, then
/// minimax polynomials on `[-π/4, π/4]`; the quadrant `k mod 4` picks and
/// signs the results with integer bit operations (bit 1 of `k` moved to the
/// sign bit). Max error about 1e-7 for `|x| < 1e5`; beyond that the
/// two-term reduction loses accuracy (the reference's libm does not) and the
/// result is unspecified, but finite (a point of the unit circle, up to
/// rounding) for every finite `x`.
#[inline(always)]
pub fn sin_cos(x: F32x8) -> (F32x8, F32x8) {
    let (s, c) = sin_cos_nonneg(x.abs());
    (s ^ (x & splat(-0.0)), c)
}

/// [`sin_cos`] for `x >= 0` (the sign of `x` is not looked at).
#[inline(always)]
pub(super) fn sin_cos_nonneg(ax: F32x8) -> (F32x8, F32x8) {
    // π/2 as f32 plus its residual: with FMA, k × each term is exact, so the
    // reduction error is k × 1.7e-15 (below 1e-10 for |x| < 1e5).
    const PIO2_1: f32 = 1.570_796_4;
    const PIO2_2: f32 = -4.371_139e-8;
    // Nearest quadrant as an integer (one cvtps2dq) and back as a float.
    let q = (ax * splat(core::f32::consts::FRAC_2_PI)).fast_round_int();
    let k = q.round_float();
    let rr = k.mul_neg_add(splat(PIO2_2), k.mul_neg_add(splat(PIO2_1), ax));
    // Past |x| ~ 3.4e9 the quadrant overflows i32 and the remainder is not
    // reduced: it is zeroed there, so the result stays a finite point of the
    // unit circle (unspecified, as documented) instead of the polynomials'
    // infinities. Every reduced remainder is within π/4 < 0.8, so no other
    // lane changes; NaN compares false and stays NaN.
    let rr = rr.abs().simd_gt(splat(0.8)).select(F32x8::ZERO, rr);
    let s2 = rr * rr;
    let sin_r = (rr * s2).mul_add(horner(&SIN_P, s2), rr);
    let cos_r = (s2 * s2).mul_add(horner(&COS_P, s2), splat(-0.5).mul_add(s2, splat(1.0)));
    let sign = wide::i32x8::splat(i32::MIN);
    let odd: F32x8 = bytemuck::cast((q & wide::i32x8::splat(1)).simd_eq(wide::i32x8::splat(1)));
    let s = odd.select(cos_r, sin_r);
    let c = odd.select(sin_r, cos_r);
    // sin is negative in quadrants 2, 3; cos in 1, 2.
    let sin_sign: F32x8 = bytemuck::cast((q << 30) & sign);
    let cos_sign: F32x8 = bytemuck::cast(((q + wide::i32x8::splat(1)) << 30) & sign);
    (s ^ sin_sign, c ^ cos_sign)
}

/// `1 / sqrt(x)` per lane: the 12-bit hardware estimate refined by one
/// Newton step, `y (3 - x y²) / 2`, to about 2 ULP. `0` gives infinity.
#[inline(always)]
pub fn rsqrt(x: F32x8) -> F32x8 {
    let y = x.recip_sqrt();
    let xy2 = x * y * y;
    (splat(0.5) * y) * (splat(3.0) - xy2)
}

// The quaternion functions live in `quat.rs` (file for file with
// `reference::quat`); re-exported so `math::quat_*` paths keep working.
pub use super::quat::*;
