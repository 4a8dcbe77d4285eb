//! One pack's frame of the reference crowd ([`reference_pack`]) and each
//! character's within it ([`reference_frame`]), in the order of the lanes
//! crowd's passes: the pose it would have shown, the input (its base and
//! its layers), the transition's start, the local pose, root motion,
//! forward kinematics and the velocity check.

use super::bounds::ref_bounds;
use super::layers::ref_layers;
use super::layers::{ref_clear_snapped, ref_dead_blend_profiled, ref_inertialize_profiled};
use super::lod::{CharLod, ref_carried, ref_evaluated};
use super::{RefScratch, RefState, SIZED};
use crate::clip::Clip;
use crate::crowd::VelocityCheck;
use crate::crowd::check::GapAt;
use crate::crowd::command::Command;
use crate::crowd::layer::Layout;
use crate::crowd::markers::Advanced;
use crate::crowd::place::{Place, Up, wrap_place};
use crate::crowd::schedule::{Schedulex8, live_lanes};
use crate::crowd::state::{Applied, ClipRows, LayerLanes, Spanx8, Statex8, Stepx8};
use crate::crowd::store::EventBits;
use crate::crowd::{
    CrowdConfig, FrameStats, MAX_LAYERS, RootDelta, RootMotion, Sampling, Transition,
};
use crate::lanes::F32x8;
use crate::reference::{self as r, Kform, Pose, Vec3};

/// What every character's frame reads of the crowd: its configuration,
/// clips, hierarchy and resolved layers and profiles.
#[derive(Clone, Copy)]
pub(super) struct Crowdwide<'a> {
    pub cfg: &'a CrowdConfig,
    pub clips: &'a [Clip],
    pub parents: &'a [i32],
    pub layout: &'a Layout,
}

/// One layer of one character's step: its source (clip, time, rate), its
/// weight and the weight's rate, and whether its hemispheres are chosen
/// anew (it is idle, or was before the step).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct CharLayer {
    pub src: (usize, f32, f32),
    pub w: f32,
    pub rate: f32,
    pub idle: bool,
}

/// One character's step, read out of its pack's lanes.
#[derive(Clone, Copy)]
pub(super) struct CharStep {
    pub a: (usize, f32, f32),
    pub b: (usize, f32, f32),
    pub w: f32,
    pub w_rate: f32,
    pub blend_time: f32,
    pub duration: f32,
    pub halflife: f32,
    /// The transition's blend profile row (0: none).
    pub profile: usize,
    pub root: Kform,
    /// A source (a layer's too) wrapped around its clip this step.
    pub wrapped: bool,
    pub layers: [CharLayer; MAX_LAYERS],
    pub nlayers: usize,
    /// Where sources A and B's clips stand ([`crate::crowd::place`]).
    pub places: [Place; 2],
}

fn char_step(st: &Stepx8, state: &Statex8, layers: &[LayerLanes], l: usize) -> CharStep {
    let f = |x: F32x8| x.to_array()[l];
    let clip = |s: &crate::crowd::state::SourceLanes| s.clip.to_array()[l] as usize;
    let mut ls = [CharLayer::default(); MAX_LAYERS];
    for ((o, s), lanes) in ls.iter_mut().zip(st.layers.steps(layers)).zip(layers) {
        *o = CharLayer {
            src: (clip(&lanes.src), f(s.at.time), f(s.at.rate)),
            w: f(s.w),
            rate: f(s.rate),
            idle: s.idle & (1 << l) != 0,
        };
    }
    CharStep {
        a: (clip(&state.a), f(st.a.time), f(st.a.rate)),
        b: (clip(&state.b), f(st.b.time), f(st.b.rate)),
        w: f(st.w),
        w_rate: f(st.w_rate),
        blend_time: f(st.blend_time),
        duration: f(st.duration),
        halflife: f(st.halflife),
        profile: st.profile.to_array()[l].max(0) as usize,
        root: Kform {
            pos: st.root.pos.lane(l),
            rot: st.root.rot.lane(l),
            vel: st.root.vel.lane(l),
            ang: st.root.ang.lane(l),
            ..Kform::IDENTITY
        },
        wrapped: st.wrapped & (1 << l) != 0,
        layers: ls,
        nlayers: layers.len(),
        places: [Place::IDENTITY; 2],
    }
}

/// A reference pack: its number, its characters' state, schedule and
/// layers, and their kept poses.
pub(super) type RefPack<'a> = (
    usize,
    &'a mut Statex8,
    &'a mut Schedulex8,
    &'a mut [LayerLanes],
    &'a mut [RefState],
);

/// Pack `p`'s frame, as the lanes crowd's (`passes::step_pack`): its
/// characters' states (and layers) advanced and their commands (among the
/// frame's `sorted` ones) applied with the same code, then each
/// character's frame through the reference ([`reference_frame`]), where it
/// transitions from the pose it would have shown without its commands;
/// the pack's figures, its events ([`EventBits`], without the
/// transitions started) and the number of markers `crossed` found (from
/// the advanced state and every source's move, the layers' included).
pub(super) fn reference_pack(
    crowd: &Crowdwide,
    (sorted, rows, frame, dt): (&[(u32, Command)], &[ClipRows], u64, f32),
    (p, state, sched, layers, chars): RefPack,
    s: &mut RefScratch,
    crossed: impl FnOnce(Advanced) -> usize,
) -> (FrameStats, EventBits, usize) {
    // A copy on the stack (at most MAX_LAYERS): a step allocates nothing.
    let before = *state;
    let mut layers_before = [<LayerLanes as bytemuck::Zeroable>::zeroed(); MAX_LAYERS];
    layers_before[..layers.len()].copy_from_slice(layers);
    let mut layer_spans = [Spanx8::default(); MAX_LAYERS];
    let happened = state.advance(F32x8::splat(dt), layers, &mut layer_spans);
    let marks = crossed(Advanced {
        state,
        layers,
        happened: &happened,
        layer_spans: &layer_spans[..layers.len()],
    });
    // The sources' places moved on by their wraps (before the commands,
    // as the pose the character would have shown has them).
    let clips = |s: &Statex8, l: usize| [s.a.clip, s.b.clip].map(|c| c.to_array()[l] as usize);
    for (l, ch) in chars.iter_mut().enumerate() {
        wrap_place(&mut ch.places, &happened.spans, clips(state, l), rows, l);
    }
    let (trans, played, placed) = pack_commands(sorted, p, (state, sched, layers), rows);
    let step = state.step(&happened, layers);
    let events = step_events(&step, trans, layers.len());
    // What transitioning characters would have shown.
    let (mut old_state, old_layers) = (before, &mut layers_before[..layers.len()]);
    let old_events = old_state.advance(F32x8::splat(dt), old_layers, &mut layer_spans);
    let old_step = old_state.step(&old_events, old_layers);
    // Level of detail: who is evaluated (those carried last step choose
    // their blends' hemispheres anew).
    let carried_before = sched.carried;
    let lod = crowd.cfg.level_of_detail.then(|| {
        let live = live_lanes(p, crowd.cfg.characters);
        sched.plan((frame, dt), frame == 0, trans, live)
    });
    let mut total = FrameStats::default();
    for (l, ch) in chars.iter_mut().enumerate() {
        let c = p * 8 + l;
        if c >= crowd.cfg.characters {
            break;
        }
        let moving = trans & (1 << l) != 0;
        let old_places = ch.places;
        if placed & (1 << l) != 0 {
            ch.places = [Place::IDENTITY; 2];
        }
        let cl = lod.as_ref().map(|x| CharLod::of(x, l));
        if let Some(cl) = cl.filter(|cl| !cl.due) {
            let check = ref_carry_frame(crowd, ch, s, &cl, (c, frame, dt));
            // A pack with nobody evaluated adds nothing to the check, as
            // in the lanes crowd, whose step does not make its carried
            // pose (`passes::Carried`); a carried character of an
            // evaluated pack is checked.
            if lod.as_ref().is_some_and(|x| x.due != 0) {
                total.velocity.merge(&check);
            }
            continue;
        }
        total.evaluated += 1;
        let now = CharStep {
            places: ch.places,
            ..char_step(&step, state, layers, l)
        };
        let old = moving.then(|| {
            let st = char_step(&old_step, &old_state, old_layers, l);
            CharStep {
                places: old_places,
                wrapped: st.wrapped || carried_before & (1 << l) != 0,
                ..st
            }
        });
        let resumed = cl.is_some_and(|cl| cl.resumed);
        let jumped = (played | trans) & (1 << l) != 0 || resumed;
        let at = (c, frame, dt, jumped);
        let check = reference_frame(crowd, (&now, old.as_ref()), ch, s, at, cl.as_ref());
        total.transitions += moving as u32;
        total.velocity.merge(&check);
    }
    (total, events, marks)
}

/// A pack step's events ([`EventBits`]): sources A and B ended, the
/// transitions finished (not those started by `trans`, the bits of the
/// characters that began one this step), each of `nlayers` layers'
/// sources ended; the transitions started are left to the caller.
fn step_events(step: &Stepx8, trans: u8, nlayers: usize) -> EventBits {
    let mut events = EventBits::default();
    events[..3].copy_from_slice(&[step.ended_a, step.ended_b, step.finished & !trans]);
    events[4..][..nlayers].copy_from_slice(&step.layers.ended[..nlayers]);
    events
}

/// Pack `p`'s commands among the frame's `sorted` ones applied in order
/// to its state, schedule and layers (the lanes crowd's code): the bits
/// of the characters that started a transition, that jumped (played),
/// and whose places restart (played or transitioned).
fn pack_commands(
    sorted: &[(u32, Command)],
    p: usize,
    (state, sched, layers): (&mut Statex8, &mut Schedulex8, &mut [LayerLanes]),
    rows: &[ClipRows],
) -> (u8, u8, u8) {
    let lo = sorted.partition_point(|(c, _)| (*c as usize) < p * 8);
    let hi = sorted.partition_point(|(c, _)| (*c as usize) < (p + 1) * 8);
    let (mut trans, mut played, mut placed) = (0u8, 0u8, 0u8);
    for (c, cmd) in &sorted[lo..hi] {
        let l = *c as usize % 8;
        placed |= (matches!(cmd, Command::Play { .. } | Command::Transition { .. }) as u8) << l;
        if let Command::SetPeriod { period, phase } = *cmd {
            sched.set(l, period, phase);
        }
        match state.apply(l, cmd, rows, layers) {
            Applied::Transition => trans |= 1 << l,
            Applied::Jump => played |= 1 << l,
            Applied::Other => {}
        }
    }
    (trans, played, placed)
}

/// Samples clip `src` at `time` played at `rate` into crowd pose `out`
/// (joint 0 = the root), the clips' root joint moved by `place`
/// ([`crate::crowd::place`]).
pub(super) fn ref_sample(
    cfg: &CrowdConfig,
    clips: &[Clip],
    ((clip, time, rate), place): ((usize, f32, f32), Place),
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
    out.set(1, place.apply(&out.get(1)));
}

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
/// [`Clip::with_continuous_rotations`]): [`r::kform_blend_along`], the
/// lanes crowd's `blend_kept`.
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

/// A character's fitted half-lives per joint: positions, rotations.
pub(super) type Halflives<'a> = (&'a [Vec3], &'a [Vec3]);

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
fn reference_frame(
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

/// `pose` becomes what character `ch` shows: checked against what it
/// showed last step ([`ref_check`]), and its bounding box.
fn show(
    cfg: &CrowdConfig,
    pose: &Pose,
    ch: &mut RefState,
    (character, frame, dt): (usize, u64, f32),
) -> VelocityCheck {
    let check = match frame != 0 && cfg.velocity_check {
        true => ref_check(pose, &ch.world, (character, frame, dt)),
        // Without the check (or before it has a previous frame), output
        // that is not finite is counted all the same (issue 21).
        false => VelocityCheck {
            non_finite: !pose_finite(pose) as u64,
            ..VelocityCheck::default()
        },
    };
    ch.world.clone_from(pose);
    ch.bounds = ref_bounds(&ch.world, &cfg.joint_radii, pose_finite(&ch.world));
    check
}

/// A character not evaluated this step (level of detail): it shows its
/// carried pose ([`ref_carried`]), and where the crowd extracts root
/// motion, its last step's velocity and turn rate and those times `dt`.
fn ref_carry_frame(
    crowd: &Crowdwide,
    ch: &mut RefState,
    s: &mut RefScratch,
    lod: &CharLod,
    at: (usize, u64, f32),
) -> VelocityCheck {
    let dt = at.2;
    ref_carried(&mut s.carried, ch, lod);
    if crowd.cfg.root_motion == RootMotion::Extract {
        let m = ch.root_motion;
        ch.root_motion = RootDelta {
            displacement: m.velocity * dt,
            velocity: m.velocity,
            turn: m.turn_rate * dt,
            turn_rate: m.turn_rate,
        };
    }
    show(crowd.cfg, &s.carried, ch, at)
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
                );
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
