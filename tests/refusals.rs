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
    assert!(make(1e37).is_ok());
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
    // Degenerate but valid shapes run without panicking.
    let skel = kineform::Skeleton::new(vec![-1]).unwrap();
    for (c, j) in [(0, 1), (0, usize::MAX), (9, 0)] {
        let mut g = CrowdPose::new(c, j).unwrap();
        let l = CrowdPose::new(c, j).unwrap();
        let _ = kineform::batch::crowd::op_fk(&mut g, &l, &skel);
        let _ = kineform::batch::crowd::op_finite_diff(&mut g, &l, &l, 0.1);
    }
}
