//! Forward kinematics over packs in every mode against the plain
//! per-joint loop and the reference, and BK back.

use super::*;

/// Packs of eight characters (joint-major within each pack) from one
/// kineform list per character; the last pack padded with identities.
fn packs<T: Jointx8>(chars: &[Vec<Kform>], joints: usize) -> Vec<T> {
    let n = chars.len().div_ceil(8);
    (0..n * joints)
        .map(|k| {
            let (p, j) = (k / joints, k % joints);
            T::from_array(core::array::from_fn(|i| {
                chars
                    .get(p * 8 + i)
                    .map_or(T::Elem::IDENTITY, |c| T::Elem::from_kform(c[j]))
            }))
        })
        .collect()
}

/// FK of three packs (the first two interleaved in the `pairs` modes, the
/// third alone) in every mode, to the bit of the plain per-joint loop and
/// within `CHAIN` of the reference per character; the reference per
/// character to the bit of the article's `op_fk`; BK of the lanes' global
/// pose against the reference's BK.
fn fk_bk<T: Jointx8>(parents: &[i32], chars: &[Vec<Kform>]) -> Result<(), TestCaseError> {
    let n = parents.len();
    let skel = Skeleton::new(parents.to_vec()).unwrap();
    let local: Vec<T> = packs(chars, n);
    let mut plain = vec![T::IDENTITY; local.len()];
    for (g, l) in plain.chunks_mut(n).zip(local.chunks(n)) {
        lanes::op_fk_joints(g, l, parents).unwrap();
    }
    for mode in MODES {
        let mut g = vec![T::IDENTITY; local.len()];
        lanes::fk_packs(&mut g, &local, skel.chains(), mode).unwrap();
        prop_assert!(
            bits(&g) == bits(&plain),
            "{mode:?} differs from op_fk_joints"
        );
    }
    let mut back = vec![T::IDENTITY; local.len()];
    for (b, g) in back.chunks_mut(n).zip(plain.chunks(n)) {
        lanes::op_bk_joints(b, g, parents).unwrap();
    }
    for (c, kf) in chars.iter().enumerate() {
        let loc: Vec<T::Elem> = kf[..n].iter().map(|&k| T::Elem::from_kform(k)).collect();
        let mut want = vec![T::Elem::IDENTITY; n];
        r::op_fk_joints(&mut want, &loc, parents).unwrap();
        let mut article = Pose::new(n);
        let loc_k: Vec<Kform> = loc.iter().map(|e| e.to_kform()).collect();
        r::op_fk(&mut article, &Pose::from_kforms(&loc_k), parents).unwrap();
        let mut want_back = vec![T::Elem::IDENTITY; n];
        r::op_bk_joints(&mut want_back, &want, parents).unwrap();
        let scale = want.iter().fold(0.0f32, |m, e| m.max(mag(e.to_kform())));
        for j in 0..n {
            let what = |w: &str| format!("{w} char {c} joint {j}");
            same(
                want[j],
                T::Elem::from_kform(article.get(j)),
                &what("op_fk_joints vs op_fk"),
            )?;
            let got = plain[(c / 8) * n + j].to_array()[c % 8];
            check(
                got.to_kform(),
                want[j].to_kform(),
                scale,
                CHAIN,
                &what("lanes fk"),
            )?;
            let got = back[(c / 8) * n + j].to_array()[c % 8];
            check(
                got.to_kform(),
                want_back[j].to_kform(),
                scale,
                CHAIN,
                &what("lanes bk"),
            )?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn fk_packs_every_mode(parents in parents(40), chars in proptest::collection::vec(proptest::collection::vec(kform(5.0), 40), 17..=24)) {
        fk_bk::<PosRotx8>(&parents, &chars)?;
        fk_bk::<PosRotSclx8>(&parents, &chars)?;
        fk_bk::<Motionx8>(&parents, &chars)?;
        fk_bk::<Kformx8>(&parents, &chars)?;
    }
}
