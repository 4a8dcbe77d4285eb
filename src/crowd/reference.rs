//! [`ReferenceCrowd`]: the same frame through [`crate::reference`], one
//! character at a time (`kineform crowd --scalar`). It keeps its
//! characters' state and applies their commands with the 8-lane crowd's
//! code ([`super::state`]), so the same commands give the same schedule bit
//! for bit; every pose is then computed by the scalar reference: sampling,
//! blending, inertialization or dead blending, root motion, forward
//! kinematics with velocities, and the velocity check.

use std::sync::Mutex;

use rayon::prelude::*;

use super::Transition;
use super::check::GapAt;
use super::command::{self, Command, Queue, Which};
use super::lanes_crowd::check_dt;
use super::lanes_crowd::construct::{NO_EVENT, marker_bytes, too_big_events};
use super::lanes_crowd::construct::{
    clip_rows, crowd_skeleton, stated_bytes, try_vec, with_stated,
};
use super::markers::{MarkerTable, pack_markers};
use super::output::push_events;
use super::state::{ClipRows, Spanx8, Statex8, Stepx8};
use super::{CharacterState, Event, VelocityCheck};
use super::{ClipEnd, ClipLibrary, CrowdConfig, FrameStats, Root, RootMotion, Sampling, Source};
use crate::clip::Clip;
use crate::database::Database;
use crate::error::{Error, Result};
use crate::lanes::F32x8;
use crate::reference::{self as r, Kform, Pose, Vec3};
use crate::skeleton::Skeleton;

/// The same crowd through the scalar reference, one character at a time.
pub struct ReferenceCrowd {
    cfg: CrowdConfig,
    library: ClipLibrary,
    skeleton: Skeleton,
    rows: Vec<ClipRows>,
    states: Vec<Statex8>,
    chars: Vec<RefState>,
    queue: Queue,
    sorted: Vec<(u32, Command)>,
    /// One scratch per rayon worker, kept across frames (reserved before
    /// each step, fallibly).
    scratch: Vec<Mutex<RefScratch>>,
    /// The last step's events ([`super::Crowd::events`]), with room for
    /// a step's most.
    events: Vec<Event>,
    /// Every clip's markers, sorted, and each pack's room for the markers
    /// its sources cross in a step ([`MarkerTable::per_pack`], at least 1).
    markers: MarkerTable,
    marks: Vec<Event>,
    frames: u64,
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
    /// [`Clip::with_continuous_rotations`]).
    dead_flip: Vec<bool>,
    /// Per joint, whether the two-source blend's relative rotation is taken
    /// negated: chosen the short way round when the sources change at once
    /// (a command, a wrap around a clip) and kept until then.
    ab_flip: Vec<bool>,
    /// Dead blending's half-lives per joint and axis, positions and
    /// rotations, fitted at the last transition (empty unless the crowd
    /// fits them, [`super::DeadBlendHalflives::Fitted`]).
    fit_pos: Vec<Vec3>,
    fit_rot: Vec<Vec3>,
    world: Pose,
    /// Root motion taken out last step (x, z in the root's frame), and this
    /// step's world displacement and velocity.
    removed: (f32, f32),
    root_motion: (Vec3, Vec3),
}

/// A pose of `joints` joints at rest, every field reserved with
/// `try_reserve` ([`Error::Size`] naming `what`).
fn try_pose(what: &'static str, joints: usize) -> Result<Pose> {
    let v = |one| try_vec(what, joints, one);
    Ok(Pose {
        pos: v(Vec3::ZERO)?,
        rot: try_vec(what, joints, r::Quat::IDENTITY)?,
        scl: v(Vec3::ONE)?,
        vel: v(Vec3::ZERO)?,
        ang: v(Vec3::ZERO)?,
        svl: v(Vec3::ZERO)?,
    })
}

/// Bytes of one pose of `joints` joints.
fn pose_bytes(joints: usize) -> Option<usize> {
    joints.checked_mul(5 * size_of::<Vec3>() + size_of::<r::Quat>())
}

impl RefState {
    /// Bytes of one character's kept state for `joints` joints (`fits`
    /// fitted half-lives per axis).
    fn bytes(joints: usize, fits: usize) -> Option<usize> {
        pose_bytes(joints)?
            .checked_mul(3)?
            .checked_add(joints.checked_mul(2)?)?
            .checked_add(fits.checked_mul(2 * size_of::<Vec3>())?)?
            .checked_add(size_of::<RefState>())
    }

    /// One character's kept state, reserved with `try_reserve`.
    fn try_new(joints: usize, fits: usize) -> Result<RefState> {
        const WHAT: &str = "reference crowd poses";
        Ok(RefState {
            offset: try_pose(WHAT, joints)?,
            transition: try_pose(WHAT, joints)?,
            dead_flip: try_vec(WHAT, joints, false)?,
            ab_flip: try_vec(WHAT, joints, false)?,
            fit_pos: try_vec(WHAT, fits, Vec3::splat(0.2))?,
            fit_rot: try_vec(WHAT, fits, Vec3::splat(0.2))?,
            world: try_pose(WHAT, joints)?,
            removed: (0.0, 0.0),
            root_motion: (Vec3::ZERO, Vec3::ZERO),
        })
    }
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
    sample: Pose,
    /// A copy of a character's blend hemispheres, for the pose it would
    /// have shown.
    flips: Vec<bool>,
}

impl RefScratch {
    /// Bytes of one worker's scratch for `joints` crowd joints.
    fn bytes(joints: usize) -> Option<usize> {
        pose_bytes(joints)?.checked_mul(9)?.checked_add(joints)
    }

    /// One worker's scratch, reserved with `try_reserve`.
    fn try_new(j: usize) -> Result<RefScratch> {
        const WHAT: &str = "a reference worker's scratch";
        let p = || try_pose(WHAT, j);
        Ok(RefScratch {
            a: p()?,
            b: p()?,
            input: p()?,
            old: p()?,
            shown: p()?,
            local: p()?,
            extrapolated: p()?,
            global: p()?,
            sample: try_pose(WHAT, j - 1)?,
            flips: try_vec(WHAT, j, false)?,
        })
    }
}

/// One scratch per thread of the current rayon pool in `scratch` (those
/// missing added, fallibly).
fn grow_ref_scratch(scratch: &mut Vec<Mutex<RefScratch>>, joints: usize) -> Result<()> {
    let threads = rayon::current_num_threads();
    if scratch.len() >= threads {
        return Ok(());
    }
    scratch
        .try_reserve_exact(threads - scratch.len())
        .map_err(|_| Error::Size {
            what: "a reference worker's scratch",
            reason: format!("room for {threads} workers could not be reserved"),
        })?;
    while scratch.len() < threads {
        scratch.push(Mutex::new(RefScratch::try_new(joints)?));
    }
    Ok(())
}

/// One character's step, read out of its pack's lanes.
#[derive(Clone, Copy)]
struct CharStep {
    a: (usize, f32, f32),
    b: (usize, f32, f32),
    w: f32,
    w_rate: f32,
    blend_time: f32,
    duration: f32,
    halflife: f32,
    root: Kform,
    /// A source wrapped around its clip this step.
    wrapped: bool,
}

fn char_step(st: &Stepx8, state: &Statex8, l: usize) -> CharStep {
    let f = |x: F32x8| x.to_array()[l];
    let clip = |s: &super::state::SourceLanes| s.clip.to_array()[l] as usize;
    CharStep {
        a: (clip(&state.a), f(st.a.time), f(st.a.rate)),
        b: (clip(&state.b), f(st.b.time), f(st.b.rate)),
        w: f(st.w),
        w_rate: f(st.w_rate),
        blend_time: f(st.blend_time),
        duration: f(st.duration),
        halflife: f(st.halflife),
        root: Kform {
            pos: st.root.pos.lane(l),
            rot: st.root.rot.lane(l),
            vel: st.root.vel.lane(l),
            ang: st.root.ang.lane(l),
            ..Kform::IDENTITY
        },
        wrapped: st.wrapped & (1 << l) != 0,
    }
}

impl ReferenceCrowd {
    /// See [`super::Crowd::new`]; clips with any scales are accepted. The
    /// size is stated and every part reserved with `try_reserve` before it
    /// is used, as there: each character's kept poses, the schedules, and
    /// one worker's scratch (nine poses) per thread of the current pool; a
    /// refusal is an [`Error::Size`] naming the part and the whole.
    pub fn new(library: &ClipLibrary, cfg: CrowdConfig) -> Result<ReferenceCrowd> {
        cfg.check()?;
        if library.is_empty() {
            return Err(Error::Length {
                what: "clips in the library",
                expected: 1,
                got: 0,
            });
        }
        let db = Database::new(library.clips())?;
        let skeleton = crowd_skeleton(library.skeleton())?;
        let j = skeleton.len();
        let rows = clip_rows(&db, library);
        let packs = cfg.characters.div_ceil(8);
        let fits = if cfg.fit().is_some() { j } else { 0 };
        // Whole packs of 8: a size within 7 of usize::MAX has no such
        // count (found by the `crowd_api` fuzz target).
        let slots = cfg
            .characters
            .checked_next_multiple_of(8)
            .ok_or(Error::Size {
                what: "reference crowd characters",
                reason: format!(
                    "{} characters do not round up to whole packs of 8 in a usize",
                    cfg.characters
                ),
            })?;
        let threads = rayon::current_num_threads();
        let total = stated_bytes(&[
            (
                "characters' kept poses",
                RefState::bytes(j, fits).and_then(|b| b.checked_mul(slots)),
            ),
            (
                "schedules",
                packs.checked_mul(size_of::<Statex8>() + size_of::<(FrameStats, [u8; 3], usize)>()),
            ),
            (
                "workers' scratch",
                RefScratch::bytes(j).and_then(|b| b.checked_mul(threads)),
            ),
            (
                "events and markers crossed",
                marker_bytes(library, cfg.characters),
            ),
        ])?;
        let markers = with_stated(MarkerTable::new(library.clips()), total)?;
        let per = markers.per_pack().max(1);
        let marks = with_stated(
            packs
                .checked_mul(per)
                .ok_or_else(too_big_events)
                .and_then(|n| try_vec("markers crossed", n, NO_EVENT)),
            total,
        )?;
        let mut events = Vec::new();
        cfg.characters
            .checked_mul(3)
            .and_then(|e| e.checked_add(packs * markers.per_pack()))
            .and_then(|e| events.try_reserve_exact(e).ok())
            .ok_or_else(too_big_events)?;
        let built = (|| -> Result<(Vec<RefState>, Vec<Mutex<RefScratch>>)> {
            let mut chars = Vec::new();
            chars.try_reserve_exact(slots).map_err(|_| Error::Size {
                what: "reference crowd poses",
                reason: format!("{slots} characters' states could not be reserved"),
            })?;
            for _ in 0..slots {
                chars.push(RefState::try_new(j, fits)?);
            }
            let mut scratch = Vec::new();
            grow_ref_scratch(&mut scratch, j)?;
            Ok((chars, scratch))
        })();
        let (chars, scratch) = with_stated(built, total)?;
        Ok(ReferenceCrowd {
            states: with_stated(
                try_vec("character states", packs, Statex8::new(rows[0])),
                total,
            )?,
            chars,
            queue: Queue::default(),
            sorted: Vec::new(),
            scratch,
            events,
            markers,
            marks,
            rows,
            skeleton,
            library: library.clone(),
            frames: 0,
            cfg,
        })
    }

    /// The crowd skeleton.
    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
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

    /// Character `c`'s state ([`super::Crowd::state`]).
    pub fn state(&self, c: usize) -> Option<CharacterState> {
        (c < self.cfg.characters).then(|| self.states[c / 8].get(c % 8))
    }

    /// The root motion taken out of character `c` in the last step
    /// ([`super::Crowd::root_motion`]).
    pub fn root_motion(&self, c: usize) -> Option<(Vec3, Vec3)> {
        (c < self.cfg.characters).then(|| self.chars[c].root_motion)
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

    /// Queues a command ([`super::Crowd::command`]).
    pub fn command(&mut self, c: usize, cmd: Command) -> Result<()> {
        self.queue.push(self.cfg.characters, &self.library, c, cmd)
    }

    /// [`Command::Play`] ([`super::Crowd::play`]).
    pub fn play(&mut self, c: usize, a: Source, b: Source) -> Result<()> {
        self.command(c, Command::Play { a, b })
    }

    /// [`Command::Transition`] ([`super::Crowd::transition`]).
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

    /// [`Command::SetWeight`] ([`super::Crowd::set_weight`]).
    pub fn set_weight(&mut self, c: usize, weight: f32) -> Result<()> {
        self.command(c, Command::SetWeight { weight })
    }

    /// [`Command::WeightToward`] ([`super::Crowd::weight_toward`]).
    pub fn weight_toward(&mut self, c: usize, target: f32, halflife: f32) -> Result<()> {
        self.command(c, Command::WeightToward { target, halflife })
    }

    /// [`Command::SetRate`] ([`super::Crowd::set_rate`]).
    pub fn set_rate(&mut self, c: usize, source: Which, rate: f32) -> Result<()> {
        self.command(c, Command::SetRate { source, rate })
    }

    /// [`Command::SetEnd`] ([`super::Crowd::set_end`]).
    pub fn set_end(&mut self, c: usize, source: Which, end: ClipEnd) -> Result<()> {
        self.command(c, Command::SetEnd { source, end })
    }

    /// [`Command::SetRoot`] ([`super::Crowd::set_root`]).
    pub fn set_root(&mut self, c: usize, root: Root) -> Result<()> {
        self.command(c, Command::SetRoot(root))
    }

    /// The roots of characters `first .. first + roots.len()`, all checked
    /// before any is queued ([`super::Crowd::set_roots`]).
    pub fn set_roots(&mut self, first: usize, roots: &[Root]) -> Result<()> {
        command::check_roots(self.cfg.characters, first, roots)?;
        self.queue.reserve(roots.len())?;
        for (k, root) in roots.iter().enumerate() {
            self.queue.push(
                self.cfg.characters,
                &self.library,
                first + k,
                Command::SetRoot(*root),
            )?;
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
    /// every root, the roots queued for the next step and the world poses
    /// shifted by `-origin`; refused, changing nothing, as there.
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
        }
        Ok(())
    }

    /// Runs one step of `dt` seconds on the current rayon pool
    /// ([`super::Crowd::step`], refusing what it refuses).
    pub fn step(&mut self, dt: f32) -> Result<FrameStats> {
        check_dt(dt)?;
        let n = self.cfg.characters;
        let queue = &self.queue;
        super::state::check_roots_after(&self.states, n, dt, |c| queue.sets_root(c))?;
        grow_ref_scratch(&mut self.scratch, self.skeleton.len())?;
        self.sorted
            .try_reserve(self.queue.len())
            .map_err(|_| Error::Size {
                what: "the step's commands",
                reason: format!(
                    "room for {} commands could not be reserved",
                    self.queue.len()
                ),
            })?;
        // The frame's commands, by character.
        self.queue.drain_sorted(&mut self.sorted);
        let commands = self.sorted.len() as u32;
        // The packs, each its characters' frames one at a time.
        let stats = self.packs(dt);
        self.frames += 1;
        let mut total = FrameStats {
            commands,
            ..FrameStats::default()
        };
        for (s, _, _) in &stats {
            total.transitions += s.transitions;
            total.velocity.merge(&s.velocity);
        }
        // The events.
        self.events.clear();
        let n = self.cfg.characters;
        let per = self.markers.per_pack().max(1);
        let packs = stats
            .iter()
            .zip(self.marks.chunks(per))
            .map(|(s, m)| (s.1, &m[..s.2]));
        push_events(packs, n, &mut self.events);
        if !self.cfg.velocity_check {
            // The check's figures are empty; output that is not finite is
            // counted all the same (issue 21).
            total.velocity = VelocityCheck {
                non_finite: total.velocity.non_finite,
                ..VelocityCheck::default()
            };
        }
        Ok(total)
    }

    /// Every pack's frame ([`reference_pack`]) on the current rayon pool,
    /// with the frame's sorted commands; each pack's figures, event bits
    /// and number of markers crossed (in its chunk of `marks`).
    fn packs(&mut self, dt: f32) -> Vec<(FrameStats, [u8; 3], usize)> {
        let crowd = (&self.cfg, self.library.clips(), self.skeleton.parents());
        let frame = (&self.sorted[..], &self.rows[..], self.frames, dt);
        let scratch = &self.scratch[..];
        let markers = &self.markers;
        let per = markers.per_pack().max(1);
        self.states
            .par_iter_mut()
            .zip(self.chars.par_chunks_mut(8))
            .zip(self.marks.par_chunks_mut(per))
            .enumerate()
            .map(|(p, ((state, chars), marks))| {
                // The markers the pack's sources cross, found with the
                // 8-lane crowd's code from the same state.
                let crossed = |state: &Statex8, spans: &[Spanx8; 2]| {
                    let at = (p, crowd.0.characters);
                    let settings = (dt, crowd.0.marker_weight);
                    pack_markers(markers, (state, spans), at, settings, marks)
                };
                // Each worker's own scratch (reserved by the step for
                // every thread of this pool): the lock is never contended.
                let t = rayon::current_thread_index().unwrap_or(0) % scratch.len();
                let mut s = scratch[t].lock().unwrap_or_else(|e| e.into_inner());
                reference_pack(crowd, frame, (p, state, chars), &mut s, crossed)
            })
            .collect()
    }
}

/// Pack `p`'s frame, as the lanes crowd's (`passes::step_pack`): its
/// characters' states advanced and their commands (among the frame's
/// `sorted` ones) applied with the same code, then each character's frame
/// through the reference ([`reference_frame`]), where it transitions from
/// the pose it would have shown without its commands; the pack's figures
/// and its events (bits per lane: source A ended, source B ended, a
/// transition finished), and the number of markers `crossed` found.
fn reference_pack(
    (cfg, clips, parents): (&CrowdConfig, &[Clip], &[i32]),
    (sorted, rows, frame, dt): (&[(u32, Command)], &[ClipRows], u64, f32),
    (p, state, chars): (usize, &mut Statex8, &mut [RefState]),
    s: &mut RefScratch,
    crossed: impl FnOnce(&Statex8, &[Spanx8; 2]) -> usize,
) -> (FrameStats, [u8; 3], usize) {
    let before = *state;
    let happened = state.advance(F32x8::splat(dt));
    let marks = crossed(state, &happened.spans);
    let lo = sorted.partition_point(|(c, _)| (*c as usize) < p * 8);
    let hi = sorted.partition_point(|(c, _)| (*c as usize) < (p + 1) * 8);
    let (mut trans, mut played) = (0u8, 0u8);
    for (c, cmd) in &sorted[lo..hi] {
        let l = *c as usize % 8;
        if state.apply(l, cmd, rows) {
            trans |= 1 << l;
        } else if matches!(cmd, Command::Play { .. }) {
            played |= 1 << l;
        }
    }
    let step = state.step(happened);
    let events = [step.ended_a, step.ended_b, step.finished & !trans];
    // What transitioning characters would have shown.
    let mut old_state = before;
    let old_events = old_state.advance(F32x8::splat(dt));
    let old_step = old_state.step(old_events);
    let mut total = FrameStats::default();
    for (l, ch) in chars.iter_mut().enumerate() {
        let c = p * 8 + l;
        if c >= cfg.characters {
            break;
        }
        let moving = trans & (1 << l) != 0;
        let now = char_step(&step, state, l);
        let old = moving.then(|| char_step(&old_step, &old_state, l));
        let jumped = (played | trans) & (1 << l) != 0;
        let check = reference_frame(
            (cfg, clips, parents),
            (&now, old.as_ref()),
            ch,
            s,
            (c, frame, dt, jumped),
        );
        total.transitions += moving as u32;
        total.velocity.merge(&check);
    }
    (total, events, marks)
}

/// Samples clip `src` at `time` played at `rate` into crowd pose `out`
/// (joint 0 = the root).
fn ref_sample(
    cfg: &CrowdConfig,
    clips: &[Clip],
    (clip, time, rate): (usize, f32, f32),
    root: Kform,
    tmp: &mut Pose,
    out: &mut Pose,
) {
    let c = &clips[clip];
    let (p, q, s, dt) = (c.pos_slice(), c.rot_slice(), c.scl_slice(), c.frame_time());
    match cfg.sampling {
        Sampling::Linear => r::op_sample_linear(tmp, p, q, s, time, dt),
        Sampling::Cubic => r::op_sample_cubic(tmp, p, q, s, time, dt),
    }
    r::op_timescale(tmp, rate);
    out.set(0, root);
    for k in 0..tmp.len() {
        out.set(k + 1, tmp.get(k));
    }
}

/// The blended input of a step's two sources at its weight, the blend's
/// hemispheres in `flips` ([`blend_with_flips`]).
fn ref_input(
    cfg: &CrowdConfig,
    clips: &[Clip],
    st: &CharStep,
    (s, flips): (&mut RefScratch, (&mut [bool], bool)),
    out: &mut Pose,
) {
    ref_sample(cfg, clips, st.a, st.root, &mut s.sample, &mut s.a);
    ref_sample(cfg, clips, st.b, st.root, &mut s.sample, &mut s.b);
    blend_with_flips(out, (&s.a, &s.b), flips, st.w, st.w_rate);
    out.set(0, st.root);
}

/// Blends `a` into `b` joint by joint along the relative rotation
/// `±(b a⁻¹)`, negated where `flips[j]` says (`fresh`: chosen now, the
/// short way round; else kept from the transition, see
/// [`Clip::with_continuous_rotations`]): [`r::kform_blend_along`], the
/// lanes crowd's `blend_kept`.
fn blend_with_flips(
    out: &mut Pose,
    (a, b): (&Pose, &Pose),
    (flips, fresh): (&mut [bool], bool),
    alpha: f32,
    rate: f32,
) {
    for (j, flip) in flips.iter_mut().enumerate().take(out.len()) {
        let (x, y) = (a.get(j), b.get(j));
        let rel = r::quat_mul_inv(y.rot, x.rot);
        if fresh {
            *flip = rel.w < 0.0;
        }
        let rel = if *flip { -rel } else { rel };
        out.set(j, r::kform_blend_along(&x, &y, rel, alpha, rate));
    }
}

/// A character's fitted half-lives per joint: positions, rotations.
type Halflives<'a> = (&'a [Vec3], &'a [Vec3]);

/// Dead blending ([`r::op_dead_blending`]) at a step's blend time, with
/// the relative rotation's hemisphere in `flips` (see [`blend_with_flips`]),
/// the extrapolation decaying at the step's half-life or, where the crowd
/// fits them, at the character's half-lives per joint and axis
/// ([`r::op_extrapolate_decayed_axes`]).
fn ref_dead_blend(
    out: &mut Pose,
    extrapolated: &mut Pose,
    (transition, input, fitted): (&Pose, &Pose, Option<Halflives>),
    flips: (&mut [bool], bool),
    st: &CharStep,
    dt: f32,
) {
    let (t, dur) = (st.blend_time, st.duration);
    match fitted {
        Some((pos, rot)) => {
            r::op_extrapolate_decayed_axes(extrapolated, transition, pos, rot, t).expect(SIZED)
        }
        None => r::op_extrapolate_decayed(extrapolated, transition, t, st.halflife).expect(SIZED),
    }
    let alpha = r::smoothstep_blend_alpha(t, dur);
    let rate = r::weight_rate(r::smoothstep_blend_alpha_dx(t, dur, dt), dt);
    blend_with_flips(out, (extrapolated, input), flips, alpha, rate);
}

/// The local pose a character shows at step `st` (its input, inertialized
/// or dead-blended while its transition runs).
fn ref_local(
    cfg: &CrowdConfig,
    (input, out): (&Pose, &mut Pose),
    ch: &mut RefState,
    s_extrapolated: &mut Pose,
    (st, fresh): (&CharStep, bool),
    dt: f32,
) {
    if st.blend_time < st.duration {
        match cfg.transition {
            Transition::Inertialize => {
                r::op_inertialize(out, &ch.offset, input, st.blend_time, st.duration).expect(SIZED)
            }
            Transition::DeadBlend => ref_dead_blend(
                out,
                s_extrapolated,
                (
                    &ch.transition,
                    input,
                    cfg.fit().map(|_| (&ch.fit_pos[..], &ch.fit_rot[..])),
                ),
                (&mut ch.dead_flip, fresh),
                st,
                dt,
            ),
        }
        out.set(0, st.root);
    } else {
        out.clone_from(input);
    }
}

/// One character's frame at step `st` (`old`: the step it would have
/// taken without its commands, where they start a transition), in the
/// order of the lanes crowd's passes: the pose it would have shown, the
/// input, the transition's start, the local pose (inertialized or
/// dead-blended), root motion, forward kinematics into its world pose,
/// checked against the previous frame's.
fn reference_frame(
    (cfg, clips, parents): (&CrowdConfig, &[Clip], &[i32]),
    (st, old): (&CharStep, Option<&CharStep>),
    ch: &mut RefState,
    s: &mut RefScratch,
    (character, frame, dt, jumped): (usize, u64, f32, bool),
) -> VelocityCheck {
    let first = frame == 0;
    let mut input = std::mem::take(&mut s.input);
    let mut local = std::mem::take(&mut s.local);
    let mut shown = std::mem::take(&mut s.shown);
    if let Some(old) = old {
        ref_shown(cfg, clips, old, ch, s, dt, &mut shown);
    }
    // The blend's hemispheres are chosen anew where the sources changed at
    // once (a command, a wrap around a clip, the first step).
    let fresh = first || jumped || st.wrapped;
    ref_input(cfg, clips, st, (s, (&mut ch.ab_flip, fresh)), &mut input);
    if old.is_some() {
        ref_start_transition(cfg, ch, &mut shown, &input);
    }
    s.shown = shown;
    ref_local(
        cfg,
        (&input, &mut local),
        ch,
        &mut s.extrapolated,
        (st, old.is_some()),
        dt,
    );
    if cfg.root_motion == RootMotion::Extract {
        ref_extract_root(&mut local, ch, st, jumped || first || st.wrapped, dt);
    }
    s.input = input;
    r::op_fk(&mut s.global, &local, parents).expect(SIZED);
    s.local = local;
    let check = match !first && cfg.velocity_check {
        true => ref_check(&s.global, &ch.world, (character, frame, dt)),
        // Without the check (or before it has a previous frame), output
        // that is not finite is counted all the same (issue 21).
        false => VelocityCheck {
            non_finite: !pose_finite(&s.global) as u64,
            ..VelocityCheck::default()
        },
    };
    ch.world.clone_from(&s.global);
    check
}

/// The pose a character would have shown at its `old` step, without its
/// commands, into `shown` (its blend's hemispheres kept, but for a source
/// that wraps).
fn ref_shown(
    cfg: &CrowdConfig,
    clips: &[Clip],
    old: &CharStep,
    ch: &mut RefState,
    s: &mut RefScratch,
    dt: f32,
    shown: &mut Pose,
) {
    let mut old_in = std::mem::take(&mut s.old);
    let mut flips = std::mem::take(&mut s.flips);
    flips.clone_from(&ch.ab_flip);
    ref_input(cfg, clips, old, (s, (&mut flips, old.wrapped)), &mut old_in);
    s.flips = flips;
    ref_local(
        cfg,
        (&old_in, shown),
        ch,
        &mut s.extrapolated,
        (old, false),
        dt,
    );
    s.old = old_in;
}

/// A transition started: the `shown` pose becomes the new offset's (or
/// the extrapolation's) start against the new `input`.
fn ref_start_transition(cfg: &CrowdConfig, ch: &mut RefState, shown: &mut Pose, input: &Pose) {
    // Root motion taken out: the shown root starts from the new sources'
    // place on the ground (only its motion is blended).
    if cfg.root_motion == RootMotion::Extract {
        shown.pos[1].x = input.pos[1].x;
        shown.pos[1].z = input.pos[1].z;
    }
    match cfg.transition {
        Transition::Inertialize => {
            r::op_inertialize_offset(&mut ch.offset, shown, input).expect(SIZED)
        }
        Transition::DeadBlend => {
            ch.transition.clone_from(shown);
            // The half-lives fitted from the shown pose to the new input
            // (joint 0, the character's root, is held: any half-life does).
            if let Some((scale, min, max)) = cfg.fit() {
                r::fit_halflives(
                    &mut ch.fit_pos,
                    &mut ch.fit_rot,
                    &shown.pos,
                    &shown.vel,
                    &shown.rot,
                    &shown.ang,
                    &input.pos,
                    &input.rot,
                    scale,
                    min,
                    max,
                    min,
                );
            }
        }
    }
}

/// Root motion taken out of the `local` pose: the clips' root joint's
/// horizontal translation removed, and reported in the world (the
/// displacement its velocity times `dt` where the sources `jumped`: a
/// command or a wrap moves them at once, which is not travel).
fn ref_extract_root(local: &mut Pose, ch: &mut RefState, st: &CharStep, jumped: bool, dt: f32) {
    let (x, z) = (local.pos[1].x, local.pos[1].z);
    let (vx, vz) = (local.vel[1].x, local.vel[1].z);
    local.pos[1] = Vec3::new(0.0, local.pos[1].y, 0.0);
    local.vel[1] = Vec3::new(0.0, local.vel[1].y, 0.0);
    let rot = st.root.rot;
    let vel = r::quat_mul_vec3(rot, Vec3::new(vx, 0.0, vz));
    let moved = r::quat_mul_vec3(rot, Vec3::new(x - ch.removed.0, 0.0, z - ch.removed.1));
    let disp = if jumped { vel * dt } else { moved };
    ch.root_motion = (disp, vel);
    ch.removed = (x, z);
}

/// The velocity check of a character's world pose `now` against the
/// previous frame's `before` ([`VelocityCheck`]).
fn ref_check(
    now: &Pose,
    before: &Pose,
    (character, frame, dt): (usize, u64, f32),
) -> VelocityCheck {
    let mut check = VelocityCheck::default();
    // Output that is not finite, judged on the output (a gap that
    // overflows on finite output is a failed check, as in the 8-lane
    // crowd: found by the `clips_from_values` fuzz target).
    let finite = pose_finite(now);
    for k in 0..now.len() {
        // As the 8-lane check: the gap times dt, `|Δpos - (v + v_prev)
        // dt/2|`, divided by dt.
        let e = (now.pos[k] - before.pos[k]) - (now.vel[k] + before.vel[k]) * (0.5 * dt);
        let gap = r::length(e) / dt;
        if gap > check.max_gap || check.worst.is_none() {
            check.max_gap = gap;
            check.worst = Some(GapAt {
                character,
                joint: k,
                frame,
            });
        }
        check.sum_gap += gap as f64;
        check.samples += 1;
        check.max_speed = check.max_speed.max(r::length(now.vel[k]));
    }
    if !finite {
        check = VelocityCheck {
            samples: check.samples,
            non_finite: 1,
            ..VelocityCheck::default()
        };
    }
    check
}
/// Whether every position, rotation, velocity and angular velocity of
/// `pose` is finite (what a crowd hands a game).
fn pose_finite(pose: &Pose) -> bool {
    let v = |v: &[Vec3]| {
        v.iter()
            .all(|p| [p.x, p.y, p.z].iter().all(|x| x.is_finite()))
    };
    v(&pose.pos)
        && v(&pose.vel)
        && v(&pose.ang)
        && pose
            .rot
            .iter()
            .all(|q| [q.w, q.x, q.y, q.z].iter().all(|x| x.is_finite()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 21, defect 4: the reference crowd's count of output that is
    /// not finite, which runs with the velocity check off, sees a NaN or
    /// an infinity in any field a game reads, and not huge finite values.
    #[test]
    fn defect_4_pose_finite_sees_every_field_a_game_reads() {
        let mut pose = Pose::new(3);
        pose.pos[1] = Vec3::splat(3e38);
        assert!(pose_finite(&pose));
        for field in 0..4 {
            let mut p = pose.clone();
            match field {
                0 => p.pos[2].y = f32::NAN,
                1 => p.vel[0].z = f32::INFINITY,
                2 => p.ang[1].x = f32::NEG_INFINITY,
                _ => p.rot[2].w = f32::NAN,
            }
            assert!(!pose_finite(&p), "field {field}");
        }
    }
}
