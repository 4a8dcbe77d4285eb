//! `kineform match`: a crowd that chooses its own frames
//! ([`kineform::crowd::Matcher`] on the shipped database), with its figures.

use std::path::PathBuf;
use std::time::Instant;

use clap::ValueEnum;
use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, Matcher, MatcherConfig, RootMotion};
use kineform::matching::{self, FootFeatures, MatchConfig, MatchDatabase, MirrorMap};

use crate::match_quality::Quality;

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
    /// Frames of the clip playing within this many seconds of its time
    /// count as the one playing (`MatcherConfig::same_clip_window`).
    #[arg(long, default_value_t = MatcherConfig::default().same_clip_window)]
    same_clip_window: f32,
    /// Seed of the gamepad targets and the starting frames.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also measure the transitions' exact displacement on the feet and
    /// foot sliding (`match_quality`; reads the feet every frame, so not
    /// for timing).
    #[arg(long)]
    quality: bool,
    /// With --quality: a foot is in contact when its ankle is at most this
    /// many units above the lowest feet of the database (the 1st
    /// percentile of their heights).
    #[arg(long, default_value_t = crate::match_quality::CONTACT_MARGIN)]
    contact_margin: f32,
    /// Also step the same crowd without matching (the same characters
    /// placed and started on the same frames, then only stepped) for as
    /// many frames, first, and report its frame time beside the matching
    /// frame's.
    #[arg(long)]
    plain: bool,
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
    if !(a.contact_margin.is_finite() && (0.0..=1e3).contains(&a.contact_margin)) {
        return Err(format!("--contact-margin {} must be in [0, 1000]", a.contact_margin).into());
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
    let mcfg = MatcherConfig {
        seed: a.seed,
        search_every: a.search_every,
        same_clip_window: a.same_clip_window,
        ..MatcherConfig::default()
    };
    let dt = 1.0 / a.fps;
    let frames = (a.seconds * a.fps).round() as usize;
    // The plain crowd: the matcher's first update places and starts the
    // characters; after it the crowd is only stepped.
    let plain = match a.plain {
        true => {
            let mut crowd = Crowd::new(&library, cfg.clone())?;
            let mut driver = Matcher::new(a.characters, &db, mcfg.clone())?;
            driver.update(&mut crowd, &db, dt)?;
            let start = Instant::now();
            for _ in 0..frames {
                crowd.step(dt)?;
            }
            Some(start.elapsed().as_secs_f64())
        }
        false => None,
    };
    let mut crowd = Crowd::new(&library, cfg)?;
    let mut driver = Matcher::new(a.characters, &db, mcfg)?;
    let mut quality = match a.quality {
        true => Some(Quality::new(&db, &library, a.contact_margin)?),
        false => None,
    };
    let (mut t_update, mut t_step, mut t_follow) = (0.0f64, 0.0f64, 0.0f64);
    let start = Instant::now();
    for _ in 0..frames {
        let t0 = Instant::now();
        driver.update(&mut crowd, &db, dt)?;
        let t1 = Instant::now();
        if let Some(q) = &mut quality {
            q.transitions(&crowd, &driver, &db);
        }
        let t2 = Instant::now();
        crowd.step(dt)?;
        let t3 = Instant::now();
        driver.follow(&mut crowd)?;
        let t4 = Instant::now();
        if let Some(q) = &mut quality {
            q.feet(&crowd, &db, dt);
        }
        t_update += (t1 - t0).as_secs_f64();
        t_step += (t3 - t2).as_secs_f64();
        t_follow += (t4 - t3).as_secs_f64();
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
    let ms = |t: f64| 1e3 * t / frames.max(1) as f64;
    let matching_ms = ms(t_update + t_step + t_follow);
    let memory = db.memory();
    let mut j = serde_json::json!({
        "features": name,
        "characters": a.characters,
        "frames": frames,
        "seed": a.seed,
        "threads": rayon::current_num_threads(),
        "database_frames": db.frames(),
        "database_bytes": memory.bytes,
        "transitions_per_second": per(s.transitions),
        "searches_per_second": per(s.searches),
        "mean_trajectory_error": s.mean_error(),
        "search_time_share": share,
        "wall_seconds": wall,
        "frame_ms": matching_ms,
        "update_ms": ms(t_update),
        "step_ms": ms(t_step),
        "follow_ms": ms(t_follow),
    });
    if let Some(p) = plain {
        j["plain_frame_ms"] = ms(p).into();
        j["matching_over_plain"] = (matching_ms / ms(p).max(f64::MIN_POSITIVE)).into();
    }
    if let Some(q) = &quality {
        let ((spring, cubic), (slide, contact), (clip_slide, clip_contact)) =
            (q.mean_cost(), q.sliding(), q.clips_sliding());
        j["transition_cost_spring"] = spring.into();
        j["transition_cost_cubic"] = cubic.into();
        j["contact_height"] = q.contact_height().into();
        j["foot_sliding"] = slide.into();
        j["contact_share"] = contact.into();
        j["clips_foot_sliding"] = clip_slide.into();
        j["clips_contact_share"] = clip_contact.into();
    }
    if a.json {
        println!("{j}");
    } else {
        println!(
            "{} characters, {name} features, {frames} frames: {:.2} transitions and {:.2} searches \
             per character per second, mean trajectory error {:.2} units, search {:.1}% of the time, \
             {matching_ms:.3} ms a frame (update {:.3}, step {:.3}, follow {:.3})",
            a.characters,
            per(s.transitions),
            per(s.searches),
            s.mean_error(),
            100.0 * share,
            ms(t_update),
            ms(t_step),
            ms(t_follow),
        );
        if let Some(p) = plain {
            println!(
                "the same crowd without matching: {:.3} ms a frame; matching {:.2}x",
                ms(p),
                matching_ms / ms(p).max(f64::MIN_POSITIVE)
            );
        }
        if let Some(q) = &quality {
            let ((spring, cubic), (slide, contact)) = (q.mean_cost(), q.sliding());
            println!(
                "transition cost (feet, exact displacement) {spring:.3} (spring, 0.1 s) {cubic:.3} \
                 (cubic, 0.3 s) units s; foot sliding {slide:.3} units/s ({:.1}% of foot samples \
                 in contact, under {:.2} units); database {} bytes",
                100.0 * contact,
                q.contact_height(),
                memory.bytes
            );
        }
    }
    Ok(())
}
