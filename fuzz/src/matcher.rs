//! The `matcher_api` target: arbitrary bytes decoded into a run of the
//! motion-matching driver [`Matcher`] (`src/crowd/matcher/`) through its
//! public API, on a crowd of the embedded CMU clip and its mirror
//! (`matching::add_mirrored`) with one of three databases built once from
//! that library (the demo's, the spring's and the cubic feet's features).
//!
//! From the bytes: 0 to 40 characters (the crowd's at least 1; the
//! matcher's now and then another count, or absurd: `usize::MAX`,
//! `1 << 60`), a [`MatcherConfig`] taken from the default with a few
//! fields at a time overwritten by fuzzed f32 values (NaN, infinities,
//! subnormals, negatives, huge ones, raw bits, or ordinary values in the
//! field's own range), the seed, the crowd's [`Transition`], its kind
//! ([`Crowd`], or now and then [`ReferenceCrowd`] of at most 12
//! characters), its root motion (extracted mostly,
//! applied now and then: `follow` does nothing), its library (now and
//! then the embedded clip alone, which the databases do not fit), then up
//! to 12 frames of `update`, the crowd's `step` and `follow` (as
//! `tests/suite/matching_crowd.rs`'s `frame` does), each with its own
//! database (now and then another than `new`'s) and `dt` (mostly in
//! [1/240, 1/20] s, now and then 0, negative, NaN, infinite, 1e9, past
//! 1000 s, 1000 s itself, subnormal), some frames updating twice,
//! skipping `follow`, or (twice at most) swapping the crowd for a fresh
//! one (of another size or library); and the readers `character(c)` (past the end too),
//! `last_search()`, `last_transitions()` and `stats()`.
//!
//! What must hold:
//! - no panic; every refusal is a typed [`Error`] with a message;
//! - [`Matcher::new`] accepts exactly what [`MatcherConfig::check`]
//!   accepts with a start grid within ±1e6 and a count whose walkers can
//!   be reserved (absurd counts refused, never allocated);
//! - a refused `update` leaves the crowd's queue ([`Crowd::queued`]) and
//!   the matcher's statistics as they were; one refused for its `dt` (not
//!   finite, not in (0, 1000]) or for a crowd whose library the database
//!   does not fit changes nothing observable at all: every character,
//!   the last search and the last transitions as they were;
//! - an accepted `update` adds exactly what it returns to the crowd's
//!   queue: the first two commands a character (each on its start grid
//!   place, its simulated root with it), later ones one transition each,
//!   as `last_transitions()` lists them (characters strictly increasing,
//!   each now playing its frame's clip and time, every other character
//!   playing on by `dt`); the matcher's characters past the crowd's
//!   are left as they were;
//!   `stats()` counts the searches and transitions, and the seconds of
//!   every update after the first, and stays finite;
//! - `last_search()` always gives a batch, characters and matches of one
//!   length, characters strictly increasing and within the crowd, every
//!   match a searched frame and brute force's answer for that query, bit
//!   for bit; every transition's frame is the `found` frame of its
//!   character's query;
//! - after each accepted step, every world position, rotation and
//!   velocity of every character is finite (`world_kform`, and
//!   `positions_into` of the 8-lane crowd, equal to it), and every
//!   character the matcher reports has a finite root, desired motion and
//!   clip time.

use std::sync::OnceLock;

use kineform::Error;
use kineform::crowd::{
    ClipLibrary, Crowd, CrowdConfig, Driven, FrameStats, MatchCharacter, Matcher, MatcherConfig,
    MatcherStats, ReferenceCrowd, RootMotion, Transition,
};
use kineform::matching::{
    self, FootFeatures, Match, MatchConfig, MatchDatabase, MirrorMap, QueryBatch, search,
};
use kineform::reference::Vec3;

use super::api::SPECIALS;

/// What one input did, for the smoke test's shares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// [`Matcher::new`] accepted the configuration.
    pub made: bool,
    /// Updates accepted (the first, which starts the characters, among
    /// them).
    pub updates: usize,
    /// Updates refused for their `dt` or the crowd's library (nothing
    /// changed).
    pub refused_early: usize,
    /// Updates refused later (a query refused: the queue unchanged).
    pub refused_late: usize,
    /// Steps the crowd accepted.
    pub steps: usize,
    /// Queries searched by accepted updates.
    pub searches: usize,
    /// Transitions given by accepted updates.
    pub transitions: usize,
    /// `follow` refusals.
    pub follow_refused: usize,
}

/// Reads the input; past its end everything is zero.
struct Gen<'a>(&'a [u8]);

impl Gen<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(core::array::from_fn(|_| self.u8()))
    }
    /// An ordinary value in `[lo, hi]` most of the time; one in 8 a
    /// special value (NaN, infinities, subnormals, huge, negative ...),
    /// one in 16 raw bits, one in 32 an ordinary value negated.
    fn value(&mut self, lo: f32, hi: f32) -> f32 {
        match self.u8() {
            0..=31 => SPECIALS[self.u8() as usize % SPECIALS.len()],
            32..=47 => f32::from_bits(u32::from_le_bytes([
                self.u8(),
                self.u8(),
                self.u8(),
                self.u8(),
            ])),
            48..=55 => -(lo + (hi - lo) * (self.u16() as f32 / 65535.0)),
            _ => lo + (hi - lo) * (self.u16() as f32 / 65535.0),
        }
    }
}

/// The library: the embedded CMU clip and its mirror (clips 0 and 1).
fn library() -> &'static ClipLibrary {
    static LIBRARY: OnceLock<ClipLibrary> = OnceLock::new();
    LIBRARY.get_or_init(|| {
        let mut lib =
            ClipLibrary::from_bvh(&kineform::data::default_clip()).expect("the embedded clip");
        let map = MirrorMap::cmu(lib.skeleton()).expect("CMU mirror map");
        matching::add_mirrored(&mut lib, &map).expect("mirrored");
        lib
    })
}

/// The embedded clip alone: a library the databases do not fit.
fn other_library() -> &'static ClipLibrary {
    static LIBRARY: OnceLock<ClipLibrary> = OnceLock::new();
    LIBRARY.get_or_init(|| {
        ClipLibrary::from_bvh(&kineform::data::default_clip()).expect("the embedded clip")
    })
}

const FEET: [FootFeatures; 3] = [
    FootFeatures::DEMO,
    FootFeatures::SPRING,
    FootFeatures::CUBIC,
];

/// The databases of [`library`], one per feature set, built once.
fn databases() -> &'static [MatchDatabase; 3] {
    static DBS: OnceLock<[MatchDatabase; 3]> = OnceLock::new();
    DBS.get_or_init(|| {
        FEET.map(|f| MatchDatabase::build(library(), &MatchConfig::with_feet(f)).expect("database"))
    })
}

/// A refusal must be a typed error with a message.
fn typed(e: &Error) {
    assert!(
        !e.to_string().is_empty(),
        "an error without a message: {e:?}"
    );
}

/// Number of [`MatcherConfig`] f32 fields [`set_field`] knows.
const FIELDS: u8 = 16;

/// Field `k` of `cfg` set to a fuzzed value (ordinary ones in the field's
/// own range).
fn set_field(g: &mut Gen, cfg: &mut MatcherConfig, k: u8) {
    match k % FIELDS {
        0 => cfg.search_every = g.value(0.0, 1.0),
        1 => cfg.retarget_every.0 = g.value(0.0, 4.0),
        2 => cfg.retarget_every.1 = g.value(0.0, 4.0),
        3 => cfg.speed.0 = g.value(0.0, 40.0),
        4 => cfg.speed.1 = g.value(0.0, 40.0),
        5 => cfg.strafe = g.value(0.0, 3.2),
        6 => cfg.velocity_halflife = g.value(0.0, 1.0),
        7 => cfg.rotation_halflife = g.value(0.0, 1.0),
        8 => cfg.sharp_velocity = g.value(0.0, 20.0),
        9 => cfg.sharp_turn = g.value(0.0, 3.2),
        10 => cfg.same_clip_window = g.value(0.0, 1.0),
        11 => cfg.switch_margin = g.value(0.0, 20.0),
        12 => cfg.blend_duration = g.value(0.0, 1.0),
        13 => cfg.extrapolation_halflife = g.value(0.0, 1.0),
        14 => cfg.clamp_distance = g.value(0.0, 40.0),
        _ => cfg.spacing = g.value(0.0, 200.0),
    }
}

fn config(g: &mut Gen) -> MatcherConfig {
    let mut cfg = MatcherConfig::default();
    let flags = g.u8();
    if flags & 1 != 0 {
        cfg.seed = g.u64();
    }
    for _ in 0..(flags >> 1) % 5 {
        let k = g.u8();
        set_field(g, &mut cfg, k);
    }
    cfg
}

/// What [`Matcher::new`] documents it refuses, independently: a field out
/// of its range, a start grid past ±1e6, a count too large to reserve.
fn refuses(cfg: &MatcherConfig, characters: usize) -> bool {
    let positive = |v: f32| v.is_finite() && v > 0.0 && v <= 1e6;
    let non_negative = |v: f32| v.is_finite() && (0.0..=1e6).contains(&v);
    let range = |(lo, hi): (f32, f32)| hi.is_finite() && hi >= lo && hi <= 1e6;
    let fields_ok = [
        cfg.search_every,
        cfg.velocity_halflife,
        cfg.rotation_halflife,
        cfg.blend_duration,
        cfg.extrapolation_halflife,
        cfg.clamp_distance,
        cfg.retarget_every.0,
    ]
    .into_iter()
    .all(positive)
        && [
            cfg.speed.0,
            cfg.strafe,
            cfg.sharp_velocity,
            cfg.sharp_turn,
            cfg.same_clip_window,
            cfg.switch_margin,
            cfg.spacing,
        ]
        .into_iter()
        .all(non_negative)
        && range(cfg.retarget_every)
        && range(cfg.speed);
    let cols = ((characters as f32).sqrt().ceil().max(1.0)) as usize;
    let rows = characters.div_ceil(cols);
    let grid_ok = (cols.max(rows) - 1) as f32 * cfg.spacing <= 1e6;
    !(fields_ok && grid_ok && characters <= 1 << 20)
}

/// A crowd the driver runs, whatever its kind.
trait Stepped: Driven + Sync {
    fn step_it(&mut self, dt: f32) -> Result<FrameStats, Error>;
    fn queued(&self) -> usize;
    fn joints(&self) -> usize;
    /// World positions of every character through the crowd's bulk
    /// reader, where it has one.
    fn positions(&self) -> Option<Vec<[f32; 3]>>;
}

impl Stepped for Crowd {
    fn step_it(&mut self, dt: f32) -> Result<FrameStats, Error> {
        self.step(dt)
    }
    fn queued(&self) -> usize {
        Crowd::queued(self)
    }
    fn joints(&self) -> usize {
        self.skeleton().len()
    }
    fn positions(&self) -> Option<Vec<[f32; 3]>> {
        let n = Crowd::characters(self);
        let mut out = vec![[f32::NAN; 3]; n * Stepped::joints(self)];
        self.positions_into(0..n, &mut out)
            .expect("positions_into of the whole crowd");
        Some(out)
    }
}

impl Stepped for ReferenceCrowd {
    fn step_it(&mut self, dt: f32) -> Result<FrameStats, Error> {
        self.step(dt)
    }
    fn queued(&self) -> usize {
        ReferenceCrowd::queued(self)
    }
    fn joints(&self) -> usize {
        self.skeleton().len()
    }
    fn positions(&self) -> Option<Vec<[f32; 3]>> {
        None
    }
}

/// What the matcher shows: every character (and one past), its last
/// search and transitions, its statistics.
#[derive(Debug, PartialEq)]
struct Seen {
    characters: Vec<Option<MatchCharacter>>,
    search: (QueryBatch, Vec<usize>, Vec<Match>),
    transitions: Vec<(usize, usize)>,
    stats: MatcherStats,
}

fn seen(m: &Matcher, walkers: usize) -> Seen {
    Seen {
        characters: (0..=walkers).map(|c| m.character(c)).collect(),
        search: m.last_search(),
        transitions: m.last_transitions().to_vec(),
        stats: *m.stats(),
    }
}

fn finite3(v: Vec3) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

/// The readers' promises, after any update (module docs).
fn readers(m: &Matcher, db: &MatchDatabase, walkers: usize, c: usize) {
    let (batch, chars, found) = m.last_search();
    assert_eq!(
        (chars.len(), found.len()),
        (batch.len(), batch.len()),
        "last_search: one character and one match a query"
    );
    assert!(
        chars.windows(2).all(|w| w[0] < w[1]),
        "last_search: characters in order: {chars:?}"
    );
    assert!(
        chars.iter().all(|&c| c < walkers),
        "last_search: a character past the matcher's {walkers}: {chars:?}"
    );
    let none = Match {
        frame: usize::MAX,
        distance: f32::NAN,
    };
    let mut brute = vec![none; batch.len()];
    search::brute_force(db, &batch, &mut brute).expect("brute force of the matcher's batch");
    for (i, (a, b)) in found.iter().zip(&brute).enumerate() {
        assert!(db.searchable(a.frame), "query {i}: {a:?} not searched");
        assert_eq!(
            (a.frame, a.distance.to_bits()),
            (b.frame, b.distance.to_bits()),
            "query {i} (character {}): the matcher's search against brute force",
            chars[i]
        );
    }
    let moves = m.last_transitions();
    assert!(
        moves.windows(2).all(|w| w[0].0 < w[1].0),
        "last_transitions: characters in order: {moves:?}"
    );
    for &(c, f) in moves {
        let i = chars
            .binary_search(&c)
            .unwrap_or_else(|_| panic!("character {c} moved without searching"));
        assert_eq!(found[i].frame, f, "character {c}: moved to another frame");
    }
    let s = m.stats();
    assert!(
        s.seconds.is_finite() && s.error_sum.is_finite() && s.mean_error().is_finite(),
        "stats not finite: {s:?}"
    );
    match m.character(c) {
        Some(k) => {
            assert!(c < walkers, "character {c} of {walkers}");
            assert!(
                finite3(k.root.pos)
                    && finite3(k.desired_pos)
                    && finite3(k.desired_vel)
                    && finite3(k.target_vel)
                    && k.time.is_finite(),
                "character {c} not finite: {k:?}"
            );
            assert!(k.clip < library().len(), "character {c}: clip {}", k.clip);
        }
        None => assert!(c >= walkers, "character {c} of {walkers} missing"),
    }
}

/// The world output of every character of `crowd` is finite, and its bulk
/// positions are `world_kform`'s.
fn world_finite(crowd: &impl Stepped) {
    let (n, nj) = (crowd.characters(), crowd.joints());
    let bulk = crowd.positions();
    for c in 0..n {
        for j in 0..nj {
            let k = crowd
                .world_kform(c, j)
                .expect("a joint of a character of the crowd");
            assert!(
                finite3(k.pos) && finite3(k.vel) && finite3(k.ang),
                "character {c} joint {j} not finite: {k:?}"
            );
            let q = k.rot;
            assert!(
                q.w.is_finite() && q.x.is_finite() && q.y.is_finite() && q.z.is_finite(),
                "character {c} joint {j} rotation not finite: {q:?}"
            );
            if let Some(b) = &bulk {
                let p = b[c * nj + j];
                assert_eq!(
                    p.map(f32::to_bits),
                    [k.pos.x, k.pos.y, k.pos.z].map(f32::to_bits),
                    "character {c} joint {j}: positions_into against world_kform"
                );
            }
        }
    }
    assert!(crowd.world_kform(n, 0).is_none());
}

/// A frame's `dt`: mostly in [1/240, 1/20] s, one in 8 hostile or extreme.
fn dt(g: &mut Gen) -> f32 {
    match g.u8() {
        0 => 0.0,
        1 => -1.0 / 60.0,
        2 => f32::NAN,
        3 => f32::INFINITY,
        4 => f32::NEG_INFINITY,
        5 => 1e9,
        6 => 1000.0,
        7 => f32::from_bits(1000f32.to_bits() + 1),
        8 => 1e-45,
        9 => 1e-30,
        10 => 0.5,
        11 => 7.0,
        12..=31 => SPECIALS[g.u8() as usize % SPECIALS.len()],
        _ => 1.0 / 240.0 + (1.0 / 20.0 - 1.0 / 240.0) * (g.u8() as f32 / 255.0),
    }
}

fn dt_valid(dt: f32) -> bool {
    dt.is_finite() && dt > 0.0 && dt <= 1000.0
}

/// The driver's run so far: what the statistics must count.
#[derive(Default)]
struct Counts {
    /// The configuration's spacing (the start grid's).
    spacing: f32,
    started: bool,
    seconds: f64,
    searches: u64,
    transitions: u64,
    samples: u64,
}

/// One `update` with its checks (module docs); returns whether it was
/// accepted.
fn update<C: Stepped>(
    (m, counts, out): (&mut Matcher, &mut Counts, &mut Outcome),
    crowd: &mut C,
    (db, walkers, lib_fits): (&MatchDatabase, usize, bool),
    dt: f32,
) -> bool {
    let n = crowd.characters();
    let before = seen(m, walkers);
    let queued = crowd.queued();
    match m.update(crowd, db, dt) {
        Ok(issued) => {
            assert!(dt_valid(dt), "update accepted dt {dt}");
            assert!(
                lib_fits,
                "update accepted a library the database does not fit"
            );
            assert_eq!(
                crowd.queued(),
                queued + issued as usize,
                "update queued another count than it returned"
            );
            let live = n.min(walkers);
            let after = seen(m, walkers);
            for c in live..walkers {
                assert_eq!(
                    after.characters[c], before.characters[c],
                    "character {c}, past the crowd's {n}, changed"
                );
            }
            if !counts.started {
                counts.started = true;
                assert_eq!(issued as usize, 2 * live, "the first update's commands");
                assert!(m.last_transitions().is_empty());
                // Each character on the start grid, its simulated root
                // with it.
                let cols = ((live as f32).sqrt().ceil().max(1.0)) as usize;
                for c in 0..live {
                    let k = after.characters[c].expect("a started character");
                    let place = Vec3::new(
                        (c % cols) as f32 * counts.spacing,
                        0.0,
                        (c / cols) as f32 * counts.spacing,
                    );
                    assert_eq!(
                        (k.root.pos, k.desired_pos),
                        (place, place),
                        "character {c} of {live} off its start"
                    );
                }
            } else {
                let moves = m.last_transitions();
                assert_eq!(moves.len(), issued as usize, "transitions listed");
                // A character that does not move plays on by `dt`.
                for c in 0..live {
                    if moves.binary_search_by_key(&c, |t| t.0).is_err() {
                        let (b, a) = (before.characters[c], after.characters[c]);
                        let (b, a) = (b.expect("a character"), a.expect("a character"));
                        assert_eq!(
                            (a.clip, a.time.to_bits()),
                            (b.clip, (b.time + dt).to_bits()),
                            "character {c} did not move and did not play on by {dt}"
                        );
                    }
                }
                for &(c, f) in moves {
                    assert!(c < live, "transition of character {c} of {live}");
                    let s = db.source(f).expect("a frame moved to has a source");
                    let k = m.character(c).expect("a character that moved");
                    assert_eq!(
                        (k.clip, k.time.to_bits()),
                        (s.clip, s.time.to_bits()),
                        "character {c} plays another frame than {f}"
                    );
                }
                let (_, chars, _) = m.last_search();
                assert!(chars.iter().all(|&c| c < live), "searched {chars:?}");
                counts.seconds += f64::from(dt);
                counts.searches += chars.len() as u64;
                counts.transitions += u64::from(issued);
                counts.samples += live as u64;
                out.searches += chars.len();
                out.transitions += issued as usize;
            }
            let s = m.stats();
            assert_eq!(
                (s.seconds, s.searches, s.transitions, s.error_samples),
                (
                    counts.seconds,
                    counts.searches,
                    counts.transitions,
                    counts.samples
                ),
                "stats against the updates accepted"
            );
            out.updates += 1;
            true
        }
        Err(e) => {
            typed(&e);
            assert_eq!(crowd.queued(), queued, "a refused update queued commands");
            let after = seen(m, walkers);
            assert_eq!(after.stats, before.stats, "a refused update counted");
            if !dt_valid(dt) || !lib_fits {
                if !dt_valid(dt) {
                    assert!(
                        matches!(e, Error::Parameter { name: "dt", .. }),
                        "dt {dt} refused as {e:?}"
                    );
                }
                assert_eq!(after, before, "an update refused early changed the matcher");
                out.refused_early += 1;
            } else {
                out.refused_late += 1;
            }
            false
        }
    }
}

/// A crowd for the run.
fn crowd_config(g: &mut Gen, characters: usize, transition: Transition) -> CrowdConfig {
    CrowdConfig {
        characters,
        transition,
        root_motion: match g.u8() % 8 {
            0 => RootMotion::Apply,
            _ => RootMotion::Extract,
        },
        ..CrowdConfig::default()
    }
}

/// A fresh crowd from the bytes, and whether the databases fit its library.
type MakeCrowd<'a, C> = dyn Fn(&mut Gen) -> (C, bool) + 'a;

/// Runs the frames on `crowd` (module docs).
fn run<C: Stepped>(
    g: &mut Gen,
    (m, walkers, first, spacing): (&mut Matcher, usize, usize, f32),
    mut crowd: C,
    (mut lib_fits, make): (bool, &MakeCrowd<C>),
    out: &mut Outcome,
) {
    let dbs = databases();
    let mut counts = Counts {
        spacing,
        ..Counts::default()
    };
    // The database the matcher's parts were last built with (`new`'s
    // until an update gets past its early checks).
    let mut last = first;
    // A crowd takes a few milliseconds to build: two swaps at most.
    let mut swaps = 0;
    for _ in 0..g.u8() % 13 {
        let op = g.u8();
        if op == 0xff && swaps < 2 {
            // A fresh crowd (another size, perhaps another library).
            (crowd, lib_fits) = make(g);
            swaps += 1;
        }
        // Now and then another database than `new`'s: each update
        // searches its own (`Matcher::update`'s docs).
        let k = match op & 0xc0 {
            0xc0 => g.u8() as usize % dbs.len(),
            _ => first,
        };
        let db = &dbs[k];
        let dt = dt(g);
        let updates = if op & 0x0f == 0 { 2 } else { 1 };
        for _ in 0..updates {
            let started = counts.started;
            update(
                (m, &mut counts, out),
                &mut crowd,
                (db, walkers, lib_fits),
                dt,
            );
            // An update past its early checks, after the first (which
            // only starts the characters), rebuilds the parts with its
            // database; with no character to drive it leaves none, and
            // `last_search` is `new`'s empty batch.
            if started && dt_valid(dt) && lib_fits {
                last = match crowd.characters().min(walkers) {
                    0 => first,
                    _ => k,
                };
            }
            let db = &dbs[last];
            let c = match g.u8() % 4 {
                0 => walkers + g.u8() as usize % 3,
                1 => usize::MAX,
                _ => g.u8() as usize % walkers.max(1),
            };
            readers(m, db, walkers, c);
        }
        let queued = crowd.queued();
        match crowd.step_it(dt) {
            Ok(_) => {
                assert!(dt_valid(dt), "step accepted dt {dt}");
                out.steps += 1;
                world_finite(&crowd);
            }
            Err(e) => {
                typed(&e);
                assert_eq!(crowd.queued(), queued, "a refused step took the queue");
                continue;
            }
        }
        if op & 0x30 != 0x30
            && let Err(e) = m.follow(&mut crowd)
        {
            typed(&e);
            out.follow_refused += 1;
        }
        readers(m, &dbs[last], walkers, walkers.saturating_sub(1));
    }
}

/// Checks one input (module docs).
pub fn check_matcher(data: &[u8]) -> Outcome {
    let mut g = Gen(data);
    let mut out = Outcome::default();
    let head = g.u8();
    let db = &databases()[head as usize % 3];
    let transition = match head & 4 {
        0 => Transition::Inertialize,
        _ => Transition::DeadBlend,
    };
    let reference = head & 0x38 == 0x38;
    let n = g.u8() as usize % 41;
    let walkers = match g.u8() {
        0 => usize::MAX,
        1 => 1 << 60,
        2 => usize::MAX / 2 + 1,
        3..=15 => g.u8() as usize % 41,
        _ => n,
    };
    let cfg = config(&mut g);
    let expect_refused = refuses(&cfg, walkers);
    let mut m = match Matcher::new(walkers, db, cfg.clone()) {
        Ok(m) => {
            assert!(!expect_refused, "Matcher::new accepted {walkers}, {cfg:?}");
            m
        }
        Err(e) => {
            typed(&e);
            assert!(
                expect_refused,
                "Matcher::new refused {walkers}, {cfg:?}: {e}"
            );
            return out;
        }
    };
    out.made = true;
    let b = g.u8();
    let lib = |b: u8| match b & 7 {
        0 => (other_library(), false),
        _ => (library(), true),
    };
    // A crowd has at least one character.
    let count = |g: &mut Gen| 1 + g.u8() as usize % 40;
    let mw = (&mut m, walkers, head as usize % 3, cfg.spacing);
    if reference {
        // The scalar reference crowd steps a character in about 140 us
        // under the fuzzer's instrumentation: at most 12 characters keep
        // an input of 12 frames near 20 ms.
        let n = n.min(12);
        let make = |g: &mut Gen| {
            let (l, fits) = lib(g.u8());
            let k = count(g).min(12);
            let c = ReferenceCrowd::new(l, crowd_config(g, k, transition)).expect("a crowd");
            (c, fits)
        };
        let (l, fits) = lib(b);
        let cfg = crowd_config(&mut g, n.max(1), transition);
        let crowd = ReferenceCrowd::new(l, cfg).expect("a crowd");
        run(&mut g, mw, crowd, (fits, &make), &mut out);
    } else {
        let make = |g: &mut Gen| {
            let (l, fits) = lib(g.u8());
            let k = count(g);
            let c = Crowd::new(l, crowd_config(g, k, transition)).expect("a crowd");
            (c, fits)
        };
        let (l, fits) = lib(b);
        let cfg = crowd_config(&mut g, n.max(1), transition);
        let crowd = Crowd::new(l, cfg).expect("a crowd");
        run(&mut g, mw, crowd, (fits, &make), &mut out);
    }
    out
}
