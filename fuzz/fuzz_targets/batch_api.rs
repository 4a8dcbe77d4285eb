#![no_main]
//! Arbitrary bytes -> a call of one validated entry point (batch::*,
//! make_loop, Clip::new, Database::new, Skeleton::new, the stream and crowd
//! pose constructors) with special or raw f32 parameters: a refusal leaves
//! every output byte-identical, an accepted call gives only finite output.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kineform_fuzz::api::check_api(data));
