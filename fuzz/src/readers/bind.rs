//! The inverse binds: the fixed one every step's reads use, and the one
//! the bytes left after the last step choose (from fuzz-chosen matrices,
//! from a bind pose, or of another joint count), checked against its
//! constructors' documentation.

use kineform::reference::{self as r, Kform, Quat, Vec3};
use kineform::skinning::{self, InverseBind};
use kineform::{Error, Skeleton};

use super::{Bytes, count};

/// An inverse bind and each joint's 3x4 rows as this check built them.
pub struct Bind {
    pub(super) bind: InverseBind,
    pub(super) rows: Vec<[f32; 12]>,
}

/// The rows `(m[r][0], m[r][1], m[r][2], t[r])` of a column-major 4x4.
fn rows_of(m: &[f32; 16]) -> [f32; 12] {
    core::array::from_fn(|i| m[(i % 4) * 4 + i / 4])
}

/// Joint `j`'s matrix of the fixed bind: turned, scaled and moved, so that
/// every entry takes part (as `tests/suite/crowds/matrices.rs`'s
/// `some_bind`).
fn fixed_matrix(j: usize) -> [f32; 16] {
    let a = 0.3 + j as f32 * 0.17;
    skinning::kform_matrix(&Kform {
        pos: Vec3::new(a, 1.0 - a, 0.5 * a),
        rot: r::quat_normalize(Quat::new(1.0, a, -0.5 * a, 0.25)),
        scl: Vec3::new(1.0 + 0.1 * a, 1.0, 0.9),
        ..Kform::IDENTITY
    })
}

impl Bind {
    /// The fixed bind of a skeleton's joints.
    pub fn fixed(skeleton: &Skeleton) -> Bind {
        let m: Vec<[f32; 16]> = (0..skeleton.len()).map(fixed_matrix).collect();
        let bind = InverseBind::from_matrices(skeleton, &m).expect("affine, finite matrices");
        Bind {
            bind,
            rows: m.iter().map(rows_of).collect(),
        }
    }

    /// The largest entry's magnitude (0 for no joints).
    pub(super) fn largest(&self) -> f32 {
        let m = self.rows.iter().flatten().map(|v| v.abs());
        m.fold(0.0, f32::max)
    }
}

/// A value in `[lo, hi]` from 16 bits, or where `wild`, any of
/// [`Bytes::f32`]'s (special values and raw bits among them).
fn value(b: &mut Bytes, wild: bool, lo: f32, hi: f32) -> f32 {
    match wild {
        true => b.f32(lo, hi),
        false => lo + (hi - lo) * (b.u16() as f32 / 65535.0),
    }
}

/// Offsets from a bottom-row entry's value around `from_matrices`'s 1e-5.
const NEAR: [f32; 6] = [0.0, 1e-6, 9.5e-6, 1e-5, 1.1e-5, 0.5];

/// A joint count for a fuzzed bind: mostly the crowd's, else one off.
fn joint_count(b: &mut Bytes, nj: usize) -> usize {
    match b.u8() % 8 {
        0 => nj + 1,
        1 => nj.saturating_sub(1),
        _ => nj,
    }
}

/// A per-joint pose: a base from the bytes turned about a chosen axis and
/// moved a step more each joint.
#[derive(Debug)]
struct Shape {
    pos: Vec3,
    step: Vec3,
    axis: Vec3,
    scl: Vec3,
    /// Rotation components as given (perhaps not a unit quaternion).
    raw: Option<Quat>,
}

impl Shape {
    fn new(b: &mut Bytes, wild: bool) -> Shape {
        let v = |b: &mut Bytes, lo, hi| value(b, wild, lo, hi);
        let pos = Vec3::new(
            v(b, -100.0, 100.0),
            v(b, -100.0, 100.0),
            v(b, -100.0, 100.0),
        );
        let step = Vec3::new(v(b, -2.0, 2.0), v(b, -2.0, 2.0), v(b, -2.0, 2.0));
        let axis = Vec3::new(v(b, -1.0, 1.0), v(b, -1.0, 1.0), v(b, -1.0, 1.0));
        let scl = match b.u8() % 4 {
            0 => Vec3::new(1.0, 1.0, 1.0),
            1 => Vec3::splat(v(b, 0.01, 10.0)),
            _ => Vec3::new(v(b, 0.01, 10.0), v(b, 0.01, 10.0), v(b, 0.01, 10.0)),
        };
        let raw = b.u8().is_multiple_of(8).then(|| {
            Quat::new(
                v(b, -1.0, 1.0),
                v(b, -1.0, 1.0),
                v(b, -1.0, 1.0),
                v(b, -1.0, 1.0),
            )
        });
        Shape {
            pos,
            step,
            axis,
            scl,
            raw,
        }
    }

    fn joint(&self, j: usize) -> Kform {
        let k = j as f32 + 1.0;
        Kform {
            pos: self.pos + self.step * k,
            rot: self
                .raw
                .unwrap_or_else(|| r::quat_from_scaled_angle_axis(self.axis * k)),
            scl: self.scl,
            ..Kform::IDENTITY
        }
    }
}

/// An inverse bind from the bytes (see the module), checked against its
/// constructors' documentation; `None` where they refused it.
pub(super) fn fuzzed_bind(
    b: &mut Bytes,
    skeleton: &Skeleton,
    log: &mut Vec<String>,
) -> Option<Bind> {
    let nj = skeleton.len();
    let kind = b.u8() % 8;
    let wild = b.u8() < 64;
    match kind {
        0 | 1 => Some(Bind::fixed(skeleton)),
        2..=4 => from_matrices(b, skeleton, wild, log),
        5 | 6 => from_bind_pose(b, skeleton, wild, log),
        _ => of_another_count(b, nj, log),
    }
}

/// Matrices of a chosen joint count and [`Shape`], a few entries damaged:
/// `from_matrices` accepts exactly the joint count, finite entries and a
/// bottom row `0 0 0 1` within 1e-5.
fn from_matrices(
    b: &mut Bytes,
    skeleton: &Skeleton,
    wild: bool,
    log: &mut Vec<String>,
) -> Option<Bind> {
    let nj = skeleton.len();
    let count = joint_count(b, nj);
    let shape = Shape::new(b, wild);
    let mut m: Vec<[f32; 16]> = (0..count)
        .map(|j| skinning::kform_matrix(&shape.joint(j)))
        .collect();
    damage(b, &mut m, count);
    let res = InverseBind::from_matrices(skeleton, &m);
    log.push(format!(
        "InverseBind::from_matrices({count} matrices, {shape:?}) -> {:?}",
        res.as_ref().err()
    ));
    let valid = count == nj
        && m.iter().all(|m| {
            m.iter().all(|v| v.is_finite())
                && [m[3], m[7], m[11], m[15] - 1.0]
                    .iter()
                    .all(|v| v.abs() <= 1e-5)
        });
    match res {
        Ok(bind) => {
            assert!(valid, "from_matrices accepted\n{}", log.join("\n"));
            count_bind(true);
            Some(Bind {
                bind,
                rows: m.iter().map(rows_of).collect(),
            })
        }
        Err(e) => {
            assert!(
                !valid && !e.to_string().is_empty(),
                "from_matrices refused: {e}\n{}",
                log.join("\n")
            );
            if count != nj {
                assert!(matches!(e, Error::Length { .. }), "{e}");
            }
            count_bind(false);
            None
        }
    }
}

/// A few entries of `count` matrices damaged: any value, or a bottom-row
/// entry moved about the 1e-5 the constructor allows.
fn damage(b: &mut Bytes, m: &mut [[f32; 16]], count: usize) {
    for _ in 0..b.u8() % 4 {
        let (j, e) = (b.u8() as usize % count.max(1), b.u8() as usize % 16);
        let v = if e % 4 == 3 {
            let d = NEAR[b.u8() as usize % NEAR.len()];
            let base = if e == 15 { 1.0 } else { 0.0 };
            if b.u8() & 1 == 1 { base - d } else { base + d }
        } else {
            b.f32(-2.0, 2.0)
        };
        if let Some(mat) = m.get_mut(j) {
            mat[e] = v;
        }
    }
}

/// A bind pose of a chosen joint count and [`Shape`], a few values
/// replaced: `from_bind_pose` refuses the wrong length with
/// `Error::Length`, and what it accepts is finite and affine and goes back
/// through `from_matrices` to the same bind.
fn from_bind_pose(
    b: &mut Bytes,
    skeleton: &Skeleton,
    wild: bool,
    log: &mut Vec<String>,
) -> Option<Bind> {
    let nj = skeleton.len();
    let count = joint_count(b, nj);
    let shape = Shape::new(b, wild);
    let mut local: Vec<Kform> = (0..count).map(|j| shape.joint(j)).collect();
    for _ in 0..b.u8() % 3 {
        let j = b.u8() as usize % count.max(1);
        let v = b.f32(-2.0, 2.0);
        if let Some(k) = local.get_mut(j) {
            match b.u8() % 3 {
                0 => k.scl.x = v,
                1 => k.pos.y = v,
                _ => k.rot.z = v,
            }
        }
    }
    let res = InverseBind::from_bind_pose(skeleton, &local);
    log.push(format!(
        "InverseBind::from_bind_pose({count} joints, {shape:?}) -> {:?}",
        res.as_ref().err()
    ));
    match res {
        Ok(bind) => {
            assert_eq!(count, nj, "{}", log.join("\n"));
            let m = bind.to_matrices();
            assert!(
                m.iter().all(|m| m.iter().all(|v| v.is_finite())
                    && [m[3], m[7], m[11], m[15]] == [0.0, 0.0, 0.0, 1.0]),
                "from_bind_pose gave matrices not finite or not affine\n{}",
                log.join("\n")
            );
            assert!(
                InverseBind::from_matrices(skeleton, &m).as_ref() == Ok(&bind),
                "from_bind_pose's matrices do not make the same bind again\n{}",
                log.join("\n")
            );
            count_bind(true);
            Some(Bind {
                bind,
                rows: m.iter().map(rows_of).collect(),
            })
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            if count != nj {
                assert!(matches!(e, Error::Length { .. }), "{e}");
            }
            count_bind(false);
            None
        }
    }
}

/// The fixed matrices for another joint count: a chain of one joint, or
/// one more or one less than the crowd's `nj`.
fn of_another_count(b: &mut Bytes, nj: usize, log: &mut Vec<String>) -> Option<Bind> {
    let count = [1, nj + 1, nj.saturating_sub(1).max(1)][b.u8() as usize % 3];
    let chain = Skeleton::new((0..count as i32).map(|j| j - 1).collect()).expect("a chain");
    let m: Vec<[f32; 16]> = (0..count).map(fixed_matrix).collect();
    let bind = InverseBind::from_matrices(&chain, &m).expect("affine, finite matrices");
    log.push(format!("an inverse bind of {count} joints"));
    Some(Bind {
        bind,
        rows: m.iter().map(rows_of).collect(),
    })
}

fn count_bind(accepted: bool) {
    count(|k| match accepted {
        true => k.binds.0 += 1,
        false => k.binds.1 += 1,
    });
}
