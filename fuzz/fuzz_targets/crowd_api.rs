#![no_main]
//! Arbitrary bytes -> a clip library, a CrowdConfig, Crowd::new and
//! ReferenceCrowd::new, then up to 8 steps (32 with level of detail, half
//! the time) of a chosen dt after a few chosen commands: both crowds
//! accept or refuse alike (typed errors, a refusal changing nothing),
//! every output stays finite, and in the tested domain the 8-lane crowd
//! equals the reference within the crowd tests' tolerances.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kineform_fuzz::crowd::check_crowd(data);
});
