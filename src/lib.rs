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
//! - [`stream`], [`pose_stream`] and [`skeleton`]: structure-of-arrays
//!   storage owned as lane vectors (crowds of whole kineforms or of only the
//!   fields a caller uses), and validated hierarchies;
//! - [`batch`]: validated entry points that run a kernel over a whole
//!   stream or crowd, across cores with rayon.
//!
//! Build with `-C target-cpu=x86-64-v3` (or any target with AVX and FMA) for
//! the 256-bit path; [`simd_backend`] says which one was compiled in.

pub mod batch;
pub mod bvh;
pub mod clip;
pub mod crowd;
pub mod data;
pub mod database;
pub mod error;
pub mod lanes;
pub mod pose_stream;
mod prefetch;
pub mod reference;
pub mod skeleton;
pub mod stream;

pub use clip::Clip;
pub use error::{Error, Result};
pub use skeleton::Skeleton;

/// Which SIMD path `wide` was compiled with: `"avx2+fma"`, `"avx+fma"`,
/// `"avx"`, `"sse4.1"`, `"sse2"`, `"neon"`, `"simd128"` or `"scalar"`.
/// `wide` chooses at compile time (`cfg(target_feature)`), so this is the
/// path every lane kernel of this build takes.
pub const fn simd_backend() -> &'static str {
    if cfg!(all(target_feature = "avx2", target_feature = "fma")) {
        "avx2+fma"
    } else if cfg!(all(target_feature = "avx", target_feature = "fma")) {
        "avx+fma"
    } else if cfg!(target_feature = "avx") {
        "avx"
    } else if cfg!(target_feature = "sse4.1") {
        "sse4.1"
    } else if cfg!(target_feature = "sse2") {
        "sse2"
    } else if cfg!(target_feature = "neon") {
        "neon"
    } else if cfg!(target_feature = "simd128") {
        "simd128"
    } else {
        "scalar"
    }
}
