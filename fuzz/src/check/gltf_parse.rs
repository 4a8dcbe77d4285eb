//! The `gltf_parse` target's check: bytes as a `.glb` or `.gltf`.

/// Arbitrary bytes as a `.glb` or `.gltf`: `gltf::parse` returns `Ok` or
/// `Err`, never panics; whatever parses writes back as `.glb` (or is
/// refused with a typed error, as a rest pose with a zero scale is) and
/// parses again to the same skeleton and clip shapes.
pub fn check_gltf(data: &[u8]) {
    // 1 frame per second keeps the fuzzer's clips small; the sample limit
    // is checked before allocating at any rate.
    let rate = 1.0;
    if let Ok(d) = kineform::gltf::parse(data, rate) {
        let named: Vec<(&str, &kineform::Clip)> =
            d.clips.iter().map(|c| (c.name.as_str(), &c.clip)).collect();
        if let Ok(out) = kineform::gltf::write_glb(&d.skeleton, Some(&d.rest), &named) {
            let again = kineform::gltf::parse(&out, rate).expect("a written .glb parses");
            assert_eq!(again.skeleton, d.skeleton);
            assert_eq!(again.clips.len(), d.clips.len());
            for (a, b) in again.clips.iter().zip(&d.clips) {
                assert_eq!(
                    (a.clip.frames(), a.clip.joints()),
                    (b.clip.frames(), b.clip.joints())
                );
            }
        }
    }
}
