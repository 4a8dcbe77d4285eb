//! [`Matcher`]: a motion-matching driver, built only on the crowd's public
//! API (as [`super::Wander`] is) and [`crate::matching`]. Each character
//! follows a desired velocity and facing that a random walk of targets
//! gives, as a gamepad would; a simulated root follows them with the
//! springs article's critically damped springs (`spring_character_update`
//! for the position, `simple_spring_damper_exact` for the yaw). Every
//! [`MatcherConfig::search_every`] seconds (staggered across characters),
//! or at once when the desired motion changes sharply or the clip playing
//! nears a frame the database does not search, the character's query is
//! built from its current world pose (the crowd's output,
//! [`Driven::world_kform`]) and the simulated root's predicted trajectory
//! ([`MatchDatabase::query`]); the due characters' queries are searched in
//! batches, one a part of 256 characters ([`search::accelerated`]), and a
//! character whose best frame is not the one playing (frames of the same clip within
//! [`MatcherConfig::same_clip_window`] count as the one playing)
//! transitions to it ([`Command::Transition`]: the crowd's inertialization
//! or dead blending hides it).
//!
//! The crowd extracts root motion ([`super::RootMotion::Extract`]):
//! [`Matcher::follow`], after each step, moves and turns each character's
//! root by the [`super::RootDelta`] the crowd reports, as a game's
//! character controller would. The simulated root is kept within
//! [`MatcherConfig::clamp_distance`] of it (the published demo's clamping),
//! so the desired trajectory never runs off; the distance before clamping
//! is the trajectory error [`MatcherStats`] reports.
//!
//! As `Wander` does, it reads each character's clip time from the commands
//! it gave (`time + rate dt`, the crowd's own arithmetic) rather than
//! from the crowd.
//!
//! This file holds the driver and its update; its configuration is in
//! `config` ([`MatcherConfig`]), each character's state and its share of
//! an update (its desired motion and query, its decision) in `walker`,
//! and the desired motion's springs in `steer`, stepped eight characters
//! at a time by its lanes twin in `steer_lanes` (the same bits).

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use rayon::prelude::*;

use super::command::{Command, Driven};
use super::{ClipEnd, Root, RootDelta, Source};
use crate::error::{Error, Result};
use crate::matching::{FrameSource, Match, MatchDatabase, QueryBatch, search};
use crate::reference::{self as r, Vec3};

mod config;
mod steer;
mod steer_lanes;
mod walker;

pub use config::{MatcherConfig, SWITCH_MARGIN};
use steer::Steer;
use steer_lanes::SteerPack;
use walker::{NO_SLOT, Now, Walker, decide, desire};

/// What a [`Matcher`] did since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MatcherStats {
    /// Seconds driven: the sum of the `dt`s of every [`Matcher::update`]
    /// after the first (the first places the characters and drives
    /// nothing).
    pub seconds: f64,
    /// Queries searched.
    pub searches: u64,
    /// Transitions given.
    pub transitions: u64,
    /// Sum over characters and updates of the ground distance between the
    /// simulated (desired) root and the character's root, before clamping.
    pub error_sum: f64,
    /// Number of terms of `error_sum`.
    pub error_samples: u64,
    /// Wall time spent building queries and searching.
    pub search_time: Duration,
}

impl MatcherStats {
    /// The mean trajectory error, units.
    pub fn mean_error(&self) -> f64 {
        self.error_sum / self.error_samples.max(1) as f64
    }
}

/// What one character is doing, as [`Matcher::character`] reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchCharacter {
    /// Its root, as [`Matcher::follow`] moved it.
    pub root: Root,
    /// The simulated root's position and velocity (the desired motion).
    pub desired_pos: Vec3,
    /// The simulated root's velocity.
    pub desired_vel: Vec3,
    /// The gamepad's target velocity.
    pub target_vel: Vec3,
    /// The clip playing and its time.
    pub clip: usize,
    /// Its time, seconds.
    pub time: f32,
}

/// One part's share of an update's work ([`PER_TASK`] characters): its
/// desired motions, its queries and their searches in one task, its
/// decisions in another; summed and issued part by part in character
/// order, so that the sums and the commands are the same whatever the
/// thread count. The walkers keep only what lasts between updates, so
/// that each pass over them reads as few lines as it can (a walker is
/// read three times a frame, and a crowd's walkers do not stay in cache
/// across its step).
#[derive(Clone, Debug)]
struct Part {
    /// The trajectory errors before clamping, summed in character order.
    error: f64,
    /// The due characters' queries, in character order (each walker's
    /// [`Walker::slot`] indexes them).
    batch: QueryBatch,
    /// The characters of `batch`'s queries.
    chars: Vec<u32>,
    /// What the search found for each query of `batch`.
    found: Vec<Match>,
    /// The first query that failed ([`MatchDatabase::query`]'s refusal, or
    /// the batch's).
    failed: Option<Error>,
    /// The transitions taken: character, database frame, its source.
    moves: Vec<(u32, usize, FrameSource)>,
}

impl Part {
    /// An empty part whose batch is a copy of `template` (its margin).
    fn new(template: &QueryBatch) -> Part {
        Part {
            error: 0.0,
            batch: template.clone(),
            chars: Vec::new(),
            found: Vec::new(),
            failed: None,
            moves: Vec::new(),
        }
    }

    /// Emptied for an update with `db` (the memory kept).
    fn clear(&mut self, db: &MatchDatabase) {
        (self.error, self.failed) = (0.0, None);
        self.batch.clear_for(db);
        self.chars.clear();
        self.found.clear();
    }

    /// The part's queries searched into `found`; nothing where a query
    /// was refused (its batch and characters emptied, so that
    /// [`Matcher::last_search`] pairs queries and matches).
    fn search(&mut self, db: &MatchDatabase) {
        if self.failed.is_some() {
            self.batch.clear();
            self.chars.clear();
            return;
        }
        let none = Match {
            frame: 0,
            distance: 0.0,
        };
        self.found.resize(self.batch.len(), none);
        // Unreachable refusal: the batch is `db`'s (`clear_for`) and
        // `found` one match a query. Were it refused, the part would hold
        // no queries, as a refused query leaves it.
        if let Err(e) = search::accelerated(db, &self.batch, &mut self.found) {
            self.failed = Some(e);
            self.batch.clear();
            self.chars.clear();
            self.found.clear();
        }
    }
}

/// The motion-matching driver (module docs).
#[derive(Clone, Debug)]
pub struct Matcher {
    cfg: MatcherConfig,
    walkers: Vec<Walker>,
    /// The walkers' desired motions, eight a pack (walker `c` in lane
    /// `c % 8` of pack `c / 8`).
    steers: Vec<SteerPack>,
    started: bool,
    /// The clips of the library of the crowd it drives (set by the first
    /// update): every walker's clip is one of them.
    clips: usize,
    /// An empty batch for the database and margin of [`Matcher::new`]: each
    /// part's starts as a copy.
    batch: QueryBatch,
    parts: Vec<Part>,
    transitions: Vec<(usize, usize)>,
    roots: Vec<Root>,
    stats: MatcherStats,
}

/// Columns of the start grid of `n` characters (`ceil(sqrt(n))`, at
/// least 1): [`Matcher::new`] checks its extent, the first update places
/// the characters on it.
fn grid_columns(n: usize) -> usize {
    (n as f32).sqrt().ceil().max(1.0) as usize
}

impl Matcher {
    /// A driver for `characters` characters searching `db` (built from the
    /// crowd's library). Refuses what [`MatcherConfig::check`] refuses, a
    /// `spacing` whose start grid (`ceil(sqrt(characters))` a side) puts a
    /// character past ±[`crate::limits::MAX_POSITION`] (the first update
    /// would have queued the roots of the characters before it, then been
    /// refused; characters walk from the grid, and one that walks past the
    /// limit later is refused by [`Matcher::follow`]), and a count whose
    /// walkers cannot be reserved (before anything is allocated).
    pub fn new(characters: usize, db: &MatchDatabase, cfg: MatcherConfig) -> Result<Matcher> {
        cfg.check()?;
        let cols = grid_columns(characters);
        let rows = characters.div_ceil(cols);
        let far = (cols.max(rows) - 1) as f32 * cfg.spacing;
        if far > crate::limits::MAX_POSITION {
            return Err(Error::Parameter {
                name: "spacing",
                value: cfg.spacing,
                reason: "the start grid (ceil(sqrt(characters)) a side, spacing apart) must \
                         stay within ±1e6 (kineform::limits::MAX_POSITION)",
            });
        }
        let mut batch = QueryBatch::new(db);
        batch.set_margin(cfg.switch_margin)?;
        let mut walkers = Vec::new();
        walkers
            .try_reserve_exact(characters)
            .map_err(|_| Error::Size {
                what: "matcher characters",
                reason: format!("{characters} walkers could not be reserved"),
            })?;
        let mut steers = Vec::new();
        steers
            .try_reserve_exact(characters.div_ceil(8))
            .map_err(|_| Error::Size {
                what: "matcher characters",
                reason: format!("{characters} walkers' desired motions could not be reserved"),
            })?;
        steers.resize(characters.div_ceil(8), SteerPack::new());
        walkers.extend((0..characters).map(|i| Walker {
            rng: Pcg32::seed_from_u64(cfg.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            root: Root::standing(Vec3::ZERO, 0.0),
            clip: 0,
            time: 0.0,
            countdown: cfg.search_every * (i + 1) as f32 / characters as f32,
            slot: NO_SLOT,
        }));
        Ok(Matcher {
            cfg,
            walkers,
            steers,
            started: false,
            clips: 0,
            batch,
            parts: Vec::new(),
            transitions: Vec::new(),
            roots: Vec::new(),
            stats: MatcherStats::default(),
        })
    }

    /// What it did so far.
    pub fn stats(&self) -> &MatcherStats {
        &self.stats
    }

    /// Character `c` now (`None` past the last).
    pub fn character(&self, c: usize) -> Option<MatchCharacter> {
        let w = self.walkers.get(c)?;
        let steer = self.steers[c / 8].lane(c % 8);
        Some(MatchCharacter {
            root: w.root,
            desired_pos: steer.pos,
            desired_vel: steer.vel,
            target_vel: steer.want_vel,
            clip: w.clip,
            time: w.time,
        })
    }

    /// The last update's queries, in character order, the character of
    /// each, and what the search found for each: copies gathered from the
    /// update's parts. After an update refused for a query, the queries
    /// and matches of the parts without a refused query (none of them
    /// decided on). Where the last update searched nothing in parts (the
    /// first, or one driving no characters), an empty batch in
    /// [`Matcher::new`]'s database's layout.
    pub fn last_search(&self) -> (QueryBatch, Vec<usize>, Vec<Match>) {
        let mut batch = self.parts.first().map_or(&self.batch, |p| &p.batch).clone();
        batch.clear();
        let (mut chars, mut found) = (Vec::new(), Vec::new());
        for part in &self.parts {
            // Unreachable refusal: every part's batch was made for the
            // last update's database (`clear_for`).
            let _ = batch.extend_from(&part.batch);
            chars.extend(part.chars.iter().map(|&c| c as usize));
            found.extend_from_slice(&part.found);
        }
        (batch, chars, found)
    }

    /// The last update's transitions: (character, database frame).
    pub fn last_transitions(&self) -> &[(usize, usize)] {
        &self.transitions
    }

    /// Issues this frame's commands to `crowd` (whose library `db` was
    /// built from) for a step of `dt` about to be taken; returns how many.
    /// The first update places the characters on a grid and plays a
    /// random searched frame each; later ones move the desired motion and
    /// search for the characters due (module docs). Refuses, with nothing
    /// issued and nothing changed, a `dt` the crowd's step would refuse and
    /// a database whose frames are not frames of the crowd's library
    /// ([`MatchDatabase::check_library`]: one built from another library
    /// would have the first update refused half way, after queueing the
    /// characters before the first frame the crowd has not, and a later
    /// one index a clip the crowd has not). Each update's queries are
    /// built and searched in its own `db`'s feature layout, which need
    /// not be [`Matcher::new`]'s (the demo's features one update, the
    /// spring's the next). It drives the first `min(characters, crowd's
    /// characters)` characters: with a crowd larger than the first
    /// update's, the characters past that count are driven without ever
    /// being placed on the grid or given a first clip.
    pub fn update(
        &mut self,
        crowd: &mut (impl Driven + Sync),
        db: &MatchDatabase,
        dt: f32,
    ) -> Result<u32> {
        super::lanes_crowd::check_dt(dt)?;
        db.check_library(crowd.library())?;
        let clips = crowd.library().len();
        if self.started && clips != self.clips {
            // The characters play clips of the first update's library.
            return Err(Error::Length {
                what: "crowd library clips (the matcher's first update's)",
                expected: self.clips,
                got: clips,
            });
        }
        let n = crowd.characters().min(self.walkers.len());
        self.transitions.clear();
        if !self.started {
            (self.started, self.clips) = (true, clips);
            return self.start(crowd, db, n);
        }
        let clock = Instant::now();
        let parts = n.div_ceil(PER_TASK);
        let template = &self.batch;
        self.parts.resize_with(parts, || Part::new(template));
        let now = Now::new(&self.cfg, dt, db.config().trajectory_times);
        self.desire_all(&*crowd, db, &now, n);
        self.sum_parts()?;
        self.stats.error_samples += n as u64;
        self.stats.search_time += clock.elapsed();
        self.decide_all(&*crowd, db, dt, n);
        let issued = self.issue(crowd, parts)?;
        self.stats.transitions += issued as u64;
        self.stats.seconds += f64::from(dt);
        Ok(issued)
    }

    /// Every character's desired motion and, when due, its query, then
    /// the part's queries searched ([`search::accelerated`]), in parallel,
    /// a part a task (each touches only its own walkers and desired
    /// motions), eight characters at a time within it. A part whose query
    /// is refused keeps the refusal ([`Matcher::sum_parts`] returns it)
    /// and searches nothing.
    ///
    /// **Why one task a part, searching too**: the characters due in a
    /// frame are a run of neighbouring ones (their intervals are staggered
    /// by character number), so a frame's queries fall in a few parts;
    /// rayon's first split of the parts (a quarter of them a piece on two
    /// threads) gave one thread nearly all of them, and a pass on one
    /// thread between the queries and their search let the pool's other
    /// worker fall asleep, tens of microseconds to wake on the machines
    /// measured (PERF.md, "Idle workers and the matching update"). A part
    /// with more than [`search::ACCEL_BLOCK`] queries splits its search
    /// for idle workers to take.
    fn desire_all(&mut self, view: &(impl Driven + Sync), db: &MatchDatabase, now: &Now, n: usize) {
        let cfg = &self.cfg;
        self.walkers[..n]
            .par_chunks_mut(PER_TASK)
            .zip(self.steers[..n.div_ceil(8)].par_chunks_mut(PER_TASK / 8))
            .zip(self.parts.par_iter_mut())
            .enumerate()
            .with_max_len(1)
            .for_each(|(k, ((walkers, steers), part))| {
                part.clear(db);
                for (p, (walkers, steer)) in walkers.chunks_mut(8).zip(steers).enumerate() {
                    let first = k * PER_TASK + 8 * p;
                    desire((cfg, view, db, now), first, walkers, steer, part);
                }
                part.search(db);
            });
    }

    /// The parts' error sums and searches into the stats, in character
    /// order: the same sums whatever the thread count. The first query
    /// refused is this update's error (nothing summed, decided or
    /// issued).
    fn sum_parts(&mut self) -> Result<()> {
        if let Some(e) = self.parts.iter_mut().find_map(|p| p.failed.take()) {
            return Err(e);
        }
        for part in &self.parts {
            self.stats.error_sum += part.error;
            self.stats.searches += part.chars.len() as u64;
        }
        Ok(())
    }

    /// Each character's decision on what its search found, in parallel,
    /// the transitions kept by part.
    fn decide_all(&mut self, view: &(impl Driven + Sync), db: &MatchDatabase, dt: f32, n: usize) {
        let cfg = &self.cfg;
        by_parts(
            &mut self.walkers[..n],
            &mut self.parts,
            |part, walkers, first| {
                part.moves.clear();
                for (c, w) in (first..).zip(walkers) {
                    if let Some((f, s)) = decide(cfg, view, db, dt, &part.found, w) {
                        part.moves.push((c as u32, f, s));
                    }
                }
            },
        );
    }

    /// The parts' transitions given to `crowd` in character order; returns
    /// how many.
    fn issue(&mut self, crowd: &mut impl Driven, parts: usize) -> Result<u32> {
        let mut issued = 0;
        for &(c, f, s) in self.parts[..parts].iter().flat_map(|p| &p.moves) {
            let src = Source {
                clip: s.clip,
                time: s.time,
                rate: 1.0,
                end: ClipEnd::Hold,
            };
            crowd.command(
                c as usize,
                Command::Transition {
                    a: src,
                    b: src,
                    duration: self.cfg.blend_duration,
                    halflife: self.cfg.extrapolation_halflife,
                },
            )?;
            self.transitions.push((c as usize, f));
            issued += 1;
        }
        Ok(issued)
    }

    /// The first update: each character on a grid facing a random way,
    /// its simulated root there, playing a random searched frame.
    fn start(&mut self, crowd: &mut impl Driven, db: &MatchDatabase, n: usize) -> Result<u32> {
        let cols = grid_columns(n);
        let searched: Vec<usize> = (0..db.frames()).filter(|&f| db.searchable(f)).collect();
        for (c, w) in self.walkers.iter_mut().enumerate().take(n) {
            let yaw = w.rng.random_range(0.0..core::f32::consts::TAU);
            let place = Vec3::new(
                (c % cols) as f32 * self.cfg.spacing,
                0.0,
                (c / cols) as f32 * self.cfg.spacing,
            );
            w.root = Root::standing(place, yaw);
            self.steers[c / 8].set_lane(c % 8, &Steer::new(place, yaw));
            crowd.command(c, Command::SetRoot(w.root))?;
            // Never empty: `MatchDatabase::new` and its deserialization
            // refuse a database without a searchable frame. And every
            // frame below `db.frames()` lies in one clip's span, so it has
            // a source.
            let f = searched[w.rng.random_range(0..searched.len())];
            let s = db.source(f).expect("a searched frame has a source");
            let src = Source {
                clip: s.clip,
                time: s.time,
                rate: 1.0,
                end: ClipEnd::Hold,
            };
            crowd.command(c, Command::Play { a: src, b: src })?;
            (w.clip, w.time) = (s.clip, s.time);
        }
        Ok(2 * n as u32)
    }

    /// After a step: each character's root moved by the step's extracted
    /// displacement and turned by its turn about `+y`, handed to the crowd
    /// for the next step ([`Driven::set_roots`]). Nothing where the crowd
    /// does not extract root motion.
    pub fn follow(&mut self, crowd: &mut (impl Driven + Sync)) -> Result<()> {
        if crowd.root_motion(0).is_none() {
            return Ok(());
        }
        let n = crowd.characters().min(self.walkers.len());
        let up = Vec3::new(0.0, 1.0, 0.0);
        let view = &*crowd;
        self.roots.resize(n, Root::standing(Vec3::ZERO, 0.0));
        self.walkers[..n]
            .par_chunks_mut(PER_TASK)
            .zip(self.roots.par_chunks_mut(PER_TASK))
            .enumerate()
            .try_for_each(|(k, (walkers, roots))| {
                // A part's root motion read at once, a pack's lanes taken
                // apart once (`root_motion` a character at a time took 55
                // instructions each: callgrind).
                let mut deltas = [RootDelta::default(); PER_TASK];
                let deltas = &mut deltas[..walkers.len()];
                let first = k * PER_TASK;
                view.root_motions_into(first..first + walkers.len(), deltas)?;
                for ((w, root), d) in walkers.iter_mut().zip(roots).zip(&*deltas) {
                    w.root.pos += d.displacement;
                    let turn = r::quat_from_angle_axis(d.turn, up);
                    w.root.rot = r::quat_normalize(r::quat_mul(turn, w.root.rot));
                    *root = w.root;
                }
                Ok::<(), Error>(())
            })?;
        crowd.set_roots(0, &self.roots)
    }
}

/// Characters per part ([`Part`]) of the driver's per-character passes
/// (a whole number of [`SteerPack`]s).
const PER_TASK: usize = 256;
const _: () = assert!(PER_TASK.is_multiple_of(8));

/// `each(part, its walkers, its first character)` for every part of
/// `walkers` ([`PER_TASK`] characters each, the `k`-th with `parts[k]`),
/// the parts in parallel.
fn by_parts(
    walkers: &mut [Walker],
    parts: &mut [Part],
    each: impl Fn(&mut Part, &mut [Walker], usize) + Sync + Send,
) {
    walkers
        .par_chunks_mut(PER_TASK)
        .zip(parts.par_iter_mut())
        .enumerate()
        .for_each(|(k, (w, p))| each(p, w, k * PER_TASK));
}
