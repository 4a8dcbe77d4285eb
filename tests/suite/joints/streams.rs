//! The batch entry points over `PoseStream`s: every mode and thread count
//! to the bit, the reference per character, refusals that write nothing.

use super::*;

/// The batch entry points over a crowd of `chars.len()` characters: 1 and
/// 2 threads to the bit, every mode to the bit, the reference per
/// character, BK back to the local pose.
fn batch_fk<T: Jointx8>(parents: &[i32], chars: &[Vec<Kform>]) -> Result<(), TestCaseError> {
    let n = parents.len();
    let skel = Skeleton::new(parents.to_vec()).unwrap();
    let local =
        PoseStream::<T>::from_fn(chars.len(), n, |c, j| T::Elem::from_kform(chars[c][j])).unwrap();
    let run = |threads: usize, mode: FkMode| {
        let mut g = PoseStream::<T>::new(chars.len(), n).unwrap();
        pool(threads)
            .install(|| batch::fk::op_fk_with(&mut g, &local, &skel, mode))
            .unwrap();
        g
    };
    let mut g = PoseStream::<T>::new(chars.len(), n).unwrap();
    pool(1)
        .install(|| batch::fk::op_fk(&mut g, &local, &skel))
        .unwrap();
    for mode in MODES {
        for threads in [1, 2] {
            let other = run(threads, mode);
            prop_assert!(
                bits(other.lanes()) == bits(g.lanes()),
                "{mode:?} on {threads} threads"
            );
        }
    }
    let mut back = PoseStream::<T>::new(chars.len(), n).unwrap();
    batch::fk::op_bk(&mut back, &g, &skel).unwrap();
    for (c, kf) in chars.iter().enumerate() {
        let loc: Vec<T::Elem> = kf[..n].iter().map(|&k| T::Elem::from_kform(k)).collect();
        let mut want = vec![T::Elem::IDENTITY; n];
        r::op_fk_joints(&mut want, &loc, parents).unwrap();
        let scale = want.iter().fold(0.0f32, |m, e| m.max(mag(e.to_kform())));
        for j in 0..n {
            let got = g.get(c, j).unwrap().to_kform();
            check(
                got,
                want[j].to_kform(),
                scale,
                CHAIN,
                &format!("batch fk char {c} joint {j}"),
            )?;
            let got = back.get(c, j).unwrap().to_kform();
            check(
                got,
                loc[j].to_kform(),
                scale,
                CHAIN,
                &format!("batch bk char {c} joint {j}"),
            )?;
        }
    }
    prop_assert!(g.get(chars.len(), 0).is_none() && g.get(0, n).is_none());
    Ok(())
}

fn chars_strategy(joints: usize, max_chars: usize) -> impl Strategy<Value = Vec<Vec<Kform>>> {
    proptest::collection::vec(proptest::collection::vec(kform(5.0), joints), 1..max_chars)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn batch_fk_bk(parents in parents(20), chars in chars_strategy(20, 40)) {
        batch_fk::<PosRotx8>(&parents, &chars)?;
        batch_fk::<PosRotSclx8>(&parents, &chars)?;
        batch_fk::<Motionx8>(&parents, &chars)?;
        batch_fk::<Kformx8>(&parents, &chars)?;
    }
}

/// Enough packs that rayon splits the work: 1, 2 and 3 threads give the
/// same bits for FK and BK of every type (a partial last pack included).
#[test]
fn threads_do_not_change_bits() {
    let parents: Vec<i32> = (0..31)
        .map(|i| if i % 7 == 0 { i / 2 - 1 } else { i - 1 })
        .collect();
    let skel = Skeleton::new(parents).unwrap();
    let kf = |c: usize, j: usize| {
        let f = (c * 31 + j) as f32;
        Kform {
            pos: r::Vec3::new(f.sin(), f.cos(), 0.5),
            rot: r::quat_from_scaled_angle_axis(r::Vec3::new(0.01 * f.sin(), 0.3, f.cos())),
            scl: r::Vec3::new(1.0 + 0.1 * f.cos(), 1.0, 0.9),
            vel: r::Vec3::new(f.cos(), 0.0, 1.0),
            ang: r::Vec3::new(0.1, f.sin(), 0.0),
            svl: r::Vec3::new(0.0, 0.1 * f.sin(), 0.0),
        }
    };
    fn case<T: Jointx8>(skel: &Skeleton, kf: impl Fn(usize, usize) -> Kform) {
        let chars = 4001;
        let local =
            PoseStream::<T>::from_fn(chars, 31, |c, j| T::Elem::from_kform(kf(c, j))).unwrap();
        let run = |threads: usize| {
            let mut g = PoseStream::<T>::new(chars, 31).unwrap();
            let mut b = PoseStream::<T>::new(chars, 31).unwrap();
            pool(threads).install(|| {
                batch::fk::op_fk(&mut g, &local, skel).unwrap();
                batch::fk::op_bk(&mut b, &g, skel).unwrap();
            });
            (bits(g.lanes()), bits(b.lanes()))
        };
        let one = run(1);
        for t in [2, 3] {
            let other = run(t);
            assert!(
                one.0 == other.0,
                "{} fk differs at {t} threads",
                core::any::type_name::<T>()
            );
            assert!(
                one.1 == other.1,
                "{} bk differs at {t} threads",
                core::any::type_name::<T>()
            );
        }
    }
    case::<PosRotx8>(&skel, kf);
    case::<PosRotSclx8>(&skel, kf);
    case::<Motionx8>(&skel, kf);
    case::<Kformx8>(&skel, kf);
}

/// Refused calls return the error that names the mismatch and write
/// nothing; sizes that cannot exist are refused before allocating.
#[test]
fn refusals_write_nothing() {
    fn case<T: Jointx8>() {
        let skel = Skeleton::new(vec![-1, 0, 1]).unwrap();
        let local = PoseStream::<T>::from_fn(9, 3, |c, j| {
            T::Elem::from_kform(Kform {
                pos: r::Vec3::new(c as f32, j as f32, 1.0),
                ..Kform::IDENTITY
            })
        })
        .unwrap();
        let mut g = local.clone();
        let before = bits(g.lanes());
        let e = batch::fk::op_fk(&mut g, &PoseStream::new(9, 4).unwrap(), &skel).unwrap_err();
        assert_eq!(e.to_string(), "local: expected length 3, got 4");
        let e = batch::fk::op_fk(&mut g, &PoseStream::new(8, 3).unwrap(), &skel).unwrap_err();
        assert_eq!(e.to_string(), "local: expected length 9, got 8");
        let wrong = Skeleton::new(vec![-1, 0]).unwrap();
        let e = batch::fk::op_fk(&mut g, &local, &wrong).unwrap_err();
        assert_eq!(e.to_string(), "skeleton joints: expected length 2, got 3");
        let e = batch::fk::op_bk(&mut g, &PoseStream::new(9, 2).unwrap(), &skel).unwrap_err();
        assert_eq!(e.to_string(), "global: expected length 3, got 2");
        let e = batch::fk::op_bk(&mut g, &local, &wrong).unwrap_err();
        assert_eq!(e.to_string(), "skeleton joints: expected length 2, got 3");
        assert!(bits(g.lanes()) == before, "a refused call wrote");

        for (c, j) in [(usize::MAX, 2), (8, usize::MAX), (usize::MAX / 64, 1 << 20)] {
            let e = PoseStream::<T>::new(c, j).unwrap_err();
            assert!(
                matches!(
                    e,
                    Error::Size {
                        what: "pose stream",
                        ..
                    }
                ),
                "{e}"
            );
            let e = PoseStream::<T>::from_fn(c, j, |_, _| panic!("called")).unwrap_err();
            assert!(matches!(e, Error::Size { .. }), "{e}");
        }
        // More than the machine has: the reservation fails, nothing panics.
        let e = PoseStream::<T>::new(1 << 40, 64).unwrap_err();
        assert!(e.to_string().contains("could not be reserved"), "{e}");
        assert!(PoseStream::<T>::new(0, 5).unwrap().lanes().is_empty());
    }
    case::<PosRotx8>();
    case::<PosRotSclx8>();
    case::<Motionx8>();
    case::<Kformx8>();
}
