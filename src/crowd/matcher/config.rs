//! How a [`Matcher`](super::Matcher) drives ([`MatcherConfig`]): its
//! seed, search interval, gamepad targets, springs, transitions and
//! clamping, with their defaults and checks.

use crate::error::{Error, Result};

/// How [`Matcher`](super::Matcher) drives.
#[derive(Clone, Debug, PartialEq)]
pub struct MatcherConfig {
    /// Seed of every character's targets.
    pub seed: u64,
    /// Seconds between a character's searches (staggered: character `c`
    /// of `n` first searches `search_every (c + 1) / n` after its start).
    pub search_every: f32,
    /// Seconds between new gamepad targets: uniform in this range.
    pub retarget_every: (f32, f32),
    /// Desired speeds, units per second: uniform in this range.
    pub speed: (f32, f32),
    /// The desired facing is the desired direction turned by up to this,
    /// radians (0: the character faces where it goes).
    pub strafe: f32,
    /// Half-life of the simulated root's velocity spring, seconds (the
    /// demo's 0.27).
    pub velocity_halflife: f32,
    /// Half-life of its yaw spring, seconds (0.27).
    pub rotation_halflife: f32,
    /// A new target that changes the desired velocity by more than this
    /// (units/s) searches at once.
    pub sharp_velocity: f32,
    /// ... or the desired facing by more than this (radians).
    pub sharp_turn: f32,
    /// Frames of the clip playing within this of its time (seconds) count
    /// as the one playing: no transition.
    pub same_clip_window: f32,
    /// Hysteresis: a character searching while it plays a searched frame
    /// transitions only to a frame whose distance beats the playing
    /// frame's by more than this
    /// ([`QueryBatch::set_margin`](crate::matching::QueryBatch::set_margin);
    /// 0: to the best frame whenever it is not the one playing). Real
    /// matchers bias the continuing pose alike (Unreal's
    /// `ContinuingPoseCostBias`).
    pub switch_margin: f32,
    /// Length of a transition, seconds.
    pub blend_duration: f32,
    /// Dead blending's extrapolation half-life, seconds.
    pub extrapolation_halflife: f32,
    /// The simulated root is kept this close to the character's root
    /// (units).
    pub clamp_distance: f32,
    /// Distance between neighbouring characters' starts on the grid.
    pub spacing: f32,
}

impl Default for MatcherConfig {
    /// The published demo's springs and search interval, in the CMU clips'
    /// units (about 5.6 cm): speeds up to 20 units/s (1.1 m/s, the walks'
    /// pace), a new target every 1 to 3 s.
    fn default() -> MatcherConfig {
        MatcherConfig {
            seed: 1,
            search_every: 0.1,
            retarget_every: (1.0, 3.0),
            speed: (0.0, 20.0),
            strafe: 0.0,
            velocity_halflife: 0.27,
            rotation_halflife: 0.27,
            sharp_velocity: 8.0,
            sharp_turn: 1.0,
            same_clip_window: 0.2,
            switch_margin: SWITCH_MARGIN,
            blend_duration: 0.3,
            extrapolation_halflife: 0.2,
            clamp_distance: 10.0,
            spacing: 60.0,
        }
    }
}

impl MatcherConfig {
    /// Refuses, naming it, a parameter that is not finite and positive
    /// (intervals, half-lives, durations, distances), ranges out of order
    /// or negative, and a negative strafe or window.
    pub fn check(&self) -> Result<()> {
        let positive = [
            ("search_every", self.search_every),
            ("velocity_halflife", self.velocity_halflife),
            ("rotation_halflife", self.rotation_halflife),
            ("blend_duration", self.blend_duration),
            ("extrapolation_halflife", self.extrapolation_halflife),
            ("clamp_distance", self.clamp_distance),
            ("retarget_every.0", self.retarget_every.0),
        ];
        for (name, v) in positive {
            if !(v.is_finite() && v > 0.0 && v <= 1e6) {
                return Err(Error::Parameter {
                    name,
                    value: v,
                    reason: "must be finite and in (0, 1e6]",
                });
            }
        }
        let non_negative = [
            ("speed.0", self.speed.0),
            ("strafe", self.strafe),
            ("sharp_velocity", self.sharp_velocity),
            ("sharp_turn", self.sharp_turn),
            ("same_clip_window", self.same_clip_window),
            ("switch_margin", self.switch_margin),
            ("spacing", self.spacing),
        ];
        for (name, v) in non_negative {
            if !(v.is_finite() && (0.0..=1e6).contains(&v)) {
                return Err(Error::Parameter {
                    name,
                    value: v,
                    reason: "must be finite and in [0, 1e6]",
                });
            }
        }
        for (name, (lo, hi)) in [
            ("retarget_every.1", self.retarget_every),
            ("speed.1", self.speed),
        ] {
            if !(hi.is_finite() && hi >= lo && hi <= 1e6) {
                return Err(Error::Parameter {
                    name,
                    value: hi,
                    reason: "must be finite, at least the range's start and at most 1e6",
                });
            }
        }
        Ok(())
    }
}

/// [`MatcherConfig::switch_margin`]'s default (docs/matching-comparison.md,
/// "Hysteresis").
pub const SWITCH_MARGIN: f32 = 5.0;
