//! Helpers the passes' unit tests share: random lanes, and a comparison of
//! two joints within the paired kernels' rounding.

use crate::crowd::motion::Motionx8;
use crate::lanes::F32x8;
use rand::Rng;

/// Eight values drawn uniformly from `lo..hi`.
pub(super) fn lanes(r: &mut rand_pcg::Pcg32, lo: f32, hi: f32) -> F32x8 {
    F32x8::new(core::array::from_fn(|_| r.random_range(lo..hi)))
}

/// `a` and `b` equal float for float within `1e-5 (1 + |b|)`: the paired
/// kernels choose one form of their exponentials and logarithms for two
/// joints, which may round differently from the single joint's choice;
/// NaN fails.
pub(super) fn close(a: &Motionx8, b: &Motionx8, what: &str) {
    let a: &[f32] = bytemuck::cast_slice(core::slice::from_ref(a));
    let b: &[f32] = bytemuck::cast_slice(core::slice::from_ref(b));
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let ok = (x - y).abs() <= 1e-5 * (1.0 + y.abs());
        assert!(ok, "{what}: float {i}: {x} against {y}");
    }
}
