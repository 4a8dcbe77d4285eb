#![no_main]
//! Arbitrary bytes as a glTF document (.glb or JSON): parse returns Ok or
//! Err, never panics, and whatever parses writes back and parses again.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kineform_fuzz::check_gltf(data));
