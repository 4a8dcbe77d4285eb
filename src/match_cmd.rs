//! `kineform match`: a crowd that chooses its own frames
//! ([`kineform::crowd::Matcher`] on the shipped database), with its figures.

use std::path::PathBuf;
use std::time::Instant;

use clap::ValueEnum;
use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, Matcher, MatcherConfig, RootMotion};
use kineform::matching::{self, FootFeatures, MatchConfig, MatchDatabase, MirrorMap};

/// Which features the database describes the feet with.
#[derive(Clone, Copy, ValueEnum)]
pub enum Features {
    /// The published demo's: feet positions and velocities.
    Demo,
    /// The transition-cost article's spring-inertializer feature.
    Spring,
    /// The article's cubic-inertializer feature.
    Cubic,
}

/// Options of `kineform match`.
#[derive(clap::Args)]
pub struct MatchArgs {
    /// The feet's features.
    #[arg(value_enum, default_value = "demo")]
    features: Features,
    /// Number of characters.
    #[arg(long, default_value_t = 256)]
    characters: usize,
    /// Seconds simulated.
    #[arg(long, default_value_t = 10.0)]
    seconds: f32,
    /// Frames per second.
    #[arg(long, default_value_t = 60.0)]
    fps: f32,
    /// Seconds between a character's searches.
    #[arg(long, default_value_t = 0.1)]
    search_every: f32,
    /// More CMU clips (any CMU naming) beside the embedded one; each is
    /// mirrored too.
    #[arg(long)]
    clip: Vec<PathBuf>,
    /// Print the figures as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `kineform match`.
pub fn run(a: &MatchArgs) -> Result<(), Box<dyn std::error::Error>> {
    if !(a.fps.is_finite() && (1.0..=10_000.0).contains(&a.fps)) {
        return Err(format!("--fps {} must be in [1, 10000]", a.fps).into());
    }
    if !(a.seconds.is_finite() && (0.0..=3600.0).contains(&a.seconds)) {
        return Err(format!("--seconds {} must be in [0, 3600]", a.seconds).into());
    }
    let mut library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
    for p in &a.clip {
        library.add_cmu(&kineform::bvh::load(p)?)?;
    }
    let mirror = MirrorMap::cmu(library.skeleton())?;
    matching::add_mirrored(&mut library, &mirror)?;
    let feet = match a.features {
        Features::Demo => FootFeatures::DEMO,
        Features::Spring => FootFeatures::SPRING,
        Features::Cubic => FootFeatures::CUBIC,
    };
    let db = MatchDatabase::build(&library, &MatchConfig::with_feet(feet))?;
    let cfg = CrowdConfig {
        characters: a.characters,
        root_motion: RootMotion::Extract,
        ..CrowdConfig::default()
    };
    let mut crowd = Crowd::new(&library, cfg)?;
    let mcfg = MatcherConfig {
        search_every: a.search_every,
        ..MatcherConfig::default()
    };
    let mut driver = Matcher::new(a.characters, &db, mcfg)?;
    let dt = 1.0 / a.fps;
    let frames = (a.seconds * a.fps).round() as usize;
    let start = Instant::now();
    for _ in 0..frames {
        driver.update(&mut crowd, &db, dt)?;
        crowd.step(dt)?;
        driver.follow(&mut crowd)?;
    }
    let wall = start.elapsed().as_secs_f64();
    let s = driver.stats();
    let per = |x: u64| x as f64 / s.seconds.max(f64::MIN_POSITIVE) / a.characters.max(1) as f64;
    let share = s.search_time.as_secs_f64() / wall.max(f64::MIN_POSITIVE);
    let name = match a.features {
        Features::Demo => "demo",
        Features::Spring => "spring",
        Features::Cubic => "cubic",
    };
    if a.json {
        let j = serde_json::json!({
            "features": name,
            "characters": a.characters,
            "frames": frames,
            "database_frames": db.frames(),
            "transitions_per_second": per(s.transitions),
            "searches_per_second": per(s.searches),
            "mean_trajectory_error": s.mean_error(),
            "search_time_share": share,
            "wall_seconds": wall,
        });
        println!("{j}");
    } else {
        println!(
            "{} characters, {name} features, {frames} frames: {:.2} transitions and {:.2} searches \
             per character per second, mean trajectory error {:.2} units, search {:.1}% of the time",
            a.characters,
            per(s.transitions),
            per(s.searches),
            s.mean_error(),
            100.0 * share
        );
    }
    Ok(())
}
