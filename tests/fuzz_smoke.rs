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
