//! Level of detail in a pack's frame ([`crate::crowd::schedule`]): the
//! world output of a pack some of whose characters are carried, resumed
//! after being carried, or still hiding the gap of a resumption, written
//! joint by joint in place of forward kinematics' (which then writes the
//! evaluated pose into the worker's scratch), with the velocity check and
//! the bounding boxes of what is shown.

use super::fk::pack_bounds;
use crate::crowd::bounds::Aabbx8;
use crate::crowd::check::{PackCheck, write_world};
use crate::crowd::motion::{
    LodOffsetx8, Motionx8, inertialize_joint, offset_between, quat_exp_any_sinc, select_motion,
    update_motion, update_shift, update_turn,
};
use crate::crowd::schedule::{LOD_BLEND, LodStep, bits_mask};
use crate::lanes::{self, CubicWeights, F32x8, splat};

/// The pack's kept level-of-detail state: each joint's anchor (the last
/// evaluated world pose) and offset, and which lanes' anchors are kept
/// (the others' is the last step's world output).
pub(super) struct Kept<'a> {
    pub anchor: &'a mut [Motionx8],
    pub offset: &'a mut [LodOffsetx8],
    pub anchored: u8,
}

/// Writes the pack's world output for a step with level of detail `lod`
/// (module docs): per joint, the pose each character shows carried (its
/// anchor extrapolated over `lod.tau` along its velocities, with its
/// running offset at `lod.t_old`); where the pack was evaluated
/// (`evaluated`, the world pose forward kinematics gave), the resumed
/// lanes' new offsets from that carried pose to the evaluated one, and in
/// the evaluated lanes the evaluated pose with its offset at `lod.t_new`.
/// Each joint checked against the previous step's output when `CHECK`
/// and not `first` ([`write_world`]); then the bounding boxes of the
/// output. Every anchor is kept after it.
#[inline(never)]
pub(super) fn lod_world<const CHECK: bool>(
    (world, bounds): (&mut [Motionx8], &mut Aabbx8),
    kept: Kept,
    evaluated: Option<&[Motionx8]>,
    lod: &LodStep,
    (radii, first, half_dt): (Option<&[f32]>, bool, F32x8),
) -> PackCheck {
    let mut check = PackCheck::EMPTY;
    let skip = first || !CHECK;
    let unanchored = bits_mask(!kept.anchored);
    let (m_due, m_resumed) = (bits_mask(lod.due), bits_mask(lod.resumed));
    let half_tau = lod.tau * splat(0.5);
    let all_anchored = kept.anchored == 0xff;
    let blend = splat(LOD_BLEND);
    let (run_old, run_new) = (LodStep::running(lod.t_old), LodStep::running(lod.t_new));
    let (w_old, w_new) = (
        CubicWeights::new(lod.t_old, blend),
        CubicWeights::new(lod.t_new, blend),
    );
    let rows = kept.anchor.iter_mut().zip(kept.offset.iter_mut());
    for (j, (anchor, offset)) in rows.enumerate() {
        let a = match all_anchored {
            true => *anchor,
            false => select_motion(unanchored, &world[j], anchor),
        };
        let x = carry(&a, (lod.tau, half_tau));
        let carried = offset_on(&x, offset, (run_old, &w_old));
        let g = match evaluated {
            None => {
                if !all_anchored {
                    *anchor = a;
                }
                carried
            }
            Some(e) => {
                let e = &e[j];
                if lod.resumed != 0 {
                    let (turn, shift) = offset_between(&carried, e);
                    update_turn(m_resumed, &turn, &mut offset.turn);
                    update_shift(m_resumed, &shift, &mut offset.shift);
                }
                let shown = offset_on(e, offset, (run_new, &w_new));
                *anchor = a;
                update_motion(m_due, e, anchor);
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
