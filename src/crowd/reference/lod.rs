//! Level of detail in the reference crowd, one character at a time
//! ([`crate::crowd::schedule`]; the lanes crowd's `passes::lod`): the pose
//! a character shows carried, and the one it shows evaluated.

use super::{RefState, SIZED};
use crate::crowd::schedule::LodStep;
use crate::reference::{self as r, Kform, Pose};

/// One character's level of detail in a step, read out of its pack's
/// [`LodStep`].
#[derive(Clone, Copy, Debug)]
pub(super) struct CharLod {
    /// Evaluated this step.
    pub due: bool,
    /// Evaluated after being carried last step: its offset starts now.
    pub resumed: bool,
    /// Seconds since its anchor was evaluated.
    pub tau: f32,
    /// Seconds into its offset, before and after this step's resumption.
    pub t_old: f32,
    pub t_new: f32,
    /// Its offset's blend (seconds), before and after this step's
    /// resumption ([`crate::crowd::schedule::offset_blend`]).
    pub blend_old: f32,
    pub blend_new: f32,
}

impl CharLod {
    /// Lane `l` of `lod`.
    pub(super) fn of(lod: &LodStep, l: usize) -> CharLod {
        let at = |x: crate::lanes::F32x8| x.to_array()[l];
        CharLod {
            due: lod.due & (1 << l) != 0,
            resumed: lod.resumed & (1 << l) != 0,
            tau: at(lod.tau),
            t_old: at(lod.t_old),
            t_new: at(lod.t_new),
            blend_old: at(lod.blend_old),
            blend_new: at(lod.blend_new),
        }
    }
}

/// Joint `k` carried `tau` seconds along its velocities, which it keeps:
/// `p + v τ`, `exp(ω τ) q` (a scaled angle axis, [`r::quat_from_scaled_angle_axis`]).
pub(super) fn ref_carry(k: &Kform, tau: f32) -> Kform {
    Kform {
        pos: k.pos + k.vel * tau,
        rot: r::quat_mul(r::quat_from_scaled_angle_axis(k.ang * tau), k.rot),
        ..*k
    }
}

/// The pose `ch` shows carried, into `out`: each joint of its anchor
/// carried over `lod.tau` ([`ref_carry`]), its offset applied at
/// `lod.t_old` while it runs ([`r::kform_inertialize`]).
pub(super) fn ref_carried(out: &mut Pose, ch: &RefState, lod: &CharLod) {
    for j in 0..out.len() {
        let x = ref_carry(&ch.anchor.get(j), lod.tau);
        let k = match lod.t_old < lod.blend_old {
            true => r::kform_inertialize(&ch.lod_offset.get(j), &x, lod.t_old, lod.blend_old),
            false => x,
        };
        out.set(j, k);
    }
}

/// The pose `ch` shows evaluated at `evaluated`, into `out`: where it
/// resumes, its new offset from the pose it shows carried (computed into
/// `carried`) to the evaluated one ([`r::op_inertialize_offset`]), and the
/// carried pose (the evaluated one with the whole offset); elsewhere its
/// offset applied at `lod.t_new` while it runs. The evaluated pose becomes
/// its anchor.
pub(super) fn ref_evaluated(
    out: &mut Pose,
    carried: &mut Pose,
    evaluated: &Pose,
    ch: &mut RefState,
    lod: &CharLod,
) {
    if lod.resumed {
        ref_carried(carried, ch, lod);
        // `lod_offset`, `carried` and `evaluated` are the crowd's own poses,
        // each allocated with the skeleton's joints in `RefState::try_new`
        // and never resized: the length check cannot refuse them.
        r::op_inertialize_offset(&mut ch.lod_offset, carried, evaluated).expect(SIZED);
    }
    if lod.resumed {
        // Its offset at 0 is the whole gap: it shows the carried pose.
        out.clone_from(carried);
        ch.anchor.clone_from(evaluated);
        return;
    }
    for j in 0..out.len() {
        let e = evaluated.get(j);
        let k = match lod.t_new < lod.blend_new {
            true => r::kform_inertialize(&ch.lod_offset.get(j), &e, lod.t_new, lod.blend_new),
            false => e,
        };
        out.set(j, k);
    }
    ch.anchor.clone_from(evaluated);
}
