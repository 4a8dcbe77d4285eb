#![no_main]
//! Arbitrary bytes -> a motion-matching database's parts (as a file read
//! back gives them), queries and searches: typed refusals that change
//! nothing, or a database whose searches all agree with the reference
//! bit for bit (`fuzz/src/matching.rs`).
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kineform_fuzz::matching::check_matching(data);
});
