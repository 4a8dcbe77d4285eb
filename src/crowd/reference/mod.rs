//! [`ReferenceCrowd`]: the same frame through [`crate::reference`], one
//! character at a time (`kineform crowd --scalar`). It keeps its
//! characters' state and applies their commands with the 8-lane crowd's
//! code ([`super::state`]), so the same commands give the same schedule bit
//! for bit (each pack's frame: `pack`); every pose is then computed by the
//! scalar reference (`frame`, from what `step` reads out of the pack's
//! lanes): sampling, blending, the layers (`layers`), inertialization
//! or dead blending (each joint over its own duration under a blend
//! profile), root motion, forward kinematics with velocities, the
//! characters' bounding boxes (`bounds`), and the velocity check
//! (`show`).

mod bounds;
mod construct;
mod evaluated;
mod frame;
mod layers;
mod lod;
mod pack;
mod show;
mod step;

use std::sync::Mutex;

use rayon::prelude::*;

use super::budget::{self, Allocator, Budget, add_elapsed};
use super::command::{self, Command, Queue};
use super::events::push_events;
use super::lanes_crowd::check_dt;
use super::layer::Layout;
use super::markers::{Advanced, MarkerTable, Scan, pack_markers};
use super::output::check_joint_readout;
use super::place::Place;
use super::schedule::Schedulex8;
use super::state::{ClipRows, LayerLanes, LayerState, Statex8};
use super::store::EventBits;
use super::{CharacterState, Event, VelocityCheck};
use super::{ClipLibrary, CrowdConfig, FrameStats, Root};
use crate::error::Result;
use crate::reference::{Kform, Pose, Vec3};
use crate::skeleton::Skeleton;
use crate::skinning::{self, InverseBind, SkinMatrix};
use pack::reference_pack;
use std::time::Instant;
use step::Crowdwide;

/// The same crowd through the scalar reference, one character at a time.
pub struct ReferenceCrowd {
    cfg: CrowdConfig,
    library: ClipLibrary,
    /// The clips as a compact database decodes them
    /// ([`crate::database::Database::decoded_clips`]), played in place of
    /// the library's under [`crate::crowd::ClipStorage::Compact`] and
    /// [`crate::crowd::ClipStorage::Stepped`] (whose stored steps the
    /// reference derives from these frames:
    /// [`crate::database::Database::step_error_bound`] apart).
    decoded: Option<Vec<crate::Clip>>,
    /// Bytes of the database's frame tables in the configured storage
    /// ([`ReferenceCrowd::clip_table_bytes`]).
    clip_table_bytes: usize,
    skeleton: Skeleton,
    rows: Vec<ClipRows>,
    states: Vec<Statex8>,
    /// Each pack's layers (`cfg.layers.len()` per pack).
    layers: Vec<LayerLanes>,
    /// Each pack's schedule (level of detail, [`super::schedule`]).
    schedules: Vec<Schedulex8>,
    layout: Layout,
    chars: Vec<RefState>,
    queue: Queue,
    sorted: Vec<(u32, Command)>,
    /// One scratch per rayon worker, kept across frames (reserved before
    /// each step, fallibly).
    scratch: Vec<Mutex<RefScratch>>,
    /// The last step's events ([`super::Crowd::events`]), with room for
    /// the most a step can have (reserved when the crowd is built).
    events: Vec<Event>,
    /// Each pack's figures, event bits and number of markers crossed (in
    /// its chunk of `marks`) of the last step (kept, so that a step
    /// allocates nothing that grows with the crowd).
    pack_stats: Vec<(FrameStats, EventBits, usize)>,
    /// Every clip's markers, sorted, and each pack's room for the markers
    /// its sources cross in a step ([`MarkerTable::per_pack`], at least 1).
    markers: MarkerTable,
    marks: Vec<Event>,
    frames: u64,
    /// The budget allocator ([`super::budget`]), as the lanes crowd's.
    budget: Allocator,
}

/// Every pose of a reference crowd has the crowd skeleton's joints (made
/// so in [`ReferenceCrowd::new`] and never resized), so the reference
/// operators' length checks cannot refuse them.
const SIZED: &str = "reference crowd poses all have the crowd skeleton's joints";

/// One character's kept poses.
#[derive(Clone)]
struct RefState {
    offset: Pose,
    transition: Pose,
    /// Per joint, whether dead blending's relative rotation is taken
    /// negated: chosen the short way round at a transition and kept until
    /// the next, so that it moves continuously (see
    /// [`crate::Clip::with_continuous_rotations`]).
    dead_flip: Vec<bool>,
    /// Per joint, whether the two-source blend's relative rotation is taken
    /// negated: chosen the short way round when the sources change at once
    /// (a command, a wrap around a clip) and kept until then.
    ab_flip: Vec<bool>,
    /// The same for each layer's relative rotations (row `k j + joint`),
    /// also chosen anew where the layer is idle.
    layer_flip: Vec<bool>,
    /// Dead blending's half-lives per joint and axis, positions and
    /// rotations, fitted at the last transition (empty unless the crowd
    /// fits them, [`super::DeadBlendHalflives::Fitted`]).
    fit_pos: Vec<Vec3>,
    fit_rot: Vec<Vec3>,
    world: Pose,
    /// Level of detail ([`super::schedule`]): the last evaluated world
    /// pose, and the world-space offset from the pose carried to the one
    /// evaluated when the character was last resumed.
    anchor: Pose,
    lod_offset: Pose,
    /// The world pose's bounding box ([`super::Aabb`]).
    bounds: super::Aabb,
    /// Root motion taken out last step (the clips' root's place and
    /// heading, in its sources' places' frame), and this step's
    /// ([`super::RootDelta`]).
    removed: Place,
    root_motion: super::RootDelta,
    /// Where sources A and B's clips stand ([`super::place`]).
    places: [Place; 2],
}

/// Scratch poses of one reference worker.
struct RefScratch {
    a: Pose,
    b: Pose,
    input: Pose,
    old: Pose,
    shown: Pose,
    local: Pose,
    extrapolated: Pose,
    global: Pose,
    /// Level of detail: the pose a character shows carried, and the one it
    /// shows evaluated.
    carried: Pose,
    shown_lod: Pose,
    sample: Pose,
    /// A layer's source sampled.
    layer: Pose,
    /// A copy of a character's blend hemispheres and its layers', for the
    /// pose it would have shown.
    flips: Vec<bool>,
    layer_flips: Vec<bool>,
}

impl ReferenceCrowd {
    /// The crowd skeleton.
    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }

    /// Bytes of the clips' frame tables in the configured storage, as the
    /// lanes crowd's ([`crate::crowd::Crowd::clip_table_bytes`]); the
    /// reference plays clips, the database it built is only measured.
    pub fn clip_table_bytes(&self) -> usize {
        self.clip_table_bytes
    }

    /// Number of characters.
    pub fn characters(&self) -> usize {
        self.cfg.characters
    }

    /// The clips.
    pub fn library(&self) -> &ClipLibrary {
        &self.library
    }

    /// Joint `j` of character `c` in world space.
    pub fn world_kform(&self, c: usize, j: usize) -> Option<Kform> {
        (c < self.cfg.characters && j < self.skeleton.len()).then(|| self.chars[c].world.get(j))
    }

    /// World transforms of characters `chars` into `out`, one character's
    /// joints after another, converted with `From<Kform>` from
    /// [`ReferenceCrowd::world_kform`] (unit scale, no velocities), refused
    /// with nothing written as there ([`super::Crowd::transforms_into`]).
    pub fn transforms_into<O: From<Kform>>(
        &self,
        chars: core::ops::Range<usize>,
        out: &mut [O],
    ) -> Result<()> {
        let nj = self.skeleton.len();
        check_joint_readout(&chars, self.cfg.characters, nj, out.len())?;
        // In range: `c < characters` (the range was checked), `j < nj`.
        for (o, (c, j)) in out.iter_mut().zip(joints_of(chars, nj)) {
            let k = self.chars[c].world.get(j);
            *o = O::from(Kform {
                pos: k.pos,
                rot: k.rot,
                ..Kform::IDENTITY
            });
        }
        Ok(())
    }

    /// The skinning matrices of characters `chars` into `out`, one
    /// character's joints after another: [`skinning::skin_matrix`] of each
    /// joint's world pose (unit scale) and its inverse bind matrix, as
    /// `M`'s layout holds them, refused with nothing written as there
    /// ([`super::Crowd::skinning_matrices_into`]).
    pub fn skinning_matrices_into<M: SkinMatrix>(
        &self,
        chars: core::ops::Range<usize>,
        inverse_bind: &InverseBind,
        out: &mut [M],
    ) -> Result<()> {
        self.skin_where(chars, inverse_bind, out, |_| true)
    }

    /// The skinning matrices of the characters of `chars` that `written`
    /// takes, the others' left as they are in `out`, after
    /// [`ReferenceCrowd::skinning_matrices_into`]'s checks.
    fn skin_where<M: SkinMatrix>(
        &self,
        chars: core::ops::Range<usize>,
        inverse_bind: &InverseBind,
        out: &mut [M],
        written: impl Fn(usize) -> bool,
    ) -> Result<()> {
        let nj = self.skeleton.len();
        skinning::check_joints(nj, inverse_bind)?;
        check_joint_readout(&chars, self.cfg.characters, nj, out.len())?;
        // In range: `c < characters` (the range was checked), `j < nj`, the
        // inverse bind's joint count (checked).
        let ib = inverse_bind.as_rows();
        for (o, (c, j)) in out.iter_mut().zip(joints_of(chars, nj)) {
            if !written(c) {
                continue;
            }
            let k = self.chars[c].world.get(j);
            let unit = Kform {
                pos: k.pos,
                rot: k.rot,
                ..Kform::IDENTITY
            };
            let m = skinning::skin_matrix(&unit, &ib[j]);
            *o = M::from_lanes(&m.map(|e| [e; 8]), 0);
        }
        Ok(())
    }

    /// Character `c`'s state ([`super::Crowd::state`]).
    pub fn state(&self, c: usize) -> Option<CharacterState> {
        (c < self.cfg.characters).then(|| self.states[c / 8].get(c % 8))
    }

    /// Character `c`'s layer `layer` ([`super::Crowd::layer_state`]).
    pub fn layer_state(&self, c: usize, layer: usize) -> Option<LayerState> {
        let n = self.cfg.layers.len();
        (c < self.cfg.characters && layer < n).then(|| self.layers[(c / 8) * n + layer].get(c % 8))
    }

    /// Character `c`'s world bounding box ([`super::Crowd::bounds`]).
    pub fn bounds(&self, c: usize) -> Option<super::Aabb> {
        (c < self.cfg.characters).then(|| self.chars[c].bounds)
    }

    /// The bounding boxes of characters `chars` into `out`, one per
    /// character, refused with nothing written as there
    /// ([`super::Crowd::bounds_into`]).
    pub fn bounds_into(
        &self,
        chars: core::ops::Range<usize>,
        out: &mut [super::Aabb],
    ) -> Result<()> {
        super::bounds::check_readout(&chars, self.cfg.characters, out.len())?;
        for (o, ch) in out.iter_mut().zip(&self.chars[chars]) {
            *o = ch.bounds;
        }
        Ok(())
    }

    /// The root motion taken out of character `c` in the last step
    /// ([`super::Crowd::root_motion`]).
    pub fn root_motion(&self, c: usize) -> Option<super::RootDelta> {
        (c < self.cfg.characters).then(|| self.chars[c].root_motion)
    }

    /// The root motion of characters `chars` into `out`
    /// ([`super::Crowd::root_motions_into`]: zero where the crowd applies
    /// root motion, the same refusals).
    pub fn root_motions_into(
        &self,
        chars: core::ops::Range<usize>,
        out: &mut [super::RootDelta],
    ) -> Result<()> {
        super::output::check_root_motions(&chars, self.cfg.characters, out.len())?;
        let extract = self.cfg.root_motion == super::RootMotion::Extract;
        for (o, ch) in out.iter_mut().zip(&self.chars[chars]) {
            *o = if extract {
                ch.root_motion
            } else {
                super::RootDelta::default()
            };
        }
        Ok(())
    }

    /// The last step's events ([`super::Crowd::events`]).
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Copies the last step's events into `out`, cleared first
    /// ([`super::Crowd::events_into`]).
    pub fn events_into(&self, out: &mut Vec<Event>) {
        out.clear();
        out.extend_from_slice(&self.events);
    }

    /// Character `c`'s update period and phase ([`super::Crowd::period`]).
    pub fn period(&self, c: usize) -> Option<(u32, u32)> {
        (c < self.cfg.characters).then(|| self.schedules[c / 8].get(c % 8))
    }

    /// Seconds since character `c`'s pose was last evaluated
    /// ([`super::Crowd::since_evaluated`]).
    pub fn since_evaluated(&self, c: usize) -> Option<f32> {
        (c < self.cfg.characters).then(|| self.schedules[c / 8].since_evaluated(c % 8))
    }

    /// Queues a command ([`super::Crowd::command`]).
    pub fn command(&mut self, c: usize, cmd: Command) -> Result<()> {
        budget::check_command(self.budget.budget(), &cmd)?;
        self.queue.push(&self.cfg, &self.library, c, cmd)
    }

    /// Sets characters' significance for the budget allocator
    /// ([`super::Crowd::set_significance`]).
    pub fn set_significance(&mut self, first: usize, values: &[f32]) -> Result<()> {
        let n = self.cfg.characters;
        budget::set_significance(&mut self.schedules, n, first, values)
    }

    /// Sets the crowd's time budget per step ([`super::Crowd::set_budget`]):
    /// the same allocator, timing this crowd's own steps.
    pub fn set_budget(&mut self, budget: Option<Budget>) -> Result<()> {
        budget::check_settable(budget, self.cfg.level_of_detail, self.queue.has_period())?;
        self.budget.set(budget, self.schedules.len())
    }

    /// The budget set, if any ([`super::Crowd::budget`]).
    pub fn budget(&self) -> Option<Budget> {
        self.budget.budget()
    }

    super::command::command_shorthands!();

    /// The roots of characters `first .. first + roots.len()`, all checked
    /// before any is queued ([`super::Crowd::set_roots`]).
    pub fn set_roots(&mut self, first: usize, roots: &[Root]) -> Result<()> {
        command::check_roots(self.cfg.characters, first, roots)?;
        self.queue.reserve(roots.len())?;
        for (k, root) in roots.iter().enumerate() {
            self.queue
                .push(&self.cfg, &self.library, first + k, Command::SetRoot(*root))?;
        }
        Ok(())
    }

    /// Commands queued for the next step ([`super::Crowd::queued`]).
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// The configuration ([`super::Crowd::config`]).
    pub fn config(&self) -> &CrowdConfig {
        &self.cfg
    }

    /// Moves the world's origin to `origin` ([`super::Crowd::recenter`]):
    /// every root, the roots queued for the next step, the world poses and
    /// their bounding boxes shifted by `-origin`; refused, changing nothing, as there.
    pub fn recenter(&mut self, origin: Vec3) -> Result<()> {
        super::state::check_origin(origin)?;
        let n = self.cfg.characters;
        super::state::check_recentered(&self.states, n, origin)?;
        self.queue.recenter(origin)?;
        let shift = crate::lanes::Vec3x8::splat(origin);
        for s in &mut self.states {
            s.root.pos -= shift;
        }
        for ch in &mut self.chars {
            for p in &mut ch.world.pos {
                *p -= origin;
            }
            for p in &mut ch.anchor.pos {
                *p -= origin;
            }
            ch.bounds.min -= origin;
            ch.bounds.max -= origin;
        }
        Ok(())
    }

    /// Runs one step of `dt` seconds on the current rayon pool
    /// ([`super::Crowd::step`], refusing what it refuses).
    pub fn step(&mut self, dt: f32) -> Result<FrameStats> {
        check_dt(dt)?;
        let start = self.budget.timing().map(|_| Instant::now());
        let n = self.cfg.characters;
        let queue = &self.queue;
        super::state::check_roots_after(&self.states, n, dt, |c| queue.sets_root(c))?;
        let shape = (self.skeleton.len(), self.cfg.layers.len());
        construct::grow_ref_scratch(&mut self.scratch, shape)?;
        self.queue.reserve_drain(&mut self.sorted)?;
        // The frame's commands, by character.
        self.queue.drain_sorted(&mut self.sorted);
        let commands = self.sorted.len() as u32;
        // The budget's choice of periods, then the packs, each its
        // characters' frames one at a time.
        self.budget.allocate(&mut self.schedules, n);
        self.budget.add_since(start);
        self.packs(dt);
        let start = self.budget.timing().map(|_| Instant::now());
        let stats = &self.pack_stats;
        self.frames += 1;
        let mut total = FrameStats {
            commands,
            ..FrameStats::default()
        };
        for (s, _, _) in stats {
            total.transitions += s.transitions;
            total.evaluated += s.evaluated;
            total.velocity.merge(&s.velocity);
        }
        // The events.
        self.events.clear();
        let (n, layers) = (self.cfg.characters, self.cfg.layers.len());
        let per = self.markers.per_pack().max(1);
        let packs = stats
            .iter()
            .zip(self.marks.chunks(per))
            .map(|(s, m)| (&s.1, &m[..s.2]));
        push_events(packs, n, layers, &mut self.events);
        if !self.cfg.velocity_check {
            // The check's figures are empty; output that is not finite is
            // counted all the same (issue 21).
            total.velocity = VelocityCheck {
                non_finite: total.velocity.non_finite,
                ..VelocityCheck::default()
            };
        }
        self.budget.add_since(start);
        total.budget = self.budget.finish(total.evaluated);
        Ok(total)
    }

    /// Every pack's frame ([`reference_pack`]) on the current rayon pool,
    /// with the frame's sorted commands; each pack's figures, event bits
    /// and markers crossed into `pack_stats` and `marks` (nothing
    /// allocated).
    fn packs(&mut self, dt: f32) {
        let nl = self.cfg.layers.len();
        let crowd = Crowdwide {
            cfg: &self.cfg,
            clips: self.decoded.as_deref().unwrap_or(self.library.clips()),
            parents: self.skeleton.parents(),
            layout: &self.layout,
        };
        let frame = (&self.sorted[..], &self.rows[..], self.frames, dt);
        let scratch = &self.scratch[..];
        let markers = &self.markers;
        let per = markers.per_pack().max(1);
        let (characters, weight) = (self.cfg.characters, self.cfg.marker_weight);
        let spent = self.budget.timing();
        let run =
            |p: usize, (state, sched), layers: &mut [LayerLanes], chars, out: &mut _, marks| {
                // The markers the pack's sources (the base's and the layers')
                // cross, by the 8-lane crowd's crossing rules from the same
                // state, every source and marker put through them (no
                // filter: the crowds' comparisons hold the 8-lane crowd's
                // filters to this).
                let crossed = |src: Advanced| {
                    let out = (marks, Scan::Every);
                    pack_markers(markers, src, (p, characters), (dt, weight), out)
                };
                // Each worker's own scratch (reserved by the step for every
                // thread of this pool): the lock is never contended.
                let t = rayon::current_thread_index().unwrap_or(0) % scratch.len();
                let mut s = scratch[t].lock().unwrap_or_else(|e| e.into_inner());
                let pack = (p, state, sched, layers, chars);
                let start = spent.map(|_| Instant::now());
                *out = reference_pack(&crowd, frame, pack, &mut s, crossed);
                if let (Some(spent), Some(t)) = (spent, start) {
                    add_elapsed(spent, t);
                }
            };
        let packs = self
            .states
            .par_iter_mut()
            .zip(self.schedules.par_iter_mut())
            .zip(self.chars.par_chunks_mut(8))
            .zip(self.pack_stats.par_iter_mut())
            .zip(self.marks.par_chunks_mut(per));
        match nl {
            // `par_chunks_mut` refuses 0: each pack's layers are empty.
            0 => packs
                .enumerate()
                .for_each(|(p, ((((state, sched), chars), out), marks))| {
                    run(p, (state, sched), &mut [], chars, out, marks)
                }),
            _ => packs
                .zip(self.layers.par_chunks_mut(nl))
                .enumerate()
                .for_each(|(p, (((((state, sched), chars), out), marks), layers))| {
                    run(p, (state, sched), layers, chars, out, marks)
                }),
        }
    }
}

/// Each `(character, joint)` of characters `chars`, characters in turn.
fn joints_of(
    chars: core::ops::Range<usize>,
    joints: usize,
) -> impl Iterator<Item = (usize, usize)> {
    chars.flat_map(move |c| (0..joints).map(move |j| (c, j)))
}
