//! One pack's frame as a few passes over its joints whose data stays in
//! L1/L2: sample source A; sample source B and blend; on a transition, the
//! new offsets (or transition poses) from the poses the transitioning
//! characters would have shown ([`shown_batch`], computed eight at a time
//! across packs before the packs run); inertialize or dead-blend; pull the
//! clips' root translation out where the crowd extracts it; forward
//! kinematics from the character's root straight into the world output,
//! with the velocity check. PERF.md has the figures and where the time
//! goes.

use std::sync::Mutex;

use super::Root;
use super::check::{PackCheck, write_world};
use super::command::Command;
use super::halflives::{Decay, Fit, copy_rows_lane, dead_blend_joint_axes};
use super::motion::*;
use super::state::{ClipRows, Statex8, Stepx8};
use crate::database::Database;
use crate::lanes::{self, CubicWeights, F32x8, Rotor, Vec3x8, splat};
use crate::prefetch;

/// Everything a pack's frame reads that is not the pack's own state.
pub(crate) struct Shared<'a> {
    pub db: &'a Database,
    pub parents: &'a [i32],
    pub tracks: &'a [Track],
    pub rows: &'a [ClipRows],
    /// The poses the frame's transitioning characters would have shown.
    pub shown: &'a [Motionx8],
    /// Pack 0's world output (a head and a tail) and kept state (turn
    /// offsets or transition poses) as regions to prefetch, in parts of one
    /// per clip joint; a pack prefetches the next pack's while it runs.
    pub world_ahead: [Ahead; 2],
    pub kept_ahead: Ahead,
    pub packs: usize,
    pub characters: usize,
    /// The crowd's first step (no previous output to check against).
    pub first: bool,
    pub frame: u64,
    pub dt: f32,
    pub check: bool,
    pub extract: bool,
    /// Dead blending's half-lives fitted per joint and axis, with the
    /// fit's parameters; `None` for one half-life per transition.
    pub fit: Option<Fit>,
}

/// The root translation a pack took out of its poses (root motion
/// extraction): where it was last step (in the root's frame), and this
/// step's world displacement and velocity.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct RootMotionx8 {
    pub(crate) removed_x: F32x8,
    pub(crate) removed_z: F32x8,
    pub(crate) displacement: Vec3x8,
    pub(crate) velocity: Vec3x8,
}

impl RootMotionx8 {
    pub(crate) const ZERO: RootMotionx8 = RootMotionx8 {
        removed_x: F32x8::ZERO,
        removed_z: F32x8::ZERO,
        displacement: Vec3x8::ZERO,
        velocity: Vec3x8::ZERO,
    };
}

/// A pack's share of the state kept across frames.
pub(crate) struct PackState<'a> {
    pub state: &'a mut Statex8,
    pub turns: &'a mut [TurnOffsetx8],
    pub shifts: &'a mut [ShiftOffsetx8],
    pub transition: &'a mut [Motionx8],
    pub dead_flips: &'a mut [u8],
    /// Per joint, which characters' two-source blends take their relative
    /// rotation negated (bits), kept from one step to the next.
    pub ab_flips: &'a mut [u8],
    /// Dead blending's fitted half-lives (empty unless [`Shared::fit`]).
    pub fit_rot: &'a mut [Vec3x8],
    pub fit_pos: &'a mut [Vec3x8],
    pub root_motion: &'a mut RootMotionx8,
    /// Roots given since the last step, and which lanes hold one (bits).
    pub root: (&'a [Root], u8),
    /// This frame's commands for the pack's characters, in the order to
    /// apply them.
    pub commands: &'a [(u32, Command)],
    /// Where the pack's transitioning characters' shown poses start among
    /// the frame's ([`Shared::shown`]).
    pub first_mover: usize,
    /// What happened, bits per lane: source A ended, source B ended, a
    /// transition finished, a transition started.
    pub events: &'a mut [u8; 4],
}

/// What a pack's frame did.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PackResult {
    pub transitions: u32,
    pub check: super::VelocityCheck,
}

/// Scratch of one worker, about 13 KB per pose for the CMU skeleton, so a
/// pack's passes stay in L1/L2. Poses in crowd joint order (joint 0 the
/// world root): `a` the blended input, `b` the inertialized or dead-blended
/// local pose, `shown` the pose that transitioning lanes would have shown,
/// `old_a` the input of a batch of transitioning characters' old sources
/// ([`shown_batch`]). Joints with a fixed position hold it, and zero
/// velocity, from the start; the passes write only their rotations and
/// angular velocities. `kept_*`: a batch's kept state, gathered from its
/// characters' packs.
pub(crate) struct PackScratch {
    a: Vec<Motionx8>,
    b: Vec<Motionx8>,
    shown: Vec<Motionx8>,
    old_a: Vec<Motionx8>,
    kept_turns: Vec<TurnOffsetx8>,
    kept_shifts: Vec<ShiftOffsetx8>,
    kept_poses: Vec<Motionx8>,
    kept_dead_flips: Vec<u8>,
    kept_ab_flips: Vec<u8>,
    kept_fit_rot: Vec<Vec3x8>,
    kept_fit_pos: Vec<Vec3x8>,
}

impl PackScratch {
    /// For `turning` turn offsets and `moving` shift offsets per pack.
    pub(crate) fn new(rest: &[Motionx8], turning: usize, moving: usize) -> PackScratch {
        let v = || rest.to_vec();
        PackScratch {
            a: v(),
            b: v(),
            shown: v(),
            old_a: v(),
            kept_turns: vec![TurnOffsetx8::ZERO; turning],
            kept_shifts: vec![ShiftOffsetx8::ZERO; moving],
            kept_poses: v(),
            kept_dead_flips: vec![0; rest.len()],
            kept_ab_flips: vec![0; rest.len()],
            kept_fit_rot: vec![Vec3x8::ZERO; turning],
            kept_fit_pos: vec![Vec3x8::ZERO; moving],
        }
    }
}

/// Runs `f` with the calling rayon worker's scratch: each worker has its
/// own, so the lock is never contended; a thread outside the pool it was
/// sized for gets a new one from `make`.
pub(crate) fn with_scratch<R>(
    scratch: &[Mutex<PackScratch>],
    make: impl Fn() -> PackScratch,
    f: impl FnOnce(&mut PackScratch) -> R,
) -> R {
    match rayon::current_thread_index().and_then(|t| scratch.get(t)) {
        Some(m) => f(&mut m.lock().unwrap_or_else(|e| e.into_inner())),
        None => f(&mut make()),
    }
}

/// The whole crowd's kept state, read by [`shown_batch`].
pub(crate) struct Kept<'a> {
    pub states: &'a [Statex8],
    pub turns: &'a [TurnOffsetx8],
    pub shifts: &'a [ShiftOffsetx8],
    pub transition: &'a [Motionx8],
    pub dead_flips: &'a [u8],
    pub ab_flips: &'a [u8],
    pub fit_rot: &'a [Vec3x8],
    pub fit_pos: &'a [Vec3x8],
    pub turning: usize,
    pub moving: usize,
}

/// A region of memory the next pack will read, fetched in equal parts of
/// `step` bytes over a pass (`step` 0 for none).
#[derive(Clone, Copy)]
pub(crate) struct Ahead {
    pub addr: usize,
    pub step: usize,
}

impl Ahead {
    pub(crate) const NONE: Ahead = Ahead { addr: 0, step: 0 };

    /// `len` bytes at `addr`, in `parts` parts of whole lines.
    pub(crate) fn new(addr: usize, len: usize, parts: usize) -> Ahead {
        Ahead {
            addr,
            step: len.div_ceil(parts.max(1)).next_multiple_of(64),
        }
    }
}

/// Prefetches part `i` of each region.
#[inline(always)]
fn prefetch_part(ahead: &[Ahead], i: usize) {
    for a in ahead {
        prefetch::to_l2_at(a.addr + i * a.step, a.step);
    }
}

/// What a pack's sampling reads besides the rows.
struct Sampler<'a> {
    db: &'a Database,
    tracks: &'a [Track],
    inv_frame: F32x8,
}

impl Sampler<'_> {
    /// Samples every clip joint of one source into `out[1..]`, velocities
    /// scaled by its playback rate ([`crate::reference::op_timescale`]).
    ///
    /// `ahead` lists per-joint arrays that the next pack will read: joint
    /// `j`'s element of each is prefetched as joint `j` is sampled (see
    /// [`prefetch`]).
    #[inline(never)]
    fn sample<const CUBIC: bool>(&self, rows: &SampleRows, out: &mut [Motionx8], ahead: &[Ahead]) {
        for (cj, (o, t)) in out[1..].iter_mut().zip(&self.tracks[1..]).enumerate() {
            prefetch_part(ahead, cj);
            match t {
                Track::Still => {}
                Track::Turns(_) => put_turn(o, self.joint::<CUBIC>(rows, cj)),
                Track::Moves(..) => *o = self.joint::<CUBIC>(rows, cj),
            }
        }
    }

    /// `a = blend(a, sample(rows))` per joint: the second source sampled and
    /// blended in one pass ([`blend_kept`] at weight `alpha` changing at
    /// `rate` per second, each joint's relative rotation's hemisphere kept
    /// in `flips`, chosen anew in the `fresh` lanes).
    #[inline(never)]
    fn sample_blend<const CUBIC: bool>(
        &self,
        rows: &SampleRows,
        a: &mut [Motionx8],
        (flips, fresh): (&mut [u8], F32x8),
        (alpha, rate): (F32x8, F32x8),
        ahead: &[Ahead],
    ) {
        let joints = a[1..]
            .iter_mut()
            .zip(&self.tracks[1..])
            .zip(&mut flips[1..]);
        for (cj, ((x, t), flip)) in joints.enumerate() {
            prefetch_part(ahead, cj);
            match t {
                Track::Still => {}
                Track::Turns(_) => {
                    let y = self.joint::<CUBIC>(rows, cj);
                    put_turn(x, blend_kept(x, &y, (flip, fresh), alpha, rate));
                }
                Track::Moves(..) => {
                    let y = self.joint::<CUBIC>(rows, cj);
                    *x = blend_kept(x, &y, (flip, fresh), alpha, rate)
                }
            }
        }
    }

    /// Clip joint `cj` of one source.
    #[inline(always)]
    fn joint<const CUBIC: bool>(&self, rows: &SampleRows, cj: usize) -> Motionx8 {
        let ang_scale = (self.inv_frame + self.inv_frame) * rows.speed;
        let vel_scale = self.inv_frame * rows.speed;
        if CUBIC {
            let (pr, at, nx) = (
                self.db.gather(&rows.prev, cj),
                self.db.gather(&rows.at, cj),
                self.db.gather(&rows.next, cj),
            );
            sample_cubic_rows(
                &pr,
                &at,
                &nx,
                rows.prev_valid,
                rows.alpha,
                vel_scale,
                ang_scale,
            )
        } else {
            sample_linear_row(
                &self.db.gather(&rows.at, cj),
                (rows.alpha, rows.alpha2),
                vel_scale,
                ang_scale,
            )
        }
    }
}

/// The blended input of a step's two sources into `a[1..]`: source A
/// sampled, then source B sampled and blended at source B's weight and its
/// rate, the blend's hemispheres in `flips` ([`Sampler::sample_blend`]);
/// `ahead` as for [`Sampler::sample`], one list for each of the two
/// passes, so that the fetching is spread over both.
#[inline(always)]
fn input<const CUBIC: bool>(
    sh: &Shared,
    st: &Stepx8,
    a: &mut [Motionx8],
    flips: (&mut [u8], F32x8),
    ahead: [&[Ahead]; 2],
) {
    let sampler = Sampler {
        db: sh.db,
        tracks: sh.tracks,
        inv_frame: splat(1.0 / sh.db.frame_time()),
    };
    let (ra, rb) = (
        SampleRows::new::<CUBIC>(sh.db, &st.a),
        SampleRows::new::<CUBIC>(sh.db, &st.b),
    );
    sampler.sample::<CUBIC>(&ra, a, ahead[0]);
    sampler.sample_blend::<CUBIC>(&rb, a, flips, (st.w, st.w_rate), ahead[1]);
}

/// Dead blending's fade at blend time `t` of `d`: the smoothstep weight
/// and its rate of change per second over a step of `dt`.
#[inline(always)]
fn fade(t: F32x8, d: F32x8, dt: F32x8) -> (F32x8, F32x8) {
    (
        lanes::smoothstep_blend_alpha(t, d),
        lanes::smoothstep_blend_alpha_dx(t, d, dt) / dt,
    )
}

/// `out = inertialize(offsets, pose)` per joint (lanes past their
/// transition pass through; see [`inertialize_joint`]).
#[inline(never)]
fn inertialize_pass(
    out: &mut [Motionx8],
    pose: &[Motionx8],
    (turns, shifts): (&[TurnOffsetx8], &[ShiftOffsetx8]),
    tracks: &[Track],
    w: &CubicWeights,
) {
    for ((r, m), t) in out.iter_mut().zip(pose).zip(tracks).skip(1) {
        match *t {
            Track::Still => {}
            Track::Turns(k) => {
                let zero = ShiftOffsetx8::ZERO;
                put_turn(r, inertialize_joint(&turns[k], &zero, m, w));
            }
            Track::Moves(k, s) => *r = inertialize_joint(&turns[k], &shifts[s], m, w),
        }
    }
}

/// `out = select(mask, dead_blend(transition, pose), pose)` per joint,
/// each joint's relative rotation's hemisphere in `flips` (chosen in the
/// `fresh` lanes, kept in the others), the extrapolation decaying as
/// `decay` says.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn dead_blend_pass(
    out: &mut [Motionx8],
    pose: &[Motionx8],
    (transition, (flips, fresh)): (&[Motionx8], (&mut [u8], F32x8)),
    tracks: &[Track],
    decay: Decay,
    fade: (F32x8, F32x8),
    mask: F32x8,
) {
    let joints = out.iter_mut().zip(pose).zip(transition.iter().zip(tracks));
    let joints = joints.zip(flips.iter_mut()).skip(1);
    match decay {
        Decay::One(alpha, dalpha) => {
            for (((r, m), (t, track)), flip) in joints {
                let mut d = |m| {
                    let b = dead_blend_joint(t, m, (flip, fresh), (alpha, dalpha), fade.0, fade.1);
                    select_motion(mask, &b, m)
                };
                match track {
                    Track::Still => {}
                    Track::Turns(_) => put_turn(r, d(m)),
                    Track::Moves(..) => *r = d(m),
                }
            }
        }
        Decay::Fitted { t: bt, rot, pos } => {
            let weights = |h| lanes::extrapolate_decayed_axis_weights(bt, h);
            for (((r, m), (t, track)), flip) in joints {
                let mut d = |m, w| {
                    let b = dead_blend_joint_axes(t, m, (flip, fresh), w, fade.0, fade.1);
                    select_motion(mask, &b, m)
                };
                match *track {
                    Track::Still => {}
                    Track::Turns(k) => {
                        let still = (Vec3x8::ZERO, Vec3x8::ZERO);
                        put_turn(r, d(m, (still, weights(rot[k]))))
                    }
                    Track::Moves(k, s) => *r = d(m, (weights(pos[s]), weights(rot[k]))),
                }
            }
        }
    }
}

/// The poses that up to eight transitioning characters (`movers`, from any
/// packs) would have shown this frame without their commands, into `out`:
/// their states advanced, their sources sampled and blended, then
/// inertialized or dead-blended with their packs' kept state gathered into
/// lanes. Lanes past `movers.len()` repeat its last character. `out` holds
/// the rest pose where nothing moves (see [`PackScratch`]).
pub(crate) fn shown_batch<const CUBIC: bool, const INERT: bool>(
    sh: &Shared,
    movers: &[u32],
    kept: &Kept,
    out: &mut [Motionx8],
    scratch: &mut PackScratch,
) {
    let j = out.len();
    let at: [usize; 8] = core::array::from_fn(|i| movers[i.min(movers.len() - 1)] as usize);
    let mut batch = kept.states[at[0] / 8];
    for (l, &c) in at.iter().enumerate() {
        batch.copy_lane(l, &kept.states[c / 8], c % 8);
    }
    let dt = splat(sh.dt);
    let events = batch.advance(dt);
    let st = batch.step(events);
    let active = st.blend_time.simd_lt(st.duration);
    // The old sources' blend keeps each character's hemispheres (anew
    // where a source wraps around).
    let ab = &mut scratch.kept_ab_flips;
    gather_bits(ab, kept.ab_flips, j, &at);
    let fresh = mask(core::array::from_fn(|l| st.wrapped & (1 << l) != 0));
    if !active.any() {
        input::<CUBIC>(sh, &st, out, (ab, fresh), [&[], &[]]);
        return;
    }
    let old_a = &mut scratch.old_a;
    input::<CUBIC>(sh, &st, old_a, (ab, fresh), [&[], &[]]);
    if INERT {
        let (kt, ks) = (&mut scratch.kept_turns, &mut scratch.kept_shifts);
        for (l, &c) in at.iter().enumerate() {
            let (p, cl) = (c / 8, c % 8);
            let turns = &kept.turns[p * kept.turning..][..kept.turning];
            let shifts = &kept.shifts[p * kept.moving..][..kept.moving];
            kt.iter_mut()
                .zip(turns)
                .for_each(|(k, t)| copy_lane(k, l, t, cl));
            ks.iter_mut()
                .zip(shifts)
                .for_each(|(k, t)| copy_lane(k, l, t, cl));
        }
        let w = CubicWeights::new(st.blend_time, st.duration);
        inertialize_pass(out, old_a, (kt, ks), sh.tracks, &w);
    } else {
        let (kp, kq) = (&mut scratch.kept_poses, &mut scratch.kept_dead_flips);
        let (kr, ks) = (&mut scratch.kept_fit_rot, &mut scratch.kept_fit_pos);
        let fitted = sh.fit.is_some();
        for (l, &c) in at.iter().enumerate() {
            let (p, cl) = (c / 8, c % 8);
            let poses = &kept.transition[p * j..][..j];
            kp.iter_mut()
                .zip(poses)
                .for_each(|(k, t)| copy_lane(k, l, t, cl));
            if fitted {
                let rot = &kept.fit_rot[p * kept.turning..][..kept.turning];
                let pos = &kept.fit_pos[p * kept.moving..][..kept.moving];
                copy_rows_lane((kr, ks), l, (rot, pos), cl);
            }
        }
        gather_bits(kq, kept.dead_flips, j, &at);
        let decay = match fitted {
            true => Decay::Fitted {
                t: st.blend_time,
                rot: kr,
                pos: ks,
            },
            false => {
                let (alpha, dalpha) =
                    lanes::extrapolate_decayed_weights(st.blend_time, st.halflife);
                Decay::One(alpha, dalpha)
            }
        };
        dead_blend_pass(
            out,
            old_a,
            (kp, (kq, F32x8::ZERO)),
            sh.tracks,
            decay,
            fade(st.blend_time, st.duration, dt),
            opaque(active),
        );
    }
}

/// One frame of one pack (module docs): advance the state, apply the
/// pack's commands, sample and blend the input, start transitions from the
/// shown poses, inertialize or dead-blend, take out the root translation
/// where the crowd extracts it, and forward kinematics from the roots into
/// the world output, checked against the previous frame's.
pub(crate) fn step_pack<const CUBIC: bool, const INERT: bool>(
    sh: &Shared,
    p: usize,
    world: &mut [Motionx8],
    st: PackState,
    scratch: &mut PackScratch,
) -> PackResult {
    let PackState {
        state,
        turns,
        shifts,
        transition,
        dead_flips,
        ab_flips,
        fit_rot,
        fit_pos,
        root_motion,
        root,
        commands,
        first_mover,
        events,
    } = st;
    let dt = splat(sh.dt);
    let happened = state.advance(dt);
    // Roots given: before the queued commands, which never touch the root.
    if root.1 != 0 {
        state.set_roots(root.0, root.1);
    }
    let (mut trans, mut played) = (0u8, 0u8);
    for (c, cmd) in commands {
        let l = *c as usize % 8;
        if state.apply(l, cmd, sh.rows) {
            trans |= 1 << l;
        } else if matches!(cmd, Command::Play { .. }) {
            played |= 1 << l;
        }
    }
    let step = state.step(happened);
    *events = [step.ended_a, step.ended_b, step.finished & !trans, trans];
    let valid: [bool; 8] = core::array::from_fn(|i| p * 8 + i < sh.characters);
    let PackScratch { a, b, shown, .. } = scratch;

    // The input: two sources blended. Meanwhile the next pack's world
    // output and kept state are fetched from memory a joint at a time
    // (the world's head in the first pass, its tail and the state in the
    // second), so that the fetching is spread over this pack's work and
    // the next pack finds them in L2.
    let next = |a: Ahead, len: usize| match p + 1 < sh.packs {
        true => Ahead {
            addr: a.addr + (p + 1) * len,
            step: a.step,
        },
        false => Ahead::NONE,
    };
    let world_next = sh.world_ahead.map(|w| next(w, size_of_val(world)));
    let kept_next = match INERT {
        true => next(sh.kept_ahead, size_of_val(turns)),
        false => next(sh.kept_ahead, size_of_val(transition)),
    };
    prefetch::to_l2(bytemuck::cast_slice(shifts));
    let [head, tail] = world_next;
    // The blend's hemispheres are chosen anew where the sources changed at
    // once (a command, a wrap around a clip, the first step), kept
    // elsewhere, so that a blend stays continuous however far apart its
    // sources turn.
    let anew = played | trans | step.wrapped;
    let fresh = mask(core::array::from_fn(|l| sh.first || anew & (1 << l) != 0));
    input::<CUBIC>(
        sh,
        &step,
        a,
        (ab_flips, fresh),
        [&[head], &[tail, kept_next]],
    );

    // Transitions: the pose that would have been shown, computed for the
    // frame's transitioning characters together, becomes the new offset's
    // (or the extrapolation's) start.
    if trans != 0 {
        let j = a.len();
        let lanes = (0..8).filter(|&l| trans & (1 << l) != 0);
        for (l, m) in lanes.zip(first_mover..) {
            let batch = &sh.shown[(m / 8) * j..][..j];
            for ((o, s), t) in shown.iter_mut().zip(batch).zip(sh.tracks) {
                if *t != Track::Still {
                    copy_lane(o, l, s, m % 8);
                }
            }
        }
        let m_trans = mask(core::array::from_fn(|l| trans & (1 << l) != 0));
        if sh.extract {
            // Root motion taken out: where the clips' roots stand on the
            // ground is not part of the transition (the game moves the
            // character), only how they move: the shown root starts from
            // the new sources' place, so no offset slides it there.
            let (s, to) = (&mut shown[1].pos, a[1].pos);
            s.x = m_trans.select(to.x, s.x);
            s.z = m_trans.select(to.z, s.z);
        }
        for (j, t) in sh.tracks.iter().enumerate().skip(1) {
            match (*t, INERT) {
                (Track::Still, _) => {}
                (Track::Turns(k), true) => {
                    update_turn(m_trans, &offset_between(&shown[j], &a[j]).0, &mut turns[k]);
                }
                (Track::Moves(k, s), true) => {
                    let (turn, shift) = offset_between(&shown[j], &a[j]);
                    update_turn(m_trans, &turn, &mut turns[k]);
                    update_shift(m_trans, &shift, &mut shifts[s]);
                }
                (_, false) => {
                    update_motion(m_trans, &shown[j], &mut transition[j]);
                    if let Some(fit) = &sh.fit {
                        let rows = (&mut *fit_rot, &mut *fit_pos);
                        fit.joint(m_trans, (&shown[j], &a[j]), *t, rows);
                    }
                }
            }
        }
    }

    // Transitions under way.
    let (bt, dur) = (step.blend_time, step.duration);
    let active = bt.simd_lt(dur);
    let local = if active.any() {
        if INERT {
            inertialize_pass(
                b,
                a,
                (turns, shifts),
                sh.tracks,
                &CubicWeights::new(bt, dur),
            );
        } else {
            let fresh = mask(core::array::from_fn(|l| trans & (1 << l) != 0));
            let decay = match sh.fit {
                Some(_) => Decay::Fitted {
                    t: bt,
                    rot: fit_rot,
                    pos: fit_pos,
                },
                None => {
                    let (alpha, dalpha) = lanes::extrapolate_decayed_weights(bt, step.halflife);
                    Decay::One(alpha, dalpha)
                }
            };
            dead_blend_pass(
                b,
                a,
                (transition, (dead_flips, fresh)),
                sh.tracks,
                decay,
                fade(bt, dur, dt),
                opaque(active),
            );
        }
        b
    } else {
        a
    };
    if sh.extract {
        extract_root(
            &mut local[1],
            &step.root,
            root_motion,
            (played | trans | step.wrapped, sh.first),
            dt,
        );
    }

    // Forward kinematics into the world output, parents first, from joint
    // 0, each character's root.
    let half_dt = splat(0.5 * sh.dt);
    let check = if sh.check {
        fk_pass::<true>(
            world,
            (&step.root, local),
            (sh.parents, sh.tracks),
            sh.first,
            half_dt,
        )
    } else {
        fk_pass::<false>(
            world,
            (&step.root, local),
            (sh.parents, sh.tracks),
            sh.first,
            half_dt,
        )
    };
    PackResult {
        transitions: (0..8)
            .filter(|&l| trans & (1 << l) != 0 && valid[l])
            .count() as u32,
        check: if sh.check {
            check.finish((p, valid), local.len(), (sh.first, sh.frame), sh.dt)
        } else {
            super::VelocityCheck::default()
        },
    }
}

/// Takes the clips' root joint's horizontal translation out of its local
/// pose `m` (position and velocity x and z; its height stays), and reports
/// it in the world: the velocity turned by the character's root rotation,
/// the displacement as the change of what was taken out since the last
/// step, turned the same way (its velocity times `dt` where the sources
/// changed at once this step, by a command or a wrap around a clip: a
/// change that is not travel).
#[inline(always)]
fn extract_root(
    m: &mut Motionx8,
    root: &Motionx8,
    out: &mut RootMotionx8,
    (jumped, first): (u8, bool),
    dt: F32x8,
) {
    let (x, z, vx, vz) = (m.pos.x, m.pos.z, m.vel.x, m.vel.z);
    m.pos.x = F32x8::ZERO;
    m.pos.z = F32x8::ZERO;
    m.vel.x = F32x8::ZERO;
    m.vel.z = F32x8::ZERO;
    let r = Rotor::new(root.rot);
    let vel = r.apply(Vec3x8::new(vx, F32x8::ZERO, vz));
    let moved = r.apply(Vec3x8::new(
        x - out.removed_x,
        F32x8::ZERO,
        z - out.removed_z,
    ));
    let jump = if first {
        mask([true; 8])
    } else {
        mask(core::array::from_fn(|l| jumped & (1 << l) != 0))
    };
    out.displacement = Vec3x8::new(
        jump.select(vel.x * dt, moved.x),
        jump.select(vel.y * dt, moved.y),
        jump.select(vel.z * dt, moved.z),
    );
    out.velocity = vel;
    out.removed_x = x;
    out.removed_z = z;
}

/// Forward kinematics of a pack's `local` pose straight into its `world`
/// output (parents first), each joint checked against the previous frame's
/// by [`write_world`] when `CHECK`. Joint 0 is `root` (`local[0]` is not
/// read).
#[inline(never)]
fn fk_pass<const CHECK: bool>(
    world: &mut [Motionx8],
    (root, local): (&Motionx8, &[Motionx8]),
    (parents, tracks): (&[i32], &[Track]),
    first: bool,
    half_dt: F32x8,
) -> PackCheck {
    let mut check = PackCheck::EMPTY;
    let skip = first || !CHECK;
    write_world(
        &mut world[0],
        root,
        (F32x8::ZERO, skip),
        half_dt,
        &mut check,
    );
    for j in 1..local.len() {
        let (done, rest) = world.split_at_mut(j);
        let (p, l) = (&done[parents[j] as usize], &local[j]);
        let g = match tracks[j] {
            Track::Moves(..) => motion_mul::<true, true>(p, l),
            Track::Turns(_) => motion_mul::<false, true>(p, l),
            Track::Still => motion_mul::<false, false>(p, l),
        };
        write_world(
            &mut rest[0],
            &g,
            (splat(j as f32), skip),
            half_dt,
            &mut check,
        );
    }
    check
}

/// `v` cut into `packs` slices of `per` items (empty ones when `v` is).
pub(crate) fn per_pack<T>(v: &mut [T], per: usize, packs: usize) -> Vec<&mut [T]> {
    if v.is_empty() || per == 0 {
        (0..packs).map(|_| &mut [][..]).collect()
    } else {
        v.chunks_mut(per).collect()
    }
}
