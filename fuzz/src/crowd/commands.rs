//! The commands to both crowds: one fuzzed [`Command`] (through the
//! lanes crowd's named methods, the reference's `command`), a `set_roots`
//! range, a layer command or blend profile, a budget or significances,
//! update periods for a run of characters (level of detail);
//! each accepted or refused by both alike, as [`Command::validate`] says,
//! a refusal changing nothing.

use kineform::crowd::budget::MAX_BUDGET;
use kineform::crowd::{Budget, CharacterCost, Command, Crowd, ReferenceCrowd, Root};

use super::Bytes;
use super::domain::{tame_command, tame_root};

/// A layer command, or a blend profile chosen (one past the crowd's now
/// and then).
fn layer_command(b: &mut Bytes, clips: usize) -> Command {
    match b.u8() % 5 {
        0 => Command::PlayLayer {
            layer: b.layer(),
            source: b.source(clips),
        },
        1 => Command::TransitionLayer {
            layer: b.layer(),
            source: b.source(clips),
            duration: b.f32(0.05, 1.0),
            halflife: b.f32(0.05, 1.0),
        },
        2 => Command::SetLayerWeight {
            layer: b.layer(),
            weight: b.f32(0.0, 1.0),
        },
        3 => Command::LayerWeightToward {
            layer: b.layer(),
            target: b.f32(0.0, 1.0),
            halflife: b.f32(0.05, 1.0),
        },
        _ => Command::SetBlendProfile {
            profile: (!b.u8().is_multiple_of(3)).then(|| b.u8() as usize % 2),
        },
    }
}

/// A budget (set, changed or cleared; seconds and a cost per character
/// in and out of range) or significances for characters `first..` (any
/// values, ranges past the end) to both crowds: the same acceptance, and
/// a refusal changes nothing (a budget is refused while a `SetPeriod` is
/// queued, `period_queued`). Only fixed costs are accepted here (a
/// measured cost differs between the crowds, and so would their choices):
/// a measured budget is drawn with seconds out of range, refused by both.
fn budget(
    b: &mut Bytes,
    (lanes, reference): (&mut Crowd, &mut ReferenceCrowd),
    (first, period_queued): (usize, bool),
    log: &mut Vec<String>,
) {
    let was = (lanes.budget(), reference.budget());
    assert_eq!(was.0, was.1, "{}", log.join("\n"));
    let lod = lanes.config().level_of_detail;
    if b.u8().is_multiple_of(2) {
        let budget = match b.u8() % 4 {
            0 => None,
            1 => Some(Budget::measured(-b.f32(0.0, 1.0).abs() - 1e-3)),
            // A budget of about what 0 to 48 characters cost: a few
            // packs at each period (the crowds hold up to 5 packs).
            2 => {
                let k = b.f32(1e-7, 1e-4);
                Some(Budget::fixed(k * b.f32(0.0, 48.0), k))
            }
            _ => Some(Budget::fixed(b.f32(1e-6, 1e-2), b.f32(1e-7, 1e-4))),
        };
        let (res, res_ref) = (lanes.set_budget(budget), reference.set_budget(budget));
        log.push(format!("set_budget({budget:?}) -> {res:?}"));
        let valid = budget.is_none_or(|b| {
            let k = match b.cost {
                CharacterCost::Fixed(k) => k > 0.0 && k <= 1.0,
                CharacterCost::Measured => true,
            };
            lod && !period_queued && b.seconds > 0.0 && b.seconds <= MAX_BUDGET && k
        });
        assert_eq!(
            format!("{res:?}"),
            format!("{res_ref:?}"),
            "the crowds disagree on set_budget\n{}",
            log.join("\n")
        );
        assert_eq!(res.is_ok(), valid, "{}", log.join("\n"));
        let now = (lanes.budget(), reference.budget());
        match res {
            Ok(()) => assert_eq!(now, (budget, budget), "{}", log.join("\n")),
            Err(_) => assert_eq!(now, was, "a refused budget changed it\n{}", log.join("\n")),
        }
        return;
    }
    let n = lanes.characters();
    let values: Vec<f32> = (0..b.u8() % 12).map(|_| b.f32(-1e3, 1e3)).collect();
    let (res, res_ref) = (
        lanes.set_significance(first, &values),
        reference.set_significance(first, &values),
    );
    log.push(format!("set_significance({first}, {values:?}) -> {res:?}"));
    let valid = first.checked_add(values.len()).is_some_and(|e| e <= n)
        && values.iter().all(|v| !v.is_nan());
    assert_eq!(
        format!("{res:?}"),
        format!("{res_ref:?}"),
        "the crowds disagree on set_significance\n{}",
        log.join("\n")
    );
    assert_eq!(res.is_ok(), valid, "{}", log.join("\n"));
}

/// One fuzzed command (or `set_roots` range, budget, significances, or
/// periods for a run of characters) to both crowds.
pub(super) fn command(
    b: &mut Bytes,
    (lanes, reference): (&mut Crowd, &mut ReferenceCrowd),
    clips: usize,
    flags: (&mut bool, &mut bool),
    log: &mut Vec<String>,
) {
    let n = lanes.characters();
    let kind = b.u8() % 12;
    let c = b.character(n);
    match kind {
        9 => budget(b, (lanes, reference), (c, *flags.1), log),
        7 => {
            let queued = lanes.queued();
            set_roots(b, (lanes, reference), (c, queued), flags.0, log);
        }
        10 => periods(b, (lanes, reference), c, flags, log),
        _ => {
            let cmd = draw(b, kind, clips);
            send((lanes, reference), c, cmd, flags, log);
        }
    }
}

/// `cmd` for character `c` to both crowds (the lanes crowd's named
/// method, the reference's `command`): both accept it, as
/// [`Command::validate`] says, and queue it, or both refuse it with a
/// typed error and queue nothing. `in_domain` ends false where an
/// accepted value is out of the tested domain; `period_queued` records an
/// accepted `SetPeriod`.
fn send(
    (lanes, reference): (&mut Crowd, &mut ReferenceCrowd),
    c: usize,
    cmd: Command,
    (in_domain, period_queued): (&mut bool, &mut bool),
    log: &mut Vec<String>,
) {
    let n = lanes.characters();
    let queued = lanes.queued();
    let res = to_lanes(lanes, c, cmd);
    let res_ref = reference.command(c, cmd);
    log.push(format!("command({c}, {cmd:?}) -> {res:?}"));
    // A period is the allocator's while a budget is set.
    let budgeted = lanes.budget().is_some() && matches!(cmd, Command::SetPeriod { .. });
    let valid = c < n && cmd.validate_in(lanes.library(), lanes.config()).is_ok() && !budgeted;
    match (res, res_ref) {
        (Ok(()), Ok(())) => {
            assert!(valid, "accepted\n{}", log.join("\n"));
            assert_eq!(lanes.queued(), queued + 1, "{}", log.join("\n"));
            *in_domain &= tame_command(&cmd);
            *period_queued |= matches!(cmd, Command::SetPeriod { .. });
        }
        (Err(a), Err(b)) => {
            assert!(!a.to_string().is_empty() && !b.to_string().is_empty());
            assert!(!valid, "refused: {a}\n{}", log.join("\n"));
            assert_eq!(
                lanes.queued(),
                queued,
                "a refused command changed the queue\n{}",
                log.join("\n")
            );
        }
        (a, b) => panic!(
            "the crowds disagree: lanes {a:?}, reference {b:?}\n{}",
            log.join("\n")
        ),
    }
}

/// A period and phase: mostly valid ones (periods 1 to 16, the phase
/// below the period; period 1 leaves level of detail), now and then
/// refused (periods 32, 3 and 0; a phase at or past the period, or near
/// `u32::MAX`).
fn period(b: &mut Bytes) -> (u32, u32) {
    let period = [1, 2, 4, 8, 16, 2, 4, 8, 16, 32, 3, 0][b.u8() as usize % 12];
    let sel = b.u8();
    let phase = match sel {
        0..=219 => u32::from(b.u8()) % period.max(1),
        220..=251 => period + u32::from(sel % 4),
        _ => u32::MAX - u32::from(sel % 2),
    };
    (period, phase)
}

/// `SetPeriod` for a run of up to 16 characters from `first` (two packs;
/// past the crowd too), each sent as [`send`] does: one period and phase
/// for all (a pack sorted by distance, as a game gives it), one period
/// with phases staggered character by character, each its own, or two
/// periods alternating (a pack of mixed periods).
fn periods(
    b: &mut Bytes,
    crowds: (&mut Crowd, &mut ReferenceCrowd),
    first: usize,
    flags: (&mut bool, &mut bool),
    log: &mut Vec<String>,
) {
    let (lanes, reference) = crowds;
    let (in_domain, period_queued) = flags;
    let count = 1 + b.u8() as usize % 16;
    let mode = b.u8() % 4;
    let (p, k) = period(b);
    let other = match mode {
        3 => period(b),
        _ => (p, k),
    };
    for i in 0..count {
        let (period, phase) = match mode {
            // Staggered, where the phase drawn was below the period.
            1 if k < p => (p, (k + i as u32) % p),
            2 => period(b),
            3 if i % 2 == 1 => other,
            _ => (p, k),
        };
        let cmd = Command::SetPeriod { period, phase };
        let c = first.saturating_add(i);
        send(
            (&mut *lanes, &mut *reference),
            c,
            cmd,
            (&mut *in_domain, &mut *period_queued),
            log,
        );
    }
}

/// `set_roots` over a range, to both crowds: the same acceptance, the same
/// refusal (the first bad character named), nothing queued on a refusal.
fn set_roots(
    b: &mut Bytes,
    (lanes, reference): (&mut Crowd, &mut ReferenceCrowd),
    (first, queued): (usize, usize),
    in_domain: &mut bool,
    log: &mut Vec<String>,
) {
    let n = lanes.characters();
    let count = b.u8() as usize % 6;
    let roots: Vec<Root> = (0..count).map(|_| b.root()).collect();
    let (ref_queued, res) = (reference.queued(), lanes.set_roots(first, &roots));
    let ref_res = reference.set_roots(first, &roots);
    log.push(format!("set_roots({first}, {roots:?}) -> {res:?}"));
    let valid = first.checked_add(count).is_some_and(|e| e <= n)
        && roots
            .iter()
            .all(|r| Command::SetRoot(*r).validate(lanes.library()).is_ok());
    // Compared as text: a refused NaN is not equal to itself.
    assert_eq!(
        format!("{res:?}"),
        format!("{ref_res:?}"),
        "the crowds disagree on set_roots\n{}",
        log.join("\n")
    );
    match res {
        Ok(()) => {
            assert!(valid, "set_roots accepted\n{}", log.join("\n"));
            assert_eq!(lanes.queued(), queued + count, "{}", log.join("\n"));
            assert_eq!(reference.queued(), ref_queued + count, "{}", log.join("\n"));
            for root in &roots {
                *in_domain &= tame_root(root);
            }
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            assert!(!valid, "set_roots refused: {e}\n{}", log.join("\n"));
            assert_eq!(lanes.queued(), queued, "refused set_roots queued something");
            assert_eq!(
                reference.queued(),
                ref_queued,
                "refused set_roots queued something"
            );
        }
    }
}

/// The command of `kind` (any but 7, 9 and 10), its values drawn.
fn draw(b: &mut Bytes, kind: u8, clips: usize) -> Command {
    match kind {
        0 => Command::Play {
            a: b.source(clips),
            b: b.source(clips),
        },
        1 => Command::Transition {
            a: b.source(clips),
            b: b.source(clips),
            duration: b.f32(0.05, 1.0),
            halflife: b.f32(0.05, 1.0),
        },
        2 => Command::SetWeight {
            weight: b.f32(0.0, 1.0),
        },
        3 => Command::WeightToward {
            target: b.f32(0.0, 1.0),
            halflife: b.f32(0.05, 1.0),
        },
        4 => Command::SetRate {
            source: b.which(),
            rate: b.f32(-2.0, 2.0),
        },
        5 => Command::SetEnd {
            source: b.which(),
            end: b.end(),
        },
        8 => layer_command(b, clips),
        // Periods and phases in and out of range (`period`).
        6 if b.u8() < 64 => {
            let (period, phase) = period(b);
            Command::SetPeriod { period, phase }
        }
        11 => {
            let (period, phase) = period(b);
            Command::SetPeriod { period, phase }
        }
        _ => Command::SetRoot(b.root()),
    }
}

/// `cmd` to the lanes crowd through its named methods.
fn to_lanes(lanes: &mut Crowd, c: usize, cmd: Command) -> kineform::Result<()> {
    match cmd {
        Command::Play { a, b } => lanes.play(c, a, b),
        Command::Transition {
            a,
            b,
            duration,
            halflife,
        } => lanes.transition(c, a, b, duration, halflife),
        Command::SetWeight { weight } => lanes.set_weight(c, weight),
        Command::WeightToward { target, halflife } => lanes.weight_toward(c, target, halflife),
        Command::SetRate { source, rate } => lanes.set_rate(c, source, rate),
        Command::SetEnd { source, end } => lanes.set_end(c, source, end),
        Command::SetRoot(root) => lanes.set_root(c, root),
        Command::PlayLayer { layer, source } => lanes.play_layer(c, layer, source),
        Command::TransitionLayer {
            layer,
            source,
            duration,
            halflife,
        } => lanes.transition_layer(c, layer, source, duration, halflife),
        Command::SetLayerWeight { layer, weight } => lanes.set_layer_weight(c, layer, weight),
        Command::LayerWeightToward {
            layer,
            target,
            halflife,
        } => lanes.layer_weight_toward(c, layer, target, halflife),
        Command::SetBlendProfile { profile } => lanes.set_blend_profile(c, profile),
        Command::SetPeriod { period, phase } => lanes.set_period(c, period, phase),
    }
}
