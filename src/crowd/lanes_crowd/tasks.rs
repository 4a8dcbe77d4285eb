//! A crowd's step, as a frame a caller can run on any threads: what
//! ozz-animation's jobs are, thread-agnostic. [`Crowd::prepare`] plans the
//! frame (the queued commands sorted, each pack's share of them, the
//! characters that transition); the poses those characters would have
//! shown are computed in batches of eight ([`PreparedStep::shown`]); then
//! each pack's passes ([`PreparedStep::packs`]); then
//! [`PreparedStep::finish`] gathers the events and the figures. Both
//! middle parts hand out runs of work ([`ShownRange`], [`PackRange`], in
//! `runs`) that split into disjoint runs and run from any thread, each at
//! most once; whatever was not run is run by the next part, so the frame
//! always completes, and its output is bit-identical to [`Crowd::step`]'s
//! for any split and any threads. [`Crowd::step`] runs the same parts on
//! the current rayon pool.

use std::time::Instant;

use super::runs::{Kit, PackRange, ShownRange};
use super::{Crowd, check_dt};
use crate::crowd::command::Command;
use crate::crowd::halflives::Fit;
use crate::crowd::motion::{Motionx8, TurnOffsetx8};
use crate::crowd::passes::{self, Ahead, Shared};
use crate::crowd::store::{PackPlan, PackStore};
use crate::crowd::{FrameStats, RootMotion, Sampling, Transition, VelocityCheck};
use crate::error::Result;

impl Crowd {
    /// Advances every character by `dt` seconds (the game's frame time,
    /// which may change from step to step), applies the queued commands,
    /// and writes the world poses, on the current rayon pool: the frame
    /// [`Crowd::prepare`] plans, its shown poses and its packs run by
    /// rayon, then finished (from a thread outside every pool, such as a
    /// game's main thread: on rayon's global pool, entered once a frame,
    /// so that pool must be free to run it, however small the crowd).
    /// Output is bit-identical for any number of threads. Refuses a `dt` that is not finite and in `(0, 1000]`,
    /// changing nothing; so is a step that would move a root (one not
    /// given a root for this step) out of ±[`crate::limits::MAX_POSITION`]
    /// ([`crate::Error::Character`]; re-centre the world with
    /// [`Crowd::recenter`]), and a step whose memory cannot be had
    /// ([`crate::Error::Size`]): scratch for each thread of the pool, room
    /// for the frame's commands and shown poses.
    pub fn step(&mut self, dt: f32) -> Result<FrameStats> {
        check_dt(dt)?;
        let start = self.budget.timing().map(|_| Instant::now());
        self.reserve_workers()?;
        self.prepare_step(dt, false)?;
        let commands = self.plan();
        self.budget.add_since(start);
        let mut frame = PreparedStep {
            crowd: self,
            dt,
            commands,
            finished: false,
        };
        let run = |frame: &mut PreparedStep| {
            frame.shown().run_on_rayon();
            frame.packs().run_on_rayon();
        };
        // From a thread outside every pool (a game's main thread) both
        // parts run inside one entry into the global pool (one job
        // injected, one wake-up), where each part alone entered it, and a
        // part rayon does not split (one batch of shown poses, a crowd of
        // one pack) ran on the calling thread, which has no worker's
        // scratch and made one (tests/memory/step.rs).
        match rayon::current_thread_index() {
            Some(_) => run(&mut frame),
            None => rayon::scope(|_| run(&mut frame)),
        }
        Ok(frame.finish())
    }

    /// Prepares a step of `dt` seconds for a caller to run on threads of
    /// its own ([`PreparedStep`]): the queued commands are taken and
    /// planned per pack, and nothing else changes until the frame's parts
    /// run.
    /// Refuses a `dt` that is not finite and in `(0, 1000]`, changing
    /// nothing; so is a step that would move a root out of
    /// ±[`crate::limits::MAX_POSITION`], as [`Crowd::step`], or whose
    /// memory cannot be had ([`crate::Error::Size`]: room for the frame's
    /// commands and shown poses, and one scratch for the thread that holds
    /// the frame). Nothing is reserved for rayon's workers: each thread of
    /// the caller's that runs a part makes its scratch the first time
    /// (fallibly: a thread whose scratch cannot be had leaves its run to
    /// the frame's next part) and the crowd keeps it for the next frame. The frame borrows the crowd until it is finished (or
    /// dropped, which finishes it). Each part is a run of work that splits
    /// into runs for as many threads or tasks as the caller likes:
    ///
    /// ```
    /// # use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig};
    /// # let library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
    /// # let mut crowd = Crowd::new(&library, CrowdConfig { characters: 100, ..Default::default() })?;
    /// let mut frame = crowd.prepare(1.0 / 60.0)?;
    /// std::thread::scope(|s| {
    ///     for part in frame.shown().split(2) {
    ///         s.spawn(move || part.run());
    ///     }
    /// });
    /// std::thread::scope(|s| {
    ///     for part in frame.packs().split(2) {
    ///         s.spawn(move || part.run());
    ///     }
    /// });
    /// let stats = frame.finish();
    /// # assert_eq!(stats.commands, 0);
    /// # Ok::<(), kineform::Error>(())
    /// ```
    ///
    /// `examples/own_threads.rs` runs a crowd so. An engine's job system
    /// hands the runs to its scoped tasks the same way (one `part.run()`
    /// each). The runs' sizes are the caller's to choose: a pack of eight
    /// characters of the CMU skeleton takes about 3 µs on one core of this
    /// project's machines (PERF.md: 10,000 characters, 1,250 packs, in
    /// about 4 ms on one thread), a batch of shown poses less.
    pub fn prepare(&mut self, dt: f32) -> Result<PreparedStep<'_>> {
        check_dt(dt)?;
        let start = self.budget.timing().map(|_| Instant::now());
        // Issue 21: the root domain, and the frame's memory reserved
        // fallibly, before anything changes.
        self.prepare_step(dt, true)?;
        let commands = self.plan();
        self.budget.add_since(start);
        Ok(PreparedStep {
            crowd: self,
            dt,
            commands,
            finished: false,
        })
    }

    /// The frame's plan: the queued commands sorted by character, and for
    /// each pack its commands among them and where its transitioning
    /// characters are among the frame's (whose shown poses get room);
    /// every pack marked not run; the budget's periods where one is set.
    /// Returns the number of commands given.
    fn plan(&mut self) -> u32 {
        self.queue.drain_sorted(&mut self.sorted);
        let given = self
            .sorted
            .len()
            .saturating_add(std::mem::take(&mut self.roots_given));
        let (sorted, movers) = (&self.sorted, &mut self.shown.movers);
        movers.clear();
        let mut next = 0;
        for (p, plan) in self.packs.plan.iter_mut().enumerate() {
            let (from, first_mover) = (next, movers.len());
            while next < sorted.len() && (sorted[next].0 as usize) < (p + 1) * 8 {
                let c = sorted[next].0;
                let moving = matches!(
                    sorted[next].1,
                    Command::Transition { .. } | Command::TransitionLayer { .. }
                );
                if moving && movers.last() != Some(&c) {
                    movers.push(c);
                }
                next += 1;
            }
            *plan = PackPlan {
                commands: (from, next),
                first_mover,
            };
        }
        for r in &mut self.packs.result {
            r.ran = false;
        }
        self.shown.plan(&self.rest);
        // The budget's choice of periods, before any pack runs.
        let n = self.cfg.characters;
        self.budget.allocate(&mut self.packs.schedule, n);
        u32::try_from(given).unwrap_or(u32::MAX)
    }

    /// What the frame's parts read (the shown poses left empty), and what
    /// they change: the store and the shown poses.
    fn parts(&mut self, dt: f32) -> (Shared<'_>, &mut PackStore, &mut passes::ShownPoses, Kit<'_>) {
        let (world_ahead, kept_ahead) = self.ahead();
        let Crowd {
            cfg,
            db,
            skeleton,
            rows,
            tracks,
            turning,
            rest,
            packs,
            scratch,
            sorted,
            budget,
            shown,
            frames,
            markers,
            layout,
            layer_passes,
            radii,
            fetch_ahead,
            ..
        } = self;
        let sh = Shared {
            parents: skeleton.parents(),
            tracks,
            radii: (!cfg.joint_radii.is_empty()).then_some(&radii[..]),
            rows,
            commands: sorted,
            shown: &[],
            world_ahead,
            kept_ahead,
            fetch: *fetch_ahead,
            packs: packs.count,
            characters: cfg.characters,
            first: *frames == 0,
            frame: *frames,
            dt,
            check: cfg.velocity_check,
            extract: cfg.root_motion == RootMotion::Extract,
            lod: cfg.level_of_detail,
            up: cfg.up_axis().vec(),
            root_layered: layout.covers_root(),
            fit: cfg.fit().map(Fit::new),
            markers,
            marker_weight: cfg.marker_weight,
            layers: layer_passes,
            layout,
            db,
        };
        let kit = Kit {
            scratch,
            rest,
            turning: *turning,
            moving: sh.db.moving_joints(),
            layers: cfg.layers.len(),
            cubic: cfg.sampling == Sampling::Cubic,
            inert: cfg.transition == Transition::Inertialize,
            spent: budget.timing(),
        };
        (sh, packs, shown, kit)
    }

    /// Pack 0's world output (a head and a tail) and kept state (turn
    /// offsets, or transition poses) as regions each pack prefetches for
    /// the next while it runs ([`Shared::world_ahead`]): a third of the
    /// world output in the first pass, the rest with the kept state in the
    /// second (about twice as long), so that the fetching runs at about
    /// the same rate through both. None where the crowd does not fetch
    /// ahead (`Crowd::fetch_ahead`: its store is at most half the L3).
    fn ahead(&self) -> ([Ahead; 2], Ahead) {
        if !self.fetch_ahead {
            return ([Ahead::NONE; 2], Ahead::NONE);
        }
        let j = self.skeleton.len();
        let parts = j - 1;
        let region = |at: *const u8, len: usize| match len {
            0 => Ahead::NONE,
            _ => Ahead::new(at as usize, len, parts),
        };
        let kept = match self.cfg.transition {
            Transition::Inertialize => region(
                self.packs.turns.as_ptr().cast(),
                self.turning * size_of::<TurnOffsetx8>(),
            ),
            Transition::DeadBlend => region(
                self.packs.transition.as_ptr().cast(),
                j * size_of::<Motionx8>(),
            ),
        };
        let world_len = j * size_of::<Motionx8>();
        let head = (world_len / 3).next_multiple_of(64).min(world_len);
        let world: *const u8 = self.packs.world.as_ptr().cast();
        let world = [
            region(world, head),
            region(world.wrapping_add(head), world_len - head),
        ];
        (world, kept)
    }
}

/// A crowd's step prepared for a caller's threads ([`Crowd::prepare`]), as
/// ozz-animation's jobs are: thread-agnostic. Its parts, in order: the
/// poses that the characters starting a transition would have shown
/// ([`PreparedStep::shown`], batches of eight characters from any packs),
/// each pack's passes ([`PreparedStep::packs`]), then
/// [`PreparedStep::finish`], which gathers the events and the figures.
/// Both middle parts hand out runs of work ([`ShownRange`],
/// [`PackRange`]) that split into disjoint runs and run from any thread,
/// each batch and pack at most once; whatever was not run is run by the
/// next part, on its calling thread, so the frame always completes, and
/// its output is bit-identical to [`Crowd::step`]'s for any split and any
/// threads ([`Crowd::step`] runs the same parts on the current rayon
/// pool).
///
/// It holds the crowd until it is finished; dropped unfinished, it
/// finishes the frame on the dropping thread (unless that thread is
/// panicking), so the crowd never keeps half a step. Each thread that
/// runs a part uses a scratch of about 75 KB for the CMU skeleton: a
/// rayon worker its own (reserved by [`Crowd::step`]), any other thread
/// one the crowd keeps for it (made the first time it is needed, with
/// `try_reserve`; a thread whose scratch cannot be had runs nothing, and
/// its run is left to the next part, which runs on the thread holding the
/// frame with the scratch [`Crowd::prepare`] reserved for it).
pub struct PreparedStep<'c> {
    crowd: &'c mut Crowd,
    dt: f32,
    commands: u32,
    finished: bool,
}

impl PreparedStep<'_> {
    /// The step, seconds.
    pub fn dt(&self) -> f32 {
        self.dt
    }

    /// The poses that the frame's transitioning characters would have
    /// shown without their commands, where their transitions start: a run
    /// of batches of eight characters (from any packs) to split among
    /// threads, empty when no character transitions. Each batch is
    /// computed at most once, whatever runs it; batches not run by the
    /// time [`PreparedStep::packs`] is called are computed there.
    pub fn shown(&mut self) -> ShownRange<'_> {
        let (sh, store, shown, kit) = self.crowd.parts(self.dt);
        let joints = sh.parents.len();
        ShownRange {
            sh,
            store,
            batches: shown.all_mut(joints),
            kit,
        }
    }

    /// Every pack of the crowd, to step: a run to split among threads.
    /// The shown poses not computed yet are computed first, on this
    /// thread. Each pack steps at most once, whatever runs it; packs not
    /// run by the time [`PreparedStep::finish`] is called are run there.
    pub fn packs(&mut self) -> PackRange<'_> {
        self.shown().run();
        let (mut sh, store, shown, kit) = self.crowd.parts(self.dt);
        sh.shown = &shown.poses;
        PackRange {
            sh,
            packs: store.all_mut(),
            kit,
        }
    }

    /// Finishes the frame: whatever has not run yet runs here, then the
    /// step's events ([`Crowd::events`]) and its figures, the same as
    /// [`Crowd::step`]'s.
    pub fn finish(mut self) -> FrameStats {
        self.complete()
    }

    fn complete(&mut self) -> FrameStats {
        self.packs().run();
        debug_assert!(
            self.crowd.packs.result.iter().all(|r| r.ran),
            "the frame's holder always has a scratch"
        );
        self.finished = true;
        let crowd = &mut *self.crowd;
        let start = crowd.budget.timing().map(|_| Instant::now());
        crowd.frames += 1;
        crowd.collect_events();
        let mut stats = FrameStats {
            commands: self.commands,
            ..FrameStats::default()
        };
        let mut check = VelocityCheck::default();
        for r in &crowd.packs.result {
            stats.transitions += r.transitions;
            stats.evaluated += r.evaluated;
            check.merge(&r.check);
        }
        stats.velocity = check;
        crowd.budget.add_since(start);
        stats.budget = crowd.budget.finish(stats.evaluated);
        stats
    }
}

impl core::fmt::Debug for PreparedStep<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PreparedStep")
            .field("dt", &self.dt)
            .field("commands", &self.commands)
            .field("packs", &self.crowd.packs.count)
            .finish_non_exhaustive()
    }
}

impl Drop for PreparedStep<'_> {
    fn drop(&mut self) {
        if !self.finished && !std::thread::panicking() {
            self.complete();
        }
    }
}
