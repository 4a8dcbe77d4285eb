//! # kineform
//!
//! SIMD batch kernels for character animation: springs and dampers,
//! inertialization, quaternion exp/log and forward kinematics that carries
//! velocities, on structure-of-arrays joint streams in 8-lane f32 SIMD.
//!
//! The math is that of five articles by Daniel Holden (inertialization
//! transition cost, dead blending, perfect tracking springs, looping
//! animations from motion capture, propagating velocities). Data flows one
//! way:
//!
//! - [`reference`](mod@reference): plain scalar f32 code that mirrors the articles;
//! - [`lanes`]: the same functions over eight lanes ([`lanes::F32x8`],
//!   [`lanes::Vec3x8`], [`lanes::Quatx8`], [`lanes::Kformx8`]), branch-free;
//! - [`stream`] and [`skeleton`]: structure-of-arrays storage owned as lane
//!   vectors, and validated hierarchies;
//! - [`batch`]: validated entry points that run a kernel over a whole
//!   stream or crowd, across cores with rayon.
//!
//! Build with `-C target-cpu=x86-64-v3` (or any target with AVX and FMA) for
//! the 256-bit path; [`simd_backend`] says which one was compiled in and
//! [`simd_support`] whether the running CPU could run a faster one (the
//! README's "Using kineform in your project" has the `.cargo/config.toml`
//! lines).

pub mod batch;
pub mod bvh;
pub mod clip;
pub mod convert;
pub mod crowd;
pub mod data;
pub mod database;
pub mod error;
#[cfg(feature = "gltf")]
pub mod gltf;
pub mod interop;
pub mod lanes;
pub mod output;
mod prefetch;
pub mod reference;
pub mod simd;
pub mod skeleton;
pub mod skinning;
pub mod stream;

pub use clip::Clip;
pub use error::{Error, Result};
pub use simd::{SimdSupport, note_simd_support, simd_backend, simd_support};
pub use skeleton::Skeleton;
