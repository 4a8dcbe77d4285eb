//! `From` between kineform's reference types and glam's, once per glam
//! version that a feature turns on (`glam029`, `glam030`, `glam033`): the
//! same impls, each for its version's types.

/// The impls for the glam crate named `$glam` (a renamed dependency).
macro_rules! glam_impls {
    ($glam:ident) => {
        mod $glam {
            use crate::reference::{Kform, Quat, Vec3};
            use crate::skinning::{SkinMatrix, kform_matrix};

            impl From<Vec3> for ::$glam::Vec3 {
                fn from(v: Vec3) -> ::$glam::Vec3 {
                    ::$glam::Vec3::new(v.x, v.y, v.z)
                }
            }

            impl From<::$glam::Vec3> for Vec3 {
                fn from(v: ::$glam::Vec3) -> Vec3 {
                    Vec3::new(v.x, v.y, v.z)
                }
            }

            impl From<Vec3> for ::$glam::Vec3A {
                fn from(v: Vec3) -> ::$glam::Vec3A {
                    ::$glam::Vec3A::new(v.x, v.y, v.z)
                }
            }

            impl From<::$glam::Vec3A> for Vec3 {
                fn from(v: ::$glam::Vec3A) -> Vec3 {
                    Vec3::new(v.x, v.y, v.z)
                }
            }

            /// Reorders `(w, x, y, z)` to glam's `(x, y, z, w)`.
            impl From<Quat> for ::$glam::Quat {
                fn from(q: Quat) -> ::$glam::Quat {
                    ::$glam::Quat::from_xyzw(q.x, q.y, q.z, q.w)
                }
            }

            /// Reorders glam's `(x, y, z, w)` to `(w, x, y, z)`.
            impl From<::$glam::Quat> for Quat {
                fn from(q: ::$glam::Quat) -> Quat {
                    Quat::new(q.w, q.x, q.y, q.z)
                }
            }

            /// `T R S` of the kineform's position, rotation and scale
            /// (velocities are not part of a matrix).
            impl From<Kform> for ::$glam::Mat4 {
                fn from(k: Kform) -> ::$glam::Mat4 {
                    ::$glam::Mat4::from_cols_array(&kform_matrix(&k))
                }
            }

            /// `T R S` of the kineform's position, rotation and scale.
            impl From<Kform> for ::$glam::Affine3A {
                fn from(k: Kform) -> ::$glam::Affine3A {
                    ::$glam::Affine3A::from_mat4(::$glam::Mat4::from(k))
                }
            }

            /// A skinning matrix as a `glam::Mat4` (column-major, like
            /// `[f32; 16]`).
            impl SkinMatrix for ::$glam::Mat4 {
                #[inline(always)]
                fn from_lanes(m: &[[f32; 8]; 12], lane: usize) -> ::$glam::Mat4 {
                    ::$glam::Mat4::from_cols_array(&<[f32; 16]>::from_lanes(m, lane))
                }
            }
        }
    };
}

#[cfg(feature = "glam029")]
glam_impls!(glam029);
#[cfg(feature = "glam030")]
glam_impls!(glam030);
#[cfg(feature = "glam033")]
glam_impls!(glam033);
