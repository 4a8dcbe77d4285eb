//! The shipped matching database, built once per test binary: the five
//! CMU clips of `data/mocap` joined on the embedded clip's skeleton
//! (`ClipLibrary::add_cmu`) and mirrored (`matching::add_mirrored`).
#![allow(dead_code)]

use std::sync::OnceLock;

use kineform::crowd::ClipLibrary;
use kineform::matching::{self, FootFeatures, MatchConfig, MatchDatabase, MirrorMap};

/// The three feature sets: the demo's, the article's spring and cubic.
pub const FEATURE_SETS: [FootFeatures; 3] = [
    FootFeatures::DEMO,
    FootFeatures::SPRING,
    FootFeatures::CUBIC,
];

/// Clips 0..5: 102_01, 01_01, 01_03, 12_01, 131_01; 5..10 their mirrors.
pub fn library() -> ClipLibrary {
    static LIB: OnceLock<ClipLibrary> = OnceLock::new();
    LIB.get_or_init(|| {
        let load = |f: &str| {
            kineform::bvh::load(format!("{}/data/mocap/{f}", env!("CARGO_MANIFEST_DIR")))
                .expect("shipped clip")
        };
        let mut lib = ClipLibrary::from_bvh(&kineform::data::default_clip()).expect("library");
        for f in [
            "cmu_01_01_mb.bvh",
            "cmu_01_03_mb.bvh",
            "cmu_12_01_walk_mb.bvh",
            "cmu_131_01_max.bvh",
        ] {
            lib.add_cmu(&load(f)).expect("CMU clip");
        }
        let map = MirrorMap::cmu(lib.skeleton()).expect("CMU mirror map");
        matching::add_mirrored(&mut lib, &map).expect("mirrored");
        lib
    })
    .clone()
}

/// The shipped database with the feet's features `feet`.
pub fn shipped(feet: FootFeatures) -> MatchDatabase {
    static DBS: OnceLock<Vec<MatchDatabase>> = OnceLock::new();
    let dbs = DBS.get_or_init(|| {
        let lib = library();
        FEATURE_SETS
            .iter()
            .map(|&f| MatchDatabase::build(&lib, &MatchConfig::with_feet(f)).expect("database"))
            .collect()
    });
    let i = FEATURE_SETS
        .iter()
        .position(|&f| f == feet)
        .expect("a shipped set");
    dbs[i].clone()
}
