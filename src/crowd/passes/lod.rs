//! Level of detail in a pack's frame ([`crate::crowd::schedule`]): the
//! world output of an evaluated pack some of whose characters are
//! carried, resumed after being carried, or still hiding the gap of a
//! resumption, written joint by joint in place of forward kinematics'
//! (which then writes the evaluated pose into the worker's scratch), with
//! the velocity check and the bounding boxes of what is shown; and what a
//! pack none of whose characters was evaluated shows, made when it is
//! read ([`Carried`]).

use super::fk::pack_bounds;
use crate::crowd::bounds::Aabbx8;
use crate::crowd::check::{PackCheck, write_world};
use crate::crowd::motion::ShiftOffsetx8;
use crate::crowd::motion::{
    LodOffsetx8, Motionx8, inertialize_joint, offset_between, quat_exp_any_sinc, select_motion,
    update_motion, update_shift, update_turn,
};
use crate::crowd::schedule::{LOD_BLEND, LodStep, Schedulex8, bits_mask};
use crate::lanes::{self, CubicWeights, F32x8, Vec3x8, splat};

/// The pack's kept level-of-detail state: each joint's anchor (the last
/// evaluated world pose) and offset, and which lanes' anchors are kept
/// (the others' is the last step's world output).
pub(super) struct Kept<'a> {
    pub anchor: &'a mut [Motionx8],
    pub offset: &'a mut [LodOffsetx8],
    pub anchored: u8,
}

/// The clock of a carried pose: seconds since each anchor (`tau`) and
/// into each running offset (`t`; [`LOD_BLEND`] and more: none).
#[derive(Clone, Copy)]
struct Clock {
    tau: F32x8,
    half_tau: F32x8,
    running: F32x8,
    w: CubicWeights,
}

impl Clock {
    #[inline(always)]
    fn at(tau: F32x8, t: F32x8) -> Clock {
        Clock {
            tau,
            half_tau: tau * splat(0.5),
            running: LodStep::running(t),
            w: CubicWeights::new(t, splat(LOD_BLEND)),
        }
    }

    /// The position and velocity of [`Clock::shown`] (world-space offsets
    /// move positions apart from rotations).
    #[inline(always)]
    fn moving(&self, a: &Motionx8, shift: &ShiftOffsetx8) -> (Vec3x8, Vec3x8) {
        let (pos, vel) = (a.pos + a.vel * self.tau, a.vel);
        if !self.running.any() {
            return (pos, vel);
        }
        let (z, r) = (Vec3x8::ZERO, self.running);
        let off = self.w.offset(shift.pos, shift.vel);
        let dv = self.w.velocity(shift.pos, shift.vel);
        let on =
            |v: Vec3x8| Vec3x8::new(r.select(v.x, z.x), r.select(v.y, z.y), r.select(v.z, z.z));
        (pos + on(off), vel + on(dv))
    }

    /// The pose shown carried from anchor `a` with `offset` at this clock:
    /// [`carry`], then the offset where it runs ([`offset_on`]).
    #[inline(always)]
    fn shown(&self, a: &Motionx8, offset: &LodOffsetx8) -> Motionx8 {
        let x = carry(a, (self.tau, self.half_tau));
        offset_on(&x, offset, (self.running, &self.w))
    }
}

/// A pack whose last step evaluated none of its characters
/// ([`Schedulex8::stale`]): its step wrote nothing, and what it shows is
/// made here when it is read, joint by joint, from its anchors (the
/// `lod_anchor` rows where the schedule's `anchored` says, else its world
/// rows, which then still hold the pose it was last shown evaluated), its
/// offsets and its schedule's clocks: the same pose the step would have
/// written ([`lod_world`] without an evaluated pose). So a carried pack
/// costs its step O(1), not O(joints).
pub(crate) struct Carried<'a> {
    world: &'a [Motionx8],
    anchor: &'a [Motionx8],
    offset: &'a [LodOffsetx8],
    unanchored: F32x8,
    all_anchored: bool,
    clock: Clock,
}

impl<'a> Carried<'a> {
    /// Pack rows `world`, `anchor` and `offset` under `sched`, when the
    /// pack is stale (else `None`: its world rows are what it shows).
    #[inline]
    pub(crate) fn of(
        sched: &Schedulex8,
        world: &'a [Motionx8],
        anchor: &'a [Motionx8],
        offset: &'a [LodOffsetx8],
    ) -> Option<Carried<'a>> {
        (sched.stale != 0).then(|| Carried {
            world,
            anchor,
            offset,
            unanchored: bits_mask(!sched.anchored),
            all_anchored: sched.anchored == 0xff,
            clock: Clock::at(sched.since_eval, sched.since_offset),
        })
    }

    /// Joint `j`'s anchor (the last evaluated world pose).
    #[inline(always)]
    fn anchor(&self, j: usize) -> Motionx8 {
        match self.all_anchored {
            true => self.anchor[j],
            false => select_motion(self.unanchored, &self.world[j], &self.anchor[j]),
        }
    }

    /// Joint `j` as the pack shows it.
    #[inline(always)]
    pub(crate) fn joint(&self, j: usize) -> Motionx8 {
        self.clock.shown(&self.anchor(j), &self.offset[j])
    }

    /// The joint whose world row is `row` (one of this pack's world rows):
    /// its place in the rows, from the addresses (no `unsafe`: integers).
    #[inline(always)]
    pub(crate) fn index(&self, row: &Motionx8) -> usize {
        let at = row as *const Motionx8 as usize - self.world.as_ptr() as usize;
        at / size_of::<Motionx8>()
    }

    /// The characters' boxes as shown ([`pack_bounds`] of the joints
    /// [`Carried::joint`] gives, padded by `radii` where given).
    pub(crate) fn bounds(&self, radii: Option<&[f32]>) -> Aabbx8 {
        let mut check = PackCheck::EMPTY;
        let mut b = Aabbx8::EMPTY;
        let mut scratch = Motionx8::REST;
        for j in 0..self.world.len() {
            let g = self.joint(j);
            write_world(
                &mut scratch,
                &g,
                (F32x8::ZERO, true),
                F32x8::ZERO,
                &mut check,
            );
            match (j, radii) {
                (0, _) => {}
                (_, Some(r)) => b.grow(&g.pos, splat(r[j])),
                (_, None) => b.grow_point(&g.pos),
            }
        }
        b.finished(check.finite())
    }

    /// The pack's carried pose written into its world rows and its anchors
    /// all kept in the `lod_anchor` rows, as its step would have done
    /// ([`Crowd::settle`](crate::crowd::Crowd::settle)).
    pub(crate) fn settle(
        sched: &mut Schedulex8,
        (world, bounds): (&mut [Motionx8], &mut Aabbx8),
        (anchor, offset): (&mut [Motionx8], &[LodOffsetx8]),
        radii: Option<&[f32]>,
    ) {
        if sched.stale == 0 {
            return;
        }
        let unanchored = bits_mask(!sched.anchored);
        let clock = Clock::at(sched.since_eval, sched.since_offset);
        let mut check = PackCheck::EMPTY;
        for (j, (w, a)) in world.iter_mut().zip(anchor.iter_mut()).enumerate() {
            *a = select_motion(unanchored, w, a);
            let g = clock.shown(a, &offset[j]);
            write_world(w, &g, (F32x8::ZERO, true), F32x8::ZERO, &mut check);
        }
        *bounds = pack_bounds(world, radii, &check);
        sched.anchored = 0xff;
        sched.stale = 0;
    }
}

/// Writes the pack's world output for a step with level of detail `lod`
/// (module docs) that evaluates some of its characters (`evaluated`, the
/// world pose forward kinematics gave): per joint, the pose each character
/// shows carried (its anchor extrapolated over `lod.tau` along its
/// velocities, with its running offset at `lod.t_old`); the resumed
/// lanes' new offsets from that carried pose to the evaluated one, and in
/// the evaluated lanes the evaluated pose with its offset at `lod.t_new`.
/// Each joint checked against the previous step's output when `CHECK`
/// and not `first` ([`write_world`]): where the pack was stale (`stale`,
/// its schedule's clocks before this step), that output is the carried
/// pose it showed, made again here ([`Carried`]). Then the bounding boxes
/// of the output. Every anchor is kept after it.
#[inline(never)]
pub(super) fn lod_world<const CHECK: bool>(
    (world, bounds): (&mut [Motionx8], &mut Aabbx8),
    kept: Kept,
    evaluated: &[Motionx8],
    (lod, stale): (&LodStep, Option<(F32x8, F32x8)>),
    (radii, first, half_dt): (Option<&[f32]>, bool, F32x8),
) -> PackCheck {
    let mut check = PackCheck::EMPTY;
    let skip = first || !CHECK;
    let unanchored = bits_mask(!kept.anchored);
    let (m_due, m_resumed) = (bits_mask(lod.due), bits_mask(lod.resumed));
    let all_anchored = kept.anchored == 0xff;
    let old = Clock::at(lod.tau, lod.t_old);
    let (run_new, w_new) = (
        LodStep::running(lod.t_new),
        CubicWeights::new(lod.t_new, splat(LOD_BLEND)),
    );
    let before = stale.map(|(tau, t)| Clock::at(tau, t));
    // Whether every due lane resumes (no due lane shows an offset already
    // running, nor none).
    let fresh_only = lod.due == lod.resumed;
    let rows = kept.anchor.iter_mut().zip(kept.offset.iter_mut());
    for (j, (anchor, offset)) in rows.enumerate() {
        let a = match all_anchored {
            true => *anchor,
            false => select_motion(unanchored, &world[j], anchor),
        };
        if let (Some(before), false) = (&before, skip) {
            // The check reads the previous output's positions and
            // velocities only.
            let (pos, vel) = before.moving(&a, &offset.shift);
            world[j].pos = pos;
            world[j].vel = vel;
        }
        let carried = old.shown(&a, offset);
        let e = &evaluated[j];
        if lod.resumed != 0 {
            let (turn, shift) = offset_between(&carried, e);
            update_turn(m_resumed, &turn, &mut offset.turn);
            update_shift(m_resumed, &shift, &mut offset.shift);
        }
        *anchor = a;
        update_motion(m_due, e, anchor);
        let g = match fresh_only {
            // Each due lane resumed: its offset at 0 is the whole gap, so
            // it shows the carried pose (`e` plus the offset at `t_new`
            // = 0 is `carried`, to rounding).
            true => carried,
            false => {
                let shown = offset_on(e, offset, (run_new, &w_new));
                select_motion(m_due, &shown, &carried)
            }
        };
        write_world(
            &mut world[j],
            &g,
            (splat(j as f32), skip),
            half_dt,
            &mut check,
        );
    }
    *bounds = pack_bounds(world, radii, &check);
    check
}

/// `a` carried `tau` seconds along its velocities, which it keeps:
/// `p + v τ`, `exp(ω τ / 2) q` (`half_tau` is `τ / 2`; the reference's
/// `ref_carry`).
#[inline(always)]
fn carry(a: &Motionx8, (tau, half_tau): (F32x8, F32x8)) -> Motionx8 {
    let (turn, _) = quat_exp_any_sinc(a.ang * half_tau);
    Motionx8 {
        pos: a.pos + a.vel * tau,
        rot: lanes::quat_mul(turn, a.rot),
        vel: a.vel,
        ang: a.ang,
    }
}

/// `pose` with `offset` decayed by `w` applied in the `running` lanes
/// ([`inertialize_joint`]), as it is in the others.
#[inline(always)]
fn offset_on(
    pose: &Motionx8,
    offset: &LodOffsetx8,
    (running, w): (F32x8, &CubicWeights),
) -> Motionx8 {
    if !running.any() {
        return *pose;
    }
    let o = inertialize_joint(&offset.turn, &offset.shift, pose, w);
    select_motion(running, &o, pose)
}
