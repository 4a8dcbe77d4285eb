//! The crowd: thousands of characters on one skeleton that a game loop
//! drives. The game tells each character what to play (two sources, each
//! its own clip, time, playback rate and end behaviour), how much of the
//! second to blend in, when to transition and how (cubic inertialization
//! or dead blending), and where it stands in the world; every frame it
//! calls [`Crowd::step`] with its own frame time and copies the world
//! poses it needs (positions, rotations, velocities, angular velocities)
//! into its own memory.
//!
//! ```text
//! game loop:  crowd.play(c, ..) / transition(c, ..) / set_roots(0, &roots)   validated, queued
//!             crowd.step(dt)          commands applied, packs of 8 characters in parallel
//!             crowd.positions_into(chars, &mut buf) / bounds_into(chars, &mut boxes)
//!             / events_into(&mut v)   no allocation
//! ```
//!
//! How a frame flows through the files of this module:
//!
//! - [`command`]: what a caller may ask of a character ([`Command`]),
//!   validated at the call (a refused command is a typed [`Error`] and
//!   changes nothing) and queued.
//! - [`state`]: each character's playback state, eight per pack in lanes
//!   (`Statex8`): sources, blend weight, transition, root. A step first
//!   advances it by `dt` (times, clip ends, the weight's spring, the root's
//!   velocities), then applies the character's queued commands in the
//!   order they were given.
//! - `lanes_crowd`: [`Crowd`], its commands and its step, which drives
//!   the frame over packs in parallel (`lanes_crowd::construct` builds
//!   it, with the size checks, before the first frame).
//! - `passes` and `motion`: the per-pack work, a few passes over the
//!   pack's joints whose data stays in L1/L2, one file per part in
//!   `passes/`. The characters that transition in a frame first get the
//!   poses they would have shown, eight at a time across packs
//!   (`passes::shown`); then each pack's step (`passes::pack_step`)
//!   runs: sample source A, sample source B and blend
//!   (`passes::sampling`); inertialize or dead-blend
//!   (`passes::transition`); take out the clips' root place and heading
//!   where the crowd extracts it (`passes::root_motion`); forward kinematics
//!   from the character's root straight into the world output, with the
//!   velocity check (`passes::fk`). Each worker's scratch
//!   (`passes::scratch`) keeps a pack's poses in cache, and the next
//!   pack's memory is fetched while this one runs (`passes::ahead`).
//!   `motion` holds the per-joint math the passes share.
//! - `place`: where each source's clip stands on the ground (a turn about
//!   the up axis and a shift), moved on by the clip's net motion over a
//!   loop at each wrap so that travelling loops walk on ([`RootMotion`]),
//!   and the up axis ([`CrowdConfig::up`]).
//! - `halflives`: dead blending with half-lives fitted per joint and axis
//!   at each transition ([`DeadBlendHalflives::Fitted`]): the fit from the
//!   shown pose to the new input, kept per character and joint, and the
//!   extrapolation that decays at them.
//! - `markers`: the markers of the clips a step's playheads crossed
//!   ([`MarkerHit`], reported as [`EventKind::Marker`]), found from each
//!   source's move (the base's two and each layer's) as the state
//!   advanced it, with the crossing rules.
//! - `schedule` and [`budget`]: level of detail, each character's update
//!   period and its carry between evaluations, and the budget allocator
//!   that chooses the periods from the characters' significance.
//! - [`check`]: the live velocity check and its verdict.
//! - `bounds`: each character's world bounding box ([`Aabb`]), grown in
//!   the forward-kinematics pass from its joints' positions, padded by
//!   their radii ([`CrowdConfig::joint_radii`]).
//! - `output`: world poses copied into the caller's memory, and the frame's
//!   events.
//! - [`library`]: the clips, checked against the crowd's skeleton (clips of
//!   other subjects with the same hierarchy play on its bone offsets; clips
//!   of other joint namings join through a [`crate::joint_map::JointMap`]).
//! - [`reference`](mod@reference): [`ReferenceCrowd`], the same frame through
//!   [`crate::reference`], one character at a time; it shares the state
//!   and commands, so the same commands give the same schedule.
//! - `wander` (feature `wander`, which the `kineform` program turns on):
//!   `Wander`, the demo's random driver, built only on the public API
//!   ([`Driven`]).
//! - `matcher` (feature `wander`): `Matcher`, a motion-matching driver on
//!   the same public API and [`crate::matching`]: each character follows a
//!   desired velocity by choosing its own frames.
//!
//! The crowd skeleton is the clips' with one joint in front: joint 0 is
//! the character's root in the world (its place, facing and their
//! velocities), joint `j + 1` is clip joint `j`.

mod bounds;
pub mod budget;
pub mod check;
pub mod command;
mod evaluated;
mod events;
mod halflives;
pub mod layer;
pub mod library;
mod markers;
#[cfg(feature = "wander")]
pub mod matcher;
mod motion;
mod output;
mod passes;
mod place;
pub mod reference;
pub mod schedule;
pub mod state;
mod store;
#[cfg(feature = "wander")]
pub mod wander;

mod lanes_crowd;

pub use crate::database::ClipStorage;
pub use bounds::Aabb;
pub use budget::{Budget, BudgetChoice, CharacterCost};
pub use check::{GapAt, VelocityCheck};
pub use command::{Command, Driven, Which};
pub use events::{Event, EventKind};
pub use lanes_crowd::{Crowd, PackRange, PreparedStep, ShownRange};
pub use layer::{
    BlendProfile, JointBlend, Joints, Layer, LayerMode, MAX_BLEND_PROFILES, MAX_LAYERS, Mask,
    MaskPart, ProfilePart,
};
pub use library::ClipLibrary;
pub use markers::MarkerHit;
#[cfg(feature = "wander")]
pub use matcher::{MatchCharacter, Matcher, MatcherConfig, MatcherStats};
pub use motion::Motionx8;
pub use reference::ReferenceCrowd;
pub use schedule::{LOD_BLEND, MAX_PERIOD};
pub use state::{CharacterState, LayerState, SourceState};
#[cfg(feature = "wander")]
pub use wander::{Wander, WanderConfig};

use crate::error::{Error, Result};
use crate::reference::{Quat, Vec3};

/// How transitions are hidden (fixed for a crowd's life: the state each
/// kind keeps differs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Transition {
    /// Cubic inertialization of the offset from the displayed pose.
    Inertialize,
    /// Dead blending: the displayed pose extrapolated with decaying
    /// velocities, cross-faded into the new animation.
    DeadBlend,
}

/// How clips are sampled between frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Sampling {
    /// Linear (slerp) between the two frames around the time.
    Linear,
    /// Catmull-Rom through the four frames around the time.
    Cubic,
}

/// What the clips' root motion (their root joint's place on the ground and
/// heading about the crowd's up axis, [`CrowdConfig::up`]) does.
///
/// Under both, a looping source that travels walks on across its clip's
/// seam: each wrap moves the place its clip is played at by the clip's
/// net motion over a loop (its root joint's place and heading at the last
/// frame relative to the first), and each wrap backwards (a negative
/// rate) moves it back, so that the root has no jump at the seam.
/// [`Command::Play`] and [`Command::Transition`] start their sources at
/// their clips' own place again. Layers' sources carry no root motion of
/// their own: a layer whose mask covers the clips' root joint blends its
/// clip's root in where that clip stands (its wraps jump back), and under
/// [`RootMotion::Extract`] what it adds to the root's place and heading is
/// extracted with the rest (a step in which such a layer wraps reports its
/// velocities times `dt`, as a command's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RootMotion {
    /// It moves the character: the clips' root joint keeps its place and
    /// heading relative to the character's root, in the clip's own
    /// coordinates, and a looping clip that travels walks on at each wrap
    /// (above), accumulating its loop's displacement and turn for as long
    /// as it plays (in `f32`: after a kilometre of loops a position's last
    /// bit is about 0.06 mm). A transition carries the root from where the
    /// old sources had walked to the new clips' own place, hidden by the
    /// transition as any other joint's jump: use [`RootMotion::Extract`]
    /// for characters that travel from clip to clip.
    Apply,
    /// It is removed: the clips' root joint is held above the character's
    /// root (its height and its swing kept, its place on the ground and
    /// its heading, the twist of its rotation about the up axis, taken
    /// out: [`crate::reference::quat_twist`]), and the motion it would
    /// have made is reported each step ([`Crowd::root_motion`], a
    /// [`RootDelta`]): a world displacement and a turn about the up axis
    /// over the step, and their rates (the world velocity and the heading's
    /// angular velocity, the exact derivative of its angle,
    /// [`crate::reference::twist_rate`]), for the game's character
    /// controller to move and turn the root with. The displacement is
    /// measured in the heading the clips' root had at the previous step
    /// and turned into the world by the character's root rotation, so a
    /// game that adds the displacement to its root's position and the
    /// turn to its heading after each step walks the clips' own path.
    /// Where the clips stand and face does not matter, only how they move
    /// and turn: a transition blends the root's velocity and its heading's
    /// rate (as every joint's) but not its place or heading (the shown
    /// root is moved and turned onto the new sources' place before the
    /// offset is taken, with nothing to hide since both are removed); a
    /// step in which a command moves the sources at once reports its
    /// velocities times `dt`; a wrap reports the travel across the seam
    /// (above). Through a blend of two sources, the blended root's motion
    /// is what is reported.
    Extract,
}

/// What a crowd took out of a character's clips' root in the last step
/// ([`RootMotion::Extract`]; zero when the crowd applies root motion):
/// what the game's character controller moves and turns the root by.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RootDelta {
    /// World displacement over the step, on the ground (nothing along the
    /// character's up): the clips' root's travel since the last step,
    /// measured in the heading it had then, turned into the world by the
    /// character's root rotation.
    pub displacement: Vec3,
    /// World velocity at the step's end, turned as the displacement.
    pub velocity: Vec3,
    /// Turn about the up axis over the step, radians (right-handed about
    /// [`CrowdConfig::up`]; within `[-π, π]`).
    pub turn: f32,
    /// The heading's angular velocity about the up axis at the step's end,
    /// radians per second.
    pub turn_rate: f32,
}

/// What a source does when its time reaches either end of its clip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ClipEnd {
    /// Wraps around (the clip plays again from the other end).
    Loop,
    /// Holds the end frame.
    Hold,
    /// Holds the end frame and reports [`EventKind::ClipEnded`] once.
    Event,
}

/// One source of a character: a point of a clip moving at a playback rate.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Source {
    /// Clip index in the crowd's [`ClipLibrary`].
    pub clip: usize,
    /// Seconds into the clip.
    pub time: f32,
    /// Clip seconds per second: 0 holds, negative plays backwards.
    pub rate: f32,
    /// What happens at the clip's ends.
    pub end: ClipEnd,
}

impl Source {
    /// Clip `clip` from `time`, at rate 1, looping.
    pub fn looping(clip: usize, time: f32) -> Source {
        Source {
            clip,
            time,
            rate: 1.0,
            end: ClipEnd::Loop,
        }
    }
}

/// A character's root in the world (crowd joint 0): position and rotation
/// (the facing) with their linear and angular velocity. Between commands
/// the crowd moves it along its velocities.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Root {
    /// Position.
    pub pos: Vec3,
    /// Rotation (unit quaternion, `(w, x, y, z)`).
    pub rot: Quat,
    /// Linear velocity, units per second.
    pub vel: Vec3,
    /// Angular velocity (scaled angle axis per second).
    pub ang: Vec3,
}

impl Root {
    /// Standing still at `pos`, facing `yaw` radians about +y.
    pub fn standing(pos: Vec3, yaw: f32) -> Root {
        Root {
            pos,
            rot: crate::reference::quat_from_angle_axis(yaw, Vec3::new(0.0, 1.0, 0.0)),
            vel: Vec3::ZERO,
            ang: Vec3::ZERO,
        }
    }
}

/// Dead blending's half-lives: how fast the extrapolated pose's velocities
/// decay during a transition ([`Transition::DeadBlend`]; inertialization
/// ignores it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum DeadBlendHalflives {
    /// One half-life for every joint and axis: the `halflife` of the
    /// [`Command::Transition`] (dead blending article,
    /// [`crate::reference::op_extrapolate_decayed`]).
    #[default]
    Command,
    /// A half-life per joint and axis, fitted at each transition from the
    /// pose shown at the transition (positions, rotations and their
    /// velocities) and the new sources' pose (positions, rotations): the
    /// Dead Blending Node article's `estimate_halflife` heuristic,
    /// [`crate::reference::fit_joint_halflives`],
    /// `clamp(scale (dst - src) / src_vel, min, max)` per axis (rotations as
    /// scaled angle axis), so that axes moving slowly toward the new pose
    /// extrapolate long and axes moving fast or away stop soon. The
    /// extrapolation is [`crate::reference::op_extrapolate_decayed_axes`]
    /// (exact velocities, turns capped). The command's `halflife` is not
    /// used. Costs a fit per joint at each transition, decay weights per
    /// joint and axis at each step of a transition, and 12 bytes per
    /// character for each joint that turns and each joint that moves (288
    /// bytes for the CMU skeleton; PERF.md, "Dead blending with fitted
    /// half-lives"). [`DeadBlendHalflives::FITTED`] has the article's
    /// defaults.
    Fitted {
        /// The heuristic's `halflife_scale`, seconds: finite, > 0 and
        /// <= 1e6 (the article's 0.3).
        scale: f32,
        /// The shortest half-life, seconds: finite, > 0 and <= 1e6 (0.1).
        min: f32,
        /// The longest half-life, seconds: finite, >= `min` and <= 1e6 (1.0).
        max: f32,
    },
}

impl DeadBlendHalflives {
    /// Fitted with the article's defaults: scale
    /// [`crate::reference::HALFLIFE_SCALE`] (0.3), min
    /// [`crate::reference::HALFLIFE_MIN`] (0.1 s), max
    /// [`crate::reference::HALFLIFE_MAX`] (1 s).
    pub const FITTED: DeadBlendHalflives = DeadBlendHalflives::Fitted {
        scale: crate::reference::HALFLIFE_SCALE,
        min: crate::reference::HALFLIFE_MIN,
        max: crate::reference::HALFLIFE_MAX,
    };

    /// The fit's `(scale, min, max)`, `None` for [`DeadBlendHalflives::Command`].
    pub fn fitted(&self) -> Option<(f32, f32, f32)> {
        match *self {
            DeadBlendHalflives::Command => None,
            DeadBlendHalflives::Fitted { scale, min, max } => Some((scale, min, max)),
        }
    }

    fn check(&self) -> Result<()> {
        let Some((scale, min, max)) = self.fitted() else {
            return Ok(());
        };
        let reason = "must be finite, > 0 and <= 1e6";
        let positive = |name, v: f32| match v.is_finite() && v > 0.0 && v <= command::COMMAND_MAX {
            true => Ok(()),
            false => Err(Error::Parameter {
                name,
                value: v,
                reason,
            }),
        };
        positive("dead_blend_halflives scale", scale)?;
        positive("dead_blend_halflives min", min)?;
        positive("dead_blend_halflives max", max)?;
        if max < min {
            return Err(Error::Parameter {
                name: "dead_blend_halflives max",
                value: max,
                reason: "must be >= min",
            });
        }
        Ok(())
    }
}

/// What is fixed for a crowd's life.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CrowdConfig {
    /// Number of characters.
    pub characters: usize,
    /// Inertialization or dead blending.
    pub transition: Transition,
    /// Linear or cubic sampling.
    pub sampling: Sampling,
    /// Whether the clips' root motion moves the characters or is reported
    /// ([`RootMotion`]).
    pub root_motion: RootMotion,
    /// The up axis: `(0, 1, 0)` (the default, as BVH and glTF) or `(0, 0,
    /// 1)` for engines and clips that use z; anything else is refused
    /// ([`Error::Parameter`] naming the component). Root motion's heading
    /// is the twist about it and its place the ground across it.
    #[cfg_attr(feature = "serde", serde(default = "default_up"))]
    pub up: Vec3,
    /// Whether each step runs the live velocity check
    /// ([`VelocityCheck`], in [`FrameStats::velocity`]). Off by default, as
    /// a game runs: it reads the previous frame's output back and costs 5
    /// to 8% of a step (PERF.md). The `kineform` program and the tests turn
    /// it on.
    pub velocity_check: bool,
    /// Dead blending's half-lives: the command's one, or fitted per joint
    /// and axis at each transition. No time and no per-character memory
    /// is spent on fitted half-lives unless dead blending uses them (each
    /// worker's scratch keeps room for one pack's, about 2 KB).
    #[cfg_attr(feature = "serde", serde(default))]
    pub dead_blend_halflives: DeadBlendHalflives,
    /// How the clips' frames are stored: full rows (the source's values,
    /// 32 bytes per turning joint and frame) or compact words (a quarter of
    /// the bytes; rotations within 5e-6 rad and positions within their
    /// joint's stated bound of the source's, velocities those of the
    /// decoded motion; [`crate::database::ClipStorage`]). Both crowds play
    /// the same decoded motion.
    #[cfg_attr(feature = "serde", serde(default))]
    pub clip_storage: ClipStorage,
    /// The weight a source must exceed for its markers to be reported
    /// ([`MarkerHit`]): within `[0, 1)`; 0 (the default) reports every
    /// source that shows at all, and leaves out source B at weight 0 and
    /// a layer at weight 0. A layer's source weighs its layer's weight
    /// (its mask does not enter).
    #[cfg_attr(feature = "serde", serde(default))]
    pub marker_weight: f32,
    /// The layers above each character's base, in order (at most
    /// [`MAX_LAYERS`]; none by default): override or additive, each on its
    /// mask's joints ([`layer`]). A crowd without layers spends nothing on
    /// them; a layer whose weight is zero for all eight characters of a
    /// pack is skipped for that pack, its source not sampled.
    #[cfg_attr(feature = "serde", serde(default))]
    pub layers: Vec<Layer>,
    /// Per-joint transition profiles (at most [`MAX_BLEND_PROFILES`];
    /// none by default) that characters choose with
    /// [`Command::SetBlendProfile`].
    #[cfg_attr(feature = "serde", serde(default))]
    pub blend_profiles: Vec<BlendProfile>,
    /// Each clip joint's radius in its character's bounding box
    /// ([`Aabb`], [`Crowd::bounds_into`]), in the library's joint order:
    /// the box holds every clip joint's world position padded by its
    /// radius on each axis (a bone's thickness, a hand's reach beyond its
    /// joint). Empty (the default): no padding. Otherwise one per joint
    /// of the library's skeleton, each finite, >= 0 and <= 1e6
    /// ([`crate::limits::MAX_POSITION`]); the crowds refuse others when
    /// built ([`Error::Length`], or [`Error::Config`] naming the joint).
    #[cfg_attr(feature = "serde", serde(default))]
    pub joint_radii: Vec<f32>,
    /// Level of detail ([`schedule`]): whether characters may be given
    /// update periods above 1 ([`Command::SetPeriod`]), carried along
    /// their world velocities between evaluations. Off by default: a crowd
    /// without it keeps nothing for it and spends one test per pack and
    /// step on it. On, the world output holds each character's last
    /// evaluated world pose (its anchor, [`Crowd::world`]), and each pack
    /// keeps a world-space offset per joint (48 bytes per character and
    /// joint: 1.5 KB per character for the CMU skeleton's 32 crowd joints;
    /// measured 4.4 KB a character in all at 100,000 characters, against
    /// 2.7 KB without).
    #[cfg_attr(feature = "serde", serde(default))]
    pub level_of_detail: bool,
}

/// The default up axis, +y.
fn default_up() -> Vec3 {
    Vec3::new(0.0, 1.0, 0.0)
}

/// 10,000 characters, cubic inertialization, linear sampling, root motion
/// applied, +y up, dead blending at the command's half-life, the velocity check
/// off, markers of every source that shows, no layers, no blend
/// profiles, full clip rows, bounding boxes without padding, and no level
/// of detail.
impl Default for CrowdConfig {
    fn default() -> CrowdConfig {
        CrowdConfig {
            characters: 10_000,
            transition: Transition::Inertialize,
            sampling: Sampling::Linear,
            root_motion: RootMotion::Apply,
            up: default_up(),
            velocity_check: false,
            dead_blend_halflives: DeadBlendHalflives::Command,
            clip_storage: ClipStorage::Full,
            marker_weight: 0.0,
            layers: Vec::new(),
            blend_profiles: Vec::new(),
            joint_radii: Vec::new(),
            level_of_detail: false,
        }
    }
}

/// Bytes a crowd of `characters` on `joints` crowd joints needs, about:
/// its world output, its kept transition state, its schedules, its root
/// motion and sources' places, its bounding boxes, and room
/// for a step's events (three per character). Used to refuse sizes before
/// allocating (the CLI says how much a size needs).
pub fn crowd_bytes(characters: usize, joints: usize) -> Option<usize> {
    let packs = characters.div_ceil(8);
    let per_pack = joints
        .checked_mul(size_of::<Motionx8>() * 2)?
        .checked_add(size_of::<state::Statex8>() + 8 * size_of::<Root>() + 64)?
        .checked_add(size_of::<bounds::Aabbx8>())?
        .checked_add(size_of::<motion::RootMotionx8>())?
        .checked_add(24 * size_of::<Event>())?;
    packs.checked_mul(per_pack)
}

impl CrowdConfig {
    fn check(&self) -> Result<()> {
        if self.characters == 0 {
            return Err(Error::Size {
                what: "characters",
                reason: "0; a crowd has at least 1".into(),
            });
        }
        if !(0.0..1.0).contains(&self.marker_weight) {
            return Err(Error::Parameter {
                name: "marker_weight",
                value: self.marker_weight,
                reason: "must be within [0, 1)",
            });
        }
        place::Up::of(self.up)?;
        self.dead_blend_halflives.check()
    }

    /// The up axis, checked ([`CrowdConfig::check`]; +y where it would be
    /// refused).
    pub(crate) fn up_axis(&self) -> place::Up {
        place::Up::of(self.up).unwrap_or(place::Up::Y)
    }

    /// The fit's `(scale, min, max)` where dead blending fits its
    /// half-lives, else `None`.
    pub(crate) fn fit(&self) -> Option<(f32, f32, f32)> {
        match self.transition {
            Transition::DeadBlend => self.dead_blend_halflives.fitted(),
            Transition::Inertialize => None,
        }
    }
}

/// What one step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// Characters that started a transition this step.
    pub transitions: u32,
    /// Characters evaluated this step (the others were carried, level of
    /// detail: [`schedule`]); all of them in a crowd without level of
    /// detail.
    pub evaluated: u32,
    /// Commands given since the last step and applied in this one (a root
    /// given twice counts twice; the last one given is the one applied),
    /// at most `u32::MAX`.
    pub commands: u32,
    /// This step's velocity check (empty on a crowd's first step, or when
    /// the check is off, but for [`VelocityCheck::non_finite`], which
    /// counts output that is not finite on every step).
    pub velocity: VelocityCheck,
    /// What the budget allocator chose for this step and what the step
    /// spent ([`Crowd::set_budget`]); `None` without a budget.
    pub budget: Option<BudgetChoice>,
}
