//! One pack's frame, the driver of the passes, run for every pack once
//! the shown poses are known: [`step_pack`] takes the pack's share of the
//! store ([`Pack`]) and runs, in order, its commands, the input (two
//! sources sampled and blended, then the layers), the start of its new
//! transitions, the transitions under way, root motion, and forward
//! kinematics into the world output; what it did goes to the pack's
//! [`PackResult`].

use super::ahead::Ahead;
use super::fk::fk_pass;
use super::layers::layers;
use super::pack_lod::{
    carry_pack, carry_root_motion, lod_pass, next_own, next_own_fetches_offsets, own_rows, plain,
    reads_offsets,
};
use super::profile::inertialize_profiled;
use super::profile::{DeadTiming, Profiles, clear_snapped, dead_blend_profiled};
use super::root_motion::{extract_root, onto_place};
use super::sampling::input;
use super::scratch::PackScratch;
use super::shared::Shared;
use super::transition::{dead_blend_pass, fade, inertialize_pass};
use crate::crowd::check::PackCheck;
use crate::crowd::command::Command;
use crate::crowd::halflives::Decay;
use crate::crowd::markers::{Advanced, Scan, pack_markers};
use crate::crowd::motion::*;
use crate::crowd::place::{reset_places, wrap_places};
use crate::crowd::schedule::{LodStep, live_lanes};
use crate::crowd::state::{Applied, Happened, Spanx8, Stepx8};
use crate::crowd::store::{Pack, PackResult};
use crate::lanes::{self, CubicWeights, F32x8, Vec3x8, splat};

/// Which of a pack's characters the frame's commands moved at once
/// (bits): `trans` started a transition, `played` were given new sources
/// without one; and `resumed`, those evaluated after being carried (level
/// of detail), whose blends' hemispheres are chosen anew and whose root
/// motion restarts as after a jump.
#[derive(Clone, Copy)]
struct Given {
    trans: u8,
    played: u8,
    resumed: u8,
}

/// One frame of one pack (the module's docs), its figures into
/// `pack.result`. With level of detail, the pack's schedule decides which
/// characters are evaluated ([`crate::crowd::schedule`]): none, and the
/// pack runs its commands and carries its world output only
/// ([`carry_pack`]); some, and it runs whole, the others shown carried.
/// `next_resumes`: the next pack of the run will resume characters this
/// step ([`crate::crowd::schedule::Schedulex8::resumes_at`]), so a
/// resuming pack fetches the next one's anchors, kept state and offsets
/// while its own [`lod_world`](super::lod::lod_world) runs ([`next_own`]): spread over the
/// longest pass, they arrive before the next pack asks for them, where
/// its own fetch during sampling (about 25 KB in about 1.1 µs) stalled
/// on memory (PERF.md, "On the Zen 5, later still"). `by_previous`: the
/// pack before it in the run did that for this one (its rows are in L2),
/// so it does not fetch them again while it samples. Returns whether it
/// fetched the next pack's rows.
pub(crate) fn step_pack<const CUBIC: bool, const INERT: bool>(
    sh: &Shared,
    mut pack: Pack,
    scratch: &mut PackScratch,
    (next_resumes, by_previous): (bool, bool),
) -> bool {
    pack.prefetch_next(sh.packs);
    let (happened, mut given) = commands(sh, &mut pack, &mut scratch.layer_spans);
    let step = pack.states.step(&happened, pack.layers);
    events(&mut pack, &step, given.trans);
    let before = pack.schedule.clocks();
    let lod = match sh.lod {
        true => {
            let live = live_lanes(pack.index, sh.characters);
            let at = (sh.frame, sh.dt);
            Some(pack.schedule.plan(at, sh.first, given.trans, live))
        }
        false => None,
    };
    if let Some(lod) = &lod {
        if lod.due == 0 {
            carry_pack(sh, &mut pack);
            return false;
        }
        given.resumed = lod.resumed;
    }
    // A pack that resumes (or shows an offset) reads its anchors and
    // offsets, last touched periods ago: it fetches its own rows while it
    // samples instead of the next pack's, except those the pack before it
    // already fetched during its `lod_world` (`by_previous`: that pack
    // resumed too, [`next_own`]; only the offsets past half the L3 are
    // left), and the next pack's, where that one resumes too, during its
    // own `lod_world`.
    let own = lod.as_ref().is_some_and(|lod| !plain(lod, &before));
    let PackScratch {
        a,
        b,
        shown,
        evaluated,
        ..
    } = scratch;
    // Past half the L3 a whole resumption writes its offsets without
    // reading them (`lod_world`'s stream): fetched only where read.
    let offsets_read = lod
        .as_ref()
        .is_some_and(|lod| !sh.fetch || reads_offsets(lod));
    let own = (own, offsets_read, by_previous);
    input_pass::<CUBIC, INERT>(sh, &mut pack, &step, (given, own), a);
    if given.trans != 0 {
        start_transitions::<INERT>(sh, &mut pack, given.trans, a, shown);
    }
    let local = transitions::<INERT>(sh, &mut pack, &step, given.trans, (a, b));
    // The passes write only what moves: a root joint that does not move
    // (or only turns) keeps its rest values in the worker's scratch from
    // step to step, so the extraction below, which takes its place and
    // heading out of it, is undone once the pack's forward kinematics has
    // read it. Else the next step found the place already taken out and
    // reported the rest place's negation as a jump (a motionless clip's
    // root teleported and turned, `root_motion::a_root_that_does_not_move`).
    let scratch_root = match (sh.extract, sh.tracks.get(1)) {
        (true, Some(Track::Still | Track::Turns(_))) => Some(local[1]),
        _ => None,
    };
    if sh.extract {
        root_pass(sh, &mut pack, &step, &mut local[1], given, lod.as_ref());
    }
    let mut fetched_next = false;
    *pack.result = match &lod {
        Some(lod) if !plain(lod, &before) => {
            let next = match next_resumes {
                true => next_own::<INERT>(sh, &pack, local.len()),
                false => [Ahead::NONE; 3],
            };
            fetched_next = next_resumes;
            let at = (lod, before);
            lod_pass(sh, &mut pack, &step, (local, evaluated), at, &next)
        }
        _ => world_pass(sh, &mut pack, &step, local, given.trans),
    };
    if let Some(root) = scratch_root {
        local[1] = root;
    }
    fetched_next
}

/// Root motion extracted from the pack's root joint `m` (the crowd's
/// [`crate::crowd::RootMotion::Extract`]): the characters that jumped
/// this step (given new sources, a transition, resumed, or a layer's wrap
/// over the root) restart it; with level of detail, the lanes not due
/// carry their last step's ([`carry_root_motion`]).
#[inline(always)]
fn root_pass(
    sh: &Shared,
    pack: &mut Pack,
    step: &Stepx8,
    m: &mut Motionx8,
    given: Given,
    lod: Option<&LodStep>,
) {
    // The base sources' wraps are travel (their places walk on); a
    // layer's over the root is not.
    let layer_wraps = if sh.root_layered { step.wrapped } else { 0 };
    let jumped = given.played | given.trans | given.resumed | layer_wraps;
    let out = &mut *pack.root_motion;
    let before = *out;
    let up = Vec3x8::splat(sh.up);
    extract_root(m, &step.root, out, (jumped, sh.first), (splat(sh.dt), up));
    if let Some(lod) = lod {
        carry_root_motion(out, &before, !lod.due, sh.dt);
    }
}

/// The transitions a pack's step started (its events' bits).
#[inline(always)]
pub(super) fn pack_trans(pack: &Pack) -> u8 {
    pack.events[3]
}

/// The pack's state advanced by the step (its layers too, their sources'
/// moves into `layer_spans`), the markers
/// its sources (the base's and the layers') crossed kept, the roots given since the last step set
/// (before the queued commands, which never touch the root), and the
/// pack's commands applied in order; the step's events kept.
#[inline(always)]
fn commands(sh: &Shared, pack: &mut Pack, layer_spans: &mut [Spanx8]) -> (Happened, Given) {
    let (state, layers) = (&mut *pack.states, &mut *pack.layers);
    let happened = state.advance(splat(sh.dt), layers, layer_spans);
    if sh.markers.most > 0 {
        let src = Advanced {
            state,
            layers,
            happened: &happened,
            layer_spans,
        };
        let n = pack_markers(
            sh.markers,
            src,
            (pack.index, sh.characters),
            (sh.dt, sh.marker_weight),
            (pack.marks, Scan::Filtered),
        );
        *pack.mark_count = n as u32;
    }
    let places = &mut pack.root_motion.places;
    wrap_places(
        places,
        &happened.spans,
        [state.a.clip, state.b.clip],
        sh.rows,
    );
    let given_roots = std::mem::take(pack.root_set);
    if given_roots != 0 {
        state.set_roots(pack.roots, given_roots);
    }
    let (mut trans, mut played, mut placed) = (0u8, 0u8, 0u8);
    for (c, cmd) in pack.plan.commands(sh.commands) {
        let l = *c as usize % 8;
        placed |= (sets_base(cmd) as u8) << l;
        if let Command::SetPeriod { period, phase } = *cmd {
            pack.schedule.set(l, period, phase);
        }
        match state.apply(l, cmd, sh.rows, layers) {
            Applied::Transition => trans |= 1 << l,
            Applied::Jump => played |= 1 << l,
            Applied::Other => {}
        }
    }
    reset_places(places, placed);
    let given = Given {
        trans,
        played,
        resumed: 0,
    };
    (happened, given)
}

/// The pack's events of the `step` (`trans`: the lanes that started a
/// transition).
#[inline(always)]
fn events(pack: &mut Pack, step: &Stepx8, trans: u8) {
    let e = &mut *pack.events;
    *e = Default::default();
    e[..4].copy_from_slice(&[step.ended_a, step.ended_b, step.finished & !trans, trans]);
    e[4..][..step.layers.len].copy_from_slice(&step.layers.ended[..step.layers.len]);
}

/// The input, two sources blended, into `a`. Meanwhile rows are fetched
/// from memory a joint at a time, so that the fetching is spread over this
/// pack's work ([`fetched`]).
#[inline(always)]
fn input_pass<const CUBIC: bool, const INERT: bool>(
    sh: &Shared,
    pack: &mut Pack,
    step: &Stepx8,
    (given, own): (Given, (bool, bool, bool)),
    a: &mut [Motionx8],
) {
    let [first, second] = fetched::<INERT>(sh, pack, own, a.len());
    // The blend's hemispheres are chosen anew where the sources changed at
    // once (a command, a wrap around a clip, the first step), kept
    // elsewhere, so that a blend stays continuous however far apart its
    // sources turn.
    let anew = given.played | given.trans | given.resumed | step.wrapped;
    let fresh = mask(core::array::from_fn(|l| sh.first || anew & (1 << l) != 0));
    let flips = (&mut *pack.ab_flips, fresh);
    let places = &pack.root_motion.places;
    let ahead = [super::ahead::live(&first), super::ahead::live(&second)];
    input::<CUBIC>(sh, step, a, (flips, places), ahead);
    let fresh = match sh.first {
        true => 0xff,
        false => anew,
    };
    layers::<CUBIC>(
        sh,
        (step, &*pack.layers),
        a,
        (&mut *pack.layer_flips, fresh),
    );
}

/// The regions the two sampling passes fetch in parts: the next pack's
/// world output and kept state (the world's head in the first pass, its
/// tail and the state in the second), which the next pack then finds in
/// L2; or, where `own` (a pack with level of detail that is not plain:
/// [`lod_pass`] reads its anchors and offsets), this pack's own world
/// output and kept state, and its offsets where `lod_pass` reads them;
/// of those, where `by_previous` (the pack before it in the run fetched
/// them during its `lod_world`, [`next_own`]), only what that did not:
/// the offsets past half the L3, which [`next_own`] leaves.
#[inline(always)]
fn fetched<const INERT: bool>(
    sh: &Shared,
    pack: &Pack,
    (own, offsets_read, by_previous): (bool, bool, bool),
    joints: usize,
) -> [[Ahead; 2]; 2] {
    let [world, kept, lod] = own_rows::<INERT>(pack);
    if own {
        let parts = joints.saturating_sub(1);
        let region = |r: &[u8]| Ahead::new(r.as_ptr() as usize, r.len(), parts);
        let lod = match offsets_read && !(by_previous && next_own_fetches_offsets(sh)) {
            true => region(lod),
            false => Ahead::NONE,
        };
        return match by_previous {
            true => [[Ahead::NONE; 2], [lod, Ahead::NONE]],
            false => [[region(world), Ahead::NONE], [region(kept), lod]],
        };
    }
    let p = pack.index;
    let next = |a: Ahead, len: usize| match p + 1 < sh.packs {
        true => Ahead {
            addr: a.addr + (p + 1) * len,
            step: a.step,
        },
        false => Ahead::NONE,
    };
    let [head, tail] = sh.world_ahead.map(|w| next(w, world.len()));
    let kept_next = next(sh.kept_ahead, kept.len());
    [[head, Ahead::NONE], [tail, kept_next]]
}

/// Whether `cmd` sets the base sources (which start at their clips' own
/// place, [`crate::crowd::place`]).
pub(super) fn sets_base(cmd: &Command) -> bool {
    matches!(cmd, Command::Play { .. } | Command::Transition { .. })
}

/// Transitions started: the pose that would have been shown, computed for
/// the frame's transitioning characters together, becomes the new
/// offset's (or the extrapolation's) start in the `trans` lanes, against
/// the new input `a`.
#[inline(always)]
fn start_transitions<const INERT: bool>(
    sh: &Shared,
    pack: &mut Pack,
    trans: u8,
    a: &[Motionx8],
    shown: &mut [Motionx8],
) {
    let j = a.len();
    let lanes = (0..8).filter(|&l| trans & (1 << l) != 0);
    for (l, m) in lanes.zip(pack.plan.first_mover..) {
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
        // ground and face is not part of the transition (the game moves
        // and turns the character), only how they move: the shown root is
        // moved and turned onto the new sources' place, so no offset
        // slides or turns it there.
        let onto = onto_place(&shown[1], &a[1], Vec3x8::splat(sh.up));
        update_motion(m_trans, &onto, &mut shown[1]);
    }
    new_offsets::<INERT>(sh, pack, m_trans, (a, shown));
    if let (true, Some(p)) = (INERT, Profiles::of(sh.layout, pack.states.profile, m_trans)) {
        let kept = (&mut *pack.turns, &mut *pack.shifts);
        clear_snapped(m_trans, &p, sh.tracks, kept);
    }
}

/// The `m_trans` lanes' new inertialization offsets from the `shown` pose
/// to the input `a` (or dead blending's transition poses, and its fitted
/// half-lives).
#[inline(always)]
fn new_offsets<const INERT: bool>(
    sh: &Shared,
    pack: &mut Pack,
    m_trans: F32x8,
    (a, shown): (&[Motionx8], &[Motionx8]),
) {
    for (j, t) in sh.tracks.iter().enumerate().skip(1) {
        match (*t, INERT) {
            (Track::Still, _) => {}
            (Track::Turns(k), true) => {
                let turn = offset_between(&shown[j], &a[j]).0;
                update_turn(m_trans, &turn, &mut pack.turns[k]);
            }
            (Track::Moves(k, s), true) => {
                let (turn, shift) = offset_between(&shown[j], &a[j]);
                update_turn(m_trans, &turn, &mut pack.turns[k]);
                update_shift(m_trans, &shift, &mut pack.shifts[s]);
            }
            (_, false) => {
                update_motion(m_trans, &shown[j], &mut pack.transition[j]);
                if let Some(fit) = &sh.fit {
                    let rows = (&mut *pack.fit_rot, &mut *pack.fit_pos);
                    fit.joint(m_trans, (&shown[j], &a[j]), *t, rows);
                }
            }
        }
    }
}

/// The local pose: the input `a` where no transition runs in the pack,
/// else `b`, the input inertialized or dead-blended (lanes past their
/// transition pass through), each joint over its own duration where a
/// running transition has a blend profile.
#[inline(always)]
fn transitions<'s, const INERT: bool>(
    sh: &Shared,
    pack: &mut Pack,
    step: &Stepx8,
    trans: u8,
    (a, b): (&'s mut [Motionx8], &'s mut [Motionx8]),
) -> &'s mut [Motionx8] {
    let (bt, dur) = (step.blend_time, step.duration);
    let active = bt.simd_lt(dur);
    if !active.any() {
        return a;
    }
    let profiles = Profiles::of(sh.layout, step.profile, active);
    if INERT {
        let kept = (&*pack.turns, &*pack.shifts);
        match &profiles {
            None => inertialize_pass(b, a, kept, sh.tracks, &CubicWeights::new(bt, dur)),
            Some(p) => inertialize_profiled(b, a, kept, sh.tracks, (bt, dur), p),
        }
        return b;
    }
    let fresh = mask(core::array::from_fn(|l| trans & (1 << l) != 0));
    let kept = (&*pack.transition, (&mut *pack.dead_flips, fresh));
    if let Some(p) = &profiles {
        let tm = DeadTiming {
            t: bt,
            duration: dur,
            dt: splat(sh.dt),
            halflife: step.halflife,
            fitted: sh.fit.map(|_| (&*pack.fit_rot, &*pack.fit_pos)),
        };
        dead_blend_profiled(b, a, kept, sh.tracks, tm, p, opaque(active));
        return b;
    }
    let decay = match sh.fit {
        Some(_) => Decay::Fitted {
            t: bt,
            rot: &*pack.fit_rot,
            pos: &*pack.fit_pos,
        },
        None => {
            let (alpha, dalpha) = lanes::extrapolate_decayed_weights(bt, step.halflife);
            Decay::One(alpha, dalpha)
        }
    };
    let fade = fade(bt, dur, splat(sh.dt));
    dead_blend_pass(b, a, kept, sh.tracks, decay, fade, opaque(active));
    b
}

/// Forward kinematics of the `local` pose into the world output, parents
/// first, from joint 0, each character's root, growing the characters'
/// bounding boxes; the pack's figures: its
/// transitions (`trans`) and the velocity check against the previous
/// frame's output. Its boxes are then fresh (the schedule's `stale`).
#[inline(always)]
fn world_pass(
    sh: &Shared,
    pack: &mut Pack,
    step: &Stepx8,
    local: &[Motionx8],
    trans: u8,
) -> PackResult {
    pack.schedule.stale = 0;
    let half_dt = splat(0.5 * sh.dt);
    let (out, pose, skeleton) = (
        (&mut *pack.world, &mut *pack.bounds),
        (&step.root, local),
        (sh.parents, sh.tracks, sh.radii),
    );
    let check = if sh.check {
        fk_pass::<true>(out, pose, skeleton, sh.first, half_dt)
    } else {
        fk_pass::<false>(out, pose, skeleton, sh.first, half_dt)
    };
    figures(sh, pack, (check, trans), 0xff, local.len())
}

/// Each lane's largest coordinate of box `b`, in size.
#[inline(always)]
fn box_reach(b: &crate::crowd::bounds::Aabbx8) -> [f32; 8] {
    let big = |v: &Vec3x8| v.x.abs().fast_max(v.y.abs()).fast_max(v.z.abs());
    big(&b.min).fast_max(big(&b.max)).to_array()
}

/// A pack's figures: its transitions (`trans`, bits), the characters it
/// evaluated (`due`, bits) and its velocity check.
#[inline(always)]
pub(super) fn figures(
    sh: &Shared,
    pack: &Pack,
    (check, trans): (PackCheck, u8),
    due: u8,
    joints: usize,
) -> PackResult {
    let p = pack.index;
    let live = live_lanes(p, sh.characters);
    // Each character's largest coordinate, from its box (the velocity
    // check's rounding floor, `check::rounding_gap`), where it compares.
    let skipped = sh.first || !sh.check;
    let reach = match skipped {
        true => [0.0; 8],
        false => box_reach(pack.bounds),
    };
    let valid: [bool; 8] = core::array::from_fn(|i| live & (1 << i) != 0);
    let count = |bits: u8| (bits & live).count_ones();
    PackResult {
        ran: true,
        transitions: count(trans),
        evaluated: count(due),
        // With the check off, output that is not finite is counted all
        // the same.
        check: check.finish((p, valid), (joints, reach), (skipped, sh.frame), sh.dt),
    }
}
