//! Loop offsets on real motion capture (looping article): a one-second
//! stretch of the CMU walk (frames 100..220 of 12_01, 120 fps), every
//! joint's local rotation looped by each method, and the root looped in
//! character space. Checked: the first and last frames meet, and the angular
//! velocity across the seam (last frame's backward difference vs first
//! frame's forward difference) matches, relative to how much the velocity
//! changes from frame to frame inside the clip.

use kineform::lanes::{self, Quatx8, Vec3x8};
use kineform::reference::{self as r, Quat, Slice2d, Vec3};

struct Walk {
    rot: Vec<Quat>,
    pos: Vec<Vec3>,
    joints: usize,
    frames: usize,
    dt: f32,
}

fn walk() -> Walk {
    let b = kineform::bvh::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mocap/cmu_12_01_walk_mb.bvh"
    ))
    .unwrap();
    let (c, j) = (&b.clip, b.clip.joints());
    let (from, to) = (100, 220);
    Walk {
        rot: (from..to)
            .flat_map(|f| (0..j).map(move |k| c.rot(f, k).unwrap()))
            .collect(),
        pos: (from..to)
            .flat_map(|f| (0..j).map(move |k| c.pos(f, k).unwrap()))
            .collect(),
        joints: j,
        frames: to - from,
        dt: c.frame_time(),
    }
}

fn angle(a: Quat, b: Quat) -> f32 {
    r::length(r::quat_to_scaled_angle_axis(r::quat_abs(r::quat_mul_inv(
        a, b,
    ))))
}

/// (largest first-vs-last frame angle over joints, largest ratio over
/// joints of the seam's angular velocity mismatch to that joint's 95th
/// percentile frame-to-frame velocity change inside the clip). A ratio
/// below 1 means the seam is no rougher than the motion itself.
fn seam(rot: &[Quat], w: &Walk) -> (f32, f32) {
    let (n, j, dt) = (w.frames, w.joints, w.dt);
    let at = |f: usize, k: usize| rot[f * j + k];
    let vel =
        |f: usize, k: usize| r::quat_differentiate_angular_velocity(at(f + 1, k), at(f, k), dt);
    let (mut gap, mut ratio) = (0.0f32, 0.0f32);
    for k in 0..j {
        gap = gap.max(angle(at(0, k), at(n - 1, k)));
        let mut changes: Vec<f32> = (0..n - 2)
            .map(|f| r::length(vel(f + 1, k) - vel(f, k)))
            .collect();
        changes.sort_by(f32::total_cmp);
        let p95 = changes[changes.len() * 95 / 100].max(1e-3);
        ratio = ratio.max(r::length(vel(n - 2, k) - vel(0, k)) / p95);
    }
    (gap, ratio)
}

/// Softfade parameters: durations, hardnesses (start, end) and ratio.
const SF_DUR: (f32, f32) = (0.2, 0.4);
const SF_HARD: (f32, f32) = (4.0, 10.0);
const SF_RATIO: f32 = 0.3;

fn loop_rotations(w: &Walk, method: &str) -> Vec<Quat> {
    let (j, n, dt) = (w.joints, w.frames, w.dt);
    let rot = Slice2d::new(&w.rot, j).unwrap();
    let (mut d, mut dv) = (vec![Vec3::ZERO; j], vec![Vec3::ZERO; j]);
    let mut off = vec![Vec3::ZERO; n * j];
    match method {
        "cubic" => {
            r::compute_start_end_rotational_difference(&mut d, &mut dv, rot, dt).unwrap();
            r::compute_inertialize_both_offsets_cubic(&mut off, &d, &dv, 0.25, 0.25, 0.5, dt)
                .unwrap();
        }
        "linear" => {
            r::compute_start_end_rotational_difference(&mut d, &mut dv, rot, dt).unwrap();
            r::compute_linear_inertialize_offsets(&mut off, &d, &dv, 0.25, 0.25, 0.5, dt).unwrap();
        }
        "softfade" => {
            // Asymmetric on purpose: with equal ends the fade gradients cancel
            // in the velocity difference, whichever way they are paired.
            r::compute_softfade_start_end_difference_quat(
                &mut d, &mut dv, rot, SF_DUR.0, SF_DUR.1, SF_HARD.0, SF_HARD.1, SF_RATIO, dt,
            )
            .unwrap();
            r::compute_softfade_inertialize_offsets(
                &mut off, &d, &dv, 0.25, 0.25, SF_DUR.0, SF_DUR.1, SF_HARD.0, SF_HARD.1, SF_RATIO,
                dt,
            )
            .unwrap();
        }
        _ => unreachable!(),
    }
    let mut out = vec![Quat::IDENTITY; n * j];
    r::apply_rotational_offsets(&mut out, rot, &off).unwrap();
    out
}

#[test]
fn cubic_and_linear_methods_close_the_loop() {
    let w = walk();
    let (gap0, ratio0) = seam(&w.rot, &w);
    // Measured on the raw clip: 0.82 rad apart, seam ratio 1.51.
    assert!(
        gap0 > 0.5 && ratio0 > 1.0,
        "the raw clip already loops ({gap0}, {ratio0})"
    );
    for method in ["cubic", "linear"] {
        let (gap, ratio) = seam(&loop_rotations(&w, method), &w);
        // The rotations meet to f32 precision (each joint's offset turns
        // about one axis). Measured 0 to 1e-7 rad.
        assert!(
            gap < 1e-5,
            "{method}: first and last frames differ by {gap} rad"
        );
        // Measured ratio 0.34 for both: what remains is the one-frame
        // finite difference of the velocity offset itself (its slope
        // changes by about 4 dt / blendtime = 13% over a frame).
        assert!(ratio < 0.5, "{method}: seam ratio {ratio}");
    }
}

#[test]
fn softfade_method_closes_the_loop() {
    // With the corrected velocity difference (see
    // compute_softfade_start_end_difference). The fade reaches its ends only
    // to within softfade(1) = ln(1 + e^-h) / h of the difference (4.5e-3
    // at h = 4, of up to 0.8 rad here). Measured gap 1.1e-3 rad, ratio 0.34.
    let w = walk();
    let (gap, ratio) = seam(&loop_rotations(&w, "softfade"), &w);
    assert!(
        gap < 3e-3,
        "softfade: first and last frames differ by {gap} rad"
    );
    assert!(ratio < 0.5, "softfade: seam ratio {ratio}");
}

#[test]
fn root_method_loops_the_root_in_character_space() {
    let w = walk();
    let (j, n, dt) = (w.joints, w.frames, w.dt);
    let (pos, rot) = (
        Slice2d::new(&w.pos, j).unwrap(),
        Slice2d::new(&w.rot, j).unwrap(),
    );
    let (mut op, mut or) = (vec![Vec3::ZERO; n * j], vec![Vec3::ZERO; n * j]);
    r::compute_root_inertialize_offsets(&mut op, &mut or, pos, rot, 0.25, 0.25, 0.5, dt).unwrap();
    let (mut p2, mut q2) = (vec![Vec3::ZERO; n * j], vec![Quat::IDENTITY; n * j]);
    r::apply_positional_offsets(&mut p2, pos, &op).unwrap();
    r::apply_rotational_offsets(&mut q2, rot, &or).unwrap();
    // Root linear and angular velocity in the root's own frame, at each end.
    let char_vel = |p: &[Vec3], q: &[Quat], f: usize| {
        let v = (p[(f + 1) * j] - p[f * j]) / dt;
        let w = r::quat_differentiate_angular_velocity(q[(f + 1) * j], q[f * j], dt);
        (
            r::quat_inv_mul_vec3(q[f * j], v),
            r::quat_inv_mul_vec3(q[f * j], w),
        )
    };
    let jump = |p: &[Vec3], q: &[Quat]| {
        let (vs, ws) = char_vel(p, q, 0);
        let (ve, we) = char_vel(p, q, n - 2);
        (r::length(ve - vs), r::length(we - ws))
    };
    let (before_v, before_w) = jump(&w.pos, &w.rot);
    let (after_v, after_w) = jump(&p2, &q2);
    // Measured: linear 5.04 -> 0.38 units/s (the root moves at about 15),
    // angular 0.46 -> 0.03 rad/s.
    assert!(
        before_v > 1.0,
        "the raw clip's root already loops ({before_v})"
    );
    assert!(
        after_v < 0.1 * before_v,
        "linear velocity jump {after_v} (was {before_v})"
    );
    assert!(
        after_w < 0.1 * before_w.max(0.1),
        "angular velocity jump {after_w} (was {before_w})"
    );
}

#[test]
fn lanes_loop_eight_joints_at_a_time_like_the_reference() {
    let w = walk();
    let (j, n, dt) = (w.joints, w.frames, w.dt);
    // Joints padded to whole packs of eight with identity rotations.
    let packs = j.div_ceil(8);
    let rot8: Vec<Quatx8> = (0..n)
        .flat_map(|f| (0..packs).map(move |p| (f, p)))
        .map(|(f, p)| {
            Quatx8::from_array(core::array::from_fn(|i| {
                if p * 8 + i < j {
                    w.rot[f * j + p * 8 + i]
                } else {
                    Quat::IDENTITY
                }
            }))
        })
        .collect();
    let rot8 = Slice2d::new(&rot8, packs).unwrap();
    let (mut d8, mut dv8) = (vec![Vec3x8::ZERO; packs], vec![Vec3x8::ZERO; packs]);
    lanes::compute_start_end_rotational_difference(&mut d8, &mut dv8, rot8, dt).unwrap();
    let mut off8 = vec![Vec3x8::ZERO; n * packs];
    lanes::compute_inertialize_both_offsets_cubic(&mut off8, &d8, &dv8, 0.25, 0.25, 0.5, dt)
        .unwrap();
    let mut out8 = vec![Quatx8::IDENTITY; n * packs];
    lanes::apply_rotational_offsets(&mut out8, rot8, &off8).unwrap();
    let want = loop_rotations(&w, "cubic");
    for f in 0..n {
        for k in 0..j {
            let got = out8[f * packs + k / 8].lane(k % 8);
            assert!(angle(got, want[f * j + k]) < 2e-5, "frame {f} joint {k}");
        }
    }
}

#[test]
fn published_softfade_difference_leaves_a_velocity_seam() {
    // The published compute_softfade_start_end_difference adds the start
    // fade's gradient to the end velocity and the end fade's to the start
    // velocity, each times dt. With the same offsets the seam stays rough.
    let w = walk();
    let (j, n, dt) = (w.joints, w.frames, w.dt);
    let rot = Slice2d::new(&w.rot, j).unwrap();
    let (mut d, mut dv) = (vec![Vec3::ZERO; j], vec![Vec3::ZERO; j]);
    r::compute_start_end_rotational_difference(&mut d, &mut dv, rot, dt).unwrap();
    for k in 0..j {
        let end = r::decayed_offset_softfade_grad_zero(SF_RATIO * d[k], SF_DUR.0, SF_HARD.0) * dt;
        let start =
            r::decayed_offset_softfade_grad_zero((1.0 - SF_RATIO) * d[k], SF_DUR.1, SF_HARD.1) * dt;
        dv[k] = dv[k] + end - start;
    }
    let mut off = vec![Vec3::ZERO; n * j];
    r::compute_softfade_inertialize_offsets(
        &mut off, &d, &dv, 0.25, 0.25, SF_DUR.0, SF_DUR.1, SF_HARD.0, SF_HARD.1, SF_RATIO, dt,
    )
    .unwrap();
    let mut out = vec![Quat::IDENTITY; n * j];
    r::apply_rotational_offsets(&mut out, rot, &off).unwrap();
    let (_, published) = seam(&out, &w);
    let (_, corrected) = seam(&loop_rotations(&w, "softfade"), &w);
    // Measured: published 0.70, corrected 0.34 (as good as the cubic method).
    assert!(
        published > 1.8 * corrected,
        "published {published} vs corrected {corrected}"
    );
}
