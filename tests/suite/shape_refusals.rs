//! The pose operators' shape checks on both paths. Every `op_*` of
//! `reference` and its 8-lane twin in `lanes`, given generated pose
//! lengths, hierarchies (valid or not), joint indices and clip views,
//! either both accept, or both refuse with the same error and write
//! nothing; neither panics on any shape. The lanes' operators `assert`ed
//! on short poses, indexed past a pose for a bad joint index, and
//! `op_dead_blending` ran on a short extrapolated pose writing part of
//! its output; the reference's `op_two_bone_ik` wrote its scratch poses
//! before the second of its steps refused an invalid hierarchy.

use crate::common::*;
use kineform::lanes::{self, Jointx8, Kformx8, Motionx8};
use kineform::reference::{self as r, Joint, Kform, Motion, Pose, Quat, Slice2d, Vec3};
use kineform::{Error, Result};
use proptest::prelude::*;

/// A joint's value: distinct per joint `i` and per pose `seed`, so an
/// output written with its inputs' values differs from what it held.
fn kf(i: usize, seed: usize) -> Kform {
    let (a, s) = (i as f32, seed as f32);
    Kform {
        pos: Vec3::new(a + s, 0.5 * s - a, 1.0),
        rot: r::quat_normalize(Quat::new(1.0, 0.1 * a, 0.2 * s, 0.05)),
        scl: Vec3::splat(1.0 + 0.1 * s),
        vel: Vec3::new(0.1 * s, 0.2, -0.1 * a),
        ang: Vec3::new(0.3, -0.1 * s, 0.2 * a),
        svl: Vec3::new(0.01 * s, 0.0, 0.02),
    }
}

fn rp(n: usize, seed: usize) -> Pose {
    Pose::from_kforms(&(0..n).map(|i| kf(i, seed)).collect::<Vec<_>>())
}

fn lp(n: usize, seed: usize) -> Vec<Kformx8> {
    (0..n).map(|i| Kformx8::splat(kf(i, seed))).collect()
}

fn s8(x: f32) -> lanes::F32x8 {
    lanes::splat(x)
}

/// The two paths agree: both accept, or both refuse with one error, each
/// leaving its outputs as they were (`untouched`).
fn agree(
    name: &str,
    (rr, r_untouched): (Result<()>, bool),
    (lr, l_untouched): (Result<()>, bool),
) -> std::result::Result<(), TestCaseError> {
    prop_assert_eq!(&rr, &lr, "{}: the two paths differ", name);
    if rr.is_err() {
        prop_assert!(r_untouched, "{}: the reference refused but wrote", name);
        prop_assert!(l_untouched, "{}: the lanes refused but wrote", name);
    }
    Ok(())
}

/// Lengths of five poses: mostly one length (so the operators run), each
/// sometimes another (so they refuse).
fn lens() -> impl Strategy<Value = [usize; 5]> {
    (1usize..=4, proptest::array::uniform5((0usize..=4, 0u8..4)))
        .prop_map(|(n, v)| v.map(|(m, coin)| if coin == 0 { m } else { n }))
}

/// A hierarchy of 0 to 5 joints: valid, or with any parent in -2..5.
fn any_parents() -> impl Strategy<Value = Vec<i32>> {
    prop_oneof![
        parents(6),
        proptest::collection::vec(-2i32..5, 0..=5),
        Just(vec![-1, 0, 1, 2]),
    ]
}

struct Case {
    l: [usize; 5],
    parents: Vec<i32>,
    idx: [usize; 3],
}

fn pose_ops(c: &Case) -> std::result::Result<(), TestCaseError> {
    let (l, p) = (c.l, &c.parents[..]);
    macro_rules! two {
        ($name:expr, |$o:ident, $a:ident| $rcall:expr, $lcall:expr) => {{
            let (mut $o, $a) = (rp(l[0], 0), rp(l[1], 1));
            let rr: Result<()> = $rcall;
            let r_same = $o == rp(l[0], 0);
            let (mut $o, $a) = (lp(l[0], 0), lp(l[1], 1));
            let lr: Result<()> = $lcall;
            agree($name, (rr, r_same), (lr, $o == lp(l[0], 0)))?;
        }};
    }
    macro_rules! three {
        ($name:expr, |$o:ident, $a:ident, $b:ident| $rcall:expr, $lcall:expr) => {{
            let (mut $o, $a, $b) = (rp(l[0], 0), rp(l[1], 1), rp(l[2], 2));
            let rr: Result<()> = $rcall;
            let r_same = $o == rp(l[0], 0);
            let (mut $o, $a, $b) = (lp(l[0], 0), lp(l[1], 1), lp(l[2], 2));
            let lr: Result<()> = $lcall;
            agree($name, (rr, r_same), (lr, $o == lp(l[0], 0)))?;
        }};
    }
    two!(
        "op_fk",
        |o, a| r::op_fk(&mut o, &a, p),
        lanes::op_fk(&mut o, &a, p)
    );
    two!(
        "op_fk_static",
        |o, a| r::op_fk_static(&mut o, &a, p),
        lanes::op_fk_static(&mut o, &a, p)
    );
    two!(
        "op_bk",
        |o, a| r::op_bk(&mut o, &a, p),
        lanes::op_bk(&mut o, &a, p)
    );
    three!(
        "op_finite_diff",
        |o, a, b| r::op_finite_diff(&mut o, &a, &b, 0.1),
        lanes::op_finite_diff(&mut o, &a, &b, s8(0.1))
    );
    two!(
        "op_finite_diff_inplace",
        |o, a| r::op_finite_diff_inplace(&mut o, &a, 0.1),
        lanes::op_finite_diff_inplace(&mut o, &a, s8(0.1))
    );
    two!(
        "op_extrapolate_prev",
        |o, a| r::op_extrapolate_prev(&mut o, &a, 0.1),
        lanes::op_extrapolate_prev(&mut o, &a, s8(0.1))
    );
    three!(
        "op_blend_static",
        |o, a, b| r::op_blend_static(&mut o, &a, &b, 0.3),
        lanes::op_blend_static(&mut o, &a, &b, s8(0.3))
    );
    three!(
        "op_blend",
        |o, a, b| r::op_blend(&mut o, &a, &b, 0.3, 0.5, 0.1),
        lanes::op_blend(&mut o, &a, &b, s8(0.3), s8(0.5), s8(0.1))
    );
    two!(
        "op_additive_inplace_static",
        |o, a| r::op_additive_inplace_static(&mut o, &a, 0.3, 0.1),
        lanes::op_additive_inplace_static(&mut o, &a, s8(0.3), s8(0.1))
    );
    two!(
        "op_additive_local_inplace_static",
        |o, a| r::op_additive_local_inplace_static(&mut o, &a, 0.3),
        lanes::op_additive_local_inplace_static(&mut o, &a, s8(0.3))
    );
    two!(
        "op_additive_inplace",
        |o, a| r::op_additive_inplace(&mut o, &a, 0.3, 0.5, 0.1),
        lanes::op_additive_inplace(&mut o, &a, s8(0.3), s8(0.5), s8(0.1))
    );
    two!(
        "op_additive_local_inplace",
        |o, a| r::op_additive_local_inplace(&mut o, &a, 0.3, 0.5, 0.1),
        lanes::op_additive_local_inplace(&mut o, &a, s8(0.3), s8(0.5), s8(0.1))
    );
    three!(
        "op_inertialize_offset",
        |o, a, b| r::op_inertialize_offset(&mut o, &a, &b),
        lanes::op_inertialize_offset(&mut o, &a, &b)
    );
    three!(
        "op_inertialize",
        |o, a, b| r::op_inertialize(&mut o, &a, &b, 0.1, 0.3),
        lanes::op_inertialize(&mut o, &a, &b, s8(0.1), s8(0.3))
    );
    two!(
        "op_extrapolate_decayed",
        |o, a| r::op_extrapolate_decayed(&mut o, &a, 0.1, 0.2),
        lanes::op_extrapolate_decayed(&mut o, &a, s8(0.1), s8(0.2))
    );
    let (hp, hr) = (vec![Vec3::splat(0.2); l[2]], vec![Vec3::splat(0.3); l[3]]);
    let (hp8, hr8) = (
        vec![lanes::Vec3x8::splat(Vec3::splat(0.2)); l[2]],
        vec![lanes::Vec3x8::splat(Vec3::splat(0.3)); l[3]],
    );
    two!(
        "op_extrapolate_decayed_axes",
        |o, a| r::op_extrapolate_decayed_axes(&mut o, &a, &hp, &hr, 0.1),
        lanes::op_extrapolate_decayed_axes(&mut o, &a, &hp8, &hr8, s8(0.1))
    );
    Ok(())
}

fn joint_ops(c: &Case) -> std::result::Result<(), TestCaseError> {
    let (l, p) = (c.l, &c.parents[..]);
    let m = |n, seed| -> Vec<Motion> { (0..n).map(|i| Motion::from_kform(kf(i, seed))).collect() };
    let m8 = |n, seed| -> Vec<Motionx8> {
        (0..n)
            .map(|i| Motionx8::splat(Motion::from_kform(kf(i, seed))))
            .collect()
    };
    for (name, fk) in [("op_fk_joints", true), ("op_bk_joints", false)] {
        let (mut o, a) = (m(l[0], 0), m(l[1], 1));
        let rr = if fk {
            r::op_fk_joints(&mut o, &a, p)
        } else {
            r::op_bk_joints(&mut o, &a, p)
        };
        let r_same = o == m(l[0], 0);
        let (mut o8, a8) = (m8(l[0], 0), m8(l[1], 1));
        let lr = if fk {
            lanes::op_fk_joints(&mut o8, &a8, p)
        } else {
            lanes::op_bk_joints(&mut o8, &a8, p)
        };
        agree(name, (rr, r_same), (lr, o8 == m8(l[0], 0)))?;
    }
    Ok(())
}

fn dead_blending(c: &Case) -> std::result::Result<(), TestCaseError> {
    let l = c.l;
    let (mut o, mut e) = (rp(l[0], 0), rp(l[1], 1));
    let mut path = vec![Quat::IDENTITY; l[4]];
    let rr = r::op_dead_blending(
        &mut o,
        &mut e,
        &mut path,
        &rp(l[2], 2),
        &rp(l[3], 3),
        0.2,
        0.1,
        0.3,
        0.1,
    );
    let r_same = o == rp(l[0], 0) && e == rp(l[1], 1) && path == vec![Quat::IDENTITY; l[4]];
    let (mut o8, mut e8) = (lp(l[0], 0), lp(l[1], 1));
    let mut path8 = vec![lanes::Quatx8::IDENTITY; l[4]];
    let lr = lanes::op_dead_blending(
        &mut o8,
        &mut e8,
        &mut path8,
        &lp(l[2], 2),
        &lp(l[3], 3),
        s8(0.2),
        s8(0.1),
        s8(0.3),
        s8(0.1),
    );
    let l_same =
        o8 == lp(l[0], 0) && e8 == lp(l[1], 1) && path8 == vec![lanes::Quatx8::IDENTITY; l[4]];
    agree("op_dead_blending", (rr, r_same), (lr, l_same))
}

fn procedural(c: &Case) -> std::result::Result<(), TestCaseError> {
    let (l, p, [head, knee, heel]) = (c.l, &c.parents[..], c.idx);
    let chain = [head, knee, heel];
    let (t, v, fwd) = (
        Vec3::new(0.3, -1.0, 0.2),
        Vec3::new(0.1, 0.0, 0.0),
        r::DEFAULT_FWD,
    );
    let (t8, v8, fwd8) = (
        lanes::Vec3x8::splat(t),
        lanes::Vec3x8::splat(v),
        lanes::Vec3x8::splat(fwd),
    );
    for (name, with_vel) in [("op_lookat_static", false), ("op_lookat", true)] {
        let (mut o, g) = (rp(l[0], 0), rp(l[1], 1));
        let rr = if with_vel {
            r::op_lookat(&mut o, &g, head, t, v, fwd)
        } else {
            r::op_lookat_static(&mut o, &g, head, t, fwd)
        };
        let r_same = o == rp(l[0], 0);
        let (mut o8, g8) = (lp(l[0], 0), lp(l[1], 1));
        let lr = if with_vel {
            lanes::op_lookat(&mut o8, &g8, head, t8, v8, fwd8)
        } else {
            lanes::op_lookat_static(&mut o8, &g8, head, t8, fwd8)
        };
        agree(name, (rr, r_same), (lr, o8 == lp(l[0], 0)))?;
    }
    let (mut o, g) = (rp(l[0], 0), rp(l[1], 1));
    let rr = r::op_two_bone_ik_static(&mut o, &g, p, chain, t, fwd, 0.01);
    let r_same = o == rp(l[0], 0);
    let (mut o8, g8) = (lp(l[0], 0), lp(l[1], 1));
    let lr = lanes::op_two_bone_ik_static(&mut o8, &g8, p, chain, t8, fwd8, s8(0.01));
    agree(
        "op_two_bone_ik_static",
        (rr, r_same),
        (lr, o8 == lp(l[0], 0)),
    )?;

    let mut rs: Vec<Pose> = (0..4).map(|k| rp(l[k], k)).collect();
    let [a, b, c2, d] = rs.get_disjoint_mut([0, 1, 2, 3]).unwrap();
    let rr = r::op_two_bone_ik(a, b, c2, d, p, chain, t, v, 0.01);
    let r_same = (0..4).all(|k| rs[k] == rp(l[k], k));
    let mut ls: Vec<Vec<Kformx8>> = (0..4).map(|k| lp(l[k], k)).collect();
    let [a, b, c2, d] = ls.get_disjoint_mut([0, 1, 2, 3]).unwrap();
    let lr = lanes::op_two_bone_ik(a, b, c2, d, p, chain, t8, v8, s8(0.01));
    let l_same = (0..4).all(|k| ls[k] == lp(l[k], k));
    agree("op_two_bone_ik", (rr, r_same), (lr, l_same))
}

/// Clip views of `rows` frames and `cols` columns each (position,
/// rotation, scale).
fn sampling(
    out: usize,
    rows: [usize; 3],
    cols: [usize; 3],
) -> std::result::Result<(), TestCaseError> {
    let pos: Vec<Vec3> = (0..rows[0] * cols[0])
        .map(|i| Vec3::splat(i as f32))
        .collect();
    let rot: Vec<Quat> = (0..rows[1] * cols[1]).map(|i| kf(i, 1).rot).collect();
    let scl: Vec<Vec3> = vec![Vec3::ONE; rows[2] * cols[2]];
    let views = (
        Slice2d::new(&pos, cols[0]).unwrap(),
        Slice2d::new(&rot, cols[1]).unwrap(),
        Slice2d::new(&scl, cols[2]).unwrap(),
    );
    let (vp, vr, vs) = views;
    for cubic in [false, true] {
        let mut o = rp(out, 0);
        let rr = if cubic {
            r::op_sample_cubic(&mut o, vp, vr, vs, 0.05, 1.0 / 30.0)
        } else {
            r::op_sample_linear(&mut o, vp, vr, vs, 0.05, 1.0 / 30.0)
        };
        let r_same = o == rp(out, 0);
        let mut o8 = lp(out, 0);
        let lr = if cubic {
            lanes::op_sample_cubic(&mut o8, vp, vr, vs, s8(0.05), 1.0 / 30.0)
        } else {
            lanes::op_sample_linear(&mut o8, vp, vr, vs, s8(0.05), 1.0 / 30.0)
        };
        let name = if cubic {
            "op_sample_cubic"
        } else {
            "op_sample_linear"
        };
        agree(name, (rr, r_same), (lr, o8 == lp(out, 0)))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn both_paths_refuse_the_same_shapes_and_write_nothing(
        l in lens(),
        parents in any_parents(),
        idx in proptest::array::uniform3(0usize..6),
    ) {
        let c = Case { l, parents, idx };
        pose_ops(&c)?;
        joint_ops(&c)?;
        dead_blending(&c)?;
        procedural(&c)?;
    }

    #[test]
    fn both_samplers_refuse_the_same_views_and_write_nothing(
        out in 0usize..=4,
        rows in proptest::array::uniform3(0usize..=3),
        cols in proptest::array::uniform3(1usize..=4),
        same in any::<bool>(),
    ) {
        // Half the cases with one shape for all three views.
        let (rows, cols) = if same { ([rows[0]; 3], [cols[0]; 3]) } else { (rows, cols) };
        sampling(out, rows, cols)?;
    }
}

/// A few refusals named, so a change of what is checked shows here too.
#[test]
fn the_refusals_name_what_is_short() {
    let mut o = lp(3, 0);
    let e = lanes::op_blend(&mut o, &lp(3, 1), &lp(2, 2), s8(0.5), s8(0.0), s8(0.1)).unwrap_err();
    assert_eq!(
        e,
        Error::Length {
            what: "pose joints (every field of every pose)",
            expected: 3,
            got: 2
        }
    );
    let e = lanes::op_fk(&mut o, &lp(3, 1), &[-1, 2, 0]).unwrap_err();
    assert!(matches!(e, Error::Skeleton { joint: 1, .. }), "{e}");
    let e = lanes::op_lookat(&mut o, &lp(3, 1), 3, v3(), v3(), v3()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Length {
                expected: 4,
                got: 3,
                ..
            }
        ),
        "{e}"
    );
    // The reference's two-bone IK refused an invalid hierarchy only in its
    // forward kinematics, after writing `local_temp`.
    let mut rs: Vec<Pose> = (0..4).map(|k| rp(3, k)).collect();
    let [a, b, c, d] = rs.get_disjoint_mut([0, 1, 2, 3]).unwrap();
    let e = r::op_two_bone_ik(
        a,
        b,
        c,
        d,
        &[-1, 2, 1],
        [0, 1, 2],
        Vec3::ONE,
        Vec3::ZERO,
        0.01,
    );
    assert!(matches!(e, Err(Error::Skeleton { joint: 1, .. })), "{e:?}");
    assert!((0..4).all(|k| rs[k] == rp(3, k)), "refused but wrote");
    let v = [Vec3::ONE; 4];
    let e = r::op_sample_linear(
        &mut rp(3, 0),
        Slice2d::new(&v, 2).unwrap(),
        Slice2d::new(&[Quat::IDENTITY; 4], 2).unwrap(),
        Slice2d::new(&v, 2).unwrap(),
        0.0,
        0.1,
    )
    .unwrap_err();
    assert_eq!(
        e,
        Error::Length {
            what: "anim_pos columns (one per output joint)",
            expected: 3,
            got: 2
        }
    );
}

fn v3() -> lanes::Vec3x8 {
    lanes::Vec3x8::splat(Vec3::ONE)
}

/// The looping functions' shapes: views of `rows` frames and `cols`
/// joints, per-joint differences of `d` entries, offsets of `o` values,
/// outputs of `out` values.
struct LoopCase {
    rows: usize,
    cols: usize,
    d: [usize; 2],
    o: [usize; 2],
    pos_rows: usize,
}

fn looping(c: &LoopCase) -> std::result::Result<(), TestCaseError> {
    use lanes::{Quatx8, Vec3x8};
    let (rows, cols) = (c.rows, c.cols);
    let v = |i: usize| Vec3::new(i as f32, 1.0, -0.5 * i as f32);
    let q = |i: usize| kf(i, 2).rot;
    let pos: Vec<Vec3> = (0..rows * cols).map(v).collect();
    let rot: Vec<Quat> = (0..rows * cols).map(q).collect();
    let pos8: Vec<Vec3x8> = pos.iter().map(|&p| Vec3x8::splat(p)).collect();
    let rot8: Vec<Quatx8> = rot.iter().map(|&r| Quatx8::splat(r)).collect();
    let (vp, vr) = (
        Slice2d::new(&pos, cols).unwrap(),
        Slice2d::new(&rot, cols).unwrap(),
    );
    let (vp8, vr8) = (
        Slice2d::new(&pos8, cols).unwrap(),
        Slice2d::new(&rot8, cols).unwrap(),
    );
    let filled = |n: usize, seed: usize| -> Vec<Vec3> { (0..n).map(|i| v(i + seed)).collect() };
    let filled8 = |n: usize, seed: usize| -> Vec<Vec3x8> {
        (0..n).map(|i| Vec3x8::splat(v(i + seed))).collect()
    };
    let (h, ratio, dt) = (0.2, 0.4, 1.0 / 30.0);

    // The differences: two outputs of d[0] and d[1] entries.
    for (name, k) in [
        ("compute_start_end_positional_difference", 0),
        ("compute_start_end_rotational_difference", 1),
        ("compute_softfade_start_end_difference", 2),
        ("compute_softfade_start_end_difference_quat", 3),
    ] {
        let (mut a, mut b) = (filled(c.d[0], 7), filled(c.d[1], 9));
        let rr = match k {
            0 => r::compute_start_end_positional_difference(&mut a, &mut b, vp, dt),
            1 => r::compute_start_end_rotational_difference(&mut a, &mut b, vr, dt),
            2 => r::compute_softfade_start_end_difference(
                &mut a, &mut b, vp, h, h, 2.0, 2.0, ratio, dt,
            ),
            _ => r::compute_softfade_start_end_difference_quat(
                &mut a, &mut b, vr, h, h, 2.0, 2.0, ratio, dt,
            ),
        };
        let r_same = a == filled(c.d[0], 7) && b == filled(c.d[1], 9);
        let (mut a, mut b) = (filled8(c.d[0], 7), filled8(c.d[1], 9));
        let lr = match k {
            0 => lanes::compute_start_end_positional_difference(&mut a, &mut b, vp8, dt),
            1 => lanes::compute_start_end_rotational_difference(&mut a, &mut b, vr8, dt),
            2 => lanes::compute_softfade_start_end_difference(
                &mut a, &mut b, vp8, h, h, 2.0, 2.0, ratio, dt,
            ),
            _ => lanes::compute_softfade_start_end_difference_quat(
                &mut a, &mut b, vr8, h, h, 2.0, 2.0, ratio, dt,
            ),
        };
        let l_same = a == filled8(c.d[0], 7) && b == filled8(c.d[1], 9);
        agree(name, (rr, r_same), (lr, l_same))?;
    }

    // The offsets: o[0] values from differences of d[0] and d[1] entries.
    type RefOffsets = fn(&mut [Vec3], &[Vec3], &[Vec3], f32, f32, f32, f32) -> Result<()>;
    type LaneOffsets = fn(&mut [Vec3x8], &[Vec3x8], &[Vec3x8], f32, f32, f32, f32) -> Result<()>;
    let both: [(&str, RefOffsets, LaneOffsets); 3] = [
        (
            "compute_inertialize_both_offsets",
            r::compute_inertialize_both_offsets,
            lanes::compute_inertialize_both_offsets,
        ),
        (
            "compute_inertialize_both_offsets_cubic",
            r::compute_inertialize_both_offsets_cubic,
            lanes::compute_inertialize_both_offsets_cubic,
        ),
        (
            "compute_linear_inertialize_offsets",
            r::compute_linear_inertialize_offsets,
            lanes::compute_linear_inertialize_offsets,
        ),
    ];
    let (dp, dv, dp8, dv8) = (
        filled(c.d[0], 1),
        filled(c.d[1], 2),
        filled8(c.d[0], 1),
        filled8(c.d[1], 2),
    );
    for (name, rf, lf) in both {
        let mut o = filled(c.o[0], 5);
        let rr = rf(&mut o, &dp, &dv, h, h, ratio, dt);
        let r_same = o == filled(c.o[0], 5);
        let mut o8 = filled8(c.o[0], 5);
        let lr = lf(&mut o8, &dp8, &dv8, h, h, ratio, dt);
        agree(name, (rr, r_same), (lr, o8 == filled8(c.o[0], 5)))?;
    }
    for (name, k) in [
        ("compute_inertialize_start_offsets", 0),
        ("compute_inertialize_end_offsets", 1),
        ("compute_linear_offsets", 2),
        ("compute_softfade_inertialize_offsets", 3),
    ] {
        let mut o = filled(c.o[0], 5);
        let rr = match k {
            0 => r::compute_inertialize_start_offsets(&mut o, &dp, &dv, h, dt),
            1 => r::compute_inertialize_end_offsets(&mut o, &dp, &dv, h, dt),
            2 => r::compute_linear_offsets(&mut o, &dp, ratio),
            _ => r::compute_softfade_inertialize_offsets(
                &mut o, &dp, &dv, h, h, h, h, 2.0, 2.0, ratio, dt,
            ),
        };
        let r_same = o == filled(c.o[0], 5);
        let mut o8 = filled8(c.o[0], 5);
        let lr = match k {
            0 => lanes::compute_inertialize_start_offsets(&mut o8, &dp8, &dv8, h, dt),
            1 => lanes::compute_inertialize_end_offsets(&mut o8, &dp8, &dv8, h, dt),
            2 => lanes::compute_linear_offsets(&mut o8, &dp8, ratio),
            _ => lanes::compute_softfade_inertialize_offsets(
                &mut o8, &dp8, &dv8, h, h, h, h, 2.0, 2.0, ratio, dt,
            ),
        };
        agree(name, (rr, r_same), (lr, o8 == filled8(c.o[0], 5)))?;
    }

    // The root's offsets: positions of pos_rows frames, offsets of o[0]
    // and o[1] values.
    let rpos: Vec<Vec3> = (0..c.pos_rows * cols).map(v).collect();
    let rpos8: Vec<Vec3x8> = rpos.iter().map(|&p| Vec3x8::splat(p)).collect();
    let (rvp, rvp8) = (
        Slice2d::new(&rpos, cols).unwrap(),
        Slice2d::new(&rpos8, cols).unwrap(),
    );
    let (mut a, mut b) = (filled(c.o[0], 3), filled(c.o[1], 4));
    let rr = r::compute_root_inertialize_offsets(&mut a, &mut b, rvp, vr, h, h, ratio, dt);
    let r_same = a == filled(c.o[0], 3) && b == filled(c.o[1], 4);
    let (mut a, mut b) = (filled8(c.o[0], 3), filled8(c.o[1], 4));
    let lr = lanes::compute_root_inertialize_offsets(&mut a, &mut b, rvp8, vr8, h, h, ratio, dt);
    let l_same = a == filled8(c.o[0], 3) && b == filled8(c.o[1], 4);
    agree(
        "compute_root_inertialize_offsets",
        (rr, r_same),
        (lr, l_same),
    )?;

    // Offsets applied: an output of o[1] values, offsets of o[0].
    let (off, off8) = (filled(c.o[0], 6), filled8(c.o[0], 6));
    let mut out = filled(c.o[1], 8);
    let rr = r::apply_positional_offsets(&mut out, vp, &off);
    let r_same = out == filled(c.o[1], 8);
    let mut out8 = filled8(c.o[1], 8);
    let lr = lanes::apply_positional_offsets(&mut out8, vp8, &off8);
    agree(
        "apply_positional_offsets",
        (rr, r_same),
        (lr, out8 == filled8(c.o[1], 8)),
    )?;
    let mut out = vec![Quat::IDENTITY; c.o[1]];
    let rr = r::apply_rotational_offsets(&mut out, vr, &off);
    let r_same = out == vec![Quat::IDENTITY; c.o[1]];
    let mut out8 = vec![Quatx8::IDENTITY; c.o[1]];
    let lr = lanes::apply_rotational_offsets(&mut out8, vr8, &off8);
    agree(
        "apply_rotational_offsets",
        (rr, r_same),
        (lr, out8 == vec![Quatx8::IDENTITY; c.o[1]]),
    )
}

/// `fit_halflives` with its eight slices of `l` entries.
fn fit(l: [usize; 8]) -> std::result::Result<(), TestCaseError> {
    use lanes::{Quatx8, Vec3x8};
    let v = |n: usize, s: f32| -> Vec<Vec3> {
        (0..n).map(|i| Vec3::new(i as f32 + s, 0.1, 0.2)).collect()
    };
    let q = |n: usize| -> Vec<Quat> { (0..n).map(|i| kf(i, 3).rot).collect() };
    let (mut hp, mut hr) = (v(l[0], 0.5), v(l[1], 0.7));
    let rr = r::fit_halflives(
        &mut hp,
        &mut hr,
        &v(l[2], 1.0),
        &v(l[3], 2.0),
        &q(l[4]),
        &v(l[5], 3.0),
        &v(l[6], 4.0),
        &q(l[7]),
        0.2,
        0.05,
        1.0,
        0.1,
    );
    let r_same = hp == v(l[0], 0.5) && hr == v(l[1], 0.7);
    let v8 = |n: usize, s: f32| -> Vec<Vec3x8> { v(n, s).into_iter().map(Vec3x8::splat).collect() };
    let q8 = |n: usize| -> Vec<Quatx8> { q(n).into_iter().map(Quatx8::splat).collect() };
    let (mut hp, mut hr) = (v8(l[0], 0.5), v8(l[1], 0.7));
    let lr = lanes::fit_halflives(
        &mut hp,
        &mut hr,
        &v8(l[2], 1.0),
        &v8(l[3], 2.0),
        &q8(l[4]),
        &v8(l[5], 3.0),
        &v8(l[6], 4.0),
        &q8(l[7]),
        s8(0.2),
        s8(0.05),
        s8(1.0),
        s8(0.1),
    );
    let l_same = hp == v8(l[0], 0.5) && hr == v8(l[1], 0.7);
    agree("fit_halflives", (rr, r_same), (lr, l_same))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn both_loopers_refuse_the_same_shapes_and_write_nothing(
        rows in 0usize..=3,
        cols in 1usize..=3,
        shaped in any::<bool>(),
        d in proptest::array::uniform2(0usize..=4),
        o in proptest::array::uniform2(0usize..=10),
        pos_rows in 0usize..=3,
    ) {
        // Half the cases shaped as the functions want them.
        let c = if shaped {
            LoopCase { rows, cols, d: [cols; 2], o: [rows * cols; 2], pos_rows: rows }
        } else {
            LoopCase { rows, cols, d, o, pos_rows }
        };
        looping(&c)?;
    }

    #[test]
    fn both_half_life_fits_refuse_the_same_lengths_and_write_nothing(
        n in 0usize..=3,
        l in proptest::array::uniform8(0usize..=3),
        shaped in any::<bool>(),
    ) {
        fit(if shaped { [n; 8] } else { l })?;
    }
}

/// Chains that do not cut the joints into runs, and slices that are not
/// whole packs, are refused by `fk_packs`, which wrote or panicked.
#[test]
fn fk_packs_refuses_bad_chains_and_partial_packs() {
    use kineform::skeleton::Chain;
    let skel = kineform::Skeleton::new(vec![-1, 0, 1, 0]).unwrap();
    let local: Vec<Motionx8> = (0..8)
        .map(|i| Motionx8::splat(Motion::from_kform(kf(i, 1))))
        .collect();
    let fresh = || -> Vec<Motionx8> {
        (0..8)
            .map(|i| Motionx8::splat(Motion::from_kform(kf(i, 0))))
            .collect()
    };
    let mut g = fresh();
    lanes::fk_packs(&mut g, &local, skel.chains(), Motionx8::FK).unwrap();
    let bad = [
        Chain {
            start: 0,
            end: 2,
            parent: -1,
        },
        Chain {
            start: 3,
            end: 4,
            parent: 0,
        },
    ];
    let mut g = fresh();
    let e = lanes::fk_packs(&mut g, &local, &bad, Motionx8::FK).unwrap_err();
    assert!(matches!(e, Error::Skeleton { joint: 3, .. }), "{e}");
    let e = lanes::fk_packs(&mut g, &local[..7], skel.chains(), Motionx8::FK).unwrap_err();
    assert!(matches!(e, Error::Length { .. }), "{e}");
    let e = lanes::fk_packs(&mut g[..6], &local[..6], skel.chains(), Motionx8::FK).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Length {
                expected: 8,
                got: 6,
                ..
            }
        ),
        "{e}"
    );
    assert!(g == fresh(), "refused but wrote");
}

/// `Clip::pos` (and `rot`, `scl`), `Slice2d::get` and `row` and
/// `Database::scale` indexed frame-major storage as `f * joints + j`
/// without looking at `j`: a joint past the last read the next frame's
/// first joint. They answer `None` out of range now, and never panic.
#[test]
fn accessors_past_the_last_joint_answer_none_instead_of_the_next_frame() {
    let pos: Vec<Vec3> = (0..4).map(|i| Vec3::splat(i as f32)).collect();
    let (rot, scl) = (vec![Quat::IDENTITY; 4], vec![Vec3::ONE; 4]);
    let clip = kineform::Clip::new(2, 2, 0.1, pos.clone(), rot, scl).unwrap();
    assert_eq!(clip.pos(1, 1), Some(Vec3::splat(3.0)));
    assert_eq!(clip.pos(0, 2), None, "pos(0, 2) read frame 1's joint 0");
    assert_eq!(clip.scl(0, 3), None);
    assert_eq!(clip.rot(2, 0), None);
    assert_eq!(clip.rot(usize::MAX, usize::MAX), None);
    let view = Slice2d::new(&pos, 2).unwrap();
    assert_eq!(view.get(1, 0), Some(Vec3::splat(2.0)));
    assert_eq!(view.get(0, 2), None, "get(0, 2) read row 1's column 0");
    assert_eq!((view.get(2, 0), view.get(usize::MAX, 2)), (None, None));
    assert_eq!(view.row(1), Some(&pos[2..4]));
    assert_eq!(view.row(2), None);
    let db = kineform::database::Database::new(core::slice::from_ref(&clip)).unwrap();
    assert_eq!(db.scale(1, 1), Some((Vec3::ONE, Vec3::ZERO)));
    assert_eq!((db.scale(0, 2), db.scale(2, 0)), (None, None));
}

/// `Pose::set` on a pose whose fields differ in length panics before it
/// writes: it wrote the fields before the short one first (the positions,
/// rotations and scales here), leaving a joint half set.
#[test]
fn pose_set_past_a_short_field_writes_nothing() {
    let mut p = rp(3, 1);
    p.vel.truncate(1);
    let before = p.clone();
    let set = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| p.set(2, kf(2, 9))));
    assert!(set.is_err(), "joint 2 is past the velocities");
    assert_eq!(p, before, "a field was written before the panic");
    p.set(0, kf(0, 9));
    assert_eq!(p.get(0), kf(0, 9));
}
