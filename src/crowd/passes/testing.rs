//! Helpers the passes' unit tests share: random lanes and joints, and a
//! comparison of two joints within the paired kernels' rounding.

use crate::crowd::motion::Motionx8;
use crate::lanes::{self, F32x8, Quatx8, Vec3x8};
use rand::Rng;

/// Eight values drawn uniformly from `lo..hi`.
pub(super) fn lanes(r: &mut rand_pcg::Pcg32, lo: f32, hi: f32) -> F32x8 {
    F32x8::new(core::array::from_fn(|_| r.random_range(lo..hi)))
}

/// Eight vectors, each component drawn from `-s..s`.
pub(super) fn vec3(r: &mut rand_pcg::Pcg32, s: f32) -> Vec3x8 {
    Vec3x8::new(lanes(r, -s, s), lanes(r, -s, s), lanes(r, -s, s))
}

/// A unit quaternion per lane, either sign.
pub(super) fn quat(r: &mut rand_pcg::Pcg32) -> Quatx8 {
    let q = Quatx8::new(
        lanes(r, -1.0, 1.0),
        lanes(r, -1.0, 1.0),
        lanes(r, -1.0, 1.0),
        lanes(r, -1.0, 1.0),
    );
    lanes::quat_normalize(q)
}

/// A random joint of eight characters: positions within 1, unit
/// rotations, velocities within 2, angular velocities within 3.
pub(super) fn motion(r: &mut rand_pcg::Pcg32) -> Motionx8 {
    Motionx8 {
        pos: vec3(r, 1.0),
        rot: quat(r),
        vel: vec3(r, 2.0),
        ang: vec3(r, 3.0),
    }
}

/// `n` random joints ([`motion`]).
pub(super) fn motions(r: &mut rand_pcg::Pcg32, n: usize) -> Vec<Motionx8> {
    (0..n).map(|_| motion(r)).collect()
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
