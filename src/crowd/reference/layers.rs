//! The reference crowd's layers and blend profiles, one character at a
//! time through [`crate::reference`]: each layer's source sampled and
//! overridden ([`r::kform_blend_along`]) or added ([`r::kform_additive_along`])
//! joint by joint on its mask, and transitions whose blend profile gives
//! each joint its own duration ([`r::kform_inertialize`], dead blending's
//! [`r::kform_extrapolate_decayed`] and fade) or snaps it.

use super::step::{CharStep, Crowdwide, Halflives, ref_sample};
use crate::crowd::layer::Layout;
use crate::crowd::place::Place;
use crate::reference::{self as r, Kform, Pose};

/// `rel` in the hemisphere `flip` keeps, chosen now (the short way round)
/// where `fresh`.
fn kept(rel: r::Quat, flip: &mut bool, fresh: bool) -> r::Quat {
    if fresh {
        *flip = rel.w < 0.0;
    }
    if *flip { -rel } else { rel }
}

/// A character's layers at step `st` on its base pose `out`, in order
/// (the lanes crowd's `passes::layers`): each layer's source sampled into
/// `layer` (`tmp` the clip's pose), then on every joint its mask weighs
/// above zero, at the mask's weight times the layer's, the slerp toward it
/// (override) or its delta from its clip's reference frame added
/// (additive). Each joint's hemisphere is in `flips` (row `k j + joint`),
/// chosen anew where `fresh` (the sources jumped) or the layer is idle.
pub(super) fn ref_layers(
    crowd: &Crowdwide,
    st: &CharStep,
    (tmp, layer): (&mut Pose, &mut Pose),
    (flips, fresh): (&mut [bool], bool),
    out: &mut Pose,
) {
    let j = out.len();
    for (k, plan) in crowd.layout.layers.iter().enumerate().take(st.nlayers) {
        let ls = &st.layers[k];
        ref_sample(
            crowd.cfg,
            crowd.clips,
            (ls.src, Place::IDENTITY),
            st.root,
            tmp,
            layer,
        );
        let clip = &crowd.clips[ls.src.0];
        let frame = plan.reference.map(|f| f.min(clip.frames() - 1));
        let rows = &mut flips[k * j..][..j];
        for (joint, &m) in plan.mask.iter().enumerate().skip(1) {
            if m <= 0.0 {
                continue;
            }
            let (x, s) = (out.get(joint), layer.get(joint));
            let (alpha, rate) = (m * ls.w, m * ls.rate);
            let flip = &mut rows[joint];
            let y = match frame {
                None => {
                    let rel = kept(r::quat_mul_inv(s.rot, x.rot), flip, fresh || ls.idle);
                    r::kform_blend_along(&x, &s, rel, alpha, rate)
                }
                Some(f) => {
                    let cj = joint - 1;
                    let delta = Kform {
                        pos: s.pos - clip.pos_at(f, cj),
                        rot: r::quat_mul_inv(s.rot, clip.rot_at(f, cj)),
                        scl: s.scl / clip.scl_at(f, cj),
                        ..s
                    };
                    let rel = kept(delta.rot, flip, fresh || ls.idle);
                    r::kform_additive_along(&x, &delta, rel, alpha, rate)
                }
            };
            out.set(joint, y);
        }
    }
}

/// At a transition's start, the offsets of the joints that its blend
/// profile (row `profile`) snaps cleared: they show the new pose at once.
pub(super) fn ref_clear_snapped(offset: &mut Pose, layout: &Layout, profile: usize) {
    if profile == 0 {
        return;
    }
    for j in 1..offset.len() {
        if layout.scale(profile, j) == 0.0 {
            offset.set(j, Kform::IDENTITY);
        }
    }
}

/// Inertialization ([`r::op_inertialize`]) with each joint's offset
/// decayed over its own duration, the step's times `duration` its blend
/// profile's scale.
pub(super) fn ref_inertialize_profiled(
    out: &mut Pose,
    offset: &Pose,
    input: &Pose,
    st: &CharStep,
    layout: &Layout,
) {
    for j in 0..out.len() {
        let d = st.duration * layout.scale(st.profile, j);
        let k = r::kform_inertialize(&offset.get(j), &input.get(j), st.blend_time, d);
        out.set(j, k);
    }
}

/// Dead blending ([`r::op_dead_blending`], as the reference crowd's
/// `ref_dead_blend`) with each joint's fade over its own duration and its
/// extrapolation at its own half-lives (the command's, or the fitted
/// ones, times its blend profile's scale); a joint that snaps shows the
/// input. Joint 0 is the caller's (the character's root).
pub(super) fn ref_dead_blend_profiled(
    out: &mut Pose,
    (transition, input, fitted): (&Pose, &Pose, Option<Halflives>),
    (flips, fresh): (&mut [bool], bool),
    (st, layout): (&CharStep, &Layout),
    dt: f32,
) {
    let t = st.blend_time;
    for (j, flip) in flips.iter_mut().enumerate().take(out.len()).skip(1) {
        let s = layout.scale(st.profile, j);
        let tp = transition.get(j);
        let e = match fitted {
            Some((pos, rot)) => {
                let w = |h: r::Vec3| r::extrapolate_decayed_axis_weights(t, h * s);
                r::kform_extrapolate_decayed_axes(&tp, w(pos[j]), w(rot[j]))
            }
            None => {
                let (alpha, dalpha) = r::extrapolate_decayed_weights(t, st.halflife * s);
                r::kform_extrapolate_decayed(&tp, alpha, dalpha)
            }
        };
        let d = st.duration * s;
        let (alpha, rate) = match s == 0.0 {
            true => (1.0, 0.0),
            false => (
                r::smoothstep_blend_alpha(t, d),
                r::weight_rate(r::smoothstep_blend_alpha_dx(t, d, dt), dt),
            ),
        };
        let x = input.get(j);
        let rel = kept(r::quat_mul_inv(x.rot, e.rot), flip, fresh);
        out.set(j, r::kform_blend_along(&e, &x, rel, alpha, rate));
    }
}
