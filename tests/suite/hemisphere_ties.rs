//! Hemisphere choices at exact ties (issue 14, item 3). Every lane function
//! that picks the short way round from the sign of a 4D dot product
//! (`quat_slerp_shortest`'s flip, and `quat_abs` of `quat_mul_inv(a, b)`,
//! whose `w` is `a · b`) must pick the reference's side when `a` and `b`
//! are orthogonal in 4D (rotations a half turn apart), where the sign is
//! decided by rounding alone. The lanes compute that dot product in the
//! reference's order with separate multiplies and adds, so its bits, and
//! so the side, are the reference's.
//!
//! Ties: `p` orthogonal to `q` built exactly by permuting and negating `q`'s
//! components (the reference's dot is then exactly 0, or a residue of its
//! own rounding), or as `q u` with `u` a random pure unit quaternion; every
//! lane a different tie, either sign. Comparisons are TRANSC (abs and rel
//! 4e-6, as in equivalence.rs) scaled by the output's size; the dot
//! products and `w`s are compared bit for bit.

#![allow(clippy::needless_range_loop)] // lanes and reference side by side

use crate::common;
use common::*;

use kineform::lanes::{self, Kformx8, Quatx8};
use kineform::reference::{self as r, Kform, Pose, Quat, Slice2d, Vec3};
use proptest::prelude::*;

const TRANSC: Tol = Tol::new(4e-6, 4e-6);

fn cfg() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(256),
        ..ProptestConfig::default()
    }
}

/// `(q, p)` a half turn apart, `p` of either sign.
fn tie() -> impl Strategy<Value = (Quat, Quat)> {
    (unit_quat(), 0u8..4, any::<bool>(), vec3_in(1.0)).prop_map(|(q, kind, neg, u)| {
        let p = orthogonal(q, kind, u);
        (q, if neg { -p } else { p })
    })
}

fn ties8() -> impl Strategy<Value = ([Quat; 8], [Quat; 8])> {
    arr8(tie()).prop_map(|t| (t.map(|x| x.0), t.map(|x| x.1)))
}

fn with_rot(k: Kform, rot: Quat) -> Kform {
    Kform { rot, ..k }
}

proptest! {
    #![proptest_config(cfg())]

    /// The dot product and the `w` of `quat_mul_inv` / `quat_inv_mul` are
    /// the reference's bits, so `quat_abs` picks the same side.
    #[test]
    fn dot_products_round_like_the_reference((q, p) in ties8()) {
        let d = lanes::quat_dot(q8(q), q8(p)).to_array();
        let mi = lanes::quat_mul_inv(q8(p), q8(q)).to_array();
        let im = lanes::quat_inv_mul(q8(q), q8(p)).to_array();
        let ab = lanes::quat_abs(lanes::quat_mul_inv(q8(p), q8(q))).to_array();
        for i in 0..8 {
            prop_assert_eq!(d[i].to_bits(), r::quat_dot(q[i], p[i]).to_bits(), "quat_dot lane {}", i);
            prop_assert_eq!(mi[i].w.to_bits(), r::quat_mul_inv(p[i], q[i]).w.to_bits(), "quat_mul_inv w lane {}", i);
            prop_assert_eq!(im[i].w.to_bits(), r::quat_inv_mul(q[i], p[i]).w.to_bits(), "quat_inv_mul w lane {}", i);
            check(ab[i], r::quat_abs(r::quat_mul_inv(p[i], q[i])), 1.0, Tol::new(0.0, 2e-6), &format!("quat_abs(quat_mul_inv) lane {i}"))?;
        }
    }

    #[test]
    fn slerp_and_angular_velocity((q, p) in ties8(), t in arr8(f32_in(-0.25, 1.25)), dt in arr8(f32_in(0.001, 0.1))) {
        check_lanes(lanes::quat_slerp_shortest(q8(q), q8(p), f8(t)), |i| r::quat_slerp_shortest(q[i], p[i], t[i]), |_| 1.0, TRANSC, "quat_slerp_shortest")?;
        check_lanes(lanes::quat_differentiate_angular_velocity(q8(p), q8(q), f8(dt)),
            |i| r::quat_differentiate_angular_velocity(p[i], q[i], dt[i]), |i| 7.0 / dt[i], TRANSC, "quat_differentiate_angular_velocity")?;
    }

    /// Blends (slerp and the weight-rate term), inertialization offsets and
    /// transitions, finite differences: the rotations of the two inputs a
    /// half turn apart. Transitions start from a zero offset, so the
    /// rotation the offset is measured from is exactly the source.
    #[test]
    fn pose_operators((q, p) in ties8(), a in arr8(kform(3.0)), b in arr8(kform(3.0)), alpha in arr8(f32_in(0.0, 1.0)), av in arr8(f32_in(-0.1, 0.1)),
                      sv in arr8(vec3_in(3.0)), dv in arr8(vec3_in(3.0)), bt in arr8(f32_in(0.05, 1.0)), ot in arr8(f32_in(0.0, 1.0))) {
        let l: [Kform; 8] = core::array::from_fn(|i| with_rot(a[i], q[i]));
        let h: [Kform; 8] = core::array::from_fn(|i| with_rot(b[i], p[i]));
        let dt = 1.0 / 60.0;
        let mut bl = [Kformx8::IDENTITY];
        lanes::op_blend(&mut bl, &[k8(l)], &[k8(h)], f8(alpha), f8(av), lanes::splat(dt)).unwrap();
        let mut off = [Kformx8::IDENTITY];
        lanes::op_inertialize_offset(&mut off, &[k8(l)], &[k8(h)]).unwrap();
        let mut fd = [k8(h)];
        lanes::op_finite_diff(&mut fd, &[k8(h)], &[k8(l)], lanes::splat(dt)).unwrap();
        for c in 0..8 {
            let (lp, hp) = (Pose::from_kforms(&[l[c]]), Pose::from_kforms(&[h[c]]));
            let mut want = Pose::new(1);
            r::op_blend(&mut want, &lp, &hp, alpha[c], av[c], dt).unwrap();
            let floors = [6.0, 1.0, 2.0, 6.0 + 12.0 / dt, 6.0 + 8.0 / dt, 2.0 / dt];
            check_floors(bl[0].lane(c), want.get(0), &floors, TRANSC, &format!("op_blend {c}"))?;
            r::op_inertialize_offset(&mut want, &lp, &hp).unwrap();
            check_floors(off[0].lane(c), want.get(0), &[6.0, 1.0, 4.0, 6.0, 6.0, 2.0], TRANSC, &format!("op_inertialize_offset {c}"))?;
            let mut want = hp.clone();
            r::op_finite_diff(&mut want, &hp, &lp, dt).unwrap();
            check_floors(fd[0].lane(c), want.get(0), &[3.0, 1.0, 2.0, 6.0 / dt, 7.0 / dt, 2.0 / dt], TRANSC, &format!("op_finite_diff {c}"))?;
        }
        let zq = Quatx8::IDENTITY;
        let zv = lanes::Vec3x8::ZERO;
        let (tx, tv) = lanes::inertialize_transition_quat(zq, zv, q8(q), v8(sv), q8(p), v8(dv));
        check_lanes((tx, tv), |i| r::inertialize_transition_quat(Quat::IDENTITY, Vec3::ZERO, q[i], sv[i], p[i], dv[i]), |_| 7.0, TRANSC, "inertialize_transition_quat")?;
        let (cx, cv, ct) = lanes::inertialize_cubic_transition_quat(zq, zv, f8(ot), q8(q), v8(sv), q8(p), v8(dv), f8(bt));
        check_lanes((cx, cv, ct), |i| r::inertialize_cubic_transition_quat(Quat::IDENTITY, Vec3::ZERO, ot[i], q[i], sv[i], p[i], dv[i], bt[i]), |_| 7.0, TRANSC, "inertialize_cubic_transition_quat")?;
    }

    /// Clips whose consecutive frames are half turns apart: linear and
    /// cubic sampling (8 joints, each its own chain of ties, lane `c` at
    /// its own time) and the loop's start/end rotational difference
    /// (joints in lanes, last frame orthogonal to the first).
    #[test]
    fn sampling_and_looping(q0 in arr8(unit_quat()), kinds in proptest::collection::vec(0u8..3, 4 * 8), neg in proptest::collection::vec(any::<bool>(), 4 * 8), time in arr8(f32_in(0.0, 0.05))) {
        // Frames: r[f+1] orthogonal to r[f] (exact kinds only, so every
        // frame is exactly a unit quaternion's permutation).
        let mut rot = vec![Quat::IDENTITY; 4 * 8];
        for j in 0..8 {
            rot[j] = q0[j];
            for f in 1..4 {
                let k = f * 8 + j;
                let o = orthogonal(rot[k - 8], kinds[k], Vec3::ZERO);
                rot[k] = if neg[k] { -o } else { o };
            }
        }
        let pos = vec![Vec3::ZERO; 4 * 8];
        let scl = vec![Vec3::ONE; 4 * 8];
        let (ps, qs, ss) = (Slice2d::new(&pos, 8).unwrap(), Slice2d::new(&rot, 8).unwrap(), Slice2d::new(&scl, 8).unwrap());
        let dt = 1.0 / 60.0;
        let mut lin8 = vec![Kformx8::IDENTITY; 8];
        lanes::op_sample_linear(&mut lin8, ps, qs, ss, f8(time), dt).unwrap();
        let mut cub8 = vec![Kformx8::IDENTITY; 8];
        lanes::op_sample_cubic(&mut cub8, ps, qs, ss, f8(time), dt).unwrap();
        for c in 0..8 {
            let (mut lin, mut cub) = (Pose::new(8), Pose::new(8));
            r::op_sample_linear(&mut lin, ps, qs, ss, time[c], dt).unwrap();
            r::op_sample_cubic(&mut cub, ps, qs, ss, time[c], dt).unwrap();
            let floors = [1.0, 1.0, 1.0, 1.0, 20.0 / dt, 1.0];
            for j in 0..8 {
                check_floors(lin8[j].lane(c), lin.get(j), &floors, TRANSC, &format!("op_sample_linear character {c} joint {j}"))?;
                check_floors(cub8[j].lane(c), cub.get(j), &floors, TRANSC, &format!("op_sample_cubic character {c} joint {j}"))?;
            }
        }
        let (mut d, mut dw) = (vec![Vec3::ZERO; 8], vec![Vec3::ZERO; 8]);
        r::compute_start_end_rotational_difference(&mut d, &mut dw, qs, dt).unwrap();
        let rot8: Vec<Quatx8> = rot.chunks(8).map(|c| Quatx8::from_array(core::array::from_fn(|i| c[i]))).collect();
        let (mut d8, mut dw8) = ([lanes::Vec3x8::ZERO], [lanes::Vec3x8::ZERO]);
        lanes::compute_start_end_rotational_difference(&mut d8, &mut dw8, Slice2d::new(&rot8, 1).unwrap(), dt).unwrap();
        check_lanes(d8[0], |j| d[j], |_| 7.0, TRANSC, "start/end rotational difference")?;
        check_lanes(dw8[0], |j| dw[j], |_| 14.0 / dt, TRANSC, "start/end angular velocity difference")?;
    }
}
