//! Transitions are hidden (issue 11): the crowd's world poses are
//! continuous and their velocities follow the motion, for both crowds
//! (8-lane and reference), both transitions, both samplings and two sets
//! of clips (the embedded one; it and another subject's, 131_01, with the
//! fingers CMU says to ignore held still, `crowds::two_subjects`), driven
//! by the demo's driver with its transitions and weight targets, the
//! 8-lane crowd also with every root walking a circle, at 60, 120, 240
//! and 480 Hz.
//!
//! Each run steps 64 characters (16 for the reference crowd:
//! [`characters`]) for 3 s with a transition every 0.2 to 0.8 s (so
//! transitions interrupt transitions), and measures, over every step of
//! every character and joint:
//!
//! - the velocity gap `|(p₁ - p₀) / dt - (v₀ + v₁) / 2|` (units/s);
//! - the snap excess: the angle a joint's world rotation turns in the step
//!   minus the most its angular velocity allows, `max(|ω₀|, |ω₁|) dt`.
//!
//! Steps are told apart by what the clips do in them: a step is *smooth*
//! when neither source crosses a frame of its clip and no transition
//! starts, else it *crosses*. Linear sampling's velocity is constant
//! between frames and jumps at each (a mocap ankle's angular velocity
//! changes by up to 70 rad/s from one 120 Hz frame to the next), so at a
//! crossing step the gap is up to half that jump times the lever arms
//! below the joint, whatever the step: that is linear sampling's floor.
//! Cubic sampling's velocity is continuous (up to a kink of order
//! `|step|²` at frames, on the sphere of rotations).
//!
//! What is required, and why it fails on the defects of issue 11. The
//! convergence checks start at 120 Hz: a 60 Hz step spans up to 2.4 clip
//! frames at the top playback rate, so its gap averages several frames'
//! velocity jumps and is smaller than at 120 Hz, where a step holds one
//! whole jump (linear inertialization: 129 then 256 units/s).
//!
//! 1. Positions continuous: the largest gap at 480 Hz is at most 1.4x the
//!    larger of 120 and 240 Hz's (the floor of linear sampling is a
//!    maximum over different events at each rate, 78 then 148 units/s on
//!    two subjects), so the largest position error `gap dt` shrinks to at
//!    most 0.35x over two halvings. A jump in position (the dead-blend
//!    snap) gives a gap growing as `1 / dt` (911, 1831, 3658 units/s
//!    before the fix).
//! 2. Velocities consistent: with cubic sampling the largest gap shrinks
//!    to at most 0.6x per halving (a central difference converges as
//!    `dt²`; measured 0.25-0.4x); with linear sampling, over smooth steps
//!    from 240 to 480 Hz (or it is under `SMOOTH_FLOOR`), while the
//!    crossing steps keep their floor (check 1). A velocity that is wrong
//!    by a fixed amount (the published first-order rotation velocities:
//!    cubic inertialization stayed at 88 units/s from 240 to 960 Hz) does
//!    not shrink.
//! 3. No snaps, at every rate: no joint turns more than its angular
//!    velocity allows plus `SNAP_RATE dt`. Before the fix, dead blending
//!    turned joints 57-178° beyond their angular velocity.

use crate::crowds;
use crowds::*;

use kineform::crowd::{
    CharacterState, ClipLibrary, ClipStorage, Crowd, CrowdConfig, DeadBlendHalflives, Driven,
    ReferenceCrowd, Root, RootMotion, Sampling, Transition, Wander, WanderConfig,
};
use kineform::reference::{self as r, Kform, Vec3};

const RATES: [f32; 4] = [60.0, 120.0, 240.0, 480.0];
/// The snap margin is `SNAP_RATE dt`: the most a step can turn beyond the
/// angular velocities at its ends is the change of angular velocity the
/// step hides, at most the clips' largest frame-to-frame change of a
/// joint's angular velocity, 69 rad/s (the embedded clip's right toe;
/// 60° at 60 Hz, 8° at 480 Hz).
const SNAP_RATE: f32 = 69.0;
/// Linear sampling's smooth steps: below 1 unit/s (a thousandth of the
/// crowd's top speeds) the gap is the trapezoid's own error over a step of
/// a blend weight and offsets that change smoothly, and need not halve.
const SMOOTH_FLOOR: f32 = 1.0;

#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    /// Largest gap over smooth steps and over crossing steps.
    smooth: f32,
    cross: f32,
    /// Largest snap excess (radians) over smooth and crossing steps.
    snap_smooth: f32,
    snap_cross: f32,
    /// Largest gap between the finite difference of world rotations and
    /// the mean of the step's angular velocities (rad/s), over all steps.
    ang: f32,
    transitions: u32,
}

impl Stats {
    fn all(&self) -> f32 {
        self.smooth.max(self.cross)
    }
}

/// One crowd's world output, read the same way for both kinds.
trait Run: Driven {
    fn step(&mut self, dt: f32) -> u32;
    fn world(&self, c: usize, j: usize) -> Kform;
    fn state(&self, c: usize) -> Option<CharacterState>;
}

impl Run for Crowd {
    fn step(&mut self, dt: f32) -> u32 {
        Crowd::step(self, dt).unwrap().transitions
    }
    fn world(&self, c: usize, j: usize) -> Kform {
        self.world_kform(c, j).unwrap()
    }
    fn state(&self, c: usize) -> Option<CharacterState> {
        Crowd::state(self, c)
    }
}

impl Run for ReferenceCrowd {
    fn step(&mut self, dt: f32) -> u32 {
        ReferenceCrowd::step(self, dt).unwrap().transitions
    }
    fn world(&self, c: usize, j: usize) -> Kform {
        self.world_kform(c, j).unwrap()
    }
    fn state(&self, c: usize) -> Option<CharacterState> {
        ReferenceCrowd::state(self, c)
    }
}

/// Runs `crowd` driven by `wander` for `secs` at steps of `dt`, the roots
/// walking in circles when `walk`, and measures every step (module docs).
fn measure(crowd: &mut impl Run, wander: &mut Wander, run: (f32, f32, f32, bool)) -> Stats {
    measure_with(crowd, wander, run, &mut |_, _| ())
}

/// [`measure`], with `more` giving commands of its own before each step.
fn measure_with<R: Run>(
    crowd: &mut R,
    wander: &mut Wander,
    (dt, ft, secs, walk): (f32, f32, f32, bool),
    more: &mut dyn FnMut(&mut R, f32),
) -> Stats {
    let (n, joints) = (crowd.characters(), crowd.library().skeleton().len() + 1);
    let mut s = Stats::default();
    let frame = |t: f32| (t / ft).floor() as i64;
    let mut prev: Vec<Kform> = Vec::new();
    let mut prev_src = vec![[0.0f32; 2]; n];
    for k in 0..(secs / dt).round() as usize {
        wander.update(crowd, dt).unwrap();
        more(crowd, dt);
        if walk && k == 1 {
            // Every root walks a circle of its own: a linear and an
            // angular velocity that the crowd carries from then on.
            for c in 0..n {
                let st = crowd.state(c).unwrap().root;
                let turn = 0.3 + 0.1 * (c % 7) as f32;
                let vel = r::quat_mul_vec3(st.rot, Vec3::new(0.0, 0.0, 40.0 + c as f32));
                let root = Root {
                    vel,
                    ang: Vec3::new(0.0, turn, 0.0),
                    ..st
                };
                crowd
                    .command(c, kineform::crowd::Command::SetRoot(root))
                    .unwrap();
            }
        }
        s.transitions += crowd.step(dt);
        let cur: Vec<Kform> = (0..n)
            .flat_map(|c| (0..joints).map(move |j| (c, j)))
            .map(|(c, j)| crowd.world(c, j))
            .collect();
        let src: Vec<[f32; 2]> = (0..n)
            .map(|c| {
                let st = crowd.state(c).unwrap();
                [st.a.source.time, st.b.source.time]
            })
            .collect();
        if k > 1 {
            for c in 0..n {
                let jumped = crowd.state(c).unwrap().blend_time == 0.0;
                let crossed = jumped || (0..2).any(|i| frame(src[c][i]) != frame(prev_src[c][i]));
                for j in 0..joints {
                    let (a, b) = (&prev[c * joints + j], &cur[c * joints + j]);
                    let gap = r::length((b.pos - a.pos) / dt - (a.vel + b.vel) * 0.5);
                    let turned =
                        2.0 * r::length(r::quat_log(r::quat_abs(r::quat_mul_inv(b.rot, a.rot))));
                    let snap = turned - r::length(a.ang).max(r::length(b.ang)) * dt;
                    let fdw = r::quat_differentiate_angular_velocity(b.rot, a.rot, dt);
                    s.ang = s.ang.max(r::length(fdw - (a.ang + b.ang) * 0.5));
                    assert!(
                        gap.is_finite() && snap.is_finite(),
                        "character {c} joint {j}"
                    );
                    if crossed {
                        s.cross = s.cross.max(gap);
                        s.snap_cross = s.snap_cross.max(snap);
                    } else {
                        s.smooth = s.smooth.max(gap);
                        s.snap_smooth = s.snap_smooth.max(snap);
                    }
                }
            }
        }
        prev = cur;
        prev_src = src;
    }
    s
}

/// Characters of a run: 64 for the 8-lane crowd, 16 for the reference
/// crowd. The reference steps one character at a time in scalar code (a
/// run of 64 took about 5 s of CPU, its 27 runs 111 s of the suite's 299
/// on a Zen 3, and CI ran 13 min 37 s of its 15): 16 characters still
/// make many transitions a run (`check` asks 40), and what the two crowds
/// compute is held equal for any command stream elsewhere (`commands`:
/// both crowds agree under generated command streams), so the 8-lane
/// runs' 64 characters stand for both.
fn characters(scalar: bool) -> usize {
    if scalar { 16 } else { 64 }
}

/// The demo's driver for `n` characters, a transition every 0.2 to 0.8 s
/// (module docs), seeded with `seed`.
fn wander_of(seed: u64, n: usize) -> Wander {
    let cfg = WanderConfig {
        seed,
        transition_every: (0.2, 0.8),
        ..Default::default()
    };
    Wander::new(n, cfg)
}

fn library(set: usize) -> ClipLibrary {
    if set == 0 { embedded() } else { two_subjects() }
}

fn check(name: &str, sampling: Sampling, runs: &[Stats; 4]) {
    check_with_floor(name, sampling, runs, 0.0);
}

/// [`check`], check 1 allowing the largest gap at 480 Hz up to 1.4x
/// `floor` too: the largest gap of the same crowd without level of
/// detail from 120 Hz up, linear sampling's floor over different events
/// (module docs), which a run that skips some of them need not reach at
/// 120 and 240 Hz.
fn check_with_floor(name: &str, sampling: Sampling, runs: &[Stats; 4], floor: f32) {
    for (k, s) in runs.iter().enumerate() {
        eprintln!(
            "MEASURE {name} {} Hz: gap smooth {:.2} cross {:.2}; snap smooth {:.2}° cross {:.2}°; {} transitions",
            RATES[k],
            s.smooth,
            s.cross,
            s.snap_smooth.to_degrees(),
            s.snap_cross.to_degrees(),
            s.transitions
        );
        assert!(s.transitions >= 40, "{name}: too few transitions to judge");
    }
    // From 120 Hz on, where a step of any playback rate spans at most one
    // clip frame (see the module docs).
    // 1. Positions continuous: the largest gap at 480 Hz no larger than
    // 1.4x the larger of 120 and 240 Hz's.
    let (g120, g240, g480) = (runs[1].all(), runs[2].all(), runs[3].all());
    assert!(
        g480 <= 1.4 * g120.max(g240).max(floor),
        "{name}: largest gap {g120} at 120 Hz, {g240} at 240 Hz, grew to {g480} at 480 Hz (floor {floor})"
    );
    for k in 1..3 {
        let (a, b, (ha, hb)) = (&runs[k], &runs[k + 1], (RATES[k], RATES[k + 1]));
        // 2. Velocities consistent.
        if sampling == Sampling::Cubic {
            assert!(
                b.all() <= 0.6 * a.all(),
                "{name}: gap {} at {ha} Hz, {} at {hb} Hz",
                a.all(),
                b.all()
            );
        } else if k == 2 {
            assert!(
                b.smooth <= 0.6 * a.smooth || b.smooth <= SMOOTH_FLOOR,
                "{name}: gap over smooth steps {} at {ha} Hz, {} at {hb} Hz",
                a.smooth,
                b.smooth
            );
        }
    }
    // 3. No snaps.
    for (k, s) in runs.iter().enumerate() {
        let margin = SNAP_RATE / RATES[k];
        assert!(
            s.snap_smooth.max(s.snap_cross) <= margin,
            "{name} at {} Hz: a joint turned {:.1}° (smooth step) / {:.1}° (crossing step) beyond its angular velocity; margin {:.1}°",
            RATES[k],
            s.snap_smooth.to_degrees(),
            s.snap_cross.to_degrees(),
            margin.to_degrees()
        );
    }
}

/// One run of the checks (module docs): the crowd of `kind` on clip set
/// `set` (0: the embedded clip; 1: it and 131_01) at the four rates.
fn run_one(
    (sampling, transition, halflives): (Sampling, Transition, DeadBlendHalflives),
    set: usize,
    (scalar, walk): (bool, bool),
    (clip_storage, root_motion): (ClipStorage, RootMotion),
) {
    let library = library(set);
    let ft = library.clips()[0].frame_time();
    let runs: [Stats; 4] = RATES.map(|hz| {
        let cfg = CrowdConfig {
            characters: characters(scalar),
            sampling,
            transition,
            dead_blend_halflives: halflives,
            clip_storage,
            root_motion,
            ..Default::default()
        };
        let mut wander = wander_of(5 + set as u64, cfg.characters);
        let run = (1.0 / hz, ft, 3.0, walk);
        if scalar {
            let mut c = ReferenceCrowd::new(&library, cfg).unwrap();
            measure(&mut c, &mut wander, run)
        } else {
            let mut c = Crowd::new(&library, cfg).unwrap();
            measure(&mut c, &mut wander, run)
        }
    });
    let kind = if scalar { "reference" } else { "lanes" };
    let roots = if walk { ", roots walking" } else { "" };
    let fitted = match halflives {
        DeadBlendHalflives::Command => "",
        DeadBlendHalflives::Fitted { .. } => " fitted",
    };
    let compact = match clip_storage {
        ClipStorage::Full => "",
        ClipStorage::Compact => " compact",
        ClipStorage::Stepped => " stepped",
    };
    let extract = match root_motion {
        RootMotion::Apply => "",
        RootMotion::Extract => " extracting root motion",
    };
    check(
        &format!(
            "{kind} {sampling:?} {transition:?}{fitted} clips {}{roots}{compact}{extract}",
            library.len()
        ),
        sampling,
        &runs,
    );
}

/// The checks of one mode, one test per clip set and crowd (so that the
/// runner names each as it finishes, and spreads them over its threads):
/// `MODE::one_clip::lanes`, `MODE::one_clip::reference`,
/// `MODE::one_clip::lanes_roots_walking`, and the same for `two_subjects`.
macro_rules! continuity {
    ($($(#[$doc:meta])* $mode:ident: $sampling:expr, $transition:expr, $halflives:expr;)*) => {$(
        $(#[$doc])*
        mod $mode {
            use super::*;
            const MODE: (Sampling, Transition, DeadBlendHalflives) =
                ($sampling, $transition, $halflives);
            mod one_clip {
                use super::*;
                #[test]
                fn lanes() {
                    run_one(MODE, 0, (false, false), (ClipStorage::Full, RootMotion::Apply));
                }
                #[test]
                fn reference() {
                    run_one(MODE, 0, (true, false), (ClipStorage::Full, RootMotion::Apply));
                }
                #[test]
                fn lanes_roots_walking() {
                    run_one(MODE, 0, (false, true), (ClipStorage::Full, RootMotion::Apply));
                }
            }
            mod two_subjects {
                use super::*;
                #[test]
                fn lanes() {
                    run_one(MODE, 1, (false, false), (ClipStorage::Full, RootMotion::Apply));
                }
                #[test]
                fn reference() {
                    run_one(MODE, 1, (true, false), (ClipStorage::Full, RootMotion::Apply));
                }
                #[test]
                fn lanes_roots_walking() {
                    run_one(MODE, 1, (false, true), (ClipStorage::Full, RootMotion::Apply));
                }
            }
            /// Root motion extracted (its place and heading, issue 24)
            /// from the embedded clip, which turns (a wide right turn,
            /// 102_01): what is left of the pose moves as its velocities
            /// say, the roots held or walking circles.
            mod extract {
                use super::*;
                const EXTRACT: (ClipStorage, RootMotion) = (ClipStorage::Full, RootMotion::Extract);
                #[test]
                fn lanes() {
                    run_one(MODE, 0, (false, false), EXTRACT);
                }
                #[test]
                fn reference() {
                    run_one(MODE, 0, (true, false), EXTRACT);
                }
                #[test]
                fn lanes_roots_walking() {
                    run_one(MODE, 0, (false, true), EXTRACT);
                }
            }
            /// Compact clips: the velocities derived from the decoded
            /// frames are the decoded motion's, so every check holds.
            mod compact {
                use super::*;
                #[test]
                fn lanes() {
                    run_one(MODE, 1, (false, false), (ClipStorage::Compact, RootMotion::Apply));
                }
                #[test]
                fn reference() {
                    run_one(MODE, 1, (true, false), (ClipStorage::Compact, RootMotion::Apply));
                }
            }
            /// Stepped clips: the stored steps are within their bound of
            /// the decoded frames' (the reference plays the decoded frames,
            /// as for compact clips), so the lanes' motion meets each frame
            /// within that bound and every check holds.
            mod stepped {
                use super::*;
                #[test]
                fn lanes() {
                    run_one(MODE, 1, (false, false), (ClipStorage::Stepped, RootMotion::Apply));
                }
            }
        }
    )*};
}

continuity! {
    linear_inertialization_is_continuous: Sampling::Linear, Transition::Inertialize, DeadBlendHalflives::Command;
    linear_dead_blending_is_continuous: Sampling::Linear, Transition::DeadBlend, DeadBlendHalflives::Command;
    cubic_inertialization_is_continuous: Sampling::Cubic, Transition::Inertialize, DeadBlendHalflives::Command;
    cubic_dead_blending_is_continuous: Sampling::Cubic, Transition::DeadBlend, DeadBlendHalflives::Command;
    /// Dead blending with half-lives fitted per joint and axis at each
    /// transition: the extrapolation's axes decay at their own rates, so its
    /// scaled angle axis turns as it grows and the angular velocity must be
    /// `J(m) ṁ`, not `ṁ`.
    linear_dead_blending_with_fitted_halflives_is_continuous: Sampling::Linear, Transition::DeadBlend, DeadBlendHalflives::FITTED;
    cubic_dead_blending_with_fitted_halflives_is_continuous: Sampling::Cubic, Transition::DeadBlend, DeadBlendHalflives::FITTED;
}

mod fitted;

/// Layers in the continuity checks (issue 23, item 2): an upper-body
/// override feathered at the chest and an additive on the lower back's
/// subtree (the layers of `crowds::layered`) over the base, with blend profiles that
/// scale the legs' and the arms' transitions, both crowds, cubic sampling
/// (whose velocities are continuous, so every gap must shrink), at 60,
/// 120, 240 and 480 Hz. On top of the demo's driver, every character's
/// layers get, every 0.2 to 0.6 s of game time, either a weight moving
/// toward a new target (the damped weight, `LayerWeightToward`) or a
/// source jump hidden by a transition (`TransitionLayer`), so the run has
/// layer weights changing and layer sources jumping throughout, over base
/// transitions and each character's blend profile.
///
/// What is required: [`check`]'s, plus the angular velocities: the
/// largest gap between the finite difference of world rotations and the
/// mean of the step's angular velocities shrinks to at most 0.6x per
/// halving from 120 Hz (a central difference: measured 0.31-0.33x; the
/// positions' largest gaps 0.25-0.39x).
///
/// Mutations caught: the layer weight's rate left out of the lanes'
/// layers pass (`passes/layers.rs`, `rate` 0: the gap stays at 105 units/s
/// from 120 to 240 Hz) or the reference crowd's (`reference/layers.rs`,
/// the same); dead blending's profiled fade rate taken from the unscaled
/// duration (`passes/profile.rs`: 242 units/s at 120 and 240 Hz). Not
/// caught: the additive's published first-order angular velocity (its
/// error, about `α(1-α)/2 |w × ω_add|`, is far below the crowd's largest
/// gaps; `catalogue_velocities.rs` holds it).
mod layered;

/// Level of detail (issue 25): the same checks (continuous positions,
/// velocities consistent, no snaps, at 60 to 480 Hz) on a crowd whose
/// characters have update periods of 1, 2, 4 and 8 steps, changed every
/// quarter second: characters 0-31 a period per pack (whole packs
/// carried), characters 32-63 a period each (packs evaluated with some
/// characters shown carried), phases staggered. A carried pose moves
/// along its velocities exactly, and the gap at each evaluation after a
/// carry is hidden by the cubic offset, so the gaps converge as the
/// crowd's without level of detail; showing the evaluated pose at once
/// (no offset) is a jump in position whose gap grows as `1 / dt`.
mod level_of_detail;
