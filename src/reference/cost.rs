//! Inertialization transition cost: the total displacement an inertialized
//! transition causes, and the matching motion-matching features
//! (inertialization transition cost article).

use super::math::{Vec3, clampf};
use super::spring::halflife_to_damping;

/// Epsilon of the cubic decay helpers (`1e-8`).
pub const EPS_COST: f32 = 1e-8;

/// Time at which a critically damped offset (initial offset `x`, velocity
/// `v`, decaying toward zero) crosses zero: `t = -x / (v + x y)` with
/// `y = halflife_to_damping(halflife) / 2`. Negative or non-finite when it
/// never crosses.
#[inline]
pub fn decay_spring_damper_intersection(x: f32, v: f32, halflife: f32) -> f32 {
    let y = halflife_to_damping(halflife) / 2.0;
    -x / (v + x * y)
}

/// Total displacement `∫₀^∞ |e^{-yt} (x + (v + x y) t)| dt` of a decaying
/// spring offset: `(2xy + v) / y²` when it does not cross zero, else the two
/// parts before and after the crossing time `t`, each taken in absolute value.
///
/// The area is that of exact exponential decay (the article integrates
/// `e^{-yt}`, and so does this, with `exp`); the crate's stepped springs use
/// `fast_negexp`, whose tail falls off like `x⁻³`, so their area is larger,
/// by up to tens of percent for large velocity offsets.
///
/// Deviation: where `v + x y = 0` the published code divides by zero and the
/// result is NaN; the offset then never crosses zero and this returns
/// `|(2xy + v) / y²|`.
///
/// An offset of 1 at rest with a half-life of 0.1 s never crosses zero; its
/// area is `2 / y` with `y = 2 ln 2 / 0.10001`, 0.1443 (the cost of that
/// transition for a unit offset):
///
/// ```
/// use kineform::reference::decay_spring_damper_displacement;
/// let a = decay_spring_damper_displacement(1.0, 0.0, 0.1);
/// assert!((a - 0.1443).abs() < 1e-4);
/// ```
#[inline]
pub fn decay_spring_damper_displacement(x: f32, v: f32, halflife: f32) -> f32 {
    let y = halflife_to_damping(halflife) / 2.0;
    let t = decay_spring_damper_intersection(x, v, halflife);
    let int_0 = (x * y * 2.0 + v) / (y * y);
    if t > 0.0 && t.is_finite() {
        let int_t = ((-y * t).exp() / (y * y)) * (t * v * y + x * y * (t * y + 2.0) + v);
        (int_0 - int_t).abs() + int_t.abs()
    } else {
        int_0.abs()
    }
}

/// The cubic decay of an offset `x` moving at `v`, `dt` after the
/// transition (the article's `decay_cubic`): with `t = clamp(dt / (blendtime
/// + 1e-8), 0, 1)`, `d = x`, `c = v blendtime`, `b = -3d - 2c`, `a = 2d + c`,
/// `a t³ + b t² + c t + d`.
#[inline]
pub fn decay_cubic(x: f32, v: f32, blendtime: f32, dt: f32) -> f32 {
    let t = clampf(dt / (blendtime + EPS_COST), 0.0, 1.0);
    let (d, c) = (x, v * blendtime);
    let (b, a) = (-3.0 * d - 2.0 * c, 2.0 * d + c);
    a * t * t * t + b * t * t + c * t + d
}

/// The cubic's coefficients `(a, b, c, d)` for an offset `x` moving at `v`.
#[inline]
fn cubic(x: f32, v: f32, blendtime: f32) -> (f32, f32, f32, f32) {
    let (d, c) = (x, v * blendtime);
    (2.0 * d + c, -3.0 * d - 2.0 * c, c, d)
}

/// Time at which the cubic decay crosses zero before `blendtime`: its third
/// root `(-2a - b) / (a + 1e-8)` (the other two are at 1), times `blendtime`.
#[inline]
pub fn decay_cubic_intersection(x: f32, v: f32, blendtime: f32) -> f32 {
    let (a, b, _, _) = cubic(x, v, blendtime);
    ((-2.0 * a - b) / (a + EPS_COST)) * blendtime
}

/// Total displacement `blendtime ∫₀¹ |a s³ + b s² + c s + d| ds` of the cubic
/// decay, split at the crossing when it lies in `[0, 1]`.
#[inline]
pub fn decay_cubic_displacement(x: f32, v: f32, blendtime: f32) -> f32 {
    let (a, b, c, d) = cubic(x, v, blendtime);
    let t = (-2.0 * a - b) / (a + EPS_COST);
    let int_0 = a / 4.0 + b / 3.0 + c / 2.0 + d;
    let int_t = (a * t * t * t * t) / 4.0 + (b * t * t * t) / 3.0 + (c * t * t) / 2.0 + d * t;
    blendtime
        * if (0.0..=1.0).contains(&t) {
            (int_0 - int_t).abs() + int_t.abs()
        } else {
            int_0.abs()
        }
}

/// The spring-inertializer feature `2 pos / y + vel / y²`
/// (`y = halflife_to_damping(halflife) / 2`): the distance between two
/// frames' features is the approximate cost `|(2 x y + v) / y²|` of a
/// transition between them.
#[inline]
pub fn transition_feature_spring(pos: Vec3, vel: Vec3, halflife: f32) -> Vec3 {
    let y = halflife_to_damping(halflife) / 2.0;
    pos * (2.0 / y) + vel / (y * y)
}

/// The cubic-inertializer feature `z pos / 2 + z² vel / 12`
/// (`z = blendtime`): the distance between two frames' features is the
/// approximate cubic displacement `z |x / 2 + z v / 12|`.
#[inline]
pub fn transition_feature_cubic(pos: Vec3, vel: Vec3, blendtime: f32) -> Vec3 {
    pos * (blendtime / 2.0) + vel * (blendtime * blendtime / 12.0)
}

/// The approximate spring cost the feature emulates, `|(2 x y + v) / y²|`
/// per component, for a position difference `x` and velocity difference `v`.
#[inline]
pub fn transition_cost_spring_approx(x: Vec3, v: Vec3, halflife: f32) -> Vec3 {
    let y = halflife_to_damping(halflife) / 2.0;
    ((2.0 * y) * x + v).map(|c| (c / (y * y)).abs())
}
