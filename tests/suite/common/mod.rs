//! Shared strategies and comparisons for the integration tests.
#![allow(dead_code)]

use kineform::reference::{Kform, Quat, Vec3, quat_from_scaled_angle_axis};
use proptest::prelude::*;

/// Values that can be compared with a tolerance.
pub trait Approx: Copy + core::fmt::Debug {
    /// Components as floats.
    fn parts(self) -> Vec<f32>;
    /// Components grouped by field; each group is scaled by its own
    /// magnitude, so a small field next to a large one is still checked
    /// tightly.
    fn groups(self) -> Vec<Vec<f32>> {
        vec![self.parts()]
    }
}
impl Approx for f32 {
    fn parts(self) -> Vec<f32> {
        vec![self]
    }
}
impl Approx for Vec3 {
    fn parts(self) -> Vec<f32> {
        self.to_array().to_vec()
    }
}
impl Approx for Quat {
    fn parts(self) -> Vec<f32> {
        self.to_array().to_vec()
    }
}
impl Approx for Kform {
    fn parts(self) -> Vec<f32> {
        let mut v = self.pos.parts();
        v.extend(self.rot.parts());
        v.extend(self.scl.parts());
        v.extend(self.vel.parts());
        v.extend(self.ang.parts());
        v.extend(self.svl.parts());
        v
    }
    fn groups(self) -> Vec<Vec<f32>> {
        vec![
            self.pos.parts(),
            self.rot.parts(),
            self.scl.parts(),
            self.vel.parts(),
            self.ang.parts(),
            self.svl.parts(),
        ]
    }
}
impl<A: Approx, B: Approx> Approx for (A, B) {
    fn parts(self) -> Vec<f32> {
        let mut v = self.0.parts();
        v.extend(self.1.parts());
        v
    }
    fn groups(self) -> Vec<Vec<f32>> {
        let mut g = self.0.groups();
        g.extend(self.1.groups());
        g
    }
}
impl<A: Approx, B: Approx, C: Approx> Approx for (A, B, C) {
    fn parts(self) -> Vec<f32> {
        let mut v = self.0.parts();
        v.extend(self.1.parts());
        v.extend(self.2.parts());
        v
    }
    fn groups(self) -> Vec<Vec<f32>> {
        let mut g = self.0.groups();
        g.extend(self.1.groups());
        g.extend(self.2.groups());
        g
    }
}
impl<A: Approx, B: Approx, C: Approx, D: Approx> Approx for (A, B, C, D) {
    fn parts(self) -> Vec<f32> {
        let mut v = self.0.parts();
        v.extend(self.1.parts());
        v.extend(self.2.parts());
        v.extend(self.3.parts());
        v
    }
    fn groups(self) -> Vec<Vec<f32>> {
        let mut g = self.0.groups();
        g.extend(self.1.groups());
        g.extend(self.2.groups());
        g.extend(self.3.groups());
        g
    }
}

/// A tolerance: component `i` passes when `|a - b| <= abs + rel * scale`,
/// `scale` being the largest magnitude among the compared values' components
/// and the inputs' (`input_scale`). NaN must match NaN.
#[derive(Clone, Copy, Debug)]
pub struct Tol {
    pub abs: f32,
    pub rel: f32,
}

impl Tol {
    pub const fn new(abs: f32, rel: f32) -> Tol {
        Tol { abs, rel }
    }
}

/// Checks `got` against `want` group by group (field by field): a
/// component passes when `|a - b| <= abs + rel * scale`, `scale` being the
/// larger of `input_scale` (the magnitude of the inputs, whose rounding
/// propagates) and the group's own largest finite magnitude. NaN must match
/// NaN and infinities must be equal.
pub fn check<T: Approx>(
    got: T,
    want: T,
    input_scale: f32,
    tol: Tol,
    what: &str,
) -> Result<(), TestCaseError> {
    let floors = vec![input_scale; got.groups().len()];
    check_floors(got, want, &floors, tol, what)
}

/// [`check`] with one input-magnitude floor per field (group): the size of
/// the largest intermediate that field's formula adds or subtracts.
pub fn check_floors<T: Approx>(
    got: T,
    want: T,
    floors: &[f32],
    tol: Tol,
    what: &str,
) -> Result<(), TestCaseError> {
    for (gi, (g, w)) in got.groups().into_iter().zip(want.groups()).enumerate() {
        let input_scale = floors[gi];
        let scale = g
            .iter()
            .chain(&w)
            .filter(|x| x.is_finite())
            .fold(input_scale.abs(), |m, x| m.max(x.abs()));
        for (i, (a, b)) in g.iter().zip(&w).enumerate() {
            let ok = if a.is_nan() || b.is_nan() {
                a.is_nan() && b.is_nan()
            } else if a.is_infinite() || b.is_infinite() {
                a == b
            } else {
                (a - b).abs() <= tol.abs + tol.rel * scale
            };
            if !ok {
                return Err(TestCaseError::fail(format!(
                    "{what}: field {gi} component {i}: lanes {a:e} vs reference {b:e} (diff {:e}, allowed {:e})\n lanes {got:?}\n ref   {want:?}",
                    (a - b).abs(),
                    tol.abs + tol.rel * scale
                )));
            }
        }
    }
    Ok(())
}

/// Largest component magnitude of values.
pub fn mag<T: Approx>(v: T) -> f32 {
    v.parts().iter().fold(0.0f32, |m, x| m.max(x.abs()))
}

pub fn f32_in(lo: f32, hi: f32) -> impl Strategy<Value = f32> {
    lo..hi
}

pub fn vec3_in(r: f32) -> impl Strategy<Value = Vec3> {
    (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

/// Vectors with edge cases mixed in: zero, tiny (below the 1e-8 branch
/// thresholds), axis-aligned, and general ones up to `r`.
pub fn vec3_edgy(r: f32) -> impl Strategy<Value = Vec3> {
    prop_oneof![
        6 => vec3_in(r),
        1 => Just(Vec3::ZERO),
        1 => vec3_in(1e-9),
        1 => (-r..r).prop_map(|x| Vec3::new(x, 0.0, 0.0)),
        1 => (-r..r).prop_map(|y| Vec3::new(0.0, y, 0.0)),
    ]
}

/// Unit quaternions covering all of SO(3) and both signs of w.
pub fn unit_quat() -> impl Strategy<Value = Quat> {
    (vec3_in(1.0), 0.0f32..std::f32::consts::PI, any::<bool>()).prop_map(|(axis, angle, neg)| {
        let a = kineform::reference::normalize(axis);
        let q = quat_from_scaled_angle_axis(a * (2.0 * angle));
        if neg { -q } else { q }
    })
}

/// A quaternion orthogonal to `q` in 4D (a half turn away, a hemisphere
/// tie): kinds 0 to 2 permute and negate `q`'s components (exactly
/// orthogonal; the reference's dot product is 0 or a residue of its own
/// rounding), kind 3 is `q u` for the pure unit quaternion along `u`
/// (orthogonal up to the product's rounding).
pub fn orthogonal(q: Quat, kind: u8, u: Vec3) -> Quat {
    match kind % 4 {
        0 => Quat::new(-q.x, q.w, -q.z, q.y),
        1 => Quat::new(-q.y, q.z, q.w, -q.x),
        2 => Quat::new(-q.z, -q.y, q.x, q.w),
        _ => {
            let a = kineform::reference::normalize(u + Vec3::new(1e-3, 0.0, 0.0));
            kineform::reference::quat_mul(q, Quat::new(0.0, a.x, a.y, a.z))
        }
    }
}

/// Quaternions with edge cases: identity, negative identity, half turns,
/// slightly denormalized (|w| > 1), tiny rotations.
pub fn quat_edgy() -> impl Strategy<Value = Quat> {
    prop_oneof![
        6 => unit_quat(),
        1 => Just(Quat::IDENTITY),
        1 => Just(Quat::new(-1.0, 0.0, 0.0, 0.0)),
        1 => Just(Quat::new(0.0, 0.0, 1.0, 0.0)),
        1 => unit_quat().prop_map(|q| q * 1.000_001),
        1 => vec3_in(1e-4).prop_map(quat_from_scaled_angle_axis),
    ]
}

/// Random kineforms: positions and velocities up to `r`, unit rotations,
/// scales in [0.5, 2], scalar velocities up to 1.
pub fn kform(r: f32) -> impl Strategy<Value = Kform> {
    (
        vec3_in(r),
        unit_quat(),
        (0.5f32..2.0, 0.5f32..2.0, 0.5f32..2.0),
        vec3_in(r),
        vec3_in(3.0),
        vec3_in(1.0),
    )
        .prop_map(|(pos, rot, (sx, sy, sz), vel, ang, svl)| Kform {
            pos,
            rot,
            scl: Vec3::new(sx, sy, sz),
            vel,
            ang,
            svl,
        })
}

/// Random parent-first hierarchies of `1..max` joints with one or more roots.
pub fn parents(max: usize) -> impl Strategy<Value = Vec<i32>> {
    (1..max).prop_flat_map(|n| {
        proptest::collection::vec(any::<proptest::sample::Index>(), n).prop_map(|idx| {
            idx.iter()
                .enumerate()
                .map(|(i, ix)| {
                    if i == 0 || ix.index(8) == 0 {
                        -1
                    } else {
                        ix.index(i) as i32
                    }
                })
                .collect()
        })
    })
}

pub fn arr8<S: Strategy>(s: S) -> proptest::array::UniformArrayStrategy<S, [S::Value; 8]> {
    proptest::array::uniform8(s)
}

use kineform::lanes::{F32x8, Kformx8, Quatx8, Vec3x8};

/// Lane values split into their eight elements.
pub trait Split {
    type Elem: Approx;
    fn split(self) -> [Self::Elem; 8];
}
impl Split for F32x8 {
    type Elem = f32;
    fn split(self) -> [f32; 8] {
        self.to_array()
    }
}
impl Split for Vec3x8 {
    type Elem = Vec3;
    fn split(self) -> [Vec3; 8] {
        self.to_array()
    }
}
impl Split for Quatx8 {
    type Elem = Quat;
    fn split(self) -> [Quat; 8] {
        self.to_array()
    }
}
impl Split for Kformx8 {
    type Elem = Kform;
    fn split(self) -> [Kform; 8] {
        self.to_array()
    }
}
impl<A: Split, B: Split> Split for (A, B) {
    type Elem = (A::Elem, B::Elem);
    fn split(self) -> [Self::Elem; 8] {
        let (a, b) = (self.0.split(), self.1.split());
        core::array::from_fn(|i| (a[i], b[i]))
    }
}
impl<A: Split, B: Split, C: Split> Split for (A, B, C) {
    type Elem = (A::Elem, B::Elem, C::Elem);
    fn split(self) -> [Self::Elem; 8] {
        let (a, b, c) = (self.0.split(), self.1.split(), self.2.split());
        core::array::from_fn(|i| (a[i], b[i], c[i]))
    }
}
impl<A: Split, B: Split, C: Split, D: Split> Split for (A, B, C, D) {
    type Elem = (A::Elem, B::Elem, C::Elem, D::Elem);
    fn split(self) -> [Self::Elem; 8] {
        let (a, b, c, d) = (
            self.0.split(),
            self.1.split(),
            self.2.split(),
            self.3.split(),
        );
        core::array::from_fn(|i| (a[i], b[i], c[i], d[i]))
    }
}

pub fn f8(a: [f32; 8]) -> F32x8 {
    F32x8::new(a)
}
pub fn v8(a: [Vec3; 8]) -> Vec3x8 {
    Vec3x8::from_array(a)
}
pub fn q8(a: [Quat; 8]) -> Quatx8 {
    Quatx8::from_array(a)
}
pub fn k8(a: [Kform; 8]) -> Kformx8 {
    Kformx8::from_array(a)
}

/// Checks every lane of a lane result against the reference evaluated on
/// that lane's inputs; `scale(i)` is lane i's input magnitude.
pub fn check_lanes<L: Split>(
    got: L,
    want: impl Fn(usize) -> L::Elem,
    scale: impl Fn(usize) -> f32,
    tol: Tol,
    what: &str,
) -> Result<(), TestCaseError> {
    for (i, g) in got.split().into_iter().enumerate() {
        check(g, want(i), scale(i), tol, &format!("{what} lane {i}"))?;
    }
    Ok(())
}

/// Per-field floors for `kform_mul(v, w)`, from its formula: each term's
/// magnitude bound (a cross product of components bounded by a and b is
/// bounded by 2ab per component).
pub fn kform_mul_floors(v: Kform, w: Kform) -> [f32; 6] {
    let (vp, ws, vs) = (mag(v.pos), mag(w.pos), mag(v.scl));
    let lever = 2.0 * ws * vs;
    [
        vp + lever,
        1.0,
        mag(w.scl) * vs,
        mag(v.vel) + 2.0 * mag(w.vel) * vs + 4.0 * mag(v.ang) * lever + 2.0 * lever * mag(v.svl),
        mag(v.ang) + 2.0 * mag(w.ang),
        mag(v.svl) + mag(w.svl),
    ]
}

/// Eight poses of `n` joints as one pose of eight characters.
pub fn poses8(p: &[kineform::reference::Pose]) -> Vec<Kformx8> {
    (0..p[0].len())
        .map(|j| Kformx8::from_array(core::array::from_fn(|c| p[c].get(j))))
        .collect()
}

/// Random poses of `n` joints for eight characters.
pub fn pose_strategy(n: usize, r: f32) -> impl Strategy<Value = Vec<kineform::reference::Pose>> {
    proptest::collection::vec(proptest::collection::vec(kform(r), n), 8).prop_map(|v| {
        v.iter()
            .map(|k| kineform::reference::Pose::from_kforms(k))
            .collect()
    })
}

/// Largest component magnitude over a pose.
pub fn pose_mag(p: &kineform::reference::Pose) -> f32 {
    (0..p.len()).fold(0.0f32, |m, j| m.max(mag(p.get(j))))
}

/// The pose advanced by `t` along its own velocities: `pos + vel t`,
/// `exp(ang t / 2) rot`, `scl exp(svl t)`.
pub fn advance(p: &kineform::reference::Pose, t: f32) -> kineform::reference::Pose {
    use kineform::reference as r;
    let k: Vec<Kform> = p
        .to_kforms()
        .into_iter()
        .map(|k| Kform {
            pos: k.pos + k.vel * t,
            rot: r::quat_integrate_angular_velocity(k.ang, k.rot, t),
            scl: k.scl * r::exp_vec3(k.svl * t),
            ..k
        })
        .collect();
    kineform::reference::Pose::from_kforms(&k)
}

/// Largest gap, relative to `floor + |v|`, between the velocity fields of
/// `p` and the central difference of `at(t)` over `±h`.
pub fn fd_gap(
    p: &kineform::reference::Pose,
    at: impl Fn(f32) -> kineform::reference::Pose,
    h: f32,
    floor: f32,
) -> f32 {
    use kineform::reference as r;
    let (next, prev) = (at(h), at(-h));
    let mut fd = p.clone();
    r::op_finite_diff(&mut fd, &next, &prev, 2.0 * h).unwrap();
    let mut worst = 0.0f32;
    for j in 0..p.len() {
        for (a, b) in [
            (p.vel[j], fd.vel[j]),
            (p.ang[j], fd.ang[j]),
            (p.svl[j], fd.svl[j]),
        ] {
            worst = worst.max(r::length(a - b) / (floor + r::length(b)));
        }
    }
    worst
}

/// A pair of poses of `n` joints that differ the way blended or
/// inertialized poses do: the second is the first turned by up to 0.3 rad
/// per joint, moved by up to 0.3, with velocities changed by up to 1.
pub fn similar_pose_pair(
    n: usize,
) -> impl Strategy<Value = (kineform::reference::Pose, kineform::reference::Pose)> {
    use kineform::reference as r;
    let joint = (
        kform(3.0),
        vec3_in(0.15),
        vec3_in(0.3),
        vec3_in(1.0),
        vec3_in(1.0),
        -0.1f32..0.1,
    );
    proptest::collection::vec(joint, n).prop_map(|js| {
        let a: Vec<Kform> = js
            .iter()
            .map(|j| Kform {
                ang: j.0.ang * 0.6,
                svl: j.0.svl * 0.2,
                ..j.0
            })
            .collect();
        let b: Vec<Kform> = js
            .iter()
            .zip(&a)
            .map(|(j, k)| Kform {
                pos: k.pos + j.2,
                rot: r::quat_mul(r::quat_from_scaled_angle_axis(j.1 * 2.0), k.rot),
                scl: k.scl * (1.0 + j.5),
                vel: k.vel + j.3,
                ang: k.ang + j.4,
                svl: k.svl + j.4 * 0.1,
            })
            .collect();
        (r::Pose::from_kforms(&a), r::Pose::from_kforms(&b))
    })
}

/// Like [`fd_gap`], field by field: (vel, ang, svl).
pub fn fd_gaps(
    p: &kineform::reference::Pose,
    at: impl Fn(f32) -> kineform::reference::Pose,
    h: f32,
    floor: f32,
) -> [f32; 3] {
    use kineform::reference as r;
    let (next, prev) = (at(h), at(-h));
    let mut fd = p.clone();
    r::op_finite_diff(&mut fd, &next, &prev, 2.0 * h).unwrap();
    let mut worst = [0.0f32; 3];
    for j in 0..p.len() {
        for (k, (a, b)) in [
            (p.vel[j], fd.vel[j]),
            (p.ang[j], fd.ang[j]),
            (p.svl[j], fd.svl[j]),
        ]
        .into_iter()
        .enumerate()
        {
            worst[k] = worst[k].max(r::length(a - b) / (floor + r::length(b)));
        }
    }
    worst
}
