//! The layers pass, right after the base's sampling in a pack's frame
//! (and in the shown poses): each layer of the crowd in order, on the pose
//! below it ([`crate::crowd::layer`]): its source sampled on its mask's
//! joints only, then overridden or added in, joint by joint, while the
//! pose stays in L1. A layer whose weight is zero and still in all eight
//! lanes is skipped, its source not sampled.

use super::sampling::Sampler;
use super::shared::Shared;
use crate::crowd::layer::LayerPlan;
use crate::crowd::motion::*;
use crate::crowd::state::{LayerLanes, LayerStep, Stepx8};
use crate::database::{Gather, Rows};
use crate::lanes::{F32x8, I32x8, splat};

/// One layer of a crowd as the passes walk it: the crowd joints its mask
/// weighs above zero that move in some clip, with their weights (a still
/// joint's pose is the same in every clip, so no layer changes it), and
/// an additive layer's reference frame.
#[derive(Clone, Debug)]
pub(crate) struct LayerPass {
    reference: Option<i32>,
    joints: Vec<(usize, F32x8)>,
}

impl LayerPass {
    /// `plan` on a crowd whose joints do as `tracks` say.
    pub(crate) fn of(plan: &LayerPlan, tracks: &[Track]) -> LayerPass {
        let joints = plan
            .mask
            .iter()
            .zip(tracks)
            .enumerate()
            .filter(|(_, (m, t))| **m > 0.0 && **t != Track::Still)
            .map(|(j, (m, _))| (j, splat(*m)))
            .collect();
        LayerPass {
            reference: plan.reference.map(|f| i32::try_from(f).unwrap_or(i32::MAX)),
            joints,
        }
    }

    /// The layer at step `ls` applied on `a`, joint by joint: its source
    /// sampled at the joint, then the slerp toward it ([`blend_kept`]) or
    /// the delta from its clip's reference frame added ([`additive_kept`]),
    /// at the mask's weight times the layer's (and its rate), each joint's
    /// hemisphere in `flips` (chosen anew in the `fresh` lanes).
    #[inline(never)]
    fn apply<const CUBIC: bool>(
        &self,
        sh: &Shared,
        ls: &LayerStep,
        a: &mut [Motionx8],
        flips: (&mut [u8], F32x8),
    ) {
        match sh.db.rows() {
            Rows::Full(g) => self.apply_from::<CUBIC, _>(g, sh, ls, a, flips),
            Rows::Compact(g) => self.apply_from::<CUBIC, _>(g, sh, ls, a, flips),
            Rows::Stepped(g) => self.apply_from::<CUBIC, _>(g, sh, ls, a, flips),
        }
    }

    /// [`LayerPass::apply`] from the rows `g` (full or compact).
    #[inline(always)]
    fn apply_from<const CUBIC: bool, G: Gather>(
        &self,
        g: G,
        sh: &Shared,
        ls: &LayerStep,
        a: &mut [Motionx8],
        (flips, fresh): (&mut [u8], F32x8),
    ) {
        let sampler = Sampler::new(g, sh);
        let rows = SampleRows::new::<CUBIC, _>(&g, sh.db.frame_time(), &ls.at);
        rows.prefetch::<CUBIC, _>(&g);
        let refs = self.reference.map(|f| {
            let k = I32x8::splat(f).min(ls.at.last);
            g.frames(k, ls.at.start, ls.at.last)
        });
        for &(j, m) in &self.joints {
            let (alpha, rate) = (m * ls.w, m * ls.rate);
            let y = sampler.joint::<CUBIC>(&rows, j - 1);
            let flip = (&mut flips[j], fresh);
            let out = match &refs {
                None => blend_kept(&a[j], &y, flip, alpha, rate),
                Some(r) => {
                    let frame = g.gather(r, j - 1);
                    additive_kept(&a[j], &y, (frame.rot, frame.pos), flip, alpha, rate)
                }
            };
            match sh.tracks[j] {
                Track::Moves(..) => a[j] = out,
                _ => put_turn(&mut a[j], out),
            }
        }
    }
}

/// Each layer of the step `st` (of the layers' `lanes` as it left them)
/// applied on the pose `a`, in order; the layers' hemispheres in `flips`
/// (row `k j + joint` for layer `k`), chosen anew in the lanes of `fresh`
/// (bits: the sources jumped) and where the layer is idle
/// ([`LayerStep::idle`]). A layer still at weight zero in all
/// eight lanes is skipped.
#[inline(always)]
pub(super) fn layers<const CUBIC: bool>(
    sh: &Shared,
    (st, lanes): (&Stepx8, &[LayerLanes]),
    a: &mut [Motionx8],
    (flips, fresh): (&mut [u8], u8),
) {
    let j = a.len();
    for (k, (layer, ls)) in sh.layers.iter().zip(st.layers.steps(lanes)).enumerate() {
        let still = ls.w.simd_eq(F32x8::ZERO) & ls.rate.simd_eq(F32x8::ZERO);
        if still.all() {
            continue;
        }
        let rows = &mut flips[k * j..][..j];
        layer.apply::<CUBIC>(sh, &ls, a, (rows, lane_mask(fresh | ls.idle)));
    }
}
