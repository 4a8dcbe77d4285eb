//! Issue 13 (hostile input): sizes and values from callers that used to
//! panic, abort or give NaN are refused with typed errors that name what is
//! wrong, or saturate to the finite limit of the math. Each test is named
//! for the defect it guards.

use kineform::reference::{Quat, Vec3};
use kineform::{Clip, Error};

fn clip(frames: usize, joints: usize, pos: Vec3, rot: Quat, scl: Vec3) -> kineform::Result<Clip> {
    let n = frames * joints;
    Clip::new(
        frames,
        joints,
        1.0 / 120.0,
        vec![pos; n],
        vec![rot; n],
        vec![scl; n],
    )
}

/// Issue 13, defect 4: `Clip::new(1 << 63, 2, ...)` was Ok (frames × joints
/// wrapped), and sampling it panicked.
#[test]
fn clip_sizes_that_overflow_are_refused() {
    let e = Clip::new(1 << 63, 2, 1.0 / 120.0, vec![], vec![], vec![]).unwrap_err();
    assert!(matches!(e, Error::Size { .. }), "{e}");
    assert!(e.to_string().contains("overflows"), "{e}");
    let e = Clip::new(usize::MAX, usize::MAX, 1.0, vec![], vec![], vec![]).unwrap_err();
    assert!(matches!(e, Error::Size { .. }), "{e}");
}

/// Issue 13, defect 9: `Clip::new` accepted NaN positions and all-zero
/// quaternions, and a crowd built on the clip output NaN for whole packs.
#[test]
fn clip_values_that_are_not_usable_are_refused_naming_frame_and_joint() {
    let (p, q, s) = (Vec3::new(1.0, 2.0, 3.0), Quat::IDENTITY, Vec3::ONE);
    assert!(clip(3, 4, p, q, s).is_ok());
    let nan = Vec3::new(0.0, f32::NAN, 0.0);
    let zero = Quat::new(0.0, 0.0, 0.0, 0.0);
    let long = Quat::new(1.001, 0.0, 0.0, 0.0);
    for (what, pos, rot, scl, reason) in [
        ("NaN position", nan, q, s, "position"),
        (
            "infinite position",
            Vec3::splat(f32::INFINITY),
            q,
            s,
            "position",
        ),
        ("zero quaternion", p, zero, s, "rotation"),
        (
            "NaN quaternion",
            p,
            Quat::new(f32::NAN, 0.0, 0.0, 0.0),
            s,
            "rotation",
        ),
        ("non-unit quaternion", p, long, s, "rotation"),
        ("zero scale", p, q, Vec3::new(1.0, 0.0, 1.0), "scale"),
        ("negative scale", p, q, Vec3::splat(-1.0), "scale"),
        ("NaN scale", p, q, nan, "scale"),
    ] {
        // The bad value only at frame 2, joint 3.
        let (frames, joints) = (3, 4);
        let n = frames * joints;
        let (mut ps, mut rs, mut ss) = (vec![p; n], vec![q; n], vec![s; n]);
        let i = 2 * joints + 3;
        (ps[i], rs[i], ss[i]) = (pos, rot, scl);
        let e = Clip::new(frames, joints, 0.01, ps, rs, ss).unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(
                e,
                Error::Clip {
                    frame: 2,
                    joint: 3,
                    ..
                }
            ),
            "{what}: {text}"
        );
        assert!(
            text.starts_with("clip frame 2 joint 3: ") && text.contains(reason),
            "{what}: {text}"
        );
    }
    // Within the stated tolerance a rotation is accepted as it is.
    let near = Quat::new(
        1.0 + 0.5 * kineform::clip::ROTATION_UNIT_TOLERANCE,
        0.0,
        0.0,
        0.0,
    );
    assert!(clip(2, 2, p, near, s).is_ok());
}

/// Issue 13, defect 2: a frame time that makes the clip length infinite
/// (`1e38 × 4`) panicked the crowd's random draw of a time in the clip; a
/// subnormal one made every sampled velocity infinite.
#[test]
fn clip_frame_times_that_break_the_clip_are_refused() {
    let n = 5;
    let make = |ft: f32| {
        Clip::new(
            5,
            1,
            ft,
            vec![Vec3::ZERO; n],
            vec![Quat::IDENTITY; n],
            vec![Vec3::ONE; n],
        )
    };
    for ft in [
        1e38,
        f32::MAX,
        1e-45,
        1e-7,
        0.0,
        -1.0,
        f32::NAN,
        f32::INFINITY,
    ] {
        let e = make(ft).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Parameter {
                    name: "frame_time",
                    ..
                }
            ),
            "{ft}: {e}"
        );
    }
    // Issue 21, defect 9: a clip may last at most 1e6 s, the longest time
    // a command can set.
    assert!(make(1e37).is_err() && make(2.6e5).is_err());
    assert!(make(2.5e5).is_ok());
    assert!(make(kineform::clip::MIN_FRAME_TIME).is_ok());
}

/// Issue 13, defects 4 and 9: `CrowdPose::new(usize::MAX, 64)` had zero
/// lanes (the size wrapped) and `op_fk` then panicked; `CrowdPose::new(
/// usize::MAX / 8, 3)` panicked "capacity overflow"; sizes that fit in
/// `usize` but not in memory aborted the process.
#[test]
fn crowd_pose_and_stream_sizes_are_checked_before_allocating() {
    use kineform::stream::{CrowdPose, F32Stream, KformStream, Vec3Stream};
    for (c, j) in [
        (usize::MAX, 64),
        (usize::MAX / 8, 3),
        (usize::MAX, usize::MAX),
        (1 << 40, 31),
        (31, 1 << 58),
    ] {
        let e = CrowdPose::new(c, j).unwrap_err();
        assert!(matches!(e, Error::Size { .. }), "{c} × {j}: {e}");
    }
    for n in [usize::MAX, usize::MAX / 8, 1 << 50] {
        assert!(matches!(F32Stream::new(n), Err(Error::Size { .. })), "{n}");
        assert!(
            matches!(KformStream::new(n), Err(Error::Size { .. })),
            "{n}"
        );
        assert!(matches!(Vec3Stream::new(n), Err(Error::Size { .. })), "{n}");
    }
    // Degenerate but valid shapes run without panicking, and their views
    // are made.
    let skel = kineform::Skeleton::new(vec![-1]).unwrap();
    for (c, j) in [(0, 1), (0, usize::MAX), (9, 1)] {
        let mut g = CrowdPose::new(c, j).unwrap();
        let l = CrowdPose::new(c, j).unwrap();
        let _ = kineform::batch::crowd::op_fk(&mut g, &l, &skel);
        let _ = kineform::batch::crowd::op_finite_diff(&mut g, &l, &l, 0.1);
        assert_eq!(g.packed().characters(), c);
    }
    // Zero joints is refused (2026-12-07, found by a review: `CrowdPose::
    // new(9, 0)` was accepted and its `packed()` panicked on the view's
    // own refusal of zero joints). Mutation caught: the refusal removed
    // from `lane_vec` (this unwrap_err panics).
    for c in [0, 9] {
        let e = CrowdPose::new(c, 0).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Length {
                    expected: 1,
                    got: 0,
                    ..
                }
            ),
            "{e}"
        );
        assert!(kineform::pose_stream::PoseStream::<kineform::lanes::PosRotx8>::new(c, 0).is_err());
    }
    // Crowd half-lives are sized as a crowd pose is (they were infallible:
    // `vec!` of a wrapped or enormous count).
    use kineform::stream::CrowdHalflives;
    for (c, j) in [(usize::MAX, 64), (1 << 40, 31), (31, 1 << 58)] {
        let e = CrowdHalflives::new(c, j).unwrap_err();
        assert!(matches!(e, Error::Size { .. }), "{c} × {j}: {e}");
    }
    assert_eq!(CrowdHalflives::new(9, 2).unwrap().packs(), 2);
}

fn stream(v: &[f32]) -> kineform::stream::F32Stream {
    kineform::stream::F32Stream::from_elems(v).unwrap()
}

fn all_finite(s: &[f32]) -> bool {
    s.iter().all(|x| x.is_finite())
}

/// Issue 13, defect 5: `tracking_spring_update_exact` with `gain_dt =
/// 1e-30` made every output NaN; now `gain_dt` outside `[1e-6, 1e6]` is
/// refused with the range, writing nothing.
#[test]
fn tracking_spring_exact_gain_dt_outside_its_range_is_refused() {
    use kineform::batch::tracking::{Gains, Targets, tracking_spring_update_exact};
    let (tx, tv, ta) = (stream(&[1.0; 9]), stream(&[0.5; 9]), stream(&[0.0; 9]));
    let t = Targets {
        x: &tx,
        v: &tv,
        a: &ta,
    };
    let g = Gains {
        x: 0.01,
        v: 0.2,
        a: 1.0,
    };
    for gain_dt in [1e-30, 1e-45, 1e-7, 3e38, f32::MAX] {
        let (mut x, mut v) = (stream(&[0.0; 9]), stream(&[0.0; 9]));
        let e =
            tracking_spring_update_exact(&mut x, &mut v, &t, g, 1.0 / 60.0, gain_dt).unwrap_err();
        assert!(e.to_string().contains("[1e-6, 1e6]"), "{gain_dt}: {e}");
        assert_eq!((x.to_vec(), v.to_vec()), (vec![0.0; 9], vec![0.0; 9]));
    }
    let (mut x, mut v) = (stream(&[0.0; 9]), stream(&[0.0; 9]));
    tracking_spring_update_exact(&mut x, &mut v, &t, g, 1.0 / 60.0, 1e-6).unwrap();
    assert!(all_finite(x.as_f32s()) && all_finite(v.as_f32s()));
}

/// Issue 13, defect 5: transition-cost features and displacements with a
/// half-life or blend time of 1e20 or more were infinite or NaN; they grow
/// with it, so above 1e6 s it is refused with the range.
#[test]
fn transition_costs_with_enormous_times_are_refused() {
    use kineform::batch::cost;
    use kineform::stream::Vec3Stream;
    let p = Vec3Stream::from_elems(&[Vec3::new(1.0, -2.0, 0.5); 9]).unwrap();
    let x = stream(&[1.0; 9]);
    for t in [1e20, 3e38, f32::MAX, 1.1e6] {
        let mut out = Vec3Stream::new(9).unwrap();
        let mut d = stream(&[0.0; 9]);
        for e in [
            cost::transition_features_spring(&mut out, &p, &p, t).unwrap_err(),
            cost::transition_features_cubic(&mut out, &p, &p, t).unwrap_err(),
            cost::decay_spring_damper_displacement(&mut d, &x, &x, t).unwrap_err(),
            cost::decay_cubic_displacement(&mut d, &x, &x, t).unwrap_err(),
        ] {
            assert!(e.to_string().contains("must be in [0, 1e6] s"), "{t}: {e}");
        }
    }
    let mut out = Vec3Stream::new(9).unwrap();
    cost::transition_features_spring(&mut out, &p, &p, 1e6).unwrap();
    assert!(all_finite(out.as_f32s()));
}

/// Issue 13, defect 5: `decay_spring_damper_exact` with `dt = f32::MAX`
/// gave NaN (`0 × ∞`); a spring stepped that far has settled, and all three
/// paths (batch, lanes, reference) now say so.
#[test]
fn decay_spring_damper_with_an_enormous_dt_has_settled() {
    use kineform::{batch, lanes, reference as r};
    for dt in [f32::MAX, 3e38, 1e30] {
        let (mut x, mut v) = (stream(&[5.0, -3.0, 100.0]), stream(&[2.0, 40.0, -100.0]));
        batch::decay_spring_damper_exact(&mut x, &mut v, 0.2, dt).unwrap();
        assert_eq!(
            (x.to_vec(), v.to_vec()),
            (vec![0.0; 3], vec![0.0; 3]),
            "{dt}"
        );
        assert_eq!(r::decay_spring_damper_exact(5.0, 2.0, 0.2, dt), (0.0, 0.0));
        let (lx, lv) = lanes::decay_spring_damper_exact(
            lanes::splat(5.0),
            lanes::splat(2.0),
            lanes::splat(0.2),
            lanes::splat(dt),
        );
        assert_eq!((lx.to_array(), lv.to_array()), ([0.0; 8], [0.0; 8]));
        let (q, w) = r::decay_spring_damper_exact_quat(
            r::quat_from_scaled_angle_axis(Vec3::new(0.3, 0.0, 0.1)),
            Vec3::new(1.0, 2.0, 3.0),
            0.2,
            dt,
        );
        assert_eq!((q, w), (Quat::IDENTITY, Vec3::ZERO));
    }
    // NaN still poisons its own element.
    assert!(
        r::decay_spring_damper_exact(f32::NAN, 2.0, 0.2, f32::MAX)
            .0
            .is_nan()
    );
}

/// Issue 13, defect 5: `op_finite_diff` with `dt = 1e-45` gave infinite
/// velocities; a non-zero step below 1e-6 s is refused with the range.
#[test]
fn finite_differences_with_a_subnormal_dt_are_refused() {
    use kineform::batch::crowd::op_finite_diff;
    use kineform::reference::Kform;
    use kineform::stream::CrowdPose;
    let mut a = CrowdPose::new(3, 2).unwrap();
    a.set(
        1,
        1,
        Kform {
            pos: Vec3::ONE,
            ..Kform::IDENTITY
        },
    );
    let b = CrowdPose::new(3, 2).unwrap();
    for dt in [1e-45, 1e-38, 1e-7] {
        let mut out = CrowdPose::new(3, 2).unwrap();
        let e = op_finite_diff(&mut out, &a, &b, dt).unwrap_err();
        assert!(e.to_string().contains("at least 1e-6 s"), "{dt}: {e}");
    }
    let mut out = CrowdPose::new(3, 2).unwrap();
    op_finite_diff(&mut out, &a, &b, 0.0).unwrap();
    op_finite_diff(&mut out, &a, &b, 1e-6).unwrap();
    assert!(all_finite(out.as_f32s()));
}

/// Issue 13, defect 5: `make_loop` with a blend time or half-life of
/// `f32::MAX` gave NaN offsets; now it is refused, naming the parameter and
/// the range. (A frame time of 1e-45 can no longer reach it: `Clip::new`
/// refuses frame times below 1e-6 s.)
#[test]
fn make_loop_with_enormous_times_is_refused_with_the_range() {
    use kineform::batch::looping::{LoopMethod, LoopOptions, make_loop};
    let clip = kineform::data::default_clip().clip;
    for v in [f32::MAX, 3e38, 2e6] {
        for method in [
            LoopMethod::Spring {
                halflife_start: v,
                halflife_end: 0.2,
            },
            LoopMethod::Cubic {
                blendtime_start: 0.2,
                blendtime_end: v,
            },
            LoopMethod::Linear {
                blendtime_start: v,
                blendtime_end: v,
            },
            LoopMethod::Softfade {
                blendtime: (0.2, 0.2),
                duration: (0.3, 0.3),
                hardness: (v, 2.0),
            },
        ] {
            let options = LoopOptions {
                method,
                ratio: 0.5,
                root_in_character_space: true,
            };
            let e = make_loop(&clip, &options).unwrap_err();
            assert!(
                matches!(e, Error::Parameter { .. }) && e.to_string().contains("at most 1e6"),
                "{method:?}: {e}"
            );
        }
    }
}

/// Issue 13, defect 9: the reference pose operators `assert!`ed on poses of
/// different lengths (and the procedural ones indexed past a pose); they
/// now return an error and write nothing.
#[test]
fn reference_pose_operators_refuse_mismatched_poses() {
    use kineform::reference::{self as r, Kform, Pose};
    let k = Kform {
        pos: Vec3::new(1.0, 2.0, 3.0),
        vel: Vec3::ONE,
        ..Kform::IDENTITY
    };
    let (p3, p2) = (Pose::from_kforms(&[k; 3]), Pose::new(2));
    let mut ragged = p3.clone();
    ragged.rot.pop();
    let parents = [-1, 0, 1];
    let before = Pose::new(3);
    let mut out = before.clone();
    // Each call on fresh outputs; a refusal must leave them as they were.
    macro_rules! refused {
        ($name:expr, |$o:ident, $x:ident| $call:expr) => {{
            let (mut $o, mut $x) = (before.clone(), before.clone());
            let _ = (&mut $o, &mut $x);
            let res: kineform::Result<()> = $call;
            assert!(
                matches!(res, Err(Error::Length { .. })),
                "{}: {res:?}",
                $name
            );
            assert!($o == before && $x == before, "{}: refused but wrote", $name);
        }};
    }
    refused!("op_blend", |o, x| r::op_blend(
        &mut o, &p3, &p2, 0.5, 0.0, 0.1
    ));
    refused!("op_blend_static", |o, x| r::op_blend_static(
        &mut o, &p2, &p3, 0.5
    ));
    refused!("op_additive_inplace", |o, x| r::op_additive_inplace(
        &mut o, &p2, 0.5, 0.0, 0.1
    ));
    refused!("op_additive_inplace_static", |o, x| {
        r::op_additive_inplace_static(&mut o, &ragged, 0.5, 0.1)
    });
    refused!("op_additive_local_inplace", |o, x| {
        r::op_additive_local_inplace(&mut o, &p2, 0.5, 0.0, 0.1)
    });
    refused!("op_additive_local_inplace_static", |o, x| {
        r::op_additive_local_inplace_static(&mut o, &p2, 0.5)
    });
    refused!("op_extrapolate_decayed", |o, x| r::op_extrapolate_decayed(
        &mut o, &p2, 0.1, 0.2
    ));
    let h3 = [r::Vec3::splat(0.2); 3];
    refused!("op_extrapolate_decayed_axes", |o, x| {
        r::op_extrapolate_decayed_axes(&mut o, &p2, &h3, &h3, 0.1)
    });
    refused!("op_extrapolate_decayed_axes (halflives_pos)", |o, x| {
        r::op_extrapolate_decayed_axes(&mut o, &p3, &h3[..2], &h3, 0.1)
    });
    refused!("op_extrapolate_decayed_axes (halflives_rot)", |o, x| {
        r::op_extrapolate_decayed_axes(&mut o, &p3, &h3, &h3[..2], 0.1)
    });
    refused!("op_dead_blending", |o, x| r::op_dead_blending(
        &mut o,
        &mut x,
        &mut [r::Quat::IDENTITY; 3],
        &p3,
        &p2,
        0.2,
        0.1,
        0.3,
        0.1
    ));
    refused!("op_dead_blending (transition)", |o, x| r::op_dead_blending(
        &mut o,
        &mut x,
        &mut [r::Quat::IDENTITY; 3],
        &p2,
        &p3,
        0.2,
        0.1,
        0.3,
        0.1
    ));
    refused!("op_inertialize_offset", |o, x| r::op_inertialize_offset(
        &mut o, &p3, &ragged
    ));
    refused!("op_inertialize", |o, x| r::op_inertialize(
        &mut o, &p2, &p3, 0.1, 0.3
    ));
    refused!("op_fk", |o, x| r::op_fk(&mut o, &p2, &parents));
    refused!("op_fk_static", |o, x| r::op_fk_static(
        &mut o, &ragged, &parents
    ));
    refused!("op_bk", |o, x| r::op_bk(&mut o, &p2, &parents));
    refused!("op_finite_diff", |o, x| r::op_finite_diff(
        &mut o, &p3, &p2, 0.1
    ));
    refused!("op_finite_diff_inplace", |o, x| r::op_finite_diff_inplace(
        &mut o, &p2, 0.1
    ));
    refused!("op_extrapolate_prev", |o, x| r::op_extrapolate_prev(
        &mut o, &p2, 0.1
    ));
    refused!("op_lookat", |o, x| r::op_lookat(
        &mut o,
        &p3,
        7,
        Vec3::ONE,
        Vec3::ZERO,
        Vec3::ONE
    ));
    refused!("op_lookat_static", |o, x| r::op_lookat_static(
        &mut o,
        &p2,
        2,
        Vec3::ONE,
        Vec3::ONE
    ));
    refused!("op_two_bone_ik_static", |o, x| r::op_two_bone_ik_static(
        &mut o,
        &p3,
        &parents,
        [0, 1, 5],
        Vec3::ONE,
        Vec3::ONE,
        0.01
    ));
    let e = r::op_fk(&mut out, &p3, &[-1, 2, 1]).unwrap_err();
    assert!(matches!(e, Error::Skeleton { joint: 1, .. }), "{e}");
    let (mut a, mut b, mut c) = (p3.clone(), p3.clone(), p3.clone());
    let e = r::op_two_bone_ik(
        &mut out,
        &mut a,
        &mut b,
        &mut c,
        &[-1, 0],
        [0, 1, 2],
        Vec3::ONE,
        Vec3::ZERO,
        0.01,
    );
    assert!(matches!(e, Err(Error::Length { .. })), "{e:?}");
    assert_eq!(out, before);
    // Matching poses are accepted.
    r::op_fk(&mut out, &p3, &parents).unwrap();
}

/// Found by the batch_api fuzz target: `tracking_spring_update_exact` with
/// `dt = 1e6` and `gain_dt = 1e-6` (both accepted) gave infinity. The
/// under-damped spring's phase `w dt` was 6.6e11, past the range where the
/// lane `sin_cos` reduces its argument (|x| ~ 3.4e9, where the quadrant
/// overflows i32), and its polynomials returned infinities. `sin_cos` now
/// stays on the unit circle for every finite argument.
#[test]
fn lane_sin_cos_of_huge_arguments_stays_finite() {
    use kineform::batch::tracking::{Gains, Targets, tracking_spring_update_exact};
    use kineform::lanes::{F32x8, sin_cos};
    let x = F32x8::new([
        6.6e11,
        1e38,
        f32::MAX,
        3.5e9,
        -1e20,
        -f32::MAX,
        2.2e10,
        1e12,
    ]);
    let (s, c) = sin_cos(x);
    for (s, c) in s.to_array().into_iter().zip(c.to_array()) {
        assert!((s * s + c * c - 1.0).abs() < 1e-5, "sin {s} cos {c}");
    }
    let (tx, tv, ta) = (stream(&[50.0; 9]), stream(&[-20.0; 9]), stream(&[3.0; 9]));
    let t = Targets {
        x: &tx,
        v: &tv,
        a: &ta,
    };
    let g = Gains {
        x: 0.5,
        v: 0.0,
        a: 1e-38,
    };
    let (mut x, mut v) = (stream(&[-70.0; 9]), stream(&[90.0; 9]));
    tracking_spring_update_exact(&mut x, &mut v, &t, g, 1e6, 1e-6).unwrap();
    assert!(
        all_finite(x.as_f32s()) && all_finite(v.as_f32s()),
        "{:?} {:?}",
        x.to_vec(),
        v.to_vec()
    );
}
