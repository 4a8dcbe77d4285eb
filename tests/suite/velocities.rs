//! Propagated velocities against finite differences (the velocities
//! article's own check): each local joint moves with exactly its stated
//! velocities, `pos + vel t`, `exp(ang t / 2) rot`, `scl exp(svl t)`, so the
//! time derivative of the global pose must equal the velocities `op_fk`
//! propagates. Central differences over `h = 5e-3` s.
//!
//! Tolerance: truncation error of a central difference is `h² |x'''| / 6`;
//! with angular velocities up to 3 rad/s and positions up to ~60 units that
//! is about 1e-2, and f32 rounding of positions near 60 (ulp 4e-6) divided
//! by `2h` adds 4e-4. Velocities here are up to ~600, so the bound is
//! `0.05 + 2e-3 |v|`: a wrong term in the FK velocity formula (leverage,
//! expansion, a missing rotation) is off by O(|v|), far outside it.

#![allow(clippy::needless_range_loop)] // tests index several parallel arrays

use crate::common;
use common::*;

use kineform::lanes::{self, Kformx8};
use kineform::reference::{self as r, Kform, Pose, Vec3};
use proptest::prelude::*;

const H: f32 = 5e-3;

/// The local pose advanced by `t` along its own velocities.
fn advance(local: &Pose, t: f32) -> Pose {
    let k: Vec<Kform> = local
        .to_kforms()
        .into_iter()
        .map(|k| Kform {
            pos: k.pos + k.vel * t,
            rot: r::quat_integrate_angular_velocity(k.ang, k.rot, t),
            scl: k.scl * r::exp_vec3(k.svl * t),
            ..k
        })
        .collect();
    Pose::from_kforms(&k)
}

fn fk_static(local: &Pose, parents: &[i32]) -> Pose {
    let mut g = Pose::new(local.len());
    r::op_fk_static(&mut g, local, parents).unwrap();
    g
}

/// Velocities of the global pose by central difference.
fn central_difference(local: &Pose, parents: &[i32]) -> Pose {
    let (next, prev) = (
        fk_static(&advance(local, H), parents),
        fk_static(&advance(local, -H), parents),
    );
    let mut fd = fk_static(local, parents);
    r::op_finite_diff(&mut fd, &next, &prev, 2.0 * H).unwrap();
    fd
}

fn check_velocities(got: Kform, fd: Kform, what: &str) -> Result<(), TestCaseError> {
    for (name, a, b) in [
        ("vel", got.vel, fd.vel),
        ("ang", got.ang, fd.ang),
        ("svl", got.svl, fd.svl),
    ] {
        let err = r::length(a - b);
        let bound = 0.05 + 2e-3 * r::length(b);
        prop_assert!(
            err <= bound,
            "{what} {name}: propagated {a:?} vs finite difference {b:?} (|diff| {err}, bound {bound})"
        );
    }
    Ok(())
}

fn moving_kform() -> impl Strategy<Value = Kform> {
    (
        vec3_in(6.0),
        unit_quat(),
        (0.8f32..1.25, 0.8f32..1.25, 0.8f32..1.25),
        vec3_in(3.0),
        vec3_in(3.0),
        vec3_in(0.5),
    )
        .prop_map(|(pos, rot, (a, b, c), vel, ang, svl)| Kform {
            pos,
            rot,
            scl: Vec3::new(a, b, c),
            vel,
            ang,
            svl,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn fk_velocities_match_finite_differences(parents in parents(24), kf in proptest::collection::vec(moving_kform(), 24)) {
        let n = parents.len();
        let local = Pose::from_kforms(&kf[..n]);
        let fd = central_difference(&local, &parents);
        let mut global = Pose::new(n);
        r::op_fk(&mut global, &local, &parents).unwrap();
        // The 8-lane path, with the same character in lane 3 and others around it.
        let local8: Vec<Kformx8> = (0..n).map(|j| {
            let mut a = [Kform::IDENTITY; 8];
            a[3] = local.get(j);
            Kformx8::from_array(a)
        }).collect();
        let mut global8 = vec![Kformx8::IDENTITY; n];
        lanes::op_fk(&mut global8, &local8, &parents).unwrap();
        for j in 0..n {
            check_velocities(global.get(j), fd.get(j), &format!("reference joint {j}"))?;
            check_velocities(global8[j].lane(3), fd.get(j), &format!("lanes joint {j}"))?;
        }
    }

    /// BK inverts FK exactly, velocities included, at any scale (where the
    /// published `op_bk` is exact only for unit scales).
    #[test]
    fn bk_inverts_fk(parents in parents(24), kf in proptest::collection::vec(moving_kform(), 24)) {
        let n = parents.len();
        let local = Pose::from_kforms(&kf[..n]);
        let mut global = Pose::new(n);
        r::op_fk(&mut global, &local, &parents).unwrap();
        let mut back = Pose::new(n);
        r::op_bk(&mut back, &global, &parents).unwrap();
        let scale = (0..n).fold(0.0f32, |m, j| m.max(mag(global.get(j))));
        for j in 0..n {
            check(back.get(j), local.get(j), scale, Tol::new(1e-5, 3e-5), &format!("op_bk(op_fk) joint {j}"))?;
        }
    }
}

/// The same check on real motion capture: the CMU walk sampled at a frame,
/// local velocities by finite difference of the clip, propagated by FK,
/// against the finite difference of FK positions across the frames.
#[test]
fn fk_velocities_on_cmu_walk() {
    let bvh = kineform::bvh::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mocap/cmu_12_01_walk_mb.bvh"
    ))
    .unwrap();
    let (clip, parents) = (&bvh.clip, bvh.skeleton.parents());
    let dt = clip.frame_time();
    let frame = |f: usize| {
        let k: Vec<Kform> = (0..clip.joints())
            .map(|j| Kform {
                pos: clip.pos(f, j).unwrap(),
                rot: clip.rot(f, j).unwrap(),
                scl: clip.scl(f, j).unwrap(),
                ..Kform::IDENTITY
            })
            .collect();
        Pose::from_kforms(&k)
    };
    let mut worst = 0.0f32;
    for f in (10..clip.frames() - 10).step_by(37) {
        // Local velocities: central difference of the clip.
        let (prev, curr, next) = (frame(f - 1), frame(f), frame(f + 1));
        let mut local = curr.clone();
        r::op_finite_diff(&mut local, &next, &prev, 2.0 * dt).unwrap();
        // Advance the local pose along those velocities and difference FK.
        let fd = central_difference(&local, parents);
        let mut global = Pose::new(clip.joints());
        r::op_fk(&mut global, &local, parents).unwrap();
        for j in 0..clip.joints() {
            let (a, b) = (global.vel[j], fd.vel[j]);
            let err = r::length(a - b);
            worst = worst.max(err / (1.0 + r::length(b)));
            assert!(
                err <= 0.05 + 2e-3 * r::length(b),
                "frame {f} joint {j}: {a:?} vs {b:?}"
            );
        }
    }
    assert!(worst < 0.01, "worst relative gap {worst}");
}
