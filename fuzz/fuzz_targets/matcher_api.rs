#![no_main]
//! Arbitrary bytes -> a run of the motion-matching driver
//! `kineform::crowd::Matcher` (a fuzzed configuration, character count,
//! crowd and frames of fuzzed steps) through its public API: typed
//! refusals that change nothing, finite output, and searches and
//! transitions that agree with each other (`fuzz/src/matcher/`).
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kineform_fuzz::matcher::check_matcher(data);
});
