//! The comparison of a lane's result with the reference's, and the
//! tolerances of the kernel families (those of `tests/suite/equivalence.rs`).

use kineform::reference::Kform;

pub(super) fn parts(k: Kform) -> [f32; 19] {
    [
        k.pos.x, k.pos.y, k.pos.z, k.rot.w, k.rot.x, k.rot.y, k.rot.z, k.scl.x, k.scl.y, k.scl.z,
        k.vel.x, k.vel.y, k.vel.z, k.ang.x, k.ang.y, k.ang.z, k.svl.x, k.svl.y, k.svl.z,
    ]
}

/// `|a - b| <= abs + rel * max(scale, |b|)` per component, the scale taken
/// from the reference `b` alone (so a huge or infinite lane result cannot
/// widen its own tolerance); where either side is not finite, both must be
/// the same infinity or both NaN.
pub(super) fn close(what: &str, got: &[f32], want: &[f32], scale: f32, abs: f32, rel: f32) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        let ok = if a.is_finite() && b.is_finite() {
            (a - b).abs() <= abs + rel * scale.max(b.abs())
        } else {
            a == b || (a.is_nan() && b.is_nan())
        };
        assert!(
            ok,
            "{what}[{i}]: lanes {a:e} vs reference {b:e}\n lanes {got:?}\n ref   {want:?}"
        );
    }
}

pub(super) const ARITH: (f32, f32) = (0.0, 2e-6);
pub(super) const SPRING: (f32, f32) = (1e-6, 4e-6);
pub(super) const TRANSC: (f32, f32) = (4e-6, 4e-6);
