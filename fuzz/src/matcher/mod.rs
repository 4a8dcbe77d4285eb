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

mod inputs;
mod observe;

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
use super::crowd::bytes::Bytes;

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

use inputs::*;
use observe::*;

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
fn crowd_config(g: &mut Bytes, characters: usize, transition: Transition) -> CrowdConfig {
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
type MakeCrowd<'a, C> = dyn Fn(&mut Bytes) -> (C, bool) + 'a;

/// Runs the frames on `crowd` (module docs).
fn run<C: Stepped>(
    g: &mut Bytes,
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

/// Runs the frames on a crowd that `new` makes: of `n` characters
/// (at least 1, at most `cap`) on the library byte `b` picks, and, when
/// the frames swap it, of a count and library read from the bytes.
fn drive<C: Stepped>(
    g: &mut Bytes,
    mw: (&mut Matcher, usize, usize, f32),
    (b, n, cap): (u8, usize, usize),
    transition: Transition,
    new: fn(&ClipLibrary, CrowdConfig) -> Result<C, Error>,
    out: &mut Outcome,
) {
    let lib = |b: u8| match b & 7 {
        0 => (other_library(), false),
        _ => (library(), true),
    };
    let make = |g: &mut Bytes| {
        let (l, fits) = lib(g.u8());
        // A crowd has at least one character.
        let k = (1 + g.u8() as usize % 40).min(cap);
        (
            new(l, crowd_config(g, k, transition)).expect("a crowd"),
            fits,
        )
    };
    let (l, fits) = lib(b);
    let cfg = crowd_config(g, n.min(cap).max(1), transition);
    let crowd = new(l, cfg).expect("a crowd");
    run(g, mw, crowd, (fits, &make), out);
}

/// Checks one input (module docs).
pub fn check_matcher(data: &[u8]) -> Outcome {
    let mut g = Bytes(data);
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
    let mw = (&mut m, walkers, head as usize % 3, cfg.spacing);
    if reference {
        // The scalar reference crowd steps a character in about 140 us
        // under the fuzzer's instrumentation: at most 12 characters keep
        // an input of 12 frames near 20 ms.
        drive(
            &mut g,
            mw,
            (b, n, 12),
            transition,
            ReferenceCrowd::new,
            &mut out,
        );
    } else {
        drive(
            &mut g,
            mw,
            (b, n, usize::MAX),
            transition,
            Crowd::new,
            &mut out,
        );
    }
    out
}
