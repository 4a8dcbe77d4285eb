//! glam and mint conversions (features `glam`, `mint`): the quaternion
//! order shown by rotating vectors both ways, matrices by moving points,
//! and lane outputs copied into glam slices.
#![cfg(all(feature = "glam", feature = "mint"))]

use crate::common;
use common::*;

use kineform::glam;
use kineform::output;
use kineform::reference::{Kform, Pose, Quat, Vec3, quat_mul_vec3};
use kineform::stream::{CrowdPose, KformStream, QuatStream, Vec3Stream};
use proptest::prelude::*;

const ROT: Tol = Tol::new(1e-5, 1e-5);

fn g(v: Vec3) -> glam::Vec3 {
    v.into()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// kineform's rotation of `v` by `q` equals glam's rotation by the
    /// converted quaternion, and glam's rotation by a glam quaternion equals
    /// kineform's by the converted one: the `(w, x, y, z)` / `(x, y, z, w)`
    /// reordering is right in both directions.
    #[test]
    fn quaternion_order_both_ways(q in unit_quat(), v in vec3_in(10.0), a in vec3_in(3.0)) {
        let gq: glam::Quat = q.into();
        check(Vec3::from(gq * g(v)), quat_mul_vec3(q, v), 10.0, ROT, "kineform -> glam")?;
        let gq2 = glam::Quat::from_scaled_axis(g(a));
        check(quat_mul_vec3(Quat::from(gq2), v), Vec3::from(gq2 * g(v)), 10.0, ROT, "glam -> kineform")?;
        // Through mint (and mint -> glam with glam's own conversion).
        let m: mint::Quaternion<f32> = q.into();
        check(Vec3::from(glam::Quat::from(m) * g(v)), quat_mul_vec3(q, v), 10.0, ROT, "kineform -> mint -> glam")?;
        let back: Quat = mint::Quaternion::from(gq2).into();
        check(quat_mul_vec3(back, v), Vec3::from(gq2 * g(v)), 10.0, ROT, "glam -> mint -> kineform")?;
    }

    /// `Mat4`, `Affine3A` and mint's matrix from a kineform move points as
    /// the kineform does.
    #[test]
    fn matrices_move_points(k in kform(10.0), p in vec3_in(5.0)) {
        let want = k.pos + quat_mul_vec3(k.rot, k.scl * p);
        let m = glam::Mat4::from(k);
        check(Vec3::from(m.transform_point3(g(p))), want, 25.0, ROT, "Mat4")?;
        check(Vec3::from(glam::Affine3A::from(k).transform_point3(g(p))), want, 25.0, ROT, "Affine3A")?;
        let mm: mint::ColumnMatrix4<f32> = k.into();
        prop_assert_eq!(glam::Mat4::from(mm), m);
        let srt = glam::Mat4::from_scale_rotation_translation(g(k.scl), k.rot.into(), g(k.pos));
        prop_assert!(m.abs_diff_eq(srt, 1e-5 * 25.0));
    }
}

#[test]
fn vectors_round_trip() {
    let v = Vec3::new(1.0, -2.0, 3.5);
    assert_eq!(Vec3::from(glam::Vec3::from(v)), v);
    assert_eq!(Vec3::from(glam::Vec3A::from(v)), v);
    assert_eq!(Vec3::from(mint::Vector3::<f32>::from(v)), v);
    assert_eq!(Vec3::from(mint::Point3::<f32>::from(v)), v);
    let q = Quat::new(0.5, -0.5, 0.5, 0.5);
    assert_eq!(Quat::from(glam::Quat::from(q)), q);
    assert_eq!(glam::Quat::from(q).w, 0.5);
    assert_eq!(glam::Quat::from(q).x, -0.5);
    assert_eq!(Quat::from(mint::Quaternion::from(q)), q);
}

/// 11 characters x 3 joints (a full pack and a partial one) copied into
/// glam slices: every element lands at `c * joints + j`.
#[test]
fn crowd_pose_into_glam_slices() {
    let poses: Vec<Pose> = (0..11)
        .map(|c| {
            let k: Vec<Kform> = (0..3)
                .map(|j| Kform {
                    pos: Vec3::new(c as f32, j as f32, 1.0),
                    rot: kineform::reference::quat_from_scaled_angle_axis(Vec3::new(
                        0.1 * c as f32,
                        0.2 * j as f32,
                        0.3,
                    )),
                    scl: Vec3::new(1.0, 2.0, 1.0 + j as f32),
                    ..Kform::IDENTITY
                })
                .collect();
            Pose::from_kforms(&k)
        })
        .collect();
    let crowd = CrowdPose::from_poses(&poses, 3).unwrap();
    let mut pos = vec![glam::Vec3::NAN; 33];
    let mut rot = vec![glam::Quat::NAN; 33];
    let mut mat = vec![glam::Mat4::NAN; 33];
    output::positions(crowd.packed(), &mut pos).unwrap();
    output::rotations(crowd.packed(), &mut rot).unwrap();
    output::transforms(crowd.packed(), &mut mat).unwrap();
    for c in 0..11 {
        for j in 0..3 {
            let k = poses[c].get(j);
            assert_eq!(pos[c * 3 + j], g(k.pos));
            assert_eq!(rot[c * 3 + j], glam::Quat::from(k.rot));
            assert_eq!(mat[c * 3 + j], glam::Mat4::from(k));
        }
    }
    // Skinning straight into glam matrices.
    let sk = kineform::Skeleton::new(vec![-1, 0, 1]).unwrap();
    let ib = kineform::skinning::InverseBind::from_bind_pose(&sk, &[Kform::IDENTITY; 3]).unwrap();
    let mut skin = vec![glam::Mat4::NAN; 33];
    kineform::skinning::skinning_matrices(crowd.packed(), &ib, &mut skin).unwrap();
    assert_eq!(skin, mat);
    // A wrong length is refused and nothing is written.
    let mut short = vec![glam::Vec3::NAN; 32];
    assert!(output::positions(crowd.packed(), &mut short).is_err());
    assert!(short.iter().all(|v| v.is_nan()));
}

#[test]
fn streams_into_glam_slices() {
    let v: Vec<Vec3> = (0..13).map(|i| Vec3::new(i as f32, 0.0, -1.0)).collect();
    let mut out = vec![glam::Vec3::ZERO; 13];
    Vec3Stream::from_elems(&v)
        .unwrap()
        .write_into(&mut out)
        .unwrap();
    assert_eq!(out[12], glam::Vec3::new(12.0, 0.0, -1.0));
    let q = vec![Quat::new(0.0, 1.0, 0.0, 0.0); 9];
    let mut qo = vec![glam::Quat::IDENTITY; 9];
    QuatStream::from_elems(&q)
        .unwrap()
        .write_into(&mut qo)
        .unwrap();
    assert_eq!(qo[8], glam::Quat::from_xyzw(1.0, 0.0, 0.0, 0.0));
    let k = vec![
        Kform {
            pos: Vec3::new(0.0, 0.0, 4.0),
            ..Kform::IDENTITY
        };
        9
    ];
    let s = KformStream::from_elems(&k).unwrap();
    let mut m = vec![glam::Mat4::ZERO; 9];
    s.write_into(&mut m).unwrap();
    assert_eq!(
        m[8],
        glam::Mat4::from_translation(glam::Vec3::new(0.0, 0.0, 4.0))
    );
    let mut p = vec![glam::Vec3::ZERO; 9];
    output::positions(s.packed(), &mut p).unwrap();
    assert_eq!(p[8].z, 4.0);
    assert!(s.write_into(&mut m[..8]).is_err());
}

/// Each glam version's impls (features `glam029`, `glam030`, `glam033`):
/// the quaternion reordered both ways, vectors and matrices as glam builds
/// them, a crowd pose copied into that version's slices and skinned into
/// its matrices. Mutation caught: a `Quat` impl copying `(w, x, y, z)` in
/// kineform's order into `from_xyzw` fails the rotation check.
macro_rules! each_glam {
    ($name:ident, $glam:ident, $feature:literal) => {
        #[cfg(feature = $feature)]
        #[test]
        fn $name() {
            use kineform::$glam as gl;
            let q = kineform::reference::quat_from_scaled_angle_axis(Vec3::new(0.3, -1.1, 0.4));
            let v = Vec3::new(1.0, -2.0, 0.5);
            let gq = gl::Quat::from(q);
            let gv = gl::Vec3::from(v);
            let turned = Vec3::from(gq * gv);
            let want = quat_mul_vec3(q, v);
            assert!(
                kineform::reference::length(turned - want) < 1e-5,
                "{turned:?} {want:?}"
            );
            assert_eq!(Quat::from(gq), q);
            assert_eq!(Vec3::from(gl::Vec3A::from(v)), v);
            let k = Kform {
                pos: v,
                rot: q,
                scl: Vec3::new(1.0, 2.0, 0.5),
                ..Kform::IDENTITY
            };
            let m = gl::Mat4::from(k);
            let srt =
                gl::Mat4::from_scale_rotation_translation(gl::Vec3::new(1.0, 2.0, 0.5), gq, gv);
            assert!(m.abs_diff_eq(srt, 1e-5), "{m:?} {srt:?}");
            assert!(gl::Affine3A::from(k).abs_diff_eq(gl::Affine3A::from_mat4(srt), 1e-5));
            let poses: Vec<Pose> = (0..9).map(|_| Pose::from_kforms(&[k, k])).collect();
            let crowd = CrowdPose::from_poses(&poses, 2).unwrap();
            let mut pos = vec![gl::Vec3::NAN; 18];
            output::positions(crowd.packed(), &mut pos).unwrap();
            assert!(pos.iter().all(|p| *p == gv));
            let sk = kineform::Skeleton::new(vec![-1, 0]).unwrap();
            let ib = kineform::skinning::InverseBind::from_bind_pose(&sk, &[Kform::IDENTITY; 2])
                .unwrap();
            let mut skin = vec![gl::Mat4::NAN; 18];
            kineform::skinning::skinning_matrices(crowd.packed(), &ib, &mut skin).unwrap();
            assert!(skin.iter().all(|s| s.abs_diff_eq(m, 1e-5)));
        }
    };
}

each_glam!(glam029_impls, glam029, "glam029");
each_glam!(glam030_impls, glam030, "glam030");
each_glam!(glam033_impls, glam033, "glam033");
