//! One character's frame of the reference crowd ([`reference_frame`]), in
//! the order of the lanes crowd's passes: the pose it would have shown,
//! the input (its base and its layers), the transition's start, the local
//! pose, root motion and forward kinematics; what it then shows, checked,
//! is in `show`. Its pack's frame, which runs it for each evaluated
//! character, is in `pack`.

use super::layers::ref_layers;
use super::layers::{ref_clear_snapped, ref_dead_blend_profiled, ref_inertialize_profiled};
use super::lod::{CharLod, ref_evaluated};
use super::show::show;
use super::step::{CharStep, Crowdwide, Halflives, ref_sample};
use super::{RefScratch, RefState, SIZED};
use crate::crowd::VelocityCheck;
use crate::crowd::place::{Place, Up};
use crate::crowd::{RootDelta, RootMotion, Transition};
use crate::reference::{self as r, Pose};

/// The input of a step: its two sources blended at its weight, the
/// blend's hemispheres in `flips` ([`blend_with_flips`]), then its layers
/// ([`ref_layers`], their hemispheres in `layer_flips`).
fn ref_input(
    crowd: &Crowdwide,
    st: &CharStep,
    (s, flips, layer_flips): (&mut RefScratch, (&mut [bool], bool), &mut [bool]),
    out: &mut Pose,
) {
    let (cfg, clips) = (crowd.cfg, crowd.clips);
    let [pa, pb] = st.places;
    ref_sample(cfg, clips, (st.a, pa), st.root, &mut s.sample, &mut s.a);
    ref_sample(cfg, clips, (st.b, pb), st.root, &mut s.sample, &mut s.b);
    let fresh = flips.1;
    blend_with_flips(out, (&s.a, &s.b), flips, st.w, st.w_rate);
    out.set(0, st.root);
    let tmp = (&mut s.sample, &mut s.layer);
    ref_layers(crowd, st, tmp, (layer_flips, fresh), out);
}

/// Blends `a` into `b` joint by joint along the relative rotation
/// `±(b a⁻¹)`, negated where `flips[j]` says (`fresh`: chosen now, the
/// short way round; else kept from the transition, see
/// [`Clip::with_continuous_rotations`](crate::Clip::with_continuous_rotations)):
/// [`r::kform_blend_along`], the lanes crowd's `blend_kept`.
pub(super) fn blend_with_flips(
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
/// or dead-blended while its transition runs, each joint over its own
/// duration where the transition has a blend profile).
fn ref_local(
    crowd: &Crowdwide,
    (input, out): (&Pose, &mut Pose),
    ch: &mut RefState,
    s_extrapolated: &mut Pose,
    (st, fresh): (&CharStep, bool),
    dt: f32,
) {
    let cfg = crowd.cfg;
    if st.blend_time >= st.duration {
        out.clone_from(input);
        return;
    }
    let fitted = cfg.fit().map(|_| (&ch.fit_pos[..], &ch.fit_rot[..]));
    match (cfg.transition, st.profile) {
        (Transition::Inertialize, 0) => {
            r::op_inertialize(out, &ch.offset, input, st.blend_time, st.duration).expect(SIZED)
        }
        (Transition::Inertialize, _) => {
            ref_inertialize_profiled(out, &ch.offset, input, st, crowd.layout)
        }
        (Transition::DeadBlend, 0) => ref_dead_blend(
            out,
            s_extrapolated,
            (&ch.transition, input, fitted),
            (&mut ch.dead_flip, fresh),
            st,
            dt,
        ),
        (Transition::DeadBlend, _) => ref_dead_blend_profiled(
            out,
            (&ch.transition, input, fitted),
            (&mut ch.dead_flip, fresh),
            (st, crowd.layout),
            dt,
        ),
    }
    out.set(0, st.root);
}

/// One character's frame at step `st` (`old`: the step it would have
/// taken without its commands, where they start a transition), in the
/// order of the lanes crowd's passes: the pose it would have shown, the
/// input, the transition's start, the local pose (inertialized or
/// dead-blended), root motion, forward kinematics into its world pose,
/// checked against the previous frame's, and the pose's bounding box.
pub(super) fn reference_frame(
    crowd: &Crowdwide,
    (st, old): (&CharStep, Option<&CharStep>),
    ch: &mut RefState,
    s: &mut RefScratch,
    (character, frame, dt, jumped): (usize, u64, f32, bool),
    lod: Option<&CharLod>,
) -> VelocityCheck {
    let cfg = crowd.cfg;
    let first = frame == 0;
    let mut input = std::mem::take(&mut s.input);
    let mut local = std::mem::take(&mut s.local);
    let mut shown = std::mem::take(&mut s.shown);
    if let Some(old) = old {
        ref_shown(crowd, old, ch, s, dt, &mut shown);
    }
    // The blend's hemispheres are chosen anew where the sources changed at
    // once (a command, a wrap around a clip, the first step).
    let fresh = first || jumped || st.wrapped;
    let flips = (&mut ch.ab_flip[..], fresh);
    ref_input(crowd, st, (s, flips, &mut ch.layer_flip), &mut input);
    if old.is_some() {
        ref_start_transition(crowd, st, ch, &mut shown, &input);
    }
    s.shown = shown;
    let at = (st, old.is_some());
    ref_local(crowd, (&input, &mut local), ch, &mut s.extrapolated, at, dt);
    if cfg.root_motion == RootMotion::Extract {
        // The base sources' wraps are travel (their places walk on); a
        // layer's over the root is not.
        let layer_wrap = st.wrapped && crowd.layout.covers_root();
        let up = cfg.up_axis();
        ref_extract_root(&mut local, ch, st, (jumped || first || layer_wrap, dt), up);
    }
    s.input = input;
    r::op_fk(&mut s.global, &local, crowd.parents).expect(SIZED);
    s.local = local;
    let at = (character, frame, dt);
    match lod {
        Some(lod) => {
            ref_evaluated(&mut s.shown_lod, &mut s.carried, &s.global, ch, lod);
            show(cfg, &s.shown_lod, ch, at)
        }
        None => show(cfg, &s.global, ch, at),
    }
}

/// The pose a character would have shown at its `old` step, without its
/// commands, into `shown` (its blends' and layers' hemispheres kept, but
/// for a source that wraps).
fn ref_shown(
    crowd: &Crowdwide,
    old: &CharStep,
    ch: &mut RefState,
    s: &mut RefScratch,
    dt: f32,
    shown: &mut Pose,
) {
    let mut old_in = std::mem::take(&mut s.old);
    let mut flips = std::mem::take(&mut s.flips);
    let mut layer_flips = std::mem::take(&mut s.layer_flips);
    flips.clone_from(&ch.ab_flip);
    layer_flips.clone_from(&ch.layer_flip);
    let kept = (&mut *s, (&mut flips[..], old.wrapped), &mut layer_flips[..]);
    ref_input(crowd, old, kept, &mut old_in);
    s.flips = flips;
    s.layer_flips = layer_flips;
    let at = (old, false);
    ref_local(crowd, (&old_in, shown), ch, &mut s.extrapolated, at, dt);
    s.old = old_in;
}

/// A transition started at step `st`: the `shown` pose becomes the new
/// offset's (or the extrapolation's) start against the new `input` (the
/// joints that its blend profile snaps with no offset).
fn ref_start_transition(
    crowd: &Crowdwide,
    st: &CharStep,
    ch: &mut RefState,
    shown: &mut Pose,
    input: &Pose,
) {
    let cfg = crowd.cfg;
    // Root motion taken out: the shown root is moved and turned onto the
    // new sources' place (only its motion is blended).
    if cfg.root_motion == RootMotion::Extract {
        let up = cfg.up_axis();
        let (s, to) = (shown.get(1), input.get(1));
        let (from, onto) = (
            Place::of_root(s.pos, s.rot, up),
            Place::of_root(to.pos, to.rot, up),
        );
        shown.set(1, onto.then(from.inverse()).apply(&s));
    }
    match cfg.transition {
        Transition::Inertialize => {
            r::op_inertialize_offset(&mut ch.offset, shown, input).expect(SIZED);
            ref_clear_snapped(&mut ch.offset, crowd.layout, st.profile);
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
                )
                .expect(SIZED);
            }
        }
    }
}

/// Root motion taken out of the `local` pose: the clips' root joint's
/// place on the ground and heading about `up` removed (its height and
/// swing kept, its velocities those of what is left), and reported in
/// the world (the lanes crowd's `extract_root`): the displacement since
/// the last step measured in the heading taken out then, turned by the
/// character's root rotation, and the turn since then; their velocities
/// times `dt` where the sources `jumped` (a command moves them at once,
/// which is not travel), measured in this step's heading.
fn ref_extract_root(
    local: &mut Pose,
    ch: &mut RefState,
    st: &CharStep,
    (jumped, dt): (bool, f32),
    up: Up,
) {
    let (u, m) = (up.vec(), local.get(1));
    let now = Place::of_root(m.pos, m.rot, up);
    let rate = r::twist_rate(m.rot, m.ang, u);
    let vel = up.ground(m.vel);
    let untwist = r::quat_inv(now.rot);
    local.pos[1] = m.pos - now.pos;
    local.vel[1] = m.vel - vel;
    local.rot[1] = r::quat_mul(untwist, m.rot);
    local.ang[1] = r::quat_mul_vec3(untwist, m.ang) - u * rate;
    let from = if jumped { now } else { ch.removed };
    let to_world = r::quat_mul(st.root.rot, r::quat_inv(from.rot));
    let vel = r::quat_mul_vec3(to_world, vel);
    ch.root_motion = if jumped {
        RootDelta {
            displacement: vel * dt,
            velocity: vel,
            turn: rate * dt,
            turn_rate: rate,
        }
    } else {
        RootDelta {
            displacement: r::quat_mul_vec3(to_world, now.pos - from.pos),
            velocity: vel,
            turn: r::twist_angle(r::quat_inv_mul(from.rot, now.rot), u),
            turn_rate: rate,
        }
    };
    ch.removed = now;
}
