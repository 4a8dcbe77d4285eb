//! Layers in the continuity checks (the module's docs in `mod.rs`).

use super::*;
use kineform::crowd::{BlendProfile, Joints, Source};

/// The layers of [`crowds::layered`] and two profiles that scale
/// (none snaps: a snap is a jump on purpose).
fn config(mode: (Sampling, Transition, DeadBlendHalflives), scalar: bool) -> CrowdConfig {
    let base = crowds::layered(CrowdConfig {
        characters: characters(scalar),
        sampling: mode.0,
        transition: mode.1,
        dead_blend_halflives: mode.2,
        ..Default::default()
    });
    CrowdConfig {
        blend_profiles: vec![
            BlendProfile::new()
                .scale(Joints::subtree("LHipJoint"), 0.3)
                .scale(Joints::subtree("RHipJoint"), 0.3),
            BlendProfile::new()
                .scale(Joints::subtree("LeftCollar"), 0.5)
                .scale(Joints::subtree("RightCollar"), 0.5)
                .scale(Joints::named(&["Neck", "Head"]), 0.7),
        ],
        ..base
    }
}

/// A generator of its own per character and layer, so that each
/// layer's commands are the same at every rate.
struct Rng(u64);
impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// The layers' commands on a schedule of game time (module docs).
struct LayerDriver {
    t: f32,
    /// Per character and layer: its generator, its next command's
    /// time, and its source's time, rate and clip length (followed as
    /// the demo's driver follows the base's).
    next: Vec<(Rng, f32, [f32; 3])>,
    layers: usize,
}

impl LayerDriver {
    fn new(n: usize, layers: usize) -> LayerDriver {
        let next = (0..n * layers)
            .map(|i| (Rng(0x9e37_79b9 ^ (i as u64 * 7919)), 0.0, [0.0; 3]))
            .collect();
        LayerDriver {
            t: 0.0,
            next,
            layers,
        }
    }

    /// A source of a random clip, held at its ends (CMU clips do not
    /// loop seamlessly: a wrap is a jump), at least 0.5 s before the
    /// end; `playing` follows it.
    fn source(r: &mut Rng, len: &[f32], playing: &mut [f32; 3]) -> Source {
        let clip = (r.unit() * len.len() as f32) as usize % len.len();
        let s = Source {
            rate: 0.8 + 0.4 * r.unit(),
            end: kineform::crowd::ClipEnd::Hold,
            ..Source::looping(clip, r.unit() * (len[clip] - 0.5).max(0.0))
        };
        *playing = [s.time, s.rate, len[clip]];
        s
    }

    /// The first call gives every character its layers' sources, its
    /// weights and a blend profile (jumps before anything is
    /// measured); later calls the scheduled commands due by then, and
    /// a transition to a new source a step before one would reach its
    /// clip's end (as the demo's driver does for the base).
    fn update(&mut self, crowd: &mut impl Run, dt: f32) {
        let len: Vec<f32> = crowd
            .library()
            .clips()
            .iter()
            .map(|c| c.last_time())
            .collect();
        let first = self.t == 0.0;
        self.t += dt;
        for (i, (r, at, playing)) in self.next.iter_mut().enumerate() {
            let (c, layer) = (i / self.layers, i % self.layers);
            use kineform::crowd::Command as C;
            let ending = playing[0] + 2.0 * playing[1] * dt > playing[2];
            let cmd = if first {
                let source = Self::source(r, &len, playing);
                crowd.command(c, C::PlayLayer { layer, source }).unwrap();
                if layer == 0 {
                    let profile = [None, Some(0), Some(1)][c % 3];
                    crowd.command(c, C::SetBlendProfile { profile }).unwrap();
                }
                C::SetLayerWeight {
                    layer,
                    weight: 0.3 + 0.5 * r.unit(),
                }
            } else if self.t < *at && !ending {
                playing[0] += playing[1] * dt;
                continue;
            } else if ending || r.unit() < 0.5 {
                C::TransitionLayer {
                    layer,
                    source: Self::source(r, &len, playing),
                    duration: 0.2 + 0.3 * r.unit(),
                    halflife: 0.05 + 0.1 * r.unit(),
                }
            } else {
                C::LayerWeightToward {
                    layer,
                    // Now and then all the way out (a layer idle).
                    target: if r.unit() < 0.2 { 0.0 } else { r.unit() },
                    halflife: 0.05 + 0.15 * r.unit(),
                }
            };
            crowd.command(c, cmd).unwrap();
            playing[0] += playing[1] * dt;
            *at = self.t + 0.2 + 0.4 * r.unit();
        }
    }
}

/// The checks at the four rates for the crowd of `scalar`, roots
/// walking when `walk`.
fn run(mode: (Sampling, Transition, DeadBlendHalflives), (scalar, walk): (bool, bool)) {
    let library = two_subjects();
    let ft = library.clips()[0].frame_time();
    let runs: [Stats; 4] = RATES.map(|hz| {
        let cfg = config(mode, scalar);
        let mut wander = wander_of(11, cfg.characters);
        let mut driver = LayerDriver::new(cfg.characters, cfg.layers.len());
        let run = (1.0 / hz, ft, 3.0, walk);
        if scalar {
            let mut c = ReferenceCrowd::new(&library, cfg).unwrap();
            measure_with(&mut c, &mut wander, run, &mut |c, dt| driver.update(c, dt))
        } else {
            let mut c = Crowd::new(&library, cfg).unwrap();
            measure_with(&mut c, &mut wander, run, &mut |c, dt| driver.update(c, dt))
        }
    });
    let kind = if scalar { "reference" } else { "lanes" };
    let roots = if walk { ", roots walking" } else { "" };
    let (sampling, transition, halflives) = mode;
    let fitted = match halflives {
        DeadBlendHalflives::Command => "",
        DeadBlendHalflives::Fitted { .. } => " fitted",
    };
    let name = format!("layered {kind} {sampling:?} {transition:?}{fitted}{roots}");
    check(&name, sampling, &runs);
    for (k, s) in runs.iter().enumerate() {
        eprintln!(
            "MEASURE {name} {} Hz: angular gap {:.4} rad/s",
            RATES[k], s.ang
        );
    }
    for k in 1..3 {
        let (a, b) = (runs[k].ang, runs[k + 1].ang);
        assert!(
            b <= 0.6 * a,
            "{name}: angular gap {a} at {} Hz, {b} at {} Hz",
            RATES[k],
            RATES[k + 1]
        );
    }
}

macro_rules! layered {
    ($($mode:ident: $sampling:expr, $transition:expr, $halflives:expr;)*) => {$(
        mod $mode {
            use super::*;
            const MODE: (Sampling, Transition, DeadBlendHalflives) =
                ($sampling, $transition, $halflives);
            #[test]
            fn lanes() {
                run(MODE, (false, false));
            }
            #[test]
            fn reference() {
                run(MODE, (true, false));
            }
            #[test]
            fn lanes_roots_walking() {
                run(MODE, (false, true));
            }
        }
    )*};
}

layered! {
    cubic_inertialization_is_continuous: Sampling::Cubic, Transition::Inertialize, DeadBlendHalflives::Command;
    cubic_dead_blending_is_continuous: Sampling::Cubic, Transition::DeadBlend, DeadBlendHalflives::Command;
    cubic_fitted_dead_blending_is_continuous: Sampling::Cubic, Transition::DeadBlend, DeadBlendHalflives::FITTED;
}
