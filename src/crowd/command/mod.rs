//! What a caller may ask of a character: validated when given (a refused
//! command is a typed error and changes nothing), queued, and applied at
//! the next step.
//!
//! The rule that makes a frame deterministic: a step first advances every
//! character by its frame time, then applies each character's commands in
//! the order they were given (characters are independent, so the order
//! between characters does not matter). If any of a character's commands
//! in a frame is a [`Command::Transition`], the frame transitions from the
//! pose the character would have shown without its commands to the pose
//! its commands leave, with the last transition's duration and half-life;
//! a [`Command::Play`] alone changes the pose at once.
//!
//! This file holds the commands; their checks are in `validate`
//! ([`Command::validate`]), the queue a crowd keeps them in until its step
//! in `queue`, and what a driver needs of a crowd in `driven`
//! ([`Driven`]).

use super::{ClipEnd, Root, Source};

mod driven;
mod queue;
mod shorthands;
mod validate;

pub use driven::Driven;
pub(crate) use queue::Queue;
pub(crate) use shorthands::command_shorthands;
pub(crate) use validate::check_roots;

/// Which of a character's sources (a command's, an event's): its base's
/// two, or a layer's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Which {
    /// Source A (weight `1 - w`).
    A,
    /// Source B (weight `w`).
    B,
    /// Layer `k`'s source ([`super::CrowdConfig::layers`]).
    Layer(usize),
}

/// A command to one character.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Command {
    /// Plays `a` and `b` from this frame, the change not hidden. To play
    /// one clip, give it as both: where a pack's eight characters play one
    /// source as both, the step samples it once (the blend of a pose with
    /// itself is that pose): a fifth to a quarter off the step.
    Play {
        /// Source A.
        a: Source,
        /// Source B.
        b: Source,
    },
    /// Plays `a` and `b` from this frame, the change hidden by the crowd's
    /// transition over `duration` seconds from whatever is displayed,
    /// including the middle of an earlier transition. `halflife` is dead
    /// blending's extrapolation half-life (inertialization ignores it).
    Transition {
        /// Source A.
        a: Source,
        /// Source B.
        b: Source,
        /// Seconds the transition lasts.
        duration: f32,
        /// Dead blending's extrapolation half-life, seconds.
        halflife: f32,
    },
    /// Sets source B's blend weight now (still from then on).
    SetWeight {
        /// The weight, in `[0, 1]`.
        weight: f32,
    },
    /// Moves source B's blend weight toward `target` with a critically
    /// damped spring of `halflife` seconds (springs article,
    /// `simple_spring_damper_exact`, with the exact exponential), its
    /// velocity carried into the blend's velocities.
    WeightToward {
        /// The weight to reach, in `[0, 1]`.
        target: f32,
        /// Seconds for half the remaining distance.
        halflife: f32,
    },
    /// Sets one source's playback rate (0 holds, negative plays backwards).
    SetRate {
        /// Which source.
        source: Which,
        /// Clip seconds per second.
        rate: f32,
    },
    /// Sets what one source does at its clip's ends.
    SetEnd {
        /// Which source.
        source: Which,
        /// Loop, hold or report.
        end: ClipEnd,
    },
    /// Sets the character's root in the world.
    SetRoot(Root),
    /// Plays `source` on layer `layer` from this frame, the change not
    /// hidden.
    PlayLayer {
        /// The layer ([`super::CrowdConfig::layers`]).
        layer: usize,
        /// Its new source.
        source: Source,
    },
    /// Plays `source` on layer `layer` from this frame, the change hidden
    /// by the crowd's transition as [`Command::Transition`] hides the
    /// base's (the character's one transition: from whatever is
    /// displayed, over `duration`, with the character's blend profile).
    TransitionLayer {
        /// The layer.
        layer: usize,
        /// Its new source.
        source: Source,
        /// Seconds the transition lasts.
        duration: f32,
        /// Dead blending's extrapolation half-life, seconds.
        halflife: f32,
    },
    /// Sets layer `layer`'s weight now (still from then on).
    SetLayerWeight {
        /// The layer.
        layer: usize,
        /// The weight, in `[0, 1]`.
        weight: f32,
    },
    /// Moves layer `layer`'s weight toward `target` with a critically
    /// damped spring of `halflife` seconds, as [`Command::WeightToward`]
    /// moves the base's; within 1e-6 of the target and slower than 1e-5
    /// per second it stops there (so a layer faded to 0 is skipped).
    LayerWeightToward {
        /// The layer.
        layer: usize,
        /// The weight to reach, in `[0, 1]`.
        target: f32,
        /// Seconds for half the remaining distance.
        halflife: f32,
    },
    /// The blend profile of the character's transitions from this
    /// command on ([`super::CrowdConfig::blend_profiles`]; `None`: every
    /// joint over the whole duration). Each transition keeps the profile
    /// it started with.
    SetBlendProfile {
        /// The profile's index, or none.
        profile: Option<usize>,
    },
    /// The character's update period (level of detail,
    /// [`super::schedule`]): evaluated on the steps whose number (the
    /// crowd's frames before the step) is `phase` modulo `period`, and
    /// carried along its last evaluated world velocities on the others,
    /// from this step on (1: every step, the default). `period` is 1, 2,
    /// 4, 8 or 16 ([`super::MAX_PERIOD`]) and `phase` below it; a period
    /// above 1 needs a crowd built with
    /// [`super::CrowdConfig::level_of_detail`]. A transition evaluates the
    /// character on its step whatever its period.
    SetPeriod {
        /// Steps between evaluations.
        period: u32,
        /// Which step of each `period`.
        phase: u32,
    },
}

pub use crate::limits::COMMAND_MAX;
