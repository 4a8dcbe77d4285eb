//! A crowd that chooses its own frames: 64 characters follow random
//! gamepad targets by motion matching on the shipped clips (`crowd::Matcher`).
//!
//! `cargo run --release --features wander --example match`

use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, Matcher, MatcherConfig, RootMotion};
use kineform::matching::{self, MatchConfig, MatchDatabase, MirrorMap};

fn main() -> kineform::Result<()> {
    // The clips, mirrored, and their database (the published demo's features).
    let mut library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
    let mirror = MirrorMap::cmu(library.skeleton())?;
    matching::add_mirrored(&mut library, &mirror)?;
    let db = MatchDatabase::build(&library, &MatchConfig::default())?;

    // A crowd that takes the root motion out for the game to apply.
    let n = 64;
    let cfg = CrowdConfig {
        characters: n,
        root_motion: RootMotion::Extract,
        ..CrowdConfig::default()
    };
    let mut crowd = Crowd::new(&library, cfg)?;
    let mut driver = Matcher::new(n, &db, MatcherConfig::default())?;

    let dt = 1.0 / 60.0;
    for _ in 0..600 {
        driver.update(&mut crowd, &db, dt)?; // desired motion, searches, transitions
        crowd.step(dt)?; // the poses
        driver.follow(&mut crowd)?; // the roots moved by the root motion
    }

    let s = driver.stats();
    println!(
        "{n} characters, {:.0} s: {:.1} searches and {:.2} transitions per character per second, \
         mean trajectory error {:.2} units",
        s.seconds,
        s.searches as f64 / s.seconds / n as f64,
        s.transitions as f64 / s.seconds / n as f64,
        s.mean_error()
    );
    Ok(())
}
