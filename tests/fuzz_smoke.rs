//! The fuzz targets' checks (fuzz/src/check.rs) on pseudo-random bytes, so
//! that the normal test run exercises the same decoder and assertions.

#[path = "../fuzz/src/check.rs"]
#[allow(dead_code)]
mod check;

/// Deterministic bytes: xorshift.
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

#[test]
fn lanes_vs_reference_on_random_bytes() {
    for seed in 0..4000u64 {
        let mut b = bytes(seed, 64 + (seed as usize % 1500));
        b[0] = (seed % 8) as u8; // every kernel in turn
        check::check(&b);
    }
    check::check(&[]);
}

#[test]
fn bvh_parse_on_random_and_damaged_bytes() {
    let good = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mocap/cmu_102_01_max.bvh"
    ))
    .unwrap();
    let header = &good[..good.windows(6).position(|w| w == b"MOTION").unwrap() + 80];
    for seed in 0..300u64 {
        check::check_bvh(&bytes(seed, 300));
        let mut d = header.to_vec();
        let noise = bytes(seed, 8);
        let at = (u32::from_le_bytes([noise[0], noise[1], noise[2], noise[3]]) as usize) % d.len();
        d[at] = noise[4];
        d.truncate(d.len() - (noise[5] as usize % 40));
        check::check_bvh(&d);
    }
}

#[cfg(feature = "gltf")]
#[test]
fn gltf_parse_on_random_and_damaged_bytes() {
    let b = kineform::data::default_clip();
    let short = kineform::Clip::new(
        3,
        b.clip.joints(),
        b.clip.frame_time(),
        b.clip.positions()[..3 * 31].to_vec(),
        b.clip.rotations()[..3 * 31].to_vec(),
        b.clip.scales()[..3 * 31].to_vec(),
    )
    .unwrap();
    let good = kineform::gltf::write_glb(&b.skeleton, None, &[("a", &short)]).unwrap();
    check::check_gltf(&good);
    for seed in 0..300u64 {
        check::check_gltf(&bytes(seed, 300));
        let mut d = good.clone();
        let noise = bytes(seed, 16);
        // Damage the JSON (numbers, brackets) or the binary chunk, and cut.
        for k in 0..3 {
            let at = (u32::from_le_bytes([noise[4 * k], noise[4 * k + 1], noise[4 * k + 2], 0])
                as usize)
                % d.len();
            d[at] = noise[12 + k];
        }
        d.truncate(d.len() - (noise[15] as usize % 64));
        check::check_gltf(&d);
    }
}
