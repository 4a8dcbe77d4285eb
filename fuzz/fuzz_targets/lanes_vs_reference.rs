#![no_main]
//! Arbitrary bytes -> inputs of the lane kernels: nothing panics on any
//! f32 bit pattern, and on inputs inside the tested domains every lane
//! agrees with the scalar reference within its family's tolerance.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kineform_fuzz::check(data));
