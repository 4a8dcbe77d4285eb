//! Conversions to engine math types, behind features.
//!
//! kineform's [`Quat`](crate::reference::Quat) stores `(w, x, y, z)`, `w`
//! first, as the articles do; glam, mint, glTF and most engines store
//! `(x, y, z, w)`. Copying fields in order is a silent bug (a wrong,
//! still unit, rotation), so convert with these `From` impls, which
//! reorder:
//!
//! | feature | kineform → | → kineform |
//! | --- | --- | --- |
//! | `glam` (glam 0.33, the version bevy 0.20 uses) | `Vec3` → `glam::Vec3`, `glam::Vec3A`; `Quat` → `glam::Quat`; `Kform` → `glam::Mat4`, `glam::Affine3A` (`T R S`, velocities dropped) | `glam::Vec3`, `glam::Vec3A` → `Vec3`; `glam::Quat` → `Quat` |
//! | `mint` | `Vec3` → `mint::Vector3<f32>`, `mint::Point3<f32>`; `Quat` → `mint::Quaternion<f32>`; `Kform` → `mint::ColumnMatrix4<f32>` | `mint::Vector3<f32>`, `mint::Point3<f32>` → `Vec3`; `mint::Quaternion<f32>` → `Quat` |
//!
//! Whole outputs are copied with [`crate::output`] (lane packs into
//! `&mut [glam::Vec3]`, `&mut [glam::Quat]`, `&mut [glam::Mat4]`, ...) and
//! [`Stream::write_into`](crate::stream::Stream::write_into);
//! [`crate::skinning`] writes into `&mut [glam::Mat4]` too (glam's
//! `bytemuck` feature is on).
//!
//! Without a feature the same copies work into plain arrays: `[f32; 3]`,
//! `[f32; 4]` (`x, y, z, w`) and `[f32; 16]` (column-major).

#[cfg(feature = "glam")]
mod glam_impls;
#[cfg(feature = "mint")]
mod mint_impls;
