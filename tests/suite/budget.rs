//! The budget allocator (issue 25, item 3; `kineform::crowd::budget`):
//! refusals, the choice (most significant first, filling the budget, the
//! evaluations it promises), its extremes under the crowd's own measured
//! cost, and continuity while a moving camera changes the periods. Both
//! crowds choosing the same periods under generated commands is
//! `commands::both_crowds_agree_under_generated_commands` (its `budgeted`
//! case).

use crate::crowds::*;

use kineform::Error;
use kineform::crowd::budget::{PERIODS, PHASE_RUN};
use kineform::crowd::{
    Budget, BudgetChoice, ClipEnd, Command, Crowd, CrowdConfig, FrameStats, ReferenceCrowd,
    Sampling, Source,
};

fn cfg(characters: usize, lod: bool) -> CrowdConfig {
    CrowdConfig {
        characters,
        level_of_detail: lod,
        velocity_check: true,
        sampling: Sampling::Cubic,
        ..Default::default()
    }
}

/// Characters playing the embedded walk from staggered times, held at
/// the clip's end (never reached in these tests: no seam crossed).
fn play_all(n: usize, mut play: impl FnMut(usize, Source, Source)) {
    let span = embedded().clips()[0].last_time() - 1.0;
    let at = |t: f32| Source {
        end: ClipEnd::Hold,
        ..Source::looping(0, t % span)
    };
    for c in 0..n {
        play(c, at(0.07 * c as f32), at(0.0));
    }
}

/// Budgets out of range, a fixed cost out of range, a budget for a crowd
/// without level of detail, a period set while a budget is, a NaN
/// significance and a range past the crowd are refused by both crowds,
/// naming what is wrong, and change nothing: the budget stays as it was,
/// and the refused significances leave the next choice as it would have
/// been. Mutations: dropping the NaN check lets `set_significance` write
/// every value (9: all packs tie, and pack order gives [1, 8, 8]);
/// writing before the range check makes pack 2 the most significant
/// (5); either fails the periods' check.
#[test]
fn bad_budgets_and_significances_are_refused_and_change_nothing() {
    let library = embedded();
    let mut plain = Crowd::new(&library, cfg(20, false)).unwrap();
    let mut plain_ref = ReferenceCrowd::new(&library, cfg(20, false)).unwrap();
    for e in [
        plain.set_budget(Some(Budget::measured(0.001))),
        plain_ref.set_budget(Some(Budget::measured(0.001))),
    ] {
        assert!(
            matches!(
                e,
                Err(Error::Parameter {
                    name: "budget seconds",
                    ..
                })
            ),
            "{e:?}"
        );
    }
    assert_eq!((plain.budget(), plain_ref.budget()), (None, None));
    let mut lanes = Crowd::new(&library, cfg(20, true)).unwrap();
    let mut reference = ReferenceCrowd::new(&library, cfg(20, true)).unwrap();
    let good = Budget::fixed(1.02e-3, 1e-4);
    lanes.set_budget(Some(good)).unwrap();
    reference.set_budget(Some(good)).unwrap();
    let bad = [
        (Budget::measured(0.0), "budget seconds"),
        (Budget::measured(-1.0), "budget seconds"),
        (Budget::measured(f32::NAN), "budget seconds"),
        (Budget::measured(f32::INFINITY), "budget seconds"),
        (Budget::measured(10.5), "budget seconds"),
        (Budget::fixed(0.001, 0.0), "seconds per character"),
        (Budget::fixed(0.001, f32::NAN), "seconds per character"),
        (Budget::fixed(0.001, 2.0), "seconds per character"),
    ];
    for (b, what) in bad {
        for e in [lanes.set_budget(Some(b)), reference.set_budget(Some(b))] {
            assert!(
                matches!(&e, Err(Error::Parameter { name, .. }) if *name == what),
                "{b:?}: {e:?}"
            );
        }
        assert_eq!(lanes.budget(), Some(good));
        assert_eq!(reference.budget(), Some(good));
    }
    let period = Command::SetPeriod {
        period: 2,
        phase: 0,
    };
    for e in [lanes.command(3, period), reference.command(3, period)] {
        assert!(
            matches!(e, Err(Error::Parameter { name: "period", .. })),
            "{e:?}"
        );
    }
    assert_eq!(lanes.queued(), 0);
    assert_eq!(reference.queued(), 0);
    // Pack 1 (characters 8 to 15) the most significant, then pack 2, then
    // pack 0; the refused calls must not change that.
    let sig: Vec<f32> = (0..20).map(|c| [0.0, 2.0, 1.0][c / 8]).collect();
    lanes.set_significance(0, &sig).unwrap();
    reference.set_significance(0, &sig).unwrap();
    let mut nan = vec![9.0f32; 20];
    nan[13] = f32::NAN;
    for e in [
        lanes.set_significance(0, &nan),
        reference.set_significance(0, &nan),
    ] {
        assert!(
            matches!(&e, Err(Error::Character { character: 13, error })
                if matches!(**error, Error::Parameter { name: "significance", .. })),
            "{e:?}"
        );
    }
    for e in [
        lanes.set_significance(15, &[5.0; 6]),
        reference.set_significance(15, &[5.0; 6]),
    ] {
        assert!(
            matches!(
                e,
                Err(Error::Index {
                    index: 21,
                    len: 20,
                    ..
                })
            ),
            "{e:?}"
        );
    }
    // Budget 1.02 ms at 0.1 ms a character: every pack at period 16
    // costs 20 x 0.1 / 16 = 0.125 ms, leaving 0.895 ms; pack 1 takes
    // period 1 (0.75 ms more), pack 2 (4 characters) period 4 (0.075 ms
    // more: period 2's 0.175 ms does not fit), pack 0 period 8 (0.05 ms).
    let (sl, sr) = (
        lanes.step(1.0 / 60.0).unwrap(),
        reference.step(1.0 / 60.0).unwrap(),
    );
    let periods = |p: &dyn Fn(usize) -> Option<(u32, u32)>| -> Vec<u32> {
        (0..3).map(|k| p(8 * k).unwrap().0).collect()
    };
    assert_eq!(periods(&|c| lanes.period(c)), [8, 1, 4]);
    assert_eq!(periods(&|c| reference.period(c)), [8, 1, 4]);
    assert_eq!(choice(&sl), choice(&sr));
    // Budget back to none: periods are the game's again, and the next
    // step reports no choice.
    lanes.set_budget(None).unwrap();
    reference.set_budget(None).unwrap();
    lanes.set_period(3, 2, 1).unwrap();
    reference.set_period(3, 2, 1).unwrap();
    let (sl, sr) = (
        lanes.step(1.0 / 60.0).unwrap(),
        reference.step(1.0 / 60.0).unwrap(),
    );
    assert_eq!((sl.budget, sr.budget), (None, None));
    assert_eq!(lanes.period(3), Some((2, 1)));
    assert_eq!(reference.period(3), Some((2, 1)));
}

/// A `SetPeriod` queued for the next step would apply after the step's
/// choice and override it: a budget is refused while one is queued, in
/// both crowds, changing nothing; after a step (the period applied) the
/// same budget is taken. Mutation: dropping the queue's check lets the
/// budget in with the command queued, and the step ends with character
/// 3 at period 2, not the allocator's choice.
#[test]
fn a_budget_waits_for_queued_periods() {
    let library = embedded();
    let mut lanes = Crowd::new(&library, cfg(20, true)).unwrap();
    let mut reference = ReferenceCrowd::new(&library, cfg(20, true)).unwrap();
    lanes.set_period(3, 2, 1).unwrap();
    reference.set_period(3, 2, 1).unwrap();
    let good = Budget::fixed(1.0, 1e-4);
    for e in [
        lanes.set_budget(Some(good)),
        reference.set_budget(Some(good)),
    ] {
        assert!(
            matches!(
                e,
                Err(Error::Parameter {
                    name: "budget seconds",
                    ..
                })
            ),
            "{e:?}"
        );
    }
    assert_eq!((lanes.budget(), reference.budget()), (None, None));
    assert_eq!((lanes.queued(), reference.queued()), (1, 1));
    lanes.step(1.0 / 60.0).unwrap();
    reference.step(1.0 / 60.0).unwrap();
    assert_eq!(lanes.period(3), Some((2, 1)));
    lanes.set_budget(Some(good)).unwrap();
    reference.set_budget(Some(good)).unwrap();
    // A second at 0.1 ms a character: everyone at period 1.
    for crowd_periods in [
        (lanes.step(1.0 / 60.0).unwrap(), lanes.period(3)),
        (reference.step(1.0 / 60.0).unwrap(), reference.period(3)),
    ] {
        assert_eq!(
            crowd_periods.0.budget.unwrap().characters_at,
            [20, 0, 0, 0, 0]
        );
        assert_eq!(crowd_periods.1.map(|p| p.0), Some(1));
    }
}

/// A measured budget given to a running crowd whose characters are all
/// at period 16 keeps their periods for the first step (nothing measured
/// yet) instead of evaluating everyone at once, and the steps after it
/// choose from what that step measured: with a budget of 10 s everyone
/// comes to period 1 on the second. Mutation: taking an unknown cost as
/// 0 (every pack fits period 1) puts everyone at period 1 on the first
/// step and fails it.
#[test]
fn a_measured_budget_on_a_running_crowd_starts_from_its_periods() {
    let library = embedded();
    let n = 40;
    let mut crowd = Crowd::new(&library, cfg(n, true)).unwrap();
    play_all(n, |c, a, b| crowd.play(c, a, b).unwrap());
    for c in 0..n {
        crowd.set_period(c, 16, (c / 8) as u32).unwrap();
    }
    for _ in 0..3 {
        crowd.step(1.0 / 60.0).unwrap();
    }
    crowd.set_budget(Some(Budget::measured(10.0))).unwrap();
    let first = crowd.step(1.0 / 60.0).unwrap();
    let b = first.budget.unwrap();
    assert_eq!(b.characters_at, [0, 0, 0, 0, n as u32], "{b:?}");
    assert_eq!((b.seconds_per_character, b.expected_seconds), (0.0, 0.0));
    assert!(first.evaluated <= 8, "{}", first.evaluated);
    assert!(b.measured_seconds > 0.0);
    let second = crowd.step(1.0 / 60.0).unwrap().budget.unwrap();
    assert_eq!(second.characters_at, [n as u32, 0, 0, 0, 0], "{second:?}");
    assert!(second.seconds_per_character > 0.0);
}

/// A choice without what was measured (which differs between runs).
fn choice(s: &FrameStats) -> Option<BudgetChoice> {
    s.budget.map(|b| BudgetChoice {
        measured_seconds: 0.0,
        ..b
    })
}

/// The choice under a fixed cost, for 203 characters standing on a line
/// (significance falling along it, so pack order is significance order):
/// every character counted once; periods never shorten as significance
/// falls; the expected cost within the budget and no pack's period can be
/// halved without exceeding it (the most significant pack not at period 1
/// cannot be given the next shorter period); and over the next 16 steps
/// each pack evaluated exactly `16 / P` times, so the crowd evaluates what
/// the choice expected: `16 expected / k` characters. Both crowds, the
/// same choice. Mutation: choosing from the least significant pack first
/// (keys not flipped) fails the order check.
#[test]
fn the_choice_fills_the_budget_most_significant_first() {
    let library = embedded();
    let n = 203;
    let k = 1e-5f32;
    for budget in [n as f32 * k * 0.3, n as f32 * k * 0.07] {
        let mut lanes = Crowd::new(&library, cfg(n, true)).unwrap();
        let mut reference = ReferenceCrowd::new(&library, cfg(n, true)).unwrap();
        play_all(n, |c, a, b| {
            lanes.play(c, a, b).unwrap();
            reference.play(c, a, b).unwrap();
        });
        let sig: Vec<f32> = (0..n).map(|c| -(c as f32)).collect();
        lanes.set_significance(0, &sig).unwrap();
        reference.set_significance(0, &sig).unwrap();
        let b = Budget::fixed(budget, k);
        lanes.set_budget(Some(b)).unwrap();
        reference.set_budget(Some(b)).unwrap();
        let dt = 1.0 / 60.0;
        let first = lanes.step(dt).unwrap();
        assert_eq!(choice(&first), choice(&reference.step(dt).unwrap()));
        let c0 = first.budget.unwrap();
        eprintln!("MEASURE budget {budget:.2e}: {c0:?}");
        assert!(c0.fits);
        assert_eq!(c0.characters_at.iter().sum::<u32>(), n as u32);
        let packs = n.div_ceil(8);
        let period = |p: usize| lanes.period(8 * p).unwrap().0;
        for p in 0..packs {
            for c in 8 * p..(8 * p + 8).min(n) {
                assert_eq!(lanes.period(c), lanes.period(8 * p));
                assert_eq!(lanes.period(c), reference.period(c));
            }
            if p > 0 {
                assert!(period(p) >= period(p - 1), "pack {p}: {}", period(p));
            }
        }
        let expected: f64 = (0..packs)
            .map(|p| f64::from(k) * ((8 * p + 8).min(n) - 8 * p) as f64 / f64::from(period(p)))
            .sum();
        assert!((expected as f32 - c0.expected_seconds).abs() <= 1e-6 * budget);
        assert!(c0.expected_seconds <= budget * (1.0 + 1e-6));
        // At the first pack not at period 1's turn, the packs before it
        // held their periods and those after it period 16: half its
        // period would not have fitted.
        let first_long = (0..packs).find(|&p| period(p) > 1).unwrap();
        let pp = period(first_long);
        let size = |p: usize| ((8 * p + 8).min(n) - 8 * p) as f64;
        let k64 = f64::from(k);
        let before: f64 = (0..first_long)
            .map(|p| k64 * size(p) / f64::from(period(p)))
            .sum();
        let after: f64 = (first_long + 1..packs).map(|p| k64 * size(p) / 16.0).sum();
        // The next shorter period the allocator chooses from (never 2).
        let half = match pp {
            4 => 1,
            p => p / 2,
        };
        let shorter = before + k64 * size(first_long) / f64::from(half) + after;
        assert!(
            shorter > f64::from(budget),
            "pack {first_long} could take period {half}"
        );
        let mut evaluated = 0u64;
        for _ in 0..16 {
            let (sl, sr) = (lanes.step(dt).unwrap(), reference.step(dt).unwrap());
            assert_eq!(sl.evaluated, sr.evaluated);
            assert_eq!(choice(&sl), choice(&first));
            evaluated += u64::from(sl.evaluated);
        }
        assert_eq!(evaluated as f64, (16.0 * expected / f64::from(k)).round());
    }
}

/// The allocator's phases lie in runs of neighbouring packs and still
/// share the steps out evenly: every character given period 16 by a tiny
/// budget, each phase of 16 holds a sixteenth of the packs to within a
/// run, runs are [`PHASE_RUN`] packs where there are enough (20,000
/// characters, 2,500 packs, where a quarter of a phase's share would be
/// 39) and a quarter of a phase's share where fewer (4,096 characters:
/// runs of 8; 823: of 1), so the phase changes from one pack to the next
/// fewer times than there are runs (where runs are longer than a pack);
/// both crowds alike, and no step evaluates nobody. Mutations: phases
/// handed out pack by pack (a run of 1, as before runs) change at every
/// pack (2,499 changes); runs of [`PHASE_RUN`] whatever the count leave
/// 9 of the 16 phases of the 103 packs of 823 characters empty, so some
/// steps evaluate nobody; runs without the cap give the 20,000
/// characters runs of 39 packs.
#[test]
fn the_allocator_hands_out_phases_in_even_runs() {
    let library = embedded();
    for (n, run) in [(20_000usize, PHASE_RUN as usize), (4096, 8), (823, 1)] {
        let mut lanes = Crowd::new(&library, cfg(n, true)).unwrap();
        let mut reference = ReferenceCrowd::new(&library, cfg(n, true)).unwrap();
        play_all(n, |c, a, b| {
            lanes.play(c, a, b).unwrap();
            reference.play(c, a, b).unwrap();
        });
        let b = Budget::fixed(1e-9, 1e-5);
        lanes.set_budget(Some(b)).unwrap();
        reference.set_budget(Some(b)).unwrap();
        let dt = 1.0 / 60.0;
        let first = lanes.step(dt).unwrap();
        reference.step(dt).unwrap();
        assert_eq!(first.budget.unwrap().characters_at[4], n as u32);
        let packs = n.div_ceil(8);
        let phase = |p: usize| lanes.period(8 * p).unwrap().1;
        let (mut changes, mut length, mut longest) = (0, 0, 0);
        for p in 0..packs {
            assert_eq!(lanes.period(8 * p), reference.period(8 * p));
            let change = p > 0 && phase(p) != phase(p - 1);
            changes += usize::from(change);
            length = if change { 1 } else { length + 1 };
            longest = longest.max(length);
        }
        assert!(
            longest <= run,
            "{n}: a run of {longest} packs, runs of {run}"
        );
        if run > 1 {
            let most = packs.div_ceil(run);
            assert!(changes < most, "{n}: {changes} changes, runs of {run}");
        }
        let mut counts = [0usize; 16];
        (0..packs).for_each(|p| counts[phase(p) as usize] += 1);
        let (lo, hi) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
        assert!(*lo > 0 && hi - lo <= run, "{n}: {counts:?}");
        for _ in 0..16 {
            let (sl, sr) = (lanes.step(dt).unwrap(), reference.step(dt).unwrap());
            assert_eq!(sl.evaluated, sr.evaluated);
            assert!(sl.evaluated > 0, "{n}: a step evaluated nobody");
        }
    }
}

/// Under the crowd's measured cost, the extremes that hold on any
/// machine: a budget of 10 s a step puts every character at period 1
/// once measured, and one of a nanosecond every character at period 16,
/// saying it does not fit; every step reports what it spent (> 0), and
/// before anything is measured (the first step) every pack is at period 1
/// with a cost of 0.
#[test]
fn the_measured_cost_reaches_both_extremes() {
    let library = embedded();
    let n = 100;
    for (seconds, all_at, fits) in [(10.0, 0, true), (1e-9, 4, false)] {
        let mut crowd = Crowd::new(&library, cfg(n, true)).unwrap();
        play_all(n, |c, a, b| crowd.play(c, a, b).unwrap());
        crowd.set_budget(Some(Budget::measured(seconds))).unwrap();
        let first = crowd.step(1.0 / 60.0).unwrap().budget.unwrap();
        assert_eq!(first.characters_at, [n as u32, 0, 0, 0, 0]);
        assert_eq!(first.seconds_per_character, 0.0);
        assert!(first.measured_seconds > 0.0);
        for _ in 0..4 {
            let s = crowd.step(1.0 / 60.0).unwrap().budget.unwrap();
            let mut want = [0u32; 5];
            want[all_at] = n as u32;
            assert_eq!(s.characters_at, want, "{s:?}");
            assert_eq!(s.fits, fits, "{s:?}");
            assert!(s.seconds_per_character > 0.0 && s.measured_seconds > 0.0);
        }
        assert!((0..n).all(|c| crowd.period(c).unwrap().0 == PERIODS[all_at]));
    }
}

/// Continuity while the budget moves characters between periods: 48
/// characters on a line, a camera sweeping along it and back in 0.9 s so
/// each pack's significance (closeness) rises and falls and the
/// allocator moves every pack through periods 1, 4, 8 and 16 and back
/// (never 2), at 60,
/// 120, 240 and 480 Hz (no source reaches its clip's end): the crowd's
/// live velocity check passes at every rate, each of those periods is
/// used, and
/// the largest velocity gap `|(p₁ - p₀) / dt - (v₀ + v₁) / 2|` over
/// every step, character and joint shrinks to at most 0.6x per halving
/// of the step from 120 to 480 Hz (continuous motion: the trapezoid's
/// error goes as `dt²`), so no resumption pops. Measured: 28.8, 20.1,
/// 5.8 and 1.9 units/s at 60 to 480 Hz (0.29x and 0.33x per halving).
/// Mutation: showing a resumed pack's evaluated pose at once (no
/// resumption offset) jumps by the carried error: 1677, 1311, 1112 and
/// 999 units/s, failing the shrink. The live check does not see it: it
/// rebuilds the previous step's output from the pack's anchor and
/// offset, and the mutation leaves those consistent with the new pose.
#[test]
fn a_moving_camera_changes_periods_without_a_pop() {
    let library = embedded();
    let n = 48;
    let mut gaps = Vec::new();
    for hz in [60.0f32, 120.0, 240.0, 480.0] {
        let dt = 1.0 / hz;
        let mut crowd = Crowd::new(&library, cfg(n, true)).unwrap();
        play_all(n, |c, a, b| crowd.play(c, a, b).unwrap());
        // Six packs; with every pack at period 16 (3 k) the budget leaves
        // 9.7 k: the most significant pack takes period 1 (7.5 k more),
        // the next 4 (1.5 k; period 2 is never chosen), the next 8
        // (0.5 k), the last three 16.
        let k = 1e-5;
        crowd.set_budget(Some(Budget::fixed(k * 12.7, k))).unwrap();
        let (mut worst, mut used, mut gap) = (FrameStats::default(), [0u32; 5], 0.0f32);
        let mut prev = Vec::new();
        for s in 0..(0.9 * hz) as usize {
            let t = s as f32 * dt;
            let sweep = 2.0 * std::f32::consts::PI * t / 0.9;
            let camera = n as f32 * (0.5 - 0.5 * sweep.cos());
            let sig: Vec<f32> = (0..n).map(|c| -(c as f32 - camera).abs()).collect();
            crowd.set_significance(0, &sig).unwrap();
            let st = crowd.step(dt).unwrap();
            worst.velocity.merge(&st.velocity);
            for (u, c) in used.iter_mut().zip(st.budget.unwrap().characters_at) {
                *u += c;
            }
            let cur = crate::lod::pose(&crowd);
            if s > 0 {
                gap = gap.max(crate::lod::step_gaps(&prev, &cur, dt).0);
            }
            prev = cur;
        }
        eprintln!(
            "MEASURE {hz} Hz: gap {gap:.3}, {:?}, periods used {used:?}",
            worst.velocity
        );
        assert!(worst.velocity.passed(), "{hz} Hz: {:?}", worst.velocity);
        assert!(
            used[1] == 0 && used.iter().filter(|&&u| u > 0).count() == 4,
            "{hz} Hz: {used:?}"
        );
        gaps.push(gap);
    }
    for k in 1..3 {
        assert!(
            gaps[k + 1] <= 0.6 * gaps[k],
            "gaps at 60 to 480 Hz: {gaps:?}"
        );
    }
}
