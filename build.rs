//! Says at build time when kineform is compiled for the slow SIMD path.
//!
//! `wide` picks its instructions when it is compiled (`cfg(target_feature)`),
//! and a dependent's build decides the target: the default `x86_64` target
//! has SSE2 only, so every 8-lane operation is two 128-bit halves and every
//! fused multiply-add two instructions (PERF.md, "The fast build"). Cargo
//! shows a build script's `cargo:warning` lines for the package being
//! built and for path and git dependencies (not for registry ones, where
//! the `log` warning of `Crowd::new` and `kineform::simd_support()` remain).
//! `KINEFORM_NO_SIMD_WARNING=1` silences it for a deliberate baseline build
//! (one shipped to CPUs older than Haswell).

use std::env;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=KINEFORM_NO_SIMD_WARNING");
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if arch != "x86_64" && arch != "x86" {
        return;
    }
    let features = env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let has = |f: &str| features.split(',').any(|x| x == f);
    if has("avx2") && has("fma") {
        return;
    }
    if env::var_os("KINEFORM_NO_SIMD_WARNING").is_some_and(|v| v != "0") {
        return;
    }
    let path = if has("avx") {
        "AVX without AVX2+FMA"
    } else if has("sse4.1") {
        "SSE4.1"
    } else {
        "SSE2"
    };
    println!(
        "cargo:warning=kineform is compiled for {path} (this build's target has no AVX2+FMA): \
         its 8-lane kernels step a crowd about 2.4x slower than an x86-64-v3 build on the same CPU. \
         Put `[build] rustflags = [\"-C\", \"target-cpu=x86-64-v3\"]` in .cargo/config.toml at the root \
         of your project (kineform's README, \"Using kineform in your project\"); \
         KINEFORM_NO_SIMD_WARNING=1 silences this for a deliberate baseline build."
    );
}
