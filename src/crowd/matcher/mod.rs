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
//! one batch ([`search::accelerated`]), and a character whose best frame
//! is not the one playing (frames of the same clip within
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

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use rayon::prelude::*;

use super::command::{Command, Driven};
use super::{ClipEnd, Root, Source};
use crate::error::{Error, Result};
use crate::matching::search::MAX_PADDED;
use crate::matching::{FrameSource, Match, MatchDatabase, QueryBatch, WorldPose, search};
use crate::reference::{self as r, Vec3};

mod steer;

use steer::{Lapses, Steer};

/// How [`Matcher`] drives.
#[derive(Clone, Debug, PartialEq)]
pub struct MatcherConfig {
    /// Seed of every character's targets.
    pub seed: u64,
    /// Seconds between a character's searches (staggered: character `c`
    /// of `n` first searches `search_every (c + 1) / n` after its start).
    pub search_every: f32,
    /// Seconds between new gamepad targets: uniform in this range.
    pub retarget_every: (f32, f32),
    /// Desired speeds, units per second: uniform in this range.
    pub speed: (f32, f32),
    /// The desired facing is the desired direction turned by up to this,
    /// radians (0: the character faces where it goes).
    pub strafe: f32,
    /// Half-life of the simulated root's velocity spring, seconds (the
    /// demo's 0.27).
    pub velocity_halflife: f32,
    /// Half-life of its yaw spring, seconds (0.27).
    pub rotation_halflife: f32,
    /// A new target that changes the desired velocity by more than this
    /// (units/s) searches at once.
    pub sharp_velocity: f32,
    /// ... or the desired facing by more than this (radians).
    pub sharp_turn: f32,
    /// Frames of the clip playing within this of its time (seconds) count
    /// as the one playing: no transition.
    pub same_clip_window: f32,
    /// Hysteresis: a character searching while it plays a searched frame
    /// transitions only to a frame whose distance beats the playing
    /// frame's by more than this ([`QueryBatch::set_margin`]; 0: to the
    /// best frame whenever it is not the one playing). Real matchers bias
    /// the continuing pose alike (Unreal's `ContinuingPoseCostBias`).
    pub switch_margin: f32,
    /// Length of a transition, seconds.
    pub blend_duration: f32,
    /// Dead blending's extrapolation half-life, seconds.
    pub extrapolation_halflife: f32,
    /// The simulated root is kept this close to the character's root
    /// (units).
    pub clamp_distance: f32,
    /// Distance between neighbouring characters' starts on the grid.
    pub spacing: f32,
}

impl Default for MatcherConfig {
    /// The published demo's springs and search interval, in the CMU clips'
    /// units (about 5.6 cm): speeds up to 20 units/s (1.1 m/s, the walks'
    /// pace), a new target every 1 to 3 s.
    fn default() -> MatcherConfig {
        MatcherConfig {
            seed: 1,
            search_every: 0.1,
            retarget_every: (1.0, 3.0),
            speed: (0.0, 20.0),
            strafe: 0.0,
            velocity_halflife: 0.27,
            rotation_halflife: 0.27,
            sharp_velocity: 8.0,
            sharp_turn: 1.0,
            same_clip_window: 0.2,
            switch_margin: SWITCH_MARGIN,
            blend_duration: 0.3,
            extrapolation_halflife: 0.2,
            clamp_distance: 10.0,
            spacing: 60.0,
        }
    }
}

impl MatcherConfig {
    /// Refuses, naming it, a parameter that is not finite and positive
    /// (intervals, half-lives, durations, distances), ranges out of order
    /// or negative, and a negative strafe or window.
    pub fn check(&self) -> Result<()> {
        let positive = [
            ("search_every", self.search_every),
            ("velocity_halflife", self.velocity_halflife),
            ("rotation_halflife", self.rotation_halflife),
            ("blend_duration", self.blend_duration),
            ("extrapolation_halflife", self.extrapolation_halflife),
            ("clamp_distance", self.clamp_distance),
            ("retarget_every.0", self.retarget_every.0),
        ];
        for (name, v) in positive {
            if !(v.is_finite() && v > 0.0 && v <= 1e6) {
                return Err(Error::Parameter {
                    name,
                    value: v,
                    reason: "must be finite and in (0, 1e6]",
                });
            }
        }
        let non_negative = [
            ("speed.0", self.speed.0),
            ("strafe", self.strafe),
            ("sharp_velocity", self.sharp_velocity),
            ("sharp_turn", self.sharp_turn),
            ("same_clip_window", self.same_clip_window),
            ("switch_margin", self.switch_margin),
            ("spacing", self.spacing),
        ];
        for (name, v) in non_negative {
            if !(v.is_finite() && (0.0..=1e6).contains(&v)) {
                return Err(Error::Parameter {
                    name,
                    value: v,
                    reason: "must be finite and in [0, 1e6]",
                });
            }
        }
        for (name, (lo, hi)) in [
            ("retarget_every.1", self.retarget_every),
            ("speed.1", self.speed),
        ] {
            if !(hi.is_finite() && hi >= lo && hi <= 1e6) {
                return Err(Error::Parameter {
                    name,
                    value: hi,
                    reason: "must be finite, at least the range's start and at most 1e6",
                });
            }
        }
        Ok(())
    }
}

/// What a [`Matcher`] did since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MatcherStats {
    /// Seconds driven (sum of the `dt`s of [`Matcher::update`]).
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

#[derive(Clone, Debug)]
struct Walker {
    rng: Pcg32,
    steer: Steer,
    root: Root,
    clip: usize,
    time: f32,
    countdown: f32,
    /// Its query's index in this update's batch ([`NO_SLOT`]: it did not
    /// search).
    slot: u32,
}

/// [`Walker::slot`] of a character that did not search.
const NO_SLOT: u32 = u32::MAX;

/// One part's share of an update's work ([`PER_TASK`] characters):
/// computed in parallel, gathered part by part in character order, so
/// that the batch, the sums and the commands are the same whatever the
/// thread count. The walkers keep only what lasts between updates, so
/// that each pass over them reads as few lines as it can (a walker is
/// read three times a frame, and a crowd's walkers do not stay in cache
/// across its step).
#[derive(Clone, Debug, Default)]
struct Part {
    /// The trajectory errors before clamping, summed in character order.
    error: f64,
    /// The due characters' queries, in character order.
    queries: Vec<(u32, Query)>,
    /// The first query that failed ([`MatchDatabase::query`]'s refusal).
    failed: Option<Error>,
    /// The transitions taken: character, database frame, its source.
    moves: Vec<(u32, usize, FrameSource)>,
}

#[derive(Clone, Debug)]
struct Query {
    q: [f32; MAX_PADDED],
    seed: Option<usize>,
}

/// The motion-matching driver (module docs).
#[derive(Clone, Debug)]
pub struct Matcher {
    cfg: MatcherConfig,
    walkers: Vec<Walker>,
    started: bool,
    batch: QueryBatch,
    parts: Vec<Part>,
    due: Vec<usize>,
    found: Vec<Match>,
    transitions: Vec<(usize, usize)>,
    roots: Vec<Root>,
    stats: MatcherStats,
}

impl Matcher {
    /// A driver for `characters` characters searching `db` (built from the
    /// crowd's library). Refuses what [`MatcherConfig::check`] refuses.
    pub fn new(characters: usize, db: &MatchDatabase, cfg: MatcherConfig) -> Result<Matcher> {
        cfg.check()?;
        let mut batch = QueryBatch::new(db);
        batch.set_margin(cfg.switch_margin)?;
        let walkers = (0..characters)
            .map(|i| Walker {
                rng: Pcg32::seed_from_u64(
                    cfg.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                ),
                steer: Steer::new(Vec3::ZERO, 0.0),
                root: Root::standing(Vec3::ZERO, 0.0),
                clip: 0,
                time: 0.0,
                countdown: cfg.search_every * (i + 1) as f32 / characters as f32,
                slot: NO_SLOT,
            })
            .collect();
        Ok(Matcher {
            cfg,
            walkers,
            started: false,
            batch,
            parts: Vec::new(),
            due: Vec::new(),
            found: Vec::new(),
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
        Some(MatchCharacter {
            root: w.root,
            desired_pos: w.steer.pos,
            desired_vel: w.steer.vel,
            target_vel: w.steer.want_vel,
            clip: w.clip,
            time: w.time,
        })
    }

    /// The last update's queries and what the search found for each.
    pub fn last_search(&self) -> (&QueryBatch, &[Match]) {
        (&self.batch, &self.found)
    }

    /// The last update's transitions: (character, database frame).
    pub fn last_transitions(&self) -> &[(usize, usize)] {
        &self.transitions
    }

    /// Issues this frame's commands to `crowd` (whose library `db` was
    /// built from) for a step of `dt` about to be taken; returns how many.
    /// The first update places the characters on a grid and plays a
    /// random searched frame each; later ones move the desired motion and
    /// search for the characters due (module docs). Refuses a `dt` the
    /// crowd's step would refuse, with nothing issued.
    pub fn update(
        &mut self,
        crowd: &mut (impl Driven + Sync),
        db: &MatchDatabase,
        dt: f32,
    ) -> Result<u32> {
        super::lanes_crowd::check_dt(dt)?;
        let n = crowd.characters().min(self.walkers.len());
        self.transitions.clear();
        if !self.started {
            self.started = true;
            return self.start(crowd, db, n);
        }
        let clock = Instant::now();
        let parts = n.div_ceil(PER_TASK);
        self.parts.resize_with(parts, Part::default);
        let now = Now::new(&self.cfg, dt, db.config().trajectory_times);
        self.desire_all(&*crowd, db, &now, n);
        self.gather(db, parts)?;
        self.stats.error_samples += n as u64;
        self.found.resize(
            self.due.len(),
            Match {
                frame: 0,
                distance: 0.0,
            },
        );
        search::accelerated(db, &self.batch, &mut self.found)?;
        self.stats.search_time += clock.elapsed();
        self.stats.searches += self.due.len() as u64;
        self.decide_all(&*crowd, db, dt, n);
        let issued = self.issue(crowd, parts)?;
        self.stats.transitions += issued as u64;
        self.stats.seconds += f64::from(dt);
        Ok(issued)
    }

    /// Every character's desired motion and, when due, its query, in
    /// parallel, a part at a time (each touches only its own walkers); a
    /// refused query is kept in its part ([`Matcher::gather`] returns it).
    fn desire_all(&mut self, view: &(impl Driven + Sync), db: &MatchDatabase, now: &Now, n: usize) {
        let cfg = &self.cfg;
        by_parts(
            &mut self.walkers[..n],
            &mut self.parts,
            |part, walkers, first| {
                (part.error, part.failed) = (0.0, None);
                part.queries.clear();
                for (c, w) in (first..).zip(walkers) {
                    match desire(cfg, view, db, now, c, w) {
                        Ok((error, query)) => {
                            part.error += f64::from(error);
                            if let Some(q) = query {
                                part.queries.push((c as u32, q));
                            }
                        }
                        Err(e) => {
                            part.failed.get_or_insert(e);
                        }
                    }
                }
            },
        );
    }

    /// The parts' queries into the batch and their error sums into the
    /// stats, in character order: the same batch and sums whatever the
    /// thread count. The first query refused is this update's error.
    fn gather(&mut self, db: &MatchDatabase, parts: usize) -> Result<()> {
        self.batch.clear();
        self.due.clear();
        for part in &mut self.parts[..parts] {
            if let Some(e) = part.failed.take() {
                return Err(e);
            }
            self.stats.error_sum += part.error;
            for (c, q) in &part.queries {
                self.walkers[*c as usize].slot = self.due.len() as u32;
                self.batch.push(&q.q[..db.layout().padded()], q.seed)?;
                self.due.push(*c as usize);
            }
        }
        Ok(())
    }

    /// Each character's decision on what its search found, in parallel,
    /// the transitions kept by part.
    fn decide_all(&mut self, view: &(impl Driven + Sync), db: &MatchDatabase, dt: f32, n: usize) {
        let (cfg, found) = (&self.cfg, &self.found);
        by_parts(
            &mut self.walkers[..n],
            &mut self.parts,
            |part, walkers, first| {
                part.moves.clear();
                for (c, w) in (first..).zip(walkers) {
                    if let Some((f, s)) = decide(cfg, view, db, dt, found, w) {
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
        let cols = (n as f32).sqrt().ceil().max(1.0) as usize;
        let searched: Vec<usize> = (0..db.frames()).filter(|&f| db.searchable(f)).collect();
        for (c, w) in self.walkers.iter_mut().enumerate().take(n) {
            let yaw = w.rng.random_range(0.0..core::f32::consts::TAU);
            let place = Vec3::new(
                (c % cols) as f32 * self.cfg.spacing,
                0.0,
                (c / cols) as f32 * self.cfg.spacing,
            );
            w.root = Root::standing(place, yaw);
            w.steer = Steer::new(place, yaw);
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
            .par_iter_mut()
            .zip(self.roots.par_iter_mut())
            .with_min_len(PER_TASK)
            .enumerate()
            .for_each(|(c, (w, root))| {
                let d = view.root_motion(c).unwrap_or_default();
                w.root.pos += d.displacement;
                let turn = r::quat_from_angle_axis(d.turn, up);
                w.root.rot = r::quat_normalize(r::quat_mul(turn, w.root.rot));
                *root = w.root;
            });
        crowd.set_roots(0, &self.roots)
    }
}

/// [`MatcherConfig::switch_margin`]'s default (docs/matching-comparison.md,
/// "Hysteresis").
pub const SWITCH_MARGIN: f32 = 5.0;

/// Characters per part ([`Part`]) of the driver's per-character passes,
/// each part one rayon task.
const PER_TASK: usize = 256;

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

/// An update's step and the times its trajectories look ahead, with the
/// springs' constants for each ([`Lapses`]: the same for every character).
struct Now {
    step: Lapses,
    ahead: [Lapses; 3],
}

impl Now {
    fn new(cfg: &MatcherConfig, dt: f32, ahead: [f32; 3]) -> Now {
        Now {
            step: Lapses::new(cfg, dt),
            ahead: ahead.map(|t| Lapses::new(cfg, t)),
        }
    }

    /// The step, seconds.
    fn dt(&self) -> f32 {
        self.step.pos.dt
    }
}

/// One character's desired motion for a step of `now.dt()` (new targets, the
/// simulated root stepped, its trajectory error taken, then clamped) and,
/// when it is due (on its interval, on a sharp change, or near its
/// clip's end), its query from its world pose in `crowd`. Returns the
/// trajectory error and the query.
fn desire(
    cfg: &MatcherConfig,
    crowd: &impl Driven,
    db: &MatchDatabase,
    now: &Now,
    c: usize,
    w: &mut Walker,
) -> Result<(f32, Option<Query>)> {
    let dt = now.dt();
    let sharp = w.steer.retarget(cfg, &mut w.rng, dt);
    w.steer.step(&now.step);
    // The trajectory error before clamping, then the clamp.
    let off = w.steer.pos - Vec3::new(w.root.pos.x, 0.0, w.root.pos.z);
    let dist = r::length(off);
    if dist > cfg.clamp_distance {
        w.steer.pos -= off * (1.0 - cfg.clamp_distance / dist);
    }
    w.countdown -= dt;
    w.slot = NO_SLOT;
    let clip = &crowd.library().clips()[w.clip];
    let near_end = w.time + 2.0 * dt > clip.last_time();
    if !(w.countdown <= 0.0 || sharp || near_end) {
        return Ok((dist, None));
    }
    // On the interval, keep the phase (`search_every` apart on average,
    // whatever the step); out of turn, keep it too. Restarting the
    // interval on a sharp change put every character in one phase: each
    // character's first targets are a sharp change, on the same update,
    // so the stagger was lost after one frame and every sixth frame
    // searched for the whole crowd (callgrind: 21 M instructions against
    // 2.5 M in the frames between, at 2,000 characters).
    if w.countdown <= 0.0 {
        w.countdown = (w.countdown + cfg.search_every).max(0.0);
    }
    let joints = db.joints();
    let kf = |j: usize| crowd.world_kform(c, j + 1).unwrap_or_default();
    let (hips, lf, rf) = (kf(joints.hips), kf(joints.left_foot), kf(joints.right_foot));
    let pose = WorldPose {
        hips_pos: hips.pos,
        hips_rot: hips.rot,
        hips_vel: hips.vel,
        left_foot_pos: lf.pos,
        left_foot_vel: lf.vel,
        right_foot_pos: rf.pos,
        right_foot_vel: rf.vel,
    };
    let traj = w.steer.trajectory(&now.ahead);
    let mut q = Query {
        q: [0.0; MAX_PADDED],
        seed: db.frame_of(w.clip, (w.time / clip.frame_time()) as usize),
    };
    db.query(&pose, &traj, &mut q.q[..db.layout().padded()])?;
    Ok((dist, Some(q)))
}

/// Whether character `w` transitions to what its search found (`found`
/// at its slot, when it searched): to a frame that is not the one playing
/// (frames of its clip within [`MatcherConfig::same_clip_window`] count as
/// the one playing, while that one is searchable): returns that frame and
/// its source. Its clip time moves on by `dt` when it does not.
fn decide(
    cfg: &MatcherConfig,
    crowd: &impl Driven,
    db: &MatchDatabase,
    dt: f32,
    found: &[Match],
    w: &mut Walker,
) -> Option<(usize, FrameSource)> {
    let to = (w.slot != NO_SLOT)
        .then(|| found.get(w.slot as usize))
        .flatten()
        .and_then(|m| Some((m.frame, db.source(m.frame)?)));
    let frame_time = crowd.library().clips()[w.clip].frame_time();
    let playing = db.frame_of(w.clip, (w.time / frame_time) as usize);
    let stays = |f: usize, s: &FrameSource| {
        playing.is_some_and(|p| db.searchable(p) || p == f)
            && s.clip == w.clip
            && (s.time - w.time).abs() <= cfg.same_clip_window
    };
    match to {
        Some((f, s)) if !stays(f, &s) => {
            (w.clip, w.time) = (s.clip, s.time);
            Some((f, s))
        }
        _ => {
            w.time += dt;
            None
        }
    }
}
