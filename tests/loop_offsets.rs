//! One-frame loops (issue 14): a clip of one frame is both its start and
//! its end (reference-math.md, "Repository-only functions"), so every
//! offset function gives the value the formulas give with the one frame at
//! both ends, finite, in both paths; the differences of a one-frame clip
//! are zero; `make_loop` still refuses a one-frame clip with a typed error.

#![allow(clippy::needless_range_loop)] // lanes and reference side by side

use kineform::batch::looping::{LoopMethod, LoopOptions, make_loop};
use kineform::lanes::{self, Quatx8, Vec3x8};
use kineform::reference::{self as r, Quat, Slice2d, Vec3};

const COLS: usize = 16;

/// Joints `8k + i` into lane `i` of pack `k`.
fn to8(a: &[Vec3]) -> Vec<Vec3x8> {
    a.chunks(8)
        .map(|c| Vec3x8::from_array(core::array::from_fn(|i| c[i])))
        .collect()
}

fn un8(a: &[Vec3x8]) -> Vec<Vec3> {
    a.iter().flat_map(|v| v.to_array()).collect()
}

fn finite(v: Vec3) -> bool {
    v.to_array().iter().all(|x| x.is_finite())
}

#[test]
fn one_frame_loops_give_finite_offsets_in_both_paths() {
    // reference-math.md: one row is both the start and the end; the linear
    // fade's i / (rows - 1) is taken as 0.
    let dp: Vec<Vec3> = (0..COLS)
        .map(|j| Vec3::new(j as f32 - 7.0, 0.5, -2.0))
        .collect();
    let dv: Vec<Vec3> = (0..COLS)
        .map(|j| Vec3::new(1.0, -(j as f32), 3.0))
        .collect();
    let (h, ratio, dt) = (0.2, 0.3, 1.0 / 30.0);
    let (dp8, dv8) = (to8(&dp), to8(&dv));
    type RefOffsets = fn(&mut [Vec3], &[Vec3], &[Vec3], f32, f32, f32, f32);
    type LaneOffsets = fn(&mut [Vec3x8], &[Vec3x8], &[Vec3x8], f32, f32, f32, f32);
    // (name, reference, lanes, expected offset of joint j)
    let two_sided: [(&str, RefOffsets, LaneOffsets, f32); 3] = [
        (
            "compute_inertialize_both_offsets",
            r::compute_inertialize_both_offsets,
            lanes::compute_inertialize_both_offsets,
            2.0 * ratio - 1.0,
        ),
        (
            "compute_inertialize_both_offsets_cubic",
            r::compute_inertialize_both_offsets_cubic,
            lanes::compute_inertialize_both_offsets_cubic,
            2.0 * ratio - 1.0,
        ),
        (
            "compute_linear_inertialize_offsets",
            r::compute_linear_inertialize_offsets,
            lanes::compute_linear_inertialize_offsets,
            ratio,
        ),
    ];
    let mut results: Vec<(&str, Vec<Vec3>, Vec<Vec3>, f32)> = Vec::new();
    for (name, rf, lf, share) in two_sided {
        let mut o = vec![Vec3::ZERO; COLS];
        rf(&mut o, &dp, &dv, h, h, ratio, dt);
        let mut o8 = vec![Vec3x8::ZERO; 2];
        lf(&mut o8, &dp8, &dv8, h, h, ratio, dt);
        results.push((name, o, un8(&o8), share));
    }
    let mut o = vec![Vec3::ZERO; COLS];
    r::compute_softfade_inertialize_offsets(&mut o, &dp, &dv, h, h, h, h, 4.0, 4.0, ratio, dt);
    let mut o8 = vec![Vec3x8::ZERO; 2];
    lanes::compute_softfade_inertialize_offsets(
        &mut o8, &dp8, &dv8, h, h, h, h, 4.0, 4.0, ratio, dt,
    );
    // softfade(0, 4) = ln(1 + e^4) / 4 at both ends.
    let sf0 = r::softfade(0.0, 4.0);
    results.push((
        "compute_softfade_inertialize_offsets",
        o,
        un8(&o8),
        sf0 * (2.0 * ratio - 1.0),
    ));
    for (name, want_ref, want_lanes, share) in &results {
        for j in 0..COLS {
            for (path, got) in [("reference", want_ref[j]), ("lanes", want_lanes[j])] {
                assert!(finite(got), "{name} {path} joint {j}: {got:?}");
                let want = dp[j] * *share;
                assert!(
                    r::length(got - want) <= 1e-5 * (1.0 + r::length(want)),
                    "{name} {path} joint {j}: {got:?}, want {want:?}"
                );
            }
        }
    }
}

#[test]
fn one_frame_differences_are_zero_in_both_paths() {
    // The one frame is both ends: no positional or velocity difference.
    let pos: Vec<Vec3> = (0..COLS).map(|j| Vec3::new(j as f32, 1.0, -3.0)).collect();
    let rot: Vec<Quat> = (0..COLS)
        .map(|j| r::quat_from_scaled_angle_axis(Vec3::new(0.1 * j as f32, -0.7, 2.0)))
        .collect();
    let (p, q) = (
        Slice2d::new(&pos, COLS).unwrap(),
        Slice2d::new(&rot, COLS).unwrap(),
    );
    let p8 = to8(&pos);
    let q8: Vec<Quatx8> = rot
        .chunks(8)
        .map(|c| Quatx8::from_array(core::array::from_fn(|i| c[i])))
        .collect();
    let (p8s, q8s) = (Slice2d::new(&p8, 2).unwrap(), Slice2d::new(&q8, 2).unwrap());
    let dt = 1.0 / 30.0;
    let z = || vec![Vec3::ZERO; COLS];
    let z8 = || vec![Vec3x8::ZERO; 2];
    let mut outs: Vec<(&str, Vec<Vec3>)> = Vec::new();
    let (mut a, mut b) = (z(), z());
    r::compute_start_end_positional_difference(&mut a, &mut b, p, dt);
    outs.extend([("positional diff_pos", a), ("positional diff_vel", b)]);
    let (mut a, mut b) = (z(), z());
    r::compute_start_end_rotational_difference(&mut a, &mut b, q, dt);
    outs.extend([("rotational diff_rot", a), ("rotational diff_vel", b)]);
    let (mut a, mut b) = (z(), z());
    r::compute_softfade_start_end_difference(&mut a, &mut b, p, 0.2, 0.3, 4.0, 5.0, 0.3, dt);
    outs.extend([("softfade diff_pos", a), ("softfade diff_vel", b)]);
    let (mut a, mut b) = (z(), z());
    r::compute_softfade_start_end_difference_quat(&mut a, &mut b, q, 0.2, 0.3, 4.0, 5.0, 0.3, dt);
    outs.extend([("softfade diff_rot", a), ("softfade diff_rot_vel", b)]);
    let (mut a, mut b) = (z8(), z8());
    lanes::compute_start_end_positional_difference(&mut a, &mut b, p8s, dt);
    outs.extend([
        ("lanes positional diff_pos", un8(&a)),
        ("lanes positional diff_vel", un8(&b)),
    ]);
    let (mut a, mut b) = (z8(), z8());
    lanes::compute_start_end_rotational_difference(&mut a, &mut b, q8s, dt);
    outs.extend([
        ("lanes rotational diff_rot", un8(&a)),
        ("lanes rotational diff_vel", un8(&b)),
    ]);
    let (mut a, mut b) = (z8(), z8());
    lanes::compute_softfade_start_end_difference(&mut a, &mut b, p8s, 0.2, 0.3, 4.0, 5.0, 0.3, dt);
    outs.extend([
        ("lanes softfade diff_pos", un8(&a)),
        ("lanes softfade diff_vel", un8(&b)),
    ]);
    let (mut a, mut b) = (z8(), z8());
    lanes::compute_softfade_start_end_difference_quat(
        &mut a, &mut b, q8s, 0.2, 0.3, 4.0, 5.0, 0.3, dt,
    );
    outs.extend([
        ("lanes softfade diff_rot", un8(&a)),
        ("lanes softfade diff_rot_vel", un8(&b)),
    ]);
    // The root of a one-frame clip gets zero offsets.
    let (mut rp, mut rr) = (z(), z());
    r::compute_root_inertialize_offsets(&mut rp, &mut rr, p, q, 0.2, 0.2, 0.5, dt);
    outs.extend([("root pos offsets", rp), ("root rot offsets", rr)]);
    let roots_p = vec![Vec3x8::splat(pos[0])];
    let roots_q = vec![Quatx8::splat(rot[0])];
    let (mut rp8, mut rr8) = (vec![Vec3x8::ZERO], vec![Vec3x8::ZERO]);
    lanes::compute_root_inertialize_offsets(
        &mut rp8,
        &mut rr8,
        Slice2d::new(&roots_p, 1).unwrap(),
        Slice2d::new(&roots_q, 1).unwrap(),
        0.2,
        0.2,
        0.5,
        dt,
    );
    outs.extend([
        ("lanes root pos offsets", un8(&rp8)),
        ("lanes root rot offsets", un8(&rr8)),
    ]);
    for (name, v) in outs {
        for (j, d) in v.iter().enumerate() {
            // A rotation's difference with itself: |log(q q⁻¹)| is rounding.
            assert!(r::length(*d) <= 1e-6, "{name} joint {j}: {d:?}");
        }
    }
}

/// Three joints moving smoothly (120 fps): a drift, a slow wave, a turn.
fn clip(frames: usize) -> kineform::Clip {
    let at = |k: usize| (k / 3, (k % 3) as f32);
    let pos: Vec<Vec3> = (0..frames * 3)
        .map(|k| {
            let (f, j) = at(k);
            let t = f as f32 / 120.0;
            Vec3::new(0.2 * t * (1.0 + j), (2.0 * t + j).sin(), 1.0)
        })
        .collect();
    let rot: Vec<Quat> = (0..frames * 3)
        .map(|k| {
            let (f, j) = at(k);
            let t = f as f32 / 120.0;
            r::quat_from_scaled_angle_axis(Vec3::new(0.5 * t, 0.2 * j, (t + j).cos()))
        })
        .collect();
    kineform::Clip::new(
        frames,
        3,
        1.0 / 120.0,
        pos,
        rot,
        vec![Vec3::ONE; frames * 3],
    )
    .unwrap()
}

#[test]
fn make_loop_refuses_a_one_frame_clip_with_a_typed_error() {
    for method in [
        LoopMethod::Spring {
            halflife_start: 0.2,
            halflife_end: 0.2,
        },
        LoopMethod::Cubic {
            blendtime_start: 0.2,
            blendtime_end: 0.2,
        },
    ] {
        let opts = LoopOptions {
            method,
            ratio: 0.5,
            root_in_character_space: false,
        };
        assert_eq!(
            make_loop(&clip(1), &opts).unwrap_err(),
            kineform::Error::Length {
                what: "clip frames (a loop needs at least 3)",
                expected: 3,
                got: 1
            }
        );
        assert!(make_loop(&clip(3), &opts).is_ok());
    }
}
