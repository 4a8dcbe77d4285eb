//! [`Wander`]: the demo's random driver, built only on the crowd's public
//! API. Each character stands on a grid facing a random way, plays a
//! random point of a random clip on source A and the same clip a little
//! later on source B (blend trees blend poses that are alike), moves its
//! blend weight toward random targets, and every few seconds, or before a
//! source would run off its clip, transitions to a new random point.
//!
//! With [`WanderConfig::layers`] it plays the crowd's layers too
//! ([`super::CrowdConfig::layers`]): each layer a random point of a random
//! clip, transitioned to a new one every few seconds or before it would
//! run off its clip ([`Command::TransitionLayer`]), its weight moving
//! toward random targets ([`Command::LayerWeightToward`]).
//!
//! With [`WanderConfig::follow_root_motion`] it moves and turns each
//! character's root by the root motion the crowd extracts
//! ([`super::RootMotion::Extract`]) after each step ([`Wander::follow`]),
//! as a game's character controller would, and measures the largest
//! heading error of the integrated roots against the clips' own.
//!
//! Besides that root motion it reads nothing back from the crowd: a source's time after each step
//! is its time plus its rate times the step (the crowd's own arithmetic,
//! so the two agree to the bit), which the driver follows itself from the
//! commands it gave, as a game's state machine would. Reading each
//! character's state from the crowd every frame instead cost a tenth of a
//! 10,000-character frame on the caller's thread (PERF.md).

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;

use super::command::{Command, Driven};
use super::{ClipEnd, Root, Source};
use crate::error::Result;
use crate::reference::{Quat, Vec3};

mod follow;

/// How [`Wander`] plays.
#[derive(Clone, Debug, PartialEq)]
pub struct WanderConfig {
    /// Seed of every character's random choices.
    pub seed: u64,
    /// Seconds between a character's transitions: uniform in this range.
    pub transition_every: (f32, f32),
    /// Playback rates: uniform in this range.
    pub playback_rate: (f32, f32),
    /// Length of a transition, seconds.
    pub blend_duration: f32,
    /// Dead blending's extrapolation half-life, seconds.
    pub extrapolation_halflife: f32,
    /// Distance between neighbouring characters on the grid.
    pub spacing: f32,
    /// Whether the driver plays the crowd's layers too (module docs):
    /// every layer of every character from the first update, its weight
    /// set in `[0.3, 1]` then moving toward a target in `[0.2, 1]` every
    /// 1 to 3 s (so no layer goes idle). Off: the crowd's layers are left
    /// to the caller.
    pub layers: bool,
    /// Whether [`Wander::follow`] moves and turns the roots by the root
    /// motion the crowd extracts. Source B then plays source A's time (no
    /// lag), so that the pose's heading is the clip's own and
    /// [`Wander::heading_error`] measures the integration alone.
    pub follow_root_motion: bool,
}

impl Default for WanderConfig {
    fn default() -> WanderConfig {
        WanderConfig {
            seed: 1,
            transition_every: (2.0, 5.0),
            playback_rate: (0.8, 1.2),
            blend_duration: 0.3,
            extrapolation_halflife: 0.2,
            spacing: 60.0,
            layers: false,
            follow_root_motion: false,
        }
    }
}

/// One character's random choices.
#[derive(Clone, Debug)]
struct Walker {
    rng: Pcg32,
    lag: f32,
    countdown: f32,
    weight_countdown: f32,
    /// Its sources' times after the last step, their rate and their
    /// clip's length (both sources play one clip at one rate).
    times: [f32; 2],
    rate: f32,
    len: f32,
    /// Its layers, when the driver plays them.
    layers: Vec<LayerWalk>,
    /// Its root as the driver moves it by the extracted root motion.
    root: Root,
    /// The clip of its sources, and for the heading error: source A's
    /// clip root's heading when its sources were last set, the turns
    /// reported since, seconds since, and whether they were set for the
    /// coming step.
    clip: usize,
    heading_from: Quat,
    turned: f32,
    since: f32,
    fresh: bool,
}

/// One layer of a character, as the driver follows it.
#[derive(Clone, Copy, Debug, Default)]
struct LayerWalk {
    /// The source's time after the last step, its rate and clip length.
    time: f32,
    rate: f32,
    len: f32,
    countdown: f32,
    weight_countdown: f32,
}

impl Walker {
    /// Sources `a` and `b` given: their times after the coming step.
    fn playing(&mut self, a: &Source, b: &Source, lengths: &[f32]) {
        self.times = [a.time, b.time];
        self.rate = a.rate;
        self.len = lengths[a.clip];
        self.clip = a.clip;
        self.fresh = true;
    }
}

/// The demo's driver (module docs).
#[derive(Clone, Debug)]
pub struct Wander {
    cfg: WanderConfig,
    walkers: Vec<Walker>,
    started: bool,
    /// The roots handed to the crowd, and the largest heading errors
    /// measured ([`Wander::heading_error`]).
    roots: Vec<Root>,
    heading_error: (f32, f32),
}

impl Wander {
    /// A driver for `characters` characters.
    pub fn new(characters: usize, cfg: WanderConfig) -> Wander {
        let walkers = (0..characters)
            .map(|i| {
                let mut rng =
                    Pcg32::seed_from_u64(cfg.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                Walker {
                    lag: rng.random_range(0.05..0.3),
                    countdown: 0.0,
                    weight_countdown: 0.0,
                    layers: Vec::new(),
                    times: [0.0; 2],
                    rate: 0.0,
                    len: 0.0,
                    root: Root::standing(Vec3::ZERO, 0.0),
                    clip: 0,
                    heading_from: Quat::IDENTITY,
                    turned: 0.0,
                    since: 0.0,
                    fresh: false,
                    rng,
                }
            })
            .collect();
        Wander {
            cfg,
            walkers,
            started: false,
            roots: Vec::new(),
            heading_error: (0.0, 0.0),
        }
    }

    /// Random sources for walker `w`: A at a random point of a random clip,
    /// B the same clip `lag` seconds later, both at a random rate.
    fn sources(cfg: &WanderConfig, w: &mut Walker, lengths: &[f32]) -> (Source, Source) {
        let clip = w.rng.random_range(0..lengths.len());
        let len = lengths[clip];
        if cfg.follow_root_motion {
            w.lag = 0.0;
        }
        let span = (len - 0.5 - w.lag).max(0.0);
        let time = if span > 0.0 {
            w.rng.random_range(0.0..span)
        } else {
            0.0
        };
        let (lo, hi) = cfg.playback_rate;
        let rate = if hi > lo {
            w.rng.random_range(lo..hi)
        } else {
            lo
        };
        let src = |time: f32| Source {
            clip,
            time,
            rate,
            end: ClipEnd::Hold,
        };
        (src(time), src((time + w.lag).min(len)))
    }

    /// A random source for a layer: a random point of a random clip at
    /// least 0.5 s before its end, at a random rate, held at its ends;
    /// `l` follows it.
    fn layer_source(
        cfg: &WanderConfig,
        rng: &mut Pcg32,
        l: &mut LayerWalk,
        lengths: &[f32],
    ) -> Source {
        let clip = rng.random_range(0..lengths.len());
        let len = lengths[clip];
        let time = match len > 0.5 {
            true => rng.random_range(0.0..len - 0.5),
            false => 0.0,
        };
        let (lo, hi) = cfg.playback_rate;
        let rate = if hi > lo {
            rng.random_range(lo..hi)
        } else {
            lo
        };
        *l = LayerWalk {
            time,
            rate,
            len,
            ..*l
        };
        Source {
            clip,
            time,
            rate,
            end: ClipEnd::Hold,
        }
    }

    /// Walker `w`'s layer commands for character `c` of a crowd with
    /// `layers` layers (module docs): on its first update every layer's
    /// source and weight; then a weight target every 1 to 3 s, and a
    /// transition to a new source on the transition timer or a step
    /// before the source would reach its clip's end (as for the base).
    /// Returns how many were given.
    fn layers(
        cfg: &WanderConfig,
        w: &mut Walker,
        (c, layers): (usize, usize),
        crowd: &mut impl Driven,
        lengths: &[f32],
        dt: f32,
    ) -> Result<u32> {
        let mut issued = 0;
        if w.layers.len() < layers {
            w.layers.resize(layers, LayerWalk::default());
            for layer in 0..layers {
                let mut l = w.layers[layer];
                let source = Self::layer_source(cfg, &mut w.rng, &mut l, lengths);
                let weight = w.rng.random_range(0.3..=1.0);
                crowd.command(c, Command::PlayLayer { layer, source })?;
                crowd.command(c, Command::SetLayerWeight { layer, weight })?;
                l.countdown = w
                    .rng
                    .random_range(cfg.transition_every.0..=cfg.transition_every.1);
                l.weight_countdown = w.rng.random_range(1.0..3.0);
                w.layers[layer] = l;
                issued += 2;
            }
            return Ok(issued);
        }
        for layer in 0..layers {
            let mut l = w.layers[layer];
            let past = |t: f32| {
                let t = t + 2.0 * l.rate * dt;
                t > l.len || t < 0.0
            };
            l.countdown -= dt;
            if l.countdown <= 0.0 || past(l.time) {
                let source = Self::layer_source(cfg, &mut w.rng, &mut l, lengths);
                let cmd = Command::TransitionLayer {
                    layer,
                    source,
                    duration: cfg.blend_duration,
                    halflife: cfg.extrapolation_halflife,
                };
                crowd.command(c, cmd)?;
                l.countdown = w
                    .rng
                    .random_range(cfg.transition_every.0..=cfg.transition_every.1);
                issued += 1;
            } else {
                l.time += l.rate * dt;
            }
            l.weight_countdown -= dt;
            if l.weight_countdown <= 0.0 {
                let target = w.rng.random_range(0.2..=1.0);
                let halflife = w.rng.random_range(0.3..1.0);
                let cmd = Command::LayerWeightToward {
                    layer,
                    target,
                    halflife,
                };
                crowd.command(c, cmd)?;
                l.weight_countdown = w.rng.random_range(1.0..3.0);
                issued += 1;
            }
            w.layers[layer] = l;
        }
        Ok(issued)
    }

    /// Character `c`'s first commands: its root on the grid of `cols`
    /// columns, facing a random way, and its sources; returns how many.
    fn start(
        cfg: &WanderConfig,
        w: &mut Walker,
        (c, cols): (usize, usize),
        crowd: &mut impl Driven,
        lengths: &[f32],
    ) -> Result<u32> {
        let yaw = w.rng.random_range(0.0..std::f32::consts::TAU);
        let place = Vec3::new(
            (c % cols) as f32 * cfg.spacing,
            0.0,
            (c / cols) as f32 * cfg.spacing,
        );
        w.root = Root::standing(place, yaw);
        crowd.command(c, Command::SetRoot(w.root))?;
        let (a, b) = Self::sources(cfg, w, lengths);
        crowd.command(c, Command::Play { a, b })?;
        w.playing(&a, &b, lengths);
        w.countdown = w
            .rng
            .random_range(cfg.transition_every.0..=cfg.transition_every.1);
        Ok(2)
    }

    /// Issues this frame's commands to `crowd` for a step of `dt` about to
    /// be taken; returns how many. Refuses a `dt` the crowd's step would
    /// refuse ([`super::Crowd::step`]), with nothing issued.
    ///
    /// The driver follows its characters' source times from the commands it
    /// gives (module docs), so the caller steps the crowd once with the same
    /// `dt` after each update, and gives these characters' sources no
    /// commands of its own (`Play`, `Transition`, rates or clip ends: roots
    /// and weights are fine); otherwise its transitions come early or late.
    pub fn update(&mut self, crowd: &mut impl Driven, dt: f32) -> Result<u32> {
        super::lanes_crowd::check_dt(dt)?;
        let lengths: Vec<f32> = crowd
            .library()
            .clips()
            .iter()
            .map(|c| c.last_time())
            .collect();
        let n = crowd.characters().min(self.walkers.len());
        let layers = if self.cfg.layers {
            crowd.layers().len()
        } else {
            0
        };
        let cols = (n as f32).sqrt().ceil().max(1.0) as usize;
        let mut issued = 0;
        let cfg = &self.cfg;
        for (c, w) in self.walkers.iter_mut().enumerate().take(n) {
            if !self.started {
                issued += Self::start(cfg, w, (c, cols), crowd, &lengths)?;
                if layers > 0 {
                    issued += Self::layers(cfg, w, (c, layers), crowd, &lengths, dt)?;
                }
                continue;
            }
            // A transition applies after the step advances the old sources,
            // so it is given a step before they would reach an end: the
            // pose the character would have shown is then still moving.
            let past = |t: f32| {
                let t = t + 2.0 * w.rate * dt;
                t > w.len || t < 0.0
            };
            w.countdown -= dt;
            if w.countdown <= 0.0 || past(w.times[0]) || past(w.times[1]) {
                let (a, b) = Self::sources(cfg, w, &lengths);
                crowd.command(
                    c,
                    Command::Transition {
                        a,
                        b,
                        duration: cfg.blend_duration,
                        halflife: cfg.extrapolation_halflife,
                    },
                )?;
                w.playing(&a, &b, &lengths);
                w.countdown = w
                    .rng
                    .random_range(cfg.transition_every.0..=cfg.transition_every.1);
                issued += 1;
            } else {
                // The step's advance (`time + rate * dt`, as the crowd
                // computes it; the sources hold at an end only past it).
                w.times = w.times.map(|t| t + w.rate * dt);
            }
            w.weight_countdown -= dt;
            if w.weight_countdown <= 0.0 {
                let target = w.rng.random_range(0.0..=1.0);
                let halflife = w.rng.random_range(0.3..1.0);
                crowd.command(c, Command::WeightToward { target, halflife })?;
                w.weight_countdown = w.rng.random_range(1.0..3.0);
                issued += 1;
            }
            // A crowd without layers (or a driver that leaves them) pays
            // no call per character for them.
            if layers > 0 {
                issued += Self::layers(cfg, w, (c, layers), crowd, &lengths, dt)?;
            }
        }
        self.started = true;
        Ok(issued)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::{ClipLibrary, Crowd};

    /// The times the driver follows are the crowd's to the bit, whatever
    /// the step (alternating 1/30 and 1/144 s, and a step's worth of each
    /// in between), through transitions at ends and on its timer; a
    /// refused `dt` issues nothing and changes nothing.
    #[test]
    fn followed_times_are_the_crowds_to_the_bit() {
        let library = ClipLibrary::from_bvh(&crate::data::default_clip()).unwrap();
        let n = 24;
        let cfg = super::super::CrowdConfig {
            characters: n,
            ..Default::default()
        };
        let mut crowd = Crowd::new(&library, cfg).unwrap();
        let mut wander = Wander::new(
            n,
            WanderConfig {
                transition_every: (0.5, 3.0),
                ..WanderConfig::default()
            },
        );
        let mut transitions = 0;
        for frame in 0..900 {
            let dt = [1.0 / 30.0, 1.0 / 144.0, 0.021][frame % 3];
            let before = wander.walkers.clone();
            for bad in [0.0, -dt, f32::NAN, f32::INFINITY] {
                assert!(wander.update(&mut crowd, bad).is_err(), "dt {bad}");
            }
            assert!(
                wander
                    .walkers
                    .iter()
                    .zip(&before)
                    .all(|(a, b)| a.times == b.times)
            );
            wander.update(&mut crowd, dt).unwrap();
            let step = crowd.step(dt).unwrap();
            transitions += step.transitions;
            for (c, w) in wander.walkers.iter().enumerate() {
                let s = crowd.state(c).unwrap();
                let got = [s.a.source.time, s.b.source.time].map(f32::to_bits);
                assert_eq!(
                    w.times.map(f32::to_bits),
                    got,
                    "frame {frame} character {c}"
                );
                assert_eq!(w.rate, s.a.source.rate, "frame {frame} character {c}");
            }
        }
        assert!(transitions > 2 * n as u32, "{transitions} transitions");
    }

    /// With [`WanderConfig::layers`], the layers' times the driver follows
    /// are the crowd's to the bit too, through its layer transitions, and
    /// every layer's weight stays above zero once set.
    #[test]
    fn followed_layer_times_are_the_crowds_to_the_bit() {
        use crate::crowd::{Layer, Mask};
        let library = ClipLibrary::from_bvh(&crate::data::default_clip()).unwrap();
        let n = 16;
        let cfg = super::super::CrowdConfig {
            characters: n,
            layers: vec![
                Layer::overriding(Mask::new().feathered("Chest", 1.0, 0.5)),
                Layer::additive(Mask::new().subtree("lowerback", 1.0), 0),
            ],
            ..Default::default()
        };
        let mut crowd = Crowd::new(&library, cfg).unwrap();
        let mut wander = Wander::new(
            n,
            WanderConfig {
                transition_every: (0.5, 2.0),
                layers: true,
                ..WanderConfig::default()
            },
        );
        let (mut transitions, mut moved) = (0, 0);
        for frame in 0..600 {
            let dt = [1.0 / 30.0, 1.0 / 144.0, 0.021][frame % 3];
            wander.update(&mut crowd, dt).unwrap();
            transitions += crowd.step(dt).unwrap().transitions;
            for (c, w) in wander.walkers.iter().enumerate() {
                assert_eq!(w.layers.len(), 2);
                for (k, l) in w.layers.iter().enumerate() {
                    let s = crowd.layer_state(c, k).unwrap();
                    assert_eq!(
                        l.time.to_bits(),
                        s.source.source.time.to_bits(),
                        "frame {frame} character {c} layer {k}"
                    );
                    assert_eq!(l.rate, s.source.source.rate);
                    assert!(
                        s.weight > 0.19,
                        "frame {frame} character {c} layer {k}: {}",
                        s.weight
                    );
                    moved += (s.weight_velocity != 0.0) as u32;
                }
            }
        }
        assert!(transitions > 4 * n as u32, "{transitions} transitions");
        assert!(moved > 0);
    }

    /// With [`WanderConfig::follow_root_motion`] on a crowd that extracts
    /// root motion, the driver moves and turns the roots by it: the roots
    /// travel, and once each transition has finished the heading the
    /// reported turns add up to is the clip's own within 1e-3 rad (f32
    /// sums of a few hundred turns; measured 1e-6). Mutation caught: the
    /// turn left out of the roots' integration (`d.turn` as 0) gives an
    /// error of the clip's whole turn, over 0.1 rad.
    #[test]
    fn followed_root_motion_turns_the_roots_as_the_clips_turn() {
        let library = ClipLibrary::from_bvh(&crate::data::default_clip()).unwrap();
        let n = 16;
        let cfg = super::super::CrowdConfig {
            characters: n,
            root_motion: super::super::RootMotion::Extract,
            ..Default::default()
        };
        let mut crowd = Crowd::new(&library, cfg).unwrap();
        let mut wander = Wander::new(
            n,
            WanderConfig {
                follow_root_motion: true,
                ..WanderConfig::default()
            },
        );
        let dt = 1.0 / 60.0;
        let mut start = Vec::new();
        for frame in 0..600 {
            wander.update(&mut crowd, dt).unwrap();
            crowd.step(dt).unwrap();
            wander.follow(&mut crowd, dt).unwrap();
            if frame == 0 {
                start = wander.walkers.iter().map(|w| w.root.pos).collect();
            }
        }
        let moved = wander.walkers.iter().zip(&start);
        let far = moved
            .map(|(w, s)| crate::reference::length(w.root.pos - *s))
            .fold(0.0, f32::max);
        assert!(far > 50.0, "the roots travel: {far}");
        let (after, during) = wander.heading_error();
        assert!(after < 1e-3 && during > after, "{after} {during}");
    }
}
