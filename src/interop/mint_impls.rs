//! `From` between kineform's reference types and mint's.

use crate::reference::{Kform, Quat, Vec3};
use crate::skinning::kform_matrix;

impl From<Vec3> for mint::Vector3<f32> {
    fn from(v: Vec3) -> mint::Vector3<f32> {
        mint::Vector3 {
            x: v.x,
            y: v.y,
            z: v.z,
        }
    }
}

impl From<mint::Vector3<f32>> for Vec3 {
    fn from(v: mint::Vector3<f32>) -> Vec3 {
        Vec3::new(v.x, v.y, v.z)
    }
}

impl From<Vec3> for mint::Point3<f32> {
    fn from(v: Vec3) -> mint::Point3<f32> {
        mint::Point3 {
            x: v.x,
            y: v.y,
            z: v.z,
        }
    }
}

impl From<mint::Point3<f32>> for Vec3 {
    fn from(v: mint::Point3<f32>) -> Vec3 {
        Vec3::new(v.x, v.y, v.z)
    }
}

/// `(w, x, y, z)` to mint's vector part `v = (x, y, z)` and scalar `s = w`.
impl From<Quat> for mint::Quaternion<f32> {
    fn from(q: Quat) -> mint::Quaternion<f32> {
        mint::Quaternion {
            v: mint::Vector3 {
                x: q.x,
                y: q.y,
                z: q.z,
            },
            s: q.w,
        }
    }
}

/// mint's `(v, s)` to `(w = s, x, y, z)`.
impl From<mint::Quaternion<f32>> for Quat {
    fn from(q: mint::Quaternion<f32>) -> Quat {
        Quat::new(q.s, q.v.x, q.v.y, q.v.z)
    }
}

/// `T R S` of the kineform's position, rotation and scale.
impl From<Kform> for mint::ColumnMatrix4<f32> {
    fn from(k: Kform) -> mint::ColumnMatrix4<f32> {
        mint::ColumnMatrix4::from(kform_matrix(&k))
    }
}
