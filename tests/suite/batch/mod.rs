//! Batch entry points: streams of any length equal the per-element
//! reference (padding never leaks), refusals are errors that write nothing,
//! skeletons are validated, and results are bit-identical for any thread
//! count.

#![allow(clippy::needless_range_loop)] // tests index several parallel arrays

use crate::common;
use common::*;

use kineform::reference::{self as r, Kform, Pose, Quat, Vec3};
use kineform::stream::{CrowdPose, F32Stream, KformStream, QuatStream, Vec3Stream};
use kineform::{Error, Skeleton, batch};
use proptest::prelude::*;

const SPRING: Tol = Tol::new(1e-6, 4e-6);
const TRANSC: Tol = Tol::new(4e-6, 4e-6);
const CHAIN: Tol = Tol::new(1e-5, 2e-5);

fn pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn damper_streams(x in proptest::collection::vec(-50.0f32..50.0, 0..70), g0 in -50.0f32..50.0, h in 0.0f32..1.0, dt in 0.0f32..0.1) {
        let n = x.len();
        let goal: Vec<f32> = (0..n).map(|i| g0 + i as f32).collect();
        let mut xs = F32Stream::from_elems(&x).unwrap();
        batch::damper_exact(&mut xs, &F32Stream::from_elems(&goal).unwrap(), h, dt).unwrap();
        let mut ds = F32Stream::from_elems(&x).unwrap();
        batch::damper_decay_exact(&mut ds, h, dt).unwrap();
        let mut xv = F32Stream::from_elems(&x).unwrap();
        let mut vv = F32Stream::from_elems(&goal).unwrap();
        batch::decay_spring_damper_exact(&mut xv, &mut vv, h, dt).unwrap();
        prop_assert_eq!(xs.len(), n);
        for i in 0..n {
            check(xs.get(i).unwrap(), r::damper_exact(x[i], goal[i], h, dt), 100.0, SPRING, "damper_exact")?;
            check(ds.get(i).unwrap(), r::damper_decay_exact(x[i], h, dt), 50.0, SPRING, "damper_decay_exact")?;
            check((xv.get(i).unwrap(), vv.get(i).unwrap()), r::decay_spring_damper_exact(x[i], goal[i], h, dt), 200.0, SPRING, "decay_spring_damper_exact")?;
        }
        prop_assert!(xs.get(n).is_none());
    }

    #[test]
    fn vec3_quat_streams(x in proptest::collection::vec(vec3_in(5.0), 0..50), q in proptest::collection::vec(quat_edgy(), 50), h in 0.0f32..1.0, dt in 0.0f32..0.1) {
        let n = x.len();
        let q = &q[..n];
        let v: Vec<Vec3> = x.iter().map(|v| *v * 3.0).collect();
        let (mut xs, mut vs) = (Vec3Stream::from_elems(&x).unwrap(), Vec3Stream::from_elems(&v).unwrap());
        batch::decay_spring_damper_exact_vec3(&mut xs, &mut vs, h, dt).unwrap();
        let (mut qs, mut ws) = (QuatStream::from_elems(q).unwrap(), Vec3Stream::from_elems(&v).unwrap());
        batch::decay_spring_damper_exact_quat(&mut qs, &mut ws, h, dt).unwrap();
        let mut e = QuatStream::new(n).unwrap();
        batch::quat_exp(&mut e, &Vec3Stream::from_elems(&x).unwrap()).unwrap();
        let mut l = Vec3Stream::new(n).unwrap();
        batch::quat_log(&mut l, &QuatStream::from_elems(q).unwrap()).unwrap();
        for i in 0..n {
            check((xs.get(i).unwrap(), vs.get(i).unwrap()), r::decay_spring_damper_exact_vec3(x[i], v[i], h, dt), 20.0, SPRING, "vec3 spring")?;
            check((qs.get(i).unwrap(), ws.get(i).unwrap()), r::decay_spring_damper_exact_quat(q[i], v[i], h, dt), 20.0, TRANSC, "quat spring")?;
            check(e.get(i).unwrap(), r::quat_exp(x[i]), 1.0, TRANSC, "quat_exp")?;
            check(l.get(i).unwrap(), r::quat_log(q[i]), 1.0, TRANSC, "quat_log")?;
        }
    }

    #[test]
    fn inertialize_streams(a in proptest::collection::vec(kform(5.0), 0..30), b in proptest::collection::vec(kform(5.0), 30), t in 0.0f32..1.0, d in 0.05f32..1.0) {
        let n = a.len();
        let (pa, pb) = (Pose::from_kforms(&a), Pose::from_kforms(&b[..n]));
        let (sa, sb) = (KformStream::from_elems(&a).unwrap(), KformStream::from_elems(&b[..n]).unwrap());
        let mut off = KformStream::new(n).unwrap();
        batch::op_inertialize_offset(&mut off, &sa, &sb).unwrap();
        let mut out = KformStream::new(n).unwrap();
        batch::op_inertialize(&mut out, &off, &sb, t, d).unwrap();
        let (mut roff, mut rout) = (Pose::new(n), Pose::new(n));
        r::op_inertialize_offset(&mut roff, &pa, &pb).unwrap();
        r::op_inertialize(&mut rout, &roff, &pb, t, d).unwrap();
        for i in 0..n {
            let s = mag(a[i]).max(mag(b[i]));
            check(off.get(i).unwrap(), roff.get(i), 4.0 * s, TRANSC, "op_inertialize_offset")?;
            check(out.get(i).unwrap(), rout.get(i), 16.0 * s / d, TRANSC, "op_inertialize")?;
        }
    }

    /// A crowd of 1..40 characters (partial packs included) equals the
    /// reference run character by character. (Crowds this small run on the
    /// calling thread, so thread counts are compared in
    /// `threads_do_not_change_bits`, on work that splits.)
    #[test]
    fn crowd_fk_matches_reference(parents in parents(20), chars in 1usize..40, seed in proptest::collection::vec(kform(5.0), 20 * 40)) {
        let j = parents.len();
        let skel = Skeleton::new(parents.clone()).unwrap();
        let poses: Vec<Pose> = (0..chars).map(|c| Pose::from_kforms(&seed[c * j..(c + 1) * j])).collect();
        let local = CrowdPose::from_poses(&poses, j).unwrap();
        let mut g1 = CrowdPose::new(chars, j).unwrap();
        batch::crowd::op_fk(&mut g1, &local, &skel).unwrap();
        let mut back = CrowdPose::new(chars, j).unwrap();
        batch::crowd::op_bk(&mut back, &g1, &skel).unwrap();
        for (c, pose) in poses.iter().enumerate() {
            let mut want = Pose::new(j);
            r::op_fk(&mut want, pose, &parents).unwrap();
            let scale = (0..j).fold(0.0f32, |m, k| m.max(mag(want.get(k))));
            for k in 0..j {
                check(g1.get(c, k).unwrap(), want.get(k), scale, CHAIN, &format!("crowd fk char {c} joint {k}"))?;
                check(back.get(c, k).unwrap(), pose.get(k), scale, CHAIN, &format!("crowd bk char {c} joint {k}"))?;
            }
        }
    }
}

/// Many packs across threads: bit-identical outputs for 1, 2 and 3 threads,
/// on work well above `batch::SERIAL_BELOW_NS` (50 µs) for every kernel, so
/// rayon splits it into many tasks: 2,000 characters × 31 joints (250 packs:
/// 155 µs of FK at 20 ns per pack-joint, 93 µs of finite differences at 12,
/// 465 µs of inertialization at 60, 1.2 ms of sampling at 150), 1.6 million
/// dampers (200,000 packs at 1 ns) and 200,000 quaternion exponentials
/// (25,000 packs at 12 ns). The costs are those of `batch::cost_ns`.
#[test]
fn threads_do_not_change_bits() {
    const C: usize = 2000;
    let skel = Skeleton::new((0..31).map(|i| i - 1).collect()).unwrap();
    let clip = kineform::data::default_clip().clip;
    let pose = |phase: f32| {
        let mut p = CrowdPose::new(C, 31).unwrap();
        for c in 0..C {
            for j in 0..31 {
                let f = (c * 31 + j) as f32 + phase;
                p.set(
                    c,
                    j,
                    Kform {
                        pos: Vec3::new(f.sin(), f.cos(), 0.5),
                        rot: r::quat_from_scaled_angle_axis(Vec3::new(
                            0.01 * f.sin(),
                            0.3,
                            f.cos(),
                        )),
                        ang: Vec3::new(0.1, f.sin(), 0.0),
                        vel: Vec3::new(f.cos(), 0.0, 1.0),
                        ..Kform::IDENTITY
                    },
                );
            }
        }
        p
    };
    let (local, prev) = (pose(0.0), pose(0.01));
    let times: Vec<f32> = (0..C).map(|c| (c % 97) as f32 * 0.02).collect();
    let run = |threads: usize| {
        pool(threads).install(|| {
            let mut outs: Vec<Vec<f32>> = Vec::new();
            let mut g = CrowdPose::new(C, 31).unwrap();
            batch::crowd::op_fk(&mut g, &local, &skel).unwrap();
            outs.push(g.as_f32s().to_vec());
            let mut d = CrowdPose::new(C, 31).unwrap();
            batch::crowd::op_finite_diff(&mut d, &local, &prev, 1.0 / 60.0).unwrap();
            outs.push(d.as_f32s().to_vec());
            let mut off = CrowdPose::new(C, 31).unwrap();
            batch::crowd::op_inertialize_offset(&mut off, &prev, &local).unwrap();
            let mut o = CrowdPose::new(C, 31).unwrap();
            batch::crowd::op_inertialize(&mut o, &off, &local, &times, 0.3).unwrap();
            outs.push(o.as_f32s().to_vec());
            let mut s = CrowdPose::new(C, 31).unwrap();
            batch::crowd::op_sample_linear(&mut s, &clip, &times).unwrap();
            outs.push(s.as_f32s().to_vec());
            let n = 1_600_000;
            let mut v =
                F32Stream::from_elems(&(0..n).map(|i| (i % 1000) as f32).collect::<Vec<_>>())
                    .unwrap();
            batch::damper_exact(&mut v, &F32Stream::new(n).unwrap(), 0.2, 0.016).unwrap();
            outs.push(v.as_f32s().to_vec());
            let w: Vec<Vec3> = (0..200_000)
                .map(|i| Vec3::new((i % 7) as f32 * 0.3, 0.2, -0.1))
                .collect();
            let mut q = QuatStream::new(w.len()).unwrap();
            batch::quat_exp(&mut q, &Vec3Stream::from_elems(&w).unwrap()).unwrap();
            outs.push(q.as_f32s().to_vec());
            outs
        })
    };
    let one = run(1);
    for t in [2, 3] {
        let other = run(t);
        for (k, (a, b)) in one.iter().zip(&other).enumerate() {
            assert!(
                a.iter().zip(b).all(|(a, b)| a.to_bits() == b.to_bits()),
                "kernel {k} differs at {t} threads"
            );
        }
    }
}

fn bits(s: &[f32]) -> Vec<u32> {
    s.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn refusals_write_nothing() {
    let mut x = F32Stream::from_elems(&[1.0, 2.0, 3.0]).unwrap();
    let before = bits(x.as_f32s());
    let short = F32Stream::new(2).unwrap();
    assert!(matches!(
        batch::damper_exact(&mut x, &short, 0.1, 0.1),
        Err(Error::Length {
            what: "goal",
            expected: 3,
            got: 2
        })
    ));
    for (h, dt) in [
        (f32::NAN, 0.1),
        (-0.1, 0.1),
        (f32::INFINITY, 0.1),
        (0.1, -0.016),
        (0.1, f32::NAN),
    ] {
        let e = batch::damper_exact(&mut x, &F32Stream::new(3).unwrap(), h, dt).unwrap_err();
        assert!(matches!(e, Error::Parameter { .. }), "{e}");
        let e = batch::damper_decay_exact(&mut x, h, dt).unwrap_err();
        assert!(e.to_string().contains("must be finite and >= 0"), "{e}");
    }
    assert_eq!(bits(x.as_f32s()), before, "a refused call wrote");

    let mut v = F32Stream::new(4).unwrap();
    assert!(batch::decay_spring_damper_exact(&mut x, &mut v, 0.1, 0.1).is_err());
    assert_eq!(bits(x.as_f32s()), before);

    let mut q = QuatStream::from_elems(&[Quat::IDENTITY; 9]).unwrap();
    let qb = bits(q.as_f32s());
    assert!(batch::quat_exp(&mut q, &Vec3Stream::new(8).unwrap()).is_err());
    assert_eq!(bits(q.as_f32s()), qb);

    let mut out = KformStream::new(5).unwrap();
    let ob = bits(out.as_f32s());
    assert!(
        batch::op_inertialize(
            &mut out,
            &KformStream::new(5).unwrap(),
            &KformStream::new(5).unwrap(),
            0.1,
            -1.0
        )
        .is_err()
    );
    assert!(
        batch::op_inertialize(
            &mut out,
            &KformStream::new(4).unwrap(),
            &KformStream::new(5).unwrap(),
            0.1,
            1.0
        )
        .is_err()
    );
    assert_eq!(bits(out.as_f32s()), ob);

    let skel = Skeleton::new(vec![-1, 0, 1]).unwrap();
    let mut g = CrowdPose::new(9, 3).unwrap();
    let gb = bits(g.as_f32s());
    assert!(batch::crowd::op_fk(&mut g, &CrowdPose::new(9, 4).unwrap(), &skel).is_err());
    assert!(batch::crowd::op_fk(&mut g, &CrowdPose::new(8, 3).unwrap(), &skel).is_err());
    let wrong = Skeleton::new(vec![-1, 0]).unwrap();
    let e = batch::crowd::op_fk(&mut g, &CrowdPose::new(9, 3).unwrap(), &wrong).unwrap_err();
    assert_eq!(e.to_string(), "skeleton joints: expected length 2, got 3");
    assert!(
        batch::crowd::op_inertialize(
            &mut g,
            &CrowdPose::new(9, 3).unwrap(),
            &CrowdPose::new(9, 3).unwrap(),
            &[0.0; 8],
            0.2
        )
        .is_err()
    );
    assert!(
        batch::crowd::op_inertialize(
            &mut g,
            &CrowdPose::new(9, 3).unwrap(),
            &CrowdPose::new(9, 3).unwrap(),
            &[f32::NAN; 9],
            0.2
        )
        .is_err()
    );
    assert!(
        batch::crowd::op_finite_diff(
            &mut g,
            &CrowdPose::new(9, 3).unwrap(),
            &CrowdPose::new(9, 3).unwrap(),
            -1.0
        )
        .is_err()
    );
    assert_eq!(bits(g.as_f32s()), gb, "a refused crowd call wrote");
}

#[test]
fn skeleton_errors_name_the_joint() {
    let e = |p: Vec<i32>| Skeleton::new(p).unwrap_err().to_string();
    assert_eq!(
        e(vec![]),
        "skeleton joint 0: a skeleton needs at least one joint (a root)"
    );
    assert_eq!(
        e(vec![0]),
        "skeleton joint 0: parent 0 must be -1 (a root) or a joint index smaller than 0"
    );
    assert_eq!(
        e(vec![-1, 0, 3, 1]),
        "skeleton joint 2: parent 3 must be -1 (a root) or a joint index smaller than 2"
    );
    assert_eq!(
        e(vec![-1, -2]),
        "skeleton joint 1: parent -2 must be -1 (a root) or a joint index smaller than 1"
    );
    assert!(e(vec![-1; 65_536]).contains("at most 65535"));
    assert!(Skeleton::new(vec![-1; 65_535]).is_ok());
    assert!(Skeleton::with_names(vec![-1, 0], vec!["a".into()]).is_err());
    let s = Skeleton::new(vec![-1, 0, 1, -1, 3]).unwrap();
    assert_eq!((s.len(), s.depth(), s.find("joint3")), (5, 3, Some(3)));
}

#[test]
fn stream_views_and_padding() {
    let v: Vec<Vec3> = (0..11).map(|i| Vec3::new(i as f32, 0.5, -1.0)).collect();
    let mut s = Vec3Stream::from_elems(&v).unwrap();
    assert_eq!(
        (s.len(), s.packs().len(), s.as_f32s().len()),
        (11, 2, 2 * 24)
    );
    // Element 9 is lane 1 of pack 1: its x sits after pack 0's 24 floats.
    assert_eq!(s.as_f32s()[24 + 1], 9.0);
    // Padding lanes hold the default (zero) and never show in to_vec.
    assert_eq!(s.as_f32s()[24 + 7], 0.0);
    assert_eq!(s.to_vec(), v);
    assert!(s.set(10, Vec3::ONE) && !s.set(11, Vec3::ONE));
    assert_eq!(s.get(10), Some(Vec3::ONE));
    // Quaternion padding is the identity.
    let q = QuatStream::new(3).unwrap();
    assert_eq!(q.as_f32s()[7], 1.0);
    // The float view is aligned for lane types whatever the allocator did.
    assert_eq!(s.as_f32s_mut().as_ptr() as usize % 32, 0);
    let mut c = CrowdPose::new(9, 2).unwrap();
    assert_eq!((c.packs(), c.lanes().len()), (2, 4));
    assert!(
        c.set(
            8,
            1,
            Kform {
                pos: Vec3::ONE,
                ..Kform::IDENTITY
            }
        ) && !c.set(9, 0, Kform::IDENTITY)
    );
    assert_eq!(c.pose(8).unwrap().pos[1], Vec3::ONE);
    assert!(c.get(9, 0).is_none() && c.pose(9).is_none());
    assert!(CrowdPose::from_poses(&[Pose::new(2), Pose::new(3)], 2).is_err());
}

mod catalogue;
