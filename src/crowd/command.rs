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

use super::library::ClipLibrary;
use super::{ClipEnd, Crowd, ReferenceCrowd, Root, Source};
use crate::error::{Error, Result};

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

fn finite_in(name: &'static str, v: f32, lo: f32, hi: f32, reason: &'static str) -> Result<()> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(Error::Parameter {
            name,
            value: v,
            reason,
        })
    }
}

fn positive(name: &'static str, v: f32) -> Result<()> {
    if v.is_finite() && v > 0.0 && v <= COMMAND_MAX {
        Ok(())
    } else {
        Err(Error::Parameter {
            name,
            value: v,
            reason: "must be finite, > 0 and <= 1e6",
        })
    }
}

/// Checks a source against the crowd's clips; `names` are the clip's,
/// the time's and the rate's names in errors.
fn source(names: [&'static str; 3], s: &Source, library: &ClipLibrary) -> Result<()> {
    if s.clip >= library.len() {
        return Err(Error::Index {
            what: names[0],
            index: s.clip,
            len: library.len(),
        });
    }
    let reason = "must be finite and within ±1e6";
    finite_in(names[1], s.time, -COMMAND_MAX, COMMAND_MAX, reason)?;
    finite_in(names[2], s.rate, -COMMAND_MAX, COMMAND_MAX, reason)
}

const SOURCE_A: [&str; 3] = ["source A clip", "source A time", "source A rate"];
const SOURCE_B: [&str; 3] = ["source B clip", "source B time", "source B rate"];
const LAYER_SOURCE: [&str; 3] = [
    "layer source clip",
    "layer source time",
    "layer source rate",
];

fn vec3(name: &'static str, v: crate::reference::Vec3) -> Result<()> {
    for x in v.to_array() {
        finite_in(
            name,
            x,
            -COMMAND_MAX,
            COMMAND_MAX,
            "must be finite and within ±1e6",
        )?;
    }
    Ok(())
}

impl Command {
    /// Checks the command against the crowd's clips: clip indices in
    /// range; times, rates, positions and velocities finite (within
    /// [`COMMAND_MAX`]); weights in `[0, 1]`; durations and half-lives
    /// finite and positive; a root rotation of unit length (within 1e-3).
    /// The error names the argument. Layer and blend profile indices are
    /// checked against a crowd's configuration by [`Command::validate_in`]
    /// (which the crowds' commands call).
    pub fn validate(&self, library: &ClipLibrary) -> Result<()> {
        let unit = |name, v: f32| finite_in(name, v, 0.0, 1.0, "must be in [0, 1]");
        match self {
            Command::Play { a, b } => {
                source(SOURCE_A, a, library)?;
                source(SOURCE_B, b, library)
            }
            Command::Transition {
                a,
                b,
                duration,
                halflife,
            } => {
                source(SOURCE_A, a, library)?;
                source(SOURCE_B, b, library)?;
                positive("transition duration", *duration)?;
                positive("transition halflife", *halflife)
            }
            Command::PlayLayer { source: s, .. } => source(LAYER_SOURCE, s, library),
            Command::TransitionLayer {
                source: s,
                duration,
                halflife,
                ..
            } => {
                source(LAYER_SOURCE, s, library)?;
                positive("transition duration", *duration)?;
                positive("transition halflife", *halflife)
            }
            Command::SetWeight { weight } => unit("weight", *weight),
            Command::SetLayerWeight { weight, .. } => unit("layer weight", *weight),
            Command::WeightToward { target, halflife } => {
                unit("weight target", *target)?;
                positive("weight halflife", *halflife)
            }
            Command::LayerWeightToward {
                target, halflife, ..
            } => {
                unit("layer weight target", *target)?;
                positive("layer weight halflife", *halflife)
            }
            Command::SetRate { rate, .. } => finite_in(
                "rate",
                *rate,
                -COMMAND_MAX,
                COMMAND_MAX,
                "must be finite and within ±1e6",
            ),
            Command::SetEnd { .. } | Command::SetBlendProfile { .. } => Ok(()),
            Command::SetRoot(r) => check_root(r),
            Command::SetPeriod { period, phase } => super::schedule::check_period(*period, *phase),
        }
    }

    /// [`Command::validate`], and its layer ([`Error::Index`], `layer`)
    /// and blend profile (`blend profile`) among a crowd's `cfg`'s.
    pub fn validate_in(&self, library: &ClipLibrary, cfg: &super::CrowdConfig) -> Result<()> {
        self.validate(library)?;
        let in_range = |what, index: usize, len: usize| match index < len {
            true => Ok(()),
            false => Err(Error::Index { what, index, len }),
        };
        let layers = cfg.layers.len();
        match *self {
            Command::PlayLayer { layer, .. }
            | Command::TransitionLayer { layer, .. }
            | Command::SetLayerWeight { layer, .. }
            | Command::LayerWeightToward { layer, .. }
            | Command::SetRate {
                source: Which::Layer(layer),
                ..
            }
            | Command::SetEnd {
                source: Which::Layer(layer),
                ..
            } => in_range("layer", layer, layers),
            Command::SetBlendProfile { profile: Some(p) } => {
                in_range("blend profile", p, cfg.blend_profiles.len())
            }
            Command::SetPeriod { period, .. } if period > 1 && !cfg.level_of_detail => {
                Err(Error::Parameter {
                    name: "period",
                    value: period as f32,
                    reason: "must be 1 in a crowd without level_of_detail",
                })
            }
            _ => Ok(()),
        }
    }
}

/// Checks a root as [`Command::SetRoot`] does: finite position and
/// velocities, a rotation of unit length within 1e-3.
pub(crate) fn check_root(r: &Root) -> Result<()> {
    let q = r.rot;
    let n = (q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z).sqrt();
    let values = [r.pos, r.vel, r.ang];
    // The common case in one pass (NaN fails every comparison); the named
    // checks below, which say what is wrong, only when something is.
    if values.iter().all(|v| {
        (v.x.abs() <= COMMAND_MAX) & (v.y.abs() <= COMMAND_MAX) & (v.z.abs() <= COMMAND_MAX)
    }) && (1.0 - 1e-3..=1.0 + 1e-3).contains(&n)
    {
        return Ok(());
    }
    vec3("root position", r.pos)?;
    vec3("root velocity", r.vel)?;
    vec3("root angular velocity", r.ang)?;
    finite_in(
        "root rotation length",
        n,
        1.0 - 1e-3,
        1.0 + 1e-3,
        "a root rotation must be a unit quaternion (within 1e-3)",
    )
}

/// Checks the roots given for characters `first .. first + roots.len()` of a
/// crowd of `characters`, all of them, before any is used: the range
/// ([`Error::Index`]), then each root as [`check_root`] does
/// ([`Error::Character`] naming the first refused one).
pub(crate) fn check_roots(characters: usize, first: usize, roots: &[Root]) -> Result<()> {
    if first
        .checked_add(roots.len())
        .is_none_or(|end| end > characters)
    {
        return Err(Error::Index {
            what: "character range end (set_roots)",
            index: first.saturating_add(roots.len()),
            len: characters,
        });
    }
    for (k, root) in roots.iter().enumerate() {
        check_root(root).map_err(|e| Error::Character {
            character: first + k,
            error: Box::new(e),
        })?;
    }
    Ok(())
}

/// Commands given since the last step, in the order given; `keys` is room
/// for one `(character, index)` per command, reserved with them, which
/// [`Queue::drain_sorted`] and [`Queue::recenter`] sort in place (a
/// step's work allocates nothing that grows with the commands given:
/// issue 21).
#[derive(Clone, Debug, Default)]
pub(crate) struct Queue {
    items: Vec<(u32, Command)>,
    keys: Vec<(u32, u32)>,
}

impl Queue {
    /// Checks a command for `character` of a crowd of `cfg`.
    pub(crate) fn check(
        cfg: &super::CrowdConfig,
        library: &ClipLibrary,
        character: usize,
        cmd: &Command,
    ) -> Result<()> {
        if character >= cfg.characters {
            return Err(Error::Index {
                what: "character",
                index: character,
                len: cfg.characters,
            });
        }
        cmd.validate_in(library, cfg)
    }

    /// Makes room for `n` more commands (and their sorting keys), or
    /// refuses with nothing queued. A queue holds at most `u32::MAX`
    /// commands.
    pub(crate) fn reserve(&mut self, n: usize) -> Result<()> {
        let len = self.items.len();
        let refused = || Error::Size {
            what: "command queue",
            reason: format!("room for {n} more commands (after {len}) could not be reserved"),
        };
        let total = len
            .checked_add(n)
            .filter(|&t| t <= u32::MAX as usize)
            .ok_or_else(refused)?;
        self.items.try_reserve(n).map_err(|_| refused())?;
        self.keys
            .try_reserve(total.saturating_sub(self.keys.len()))
            .map_err(|_| refused())
    }

    /// Makes room in `into` for every queued command, for
    /// [`Queue::drain_sorted`], or refuses with nothing changed.
    pub(crate) fn reserve_drain(&self, into: &mut Vec<(u32, Command)>) -> Result<()> {
        let n = self.items.len();
        into.try_reserve(n.saturating_sub(into.len()))
            .map_err(|_| Error::Size {
                what: "the step's commands",
                reason: format!("room for {n} commands could not be reserved"),
            })
    }

    /// Whether a [`Command::SetRoot`] is queued for `character`.
    pub(crate) fn sets_root(&self, character: usize) -> bool {
        self.items
            .iter()
            .any(|(c, cmd)| *c as usize == character && matches!(cmd, Command::SetRoot(_)))
    }

    /// Every queued root moved by `-origin`, after checking that the one a
    /// step would apply (each character's last) stays within
    /// ±[`crate::limits::MAX_POSITION`] (nothing moved otherwise): the
    /// 8-lane crowd keeps only the last root given, and both crowds judge
    /// the same roots (found by the `clips_from_values` fuzz target).
    pub(crate) fn recenter(&mut self, origin: crate::reference::Vec3) -> Result<()> {
        // The keys' room is reserved with the commands: no allocation.
        let last = &mut self.keys;
        last.clear();
        last.extend(
            (self.items.iter().enumerate())
                .filter(|(_, (_, cmd))| matches!(cmd, Command::SetRoot(_)))
                .map(|(i, (c, _))| (*c, i as u32)),
        );
        last.sort_unstable();
        for (k, &(c, i)) in last.iter().enumerate() {
            let later = last.get(k + 1).is_some_and(|&(next, _)| next == c);
            if let (false, Command::SetRoot(r)) = (later, &self.items[i as usize].1) {
                super::state::check_recentered_root(c as usize, r, origin)?;
            }
        }
        for (_, cmd) in &mut self.items {
            if let Command::SetRoot(r) = cmd {
                r.pos -= origin;
            }
        }
        Ok(())
    }

    /// Queues `cmd` for `character` after checking both; nothing is queued
    /// when either is refused.
    pub(crate) fn push(
        &mut self,
        cfg: &super::CrowdConfig,
        library: &ClipLibrary,
        character: usize,
        cmd: Command,
    ) -> Result<()> {
        Queue::check(cfg, library, character, &cmd)?;
        self.reserve(1)?;
        self.items.push((character as u32, cmd));
        Ok(())
    }

    /// The queued commands sorted by character, each character's in the
    /// order given, into `into` (cleared first), leaving the queue empty
    /// with its memory kept. Sorts `(character, index)` keys in place
    /// (`sort_unstable` allocates nothing; a stable sort would allocate
    /// half the queue), and allocates nothing when `into` has room for
    /// every command ([`Queue::reserve_drain`]).
    pub(crate) fn drain_sorted(&mut self, into: &mut Vec<(u32, Command)>) {
        into.clear();
        let keys = &mut self.keys;
        keys.clear();
        keys.extend(
            self.items
                .iter()
                .enumerate()
                .map(|(i, (c, _))| (*c, i as u32)),
        );
        keys.sort_unstable();
        into.extend(keys.iter().map(|&(_, i)| self.items[i as usize]));
        keys.clear();
        self.items.clear();
    }

    /// Number of queued transitions: at least the number of characters
    /// that start one in the next step.
    pub(crate) fn transitions(&self) -> usize {
        self.items
            .iter()
            .filter(|(_, cmd)| matches!(cmd, Command::Transition { .. }))
            .count()
    }

    /// Number of queued commands.
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether a [`Command::SetPeriod`] is queued.
    pub(crate) fn has_period(&self) -> bool {
        let period = |(_, cmd): &(u32, Command)| matches!(cmd, Command::SetPeriod { .. });
        self.items.iter().any(period)
    }
}

/// What a driver needs of a crowd (the demo's `Wander` with the
/// `wander` feature, or a game's own): both crowds are driven the same way.
pub trait Driven {
    /// Number of characters.
    fn characters(&self) -> usize;
    /// The clips.
    fn library(&self) -> &ClipLibrary;
    /// Queues a command.
    fn command(&mut self, c: usize, cmd: Command) -> Result<()>;
    /// The crowd's layers ([`super::CrowdConfig::layers`]; none unless a
    /// crowd says so).
    fn layers(&self) -> &[super::Layer] {
        &[]
    }
    /// Number of the crowd's blend profiles.
    fn blend_profiles(&self) -> usize {
        0
    }
    /// The root motion character `c`'s clips made last step where the
    /// crowd extracts it ([`super::Crowd::root_motion`]), else `None`.
    fn root_motion(&self, _c: usize) -> Option<super::RootDelta> {
        None
    }
    /// Joint `j` of character `c` in world space after the last step
    /// (crowd joints: 0 the root, [`super::Crowd::world_kform`]), where
    /// the crowd gives it, else `None`.
    fn world_kform(&self, _c: usize, _j: usize) -> Option<crate::reference::Kform> {
        None
    }
    /// Roots for characters `first..` from the next step on
    /// ([`super::Crowd::set_roots`]); by default one
    /// [`Command::SetRoot`] each.
    fn set_roots(&mut self, first: usize, roots: &[super::Root]) -> Result<()> {
        for (c, root) in (first..).zip(roots) {
            self.command(c, Command::SetRoot(*root))?;
        }
        Ok(())
    }
}

impl Driven for Crowd {
    fn characters(&self) -> usize {
        Crowd::characters(self)
    }
    fn library(&self) -> &ClipLibrary {
        Crowd::library(self)
    }
    fn command(&mut self, c: usize, cmd: Command) -> Result<()> {
        Crowd::command(self, c, cmd)
    }
    fn layers(&self) -> &[super::Layer] {
        &Crowd::config(self).layers
    }
    fn blend_profiles(&self) -> usize {
        Crowd::config(self).blend_profiles.len()
    }
    fn root_motion(&self, c: usize) -> Option<super::RootDelta> {
        match Crowd::config(self).root_motion {
            super::RootMotion::Extract => Crowd::root_motion(self, c),
            super::RootMotion::Apply => None,
        }
    }
    fn world_kform(&self, c: usize, j: usize) -> Option<crate::reference::Kform> {
        Crowd::world_kform(self, c, j)
    }
    fn set_roots(&mut self, first: usize, roots: &[super::Root]) -> Result<()> {
        Crowd::set_roots(self, first, roots)
    }
}

impl Driven for ReferenceCrowd {
    fn characters(&self) -> usize {
        ReferenceCrowd::characters(self)
    }
    fn library(&self) -> &ClipLibrary {
        ReferenceCrowd::library(self)
    }
    fn command(&mut self, c: usize, cmd: Command) -> Result<()> {
        ReferenceCrowd::command(self, c, cmd)
    }
    fn layers(&self) -> &[super::Layer] {
        &ReferenceCrowd::config(self).layers
    }
    fn blend_profiles(&self) -> usize {
        ReferenceCrowd::config(self).blend_profiles.len()
    }
    fn root_motion(&self, c: usize) -> Option<super::RootDelta> {
        match ReferenceCrowd::config(self).root_motion {
            super::RootMotion::Extract => ReferenceCrowd::root_motion(self, c),
            super::RootMotion::Apply => None,
        }
    }
    fn world_kform(&self, c: usize, j: usize) -> Option<crate::reference::Kform> {
        ReferenceCrowd::world_kform(self, c, j)
    }
    fn set_roots(&mut self, first: usize, roots: &[super::Root]) -> Result<()> {
        ReferenceCrowd::set_roots(self, first, roots)
    }
}
