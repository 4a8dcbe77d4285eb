//! [`Crowd`]: eight characters per pack, packs across cores. This file
//! holds the struct and the state it keeps, and the commands a game gives
//! it (queued for the next step). The step itself is in `tasks`: the
//! frame's commands planned per pack ([`Crowd::prepare`]), the shown poses
//! of the characters that transition, each pack's passes
//! ([`super::passes`]), then the events; [`Crowd::step`] runs them on
//! rayon, and a caller may run them on threads of its own
//! ([`PreparedStep`], whose runs of work, [`ShownRange`] and
//! [`PackRange`], are in `runs`). Per-pack state lives in the store
//! ([`super::store::PackStore`]). Building a crowd is in `construct`.

pub(super) mod construct;
mod runs;
mod tasks;

pub use runs::{PackRange, ShownRange};
pub use tasks::PreparedStep;

use super::budget::{self, Allocator, Budget};
use super::command::{self, Command, Queue};
use super::layer::Layout;
use super::motion::{Motionx8, Track};
use super::passes::{LayerPass, Scratches, ShownPoses};
use super::state::{CharacterState, ClipRows, LayerState};
use super::store::PackStore;
use super::{ClipLibrary, CrowdConfig, Root};
use crate::database::Database;
use crate::error::{Error, Result};
use crate::skeleton::Skeleton;

/// The crowd a game drives (module docs): eight characters per pack, each
/// step a few passes over a pack's joints whose data stays in L1/L2, packs
/// across cores with rayon; output bit-identical for any thread count.
/// Sampling reads a [`Database`] whose rows hold each frame's step to the
/// next, so linear sampling is `exp(a w) r` with no logarithm, and a blend
/// is `exp(t log(b a⁻¹)) a`, sharing the logarithm its angular velocity
/// needs anyway.
///
/// Characters start playing clip 0 from its start on both sources, weight
/// 0, standing at the origin; commands ([`Crowd::command`] and the methods
/// named after them) change that from the next step on.
pub struct Crowd {
    pub(crate) cfg: CrowdConfig,
    pub(crate) library: ClipLibrary,
    db: Database,
    pub(crate) skeleton: Skeleton,
    rows: Vec<ClipRows>,
    tracks: Vec<Track>,
    turning: usize,
    /// The layers and blend profiles resolved on the skeleton, and the
    /// layers as the passes walk them.
    layout: Layout,
    layer_passes: Vec<LayerPass>,
    /// A local pose at rest: joints with a fixed position at it, still
    /// joints at their constant pose.
    rest: Vec<Motionx8>,
    /// Each crowd joint's radius in its character's bounds (0 for joint
    /// 0, outside them; [`CrowdConfig::joint_radii`]).
    pub(super) radii: Vec<f32>,
    /// Everything kept or scheduled per pack (playback, transitions,
    /// roots given, root motion, world output, the frame's plan): the one
    /// home of per-pack state.
    pub(crate) packs: PackStore,
    /// Whether packs fetch rows ahead: the store is larger than
    /// [`crate::crowd::passes::fetch_ahead_above`] (half the L3;
    /// smaller, it stays in the L3 and the hardware's prefetcher keeps
    /// up). Decided when the crowd is built, where the machine's caches
    /// are read (a step allocates nothing).
    fetch_ahead: bool,
    /// The scratch of the threads that run the packs, kept across frames.
    scratch: Scratches,
    queue: Queue,
    /// Roots given since the last step ([`Command::SetRoot`]) are kept in
    /// the store (`roots`, `root_set`), out of the queue, and set before
    /// the queued commands run, as if they had been queued: a root command
    /// touches nothing any other command reads or writes, so the result is
    /// the same, and a game that moves every root every frame pays a store
    /// per root. How many were given (for the frame's figures).
    roots_given: usize,
    /// The frame's commands, sorted by character (reused).
    sorted: Vec<(u32, Command)>,
    /// The frame's transitioning characters and the poses they would have
    /// shown (reused).
    shown: ShownPoses,
    pub(crate) events: Vec<super::Event>,
    /// Every clip's markers, sorted ([`super::markers`]).
    pub(crate) markers: super::markers::MarkerTable,
    pub(crate) frames: u64,
    /// The budget allocator ([`super::budget`]): the budget, the measured
    /// cost, the step's spending.
    pub(crate) budget: Allocator,
}

/// A crowd's step must be finite, positive, and at most this (seconds):
/// beyond it the lanes' sine and exponential lose accuracy and a frame is
/// no longer a frame.
pub const MAX_STEP: f32 = 1e3;

/// Checks a frame time.
pub(crate) fn check_dt(dt: f32) -> Result<()> {
    if dt.is_finite() && dt > 0.0 && dt <= MAX_STEP {
        Ok(())
    } else {
        Err(Error::Parameter {
            name: "dt",
            value: dt,
            reason: "a step must be finite, > 0 and <= 1000 s",
        })
    }
}

impl Crowd {
    /// The crowd skeleton (the character's root + the clips' joints).
    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }

    /// Bytes of the clips' frame tables in the configured storage
    /// ([`crate::crowd::CrowdConfig::clip_storage`];
    /// [`crate::database::Database::table_bytes`]): what choosing full,
    /// compact or stepped clips changes.
    pub fn clip_table_bytes(&self) -> usize {
        self.db.table_bytes()
    }

    /// The configuration.
    pub fn config(&self) -> &CrowdConfig {
        &self.cfg
    }

    /// The clips.
    pub fn library(&self) -> &ClipLibrary {
        &self.library
    }

    /// Number of characters.
    pub fn characters(&self) -> usize {
        self.cfg.characters
    }

    /// Steps run so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Character `c`'s state as the last step left it (queued commands not
    /// yet applied).
    pub fn state(&self, c: usize) -> Option<CharacterState> {
        (c < self.cfg.characters).then(|| self.packs.states[c / 8].get(c % 8))
    }

    /// Character `c`'s layer `layer` as the last step left it (queued
    /// commands not yet applied); `None` past the characters or the
    /// layers.
    pub fn layer_state(&self, c: usize, layer: usize) -> Option<LayerState> {
        if c >= self.cfg.characters {
            return None;
        }
        self.packs
            .layers
            .pack(c / 8)
            .get(layer)
            .map(|l| l.get(c % 8))
    }

    /// Character `c`'s update period and phase ([`Command::SetPeriod`]) as
    /// the last step left them; `None` past the characters.
    pub fn period(&self, c: usize) -> Option<(u32, u32)> {
        (c < self.cfg.characters).then(|| self.packs.schedule[c / 8].get(c % 8))
    }

    /// Seconds since character `c`'s pose was last evaluated, as the last
    /// step left it: `Some(0.0)` when that step evaluated it (always
    /// without level of detail), else how long it has been carried along
    /// its velocities; `None` past the characters. For a game that reads
    /// a distant character's pose only when it was evaluated (on its own
    /// period, whoever chose it: [`Crowd::set_period`] or the budget
    /// allocator), since reading a carried pose costs about what its
    /// evaluation saved (README, "Level of detail"):
    ///
    /// ```
    /// # use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig};
    /// # let library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
    /// let cfg = CrowdConfig { characters: 16, level_of_detail: true, ..Default::default() };
    /// let mut crowd = Crowd::new(&library, cfg)?;
    /// for c in 8..16 {
    ///     crowd.set_period(c, 4, 0)?; // the second pack every 4th step
    /// }
    /// let mut fresh = 0;
    /// for _frame in 0..8 {
    ///     crowd.step(1.0 / 60.0)?;
    ///     fresh += (crowd.since_evaluated(12) == Some(0.0)) as usize;
    /// }
    /// assert_eq!(fresh, 2);
    /// assert_eq!(crowd.since_evaluated(3), Some(0.0));
    /// assert_eq!(crowd.since_evaluated(16), None);
    /// # Ok::<(), kineform::Error>(())
    /// ```
    pub fn since_evaluated(&self, c: usize) -> Option<f32> {
        (c < self.cfg.characters).then(|| self.packs.schedule[c / 8].since_evaluated(c % 8))
    }

    /// Sets the significance of characters `first .. first +
    /// values.len()` for the budget allocator ([`super::budget`]: higher
    /// is more significant, such as closeness to the camera; 0 until set),
    /// used from the next step on. Any number but NaN; a refusal sets none
    /// ([`Error::Index`] for a range past the crowd, [`Error::Character`]
    /// naming the first NaN). Periods are chosen per pack of eight
    /// (characters `8p .. 8p + 8`) from its most significant character, so
    /// a game that keeps close characters in the same pack (as it sorts
    /// them for culling) gets the most from its budget.
    pub fn set_significance(&mut self, first: usize, values: &[f32]) -> Result<()> {
        let n = self.cfg.characters;
        budget::set_significance(&mut self.packs.schedule, n, first, values)
    }

    /// Sets the crowd's time budget per step (`None`: none, the periods
    /// stay as the allocator left them and are the game's to set again):
    /// from the next step on, every step chooses each pack's update
    /// period so that the steps spend about `budget.seconds` in the
    /// crowd's work, summed over threads, highest significance first
    /// ([`super::budget`]), and reports its choice in
    /// [`super::FrameStats::budget`]. While a budget is set,
    /// [`Command::SetPeriod`] is refused. Refused, changing nothing: a
    /// budget out of range ([`Error::Parameter`] with the range), any
    /// budget for a crowd without [`super::CrowdConfig::level_of_detail`]
    /// or while `SetPeriod` commands are queued ([`Error::Parameter`]),
    /// or room to order the packs that cannot be reserved
    /// ([`Error::Size`]).
    pub fn set_budget(&mut self, budget: Option<Budget>) -> Result<()> {
        budget::check_settable(budget, self.cfg.level_of_detail, self.queue.has_period())?;
        self.budget.set(budget, self.packs.count)
    }

    /// The budget set by [`Crowd::set_budget`], if any.
    pub fn budget(&self) -> Option<Budget> {
        self.budget.budget()
    }

    /// Queues `cmd` for character `c`, applied at the next step (see
    /// [`super::command`] for the order). Refused, with nothing queued,
    /// when `c` or anything in the command is out of range, and a
    /// [`Command::SetPeriod`] while a budget is set ([`Crowd::set_budget`]).
    pub fn command(&mut self, c: usize, cmd: Command) -> Result<()> {
        budget::check_command(self.budget.budget(), &cmd)?;
        match cmd {
            Command::SetRoot(root) => {
                Queue::check(&self.cfg, &self.library, c, &cmd)?;
                self.stage_root(c, &root);
                Ok(())
            }
            _ => self.queue.push(&self.cfg, &self.library, c, cmd),
        }
    }

    /// Keeps a checked root for the next step; the step writes it into
    /// its pack's lanes (on the pack's thread).
    fn stage_root(&mut self, c: usize, root: &Root) {
        self.packs.roots[c] = *root;
        self.packs.root_set[c / 8] |= 1 << (c % 8);
        self.roots_given = self.roots_given.saturating_add(1);
    }

    /// Sets the roots of characters `first .. first + roots.len()` for the
    /// next step, as that many [`Command::SetRoot`] would: every root is
    /// checked first, and a refusal stages none of them: an
    /// [`Error::Index`] for a range past the crowd, or an
    /// [`Error::Character`] naming the first refused character and why. For a game that moves every character every frame: a
    /// root costs its check and a copy here, and is written into its
    /// pack's lanes by the step, in parallel.
    pub fn set_roots(&mut self, first: usize, roots: &[Root]) -> Result<()> {
        command::check_roots(self.cfg.characters, first, roots)?;
        let end = first + roots.len();
        self.packs.roots[first..end].copy_from_slice(roots);
        for c in first..end {
            self.packs.root_set[c / 8] |= 1 << (c % 8);
        }
        self.roots_given = self.roots_given.saturating_add(roots.len());
        Ok(())
    }

    super::command::command_shorthands!();

    /// Commands queued for the next step.
    pub fn queued(&self) -> usize {
        self.queue.len().saturating_add(self.roots_given)
    }
}
