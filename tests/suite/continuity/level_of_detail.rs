//! Level of detail in the continuity checks (the module's docs in `mod.rs`).

use super::*;
use kineform::crowd::Command;

/// Periods for quarter second `e` (module docs).
fn periods<R: Run>(crowd: &mut R, e: usize) {
    for c in 0..64 {
        let k = if c < 32 { c / 8 + e } else { c * 7 + e * 3 };
        let period = [1u32, 2, 4, 8][k % 4];
        let phase = (if c < 32 { c / 8 } else { c }) as u32 % period;
        crowd
            .command(c, Command::SetPeriod { period, phase })
            .unwrap();
    }
}

/// The crowd (8-lane or `scalar`) on both subjects at the four rates,
/// with the periods of [`periods`] when `lod`.
fn runs((sampling, transition): (Sampling, Transition), scalar: bool, lod: bool) -> [Stats; 4] {
    let library = library(1);
    let ft = library.clips()[0].frame_time();
    RATES.map(|hz| {
        let cfg = CrowdConfig {
            characters: 64,
            sampling,
            transition,
            level_of_detail: lod,
            ..Default::default()
        };
        let mut wander = wander_of(11, 64);
        let run = (1.0 / hz, ft, 3.0, false);
        let (mut t, mut epoch) = (0.0f32, usize::MAX);
        macro_rules! more {
            () => {
                &mut |crowd: &mut _, dt| {
                    let e = (t / 0.25) as usize;
                    t += dt;
                    if lod && e != epoch {
                        epoch = e;
                        periods(crowd, e);
                    }
                }
            };
        }
        if scalar {
            let mut c = ReferenceCrowd::new(&library, cfg).unwrap();
            measure_with(&mut c, &mut wander, run, more!())
        } else {
            let mut c = Crowd::new(&library, cfg).unwrap();
            measure_with(&mut c, &mut wander, run, more!())
        }
    })
}

/// [`check`] on the crowd with level of detail; under linear sampling
/// its largest gap at 480 Hz is judged against the same crowd's
/// without level of detail too ([`check_with_floor`]).
fn run_lod(mode: (Sampling, Transition), scalar: bool) {
    let lod = runs(mode, scalar, true);
    let floor = match mode.0 {
        Sampling::Linear => {
            let every = runs(mode, scalar, false);
            every[1..].iter().map(Stats::all).fold(0.0, f32::max)
        }
        Sampling::Cubic => 0.0,
    };
    let kind = if scalar { "reference" } else { "lanes" };
    let name = format!("{kind} {:?} {:?} with level of detail", mode.0, mode.1);
    check_with_floor(&name, mode.0, &lod, floor);
}

#[test]
fn linear_inertialization_lanes() {
    run_lod((Sampling::Linear, Transition::Inertialize), false);
}
#[test]
fn cubic_inertialization_lanes() {
    run_lod((Sampling::Cubic, Transition::Inertialize), false);
}
#[test]
fn cubic_dead_blending_lanes() {
    run_lod((Sampling::Cubic, Transition::DeadBlend), false);
}
#[test]
fn cubic_inertialization_reference() {
    run_lod((Sampling::Cubic, Transition::Inertialize), true);
}
