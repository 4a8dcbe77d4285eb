//! Periods refused out of range, and the steps each period and phase
//! evaluates.

use super::*;

/// Periods that are not 1, 2, 4, 8 or 16, phases not below their period,
/// and periods above 1 in a crowd without level of detail are refused by
/// both crowds with the parameter named, and queue nothing.
#[test]
fn bad_periods_are_refused_and_change_nothing() {
    let library = embedded();
    let off = CrowdConfig {
        level_of_detail: false,
        ..lod_cfg(9)
    };
    for cfg in [lod_cfg(9), off] {
        let mut lanes = Crowd::new(&library, cfg.clone()).unwrap();
        let mut reference = ReferenceCrowd::new(&library, cfg.clone()).unwrap();
        let mut bad = vec![
            (0, 0),
            (3, 0),
            (32, 0),
            (6, 1),
            (u32::MAX, 0),
            (4, 4),
            (1, 1),
        ];
        if !cfg.level_of_detail {
            bad.push((2, 0));
        }
        for (period, phase) in bad {
            for res in [
                lanes.set_period(2, period, phase),
                reference.set_period(2, period, phase),
            ] {
                match res {
                    Err(Error::Parameter { name, .. }) => {
                        assert!(name == "period" || name == "phase", "{name}")
                    }
                    other => panic!("({period}, {phase}): {other:?}"),
                }
            }
            assert_eq!((lanes.queued(), reference.queued()), (0, 0));
        }
        assert!(matches!(
            lanes.set_period(9, 1, 0),
            Err(Error::Index { .. })
        ));
        lanes.set_period(2, 1, 0).unwrap();
        lanes.step(1.0 / 60.0).unwrap();
        assert_eq!(lanes.period(2), Some((1, 0)));
        if cfg.level_of_detail {
            lanes.set_period(3, 16, 15).unwrap();
            lanes.step(1.0 / 60.0).unwrap();
            assert_eq!(lanes.period(3), Some((16, 15)));
        }
    }
}

/// Who is evaluated: a character of period `n` and phase `k` on the
/// steps `k` modulo `n`, every character on the first step and on a step
/// that transitions it; the frame's figures count them.
#[test]
fn periods_choose_the_evaluated_steps() {
    let library = embedded();
    let mut lanes = Crowd::new(&library, lod_cfg(16)).unwrap();
    let mut reference = ReferenceCrowd::new(&library, lod_cfg(16)).unwrap();
    for c in 0..16 {
        let period = 1u32 << (c % 5);
        lanes.set_period(c, period, c as u32 % period).unwrap();
        reference.set_period(c, period, c as u32 % period).unwrap();
    }
    // Each character's seconds since its last evaluation, as the step
    // accumulates them (f32 sums of the step's dt).
    let mut since = [0.0f32; 16];
    for f in 0..40u64 {
        if f == 21 {
            let a = Source::looping(0, 1.0);
            lanes.transition(15, a, a, 0.3, 0.1).unwrap();
            reference.transition(15, a, a, 0.3, 0.1).unwrap();
        }
        let (sl, sr) = (
            lanes.step(1.0 / 60.0).unwrap(),
            reference.step(1.0 / 60.0).unwrap(),
        );
        let is_due = |c: usize| {
            let period = 1u64 << (c % 5);
            f == 0 || f % period == c as u64 % period || (f == 21 && c == 15)
        };
        let due = (0..16).filter(|&c| is_due(c)).count() as u32;
        assert_eq!((sl.evaluated, sr.evaluated), (due, due), "step {f}");
        assert!(sl.velocity.passed(), "{:?}", sl.velocity);
        for (c, t) in since.iter_mut().enumerate() {
            *t = if is_due(c) { 0.0 } else { *t + 1.0 / 60.0 };
            let got = (lanes.since_evaluated(c), reference.since_evaluated(c));
            assert_eq!(got, (Some(*t), Some(*t)), "character {c}, step {f}");
        }
        assert_eq!(lanes.since_evaluated(16), None);
        assert_eq!(reference.since_evaluated(16), None);
    }
}
