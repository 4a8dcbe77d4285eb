//! Skinning matrices: the lane kernel against the scalar one, the scalar one
//! against kineform's own quaternion rotation (an independent check of the
//! matrix), the bind pose giving identities, inverse bind matrices given by
//! the caller, and refusals that write nothing.

use crate::common;
use common::*;

use kineform::lanes::Kformx8;
use kineform::reference::{Kform, Pose, Vec3, op_fk, quat_mul_vec3};
use kineform::skinning::{
    self, IDENTITY_3X4, IDENTITY_4X4, InverseBind, kform_matrix, kform_rows, skin_lanes,
    skin_matrix,
};
use kineform::stream::CrowdPose;
use kineform::{Skeleton, data};
use proptest::prelude::*;

/// Matrix entries are sums of three products of rotation entries (<= 1),
/// scales (<= 2) and inverse-bind entries: a few ulps of the largest term.
const MATRIX: Tol = Tol::new(1e-6, 4e-6);

/// `rows × (p, 1)`.
fn apply(rows: &[f32; 12], p: Vec3) -> Vec3 {
    let r = |i: usize| {
        rows[i * 4] * p.x + rows[i * 4 + 1] * p.y + rows[i * 4 + 2] * p.z + rows[i * 4 + 3]
    };
    Vec3::new(r(0), r(1), r(2))
}

/// A kineform applied to a point: `pos + rot (scl p)`, through kineform's
/// quaternion rotation rather than a matrix.
fn transform(k: &Kform, p: Vec3) -> Vec3 {
    k.pos + quat_mul_vec3(k.rot, k.scl * p)
}

fn cfg() -> ProptestConfig {
    ProptestConfig::with_cases(256)
}

proptest! {
    #![proptest_config(cfg())]

    /// The matrix of a kineform moves points as the kineform does
    /// (catches a transposed rotation, a conjugated quaternion, a scale
    /// applied to rows instead of columns).
    #[test]
    fn kform_matrix_moves_points_like_the_kform(k in kform(10.0), p in vec3_in(5.0)) {
        let want = transform(&k, p);
        check(apply(&kform_rows(&k), p), want, 25.0, MATRIX, "rows")?;
        let m = kform_matrix(&k);
        let by_cols = Vec3::new(
            m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12],
            m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13],
            m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14],
        );
        check(by_cols, want, 25.0, MATRIX, "column-major 4x4")?;
        prop_assert_eq!([m[3], m[7], m[11], m[15]], [0.0, 0.0, 0.0, 1.0]);
    }

    /// `skin_matrix(world, bind⁻¹)` maps a point as `world(bind⁻¹(p))`.
    #[test]
    fn skin_matrix_composes(world in kform(10.0), bind in kform(10.0), p in vec3_in(5.0)) {
        let sk = Skeleton::new(vec![-1]).unwrap();
        let ib = InverseBind::from_bind_pose(&sk, &[bind]).unwrap();
        // bind⁻¹ undoes bind.
        check(apply(&ib.as_rows()[0], transform(&bind, p)), p, 100.0, Tol::new(1e-5, 2e-5), "inverse")?;
        let want = transform(&world, apply(&ib.as_rows()[0], p));
        check(apply(&skin_matrix(&world, &ib.as_rows()[0]), p), want, 500.0, Tol::new(1e-5, 2e-5), "skin")?;
    }

    /// Eight lanes, each with its own world transform, against the scalar
    /// kernel.
    #[test]
    fn lanes_match_scalar(ks in arr8(kform(10.0)), bind in kform(10.0)) {
        let sk = Skeleton::new(vec![-1]).unwrap();
        let ib = InverseBind::from_bind_pose(&sk, &[bind]).unwrap();
        let k = k8(ks);
        let m = skin_lanes(k.pos, k.rot, k.scl, &ib.as_rows()[0]);
        for (i, w) in ks.iter().enumerate() {
            let got: [f32; 12] = core::array::from_fn(|e| m[e].as_array()[i]);
            let want = skin_matrix(w, &ib.as_rows()[0]);
            let scale = want.iter().fold(1.0f32, |a, b| a.max(b.abs()));
            for e in 0..12 {
                prop_assert!((got[e] - want[e]).abs() <= 1e-6 + 4e-6 * scale,
                    "lane {i} entry {e}: {} vs {}", got[e], want[e]);
            }
        }
    }
}

fn cmu() -> (Skeleton, Vec<Kform>) {
    let b = data::default_clip();
    let bind = (0..b.skeleton.len())
        .map(|j| Kform {
            pos: b.clip.pos(0, j).unwrap(),
            rot: b.clip.rot(0, j).unwrap(),
            ..Kform::IDENTITY
        })
        .collect();
    (b.skeleton, bind)
}

/// The CMU skeleton posed in its bind pose skins to identities, in both
/// layouts, for 11 characters (a full pack and a partial one).
#[test]
fn bind_pose_gives_identity() {
    let (sk, bind) = cmu();
    let ib = InverseBind::from_bind_pose(&sk, &bind).unwrap();
    let mut world = Pose::new(sk.len());
    op_fk(&mut world, &Pose::from_kforms(&bind), sk.parents()).unwrap();
    let poses = vec![world; 11];
    let crowd = CrowdPose::from_poses(&poses, sk.len()).unwrap();
    let mut m4 = vec![[9.0f32; 16]; 11 * sk.len()];
    let mut m3 = vec![[9.0f32; 12]; 11 * sk.len()];
    skinning::skinning_matrices(crowd.packed(), &ib, &mut m4).unwrap();
    skinning::skinning_matrices(crowd.packed(), &ib, &mut m3).unwrap();
    // Root-relative positions reach about 60 units on this skeleton.
    for a in &m4 {
        for (x, y) in a.iter().zip(IDENTITY_4X4) {
            assert!((x - y).abs() < 2e-4, "{a:?}");
        }
    }
    for a in &m3 {
        for (x, y) in a.iter().zip(IDENTITY_3X4) {
            assert!((x - y).abs() < 2e-4, "{a:?}");
        }
    }
}

/// Per character and joint, the batch equals the scalar kernel, in both
/// layouts, and the 4x4 is the 3x4 with a bottom row.
#[test]
fn batch_matches_scalar_per_character() {
    let (sk, bind) = cmu();
    let ib = InverseBind::from_bind_pose(&sk, &bind).unwrap();
    let clip = data::default_clip().clip;
    let poses: Vec<Pose> = (0..11)
        .map(|c| {
            let local: Vec<Kform> = (0..sk.len())
                .map(|j| Kform {
                    pos: clip.pos(c * 20, j).unwrap(),
                    rot: clip.rot(c * 20, j).unwrap(),
                    ..Kform::IDENTITY
                })
                .collect();
            let mut w = Pose::new(sk.len());
            op_fk(&mut w, &Pose::from_kforms(&local), sk.parents()).unwrap();
            w
        })
        .collect();
    let crowd = CrowdPose::from_poses(&poses, sk.len()).unwrap();
    let mut m4 = vec![[0.0f32; 16]; 11 * sk.len()];
    let mut m3 = vec![[0.0f32; 12]; 11 * sk.len()];
    skinning::skinning_matrices(crowd.packed(), &ib, &mut m4).unwrap();
    skinning::skinning_matrices(crowd.packed(), &ib, &mut m3).unwrap();
    for c in 0..11 {
        for j in 0..sk.len() {
            let want = skin_matrix(&poses[c].get(j), &ib.as_rows()[j]);
            let got = m3[c * sk.len() + j];
            for e in 0..12 {
                assert!(
                    (got[e] - want[e]).abs() < 1e-4,
                    "c {c} j {j} e {e}: {got:?} vs {want:?}"
                );
                assert_eq!(m4[c * sk.len() + j][(e % 4) * 4 + e / 4], got[e]);
            }
        }
    }
    // One pack at a time gives the same as the whole crowd.
    let mut one = vec![[0.0f32; 12]; 3 * sk.len()];
    skinning::skin_pack(crowd.pack(1), 3, &ib, &mut one).unwrap();
    assert_eq!(one[..], m3[8 * sk.len()..]);
}

/// Inverse bind matrices given as column-major 4x4 round-trip, and bad ones
/// are refused with the joint named.
#[test]
fn caller_inverse_bind_matrices() {
    let (sk, bind) = cmu();
    let ib = InverseBind::from_bind_pose(&sk, &bind).unwrap();
    let given = InverseBind::from_matrices(&sk, &ib.to_matrices()).unwrap();
    assert_eq!(given, ib);
    // Each joint's rows, in joint order, and none past the last joint.
    assert_eq!(ib.as_rows().len(), sk.len());
    let last = sk.len() - 1;
    assert_eq!(ib.get(last), Some(&ib.as_rows()[last]));
    assert_eq!(ib.get(sk.len()), None);
    let mut bad = ib.to_matrices();
    bad[5][3] = 0.5; // bottom row of column 0
    let e = InverseBind::from_matrices(&sk, &bad).unwrap_err();
    assert!(
        matches!(e, kineform::Error::Skeleton { joint: 5, .. }),
        "{e}"
    );
    bad[5][3] = 0.0;
    bad[7][13] = f32::NAN;
    assert!(InverseBind::from_matrices(&sk, &bad).is_err());
    assert!(InverseBind::from_matrices(&sk, &bad[..30]).is_err());
    // A zero scale in the bind pose has no inverse.
    let mut flat = bind.clone();
    flat[3].scl = Vec3::new(1.0, 0.0, 1.0);
    assert!(InverseBind::from_bind_pose(&sk, &flat).is_err());
    assert!(InverseBind::from_bind_pose(&sk, &bind[1..]).is_err());
}

/// Refusals write nothing.
#[test]
fn refusals_write_nothing() {
    let (sk, bind) = cmu();
    let ib = InverseBind::from_bind_pose(&sk, &bind).unwrap();
    let crowd = CrowdPose::new(9, sk.len()).unwrap();
    let mut short = vec![[7.0f32; 16]; 9 * sk.len() - 1];
    assert!(skinning::skinning_matrices(crowd.packed(), &ib, &mut short).is_err());
    assert!(short.iter().all(|m| m.iter().all(|&v| v == 7.0)));
    let other = CrowdPose::new(9, 4).unwrap();
    let mut out = vec![[7.0f32; 16]; 9 * 4];
    assert!(skinning::skinning_matrices(other.packed(), &ib, &mut out).is_err());
    assert!(out.iter().all(|m| m.iter().all(|&v| v == 7.0)));
    let pack = vec![Kformx8::IDENTITY; sk.len()];
    let mut o = vec![[7.0f32; 12]; 9 * sk.len()];
    assert!(skinning::skin_pack(&pack, 9, &ib, &mut o).is_err());
    assert!(skinning::skin_pack(&pack, 8, &ib, &mut o[..8 * sk.len() - 1]).is_err());
    assert!(o.iter().all(|m| m.iter().all(|&v| v == 7.0)));
}
