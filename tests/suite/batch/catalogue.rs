//! The catalogue's batch entry points (transition costs, tracking
//! springs, the crowd-pose operators, loop making) against the
//! reference, and their refusals.

use super::*;
use kineform::batch::looping::{LoopMethod, LoopOptions, make_loop};
use kineform::batch::tracking::{Gains, Targets};
use kineform::batch::{cost, crowd, tracking};

fn walk() -> kineform::Clip {
    let b = kineform::bvh::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mocap/cmu_12_01_walk_mb.bvh"
    ))
    .unwrap();
    let c = &b.clip;
    let j = c.joints();
    let (from, to) = (100, 220);
    kineform::Clip::new(
        to - from,
        j,
        c.frame_time(),
        (from..to)
            .flat_map(|f| (0..j).map(move |k| c.pos(f, k).unwrap()))
            .collect(),
        (from..to)
            .flat_map(|f| (0..j).map(move |k| c.rot(f, k).unwrap()))
            .collect(),
        (from..to)
            .flat_map(|f| (0..j).map(move |k| c.scl(f, k).unwrap()))
            .collect(),
    )
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn cost_streams(p in proptest::collection::vec(vec3_in(2.0), 0..40), h in 0.05f32..1.0) {
        let n = p.len();
        let v: Vec<Vec3> = p.iter().map(|x| *x * -3.0 + Vec3::splat(0.5)).collect();
        let (ps, vs) = (Vec3Stream::from_elems(&p).unwrap(), Vec3Stream::from_elems(&v).unwrap());
        let mut fs = Vec3Stream::new(n).unwrap();
        cost::transition_features_spring(&mut fs, &ps, &vs, h).unwrap();
        let mut fc = Vec3Stream::new(n).unwrap();
        cost::transition_features_cubic(&mut fc, &ps, &vs, h).unwrap();
        let (x, w): (Vec<f32>, Vec<f32>) = (p.iter().map(|q| q.x).collect(), v.iter().map(|q| q.y).collect());
        let mut ds = F32Stream::new(n).unwrap();
        cost::decay_spring_damper_displacement(&mut ds, &F32Stream::from_elems(&x).unwrap(), &F32Stream::from_elems(&w).unwrap(), h).unwrap();
        let mut dc = F32Stream::new(n).unwrap();
        cost::decay_cubic_displacement(&mut dc, &F32Stream::from_elems(&x).unwrap(), &F32Stream::from_elems(&w).unwrap(), h).unwrap();
        for i in 0..n {
            check(fs.get(i).unwrap(), r::transition_feature_spring(p[i], v[i], h), 10.0 * h * h, SPRING, "features spring")?;
            check(fc.get(i).unwrap(), r::transition_feature_cubic(p[i], v[i], h), 10.0, SPRING, "features cubic")?;
            check(ds.get(i).unwrap(), r::decay_spring_damper_displacement(x[i], w[i], h), 10.0, SPRING, "spring displacement")?;
            check(dc.get(i).unwrap(), r::decay_cubic_displacement(x[i], w[i], h), 100.0, Tol::new(2e-5, 2e-5), "cubic displacement")?;
        }
    }

    #[test]
    fn tracking_streams(x in proptest::collection::vec(-5.0f32..5.0, 1..40), dt in 0.004f32..0.05) {
        let n = x.len();
        let tx: Vec<f32> = x.iter().map(|x| x + 0.3).collect();
        let tv: Vec<f32> = x.iter().map(|x| x * 2.0).collect();
        let ta: Vec<f32> = x.iter().map(|x| -x * 10.0).collect();
        let (tx8, tv8, ta8) = (F32Stream::from_elems(&tx).unwrap(), F32Stream::from_elems(&tv).unwrap(), F32Stream::from_elems(&ta).unwrap());
        let targets = Targets { x: &tx8, v: &tv8, a: &ta8 };
        let g = Gains { x: 0.01, v: 0.2, a: 1.0 };
        let (mut xs, mut vs) = (F32Stream::from_elems(&x).unwrap(), F32Stream::new(n).unwrap());
        tracking::tracking_spring_update(&mut xs, &mut vs, &targets, g, dt).unwrap();
        let (mut xe, mut ve) = (F32Stream::from_elems(&x).unwrap(), F32Stream::new(n).unwrap());
        tracking::tracking_spring_update_exact(&mut xe, &mut ve, &targets, g, dt, 1.0 / 60.0).unwrap();
        let (mut xi, mut vi) = (F32Stream::from_elems(&x).unwrap(), F32Stream::new(n).unwrap());
        tracking::tracking_spring_update_improved(&mut xi, &mut vi, &targets, [1.0, 0.05, 0.0], dt).unwrap();
        for i in 0..n {
            let s = 5.0 + 1.0 / dt;
            check((xs.get(i).unwrap(), vs.get(i).unwrap()), r::tracking_spring_update(x[i], 0.0, tx[i], tv[i], ta[i], 0.01, 0.2, 1.0, dt), s, SPRING, "tracking")?;
            check((xe.get(i).unwrap(), ve.get(i).unwrap()), r::tracking_spring_update_exact(x[i], 0.0, tx[i], tv[i], ta[i], 0.01, 0.2, 1.0, dt, 1.0 / 60.0), s, Tol::new(1e-4, 1e-4), "tracking exact")?;
            check((xi.get(i).unwrap(), vi.get(i).unwrap()), r::tracking_spring_update_improved(x[i], 0.0, tx[i], tv[i], ta[i], 1.0, 0.05, 0.0, dt), s, SPRING, "tracking improved")?;
        }
    }

    /// 9 characters (a full pack and one more) sampled, blended,
    /// extrapolated and dead-blended equal the reference per character.
    #[test]
    fn crowd_pose_operators(times in proptest::collection::vec(0.0f32..0.9, 9), alpha in proptest::collection::vec(0.0f32..1.0, 9), av in proptest::collection::vec(-0.05f32..0.05, 9)) {
        let clip = walk();
        let j = clip.joints();
        let dt = 1.0 / 60.0;
        let (mut lin, mut cub) = (CrowdPose::new(9, j).unwrap(), CrowdPose::new(9, j).unwrap());
        crowd::op_sample_linear(&mut lin, &clip, &times).unwrap();
        crowd::op_sample_cubic(&mut cub, &clip, &times).unwrap();
        let mut bl = CrowdPose::new(9, j).unwrap();
        crowd::op_blend(&mut bl, &lin, &cub, &alpha, &av, dt).unwrap();
        let mut ex = CrowdPose::new(9, j).unwrap();
        crowd::op_extrapolate_decayed(&mut ex, &lin, &times, 0.2).unwrap();
        let (mut db, mut dbx) = (CrowdPose::new(9, j).unwrap(), CrowdPose::new(9, j).unwrap());
        let mut path = vec![kineform::lanes::Quatx8::IDENTITY; db.lanes().len()];
        crowd::op_dead_blending(&mut db, &mut dbx, &mut path, &lin, &cub, 0.2, &times, 0.5, dt).unwrap();
        let (p, q, s, ft) = (clip.pos_slice(), clip.rot_slice(), clip.scl_slice(), clip.frame_time());
        for c in 0..9 {
            let (mut rl, mut rc) = (Pose::new(j), Pose::new(j));
            r::op_sample_linear(&mut rl, p, q, s, times[c], ft).unwrap();
            r::op_sample_cubic(&mut rc, p, q, s, times[c], ft).unwrap();
            let mut rb = Pose::new(j);
            r::op_blend(&mut rb, &rl, &rc, alpha[c], av[c], dt).unwrap();
            let mut re = Pose::new(j);
            r::op_extrapolate_decayed(&mut re, &rl, times[c], 0.2).unwrap();
            let (mut rd, mut rdx) = (Pose::new(j), Pose::new(j));
            r::op_dead_blending(&mut rd, &mut rdx, &mut vec![r::Quat::IDENTITY; j], &rl, &rc, 0.2, times[c], 0.5, dt).unwrap();
            let floors = [20.0, 1.0, 1.0, 20.0 / ft, 20.0 / ft, 1.0];
            for k in 0..j {
                check_floors(lin.get(c, k).unwrap(), rl.get(k), &floors, TRANSC, "crowd sample linear")?;
                check_floors(cub.get(c, k).unwrap(), rc.get(k), &floors, TRANSC, "crowd sample cubic")?;
                check_floors(bl.get(c, k).unwrap(), rb.get(k), &floors, TRANSC, "crowd blend")?;
                check_floors(ex.get(c, k).unwrap(), re.get(k), &floors, TRANSC, "crowd extrapolate")?;
                check_floors(db.get(c, k).unwrap(), rd.get(k), &floors, TRANSC, "crowd dead blending")?;
            }
        }
    }
}

#[test]
fn make_loop_equals_the_reference_and_closes_the_loop() {
    let clip = walk();
    let (j, n, dt) = (clip.joints(), clip.frames(), clip.frame_time());
    let opts = LoopOptions {
        method: LoopMethod::Cubic {
            blendtime_start: 0.25,
            blendtime_end: 0.25,
        },
        ratio: 0.5,
        root_in_character_space: false,
    };
    let looped = make_loop(&clip, &opts).unwrap();
    let (mut d, mut dv) = (vec![Vec3::ZERO; j], vec![Vec3::ZERO; j]);
    r::compute_start_end_rotational_difference(&mut d, &mut dv, clip.rot_slice(), dt).unwrap();
    let mut off = vec![Vec3::ZERO; n * j];
    r::compute_inertialize_both_offsets_cubic(&mut off, &d, &dv, 0.25, 0.25, 0.5, dt).unwrap();
    let mut want = vec![Quat::IDENTITY; n * j];
    r::apply_rotational_offsets(&mut want, clip.rot_slice(), &off).unwrap();
    for k in 0..n * j {
        check(
            looped.rotations()[k],
            want[k],
            1.0,
            Tol::new(2e-5, 2e-5),
            "make_loop rotation",
        )
        .unwrap();
    }
    // First and last frames meet, positions too (the root's travel is
    // spread over the clip).
    for k in 0..j {
        assert!(
            r::length(looped.pos(0, k).unwrap() - looped.pos(n - 1, k).unwrap()) < 1e-3,
            "joint {k}"
        );
    }
    // In character space only, the root keeps travelling forward.
    let root = make_loop(
        &clip,
        &LoopOptions {
            root_in_character_space: true,
            ..opts
        },
    )
    .unwrap();
    assert!(r::length(root.pos(0, 0).unwrap() - root.pos(n - 1, 0).unwrap()) > 10.0);
}

#[test]
fn refusals() {
    let clip = walk();
    let ok = LoopOptions {
        method: LoopMethod::Linear {
            blendtime_start: 0.2,
            blendtime_end: 0.2,
        },
        ratio: 0.5,
        root_in_character_space: true,
    };
    assert!(make_loop(&clip, &ok).is_ok());
    assert!(make_loop(&clip, &LoopOptions { ratio: 1.5, ..ok }).is_err());
    assert!(
        make_loop(
            &clip,
            &LoopOptions {
                method: LoopMethod::Spring {
                    halflife_start: -0.1,
                    halflife_end: 0.2
                },
                ..ok
            }
        )
        .is_err()
    );
    assert!(
        make_loop(
            &clip,
            &LoopOptions {
                method: LoopMethod::Softfade {
                    blendtime: (0.2, 0.2),
                    duration: (0.2, f32::NAN),
                    hardness: (4.0, 4.0)
                },
                ..ok
            }
        )
        .is_err()
    );
    let two = kineform::Clip::new(
        2,
        1,
        0.1,
        vec![Vec3::ZERO; 2],
        vec![Quat::IDENTITY; 2],
        vec![Vec3::ONE; 2],
    )
    .unwrap();
    assert!(make_loop(&two, &ok).is_err());

    let (x, t) = (F32Stream::new(3).unwrap(), F32Stream::new(3).unwrap());
    let (mut xs, mut vs) = (x.clone(), x.clone());
    let targets = Targets {
        x: &t,
        v: &t,
        a: &t,
    };
    assert!(
        tracking::tracking_spring_update(
            &mut xs,
            &mut vs,
            &targets,
            Gains {
                x: 1.5,
                v: 0.2,
                a: 1.0
            },
            0.01
        )
        .is_err()
    );
    assert!(
        tracking::tracking_spring_update_exact(
            &mut xs,
            &mut vs,
            &targets,
            Gains {
                x: 0.01,
                v: 0.2,
                a: 1.0
            },
            0.01,
            0.0
        )
        .is_err()
    );
    let short = F32Stream::new(2).unwrap();
    assert!(
        tracking::tracking_spring_update(
            &mut xs,
            &mut vs,
            &Targets {
                x: &t,
                v: &short,
                a: &t
            },
            Gains {
                x: 0.01,
                v: 0.2,
                a: 1.0
            },
            0.01
        )
        .is_err()
    );
    let mut out = Vec3Stream::new(3).unwrap();
    assert!(
        cost::transition_features_spring(
            &mut out,
            &Vec3Stream::new(3).unwrap(),
            &Vec3Stream::new(2).unwrap(),
            0.2
        )
        .is_err()
    );
    assert!(
        cost::transition_features_cubic(
            &mut out,
            &Vec3Stream::new(3).unwrap(),
            &Vec3Stream::new(3).unwrap(),
            f32::NAN
        )
        .is_err()
    );

    let j = clip.joints();
    let mut c = CrowdPose::new(9, j).unwrap();
    let before: Vec<u32> = c.as_f32s().iter().map(|x| x.to_bits()).collect();
    assert!(crowd::op_sample_linear(&mut c, &clip, &[0.0; 8]).is_err());
    assert!(crowd::op_sample_cubic(&mut c, &clip, &[f32::NAN; 9]).is_err());
    assert!(
        crowd::op_sample_linear(&mut CrowdPose::new(9, j + 1).unwrap(), &clip, &[0.0; 9]).is_err()
    );
    assert!(
        crowd::op_blend(
            &mut c,
            &CrowdPose::new(9, j).unwrap(),
            &CrowdPose::new(9, j).unwrap(),
            &[0.5; 9],
            &[0.0; 9],
            -1.0
        )
        .is_err()
    );
    assert!(
        crowd::op_extrapolate_decayed(&mut c, &CrowdPose::new(9, j).unwrap(), &[-0.1; 9], 0.2)
            .is_err()
    );
    let mut e = CrowdPose::new(9, j).unwrap();
    assert!(
        crowd::op_dead_blending(
            &mut c,
            &mut e,
            &mut vec![kineform::lanes::Quatx8::IDENTITY; 2 * j],
            &CrowdPose::new(9, j).unwrap(),
            &CrowdPose::new(9, j).unwrap(),
            0.2,
            &[0.1; 9],
            f32::INFINITY,
            0.01
        )
        .is_err()
    );
    assert_eq!(
        c.as_f32s().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        before,
        "a refused call wrote"
    );
}
