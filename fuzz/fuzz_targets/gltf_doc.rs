#![no_main]
//! glTF documents built from typed values (arbitrary): shared samplers and
//! long durations, long node chains and cycles, helper nodes between and
//! above joints, sparse accessors, data URIs. parse returns typed, within
//! the limits; accepted documents put every joint where glTF's matrices do
//! and write back.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kineform_fuzz::gltf_doc::check_doc(data);
});
