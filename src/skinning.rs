//! Skinning matrices: each joint's world transform times its inverse bind
//! matrix, written as f32 matrices into the caller's buffer, ready for a GPU
//! upload (`bytemuck::cast_slice` of the buffer is its bytes).
//!
//! A joint's world transform `W = T R S` (translation, rotation, per-axis
//! scale) moves a vertex from the joint's space to the world; its inverse
//! bind matrix `B⁻¹` moves it from the model's bind pose into the joint's
//! space. The skinning matrix is `W B⁻¹`, the identity when the pose is the
//! bind pose. Two layouts ([`SkinMatrix`]):
//!
//! - `[f32; 16]`: column-major 4x4, as glTF, glam (`Mat4::from_cols_array`)
//!   and WGSL/GLSL `mat4x4` read it;
//! - `[f32; 12]`: the three rows of the affine part, each `(r0, r1, r2, t)`:
//!   three `vec4`s per joint, a quarter less to upload, read in a shader as
//!   `dot(row, vec4(p, 1))` per component.
//!
//! Matrices are computed eight characters at a time in lanes, a pack of
//! one joint at a time ([`skin_lanes`]), and checked against the scalar
//! [`skin_matrix`] in `tests/suite/skinning.rs`.
//!
//! ```
//! use kineform::reference::{Kform, Quat, Vec3};
//! use kineform::skinning::{self, InverseBind};
//! use kineform::stream::CrowdPose;
//! use kineform::Skeleton;
//!
//! // A two-joint chain whose bind pose puts joint 1 one unit up y.
//! let skeleton = Skeleton::new(vec![-1, 0])?;
//! let up = Kform { pos: Vec3::new(0.0, 1.0, 0.0), ..Kform::IDENTITY };
//! let bind = InverseBind::from_bind_pose(&skeleton, &[Kform::IDENTITY, up])?;
//!
//! // Nine characters in the bind pose, but character 8 moved 2 along x.
//! let mut world = CrowdPose::new(9, 2)?;
//! for c in 0..9 {
//!     world.set(c, 1, up);
//! }
//! let moved = |k: Kform| Kform { pos: k.pos + Vec3::new(2.0, 0.0, 0.0), ..k };
//! world.set(8, 0, moved(Kform::IDENTITY));
//! world.set(8, 1, moved(up));
//!
//! let mut out = vec![[0.0f32; 16]; 9 * 2];
//! skinning::skinning_matrices(world.packed(), &bind, &mut out)?;
//! // Bind pose: identity. Character 8: a translation by (2, 0, 0) for both
//! // joints (column 3 of a column-major matrix is elements 12..16).
//! assert_eq!(out[0], skinning::IDENTITY_4X4);
//! assert_eq!(out[8 * 2 + 1][12..], [2.0, 0.0, 0.0, 1.0]);
//! # Ok::<(), kineform::Error>(())
//! ```

use bytemuck::Pod;

use crate::error::{Error, Result};
use crate::lanes::{F32x8, Quatx8, Vec3x8, splat};
use crate::output::{JointLanes, Packed};
use crate::reference::{Kform, Pose, Quat, op_fk_static};
use crate::rows;
use crate::skeleton::Skeleton;

/// The 4x4 identity, column-major.
pub const IDENTITY_4X4: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

/// The 3x4 identity, rows.
pub const IDENTITY_3X4: [f32; 12] = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];

/// The rotation matrix of a unit quaternion `(w, x, y, z)`, `m[row][col]`:
/// `1 - 2(y² + z²)`, `2(xy - wz)`, `2(xz + wy)` on the first row and so on
/// (the matrix that maps `v` to `q v q*`).
#[inline(always)]
pub(crate) fn rot3<T>(w: T, x: T, y: T, z: T, one: T) -> [[T; 3]; 3]
where
    T: Copy + core::ops::Add<Output = T> + core::ops::Sub<Output = T> + core::ops::Mul<Output = T>,
{
    let (x2, y2, z2) = (x + x, y + y, z + z);
    let (xx, yy, zz) = (x * x2, y * y2, z * z2);
    let (xy, xz, yz) = (x * y2, x * z2, y * z2);
    let (wx, wy, wz) = (w * x2, w * y2, w * z2);
    [
        [one - (yy + zz), xy - wz, xz + wy],
        [xy + wz, one - (xx + zz), yz - wx],
        [xz - wy, yz + wx, one - (xx + yy)],
    ]
}

/// The affine `T R S` of a kineform as three rows `(m[r][0], m[r][1],
/// m[r][2], t[r])`: rotation columns scaled by `scl`, translation `pos`.
pub fn kform_rows(k: &Kform) -> [f32; 12] {
    let Quat { w, x, y, z } = k.rot;
    let r = rot3(w, x, y, z, 1.0);
    let s = k.scl.to_array();
    let p = k.pos.to_array();
    core::array::from_fn(|i| {
        let (row, col) = (i / 4, i % 4);
        if col == 3 {
            p[row]
        } else {
            r[row][col] * s[col]
        }
    })
}

/// The column-major 4x4 matrix `T R S` of a kineform (what `glam::Mat4::
/// from_scale_rotation_translation(scl, rot, pos)` gives): it maps a point
/// `p` to `pos + rot (scl p)`.
///
/// ```
/// use kineform::reference::{Kform, Quat, Vec3};
/// // A quarter turn about z, then 1 along x.
/// let h = std::f32::consts::FRAC_1_SQRT_2;
/// let k = Kform {
///     pos: Vec3::new(1.0, 0.0, 0.0),
///     rot: Quat::new(h, 0.0, 0.0, h),
///     ..Kform::IDENTITY
/// };
/// let m = kineform::skinning::kform_matrix(&k);
/// // Column 0 is the image of x: y. Column 3 is the translation.
/// assert!((m[1] - 1.0).abs() < 1e-6 && m[0].abs() < 1e-6);
/// assert_eq!(m[12..], [1.0, 0.0, 0.0, 1.0]);
/// ```
pub fn kform_matrix(k: &Kform) -> [f32; 16] {
    rows_to_4x4(&kform_rows(k))
}

/// A 3x4 affine (rows) as a column-major 4x4.
fn rows_to_4x4(r: &[f32; 12]) -> [f32; 16] {
    core::array::from_fn(|i| {
        let (col, row) = (i / 4, i % 4);
        if row == 3 {
            if col == 3 { 1.0 } else { 0.0 }
        } else {
            r[row * 4 + col]
        }
    })
}

/// `a b` for two 3x4 affines (rows; the missing fourth row is `0 0 0 1`).
fn mul_rows(a: &[f32; 12], b: &[f32; 12]) -> [f32; 12] {
    core::array::from_fn(|i| {
        let (row, col) = (i / 4, i % 4);
        let t = if col == 3 { a[row * 4 + 3] } else { 0.0 };
        a[row * 4] * b[col] + a[row * 4 + 1] * b[4 + col] + a[row * 4 + 2] * b[8 + col] + t
    })
}

/// The skinning matrix of one joint, scalar: `kform_rows(world) ×
/// inverse_bind` (3x4 rows). The reference [`skin_lanes`] is checked
/// against.
pub fn skin_matrix(world: &Kform, inverse_bind: &[f32; 12]) -> [f32; 12] {
    mul_rows(&kform_rows(world), inverse_bind)
}

/// The inverse of a 3x4 affine (rows), computed in f64, or `None` when it
/// is singular or not finite.
fn invert_rows(m: &[f32; 12]) -> Option<[f32; 12]> {
    let a = |r: usize, c: usize| m[r * 4 + c] as f64;
    let cof =
        |r0: usize, r1: usize, c0: usize, c1: usize| a(r0, c0) * a(r1, c1) - a(r0, c1) * a(r1, c0);
    // inv[r][c] = cofactor(c, r) / det.
    let adj = [
        [cof(1, 2, 1, 2), -cof(0, 2, 1, 2), cof(0, 1, 1, 2)],
        [-cof(1, 2, 0, 2), cof(0, 2, 0, 2), -cof(0, 1, 0, 2)],
        [cof(1, 2, 0, 1), -cof(0, 2, 0, 1), cof(0, 1, 0, 1)],
    ];
    let det = a(0, 0) * adj[0][0] + a(0, 1) * adj[1][0] + a(0, 2) * adj[2][0];
    let scale = (0..3)
        .flat_map(|r| (0..3).map(move |c| (r, c)))
        .map(|(r, c)| a(r, c).abs())
        .fold(0.0f64, f64::max);
    if !det.is_finite() || det.abs() <= 1e-12 * scale * scale * scale {
        return None;
    }
    let inv = |r: usize, c: usize| adj[r][c] / det;
    let t = [a(0, 3), a(1, 3), a(2, 3)];
    let out: [f32; 12] = core::array::from_fn(|i| {
        let (row, col) = (i / 4, i % 4);
        if col == 3 {
            -(inv(row, 0) * t[0] + inv(row, 1) * t[1] + inv(row, 2) * t[2]) as f32
        } else {
            inv(row, col) as f32
        }
    });
    out.iter().all(|v| v.is_finite()).then_some(out)
}

/// Each joint's inverse bind matrix, as 3x4 affine rows.
#[derive(Clone, Debug, PartialEq)]
pub struct InverseBind {
    rows: Vec<[f32; 12]>,
}

impl InverseBind {
    /// From a bind pose given as each joint's local transform (positions,
    /// rotations, scales; velocities ignored): forward kinematics to world
    /// space, then each world matrix inverted. Refuses a pose of the wrong
    /// length, non-finite values, and a joint whose world matrix is
    /// singular (a zero scale).
    pub fn from_bind_pose(skeleton: &Skeleton, bind_local: &[Kform]) -> Result<InverseBind> {
        if bind_local.len() != skeleton.len() {
            return Err(Error::Length {
                what: "bind pose joints",
                expected: skeleton.len(),
                got: bind_local.len(),
            });
        }
        let local = Pose::from_kforms(bind_local);
        let mut world = Pose::new(skeleton.len());
        op_fk_static(&mut world, &local, skeleton.parents())?;
        let rows = (0..skeleton.len())
            .map(|j| {
                invert_rows(&kform_rows(&world.get(j))).ok_or_else(|| Error::Skeleton {
                    joint: j,
                    reason:
                        "its bind pose world matrix is not finite or not invertible (a zero scale?)"
                            .into(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(InverseBind { rows })
    }

    /// From inverse bind matrices the caller gives, column-major 4x4 (as a
    /// glTF skin's `inverseBindMatrices`). Refuses a count that is not the
    /// skeleton's joint count, non-finite entries, and a bottom row that is
    /// not `0 0 0 1` (within 1e-5): skinning matrices are affine.
    pub fn from_matrices(skeleton: &Skeleton, matrices: &[[f32; 16]]) -> Result<InverseBind> {
        if matrices.len() != skeleton.len() {
            return Err(Error::Length {
                what: "inverse bind matrices",
                expected: skeleton.len(),
                got: matrices.len(),
            });
        }
        let rows = matrices
            .iter()
            .enumerate()
            .map(|(j, m)| {
                let bottom = [m[3], m[7], m[11], m[15] - 1.0];
                if m.iter().any(|v| !v.is_finite()) || bottom.iter().any(|v| v.abs() > 1e-5) {
                    return Err(Error::Skeleton {
                        joint: j,
                        reason:
                            "its inverse bind matrix must be finite and affine (bottom row 0 0 0 1)"
                                .into(),
                    });
                }
                Ok(core::array::from_fn(|i| m[(i % 4) * 4 + i / 4]))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(InverseBind { rows })
    }

    /// Number of joints.
    pub fn joints(&self) -> usize {
        self.rows.len()
    }

    /// Joint `j`'s inverse bind matrix as 3x4 rows (`None` past the last
    /// joint).
    pub fn get(&self, j: usize) -> Option<&[f32; 12]> {
        self.rows.get(j)
    }

    /// Every joint's inverse bind matrix as 3x4 rows, in joint order.
    pub fn as_rows(&self) -> &[[f32; 12]] {
        &self.rows
    }

    /// The matrices, column-major 4x4 (what [`Self::from_matrices`] takes).
    pub fn to_matrices(&self) -> Vec<[f32; 16]> {
        self.rows.iter().map(rows_to_4x4).collect()
    }
}

/// A layout a skinning matrix is written in: `[f32; 16]` (column-major
/// 4x4) or `[f32; 12]` (three rows of the affine), and `glam::Mat4` with
/// the `glam` feature. All are [`Pod`], so a buffer of them casts to bytes
/// for an upload.
pub trait SkinMatrix: Pod + Send {
    /// The matrix of lane `lane` of [`skin_lanes`]'s output stored as
    /// arrays: `m[e][lane]` is entry `e` of the 3x4 rows.
    fn from_lanes(m: &[[f32; 8]; 12], lane: usize) -> Self;
}

impl SkinMatrix for [f32; 16] {
    #[inline(always)]
    fn from_lanes(m: &[[f32; 8]; 12], i: usize) -> Self {
        [
            m[0][i], m[4][i], m[8][i], 0.0, //
            m[1][i], m[5][i], m[9][i], 0.0, //
            m[2][i], m[6][i], m[10][i], 0.0, //
            m[3][i], m[7][i], m[11][i], 1.0,
        ]
    }
}

impl SkinMatrix for [f32; 12] {
    #[inline(always)]
    fn from_lanes(m: &[[f32; 8]; 12], i: usize) -> Self {
        [
            m[0][i], m[1][i], m[2][i], m[3][i], //
            m[4][i], m[5][i], m[6][i], m[7][i], //
            m[8][i], m[9][i], m[10][i], m[11][i],
        ]
    }
}

/// The skinning matrices of one joint of eight characters: the 3x4 rows of
/// `T R S × inverse_bind`, each entry a lane vector (lane `i` = character
/// `i`). [`skin_matrix`] per lane, with fused multiply-adds.
#[inline(always)]
pub fn skin_lanes(pos: Vec3x8, rot: Quatx8, scl: Vec3x8, inverse_bind: &[f32; 12]) -> [F32x8; 12] {
    let r = rot3(rot.w, rot.x, rot.y, rot.z, splat(1.0));
    let s = [scl.x, scl.y, scl.z];
    let p = [pos.x, pos.y, pos.z];
    let b = |i: usize| splat(inverse_bind[i]);
    let mut out = [splat(0.0); 12];
    for row in 0..3 {
        let m = [r[row][0] * s[0], r[row][1] * s[1], r[row][2] * s[2]];
        for col in 0..4 {
            let t = if col == 3 { p[row] } else { splat(0.0) };
            out[row * 4 + col] = m[2].mul_add(
                b(8 + col),
                m[1].mul_add(b(4 + col), m[0].mul_add(b(col), t)),
            );
        }
    }
    out
}

/// The 3x4 rows of `T R S` of one joint of eight characters, each entry a
/// lane vector: [`kform_rows`] per lane with the same operations in the
/// same order (each rotation column times its scale), so the same bits.
#[inline(always)]
pub(crate) fn kform_lanes(pos: Vec3x8, rot: Quatx8, scl: Vec3x8) -> [F32x8; 12] {
    let r = rot3(rot.w, rot.x, rot.y, rot.z, splat(1.0));
    let (s, p) = ([scl.x, scl.y, scl.z], [pos.x, pos.y, pos.z]);
    core::array::from_fn(|i| {
        let (row, col) = (i / 4, i % 4);
        if col == 3 {
            p[row]
        } else {
            r[row][col] * s[col]
        }
    })
}

/// Writes the skinning matrices of one pack, `lanes` characters (1 to 8)
/// by `pack.len()` joints, to `out[c * joints + j]`. The building block of
/// [`skinning_matrices`] for a caller that walks its packs itself. Refuses,
/// writing nothing, `lanes` outside 1..=8, a pack whose joint count differs
/// from `inverse_bind`'s, or an `out` not of `lanes × joints` matrices.
pub fn skin_pack<T: JointLanes, M: SkinMatrix>(
    pack: &[T],
    lanes: usize,
    inverse_bind: &InverseBind,
    out: &mut [M],
) -> Result<()> {
    if !(1..=8).contains(&lanes) {
        return Err(Error::Length {
            what: "lanes of a pack (1 to 8)",
            expected: 8,
            got: lanes,
        });
    }
    check_joints(pack.len(), inverse_bind)?;
    if out.len() != lanes * pack.len() {
        return Err(Error::Length {
            what: "skinning matrices of a pack (lanes x joints)",
            expected: lanes * pack.len(),
            got: out.len(),
        });
    }
    skin_pack_unchecked(pack, lanes, inverse_bind, out);
    Ok(())
}

/// Refuses an inverse bind whose joint count is not `joints`, the pose's.
pub(crate) fn check_joints(joints: usize, inverse_bind: &InverseBind) -> Result<()> {
    if joints == inverse_bind.joints() {
        Ok(())
    } else {
        // The inverse bind is the argument a caller got wrong: the pose's
        // joints (a crowd's skeleton, a packed pose) are fixed.
        Err(Error::Length {
            what: "inverse bind matrices (one a joint of the pose)",
            expected: joints,
            got: inverse_bind.joints(),
        })
    }
}

/// [`skin_pack`] unchecked ([`skin_rows`] of [`skin_lanes`]).
#[inline(always)]
fn skin_pack_unchecked<T: JointLanes, M: SkinMatrix>(
    pack: &[T],
    lanes: usize,
    inverse_bind: &InverseBind,
    out: &mut [M],
) {
    // `j < pack.len()`, which every caller checked equals the inverse bind's
    // joint count (`check_joints`): the index is in range.
    skin_rows(pack, 0..lanes.min(8), out, |j, k| {
        skin_lanes(
            k.positions(),
            k.rotations(),
            k.scales(),
            &inverse_bind.rows[j],
        )
    });
}

/// The matrices of lanes `lanes` of one pack's joints into `out`
/// (`out[(k - lanes.start) * joints + j]` = lane `k` of `skin(j,
/// &pack[j])`, 3x4 rows in lanes): into `[f32; 16]`, `[f32; 12]` and
/// glam's `Mat4` each joint's eight matrices transposed in registers
/// straight into `out` (`crate::rows::pack_affine`: the floats
/// `from_lanes` writes, with 6 shuffles and two 32-byte stores a 4x4
/// matrix, 4.5 and 1.5 a 3x4); any other [`SkinMatrix`] through its `from_lanes`, lane by
/// lane.
#[inline(always)]
pub(crate) fn skin_rows<'a, T, M: SkinMatrix>(
    pack: &'a [T],
    lanes: core::ops::Range<usize>,
    out: &mut [M],
    skin: impl Fn(usize, &'a T) -> [F32x8; 12],
) {
    if let Some((floats, layout)) = rows::affine_floats(out) {
        return rows::pack_affine(pack, lanes, floats, layout, skin);
    }
    let joints = pack.len();
    for (j, t) in pack.iter().enumerate() {
        let m: [[f32; 8]; 12] = skin(j, t).map(|v| v.to_array());
        for (r, k) in lanes.clone().enumerate() {
            out[r * joints + j] = M::from_lanes(&m, k);
        }
    }
}

/// Writes every character's skinning matrices, `out[c * joints + j] =
/// world(c, j) × inverse_bind(j)`, eight characters at a time, packs in
/// parallel on the current rayon pool. Refuses, writing nothing, a joint
/// count that differs from `inverse_bind`'s or an `out` not of
/// `characters × joints` matrices.
pub fn skinning_matrices<T: JointLanes, M: SkinMatrix>(
    world: Packed<'_, T>,
    inverse_bind: &InverseBind,
    out: &mut [M],
) -> Result<()> {
    check_joints(world.joints(), inverse_bind)?;
    world.check_out("skinning matrices", out.len())?;
    world.for_each_pack(out, |pack, lanes, o| {
        world.fetch_next(pack);
        skin_pack_unchecked(pack, lanes, inverse_bind, o)
    });
    Ok(())
}
