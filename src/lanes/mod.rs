//! The 8-lane path: the functions of [`crate::reference`] under the same
//! names and conventions over [`F32x8`], [`Vec3x8`], [`Quatx8`] and
//! [`Kformx8`], lane `i` holding element `i`, branch-free (per-lane select),
//! file for file beside the reference. Scalar parameters of the reference
//! (half-lives, `dt`) are lane vectors here, so each lane may differ.
//!
//! Lane functions follow the same edge-case table as the reference and
//! agree with it within the tolerances stated in `tests/suite/equivalence.rs`;
//! operators over poses, clips and offsets refuse the shapes the reference
//! refuses, with its error, writing nothing (`tests/suite/shape_refusals.rs`).

pub mod angular;
pub mod blend;
pub mod chain;
pub mod cost;
pub mod deadblend;
pub mod heading;
pub mod inertialize;
pub mod joint;
pub mod kform;
pub mod looping;
pub mod math;
pub mod pose;
pub mod procedural;
pub mod quat;
pub mod sample;
pub mod spring;
pub mod tracking;

pub use angular::*;
pub use blend::*;
pub use chain::*;
pub use cost::*;
pub use deadblend::*;
pub use heading::*;
pub use inertialize::*;
pub use joint::*;
pub use kform::*;
pub use looping::*;
pub use math::*;
pub use pose::*;
pub use procedural::*;
pub use sample::*;
pub use spring::*;
pub use tracking::*;
