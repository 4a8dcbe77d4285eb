//! [`Crowd`]: eight characters per pack, packs across cores. This file
//! holds the struct and the state it keeps, the commands a game gives it
//! (queued for the next step), and [`Crowd::step`], the frame's driver:
//! the frame's commands sorted, the shown poses of the characters that
//! transition, then each pack's passes ([`super::passes`]) in parallel.
//! Building a crowd is in `construct`.

pub(super) mod construct;

use std::sync::Mutex;

use rayon::prelude::*;

use super::command::{self, Command, Queue, Which};
use super::motion::{Motionx8, ShiftOffsetx8, Track, TurnOffsetx8};
use super::passes::{self, Ahead, Kept, PackScratch, PackState, RootMotionx8, Shared};
use super::state::{CharacterState, ClipRows, Statex8};
use super::{ClipEnd, ClipLibrary, CrowdConfig, FrameStats, Root, RootMotion, Sampling, Source};
use super::{Transition, VelocityCheck};
use crate::database::Database;
use crate::error::{Error, Result};
use crate::lanes::Vec3x8;
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
    pub(crate) states: Vec<Statex8>,
    /// Inertialization offsets, pack-major: rotational halves for every
    /// turning joint, positional halves for the joints whose position moves.
    turns: Vec<TurnOffsetx8>,
    shifts: Vec<ShiftOffsetx8>,
    /// Dead blending's transition poses, pack-major, and per pack and joint
    /// which characters' relative rotations are taken negated (bit `i` for
    /// character `8p + i`): chosen the short way round at a transition and
    /// kept until the next, so that they move continuously (the database's
    /// rotations have no sign jumps, [`crate::Clip::with_continuous_rotations`];
    /// [`crate::reference::op_dead_blending`]).
    transition: Vec<Motionx8>,
    dead_flips: Vec<u8>,
    /// Dead blending's fitted half-lives ([`super::DeadBlendHalflives::Fitted`];
    /// empty otherwise), pack-major, per axis: rotations for every turning
    /// joint, positions for the joints whose position moves (the rows of
    /// `turns` and `shifts`).
    fit_rot: Vec<Vec3x8>,
    fit_pos: Vec<Vec3x8>,
    /// Per pack and joint, which characters' two-source blends take their
    /// relative rotation negated: chosen the short way round when the
    /// sources change at once (a command, a wrap around a clip) and kept
    /// until then, so that a blend stays continuous however far apart its
    /// sources turn (with [`crate::Clip::with_continuous_rotations`]).
    ab_flips: Vec<u8>,
    pub(crate) world: Vec<Motionx8>,
    pub(crate) root_motion: Vec<RootMotionx8>,
    tracks: Vec<Track>,
    turning: usize,
    /// A local pose at rest: joints with a fixed position at it, still
    /// joints at their constant pose.
    rest: Vec<Motionx8>,
    /// One scratch per rayon worker, kept across frames.
    scratch: Vec<Mutex<PackScratch>>,
    queue: Queue,
    /// Roots given since the last step ([`Command::SetRoot`]), per pack,
    /// and which lanes hold one (bits). A root command touches nothing any
    /// other command reads or writes, so the last one given per character
    /// is kept here, out of the queue, and set before the queued commands
    /// run, as if it had been queued: the same result, and a game that
    /// moves every root every frame pays a store per root.
    root_next: Vec<Root>,
    root_set: Vec<u8>,
    roots_given: usize,
    /// The frame's commands, sorted by character (reused).
    sorted: Vec<(u32, Command)>,
    /// The frame's transitioning characters in order, per pack the index of
    /// its first one among them, and the poses they would have shown.
    movers: Vec<u32>,
    first_mover: Vec<u32>,
    shown: Vec<Motionx8>,
    /// Per pack, what happened this step (bits): source A ended, source B
    /// ended, a transition finished, a transition started.
    pub(crate) pack_events: Vec<[u8; 4]>,
    pub(crate) events: Vec<super::Event>,
    pub(crate) frames: u64,
}

pub use crate::limits::MAX_STEP;

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
        (c < self.cfg.characters).then(|| self.states[c / 8].get(c % 8))
    }

    /// Queues `cmd` for character `c`, applied at the next step (see
    /// [`super::command`] for the order). Refused, with nothing queued,
    /// when `c` or anything in the command is out of range.
    pub fn command(&mut self, c: usize, cmd: Command) -> Result<()> {
        match cmd {
            Command::SetRoot(root) => {
                Queue::check(self.cfg.characters, &self.library, c, &cmd)?;
                self.stage_root(c, &root);
                Ok(())
            }
            _ => self.queue.push(self.cfg.characters, &self.library, c, cmd),
        }
    }

    /// Keeps a checked root for the next step; the step writes it into
    /// its pack's lanes (on the pack's thread).
    fn stage_root(&mut self, c: usize, root: &Root) {
        self.root_next[c] = *root;
        self.root_set[c / 8] |= 1 << (c % 8);
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
        self.root_next[first..end].copy_from_slice(roots);
        for c in first..end {
            self.root_set[c / 8] |= 1 << (c % 8);
        }
        self.roots_given = self.roots_given.saturating_add(roots.len());
        Ok(())
    }

    /// [`Command::Play`].
    pub fn play(&mut self, c: usize, a: Source, b: Source) -> Result<()> {
        self.command(c, Command::Play { a, b })
    }

    /// [`Command::Transition`].
    pub fn transition(
        &mut self,
        c: usize,
        a: Source,
        b: Source,
        duration: f32,
        halflife: f32,
    ) -> Result<()> {
        self.command(
            c,
            Command::Transition {
                a,
                b,
                duration,
                halflife,
            },
        )
    }

    /// [`Command::SetWeight`].
    pub fn set_weight(&mut self, c: usize, weight: f32) -> Result<()> {
        self.command(c, Command::SetWeight { weight })
    }

    /// [`Command::WeightToward`].
    pub fn weight_toward(&mut self, c: usize, target: f32, halflife: f32) -> Result<()> {
        self.command(c, Command::WeightToward { target, halflife })
    }

    /// [`Command::SetRate`].
    pub fn set_rate(&mut self, c: usize, source: Which, rate: f32) -> Result<()> {
        self.command(c, Command::SetRate { source, rate })
    }

    /// [`Command::SetEnd`].
    pub fn set_end(&mut self, c: usize, source: Which, end: ClipEnd) -> Result<()> {
        self.command(c, Command::SetEnd { source, end })
    }

    /// [`Command::SetRoot`].
    pub fn set_root(&mut self, c: usize, root: Root) -> Result<()> {
        self.command(c, Command::SetRoot(root))
    }

    /// Commands queued for the next step.
    pub fn queued(&self) -> usize {
        self.queue.len().saturating_add(self.roots_given)
    }

    /// Advances every character by `dt` seconds (the game's frame time,
    /// which may change from step to step), applies the queued commands,
    /// and writes the world poses, on the current rayon pool. Output is
    /// bit-identical for any number of threads. Refuses, changing nothing:
    /// a `dt` that is not finite and in `(0, 1000]`; a step that would move
    /// a root (one not given a root for this step) out of
    /// ±[`crate::limits::MAX_POSITION`], the positions a command may set
    /// ([`Error::Character`]; re-centre the world with
    /// [`Crowd::recenter`]); memory for the step's scratch (one per thread
    /// of the pool, the transitioning characters' poses) that cannot be
    /// had ([`Error::Size`]).
    pub fn step(&mut self, dt: f32) -> Result<FrameStats> {
        check_dt(dt)?;
        self.prepare_step(dt)?;
        Ok(match (self.cfg.sampling, self.cfg.transition) {
            (Sampling::Linear, Transition::Inertialize) => self.step_with::<false, true>(dt),
            (Sampling::Linear, Transition::DeadBlend) => self.step_with::<false, false>(dt),
            (Sampling::Cubic, Transition::Inertialize) => self.step_with::<true, true>(dt),
            (Sampling::Cubic, Transition::DeadBlend) => self.step_with::<true, false>(dt),
        })
    }

    fn step_with<const CUBIC: bool, const INERT: bool>(&mut self, dt: f32) -> FrameStats {
        let j = self.skeleton.len();
        let parts = j - 1;
        let packs = self.states.len();
        let (turning, moving) = (self.turning, self.db.moving_joints());
        // One scratch per thread of this pool: reserved by `prepare_step`.
        let (rest, scratch) = (&self.rest, &self.scratch[..]);
        let make = || PackScratch::new(rest, turning, moving);
        let region = |at: *const u8, len: usize| match len {
            0 => Ahead::NONE,
            _ => Ahead::new(at as usize, len, parts),
        };
        let kept_ahead = match INERT {
            true => region(
                self.turns.as_ptr().cast(),
                turning * size_of::<TurnOffsetx8>(),
            ),
            false => region(self.transition.as_ptr().cast(), j * size_of::<Motionx8>()),
        };
        // A third of the world output in the first pass, the rest with the
        // kept state in the second (about twice as long): the fetching runs
        // at about the same rate through both.
        let world_len = j * size_of::<Motionx8>();
        let head = (world_len / 3).next_multiple_of(64).min(world_len);
        let world: *const u8 = self.world.as_ptr().cast();
        let world_ahead = [
            region(world, head),
            region(world.wrapping_add(head), world_len - head),
        ];
        let mut shared = Shared {
            db: &self.db,
            parents: self.skeleton.parents(),
            tracks: &self.tracks,
            rows: &self.rows,
            shown: &[],
            world_ahead,
            kept_ahead,
            packs,
            characters: self.cfg.characters,
            first: self.frames == 0,
            frame: self.frames,
            dt,
            check: self.cfg.velocity_check,
            extract: self.cfg.root_motion == RootMotion::Extract,
            fit: self.cfg.fit().map(super::halflives::Fit::new),
        };

        // The frame's commands, by character; the characters that
        // transition, in order, with per pack the index of its first.
        self.queue.drain_sorted(&mut self.sorted);
        let given = self
            .sorted
            .len()
            .saturating_add(std::mem::take(&mut self.roots_given));
        let commands = u32::try_from(given).unwrap_or(u32::MAX);
        self.movers.clear();
        self.first_mover.clear();
        let mut next = 0;
        for p in 0..packs {
            self.first_mover.push(self.movers.len() as u32);
            while next < self.sorted.len() && (self.sorted[next].0 as usize) < (p + 1) * 8 {
                let c = self.sorted[next].0;
                let moving = matches!(self.sorted[next].1, Command::Transition { .. });
                if moving && self.movers.last() != Some(&c) {
                    self.movers.push(c);
                }
                next += 1;
            }
        }
        // The poses they would have shown, eight at a time across packs.
        // Batches start at rest, as the scratch poses do: the passes write
        // only what moves.
        let batches = self.movers.len().div_ceil(8);
        while self.shown.len() < batches * j {
            self.shown.extend_from_slice(&self.rest);
        }
        let kept = Kept {
            states: &self.states,
            turns: &self.turns,
            shifts: &self.shifts,
            transition: &self.transition,
            dead_flips: &self.dead_flips,
            ab_flips: &self.ab_flips,
            fit_rot: &self.fit_rot,
            fit_pos: &self.fit_pos,
            turning,
            moving,
        };
        self.shown[..batches * j]
            .par_chunks_mut(j)
            .zip(self.movers.par_chunks(8))
            .for_each(|(out, movers)| {
                with_scratch_shown::<CUBIC, INERT>(&shared, movers, &kept, out, scratch, &make)
            });
        shared.shown = &self.shown;

        // Each pack gets its slices of the state and of the commands.
        let turns = passes::per_pack(&mut self.turns, turning, packs);
        let shifts = passes::per_pack(&mut self.shifts, moving, packs);
        let transitions = passes::per_pack(&mut self.transition, j, packs);
        let flips = passes::per_pack(&mut self.dead_flips, j, packs);
        let fit_rot = passes::per_pack(&mut self.fit_rot, turning, packs);
        let fit_pos = passes::per_pack(&mut self.fit_pos, moving, packs);
        let ab = self.ab_flips.chunks_mut(j);
        let sorted = &self.sorted[..];
        let mut cursor = 0;
        let mut state: Vec<PackState> = Vec::with_capacity(packs);
        let roots = self.root_next.chunks(8).zip(self.root_set.iter_mut());
        let per_state = self
            .states
            .iter_mut()
            .zip(self.root_motion.iter_mut().zip(roots));
        let per_pack = per_state.zip(self.pack_events.iter_mut().zip(&self.first_mover));
        let fit = fit_rot.into_iter().zip(fit_pos);
        for (
            p,
            (
                (
                    (
                        ((turns, shifts), (transition, dead_flips)),
                        ((s, (rm, root)), (events, &first)),
                    ),
                    ab_flips,
                ),
                (fit_rot, fit_pos),
            ),
        ) in turns
            .into_iter()
            .zip(shifts)
            .zip(transitions.into_iter().zip(flips))
            .zip(per_pack)
            .zip(ab)
            .zip(fit)
            .enumerate()
        {
            let from = cursor;
            while cursor < sorted.len() && (sorted[cursor].0 as usize) < (p + 1) * 8 {
                cursor += 1;
            }
            state.push(PackState {
                state: s,
                turns,
                shifts,
                transition,
                dead_flips,
                ab_flips,
                fit_rot,
                fit_pos,
                root_motion: rm,
                root: (root.0, std::mem::take(root.1)),
                commands: &sorted[from..cursor],
                first_mover: first as usize,
                events,
            });
        }
        let results: Vec<passes::PackResult> = self
            .world
            .par_chunks_mut(j)
            .zip(state)
            .enumerate()
            .map(|(p, (world, st))| {
                passes::with_scratch(scratch, make, |s| {
                    passes::step_pack::<CUBIC, INERT>(&shared, p, world, st, s)
                })
            })
            .collect();
        self.frames += 1;
        self.collect_events();
        let mut stats = FrameStats {
            commands,
            ..FrameStats::default()
        };
        let mut check = VelocityCheck::default();
        for r in &results {
            stats.transitions += r.transitions;
            check.merge(&r.check);
        }
        stats.velocity = check;
        stats
    }
}

/// [`passes::shown_batch`] with the calling worker's scratch.
fn with_scratch_shown<const CUBIC: bool, const INERT: bool>(
    shared: &Shared,
    movers: &[u32],
    kept: &Kept,
    out: &mut [Motionx8],
    scratch: &[Mutex<PackScratch>],
    make: &dyn Fn() -> PackScratch,
) {
    passes::with_scratch(scratch, make, |s| {
        passes::shown_batch::<CUBIC, INERT>(shared, movers, kept, out, s)
    })
}
