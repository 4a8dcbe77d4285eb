//! One pack's frame, the driver of the passes, run for every pack in
//! parallel once the shown poses are known: what a pack's frame reads
//! ([`Shared`]), the pack's share of the kept state ([`PackState`], cut
//! from the crowd's by [`per_pack`]), the step itself ([`step_pack`]) that
//! runs the passes in order, and what it reports ([`PackResult`]).

use super::ahead::Ahead;
use super::fk::fk_pass;
use super::root_motion::{RootMotionx8, extract_root};
use super::sampling::input;
use super::scratch::PackScratch;
use super::transition::{dead_blend_pass, fade, inertialize_pass};
use crate::crowd::Root;
use crate::crowd::command::Command;
use crate::crowd::halflives::{Decay, Fit};
use crate::crowd::motion::*;
use crate::crowd::state::{ClipRows, Statex8};
use crate::database::Database;
use crate::lanes::{self, CubicWeights, Vec3x8, splat};
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
    pub check: crate::crowd::VelocityCheck,
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
        // With the check off, output that is not finite is counted all
        // the same.
        check: check.finish(
            (p, valid),
            local.len(),
            (sh.first || !sh.check, sh.frame),
            sh.dt,
        ),
    }
}

/// `v` cut into `packs` slices of `per` items (empty ones when `v` is).
pub(crate) fn per_pack<T>(v: &mut [T], per: usize, packs: usize) -> Vec<&mut [T]> {
    if v.is_empty() || per == 0 {
        (0..packs).map(|_| &mut [][..]).collect()
    } else {
        v.chunks_mut(per).collect()
    }
}
