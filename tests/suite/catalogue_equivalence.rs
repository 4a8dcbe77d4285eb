//! The catalogue's lane kernels (issue 3) against the reference, eight
//! different inputs per call. Tolerance families as in equivalence.rs:
//! SPRING for dampers, costs and tracking (FMA rounding through a few
//! dependent operations; exp from `wide` within 2 ULP of libm), TRANSC for
//! anything through slerp, exp/log or sin/cos, scaled by the inputs'
//! magnitude. IK compares angles within 5e-3 rad: it takes `acos` of
//! cosines near ±1 (straight legs, targets at full reach), where an input
//! difference of 1e-7 becomes 4e-4 rad.

#![allow(clippy::needless_range_loop)] // lanes and reference side by side

use crate::common;
use common::*;

use kineform::lanes::{self, Kformx8, Quatx8, Vec3x8};
use kineform::reference::{self as r, Kform, Pose, Quat, Slice2d, Vec3};
use proptest::prelude::*;

const SPRING: Tol = Tol::new(1e-6, 4e-6);
const TRANSC: Tol = Tol::new(4e-6, 4e-6);
const LOOSE: Tol = Tol::new(2e-5, 2e-5);

/// A half-life per axis: 0, or up to 1.5 s.
fn halflife3() -> impl Strategy<Value = Vec3> {
    let h = prop_oneof![1 => Just(0.0f32), 6 => 0.0f32..1.5];
    (h.clone(), h.clone(), h).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn cfg() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(128),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn transition_costs(x in arr8(f32_in(-5.0, 5.0)), v in arr8(f32_in(-20.0, 20.0)), h in arr8(f32_in(0.05, 1.0)), bt in arr8(f32_in(0.05, 1.0)), dt in arr8(f32_in(0.0, 1.5)),
                        p in arr8(vec3_in(5.0)), pv in arr8(vec3_in(20.0))) {
        // Some lanes sit exactly where v + x y = 0 (no crossing).
        let v: [f32; 8] = core::array::from_fn(|i| if i == 3 { -x[i] * r::halflife_to_damping(h[i]) / 2.0 } else { v[i] });
        let s = |i: usize| (x[i].abs() + v[i].abs()) * 10.0;
        check_lanes(lanes::decay_spring_damper_intersection(f8(x), f8(v), f8(h)), |i| r::decay_spring_damper_intersection(x[i], v[i], h[i]), |_| 1.0, SPRING, "decay_spring_damper_intersection")?;
        check_lanes(lanes::decay_spring_damper_displacement(f8(x), f8(v), f8(h)), |i| r::decay_spring_damper_displacement(x[i], v[i], h[i]), s, SPRING, "decay_spring_damper_displacement")?;
        check_lanes(lanes::decay_cubic(f8(x), f8(v), f8(bt), f8(dt)), |i| r::decay_cubic(x[i], v[i], bt[i], dt[i]), s, SPRING, "decay_cubic")?;
        // The intersection divides by a + 1e-8, ill-conditioned where a ≈ 0.
        let got = lanes::decay_cubic_intersection(f8(x), f8(v), f8(bt)).to_array();
        for i in 0..8 {
            let a = 2.0 * x[i] + v[i] * bt[i];
            if a.abs() > 1e-2 {
                check(got[i], r::decay_cubic_intersection(x[i], v[i], bt[i]), s(i) / a.abs(), SPRING, "decay_cubic_intersection")?;
            }
        }
        check_lanes(lanes::decay_cubic_displacement(f8(x), f8(v), f8(bt)), |i| r::decay_cubic_displacement(x[i], v[i], bt[i]), |i| s(i) * 10.0, LOOSE, "decay_cubic_displacement")?;
        check_lanes(lanes::transition_feature_spring(v8(p), v8(pv), f8(h)), |i| r::transition_feature_spring(p[i], pv[i], h[i]), |i| mag(pv[i]) * h[i] * h[i], SPRING, "transition_feature_spring")?;
        check_lanes(lanes::transition_feature_cubic(v8(p), v8(pv), f8(bt)), |i| r::transition_feature_cubic(p[i], pv[i], bt[i]), |i| mag(pv[i]), SPRING, "transition_feature_cubic")?;
        check_lanes(lanes::transition_cost_spring_approx(v8(p), v8(pv), f8(h)), |i| r::transition_cost_spring_approx(p[i], pv[i], h[i]), |i| mag(pv[i]) * h[i] * h[i] + mag(p[i]), SPRING, "transition_cost_spring_approx")?;
    }

    #[test]
    fn dead_blending_helpers(x in arr8(prop_oneof![Just(0.0f32), Just(-0.0f32), Just(1e-9f32), Just(-1e-9f32), -3.0f32..3.0]),
                             diff in arr8(vec3_in(2.0)), vel in arr8(vec3_edgy(5.0)), hl in arr8(vec3_in(1.0)), q in arr8(unit_quat()), dt in arr8(f32_in(0.0, 2.0))) {
        let hl = hl.map(|h| h.map(|c| c.abs() + 0.01));
        check_lanes(lanes::max_mag(f8(x), lanes::splat(1e-8)), |i| r::max_mag(x[i], 1e-8), |_| 0.0, Tol::new(0.0, 0.0), "max_mag")?;
        let signs_ok = lanes::max_mag(f8(x), lanes::splat(1e-8)).to_array().iter().zip(&x).all(|(a, b)| a.is_sign_negative() == b.is_sign_negative());
        prop_assert!(signs_ok, "max_mag lost a sign of zero");
        check_lanes(lanes::estimate_halflife(v8(diff), v8(vel), lanes::splat(0.3), lanes::splat(0.1), lanes::splat(1.0)),
            |i| r::estimate_halflife(diff[i], vel[i], 0.3, 0.1, 1.0), |_| 1.0, SPRING, "estimate_halflife")?;
        check_lanes(lanes::extrapolate_decay_position(v8(diff), v8(vel), v8(hl), f8(dt)), |i| r::extrapolate_decay_position(diff[i], vel[i], hl[i], dt[i]), |i| mag(vel[i]) * 2.0 + 2.0, SPRING, "extrapolate_decay_position")?;
        check_lanes(lanes::extrapolate_decay_rotation(q8(q), v8(vel), v8(hl), f8(dt)), |i| r::extrapolate_decay_rotation(q[i], vel[i], hl[i], dt[i]), |i| mag(vel[i]) * 2.0 + 1.0, TRANSC, "extrapolate_decay_rotation")?;
    }

    #[test]
    fn smoothsteps(t in arr8(f32_in(-0.5, 1.5)), d in arr8(prop_oneof![Just(0.0f32), 0.05f32..2.0]), bdt in arr8(f32_in(0.0, 0.1))) {
        check_lanes(lanes::smoothstep(f8(t)), |i| r::smoothstep(t[i]), |_| 4.0, SPRING, "smoothstep")?;
        check_lanes(lanes::smoothstep_dx(f8(t)), |i| r::smoothstep_dx(t[i]), |_| 4.0, SPRING, "smoothstep_dx")?;
        check_lanes(lanes::smoothstep_blend_alpha(f8(t), f8(d)), |i| r::smoothstep_blend_alpha(t[i], d[i]), |_| 1.0, SPRING, "smoothstep_blend_alpha")?;
        check_lanes(lanes::smoothstep_blend_alpha_dx(f8(t), f8(d), f8(bdt)), |i| r::smoothstep_blend_alpha_dx(t[i], d[i], bdt[i]), |i| bdt[i] / d[i].max(1e-8), SPRING, "smoothstep_blend_alpha_dx")?;
    }

    #[test]
    fn blends_and_additives(a in pose_strategy(6, 5.0), b in pose_strategy(6, 5.0), alpha in arr8(f32_in(0.0, 1.0)), av in arr8(f32_in(-0.1, 0.1)), dt in arr8(prop_oneof![Just(0.0f32), 0.005f32..0.05])) {
        let (a8, b8) = (poses8(&a), poses8(&b));
        let mut out8 = vec![Kformx8::IDENTITY; 6];
        lanes::op_blend(&mut out8, &a8, &b8, f8(alpha), f8(av), f8(dt)).unwrap();
        let mut st8 = vec![Kformx8::IDENTITY; 6];
        lanes::op_blend_static(&mut st8, &a8, &b8, f8(alpha)).unwrap();
        let mut add8 = a8.clone();
        lanes::op_additive_inplace(&mut add8, &b8, f8(alpha), f8(av), f8(dt)).unwrap();
        let mut addl8 = a8.clone();
        lanes::op_additive_local_inplace(&mut addl8, &b8, f8(alpha), f8(av), f8(dt)).unwrap();
        let mut adds8 = a8.clone();
        lanes::op_additive_inplace_static(&mut adds8, &b8, f8(alpha), f8(dt)).unwrap();
        let mut addls8 = a8.clone();
        lanes::op_additive_local_inplace_static(&mut addls8, &b8, f8(alpha)).unwrap();
        for c in 0..8 {
            let s = pose_mag(&a[c]).max(pose_mag(&b[c])) * (1.0 + av[c].abs() / dt[c].max(0.005)) * 8.0;
            let mut out = Pose::new(6);
            r::op_blend(&mut out, &a[c], &b[c], alpha[c], av[c], dt[c]).unwrap();
            let mut st = Pose::new(6);
            r::op_blend_static(&mut st, &a[c], &b[c], alpha[c]).unwrap();
            let mut add = a[c].clone();
            r::op_additive_inplace(&mut add, &b[c], alpha[c], av[c], dt[c]).unwrap();
            let mut addl = a[c].clone();
            r::op_additive_local_inplace(&mut addl, &b[c], alpha[c], av[c], dt[c]).unwrap();
            let mut adds = a[c].clone();
            r::op_additive_inplace_static(&mut adds, &b[c], alpha[c], dt[c]).unwrap();
            let mut addls = a[c].clone();
            r::op_additive_local_inplace_static(&mut addls, &b[c], alpha[c]).unwrap();
            for j in 0..6 {
                check(out8[j].lane(c), out.get(j), s, TRANSC, &format!("op_blend {c} {j}"))?;
                check(st8[j].lane(c), st.get(j), s, TRANSC, &format!("op_blend_static {c} {j}"))?;
                check(add8[j].lane(c), add.get(j), s, TRANSC, &format!("op_additive_inplace {c} {j}"))?;
                check(addl8[j].lane(c), addl.get(j), s, TRANSC, &format!("op_additive_local_inplace {c} {j}"))?;
                check(adds8[j].lane(c), adds.get(j), s, TRANSC, &format!("op_additive_inplace_static {c} {j}"))?;
                check(addls8[j].lane(c), addls.get(j), s, TRANSC, &format!("op_additive_local_inplace_static {c} {j}"))?;
            }
        }
    }

    #[test]
    fn extrapolation_and_dead_blending(a in pose_strategy(5, 5.0), b in pose_strategy(5, 5.0), hl in arr8(f32_in(0.01, 1.0)), t in arr8(f32_in(0.0, 1.0)), d in arr8(f32_in(0.05, 1.0)), dt in arr8(f32_in(0.001, 0.05))) {
        let (a8, b8) = (poses8(&a), poses8(&b));
        let mut ex8 = vec![Kformx8::IDENTITY; 5];
        lanes::op_extrapolate_decayed(&mut ex8, &a8, f8(t), f8(hl)).unwrap();
        let mut prev8 = vec![Kformx8::IDENTITY; 5];
        lanes::op_extrapolate_prev(&mut prev8, &a8, f8(dt)).unwrap();
        let (mut out8, mut tmp8) = (vec![Kformx8::IDENTITY; 5], vec![Kformx8::IDENTITY; 5]);
        lanes::op_dead_blending(&mut out8, &mut tmp8, &mut [lanes::Quatx8::IDENTITY; 5], &a8, &b8, f8(hl), f8(t), f8(d), f8(dt)).unwrap();
        let mut fd8 = a8.clone();
        lanes::op_finite_diff_inplace(&mut fd8, &b8, f8(dt)).unwrap();
        for c in 0..8 {
            let s = pose_mag(&a[c]).max(pose_mag(&b[c])) * 8.0;
            let mut ex = Pose::new(5);
            r::op_extrapolate_decayed(&mut ex, &a[c], t[c], hl[c]).unwrap();
            let mut prev = Pose::new(5);
            r::op_extrapolate_prev(&mut prev, &a[c], dt[c]).unwrap();
            let (mut out, mut tmp) = (Pose::new(5), Pose::new(5));
            r::op_dead_blending(&mut out, &mut tmp, &mut [r::Quat::IDENTITY; 5], &a[c], &b[c], hl[c], t[c], d[c], dt[c]).unwrap();
            let mut fd = a[c].clone();
            r::op_finite_diff_inplace(&mut fd, &b[c], dt[c]).unwrap();
            for j in 0..5 {
                check(ex8[j].lane(c), ex.get(j), s, TRANSC, &format!("op_extrapolate_decayed {c} {j}"))?;
                check(prev8[j].lane(c), prev.get(j), s, TRANSC, &format!("op_extrapolate_prev {c} {j}"))?;
                check(out8[j].lane(c), out.get(j), s * (1.0 + dt[c] / d[c]) / dt[c] * 0.05, TRANSC, &format!("op_dead_blending {c} {j}"))?;
                check(fd8[j].lane(c), fd.get(j), s / dt[c], TRANSC, &format!("op_finite_diff_inplace {c} {j}"))?;
            }
        }
    }

    /// The dead-blend extrapolation with a half-life per joint and axis
    /// (the crowd's fitted mode): every lane, joint and axis its own
    /// half-life, zero (the fitted minimum may be 0) and the fit's range
    /// up to past its 1 s default maximum. TRANSC at the pose's size, as
    /// `op_extrapolate_decayed`.
    #[test]
    fn extrapolation_with_halflives_per_axis(a in pose_strategy(5, 5.0), hp in arr8(proptest::collection::vec(halflife3(), 5)),
                                             hr in arr8(proptest::collection::vec(halflife3(), 5)), t in arr8(f32_in(0.0, 1.0))) {
        let a8 = poses8(&a);
        let per_joint = |h: &[Vec<Vec3>; 8]| -> Vec<Vec3x8> { (0..5).map(|j| v8(core::array::from_fn(|c| h[c][j]))).collect() };
        let mut ex8 = vec![Kformx8::IDENTITY; 5];
        lanes::op_extrapolate_decayed_axes(&mut ex8, &a8, &per_joint(&hp), &per_joint(&hr), f8(t)).unwrap();
        for c in 0..8 {
            let s = pose_mag(&a[c]) * 8.0;
            let mut ex = Pose::new(5);
            r::op_extrapolate_decayed_axes(&mut ex, &a[c], &hp[c], &hr[c], t[c]).unwrap();
            for j in 0..5 {
                check(ex8[j].lane(c), ex.get(j), s, TRANSC, &format!("op_extrapolate_decayed_axes {c} {j}"))?;
            }
            // The weights on their own.
            let w = r::extrapolate_decayed_axis_weights(t[c], hr[c][1]);
            let w8 = lanes::extrapolate_decayed_axis_weights(f8(t), v8(core::array::from_fn(|l| hr[l][1])));
            check((w8.0.lane(c), w8.1.lane(c)), w, 1.0, SPRING, "extrapolate_decayed_axis_weights")?;
            // One half-life on every joint and axis is the one-half-life
            // extrapolation.
            let h = hr[c][1].x;
            let (mut one, mut same) = (Pose::new(5), Pose::new(5));
            r::op_extrapolate_decayed(&mut one, &a[c], t[c], h).unwrap();
            r::op_extrapolate_decayed_axes(&mut same, &a[c], &[Vec3::splat(h); 5], &[Vec3::splat(h); 5], t[c]).unwrap();
            for j in 0..5 {
                check(same.get(j), one.get(j), s, TRANSC, &format!("one half-life per axis {c} {j}"))?;
            }
        }
    }

    /// The frame and weight of a time, bit for bit, for any f32 time
    /// (NaN, infinities, negatives, subnormals, past 2^24 frames) and
    /// frame times including the ones the reference refuses.
    #[test]
    fn sample_frame_is_exact(bits in arr8(any::<u32>()), pick in arr8(0usize..4), scale in arr8(f32_in(0.0, 3.0)),
                             dt in prop_oneof![Just(1.0f32 / 120.0), Just(0.0083333), Just(1e-30), Just(0.0), Just(-1.0), Just(f32::NAN), Just(f32::INFINITY), 1e-6f32..10.0]) {
        let edges = [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 16_777_216.0 * dt, 16_777_215.5 * dt, 1e38];
        let t: [f32; 8] = core::array::from_fn(|i| match pick[i] {
            0 => f32::from_bits(bits[i]),
            1 => edges[bits[i] as usize % edges.len()],
            _ => scale[i] * (1 + bits[i] % 4000) as f32 * dt / 3.0,
        });
        let (st, a) = lanes::sample_frame(f8(t), dt);
        let (st, a) = (st.to_array(), a.to_array());
        for i in 0..8 {
            let (rst, ra) = r::sample_frame(t[i], dt);
            prop_assert_eq!(st[i] as i64, rst, "frame of time {:e} dt {:e}", t[i], dt);
            prop_assert_eq!(a[i].to_bits(), ra.to_bits(), "weight of time {:e} dt {:e}", t[i], dt);
        }
    }

    #[test]
    fn sampling(frames in 2usize..12, pos in proptest::collection::vec(vec3_in(5.0), 12 * 4), rot in proptest::collection::vec(unit_quat(), 12 * 4),
                scl in proptest::collection::vec((0.5f32..2.0).prop_map(Vec3::splat), 12 * 4), time in arr8(f32_in(-0.1, 0.2))) {
        let n = frames * 4;
        let (p, s) = (Slice2d::new(&pos[..n], 4).unwrap(), Slice2d::new(&scl[..n], 4).unwrap());
        // Consecutive frames a small rotation apart, like real motion.
        let qs: Vec<Quat> = (0..n).map(|k| if k < 4 { rot[k] } else { r::quat_mul(r::quat_from_scaled_angle_axis(rot[k].xyz() * 0.3), rot[k % 4]) }).collect();
        let q = Slice2d::new(&qs, 4).unwrap();
        let dt = 1.0 / 60.0;
        let mut lin8 = vec![Kformx8::IDENTITY; 4];
        lanes::op_sample_linear(&mut lin8, p, q, s, f8(time), dt).unwrap();
        let mut cub8 = vec![Kformx8::IDENTITY; 4];
        lanes::op_sample_cubic(&mut cub8, p, q, s, f8(time), dt).unwrap();
        for c in 0..8 {
            let mut lin = Pose::new(4);
            r::op_sample_linear(&mut lin, p, q, s, time[c], dt).unwrap();
            let mut cub = Pose::new(4);
            r::op_sample_cubic(&mut cub, p, q, s, time[c], dt).unwrap();
            for j in 0..4 {
                // Per field: positions, rotations, scales at their own size;
                // velocities are differences over dt.
                let floors = [20.0, 1.0, 4.0, 40.0 / dt, 40.0 / dt, 8.0 / dt];
                check_floors(lin8[j].lane(c), lin.get(j), &floors, TRANSC, &format!("op_sample_linear {c} {j}"))?;
                check_floors(cub8[j].lane(c), cub.get(j), &floors, TRANSC, &format!("op_sample_cubic {c} {j}"))?;
            }
        }
    }

    #[test]
    fn tracking_springs(x in arr8(f32_in(-5.0, 5.0)), v in arr8(f32_in(-5.0, 5.0)), g in arr8(f32_in(-5.0, 5.0)), gv in arr8(f32_in(-5.0, 5.0)), ga in arr8(f32_in(-50.0, 50.0)),
                        xg in arr8(f32_in(0.0, 0.5)), vg in arr8(f32_in(0.0, 1.0)), ag in arr8(f32_in(0.0, 1.0)), dt in arr8(prop_oneof![Just(0.0f32), 0.004f32..0.05]), gdt in arr8(f32_in(0.008, 0.04))) {
        let s = |i: usize| 5.0 + ga[i].abs() * 0.05 + 5.0 / dt[i].max(0.004) * xg[i];
        check_lanes(lanes::tracking_target_velocity(f8(g), f8(x), f8(dt)), |i| r::tracking_target_velocity(g[i], x[i], dt[i]), |i| 10.0 / dt[i].max(0.004), SPRING, "tracking_target_velocity")?;
        check_lanes(lanes::tracking_target_acceleration(f8(g), f8(x), f8(v), f8(dt)), |i| r::tracking_target_acceleration(g[i], x[i], v[i], dt[i]), |i| 20.0 / dt[i].max(0.004).powi(2), SPRING, "tracking_target_acceleration")?;
        check_lanes(lanes::tracking_target_velocity_clipped(f8(g), f8(x), f8(dt), lanes::splat(-3.0), lanes::splat(3.0)), |i| r::tracking_target_velocity_clipped(g[i], x[i], dt[i], -3.0, 3.0), |_| 3.0, SPRING, "tracking_target_velocity_clipped")?;
        check_lanes(lanes::tracking_target_acceleration_clipped(f8(g), f8(x), f8(v), f8(dt), lanes::splat(-30.0), lanes::splat(30.0)), |i| r::tracking_target_acceleration_clipped(g[i], x[i], v[i], dt[i], -30.0, 30.0), |_| 30.0, SPRING, "tracking_target_acceleration_clipped")?;
        check_lanes(lanes::tracking_spring_update(f8(x), f8(v), f8(g), f8(gv), f8(ga), f8(xg), f8(vg), f8(ag), f8(dt)), |i| r::tracking_spring_update(x[i], v[i], g[i], gv[i], ga[i], xg[i], vg[i], ag[i], dt[i]), s, SPRING, "tracking_spring_update")?;
        check_lanes(lanes::tracking_spring_update_no_acceleration(f8(x), f8(v), f8(g), f8(gv), f8(xg), f8(vg), f8(dt)), |i| r::tracking_spring_update_no_acceleration(x[i], v[i], g[i], gv[i], xg[i], vg[i], dt[i]), s, SPRING, "tracking_spring_update_no_acceleration")?;
        check_lanes(lanes::tracking_spring_update_no_velocity_acceleration(f8(x), f8(v), f8(g), f8(xg), f8(dt)), |i| r::tracking_spring_update_no_velocity_acceleration(x[i], v[i], g[i], xg[i], dt[i]), s, SPRING, "tracking_spring_update_no_velocity_acceleration")?;
        let (hx, hv, ha) = (xg.map(|g| g * 2.0), vg.map(|g| g * 0.1), ag.map(|g| g * 0.01));
        check_lanes(lanes::tracking_spring_update_improved(f8(x), f8(v), f8(g), f8(gv), f8(ga), f8(hx), f8(hv), f8(ha), f8(dt)), |i| r::tracking_spring_update_improved(x[i], v[i], g[i], gv[i], ga[i], hx[i], hv[i], ha[i], dt[i]), |i| s(i) + 5.0 / dt[i].max(0.004), SPRING, "tracking_spring_update_improved")?;
        check_lanes(lanes::tracking_spring_update_no_acceleration_improved(f8(x), f8(v), f8(g), f8(gv), f8(hx), f8(hv), f8(dt)), |i| r::tracking_spring_update_no_acceleration_improved(x[i], v[i], g[i], gv[i], hx[i], hv[i], dt[i]), |i| s(i) + 5.0 / dt[i].max(0.004), SPRING, "tracking_spring_update_no_acceleration_improved")?;
        check_lanes(lanes::tracking_spring_update_no_velocity_acceleration_improved(f8(x), f8(v), f8(g), f8(hx), f8(dt)), |i| r::tracking_spring_update_no_velocity_acceleration_improved(x[i], v[i], g[i], hx[i], dt[i]), |i| s(i) + 5.0 / dt[i].max(0.004), SPRING, "tracking_spring_update_no_velocity_acceleration_improved")?;
        // The exact variants go through spring_damper_exact_stiffness_damping,
        // whose over-damped branch amplifies rounding near critical damping.
        let ex = Tol::new(1e-4, 1e-4);
        check_lanes(lanes::tracking_spring_update_exact(f8(x), f8(v), f8(g), f8(gv), f8(ga), f8(xg), f8(vg), f8(ag), f8(dt), f8(gdt)), |i| r::tracking_spring_update_exact(x[i], v[i], g[i], gv[i], ga[i], xg[i], vg[i], ag[i], dt[i], gdt[i]), |i| s(i) + ga[i].abs(), ex, "tracking_spring_update_exact")?;
        check_lanes(lanes::tracking_spring_update_no_acceleration_exact(f8(x), f8(v), f8(g), f8(gv), f8(xg), f8(vg), f8(dt), f8(gdt)), |i| r::tracking_spring_update_no_acceleration_exact(x[i], v[i], g[i], gv[i], xg[i], vg[i], dt[i], gdt[i]), s, ex, "tracking_spring_update_no_acceleration_exact")?;
        check_lanes(lanes::tracking_spring_update_no_velocity_acceleration_exact(f8(x), f8(v), f8(g), f8(xg), f8(dt), f8(gdt)), |i| r::tracking_spring_update_no_velocity_acceleration_exact(x[i], v[i], g[i], xg[i], dt[i], gdt[i]), s, ex, "tracking_spring_update_no_velocity_acceleration_exact")?;
    }

    #[test]
    fn loop_offsets(frames in 1usize..40, pos in proptest::collection::vec(vec3_in(5.0), 40 * 16), rots in proptest::collection::vec(vec3_in(0.8), 40 * 16),
                    hs in 0.05f32..0.5, he in 0.05f32..0.5, ratio in 0.0f32..1.0, hard in 0.5f32..20.0, dur in 0.05f32..0.5) {
        // 16 joints: two packs of eight in the lanes layout; one-frame
        // clips included (finite in both paths, reference-math.md).
        let cols = 16;
        let n = frames * cols;
        let dt = 1.0 / 30.0;
        let rot: Vec<Quat> = rots[..n].iter().map(|v| r::quat_from_scaled_angle_axis(*v)).collect();
        let (p, q) = (Slice2d::new(&pos[..n], cols).unwrap(), Slice2d::new(&rot, cols).unwrap());
        let to8v = |a: &[Vec3]| -> Vec<Vec3x8> { a.chunks(8).map(|c| Vec3x8::from_array(core::array::from_fn(|i| c[i]))).collect() };
        let to8q = |a: &[Quat]| -> Vec<Quatx8> { a.chunks(8).map(|c| Quatx8::from_array(core::array::from_fn(|i| c[i]))).collect() };
        let (p8, q8) = (to8v(&pos[..n]), to8q(&rot));
        let (p8s, q8s) = (Slice2d::new(&p8, 2).unwrap(), Slice2d::new(&q8, 2).unwrap());
        let un8 = |a: &[Vec3x8]| -> Vec<Vec3> { a.iter().flat_map(|v| v.to_array()).collect() };

        let (mut dp, mut dv) = (vec![Vec3::ZERO; cols], vec![Vec3::ZERO; cols]);
        r::compute_start_end_positional_difference(&mut dp, &mut dv, p, dt).unwrap();
        let (mut dp8, mut dv8) = (vec![Vec3x8::ZERO; 2], vec![Vec3x8::ZERO; 2]);
        lanes::compute_start_end_positional_difference(&mut dp8, &mut dv8, p8s, dt).unwrap();
        let (mut dr, mut dw) = (vec![Vec3::ZERO; cols], vec![Vec3::ZERO; cols]);
        r::compute_start_end_rotational_difference(&mut dr, &mut dw, q, dt).unwrap();
        let (mut dr8, mut dw8) = (vec![Vec3x8::ZERO; 2], vec![Vec3x8::ZERO; 2]);
        lanes::compute_start_end_rotational_difference(&mut dr8, &mut dw8, q8s, dt).unwrap();
        let (mut sp, mut sv) = (vec![Vec3::ZERO; cols], vec![Vec3::ZERO; cols]);
        r::compute_softfade_start_end_difference(&mut sp, &mut sv, p, dur, dur * 1.5, hard, hard * 0.5, ratio, dt).unwrap();
        let (mut sp8, mut sv8) = (vec![Vec3x8::ZERO; 2], vec![Vec3x8::ZERO; 2]);
        lanes::compute_softfade_start_end_difference(&mut sp8, &mut sv8, p8s, dur, dur * 1.5, hard, hard * 0.5, ratio, dt).unwrap();
        let (mut sr, mut sw) = (vec![Vec3::ZERO; cols], vec![Vec3::ZERO; cols]);
        r::compute_softfade_start_end_difference_quat(&mut sr, &mut sw, q, dur, dur * 1.5, hard, hard * 0.5, ratio, dt).unwrap();
        let (mut sr8, mut sw8) = (vec![Vec3x8::ZERO; 2], vec![Vec3x8::ZERO; 2]);
        lanes::compute_softfade_start_end_difference_quat(&mut sr8, &mut sw8, q8s, dur, dur * 1.5, hard, hard * 0.5, ratio, dt).unwrap();
        let vs = 20.0 / dt;
        for (name, got, want, s) in [("diff_pos", un8(&dp8), dp.clone(), 10.0), ("diff_vel", un8(&dv8), dv.clone(), vs), ("diff_rot", un8(&dr8), dr.clone(), 7.0), ("diff_ang", un8(&dw8), dw.clone(), vs),
                                     ("softfade diff_vel", un8(&sv8), sv.clone(), vs * 2.0), ("softfade diff_rot_vel", un8(&sw8), sw.clone(), vs * 2.0), ("softfade diff_pos", un8(&sp8), sp.clone(), 10.0), ("softfade diff_rot", un8(&sr8), sr.clone(), 7.0)] {
            for j in 0..cols { check(got[j], want[j], s, TRANSC, &format!("{name} joint {j}"))?; }
        }

        type RefOffsets = fn(&mut [Vec3], &[Vec3], &[Vec3], f32, f32, f32, f32) -> kineform::Result<()>;
        type LaneOffsets = fn(&mut [Vec3x8], &[Vec3x8], &[Vec3x8], f32, f32, f32, f32) -> kineform::Result<()>;
        let methods: [(&str, RefOffsets, LaneOffsets); 3] = [
            ("compute_inertialize_both_offsets", r::compute_inertialize_both_offsets, lanes::compute_inertialize_both_offsets),
            ("compute_inertialize_both_offsets_cubic", r::compute_inertialize_both_offsets_cubic, lanes::compute_inertialize_both_offsets_cubic),
            ("compute_linear_inertialize_offsets", r::compute_linear_inertialize_offsets, lanes::compute_linear_inertialize_offsets),
        ];
        for (name, rf, lf) in methods {
            let mut off = vec![Vec3::ZERO; n];
            rf(&mut off, &dp, &dv, hs, he, ratio, dt).unwrap();
            let mut off8 = vec![Vec3x8::ZERO; frames * 2];
            lf(&mut off8, &dp8, &dv8, hs, he, ratio, dt).unwrap();
            let got = un8(&off8);
            for k in 0..n { check(got[k], off[k], 10.0 + mag(dv[k % cols]), TRANSC, &format!("{name} {k}"))?; }
        }
        let mut off = vec![Vec3::ZERO; n];
        r::compute_softfade_inertialize_offsets(&mut off, &sp, &sv, hs, he, dur, dur * 1.5, hard, hard * 0.5, ratio, dt).unwrap();
        let mut off8 = vec![Vec3x8::ZERO; frames * 2];
        lanes::compute_softfade_inertialize_offsets(&mut off8, &sp8, &sv8, hs, he, dur, dur * 1.5, hard, hard * 0.5, ratio, dt).unwrap();
        let got = un8(&off8);
        for k in 0..n { check(got[k], off[k], 10.0 + mag(sv[k % cols]), TRANSC, &format!("compute_softfade_inertialize_offsets {k}"))?; }
        let mut out = vec![Vec3::ZERO; n];
        r::apply_positional_offsets(&mut out, p, &off).unwrap();
        let mut out8 = vec![Vec3x8::ZERO; frames * 2];
        lanes::apply_positional_offsets(&mut out8, p8s, &off8).unwrap();
        let got = un8(&out8);
        for k in 0..n { check(got[k], out[k], 20.0, TRANSC, &format!("apply_positional_offsets {k}"))?; }
        let mut qo = vec![Quat::IDENTITY; n];
        r::apply_rotational_offsets(&mut qo, q, &off).unwrap();
        let mut qo8 = vec![Quatx8::IDENTITY; frames * 2];
        lanes::apply_rotational_offsets(&mut qo8, q8s, &off8).unwrap();
        let got: Vec<Quat> = qo8.iter().flat_map(|v| v.to_array()).collect();
        for k in 0..n { check(got[k], qo[k], 20.0, TRANSC, &format!("apply_rotational_offsets {k}"))?; }

        // Root offsets: lane i loops clip i's root (here: eight copies shifted in time).
        let (mut rp, mut rr) = (vec![Vec3::ZERO; n], vec![Vec3::ZERO; n]);
        r::compute_root_inertialize_offsets(&mut rp, &mut rr, p, q, hs, he, ratio, dt).unwrap();
        let root_p: Vec<Vec3x8> = (0..frames).map(|f| Vec3x8::splat(pos[f * cols])).collect();
        let root_q: Vec<Quatx8> = (0..frames).map(|f| Quatx8::splat(rot[f * cols])).collect();
        let (mut rp8, mut rr8) = (vec![Vec3x8::ZERO; frames], vec![Vec3x8::ZERO; frames]);
        lanes::compute_root_inertialize_offsets(&mut rp8, &mut rr8, Slice2d::new(&root_p, 1).unwrap(), Slice2d::new(&root_q, 1).unwrap(), hs, he, ratio, dt).unwrap();
        for f in 0..frames {
            check(rp8[f].lane(5), rp[f * cols], vs, TRANSC, &format!("root pos offset {f}"))?;
            check(rr8[f].lane(2), rr[f * cols], vs, TRANSC, &format!("root rot offset {f}"))?;
        }
    }

    #[test]
    fn softfade_and_decays(x in arr8(f32_in(-1.0, 3.0)), a in arr8(prop_oneof![Just(1e-7f32), Just(200.0f32), 0.1f32..50.0]), v in arr8(vec3_in(5.0)), h in arr8(f32_in(0.05, 1.0)), t in arr8(f32_in(0.0, 2.0))) {
        check_lanes(lanes::softfade(f8(x), f8(a)), |i| r::softfade(x[i], a[i]), |i| 1.0 + 2.0 * x[i].abs() + 1.0 / a[i].max(1e-6) * 1e-6, TRANSC, "softfade")?;
        check_lanes(lanes::softfade_grad_zero(f8(a)), |i| r::softfade_grad_zero(a[i]), |_| 2.0, TRANSC, "softfade_grad_zero")?;
        check_lanes(lanes::decayed_offset(v8(v), v8(v), f8(h), f8(t)), |i| r::decayed_offset(v[i], v[i], h[i], t[i]), |i| mag(v[i]) * (2.0 + t[i] * 20.0), SPRING, "decayed_offset")?;
        check_lanes(lanes::decayed_velocity_offset_cubic(v8(v), f8(h), f8(t)), |i| r::decayed_velocity_offset_cubic(v[i], h[i], t[i]), |i| mag(v[i]), SPRING, "decayed_velocity_offset_cubic")?;
        check_lanes(lanes::decayed_offset_softfade(v8(v), f8(h), f8(a), f8(t)), |i| r::decayed_offset_softfade(v[i], h[i], a[i], t[i]), |i| mag(v[i]) * (1.0 + 2.0 * t[i] / h[i]), TRANSC, "decayed_offset_softfade")?;
        check_lanes(lanes::decayed_offset_softfade_grad_zero(v8(v), f8(h), f8(a)), |i| r::decayed_offset_softfade_grad_zero(v[i], h[i], a[i]), |i| mag(v[i]) * 2.0 / h[i], TRANSC, "decayed_offset_softfade_grad_zero")?;
    }

    #[test]
    fn lookat_and_ik(tp in arr8(vec3_in(3.0)), tv in arr8(vec3_in(3.0)), rots in proptest::collection::vec(vec3_in(0.6), 8 * 5)) {
        // A hip-knee-heel chain on a root, plus a head; bones of real length.
        let parents = [-1, 0, 1, 2, 0];
        let offsets = [Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.1, -0.1, 0.0), Vec3::new(0.0, -0.45, 0.02), Vec3::new(0.0, -0.42, -0.02), Vec3::new(0.0, 0.6, 0.0)];
        let locals: Vec<Pose> = (0..8).map(|c| Pose::from_kforms(&(0..5).map(|j| Kform {
            pos: offsets[j], rot: r::quat_from_scaled_angle_axis(rots[c * 5 + j]), ang: rots[c * 5 + j] * 2.0, vel: rots[(c * 5 + j + 1) % 40], ..Kform::IDENTITY }).collect::<Vec<_>>())).collect();
        let globals: Vec<Pose> = locals.iter().map(|l| { let mut g = Pose::new(5); r::op_fk(&mut g, l, &parents).unwrap(); g }).collect();
        let (l8, g8) = (poses8(&locals), poses8(&globals));
        let targets: [Vec3; 8] = core::array::from_fn(|c| globals[c].pos[3] + tp[c] * 0.2);
        let fwd = Vec3x8::splat(r::DEFAULT_FWD);

        let mut la8 = l8.clone();
        lanes::op_lookat_static(&mut la8, &g8, 4, v8(tp), fwd).unwrap();
        let mut lv8 = l8.clone();
        lanes::op_lookat(&mut lv8, &g8, 4, v8(tp), v8(tv), fwd).unwrap();
        let mut ik8 = l8.clone();
        lanes::op_two_bone_ik_static(&mut ik8, &g8, &parents, [1, 2, 3], v8(targets), fwd, lanes::splat(r::IK_MAX_LENGTH_BUFFER)).unwrap();
        let (mut ikv8, mut t1, mut t2, mut t3) = (l8.clone(), l8.clone(), l8.clone(), l8.clone());
        lanes::op_two_bone_ik(&mut ikv8, &mut t1, &mut t2, &mut t3, &parents, [1, 2, 3], v8(targets), v8(tv), lanes::splat(r::IK_DELTA)).unwrap();
        for c in 0..8 {
            let mut la = locals[c].clone();
            r::op_lookat_static(&mut la, &globals[c], 4, tp[c], r::DEFAULT_FWD).unwrap();
            let mut lv = locals[c].clone();
            r::op_lookat(&mut lv, &globals[c], 4, tp[c], tv[c], r::DEFAULT_FWD).unwrap();
            let dist = r::length(tp[c] - globals[c].pos[4]);
            if dist > 0.2 {
                check(la8[4].lane(c), la.get(4), 1.0 / dist, TRANSC, "op_lookat_static")?;
                // The angular velocity goes through the derivatives of normalize
                // and quat_between: rounding grows with its own size, and with
                // quat_between's condition number κ = 1 / (1 + cos θ) as the
                // target comes round behind the head (θ → π): a relative error
                // of a few f32 ULP times κ (found by proptest at θ = 178.8°,
                // κ = 4,500: 3.7e-4 on an angular velocity of 2.1).
                let tar = r::kform_inv_mul(globals[c].get(4), r::kform_from_pos_vel(tp[c], tv[c]));
                let kappa = 1.0 / (1.0 + r::dot(r::normalize(tar.pos), r::DEFAULT_FWD)).max(1e-6);
                let ang = r::length(lv.ang[4]);
                check(lv8[4].lane(c), lv.get(4), 20.0 / (dist * dist) + 2.0 * ang + 0.02 * kappa * ang, LOOSE, "op_lookat")?;
            }
            let mut ik = locals[c].clone();
            r::op_two_bone_ik_static(&mut ik, &globals[c], &parents, [1, 2, 3], targets[c], r::DEFAULT_FWD, r::IK_MAX_LENGTH_BUFFER).unwrap();
            let (mut ikv, mut s1, mut s2, mut s3) = (locals[c].clone(), locals[c].clone(), locals[c].clone(), locals[c].clone());
            r::op_two_bone_ik(&mut ikv, &mut s1, &mut s2, &mut s3, &parents, [1, 2, 3], targets[c], tv[c], r::IK_DELTA).unwrap();
            // The bend plane is undefined when the knee's forward axis lies
            // along the leg (documented on op_two_bone_ik_static).
            let g = &globals[c];
            let bend = r::length(r::cross(r::normalize(g.pos[3] - g.pos[1]), r::quat_mul_vec3(g.rot[2], r::DEFAULT_FWD)));
            for j in [1, 2].into_iter().filter(|_| bend > 0.1) {
                let angle = |a: Quat, b: Quat| r::length(r::quat_to_scaled_angle_axis(r::quat_abs(r::quat_mul_inv(a, b))));
                prop_assert!(angle(ik8[j].lane(c).rot, ik.rot[j]) < 5e-3, "ik rot char {c} joint {j}: {:?} vs {:?}", ik8[j].lane(c).rot, ik.rot[j]);
                prop_assert!(angle(ikv8[j].lane(c).rot, ikv.rot[j]) < 5e-3, "ik (velocity pass) rot char {c} joint {j}");
                // Velocities are differences over delta = 0.01 s: 5e-3 rad becomes 0.5 rad/s.
                prop_assert!(r::length(ikv8[j].lane(c).ang - ikv.ang[j]) < 0.5 + 1e-3 * r::length(ikv.ang[j]), "ik ang char {c} joint {j}");
            }
        }
    }
}
