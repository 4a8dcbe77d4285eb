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

/// Damaged copies of every CMU file (cut to a few frames so the test stays
/// fast): truncated, bytes changed, lines duplicated or deleted, counts and
/// numbers replaced by extreme ones. A fair share must still parse, so the
/// write-and-parse-again round trip and `load` really run.
#[test]
fn bvh_parse_and_load_on_damaged_real_files() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/mocap");
    let mut round_trips = 0;
    let mut cases = 0;
    for name in [
        "cmu_01_01_mb.bvh",
        "cmu_01_03_mb.bvh",
        "cmu_102_01_max.bvh",
        "cmu_12_01_walk_mb.bvh",
        "cmu_131_01_max.bvh",
    ] {
        let base = few_frames(
            &std::fs::read_to_string(format!("{dir}/{name}")).unwrap(),
            4,
        );
        assert!(
            check::check_bvh(base.as_bytes()),
            "{name} cut to 4 frames round-trips"
        );
        for seed in 0..120u64 {
            let d = check::mutate(base.as_bytes(), seed);
            round_trips += check::check_bvh(&d) as usize;
            cases += 1;
        }
    }
    for seed in 0..200u64 {
        check::check_bvh(&bytes(seed, 300));
    }
    assert!(
        round_trips * 5 >= cases,
        "only {round_trips} of {cases} damaged files parsed: the round trip barely ran"
    );
    assert!(round_trips < cases, "no damage was ever refused");
}

/// `text` with its motion cut to `n` frames (and `Frames:` saying so).
pub fn few_frames(text: &str, n: usize) -> String {
    let at = text.find("Frame Time").unwrap();
    let body = &text[at..];
    let lines: Vec<&str> = body.lines().take(n + 1).collect();
    let head = &text[..text.find("Frames:").unwrap()];
    format!("{head}Frames: {n}\n{}\n", lines.join("\n"))
}

/// The batch API check on pseudo-random bytes, every entry point in turn.
#[test]
fn batch_api_on_random_bytes() {
    for seed in 0..std::env::var("API_SEEDS").map_or(3000, |v| v.parse().unwrap()) {
        let mut b = bytes(seed, 48);
        b[0] = (seed % check::api::FUNCTIONS as u64) as u8;
        check::api::check_api(&b);
    }
    check::api::check_api(&[]);
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

/// The crowd check on pseudo-random bytes: libraries, configurations,
/// commands and steps. A fair share must build both crowds and step them,
/// and a fair share of the steps must stay in the tested domain, so the
/// lanes-vs-reference comparison really runs.
#[test]
fn crowd_api_on_random_bytes() {
    let (mut stepped, mut steps, mut compared) = (0, 0, 0);
    let seeds = std::env::var("CROWD_SEEDS").map_or(400u64, |v| v.parse().unwrap());
    for seed in 0..seeds {
        let (ran, tame) = check::crowd::check_crowd(&bytes(seed, 400));
        stepped += (ran > 0) as u64;
        steps += ran;
        compared += tame;
    }
    check::crowd::check_crowd(&[]);
    eprintln!("{stepped} of {seeds} inputs stepped; {compared} of {steps} steps compared");
    assert!(
        stepped * 3 >= seeds && compared * 5 >= steps,
        "only {stepped} of {seeds} inputs stepped a crowd, {compared} of {steps} steps compared"
    );
}

/// The structure-aware glTF check on pseudo-random bytes: a fair share of
/// documents must parse and be compared with glTF's matrices, some must
/// fold helper nodes, some must be refused for a limit, some must be long
/// chains, so that each defect's shape is really built.
#[cfg(feature = "gltf")]
#[test]
fn gltf_doc_on_random_bytes() {
    let seeds = std::env::var("GLTF_SEEDS").map_or(600u64, |v| v.parse().unwrap());
    let (mut parsed, mut compared, mut helpers, mut limited, mut long) = (0, 0, 0, 0, 0);
    for seed in 0..seeds {
        let o = check::gltf_doc::check_doc(&bytes(seed, 200 + (seed as usize % 1200)));
        parsed += o.parsed as u64;
        compared += o.compared as u64;
        helpers += (o.helpers > 0) as u64;
        limited += o.limited as u64;
        long += (o.nodes > 1000) as u64;
    }
    check::gltf_doc::check_doc(&[]);
    eprintln!(
        "{seeds} documents: {parsed} parsed, {compared} compared with glTF, {helpers} with helpers, {limited} refused for a limit, {long} over 1,000 nodes"
    );
    assert!(
        parsed * 4 >= seeds && compared * 8 >= seeds && helpers > 0 && limited > 0 && long > 0,
        "too few documents of some shape"
    );
}
