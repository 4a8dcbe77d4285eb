#![no_main]
//! Typed values (`arbitrary`) -> a skeleton, bone offsets, clips built
//! value by value (huge, edge, special and raw f32 included), a library,
//! both crowds, commands and steps: refusals are typed, accepted clips are
//! within kineform::limits and write and read back as BVH, and every
//! accepted step's world output is finite with nothing counted as not
//! finite, the velocity check on or off (issue 21, defect 4).
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kineform_fuzz::clips::check_clips(data);
});
