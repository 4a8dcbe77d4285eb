//! `kineform match`: a crowd that chooses its own frames
//! ([`kineform::crowd::Matcher`] on the shipped database), with its figures.

use std::path::PathBuf;
use std::time::Instant;

use clap::ValueEnum;
use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, Matcher, MatcherConfig, RootMotion};
use kineform::database::ClipStorage;
use kineform::matching::{self, FootFeatures, MatchConfig, MatchDatabase, MirrorMap};

use crate::PagesArg;
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
    /// A character transitions only to a frame whose distance beats the
    /// playing frame's by more than this (`MatcherConfig::switch_margin`).
    #[arg(long, default_value_t = MatcherConfig::default().switch_margin)]
    switch_margin: f32,
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
    /// Store the crowd's clips compactly (`ClipStorage::Compact`, as
    /// `kineform crowd --compact`): a quarter of the full rows' bytes (the
    /// embedded clip and the four CMU clips of PERF.md's runs, mirrored:
    /// 18.6 MB of rows, 4.6 MB compact), for a crowd that samples frames
    /// all over a database larger than its cores' L2.
    #[arg(long)]
    compact: bool,
    /// Store the crowd's clips as stepped words (`ClipStorage::Stepped`, as
    /// `kineform crowd --stepped`): about half the full rows' bytes, the
    /// steps stored, not derived.
    #[arg(long, conflicts_with = "compact")]
    stepped: bool,
    /// Print the figures as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    pages: PagesArg,
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// Runs `kineform match`: the arguments checked, the database built, the
/// plain crowd timed where asked, the matching crowd run, its figures
/// printed.
pub fn run(a: &MatchArgs) -> Result<(), Failure> {
    check_args(a)?;
    a.pages.apply();
    // Every parallel pass runs in this pool, the database's build included,
    // as `kineform crowd` does (and a game whose frame is a rayon job):
    // each pass then starts from a worker of the pool instead of waking it
    // from outside (`RAYON_NUM_THREADS` sizes it). Made first, before the
    // clips fill memory, and refused typed where its threads cannot be had
    // (rayon's global pool would panic).
    let pool = crate::pool::worker_pool(None, "RAYON_NUM_THREADS, else one a core")?;
    let (library, db) = pool.install(|| database(a))?;
    let cfg = CrowdConfig {
        characters: a.characters,
        root_motion: RootMotion::Extract,
        clip_storage: cfg_storage(a),
        ..CrowdConfig::default()
    };
    let mcfg = MatcherConfig {
        seed: a.seed,
        search_every: a.search_every,
        same_clip_window: a.same_clip_window,
        switch_margin: a.switch_margin,
        ..MatcherConfig::default()
    };
    let dt = 1.0 / a.fps;
    let frames = (a.seconds * a.fps).round() as usize;
    let plain = match a.plain {
        true => Some(pool.install(|| time_plain(&library, &db, (&cfg, &mcfg), (dt, frames)))?),
        false => None,
    };
    let mut quality = match a.quality {
        true => Some(pool.install(|| Quality::new(&db, &library, a.contact_margin))?),
        false => None,
    };
    let (driver, t, clip_bytes) = pool.install(|| -> Result<_, Failure> {
        let mut crowd = Crowd::new(&library, cfg)?;
        let mut driver = Matcher::new(a.characters, &db, mcfg)?;
        let t = run_matching(&mut crowd, &mut driver, &db, &mut quality, (dt, frames))?;
        Ok((driver, t, crowd.clip_table_bytes()))
    })?;
    let f = Figures::of(a, &driver, &t, frames, (plain, clip_bytes));
    match a.json {
        true => say!("{}", f.json(&db, quality.as_ref()))?,
        false => f.print_text(&db, quality.as_ref())?,
    }
    Ok(())
}

/// How the crowd stores its clips.
fn cfg_storage(a: &MatchArgs) -> ClipStorage {
    match (a.compact, a.stepped) {
        (true, _) => ClipStorage::Compact,
        (_, true) => ClipStorage::Stepped,
        _ => ClipStorage::Full,
    }
}

/// Refuses a step rate, a length or a contact margin out of its range.
fn check_args(a: &MatchArgs) -> Result<(), Failure> {
    if !(a.fps.is_finite() && (1.0..=10_000.0).contains(&a.fps)) {
        return Err(format!("--fps {} must be in [1, 10000]", a.fps).into());
    }
    if !(a.seconds.is_finite() && (0.0..=3600.0).contains(&a.seconds)) {
        return Err(format!("--seconds {} must be in [0, 3600]", a.seconds).into());
    }
    if (a.seconds * a.fps).round() < 1.0 {
        return Err(format!(
            "--seconds {} at --fps {} runs no frame: at least one frame (1 / fps seconds) is needed",
            a.seconds, a.fps
        )
        .into());
    }
    if !(a.contact_margin.is_finite() && (0.0..=1e3).contains(&a.contact_margin)) {
        return Err(format!("--contact-margin {} must be in [0, 1000]", a.contact_margin).into());
    }
    Ok(())
}

/// The clip library (the embedded clip, the `--clip` files, all mirrored)
/// and its matching database with the chosen feet features.
fn database(a: &MatchArgs) -> Result<(ClipLibrary, MatchDatabase), Failure> {
    let mut library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
    for p in &a.clip {
        // Named: a skeleton the CMU joint map cannot join said which joint,
        // not which file.
        library
            .add_cmu(&kineform::bvh::load(p)?)
            .map_err(|e| e.in_file(p))?;
    }
    let mirror = MirrorMap::cmu(library.skeleton())?;
    matching::add_mirrored(&mut library, &mirror)?;
    let feet = match a.features {
        Features::Demo => FootFeatures::DEMO,
        Features::Spring => FootFeatures::SPRING,
        Features::Cubic => FootFeatures::CUBIC,
    };
    let db = MatchDatabase::build(&library, &MatchConfig::with_feet(feet))?;
    Ok((library, db))
}

/// Seconds the plain crowd takes for `frames` steps: the matcher's first
/// update places and starts the characters; after it the crowd is only
/// stepped.
fn time_plain(
    library: &ClipLibrary,
    db: &MatchDatabase,
    (cfg, mcfg): (&CrowdConfig, &MatcherConfig),
    (dt, frames): (f32, usize),
) -> Result<f64, Failure> {
    let mut crowd = Crowd::new(library, cfg.clone())?;
    let mut driver = Matcher::new(cfg.characters, db, mcfg.clone())?;
    driver.update(&mut crowd, db, dt)?;
    let start = Instant::now();
    for _ in 0..frames {
        crowd.step(dt)?;
    }
    Ok(start.elapsed().as_secs_f64())
}

/// Seconds the matching crowd spent in each part of its frames, and in all.
struct Timings {
    update: f64,
    step: f64,
    follow: f64,
    wall: f64,
}

/// `frames` frames of the matching crowd (update, step, follow), the
/// quality figures taken beside where asked (not timed).
fn run_matching(
    crowd: &mut Crowd,
    driver: &mut Matcher,
    db: &MatchDatabase,
    quality: &mut Option<Quality>,
    (dt, frames): (f32, usize),
) -> Result<Timings, Failure> {
    let (mut update, mut step, mut follow) = (0.0f64, 0.0f64, 0.0f64);
    let start = Instant::now();
    for _ in 0..frames {
        let t0 = Instant::now();
        driver.update(crowd, db, dt)?;
        let t1 = Instant::now();
        if let Some(q) = quality.as_mut() {
            q.transitions(crowd, driver, db);
        }
        let t2 = Instant::now();
        crowd.step(dt)?;
        let t3 = Instant::now();
        driver.follow(crowd)?;
        let t4 = Instant::now();
        if let Some(q) = quality.as_mut() {
            q.feet(crowd, db, dt);
        }
        update += (t1 - t0).as_secs_f64();
        step += (t3 - t2).as_secs_f64();
        follow += (t4 - t3).as_secs_f64();
    }
    Ok(Timings {
        update,
        step,
        follow,
        wall: start.elapsed().as_secs_f64(),
    })
}

/// What a run reports besides the quality figures.
struct Figures<'a> {
    a: &'a MatchArgs,
    name: &'static str,
    frames: usize,
    transitions: f64,
    searches: f64,
    mean_error: f64,
    share: f64,
    wall: f64,
    /// Milliseconds a frame: update, step, follow, and their sum.
    update_ms: f64,
    step_ms: f64,
    follow_ms: f64,
    matching_ms: f64,
    plain_ms: Option<f64>,
    /// The crowd's clip tables, bytes.
    clip_bytes: usize,
}

impl<'a> Figures<'a> {
    fn of(
        a: &'a MatchArgs,
        driver: &Matcher,
        t: &Timings,
        frames: usize,
        (plain, clip_bytes): (Option<f64>, usize),
    ) -> Figures<'a> {
        let s = driver.stats();
        let per = |x: u64| x as f64 / s.seconds.max(f64::MIN_POSITIVE) / a.characters.max(1) as f64;
        let ms = |t: f64| 1e3 * t / frames.max(1) as f64;
        Figures {
            a,
            name: match a.features {
                Features::Demo => "demo",
                Features::Spring => "spring",
                Features::Cubic => "cubic",
            },
            frames,
            transitions: per(s.transitions),
            searches: per(s.searches),
            mean_error: s.mean_error(),
            share: s.search_time.as_secs_f64() / t.wall.max(f64::MIN_POSITIVE),
            wall: t.wall,
            update_ms: ms(t.update),
            step_ms: ms(t.step),
            follow_ms: ms(t.follow),
            matching_ms: ms(t.update + t.step + t.follow),
            plain_ms: plain.map(ms),
            clip_bytes,
        }
    }

    /// The figures as one JSON object (the quality's where taken).
    fn json(&self, db: &MatchDatabase, quality: Option<&Quality>) -> serde_json::Value {
        let mut j = serde_json::json!({
            "features": self.name,
            "characters": self.a.characters,
            "frames": self.frames,
            "seed": self.a.seed,
            "switch_margin": self.a.switch_margin,
            "threads": rayon::current_num_threads(),
            "database_frames": db.frames(),
            "database_bytes": db.memory().bytes,
            "clip_storage": cfg_storage(self.a).name(),
            "clip_table_bytes": self.clip_bytes,
            "huge_pages": kineform::pages::huge_pages(),
            "transitions_per_second": self.transitions,
            "searches_per_second": self.searches,
            "mean_trajectory_error": self.mean_error,
            "search_time_share": self.share,
            "wall_seconds": self.wall,
            "frame_ms": self.matching_ms,
            "update_ms": self.update_ms,
            "step_ms": self.step_ms,
            "follow_ms": self.follow_ms,
        });
        if let Some(p) = self.plain_ms {
            j["plain_frame_ms"] = p.into();
            j["matching_over_plain"] = (self.matching_ms / p.max(f64::MIN_POSITIVE)).into();
        }
        if let Some(q) = quality {
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
        j
    }

    /// The figures as sentences.
    fn print_text(&self, db: &MatchDatabase, quality: Option<&Quality>) -> kineform::Result<()> {
        let (name, frames, matching_ms) = (self.name, self.frames, self.matching_ms);
        say!(
            "{} characters, {name} features, {frames} frames: {:.2} transitions and {:.2} searches \
             per character per second, mean trajectory error {:.2} units, search {:.1}% of the time, \
             {matching_ms:.3} ms a frame (update {:.3}, step {:.3}, follow {:.3})",
            self.a.characters,
            self.transitions,
            self.searches,
            self.mean_error,
            100.0 * self.share,
            self.update_ms,
            self.step_ms,
            self.follow_ms,
        )?;
        say!(
            "clips stored {}: {} bytes of tables",
            match cfg_storage(self.a) {
                ClipStorage::Full => "in full rows",
                ClipStorage::Compact => "compactly",
                ClipStorage::Stepped => "as stepped words",
            },
            self.clip_bytes
        )?;
        if let Some(p) = self.plain_ms {
            say!(
                "the same crowd without matching: {p:.3} ms a frame; matching {:.2}x",
                matching_ms / p.max(f64::MIN_POSITIVE)
            )?;
        }
        if let Some(q) = quality {
            let ((spring, cubic), (slide, contact)) = (q.mean_cost(), q.sliding());
            say!(
                "transition cost (feet, exact displacement) {spring:.3} (spring, 0.1 s) {cubic:.3} \
                 (cubic, 0.3 s) units s; foot sliding {slide:.3} units/s ({:.1}% of foot samples \
                 in contact, under {:.2} units); database {} bytes",
                100.0 * contact,
                q.contact_height(),
                db.memory().bytes
            )?;
        }
        Ok(())
    }
}
