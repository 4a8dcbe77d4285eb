//! The crowd from fuzzer bytes (issue 13): a [`ClipLibrary`] (the embedded
//! CMU clip, perhaps with an excerpt of it as a second clip), a
//! [`CrowdConfig`] with every field chosen (sizes of 0 to 40 characters
//! and now and then an absurd one), [`Crowd::new`] and
//! [`ReferenceCrowd::new`], then up to 8 steps (with level of detail,
//! half the time up to 32) of a chosen `dt`, each after a few commands
//! through the public API with chosen values (special f32 values, raw bit
//! patterns, characters and clips out of range; update periods for runs
//! of characters, budgets sized to mix periods).
//!
//! The promise checked:
//! - both constructors accept or both refuse, with a typed error; an
//!   absurd size is refused, never allocated;
//! - every command and `set_roots` range is accepted by both crowds or
//!   refused by both, as [`Command::validate`] says; a refused one leaves
//!   [`Crowd::queued`] as it was, an accepted one adds to it;
//! - a refused `dt` (0, negative, NaN, infinite, past 1000 s) is refused
//!   by both and changes nothing: frames, queue and world output
//!   bit-identical;
//! - after each step, every world value of both crowds (positions,
//!   rotations, velocities, angular velocities, root motion, also through
//!   `positions_into` and the other copies) is finite, `root_motions_into`
//!   is each character's `root_motion` on both crowds (its refusals the
//!   same typed error, the slice untouched), and the states and
//!   frame statistics agree, and so do every character's period and phase,
//!   the characters evaluated (those whose `since_evaluated` is 0) and the
//!   budget allocator's choice;
//! - while every accepted value lies in the domain the crowd tests
//!   generate (`tests/suite/commands/`: times within ±10 s, rates within ±2,
//!   durations and half-lives in [0.05, 1] s, roots within 50 units,
//!   30 units/s and 2 rad/s, steps in [0.002, 0.05] s, the article's
//!   fitted half-lives), the 8-lane crowd equals the reference within
//!   `tests/suite/crowd/`'s tolerances on every character and joint:
//!   positions 2e-4 + 2e-6 relative, rotations `1 - |dot| <= 1e-5`,
//!   velocities 2e-3 + 1e-5 relative, angular velocities 2e-4 + 1e-5
//!   relative, root motion 1e-3 + 1e-4 relative;
//! - layers (an upper-body override and an additive, now and then a
//!   mask naming a joint the skeleton has not, which both constructors
//!   refuse) and blend profiles (legs scaled, hands snapping) in some
//!   configurations, with layer commands and profile choices among the
//!   fuzzed commands (layers and profiles out of range too): the same
//!   promises hold for them;
//! - the 8-lane crowd's step is now and then run as tasks
//!   ([`Crowd::prepare`], the shown poses and the packs split at chosen
//!   points, some runs on scoped threads, some left for `finish`): every
//!   promise above holds for it as for [`Crowd::step`].
//!
//! The parts: [`bytes`] the choices read from the bytes, [`config`] the
//! library and configuration the crowds are built from, [`commands`] the
//! commands to both crowds, [`steps`] the steps and a step's checks,
//! [`outputs`] the checks of the world output after a step, [`domain`]
//! the domain in which the crowds are held to agree, and [`readers`] the
//! matrix readers (in `src/readers/`).

pub(crate) mod bytes;
mod commands;
mod config;
mod domain;
mod outputs;
mod steps;

use kineform::crowd::{Crowd, DeadBlendHalflives, ReferenceCrowd};

use bytes::Bytes;
use config::{config, library};

#[path = "../readers/mod.rs"]
pub mod readers;

/// The fuzz target's check. Returns the number of steps both crowds ran
/// (0 where the constructors refused) and how many of them were compared
/// within tolerances (in the tested domain), for the smoke test's counts.
pub fn check_crowd(data: &[u8]) -> (usize, usize) {
    let mut b = Bytes(data);
    let library = library(&mut b);
    let clips = library.len();
    let cfg = config(&mut b, &library);
    let characters = cfg.characters;
    let lanes = Crowd::new(&library, cfg.clone());
    let reference = ReferenceCrowd::new(&library, cfg.clone());
    let (mut lanes, mut reference) = match (lanes, reference) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(a), Err(b)) => {
            assert!(!a.to_string().is_empty() && !b.to_string().is_empty());
            return (0, 0);
        }
        (a, b) => panic!(
            "{cfg:?}: the constructors disagree: lanes {:?}, reference {:?}",
            a.err(),
            b.err()
        ),
    };
    assert!(
        (1..=40).contains(&characters),
        "{cfg:?}: an absurd size was accepted"
    );
    // Lanes and reference are held to agree while every accepted value is
    // in the tested domain.
    let mut tame = match cfg.dead_blend_halflives {
        DeadBlendHalflives::Command => true,
        f => f == DeadBlendHalflives::FITTED,
    };
    let mut log: Vec<String> = vec![format!("{cfg:?}, {clips} clips")];
    let fixed = readers::Bind::fixed(lanes.skeleton());

    let (ran, compared) = steps::run(
        &mut b,
        (&mut lanes, &mut reference),
        (clips, &fixed),
        &mut tame,
        &mut log,
    );
    // The matrix readers with the bytes left (`src/readers/`).
    readers::fuzzed_reads(
        &mut b,
        (&lanes, &reference),
        &fixed,
        tame && ran > 0,
        &mut log,
    );
    (ran, compared)
}
