//! Each character's playback state, eight characters per pack in lanes
//! ([`Statex8`], lane `i` = character `8p + i`): its two sources, source
//! B's blend weight, its transition (and the blend profile it runs with)
//! and its root; and each of its layers' source and weight
//! (`LayerLanes`, kept beside it, one per layer of the crowd). Both
//! crowds keep their characters' state here and advance it with the same
//! lane code, so the same commands give the same schedule bit for bit (the
//! crowds differ in how they turn a state into a pose).

mod domain;
mod lanes;

pub(crate) use domain::{check_origin, check_recentered, check_recentered_root, check_roots_after};
pub(crate) use lanes::{LayerLanes, LayerStep, SampleAt, SourceLanes, Spanx8, WeightLanes};

use super::MAX_LAYERS;
use super::command::{Command, Which};
use super::motion::Motionx8;
use super::{Root, Source};
use crate::lanes::{self as lane_ops, F32x8, I32x8, Quatx8, Vec3x8, splat};
use crate::reference::{self as r, Vec3};
use lanes::{at_f, at_i, lane_f, lane_i};

/// A blend time that means "no transition running".
pub(crate) const IDLE: f32 = 1e9;

/// Where a clip lives in the crowd's database, as lanes take it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClipRows {
    /// First database row.
    pub start: i32,
    /// Last frame index.
    pub last: i32,
    /// Seconds from the first frame to the last.
    pub len: f32,
    /// The net motion of a loop of the clip: where a looping source's
    /// place moves at each wrap ([`super::place`]).
    pub net: super::place::Place,
}

/// Eight characters' state.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Statex8 {
    pub(crate) a: SourceLanes,
    pub(crate) b: SourceLanes,
    /// Source B's weight.
    pub(crate) weight: WeightLanes,
    /// Seconds into the current transition ([`IDLE`] when none ran), its
    /// duration and dead blending's half-life.
    pub(crate) blend_time: F32x8,
    pub(crate) duration: F32x8,
    pub(crate) halflife: F32x8,
    /// The root in the world.
    pub(crate) root: Motionx8,
    /// The blend profile of the current transition (its row: 0 for none,
    /// `p + 1` for profile `p`), latched from `next_profile` when it
    /// started.
    pub(crate) profile: I32x8,
    /// The blend profile the next transitions take
    /// ([`Command::SetBlendProfile`]).
    pub(crate) next_profile: I32x8,
}

/// One source's state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SourceState {
    /// The source: clip, time (after this step's advance), rate, end.
    pub source: Source,
    /// True where the source holds at an end this step (its effective rate
    /// is 0).
    pub held: bool,
}

/// One character's state, as a step left it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterState {
    /// Source A.
    pub a: SourceState,
    /// Source B.
    pub b: SourceState,
    /// Source B's blend weight and its rate per second.
    pub weight: f32,
    /// The weight's rate of change per second.
    pub weight_velocity: f32,
    /// Seconds into the current transition (1e9 when none has run).
    pub blend_time: f32,
    /// The current transition's duration.
    pub duration: f32,
    /// The blend profile of the current transition (its index in
    /// [`CrowdConfig::blend_profiles`](super::CrowdConfig::blend_profiles);
    /// `None`: every joint over the whole duration).
    pub blend_profile: Option<usize>,
    /// The root in the world.
    pub root: Root,
}

/// One layer of one character, as a step left it ([`crate::crowd::Crowd::layer_state`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerState {
    /// The layer's source.
    pub source: SourceState,
    /// The layer's weight.
    pub weight: f32,
    /// The weight's rate of change per second.
    pub weight_velocity: f32,
}

/// What one step of eight characters does: the sources' times to sample,
/// their effective rates (0 where held), blend weight and rate, the
/// transition's times and profile, and bits per lane for what happened.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stepx8 {
    pub a: SampleAt,
    pub b: SampleAt,
    pub w: F32x8,
    pub w_rate: F32x8,
    pub blend_time: F32x8,
    pub duration: F32x8,
    pub halflife: F32x8,
    pub profile: I32x8,
    pub root: Motionx8,
    /// Lanes whose source A / B reached a reporting end this step.
    pub ended_a: u8,
    pub ended_b: u8,
    /// Lanes whose transition finished this step.
    pub finished: u8,
    /// Lanes with a source (a layer's too) that wrapped around its clip
    /// this step.
    pub wrapped: u8,
    /// Each layer's step.
    pub layers: Layers,
}

/// What a step did to a pack's layers (the first `len`), per layer: the
/// lanes idle before the step, and those that reached a reporting end.
/// Their steps are read from the layers' lanes when a pass needs them
/// ([`Layers::steps`]), so a crowd without layers carries and copies
/// eight bytes of them, not a [`LayerStep`] for every possible layer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layers {
    pub len: usize,
    pub idle_before: [u8; MAX_LAYERS],
    /// Lanes whose layer reached a reporting end this step, per layer.
    pub ended: [u8; MAX_LAYERS],
}

impl Layers {
    /// The steps of `layers` (the pack's layers as this step left them,
    /// the same `len` of them): what each shows now.
    #[inline(always)]
    pub(crate) fn steps<'s>(
        &'s self,
        layers: &'s [LayerLanes],
    ) -> impl Iterator<Item = LayerStep> + 's {
        let idle = &self.idle_before[..self.len];
        layers.iter().zip(idle).map(|(l, &before)| l.step(before))
    }
}

/// What advancing eight characters did (bits per lane), and where their
/// base sources' playheads went.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Happened {
    pub ended_a: u8,
    pub ended_b: u8,
    pub finished: u8,
    pub wrapped: u8,
    /// Source A's and B's moves ([`super::markers`]); the layers' go to
    /// the caller's slice ([`Statex8::advance`]), so that a crowd without
    /// layers neither fills nor copies room for them.
    pub spans: [Spanx8; 2],
    /// Per layer: lanes that reached a reporting end, lanes idle before
    /// the step.
    pub layer_ended: [u8; MAX_LAYERS],
    pub layer_idle: [u8; MAX_LAYERS],
}

/// What a command did to its character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Applied {
    /// Started a transition.
    Transition,
    /// Moved a source at once, unhidden ([`Command::Play`],
    /// [`Command::PlayLayer`]).
    Jump,
    /// Anything else.
    Other,
}

impl Statex8 {
    /// Eight characters playing clip 0 from its start on both sources,
    /// weight 0, standing at the origin.
    pub(crate) fn new(rows: ClipRows) -> Statex8 {
        let mut s = Statex8 {
            a: SourceLanes::EMPTY,
            b: SourceLanes::EMPTY,
            weight: WeightLanes::ZERO,
            blend_time: splat(IDLE),
            duration: splat(1.0),
            halflife: splat(0.2),
            root: Motionx8::REST,
            profile: I32x8::ZERO,
            next_profile: I32x8::ZERO,
        };
        let src = Source::looping(0, 0.0);
        for l in 0..8 {
            s.a.set(l, &src, rows);
            s.b.set(l, &src, rows);
        }
        s
    }

    /// Advances every lane by `dt`: sources (clip ends), the weight's
    /// spring (exact exponential, so its velocity is its derivative), the
    /// transition's time, the root along its velocities, and the pack's
    /// `layers` (sources and weights), each layer's source's move into
    /// `layer_spans` (at least as many as `layers`). Returns what
    /// happened, for [`Statex8::step`].
    #[inline(always)]
    pub(crate) fn advance(
        &mut self,
        dt: F32x8,
        layers: &mut [LayerLanes],
        layer_spans: &mut [Spanx8],
    ) -> Happened {
        let (ended_a, wrapped_a, span_a) = self.a.advance(dt);
        let (ended_b, wrapped_b, span_b) = self.b.advance(dt);
        self.weight.advance(dt);
        // The transition.
        let before = self.blend_time;
        self.blend_time = (before + dt).min(splat(IDLE));
        let finished = (before.simd_lt(self.duration) & self.blend_time.simd_ge(self.duration))
            .to_bitmask() as u8;
        // The root.
        self.root.pos = self.root_pos_after(dt);
        let root = &mut self.root;
        let turned = lane_ops::quat_mul(
            lane_ops::quat_from_scaled_angle_axis(root.ang * dt),
            root.rot,
        );
        let n = lane_ops::rsqrt(lane_ops::quat_dot(turned, turned));
        root.rot = Quatx8::new(turned.w * n, turned.x * n, turned.y * n, turned.z * n);
        let mut h = Happened {
            ended_a,
            ended_b,
            finished,
            wrapped: wrapped_a | wrapped_b,
            spans: [span_a, span_b],
            ..Happened::default()
        };
        let moves = layers.iter_mut().zip(layer_spans);
        for (k, (layer, layer_span)) in moves.enumerate() {
            let (ended, wrapped, idle, span) = layer.advance(dt);
            *layer_span = span;
            h.layer_ended[k] = ended;
            h.layer_idle[k] = idle;
            h.wrapped |= wrapped;
        }
        h
    }

    /// What the current state shows: sources sampled where they are (the
    /// pack's `layers` too), with what `advance` reported.
    #[inline(always)]
    pub(crate) fn step(&self, h: &Happened, layers: &[LayerLanes]) -> Stepx8 {
        Stepx8 {
            a: self.a.sample_at(),
            b: self.b.sample_at(),
            w: self.weight.w,
            w_rate: self.weight.vel,
            blend_time: self.blend_time,
            duration: self.duration,
            halflife: self.halflife,
            profile: self.profile,
            root: self.root,
            ended_a: h.ended_a,
            ended_b: h.ended_b,
            finished: h.finished,
            wrapped: h.wrapped,
            layers: Layers {
                len: layers.len(),
                idle_before: h.layer_idle,
                ended: h.layer_ended,
            },
        }
    }

    /// The roots of the lanes whose bit is set in `given` set to `next`'s
    /// (one per lane, checked by [`Command::SetRoot`]'s rules), rotations
    /// normalized, as [`Command::SetRoot`] sets them.
    pub(crate) fn set_roots(&mut self, next: &[Root], given: u8) {
        let f = bytemuck::cast_mut::<Motionx8, [[f32; 8]; 13]>(&mut self.root);
        for (l, root) in next.iter().enumerate().take(8) {
            if given & (1 << l) == 0 {
                continue;
            }
            let q = crate::reference::quat_normalize(root.rot);
            let values = [
                root.pos.x, root.pos.y, root.pos.z, q.w, q.x, q.y, q.z, root.vel.x, root.vel.y,
                root.vel.z, root.ang.x, root.ang.y, root.ang.z,
            ];
            for (field, v) in f.iter_mut().zip(values) {
                field[l] = v;
            }
        }
    }

    /// Lane `l`'s transition starts now, over `duration` with dead
    /// blending's `halflife`, with the blend profile chosen for it.
    fn start_transition(&mut self, l: usize, duration: f32, halflife: f32) {
        lane_f(&mut self.blend_time, l, 0.0);
        lane_f(&mut self.duration, l, duration);
        lane_f(&mut self.halflife, l, halflife);
        let next = at_i(self.next_profile, l);
        lane_i(&mut self.profile, l, next);
    }

    /// The source `which` of lane `l` (of the pack's `layers` for a
    /// layer's, checked against the crowd's layers when given).
    fn source<'s>(&'s mut self, which: Which, layers: &'s mut [LayerLanes]) -> &'s mut SourceLanes {
        match which {
            Which::A => &mut self.a,
            Which::B => &mut self.b,
            Which::Layer(k) => &mut layers[k].src,
        }
    }

    /// Applies `cmd` to lane `l` (already validated, layers against the
    /// pack's `layers`). `rows` gives each clip's place in the database.
    /// Commands that move sources are played here; the rest set a weight,
    /// profile, rate, end or root ([`Statex8::set`]).
    pub(crate) fn apply(
        &mut self,
        l: usize,
        cmd: &Command,
        rows: &[ClipRows],
        layers: &mut [LayerLanes],
    ) -> Applied {
        match *cmd {
            Command::Play { a, b } => self.play(l, (&a, &b), rows, None),
            Command::Transition {
                a,
                b,
                duration,
                halflife,
            } => self.play(l, (&a, &b), rows, Some((duration, halflife))),
            Command::PlayLayer { layer, source } => {
                layers[layer].src.set(l, &source, rows[source.clip]);
                self.started(l, None)
            }
            Command::TransitionLayer {
                layer,
                source,
                duration,
                halflife,
            } => {
                layers[layer].src.set(l, &source, rows[source.clip]);
                self.started(l, Some((duration, halflife)))
            }
            _ => {
                self.set(l, cmd, layers);
                Applied::Other
            }
        }
    }

    /// Lane `l`'s base sources set to `a` and `b`, under a transition of
    /// `(duration, halflife)` when one is given.
    fn play(
        &mut self,
        l: usize,
        (a, b): (&Source, &Source),
        rows: &[ClipRows],
        transition: Option<(f32, f32)>,
    ) -> Applied {
        self.a.set(l, a, rows[a.clip]);
        self.b.set(l, b, rows[b.clip]);
        self.started(l, transition)
    }

    /// Lane `l`'s sources (the base's or a layer's) have just been set:
    /// a transition of `(duration, halflife)` starts when one is given,
    /// else they jumped.
    fn started(&mut self, l: usize, transition: Option<(f32, f32)>) -> Applied {
        match transition {
            Some((duration, halflife)) => {
                self.start_transition(l, duration, halflife);
                Applied::Transition
            }
            None => Applied::Jump,
        }
    }

    /// Applies a command that moves no source to lane `l` (a weight, the
    /// next blend profile, a rate, an end or the root); those that do
    /// are [`Statex8::apply`]'s and change nothing here.
    fn set(&mut self, l: usize, cmd: &Command, layers: &mut [LayerLanes]) {
        match *cmd {
            Command::SetWeight { weight } => self.weight.set(l, weight),
            Command::WeightToward { target, halflife } => self.weight.toward(l, target, halflife),
            Command::SetLayerWeight { layer, weight } => layers[layer].weight.set(l, weight),
            Command::LayerWeightToward {
                layer,
                target,
                halflife,
            } => layers[layer].weight.toward(l, target, halflife),
            Command::SetBlendProfile { profile } => {
                let row = profile.map_or(0, |p| p as i32 + 1);
                lane_i(&mut self.next_profile, l, row);
            }
            Command::SetRate { source, rate } => {
                lane_f(&mut self.source(source, layers).rate, l, rate);
            }
            Command::SetEnd { source, end } => {
                let s = self.source(source, layers);
                s.set_end(l, end);
                s.replace(l);
            }
            Command::SetRoot(root) => self.set_root(l, &root),
            // The schedule's, applied by the crowds to their packs'
            // schedules ([`super::schedule::Schedulex8::set`]).
            Command::SetPeriod { .. } => {}
            Command::Play { .. }
            | Command::Transition { .. }
            | Command::PlayLayer { .. }
            | Command::TransitionLayer { .. } => {}
        }
    }

    /// Lane `l`'s root set to `root` (its rotation normalized).
    fn set_root(&mut self, l: usize, root: &Root) {
        let q = r::quat_normalize(root.rot);
        let set3 = |v: &mut Vec3x8, x: Vec3| {
            lane_f(&mut v.x, l, x.x);
            lane_f(&mut v.y, l, x.y);
            lane_f(&mut v.z, l, x.z);
        };
        set3(&mut self.root.pos, root.pos);
        set3(&mut self.root.vel, root.vel);
        set3(&mut self.root.ang, root.ang);
        let rot = &mut self.root.rot;
        lane_f(&mut rot.w, l, q.w);
        lane_f(&mut rot.x, l, q.x);
        lane_f(&mut rot.y, l, q.y);
        lane_f(&mut rot.z, l, q.z);
    }

    /// Lane `l` as a [`CharacterState`].
    pub(crate) fn get(&self, l: usize) -> CharacterState {
        CharacterState {
            a: SourceState {
                source: self.a.get(l),
                held: self.a.held(l),
            },
            b: SourceState {
                source: self.b.get(l),
                held: self.b.held(l),
            },
            weight: at_f(self.weight.w, l),
            weight_velocity: at_f(self.weight.vel, l),
            blend_time: at_f(self.blend_time, l),
            duration: at_f(self.duration, l),
            blend_profile: (at_i(self.profile, l) as usize).checked_sub(1),
            root: Root {
                pos: self.root.pos.lane(l),
                rot: self.root.rot.lane(l),
                vel: self.root.vel.lane(l),
                ang: self.root.ang.lane(l),
            },
        }
    }

    /// Lane `l` of `other` copied into lane `to` (a batch of characters
    /// gathered from several packs).
    pub(crate) fn copy_lane(&mut self, to: usize, other: &Statex8, from: usize) {
        super::motion::copy_lane(self, to, other, from);
    }
}

impl LayerLanes {
    /// Lane `l` as a [`LayerState`].
    pub(crate) fn get(&self, l: usize) -> LayerState {
        LayerState {
            source: SourceState {
                source: self.src.get(l),
                held: self.src.held(l),
            },
            weight: at_f(self.weight.w, l),
            weight_velocity: at_f(self.weight.vel, l),
        }
    }
}
