//! What the readers show of a carried pack, and the reference crowd's
//! matrix readers against its pose and the lanes crowd's.

use super::*;

/// A pack none of whose characters is due costs its step nothing per
/// joint: the step leaves its world rows (its characters' anchors) as
/// they were, and every reader shows the carried pose, made when it is
/// read: the `*_into` readers agree with `world_kform` joint by joint (bit
/// for bit, the same code), the boxes hold it, and it moves along its
/// velocities between steps. Writing the carried pose in the step
/// (mutation) changes the rows and fails the first assertion; readers
/// that show the rows as they are (mutation: `Carried::of` always `None`)
/// fail the one on moving along the velocities.
#[test]
fn a_carried_pack_costs_its_step_nothing_per_joint_and_reads_carried() {
    let library = embedded();
    let n = 13; // pack 1 has 5 characters: lanes past the last are never read
    let joints = library.skeleton().len() + 1;
    let cfg = CrowdConfig {
        joint_radii: vec![2.0; joints - 1],
        ..lod_cfg(n)
    };
    let mut crowd = Crowd::new(&library, cfg).unwrap();
    for c in 0..n {
        crowd
            .play(
                c,
                Source::looping(0, 0.1 * c as f32),
                Source::looping(0, 0.0),
            )
            .unwrap();
        // Pack 0 every 4th step (phase 0), pack 1 every step.
        crowd.set_period(c, if c < 8 { 4 } else { 1 }, 0).unwrap();
    }
    let dt = 1.0 / 60.0;
    let bind = some_bind(crowd.skeleton());
    let mut prev: Option<Vec<Kform>> = None;
    for step in 0..12 {
        let rows_before: Vec<u32> = bytemuck::cast_slice(&crowd.world()[..joints]).to_vec();
        crowd.step(dt).unwrap();
        let carried = step % 4 != 0 && step > 0;
        if carried {
            let rows: &[u32] = bytemuck::cast_slice(&crowd.world()[..joints]);
            assert!(
                rows == &rows_before[..],
                "step {step} wrote a carried pack's rows"
            );
        }
        let shown: Vec<Kform> = (0..n)
            .flat_map(|c| (0..joints).map(move |j| (c, j)))
            .map(|(c, j)| crowd.world_kform(c, j).unwrap())
            .collect();
        let mut pos = vec![[0.0f32; 3]; n * joints];
        let mut vel = vec![[0.0f32; 3]; n * joints];
        let mut ang = vec![[0.0f32; 3]; n * joints];
        let mut rot = vec![[0.0f32; 4]; n * joints];
        crowd.positions_into(0..n, &mut pos).unwrap();
        crowd.velocities_into(0..n, &mut vel).unwrap();
        crowd.angular_velocities_into(0..n, &mut ang).unwrap();
        crowd.rotations_into(0..n, &mut rot).unwrap();
        let mut one = vec![[0.0f32; 3]; 3 * joints];
        crowd.positions_into(2..5, &mut one).unwrap();
        for (i, k) in shown.iter().enumerate() {
            let q = [k.rot.x, k.rot.y, k.rot.z, k.rot.w];
            let v3 = |v: Vec3| [v.x, v.y, v.z];
            assert_eq!(
                (pos[i], vel[i], ang[i]),
                (v3(k.pos), v3(k.vel), v3(k.ang)),
                "{i}"
            );
            assert_eq!(rot[i], q, "step {step}, joint-character {i}");
        }
        assert_eq!(&one[..], &pos[2 * joints..5 * joints]);
        // The matrix readers show the same pose (pack 0 carried, and with
        // its offset running after the resumption at step 4).
        check_matrices(&crowd, 0..n, &bind);
        check_matrices(&crowd, 2..11, &bind);
        let mut boxes = vec![kineform::crowd::Aabb::ZERO; n];
        crowd.bounds_into(0..n, &mut boxes).unwrap();
        for c in 0..n {
            assert_eq!(Some(boxes[c]), crowd.bounds(c));
            // The box a resuming step made from the carried pose holds the
            // pose readers make from the anchor and the whole offset (the
            // same, to rounding).
            let slack = Vec3::splat(1e-3);
            let held = kineform::crowd::Aabb {
                min: boxes[c].min - slack,
                max: boxes[c].max + slack,
            };
            for j in 1..joints {
                let p = shown[c * joints + j].pos;
                assert!(held.contains(p), "step {step}: {c} {j}");
            }
        }
        // Carried before any offset runs (steps 1 to 3): along velocities.
        if let (Some(prev), true) = (&prev, carried && step < 4) {
            for (a, b) in prev.iter().zip(&shown).take(8 * joints) {
                let moved = (b.pos - a.pos) - a.vel * dt;
                assert!(
                    r::length(moved) < 1e-3 * (1.0 + r::length(a.pos)),
                    "{a:?} {b:?}"
                );
            }
        }
        prev = Some(shown.clone());
    }
}

/// The reference crowd's matrix readers show its own world pose
/// (`world_kform`: transforms as `kform_matrix` of the unit-scale pose,
/// skinning matrices as `skin_matrix`, bit for bit, in the layout of each
/// type), and agree with the lanes crowd's under mixed periods and
/// transitions, carried packs among them. Tolerances from the crowds'
/// stated ones (`tests/suite/crowd/`): rotations agree to `1 - |q·q'|
/// <= 1e-5`, so `|q - q'| <= sqrt(2e-5)` for the nearer sign, and an
/// entry of the rotation matrix moves at most `4 |dq|` (`rot`); positions
/// to `2e-4 + 2e-6 |p|` (`pos`). A transform's entries take those; a
/// skinning matrix's entry `(r, c)` is `Σ_k W[r][k] B[k][c]` (plus `W[r][3]`
/// in column 3) of the world transform `W` and the inverse bind `B`, so
/// it takes `rot Σ_k |B[k][c]|` (plus `pos` in column 3) and 1e-5 for the
/// lanes' fused multiply-adds against the scalar's products. Both refuse
/// what the other refuses, writing nothing ([`matrix_refusals`]).
#[test]
fn reference_matrices_are_its_pose_and_the_lanes_crowds() {
    use kineform::skinning::{self, SkinMatrix};
    let n = 21;
    let (mut lanes, mut reference) = periods_mixed(lod_cfg(n));
    let joints = lanes.skeleton().len();
    let bind = some_bind(lanes.skeleton());
    let (range, rot) = (3..n, 4.0 * 2e-5f32.sqrt());
    let m = range.len() * joints;
    for f in 0..30 {
        step_mixed(&mut lanes, &mut reference, f);
        let (mut tl, mut tr) = (vec![[0.0f32; 16]; m], vec![[0.0f32; 16]; m]);
        let (mut sl, mut s12, mut s16) = (
            vec![[0.0f32; 12]; m],
            vec![[0.0f32; 12]; m],
            vec![[0.0f32; 16]; m],
        );
        lanes.transforms_into(range.clone(), &mut tl).unwrap();
        reference.transforms_into(range.clone(), &mut tr).unwrap();
        lanes
            .skinning_matrices_into(range.clone(), &bind, &mut sl)
            .unwrap();
        reference
            .skinning_matrices_into(range.clone(), &bind, &mut s12)
            .unwrap();
        reference
            .skinning_matrices_into(range.clone(), &bind, &mut s16)
            .unwrap();
        for (k, c) in range.clone().enumerate() {
            for j in 0..joints {
                let i = k * joints + j;
                let w = reference.world_kform(c, j).unwrap();
                let at = format!("step {f}, character {c}, joint {j}");
                let unit = Kform {
                    pos: w.pos,
                    rot: w.rot,
                    ..Kform::IDENTITY
                };
                assert_eq!(tr[i], skinning::kform_matrix(&unit), "{at}");
                let rows = skinning::skin_matrix(&unit, &bind.as_rows()[j]);
                assert_eq!(s12[i], rows, "{at}");
                assert_eq!(s16[i], <[f32; 16]>::from_lanes(&rows.map(|e| [e; 8]), 0));
                let pos = 2e-4 + 2e-6 * r::length(w.pos);
                crowds_agree(
                    (&tl[i], &tr[i]),
                    (&sl[i], &s12[i]),
                    &bind.as_rows()[j],
                    (rot, pos),
                    &at,
                );
            }
        }
    }
    matrix_refusals(&lanes, &reference, &bind);
}

/// One joint's transforms `t` and skinning matrices `s` (lanes, reference)
/// within `(rot, pos)` as [`reference_matrices_are_its_pose_and_the_lanes_crowds`]
/// derives them, the skinning's through the inverse bind rows `b`.
fn crowds_agree(
    t: (&[f32; 16], &[f32; 16]),
    s: (&[f32; 12], &[f32; 12]),
    b: &[f32; 12],
    (rot, pos): (f32, f32),
    at: &str,
) {
    for e in 0..16 {
        let tol = match (e / 4, e % 4) {
            (3, _) => pos,
            (_, 3) => 0.0,
            _ => rot,
        };
        let d = (t.0[e] - t.1[e]).abs();
        assert!(d <= tol, "transform, {at}, entry {e}: {d} > {tol}");
    }
    for e in 0..12 {
        let (row, col) = (e / 4, e % 4);
        let spread: f32 = (0..3).map(|k| b[4 * k + col].abs()).sum();
        let tol = rot * spread + if col == 3 { pos } else { 0.0 } + 1e-5;
        let d = (s.0[e] - s.1[e]).abs();
        assert!(
            d <= tol,
            "skinning, {at}, row {row}, column {col}: {d} > {tol}"
        );
    }
}

/// Both crowds refuse a range past the crowd ([`Error::Range`]), a slice
/// of the wrong length ([`Error::Length`]) and an inverse bind of another
/// joint count ([`Error::Length`], checked first: with a slice of the right
/// length too), writing nothing.
fn matrix_refusals(
    lanes: &Crowd,
    reference: &ReferenceCrowd,
    bind: &kineform::skinning::InverseBind,
) {
    let (n, joints) = (lanes.characters(), lanes.skeleton().len());
    let other = kineform::skinning::InverseBind::from_bind_pose(
        &kineform::Skeleton::new(vec![-1]).unwrap(),
        &[Kform::IDENTITY],
    )
    .unwrap();
    let mut out = vec![[7.0f32; 16]; joints];
    assert!(matches!(
        lanes.transforms_into(n..n + 1, &mut out),
        Err(Error::Range { .. })
    ));
    assert!(matches!(
        reference.transforms_into(n..n + 1, &mut out),
        Err(Error::Range { .. })
    ));
    assert!(matches!(
        lanes.transforms_into(0..2, &mut out),
        Err(Error::Length { .. })
    ));
    assert!(matches!(
        reference.transforms_into(0..2, &mut out),
        Err(Error::Length { .. })
    ));
    // The inverse bind's count is what is wrong (`got`), the crowd's joints
    // what it must be.
    let bind_count = |e: Result<(), Error>| matches!(e, Err(Error::Length { expected, got: 1, .. }) if expected == joints);
    assert!(bind_count(lanes.skinning_matrices_into(
        0..1,
        &other,
        &mut out
    )));
    assert!(bind_count(reference.skinning_matrices_into(
        0..1,
        &other,
        &mut out
    )));
    let mut short = vec![[7.0f32; 16]; joints - 1];
    let short_slice = |e: Result<(), Error>| matches!(e, Err(Error::Length { expected, .. }) if expected == joints);
    assert!(short_slice(lanes.skinning_matrices_into(
        0..1,
        bind,
        &mut short
    )));
    assert!(short_slice(reference.skinning_matrices_into(
        0..1,
        bind,
        &mut short
    )));
    assert!(out.iter().chain(&short).all(|m| *m == [7.0; 16]));
}
