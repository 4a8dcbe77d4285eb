//! The checks behind the fuzz targets, also run by `tests/suite/fuzz_smoke.rs`
//! on pseudo-random bytes so that CI exercises the same decoder.
//!
//! The crate's root: each target's check is one of its modules ([`api`],
//! [`clips`], [`crowd`], [`matching`], [`matcher`], [`gltf_doc`] with [`gltf_build`]) or here, in
//! private modules: [`check`] (`lanes_vs_reference`) in `lanes`, with the
//! inputs read in `bytes`, each kernel family in `kernels`, the shapes
//! both paths refuse alike in `shapes` and the tolerance comparison in
//! `compare`; [`check_bvh`] (`bvh_parse`) in
//! `bvh`, and the smoke test's damaged files ([`mutate`]) in `damage`;
//! [`check_gltf`] (`gltf_parse`) in `gltf_parse`.
#![allow(clippy::needless_range_loop)] // lanes and reference side by side

#[path = "../api.rs"]
pub mod api;
#[path = "../clips.rs"]
pub mod clips;
#[path = "../crowd/mod.rs"]
pub mod crowd;
#[cfg(feature = "gltf")]
#[path = "../gltf_build.rs"]
pub mod gltf_build;
#[cfg(feature = "gltf")]
#[path = "../gltf_doc/mod.rs"]
pub mod gltf_doc;
#[cfg(feature = "wander")]
#[path = "../matcher/mod.rs"]
pub mod matcher;
#[path = "../matching.rs"]
pub mod matching;

mod bvh;
mod bytes;
mod compare;
mod damage;
#[cfg(feature = "gltf")]
mod gltf_parse;
mod kernels;
mod lanes;
mod shapes;

pub use bvh::check_bvh;
pub use damage::mutate;
#[cfg(feature = "gltf")]
pub use gltf_parse::check_gltf;
pub use lanes::check;
