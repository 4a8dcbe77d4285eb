//! The steps: up to 8 (with level of detail, half the time up to 32, so
//! that periods up to 16 come round), each after up to 5 commands,
//! of a chosen `dt` (0, negative, NaN, infinite, huge included); the
//! 8-lane crowd's step now and then run as tasks. A step both crowds
//! accept is checked ([`check_outputs`], the periods, the characters
//! evaluated and the budget's choice alike on both, and the matrix
//! readers' `after_step`); a `dt` both refuse must change nothing.

use kineform::crowd::{Crowd, FrameStats, ReferenceCrowd};

use super::Bytes;
use super::commands::command;
use super::domain::within;
use super::outputs::{check_outputs, world_bits};
use super::readers::{self, Bind, Carry};

/// Up to 8 steps (32 with level of detail, half the time), each
/// after up to 5 fuzzed commands. Returns the number
/// of steps both crowds ran and how many of them were compared within
/// tolerances (`tame` still true after the step).
pub(super) fn run(
    b: &mut Bytes,
    (lanes, reference): (&mut Crowd, &mut ReferenceCrowd),
    (clips, fixed): (usize, &Bind),
    tame: &mut bool,
    log: &mut Vec<String>,
) -> (usize, usize) {
    let s = b.u8() as usize;
    let steps = 1 + match s >= 128 && lanes.config().level_of_detail {
        true => s % 32,
        false => s % 8,
    };
    let (mut ran, mut compared) = (0, 0);
    let mut carry = Carry::new(lanes);
    // Whether a SetPeriod is queued (a budget is refused then): until a
    // step runs (a refused step leaves the queue as it was).
    let mut period_queued = false;
    for _ in 0..steps {
        let commands = b.u8() % 6;
        for _ in 0..commands {
            command(
                b,
                (&mut *lanes, &mut *reference),
                clips,
                (&mut *tame, &mut period_queued),
                log,
            );
        }
        let dt = match b.u8() {
            0..=99 => 1.0 / 60.0,
            _ => b.f32(0.002, 0.05),
        };
        let crowds = (&mut *lanes, &mut *reference);
        if step(b, crowds, (dt, fixed), (tame, &mut carry), log) {
            period_queued = false;
            ran += 1;
            compared += *tame as usize;
        }
    }
    (ran, compared)
}

/// One step of `dt` on both crowds (the lanes crowd's as tasks, now and
/// then): both accept it, and the outputs are checked, or both refuse it
/// and nothing changed. Returns whether both stepped; `tame` ends false
/// where `dt` is out of the tested domain; `carry` counts what level of
/// detail did.
fn step(
    b: &mut Bytes,
    (lanes, reference): (&mut Crowd, &mut ReferenceCrowd),
    (dt, fixed): (f32, &Bind),
    (tame, carry): (&mut bool, &mut Carry),
    log: &mut Vec<String>,
) -> bool {
    let frames = lanes.frames();
    let queued = lanes.queued();
    let before = world_bits(lanes);
    let since = readers::since_bits(lanes);
    let as_tasks = b.u8().is_multiple_of(3);
    let sl = match as_tasks {
        true => step_as_tasks(lanes, dt, b),
        false => lanes.step(dt),
    };
    let sr = reference.step(dt);
    log.push(format!(
        "step({dt:e}{})",
        if as_tasks { ", as tasks" } else { "" }
    ));
    let ctx = || log.join("\n");
    match (sl, sr) {
        (Ok(sl), Ok(sr)) => {
            assert!(
                dt.is_finite() && dt > 0.0 && dt <= 1000.0,
                "dt {dt:e} accepted\n{}",
                ctx()
            );
            assert_eq!(
                (sl.transitions, sl.commands),
                (sr.transitions, sr.commands),
                "frame statistics differ\n{}",
                ctx()
            );
            assert_eq!(lanes.queued(), 0, "{}", ctx());
            *tame &= within(dt, 0.002, 0.05);
            check_outputs(lanes, reference, *tame, &ctx);
            readers::since_stepped(lanes, &since, dt, &ctx);
            lod_alike(lanes, reference, (&sl, &sr), &ctx);
            carry.stepped(lanes, &since, dt);
            readers::after_step(lanes, reference, fixed, *tame, &ctx);
            true
        }
        (Err(a), Err(b2)) => {
            assert!(!a.to_string().is_empty() && !b2.to_string().is_empty());
            assert!(
                lanes.frames() == frames
                    && lanes.queued() == queued
                    && world_bits(lanes) == before
                    && readers::since_bits(lanes) == since,
                "a refused dt {dt:e} changed the crowd\n{}",
                ctx()
            );
            false
        }
        (a, b2) => panic!(
            "dt {dt:e}: the crowds disagree: lanes {:?}, reference {:?}\n{}",
            a.err(),
            b2.err(),
            ctx()
        ),
    }
}

/// After an accepted step: both crowds left every character the same
/// period and phase, evaluated as many characters, exactly those whose
/// `since_evaluated` is 0 (`readers::evaluated` checks it is the same on
/// both), and the budget allocator made the same choice (its cost is
/// fixed: only the seconds each step measured may differ).
fn lod_alike(
    lanes: &Crowd,
    reference: &ReferenceCrowd,
    (sl, sr): (&FrameStats, &FrameStats),
    ctx: &dyn Fn() -> String,
) {
    let n = lanes.characters();
    for c in 0..n {
        let (l, r) = (lanes.period(c), reference.period(c));
        assert!(
            l.is_some() && l == r,
            "period({c}): lanes {l:?}, reference {r:?}\n{}",
            ctx()
        );
    }
    let fresh = (0..n)
        .filter(|c| lanes.since_evaluated(*c) == Some(0.0))
        .count();
    assert!(
        sl.evaluated == sr.evaluated && sl.evaluated as usize == fresh,
        "characters evaluated: lanes {}, reference {}, since_evaluated 0 for {fresh}\n{}",
        sl.evaluated,
        sr.evaluated,
        ctx()
    );
    let choice = |s: &FrameStats| {
        s.budget.map(|c| {
            let bits = (
                c.seconds_per_character.to_bits(),
                c.expected_seconds.to_bits(),
            );
            (c.characters_at, bits, c.fits)
        })
    };
    assert_eq!(
        choice(sl),
        choice(sr),
        "the budget's choices differ: lanes {:?}, reference {:?}\n{}",
        sl.budget,
        sr.budget,
        ctx()
    );
}

/// The lanes crowd's step as tasks: the shown poses in up to 3 runs on
/// scoped threads (or left to the packs), the packs cut at up to 4 chosen
/// points (past the end too), the runs on scoped threads but one chosen
/// run left for `finish`.
fn step_as_tasks(
    lanes: &mut Crowd,
    dt: f32,
    b: &mut Bytes,
) -> kineform::Result<kineform::crowd::FrameStats> {
    let mut frame = lanes.prepare(dt)?;
    let shown = b.u8() as usize % 4;
    if shown > 0 {
        std::thread::scope(|s| {
            for part in frame.shown().split(shown) {
                s.spawn(move || part.run());
            }
        });
    }
    let mut runs = vec![frame.packs()];
    for _ in 0..b.u8() % 5 {
        let run = runs.remove(b.u8() as usize % runs.len());
        let (x, y) = run.split_at(b.u8() as usize);
        runs.extend([x, y]);
    }
    let left = b.u8() as usize % (runs.len() + 1);
    std::thread::scope(|s| {
        for (k, run) in runs.into_iter().enumerate() {
            if k != left {
                s.spawn(move || run.run());
            }
        }
    });
    Ok(frame.finish())
}
