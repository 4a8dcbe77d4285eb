//! The reference's `mul`, `div` and `inv` of each joint type against the
//! article's `kform_*` on the fields it holds, and the lanes against the
//! reference.

use super::*;

fn reference_is_restricted_kform<J: Joint>(v: Kform, w: Kform) -> Result<(), TestCaseError> {
    let (v, w) = (J::from_kform(v), J::from_kform(w));
    let (kv, kw) = (v.to_kform(), w.to_kform());
    same(J::mul(v, w), J::from_kform(r::kform_mul(kv, kw)), "mul")?;
    same(J::div(v, w), J::from_kform(r::kform_div(kv, kw)), "div")?;
    same(J::inv(v), J::from_kform(r::kform_inv(kv)), "inv")
}

fn lanes_match_reference<T: Jointx8>(a: [Kform; 8], b: [Kform; 8]) -> Result<(), TestCaseError> {
    let (ea, eb) = (a.map(T::Elem::from_kform), b.map(T::Elem::from_kform));
    let (x, y) = (T::from_array(ea), T::from_array(eb));
    let (mul, div, inv) = (
        T::mul(&x, &y).to_array(),
        T::div(&x, &y).to_array(),
        T::inv(&x).to_array(),
    );
    for i in 0..8 {
        let (ka, kb) = (ea[i].to_kform(), eb[i].to_kform());
        let s = 8.0 * mag(ka).max(mag(kb));
        let want = T::Elem::mul(ea[i], eb[i]).to_kform();
        let floors = kform_mul_floors(ka, kb);
        check_floors(
            mul[i].to_kform(),
            want,
            &floors,
            ARITH,
            &format!("mul lane {i}"),
        )?;
        let want = T::Elem::div(ea[i], eb[i]).to_kform();
        check(div[i].to_kform(), want, s, ARITH, &format!("div lane {i}"))?;
        let want = T::Elem::inv(ea[i]).to_kform();
        check(inv[i].to_kform(), want, s, ARITH, &format!("inv lane {i}"))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn reference_joints_are_restricted_kforms(v in kform(5.0), w in kform(5.0)) {
        reference_is_restricted_kform::<PosRot>(v, w)?;
        reference_is_restricted_kform::<PosRotScl>(v, w)?;
        reference_is_restricted_kform::<Motion>(v, w)?;
        reference_is_restricted_kform::<Kform>(v, w)?;
    }

    #[test]
    fn lane_joints_match_reference(a in arr8(kform(5.0)), b in arr8(kform(5.0))) {
        lanes_match_reference::<PosRotx8>(a, b)?;
        lanes_match_reference::<PosRotSclx8>(a, b)?;
        lanes_match_reference::<Motionx8>(a, b)?;
        lanes_match_reference::<Kformx8>(a, b)?;
    }
}
