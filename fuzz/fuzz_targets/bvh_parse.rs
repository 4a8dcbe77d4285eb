#![no_main]
//! Arbitrary bytes as a BVH file, parsed and loaded from a file: `parse`
//! and `load` return Ok or Err alike, never panic, and whatever parses
//! writes back and parses again to the same hierarchy, offsets and motion.
//! Seed it with the CMU files (fuzz/README.md).
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kineform_fuzz::check_bvh(data);
});
