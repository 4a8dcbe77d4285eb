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
//! | `glam029`, `glam030`, `glam033` (glam 0.29, 0.30, 0.33; `glam` is `glam033`) | `Vec3` → `glam::Vec3`, `glam::Vec3A`; `Quat` → `glam::Quat`; `Kform` → `glam::Mat4`, `glam::Affine3A` (`T R S`, velocities dropped) | `glam::Vec3`, `glam::Vec3A` → `Vec3`; `glam::Quat` → `Quat` |
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
//!
//! ## Which glam
//!
//! A `From` impl is for one version of glam: a `glam::Vec3` of another
//! version is another type, and the compiler says only that the trait is
//! not implemented (E0277). Turn on the feature of the glam your engine
//! uses (`cargo tree -i glam` names it): Bevy 0.15 and 0.16 are on glam
//! 0.29 (`glam029`), Bevy 0.17 on glam 0.30 (`glam030`); `glam` is the
//! newest, 0.33 (`glam033`). Several may be on at once. kineform re-exports
//! each as `kineform::glam029`, `kineform::glam030`, `kineform::glam033`,
//! and the newest one enabled as `kineform::glam`, so a program can name
//! the types the impls are for without a glam dependency of its own. An
//! engine on a glam kineform has no feature for can go through `mint`
//! (feature `mint`; glam's own `mint` feature converts on its side).
//!
//! A Bevy-shaped use: a resource holds the crowd, a system steps it with
//! the frame's time and copies each character's root joint into its
//! entity's `Transform` (here stand-ins with Bevy's field names; in a game
//! they are `bevy::prelude::Transform` and a `Query`, and the feature is
//! the one of Bevy's glam):
//!
//! ```
//! # #[cfg(feature = "glam")] {
//! use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, Root, Source};
//! use kineform::glam::{Quat, Vec3};
//!
//! struct Transform { translation: Vec3, rotation: Quat, scale: Vec3 }
//! /// The crowd as a resource, with the game's buffers.
//! struct CrowdRes { crowd: Crowd, positions: Vec<Vec3>, rotations: Vec<Quat> }
//! /// Which character an entity shows.
//! struct Agent(usize);
//!
//! /// `fn animate(mut res: ResMut<CrowdRes>, time: Res<Time>, mut q: Query<(&Agent, &mut Transform)>)`
//! fn animate(res: &mut CrowdRes, dt: f32, q: &mut [(Agent, Transform)]) -> kineform::Result<()> {
//!     let CrowdRes { crowd, positions, rotations } = res;
//!     crowd.step(dt)?;
//!     let n = crowd.characters();
//!     crowd.positions_into(0..n, positions)?; // glam 0.33 `Vec3`s, no allocation
//!     crowd.rotations_into(0..n, rotations)?;
//!     let joints = crowd.skeleton().len();
//!     for (agent, t) in q.iter_mut() {
//!         // Joint 0: the character's root in the world (its bones, joints
//!         // 1.., go to child entities or to a skinning buffer).
//!         t.translation = positions[agent.0 * joints];
//!         t.rotation = rotations[agent.0 * joints];
//!     }
//!     Ok(())
//! }
//!
//! let library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
//! let crowd = Crowd::new(&library, CrowdConfig { characters: 16, ..Default::default() })?;
//! let joints = crowd.skeleton().len();
//! let mut res = CrowdRes {
//!     crowd,
//!     positions: vec![Vec3::ZERO; 16 * joints],
//!     rotations: vec![Quat::IDENTITY; 16 * joints],
//! };
//! for c in 0..16 {
//!     let at = Vec3::new(c as f32 * 50.0, 0.0, 0.0);
//!     res.crowd.set_root(c, Root::standing(at.into(), 0.0))?;
//!     res.crowd.play(c, Source::looping(0, c as f32 * 0.1), Source::looping(0, 0.0))?;
//! }
//! let mut q: Vec<(Agent, Transform)> = (0..16)
//!     .map(|c| (Agent(c), Transform { translation: Vec3::ZERO, rotation: Quat::IDENTITY, scale: Vec3::ONE }))
//!     .collect();
//! animate(&mut res, 1.0 / 60.0, &mut q)?;
//! assert_eq!(q[3].1.translation, Vec3::new(150.0, 0.0, 0.0));
//! assert_eq!(q[3].1.scale, Vec3::ONE);
//! # }
//! # Ok::<(), kineform::Error>(())
//! ```

#[cfg(any(feature = "glam029", feature = "glam030", feature = "glam033"))]
mod glam_impls;
#[cfg(feature = "mint")]
mod mint_impls;
