//! The transition-cost closed forms against numerical integration, and the
//! features against the costs they emulate (transition cost article).

use kineform::reference::{self as r, Vec3};
use proptest::prelude::*;

/// Trapezoid rule in f64 with `n` intervals: error O(h²) away from the kink
/// of |f| at a zero crossing, O(h²) there too for a kink (one interval's
/// worth), well under the tolerances below for n = 200,000.
fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64, n: usize) -> f64 {
    let h = (b - a) / n as f64;
    let mut s = 0.5 * (f(a) + f(b));
    for k in 1..n {
        s += f(a + k as f64 * h);
    }
    s * h
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// `decay_spring_damper_displacement` is `∫₀^∞ |e^{-yt}(x + (v + xy)t)| dt`
    /// (within 2e-5 relative: f32 evaluation of the closed form, whose two
    /// parts may partly cancel), and it is never below the unsplit
    /// approximation `|(2xy + v) / y²|`.
    #[test]
    fn spring_displacement_is_the_integral(x in -2.0f32..2.0, v in -20.0f32..20.0, h in 0.05f32..0.6) {
        let got = r::decay_spring_damper_displacement(x, v, h) as f64;
        let y = (r::halflife_to_damping(h) / 2.0) as f64;
        let (x64, v64) = (x as f64, v as f64);
        let want = integrate(|t| ((-y * t).exp() * (x64 + (v64 + x64 * y) * t)).abs(), 0.0, 60.0 / y, 200_000);
        let scale = (x64.abs() / y + v64.abs() / (y * y)).max(1e-9);
        prop_assert!((got - want).abs() <= 2e-5 * scale + 1e-7, "closed form {got} vs integral {want} (x={x} v={v} h={h})");
        let approx = r::transition_cost_spring_approx(Vec3::splat(x), Vec3::splat(v), h).x as f64;
        prop_assert!(approx <= got * (1.0 + 1e-5) + 1e-7, "approximation {approx} above the displacement {got}");
    }

    /// `decay_cubic_displacement` is `∫₀^blendtime |decay_cubic(x, v, blendtime, t)| dt`.
    #[test]
    fn cubic_displacement_is_the_integral(x in -2.0f32..2.0, v in -20.0f32..20.0, bt in 0.05f32..1.0) {
        let got = r::decay_cubic_displacement(x, v, bt) as f64;
        let want = integrate(|t| r::decay_cubic(x, v, bt, t as f32).abs() as f64, 0.0, bt as f64, 200_000);
        let scale = (x.abs() + v.abs() * bt) as f64 * bt as f64;
        prop_assert!((got - want).abs() <= 1e-5 * scale + 1e-8, "closed form {got} vs integral {want} (x={x} v={v} bt={bt})");
        // The crossing time is a root of the cubic where it lies inside.
        let t = r::decay_cubic_intersection(x, v, bt);
        if t > 0.01 * bt && t < 0.99 * bt {
            prop_assert!(r::decay_cubic(x, v, bt, t).abs() <= 1e-4 * (x.abs() + v.abs() * bt), "decay_cubic at its crossing {t}");
        }
    }

    /// The spring crossing time is where the offset changes sign.
    #[test]
    fn spring_intersection_is_a_zero(x in -2.0f32..2.0, v in -20.0f32..20.0, h in 0.05f32..0.6) {
        let t = r::decay_spring_damper_intersection(x, v, h);
        let y = r::halflife_to_damping(h) / 2.0;
        if t > 0.0 && t.is_finite() {
            let at = |t: f32| x + (v + x * y) * t;
            prop_assert!(at(t).abs() <= 1e-5 * (x.abs() + v.abs() * t + 1.0), "offset {} at its crossing {t}", at(t));
        }
    }

    /// Feature distances are the approximate costs: spring
    /// `|f(s) - f(d)| = |(2 x y + v) / y²|`, cubic `z |x / 2 + z v / 12|`,
    /// with x, v the source-minus-destination position and velocity.
    #[test]
    fn features_emulate_the_costs(sp in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0), dp in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
                                  sv in (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0), dv in (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
                                  h in 0.05f32..0.6, z in 0.05f32..1.0) {
        let v3 = |t: (f32, f32, f32)| Vec3::new(t.0, t.1, t.2);
        let (sp, dp, sv, dv) = (v3(sp), v3(dp), v3(sv), v3(dv));
        let dist = r::transition_feature_spring(sp, sv, h) - r::transition_feature_spring(dp, dv, h);
        let cost = r::transition_cost_spring_approx(sp - dp, sv - dv, h);
        let y = r::halflife_to_damping(h) / 2.0;
        let scale = 2.0 * 2.0 / y + 10.0 / (y * y);
        for (a, b) in dist.to_array().iter().zip(cost.to_array()) {
            prop_assert!((a.abs() - b).abs() <= 4e-6 * scale, "spring feature distance {a} vs cost {b}");
        }
        let dist = r::transition_feature_cubic(sp, sv, z) - r::transition_feature_cubic(dp, dv, z);
        let (x, v) = (sp - dp, sv - dv);
        for k in 0..3 {
            let (xk, vk) = (x.to_array()[k], v.to_array()[k]);
            // The unsplit integral of the cubic, blendtime (a/4 + b/3 + c/2 + d).
            let (d, c) = (xk, vk * z);
            let (b, a) = (-3.0 * d - 2.0 * c, 2.0 * d + c);
            let want = (z * (a / 4.0 + b / 3.0 + c / 2.0 + d)).abs();
            prop_assert!((dist.to_array()[k].abs() - want).abs() <= 4e-6 * (2.0 + 10.0 * z) * z, "cubic feature distance vs cost");
        }
    }
}

#[test]
fn no_crossing_where_v_plus_xy_is_zero() {
    // Published: -x / 0 is infinite and the displacement NaN.
    let h = 0.2;
    let y = r::halflife_to_damping(h) / 2.0;
    let (x, v) = (1.5f32, -1.5 * y);
    assert!(!r::decay_spring_damper_intersection(x, v, h).is_finite());
    let d = r::decay_spring_damper_displacement(x, v, h);
    // The offset is then x e^{-yt}, whose area is x / y.
    assert!((d - x / y).abs() < 1e-5 * x / y, "{d} vs {}", x / y);
}
