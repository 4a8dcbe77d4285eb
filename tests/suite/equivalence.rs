//! Every lane kernel against the scalar reference, all eight lanes fed
//! different inputs, with the edge cases of reference-math.md mixed in.
//!
//! Tolerances, per family (|a - b| <= abs + rel * scale, scale being the
//! largest magnitude among inputs and outputs):
//!
//! - `ARITH` (products, rotations, kineforms): rel 2e-6. The lanes fuse
//!   multiply-adds (one rounding where the reference has two) and share one
//!   rotation between terms the reference rotates separately, so results
//!   differ by a few ULP of the largest intermediate.
//! - `SPRING` (dampers, springs, cubic decays): rel 4e-6. `fast_negexp` is
//!   bit-identical on both paths; the rest differs by FMA rounding through
//!   a handful of dependent operations.
//! - `TRANSC` (exp/log, slerp, anything through sin/cos/atan2/ln/exp): abs
//!   and rel 4e-6. The lane polynomials are within about 1e-7 of the true
//!   function (tools/fit_poly.py) and libm within 1 ULP; sqrt and division
//!   around them add a few ULP.
//! - `CHAIN` (FK and BK down a hierarchy): rel 2e-5 of the pose's largest
//!   magnitude. Per-joint ARITH differences accumulate down chains of up to
//!   ~12 joints with scales multiplying along them.
//! - Over-damped springs near the critical band divide by `y1 - y0`, which
//!   can be as small as 6e-3; differences there are amplified, so that
//!   family uses rel 1e-4.

#![allow(clippy::needless_range_loop)] // tests index several parallel arrays

use crate::common;
use common::*;

use kineform::lanes;
use kineform::reference as r;
use proptest::prelude::*;

const ARITH: Tol = Tol::new(0.0, 2e-6);
const SPRING: Tol = Tol::new(1e-6, 4e-6);
const TRANSC: Tol = Tol::new(4e-6, 4e-6);
const CHAIN: Tol = Tol::new(1e-5, 2e-5);
const OVERDAMPED: Tol = Tol::new(1e-5, 1e-4);

fn cfg() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(256),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cfg())]

    // ---- math: vectors ----

    #[test]
    fn vec3_basics(a in arr8(vec3_edgy(10.0)), b in arr8(vec3_edgy(10.0)), t in arr8(f32_in(-0.5, 1.5))) {
        let s = |i: usize| mag(a[i]).max(mag(b[i]));
        check_lanes(lanes::dot(v8(a), v8(b)), |i| r::dot(a[i], b[i]), |i| s(i) * s(i), ARITH, "dot")?;
        check_lanes(lanes::cross(v8(a), v8(b)), |i| r::cross(a[i], b[i]), |i| s(i) * s(i), ARITH, "cross")?;
        check_lanes(lanes::length(v8(a)), |i| r::length(a[i]), s, ARITH, "length")?;
        check_lanes(lanes::normalize(v8(a)), |i| r::normalize(a[i]), |_| 1.0, ARITH, "normalize")?;
        check_lanes(lanes::normalize_dx(v8(a), v8(b)), |i| r::normalize_dx(a[i], b[i]),
            |i| mag(b[i]) / (r::length(a[i]) + 1e-8), ARITH, "normalize_dx")?;
        check_lanes(lanes::lerp_vec3(v8(a), v8(b), f8(t)), |i| r::lerp_vec3(a[i], b[i], t[i]), |i| 2.0 * s(i), ARITH, "lerp_vec3")?;
        check_lanes(lanes::lerp(f8(t), f8(t.map(|x| x * 3.0)), f8(t)), |i| r::lerp(t[i], t[i] * 3.0, t[i]), |_| 5.0, ARITH, "lerp")?;
        check_lanes(lanes::clampf(f8(t), lanes::splat(0.0), lanes::splat(1.0)), |i| r::clampf(t[i], 0.0, 1.0), |_| 1.0, ARITH, "clampf")?;
    }

    #[test]
    fn exp_log_eerp(a in arr8(vec3_in(4.0)), b in arr8(vec3_in(4.0)), t in arr8(f32_in(0.0, 1.0))) {
        let pa = a.map(r::exp_vec3);
        let pb = b.map(r::exp_vec3);
        check_lanes(lanes::exp_vec3(v8(a)), |i| r::exp_vec3(a[i]), |_| 0.0, TRANSC, "exp_vec3")?;
        check_lanes(lanes::log_vec3(v8(pa)), |i| r::log_vec3(pa[i]), |_| 4.0, TRANSC, "log_vec3")?;
        check_lanes(lanes::eerp_vec3(v8(pa), v8(pb), f8(t)), |i| r::eerp_vec3(pa[i], pb[i], t[i]), |_| 0.0, TRANSC, "eerp_vec3")?;
        let (x, y) = (pa.map(|v| v.x), pb.map(|v| v.y));
        check_lanes(lanes::eerp(f8(x), f8(y), f8(t)), |i| r::eerp(x[i], y[i], t[i]), |_| 0.0, TRANSC, "eerp")?;
    }

    #[test]
    fn div_dt_and_flush(v in arr8(vec3_in(10.0)), dt in arr8(prop_oneof![Just(0.0f32), 0.001f32..0.1]),
                        x in arr8(prop_oneof![Just(1e-31f32), Just(-1e-35f32), -1.0f32..1.0])) {
        check_lanes(lanes::div_dt(v8(v), f8(dt)), |i| r::div_dt(v[i], dt[i]), |i| mag(v[i]) / dt[i].max(1e-3), ARITH, "div_dt")?;
        check_lanes(lanes::flush_tiny(f8(x)), |i| r::flush_tiny(x[i]), |_| 0.0, Tol::new(0.0, 0.0), "flush_tiny")?;
    }

    // ---- math: quaternions ----

    #[test]
    fn quat_products(q in arr8(quat_edgy()), p in arr8(quat_edgy()), v in arr8(vec3_edgy(10.0))) {
        let s = |i: usize| mag(v[i]).max(1.0);
        check_lanes(lanes::quat_mul(q8(q), q8(p)), |i| r::quat_mul(q[i], p[i]), |_| 1.0, ARITH, "quat_mul")?;
        check_lanes(lanes::quat_inv(q8(q)), |i| r::quat_inv(q[i]), |_| 1.0, Tol::new(0.0, 0.0), "quat_inv")?;
        check_lanes(lanes::quat_mul_inv(q8(q), q8(p)), |i| r::quat_mul_inv(q[i], p[i]), |_| 1.0, ARITH, "quat_mul_inv")?;
        check_lanes(lanes::quat_inv_mul(q8(q), q8(p)), |i| r::quat_inv_mul(q[i], p[i]), |_| 1.0, ARITH, "quat_inv_mul")?;
        check_lanes(lanes::quat_mul_vec3(q8(q), v8(v)), |i| r::quat_mul_vec3(q[i], v[i]), s, ARITH, "quat_mul_vec3")?;
        check_lanes(lanes::quat_inv_mul_vec3(q8(q), v8(v)), |i| r::quat_inv_mul_vec3(q[i], v[i]), s, ARITH, "quat_inv_mul_vec3")?;
        check_lanes(lanes::quat_abs(q8(q)), |i| r::quat_abs(q[i]), |_| 1.0, Tol::new(0.0, 0.0), "quat_abs")?;
        check_lanes(lanes::quat_dot(q8(q), q8(p)), |i| r::quat_dot(q[i], p[i]), |_| 1.0, ARITH, "quat_dot")?;
        check_lanes(lanes::quat_normalize(q8(q)), |i| r::quat_normalize(q[i]), |_| 1.0, ARITH, "quat_normalize")?;
        let dq = p;
        check_lanes(lanes::quat_normalize_dx(q8(q), q8(dq)), |i| r::quat_normalize_dx(q[i], dq[i]), |_| 1.0, ARITH, "quat_normalize_dx")?;
        check_lanes(lanes::quat_delta_to_angular_velocity(q8(q), q8(dq)), |i| r::quat_delta_to_angular_velocity(q[i], dq[i]), |_| 2.0, ARITH, "quat_delta_to_angular_velocity")?;
    }

    #[test]
    fn quat_exp_log(v in arr8(vec3_edgy(6.0)), q in arr8(quat_edgy())) {
        check_lanes(lanes::quat_exp(v8(v)), |i| r::quat_exp(v[i]), |_| 1.0, TRANSC, "quat_exp")?;
        check_lanes(lanes::quat_log(q8(q)), |i| r::quat_log(q[i]), |_| 1.0, TRANSC, "quat_log")?;
        check_lanes(lanes::quat_from_scaled_angle_axis(v8(v)), |i| r::quat_from_scaled_angle_axis(v[i]), |_| 1.0, TRANSC, "quat_from_scaled_angle_axis")?;
        check_lanes(lanes::quat_to_scaled_angle_axis(q8(q)), |i| r::quat_to_scaled_angle_axis(q[i]), |_| 2.0, TRANSC, "quat_to_scaled_angle_axis")?;
        let angle = v.map(|v| v.x);
        let axis = v.map(r::normalize);
        check_lanes(lanes::quat_from_angle_axis(f8(angle), v8(axis)), |i| r::quat_from_angle_axis(angle[i], axis[i]), |_| 1.0, TRANSC, "quat_from_angle_axis")?;
    }

    /// The short variants on their domain: half-angle vectors no longer
    /// than π/2 (a shortest-arc log scaled by a weight in [0, 1]) and
    /// logarithms of quaternions with w >= 0.
    #[test]
    fn quat_exp_log_short(v in arr8(vec3_edgy(0.906)), q in arr8(quat_edgy()), t in arr8(f32_in(0.0, 1.0))) {
        check_lanes(lanes::quat_exp_short(v8(v)), |i| r::quat_exp(v[i]), |_| 1.0, TRANSC, "quat_exp_short")?;
        let qa = q.map(r::quat_abs);
        check_lanes(lanes::quat_log_short(q8(qa)), |i| r::quat_log(qa[i]), |_| 1.0, TRANSC, "quat_log_short")?;
        // Round trip at the edge of the domain: exp(t log(q)) is the
        // shortest slerp from the identity.
        let w: [r::Vec3; 8] = core::array::from_fn(|i| r::quat_log(qa[i]) * t[i]);
        check_lanes(lanes::quat_exp_short(v8(w)), |i| r::quat_exp(w[i]), |_| 1.0, TRANSC, "quat_exp_short of a scaled log")?;
        // The small-angle variant on its domain, |v| <= 0.2 (v scaled into
        // it), with s given as the crowd gives it: a weight squared times
        // the step's stored v·v.
        let small: [r::Vec3; 8] = core::array::from_fn(|i| v[i] * 0.127); // |v| <= 0.906 √3
        let s8 = lanes::F32x8::new(core::array::from_fn(|i| t[i] * t[i] * r::dot(small[i], small[i])));
        let ts: [r::Vec3; 8] = core::array::from_fn(|i| small[i] * t[i]);
        prop_assert!(s8.to_array().iter().all(|&s| s <= lanes::EXP_SMALL_S * 1.0001));
        let t8 = lanes::F32x8::new(t);
        check_lanes(lanes::quat_exp_small_scaled(v8(small), t8, s8), |i| r::quat_exp(ts[i]), |_| 1.0, TRANSC, "quat_exp_small_scaled")?;
        check_lanes(lanes::quat_exp_short_scaled(v8(small), t8, s8), |i| r::quat_exp(ts[i]), |_| 1.0, TRANSC, "quat_exp_short_scaled")?;
    }

    #[test]
    fn quat_velocities(a in arr8(quat_edgy()), b in arr8(quat_edgy()), w in arr8(vec3_in(10.0)),
                       dt in arr8(prop_oneof![Just(0.0f32), 0.001f32..0.1])) {
        check_lanes(lanes::quat_differentiate_angular_velocity(q8(a), q8(b), f8(dt)),
            |i| r::quat_differentiate_angular_velocity(a[i], b[i], dt[i]), |i| 7.0 / dt[i].max(1e-3), TRANSC, "quat_differentiate_angular_velocity")?;
        check_lanes(lanes::quat_integrate_angular_velocity(v8(w), q8(a), f8(dt)),
            |i| r::quat_integrate_angular_velocity(w[i], a[i], dt[i]), |_| 1.0, TRANSC, "quat_integrate_angular_velocity")?;
    }

    #[test]
    fn slerp(q in arr8(quat_edgy()), p in arr8(quat_edgy()), t in arr8(f32_in(-0.25, 1.25)), same in arr8(0u8..8), u in arr8(vec3_in(1.0))) {
        // A quarter of the lanes interpolate between equal or opposite
        // inputs, where the reference returns q exactly; a quarter between
        // ties, p orthogonal to q in 4D (each lane its own tie, either
        // sign), where the flip is decided by rounding and must be the
        // reference's (issue 14).
        let p: [r::Quat; 8] = core::array::from_fn(|i| match same[i] {
            0 => q[i],
            1 => -q[i],
            2 | 3 => {
                let o = orthogonal(q[i], same[i].wrapping_add(u[i].x.to_bits() as u8), u[i]);
                if u[i].y < 0.0 { -o } else { o }
            }
            _ => p[i],
        });
        check_lanes(lanes::quat_slerp_shortest(q8(q), q8(p), f8(t)), |i| r::quat_slerp_shortest(q[i], p[i], t[i]), |_| 1.0, TRANSC, "quat_slerp_shortest")?;
        // nlerp is used (by slerp) on the hemisphere of q and t in [0, 1];
        // elsewhere it normalizes a near-zero sum and is ill-conditioned.
        let ph: [r::Quat; 8] = core::array::from_fn(|i| if r::quat_dot(q[i], p[i]) < 0.0 { -p[i] } else { p[i] });
        let tc = t.map(|t| t.clamp(0.0, 1.0));
        check_lanes(lanes::quat_nlerp(q8(q), q8(ph), f8(tc)), |i| r::quat_nlerp(q[i], ph[i], tc[i]), |_| 1.0, TRANSC, "quat_nlerp")?;
    }

    #[test]
    fn between(p in arr8(vec3_edgy(5.0)), q in arr8(vec3_edgy(5.0)), dp in arr8(vec3_in(5.0)), dq in arr8(vec3_in(5.0)), kind in arr8(0u8..5)) {
        // Some lanes take opposite or equal directions (the half-turn and
        // identity cases).
        let q: [r::Vec3; 8] = core::array::from_fn(|i| match kind[i] { 0 => -p[i], 1 => p[i] * 2.0, _ => q[i] });
        // Near-opposite directions make w = |p||q| + p·q cancel: the
        // normalized result's error grows like 1 / cos(φ/2) = 1 / w.
        check_lanes(lanes::quat_between(v8(p), v8(q)), |i| r::quat_between(p[i], q[i]),
            |i| 1.0 / r::quat_between(p[i], q[i]).w.abs().max(1e-3), TRANSC, "quat_between")?;
        // The derivative is only well defined away from the singular cases.
        let ok = |i: usize| r::length(p[i]) > 0.1 && r::length(q[i]) > 0.1 && r::dot(r::normalize(p[i]), r::normalize(q[i])) > -0.9;
        let got = lanes::quat_between_dx(v8(p), v8(dp), v8(q), v8(dq)).to_array();
        for i in (0..8).filter(|&i| ok(i)) {
            let want = r::quat_between_dx(p[i], dp[i], q[i], dq[i]);
            let s = (mag(dp[i]) + mag(dq[i])) / r::length(p[i]).min(r::length(q[i]));
            check(got[i], want, s, TRANSC, "quat_between_dx")?;
        }
    }

    // ---- springs ----

    #[test]
    fn dampers(x in arr8(f32_in(-100.0, 100.0)), g in arr8(f32_in(-100.0, 100.0)),
               h in arr8(prop_oneof![Just(0.0f32), 0.0f32..2.0]), dt in arr8(prop_oneof![Just(0.0f32), Just(-0.1f32), 0.0f32..0.5])) {
        let s = |i: usize| x[i].abs().max(g[i].abs());
        check_lanes(lanes::fast_negexp(f8(dt)), |i| r::fast_negexp(dt[i]), |_| 1.0, Tol::new(0.0, 0.0), "fast_negexp")?;
        check_lanes(lanes::fast_atan(f8(x)), |i| r::fast_atan(x[i]), |_| 2.0, ARITH, "fast_atan")?;
        check_lanes(lanes::halflife_to_damping(f8(h)), |i| r::halflife_to_damping(h[i]), |_| 0.0, Tol::new(0.0, 0.0), "halflife_to_damping")?;
        check_lanes(lanes::damping_to_halflife(f8(h)), |i| r::damping_to_halflife(h[i]), |_| 0.0, Tol::new(0.0, 0.0), "damping_to_halflife")?;
        check_lanes(lanes::damper_exact(f8(x), f8(g), f8(h), f8(dt)), |i| r::damper_exact(x[i], g[i], h[i], dt[i]), s, SPRING, "damper_exact")?;
        check_lanes(lanes::damper_decay_exact(f8(x), f8(h), f8(dt)), |i| r::damper_decay_exact(x[i], h[i], dt[i]), s, SPRING, "damper_decay_exact")?;
    }

    #[test]
    fn springs(x in arr8(f32_in(-10.0, 10.0)), v in arr8(f32_in(-50.0, 50.0)), g in arr8(f32_in(-10.0, 10.0)), gv in arr8(f32_in(-5.0, 5.0)),
               h in arr8(prop_oneof![Just(0.0f32), 0.01f32..2.0]), dt in arr8(prop_oneof![Just(0.0f32), 0.0f32..0.2])) {
        let s = |i: usize| x[i].abs().max(v[i].abs()).max(g[i].abs()).max(gv[i].abs() * 10.0);
        check_lanes(lanes::decay_spring_damper_exact(f8(x), f8(v), f8(h), f8(dt)), |i| r::decay_spring_damper_exact(x[i], v[i], h[i], dt[i]), s, SPRING, "decay_spring_damper_exact")?;
        check_lanes(lanes::simple_spring_damper_exact(f8(x), f8(v), f8(g), f8(h), f8(dt)), |i| r::simple_spring_damper_exact(x[i], v[i], g[i], h[i], dt[i]), s, SPRING, "simple_spring_damper_exact")?;
        // c = x_goal + d v_goal / (d²/4) grows like 1/d: scale by it.
        check_lanes(lanes::critical_spring_damper_exact(f8(x), f8(v), f8(g), f8(gv), f8(h), f8(dt)),
            |i| r::critical_spring_damper_exact(x[i], v[i], g[i], gv[i], h[i], dt[i]),
            |i| s(i) * (1.0 + h[i]), SPRING, "critical_spring_damper_exact")?;
    }

    #[test]
    fn springs_vec3_quat(x in arr8(vec3_in(10.0)), v in arr8(vec3_in(20.0)), q in arr8(quat_edgy()),
                         h in arr8(0.0f32..2.0), dt in arr8(prop_oneof![Just(0.0f32), 0.0f32..0.2])) {
        let s = |i: usize| mag(x[i]).max(mag(v[i]));
        check_lanes(lanes::decay_spring_damper_exact_vec3(v8(x), v8(v), f8(h), f8(dt)),
            |i| r::decay_spring_damper_exact_vec3(x[i], v[i], h[i], dt[i]), s, SPRING, "decay_spring_damper_exact_vec3")?;
        check_lanes(lanes::decay_spring_damper_exact_quat(q8(q), v8(v), f8(h), f8(dt)),
            |i| r::decay_spring_damper_exact_quat(q[i], v[i], h[i], dt[i]), |i| mag(v[i]).max(4.0), TRANSC, "decay_spring_damper_exact_quat")?;
    }

    #[test]
    fn stiffness_damping(x in arr8(f32_in(-10.0, 10.0)), v in arr8(f32_in(-10.0, 10.0)), g in arr8(f32_in(-10.0, 10.0)), gv in arr8(f32_in(-2.0, 2.0)),
                         s in arr8(prop_oneof![Just(0.0f32), 0.0f32..200.0]), d in arr8(prop_oneof![Just(0.0f32), 0.0f32..30.0]),
                         crit in arr8(0u8..4), dt in arr8(prop_oneof![Just(0.0f32), 0.0f32..0.1])) {
        // A quarter of the lanes sit exactly on the critically damped line.
        let s: [f32; 8] = core::array::from_fn(|i| if crit[i] == 0 { d[i] * d[i] / 4.0 } else { s[i] });
        let got = lanes::spring_damper_exact_stiffness_damping(f8(x), f8(v), f8(g), f8(gv), f8(s), f8(d), f8(dt)).split();
        for i in 0..8 {
            let want = r::spring_damper_exact_stiffness_damping(x[i], v[i], g[i], gv[i], s[i], d[i], dt[i]);
            let disc = s[i] - d[i] * d[i] / 4.0;
            let tol = if disc < 0.0 && disc.abs() < 1.0 { OVERDAMPED } else { SPRING };
            // c = g + d q / (s + eps) is as large as d |q| / eps when s = 0.
            let c = g[i] + d[i] * gv[i] / (s[i] + 1e-5);
            let sc = x[i].abs().max(v[i].abs()).max(c.abs()) * (1.0 + d[i]);
            check(got[i], want, sc, tol, &format!("spring_damper_exact_stiffness_damping lane {i} s={} d={} dt={}", s[i], d[i], dt[i]))?;
        }
    }

    // ---- inertializers ----

    #[test]
    fn cubic_inertializer(ox in arr8(vec3_in(5.0)), ov in arr8(vec3_in(20.0)), sx in arr8(vec3_in(5.0)), sv in arr8(vec3_in(20.0)),
                          dx in arr8(vec3_in(5.0)), dv in arr8(vec3_in(20.0)),
                          bt in arr8(prop_oneof![Just(0.0f32), 0.05f32..1.0]), t in arr8(prop_oneof![Just(0.0f32), 0.0f32..1.5]),
                          dt in arr8(0.0f32..0.05)) {
        let s = |i: usize| [ox[i], ov[i], sx[i], sv[i], dx[i], dv[i]].iter().fold(0.0f32, |m, v| m.max(mag(*v))) / bt[i].max(0.05);
        check_lanes(lanes::decayed_offset_cubic(v8(ox), v8(ov), f8(bt), f8(t)),
            |i| r::decayed_offset_cubic(ox[i], ov[i], bt[i], t[i]), s, SPRING, "decayed_offset_cubic")?;
        check_lanes(lanes::inertialize_cubic_transition(v8(ox), v8(ov), f8(t), v8(sx), v8(sv), v8(dx), v8(dv), f8(bt)),
            |i| r::inertialize_cubic_transition(ox[i], ov[i], t[i], sx[i], sv[i], dx[i], dv[i], bt[i]), s, SPRING, "inertialize_cubic_transition")?;
        check_lanes(lanes::inertialize_cubic_update(f8(t), v8(ox), v8(ov), v8(sx), v8(sv), f8(bt), f8(dt)),
            |i| r::inertialize_cubic_update(t[i], ox[i], ov[i], sx[i], sv[i], bt[i], dt[i]), s, SPRING, "inertialize_cubic_update")?;
    }

    #[test]
    fn cubic_inertializer_quat(oq in arr8(quat_edgy()), ov in arr8(vec3_in(5.0)), sq in arr8(unit_quat()), sv in arr8(vec3_in(5.0)),
                               dq in arr8(unit_quat()), dv in arr8(vec3_in(5.0)),
                               bt in arr8(0.05f32..1.0), t in arr8(prop_oneof![Just(0.0f32), 0.0f32..1.5]), dt in arr8(0.0f32..0.05)) {
        let s = |i: usize| (mag(ov[i]) + mag(sv[i]) + mag(dv[i]) + 7.0) / bt[i];
        check_lanes(lanes::decayed_offset_cubic_quat(q8(oq), v8(ov), f8(bt), f8(t)),
            |i| r::decayed_offset_cubic_quat(oq[i], ov[i], bt[i], t[i]), s, TRANSC, "decayed_offset_cubic_quat")?;
        check_lanes(lanes::inertialize_cubic_transition_quat(q8(oq), v8(ov), f8(t), q8(sq), v8(sv), q8(dq), v8(dv), f8(bt)),
            |i| r::inertialize_cubic_transition_quat(oq[i], ov[i], t[i], sq[i], sv[i], dq[i], dv[i], bt[i]), s, TRANSC, "inertialize_cubic_transition_quat")?;
        check_lanes(lanes::inertialize_cubic_update_quat(f8(t), q8(oq), v8(ov), q8(sq), v8(sv), f8(bt), f8(dt)),
            |i| r::inertialize_cubic_update_quat(t[i], oq[i], ov[i], sq[i], sv[i], bt[i], dt[i]), s, TRANSC, "inertialize_cubic_update_quat")?;
    }

    #[test]
    fn spring_inertializer(ox in arr8(vec3_in(5.0)), ov in arr8(vec3_in(20.0)), sx in arr8(vec3_in(5.0)), sv in arr8(vec3_in(20.0)),
                           dx in arr8(vec3_in(5.0)), dv in arr8(vec3_in(20.0)), oq in arr8(quat_edgy()), sq in arr8(unit_quat()), dq in arr8(unit_quat()),
                           h in arr8(0.01f32..1.0), dt in arr8(0.0f32..0.05)) {
        let s = |i: usize| [ox[i], ov[i], sx[i], sv[i], dx[i], dv[i]].iter().fold(0.0f32, |m, v| m.max(mag(*v)));
        check_lanes(lanes::inertialize_transition(v8(ox), v8(ov), v8(sx), v8(sv), v8(dx), v8(dv)),
            |i| r::inertialize_transition(ox[i], ov[i], sx[i], sv[i], dx[i], dv[i]), s, SPRING, "inertialize_transition")?;
        check_lanes(lanes::inertialize_update(v8(ox), v8(ov), v8(sx), v8(sv), f8(h), f8(dt)),
            |i| r::inertialize_update(ox[i], ov[i], sx[i], sv[i], h[i], dt[i]), s, SPRING, "inertialize_update")?;
        check_lanes(lanes::inertialize_transition_quat(q8(oq), v8(ov), q8(sq), v8(sv), q8(dq), v8(dv)),
            |i| r::inertialize_transition_quat(oq[i], ov[i], sq[i], sv[i], dq[i], dv[i]), s, TRANSC, "inertialize_transition_quat")?;
        check_lanes(lanes::inertialize_update_quat(q8(oq), v8(ov), q8(sq), v8(sv), f8(h), f8(dt)),
            |i| r::inertialize_update_quat(oq[i], ov[i], sq[i], sv[i], h[i], dt[i]), |i| s(i).max(7.0), TRANSC, "inertialize_update_quat")?;
    }

    // ---- kineforms ----

    #[test]
    fn kforms(a in arr8(kform(10.0)), b in arr8(kform(10.0)), p in arr8(vec3_in(10.0)), v in arr8(vec3_in(10.0))) {
        let s = |i: usize| mag(a[i]).max(mag(b[i]));
        let mul = lanes::kform_mul(k8(a), k8(b)).to_array();
        for i in 0..8 {
            check_floors(mul[i], r::kform_mul(a[i], b[i]), &kform_mul_floors(a[i], b[i]), ARITH, "kform_mul")?;
        }
        check_lanes(lanes::kform_div(k8(a), k8(b)), |i| r::kform_div(a[i], b[i]), |i| s(i) * 8.0, ARITH, "kform_div")?;
        check_lanes(lanes::kform_inv(k8(a)), |i| r::kform_inv(a[i]), |i| s(i) * 8.0, ARITH, "kform_inv")?;
        check_lanes(lanes::kform_inv_mul(k8(a), k8(b)), |i| r::kform_inv_mul(a[i], b[i]), |i| s(i) * s(i) * 8.0, ARITH, "kform_inv_mul")?;
        check_lanes(lanes::kform_mul_inv(k8(a), k8(b)), |i| r::kform_mul_inv(a[i], b[i]), |i| s(i) * s(i) * 8.0, ARITH, "kform_mul_inv")?;
        check_lanes(lanes::kform_mul_dir(k8(a), v8(v)), |i| r::kform_mul_dir(a[i], v[i]), |i| mag(v[i]), ARITH, "kform_mul_dir")?;
        check_lanes(lanes::kform_mul_pos(k8(a), v8(p)), |i| r::kform_mul_pos(a[i], p[i]), |i| s(i) * mag(p[i]), ARITH, "kform_mul_pos")?;
        check_lanes(lanes::kform_mul_vel(k8(a), v8(p), v8(v)), |i| r::kform_mul_vel(a[i], p[i], v[i]), |i| s(i) * mag(p[i]).max(mag(v[i])), ARITH, "kform_mul_vel")?;
        check_lanes(lanes::kform_from_pos_vel(v8(p), v8(v)), |i| r::kform_from_pos_vel(p[i], v[i]), |_| 0.0, Tol::new(0.0, 0.0), "kform_from_pos_vel")?;
        check_lanes(lanes::kform_pos_vel_normalize(k8(a)), |i| r::kform_pos_vel_normalize(a[i]), |i| mag(a[i]) / r::length(a[i].pos).max(1e-3), ARITH, "kform_pos_vel_normalize")?;
        let (d0, d1) = (a.map(|k| r::kform_from_pos_vel(k.pos, k.vel)), b.map(|k| r::kform_from_pos_vel(k.pos, k.vel)));
        let ok = |i: usize| r::length(d0[i].pos) > 0.5 && r::length(d1[i].pos) > 0.5 && r::dot(r::normalize(d0[i].pos), r::normalize(d1[i].pos)) > -0.9;
        let got = lanes::kform_rot_ang_between(k8(d0), k8(d1)).to_array();
        for i in (0..8).filter(|&i| ok(i)) {
            check(got[i], r::kform_rot_ang_between(d0[i], d1[i]), 40.0 * mag(a[i]).max(mag(b[i])), TRANSC, "kform_rot_ang_between")?;
        }
    }

    // ---- poses ----

    #[test]
    fn fk_bk(parents in parents(40), seed in arr8(proptest::collection::vec(kform(5.0), 40))) {
        let n = parents.len();
        let locals: Vec<r::Pose> = seed.iter().map(|k| r::Pose::from_kforms(&k[..n])).collect();
        let local8: Vec<lanes::Kformx8> = (0..n).map(|j| lanes::Kformx8::from_array(core::array::from_fn(|c| locals[c].get(j)))).collect();
        let mut global8 = vec![lanes::Kformx8::IDENTITY; n];
        lanes::op_fk(&mut global8, &local8, &parents).unwrap();
        let mut static8 = vec![lanes::Kformx8::IDENTITY; n];
        lanes::op_fk_static(&mut static8, &local8, &parents).unwrap();
        let mut back8 = vec![lanes::Kformx8::IDENTITY; n];
        lanes::op_bk(&mut back8, &global8, &parents).unwrap();
        for (c, local) in locals.iter().enumerate() {
            let mut global = r::Pose::new(n);
            r::op_fk(&mut global, local, &parents).unwrap();
            let scale = (0..n).fold(0.0f32, |m, j| m.max(mag(global.get(j))));
            let mut stat = r::Pose::new(n);
            r::op_fk_static(&mut stat, local, &parents).unwrap();
            let mut back = r::Pose::new(n);
            r::op_bk(&mut back, &global, &parents).unwrap();
            for j in 0..n {
                check(global8[j].lane(c), global.get(j), scale, CHAIN, &format!("op_fk char {c} joint {j}"))?;
                check(static8[j].lane(c), stat.get(j), scale, CHAIN, &format!("op_fk_static char {c} joint {j}"))?;
                check(back8[j].lane(c), back.get(j), scale, CHAIN, &format!("op_bk char {c} joint {j}"))?;
            }
        }
    }

    #[test]
    fn finite_diff_and_inertialize_poses(a in arr8(proptest::collection::vec(kform(5.0), 12)), b in arr8(proptest::collection::vec(kform(5.0), 12)),
                                         dt in arr8(prop_oneof![Just(0.0f32), 0.001f32..0.1]), t in arr8(0.0f32..1.0), dur in 0.05f32..1.0) {
        let pa: Vec<r::Pose> = a.iter().map(|k| r::Pose::from_kforms(k)).collect();
        let pb: Vec<r::Pose> = b.iter().map(|k| r::Pose::from_kforms(k)).collect();
        let to8 = |p: &[r::Pose]| -> Vec<lanes::Kformx8> { (0..12).map(|j| lanes::Kformx8::from_array(core::array::from_fn(|c| p[c].get(j)))).collect() };
        let (a8, b8) = (to8(&pa), to8(&pb));
        let mut fd8 = a8.clone();
        lanes::op_finite_diff(&mut fd8, &a8, &b8, f8(dt)).unwrap();
        let mut off8 = vec![lanes::Kformx8::IDENTITY; 12];
        lanes::op_inertialize_offset(&mut off8, &a8, &b8).unwrap();
        let mut out8 = vec![lanes::Kformx8::IDENTITY; 12];
        lanes::op_inertialize(&mut out8, &off8, &b8, f8(t), lanes::splat(dur)).unwrap();
        for c in 0..8 {
            let mut fd = pa[c].clone();
            r::op_finite_diff(&mut fd, &pa[c], &pb[c], dt[c]).unwrap();
            let mut off = r::Pose::new(12);
            r::op_inertialize_offset(&mut off, &pa[c], &pb[c]).unwrap();
            let mut out = r::Pose::new(12);
            r::op_inertialize(&mut out, &off, &pb[c], t[c], dur).unwrap();
            for j in 0..12 {
                let s = mag(pa[c].get(j)).max(mag(pb[c].get(j)));
                check(fd8[j].lane(c), fd.get(j), s / dt[c].max(1e-3) * 8.0, TRANSC, &format!("op_finite_diff {c} {j}"))?;
                check(off8[j].lane(c), off.get(j), s * 4.0, TRANSC, &format!("op_inertialize_offset {c} {j}"))?;
                check(out8[j].lane(c), out.get(j), s * 16.0 / dur, TRANSC, &format!("op_inertialize {c} {j}"))?;
            }
        }
    }
}

// ---- angular velocities of exp-map rotations (issue 11) ----

proptest! {
    #![proptest_config(cfg())]

    /// The exponential map's Jacobian and its inverse: the reference
    /// composes them literally, the lanes in half-angle form. Rotations up
    /// to a half turn (`quat_edgy` adds the identity, its negative, half
    /// turns and tiny ones). Scale: the rates times `1 + |v|`, TRANSC: the
    /// half-angle sine and cosine come from the lane polynomials.
    #[test]
    fn exponential_map_jacobians(v in arr8(vec3_edgy(1.8)), dv in arr8(vec3_edgy(20.0)), q in arr8(quat_edgy())) {
        let s = |i: usize| mag(dv[i]) * (1.0 + mag(v[i]));
        check_lanes(lanes::quat_from_scaled_angle_axis_dx(v8(v), v8(dv)),
            |i| r::quat_from_scaled_angle_axis_dx(v[i], dv[i]), s, TRANSC, "quat_from_scaled_angle_axis_dx")?;
        // Short-way rotations (the offsets the inertializers keep): the
        // inverse Jacobian grows as 1/sin near a whole turn, so only the
        // canonical hemisphere is compared.
        let qa = q.map(r::quat_abs);
        let s = |i: usize| mag(dv[i]) * 4.0;
        check_lanes(lanes::quat_to_scaled_angle_axis_dx(q8(qa), v8(dv)),
            |i| r::quat_to_scaled_angle_axis_dx(qa[i], dv[i]), s, TRANSC, "quat_to_scaled_angle_axis_dx")?;
    }

    /// The slerp's angular velocity, for relative rotations in either
    /// hemisphere up to 0.9 of a whole turn (dead blending follows its
    /// path past half a turn), and the hemisphere choice of
    /// `quat_relative_along`. Scale: the inputs' angular velocities and
    /// the rate times the angle, amplified by `1 / sin(x)` of the
    /// relative half angle (the slerp's own weights).
    #[test]
    fn slerp_angular_velocity(axis in arr8(vec3_in(1.0)), angle in arr8(f32_in(0.0, 5.6)), alpha in arr8(f32_in(0.0, 1.0)),
                              rate in arr8(f32_in(-3.0, 3.0)), wa in arr8(vec3_in(10.0)), wb in arr8(vec3_in(10.0)),
                              path in arr8(quat_edgy()), from in arr8(unit_quat())) {
        let rel: [r::Quat; 8] = core::array::from_fn(|i| r::quat_from_scaled_angle_axis(r::normalize(axis[i]) * angle[i]));
        let s = |i: usize| {
            let sin = (0.5 * angle[i]).sin().max(0.05);
            (mag(wa[i]) + mag(wb[i]) + rate[i].abs() * angle[i]) / sin
        };
        check_lanes(lanes::quat_slerp_dx(q8(rel), f8(alpha), f8(rate), v8(wa), v8(wb)),
            |i| r::quat_slerp_dx(rel[i], alpha[i], rate[i], wa[i], wb[i]), s, TRANSC, "quat_slerp_dx")?;
        let to: [r::Quat; 8] = core::array::from_fn(|i| r::quat_mul(rel[i], from[i]));
        check_lanes(lanes::quat_relative_along(q8(path), q8(from), q8(to)),
            |i| r::quat_relative_along(path[i], from[i], to[i]), |_| 1.0, ARITH, "quat_relative_along")?;
    }

    /// The extrapolation's cap and `fast_negexp`'s derivative.
    #[test]
    fn extrapolation_rates(z2 in arr8(prop_oneof![Just(0.0f32), f32_in(0.0, 400.0)]), x in arr8(prop_oneof![Just(0.0f32), Just(-1.0f32), f32_in(0.0, 20.0)])) {
        check_lanes(lanes::extrapolation_turn_scale(f8(z2)), |i| r::extrapolation_turn_scale(z2[i]), |_| 1.0, TRANSC, "extrapolation_turn_scale")?;
        check_lanes(lanes::fast_negexp_dx(f8(x)), |i| r::fast_negexp_dx(x[i]), |_| 1.0, SPRING, "fast_negexp_dx")?;
    }
}
