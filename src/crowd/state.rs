//! Each character's playback state, eight characters per pack in lanes
//! ([`Statex8`], lane `i` = character `8p + i`): its two sources, source
//! B's blend weight, its transition and its root. Both crowds keep their
//! characters' state here and advance it with the same lane code, so the
//! same commands give the same schedule bit for bit (the crowds differ in
//! how they turn a state into a pose).

use super::command::{Command, Which};
use super::motion::Motionx8;
use super::{ClipEnd, Root, Source};
use crate::lanes::{self, F32x8, I32x8, Quatx8, Vec3x8, splat};
use crate::reference::{self as r, Vec3};

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
}

/// One source of eight characters.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct SourceLanes {
    pub time: F32x8,
    pub rate: F32x8,
    pub len: F32x8,
    pub start: I32x8,
    pub last: I32x8,
    pub clip: I32x8,
    /// 0 loop, 1 hold, 2 report and hold.
    pub end: I32x8,
    /// All bits where the end was reported since the source was set.
    pub ended: I32x8,
    /// All bits where a command set the source since the last advance
    /// (its first advance crosses a marker at its start time).
    pub fresh: I32x8,
}

/// Eight characters' state.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Statex8 {
    pub(crate) a: SourceLanes,
    pub(crate) b: SourceLanes,
    /// Source B's weight, its rate per second, target and half-life (0:
    /// the weight holds).
    pub(crate) w: F32x8,
    pub(crate) w_vel: F32x8,
    pub(crate) w_target: F32x8,
    pub(crate) w_halflife: F32x8,
    /// Seconds into the current transition ([`IDLE`] when none ran), its
    /// duration and dead blending's half-life.
    pub(crate) blend_time: F32x8,
    pub(crate) duration: F32x8,
    pub(crate) halflife: F32x8,
    /// The root in the world.
    pub(crate) root: Motionx8,
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
    /// The root in the world.
    pub root: Root,
}

/// What one step of eight characters does: the sources' times to sample,
/// their effective rates (0 where held), blend weight and rate, the
/// transition's times, and bits per lane for what happened.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stepx8 {
    pub a: SampleAt,
    pub b: SampleAt,
    pub w: F32x8,
    pub w_rate: F32x8,
    pub blend_time: F32x8,
    pub duration: F32x8,
    pub halflife: F32x8,
    pub root: Motionx8,
    /// Lanes whose source A / B reached a reporting end this step.
    pub ended_a: u8,
    pub ended_b: u8,
    /// Lanes whose transition finished this step.
    pub finished: u8,
    /// Lanes with a source that wrapped around its clip this step.
    pub wrapped: u8,
}

/// What advancing eight characters did (bits per lane), and where their
/// sources' playheads went.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Happened {
    pub ended_a: u8,
    pub ended_b: u8,
    pub finished: u8,
    pub wrapped: u8,
    /// Source A's and B's moves ([`super::markers`]).
    pub spans: [Spanx8; 2],
}

/// Where one source's playheads went in an advance: from `from` to `to`
/// (the new time, in the clip), having wrapped `laps` times (looping
/// sources: `floor(moved / len)`, so the move's end unwrapped is `to +
/// laps len`; 0 otherwise), `moved` the time before wrapping or clamping
/// (`from + rate dt`), and `fresh` the lanes a command had set since the
/// advance before.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Spanx8 {
    pub from: F32x8,
    pub to: F32x8,
    pub laps: F32x8,
    pub moved: F32x8,
    pub fresh: u8,
}

/// Where one source samples: time, effective rate, clip rows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SampleAt {
    pub time: F32x8,
    pub rate: F32x8,
    pub start: I32x8,
    pub last: I32x8,
}

fn lane_f(x: &mut F32x8, l: usize, v: f32) {
    bytemuck::cast_mut::<F32x8, [f32; 8]>(x)[l & 7] = v;
}

fn lane_i(x: &mut I32x8, l: usize, v: i32) {
    bytemuck::cast_mut::<I32x8, [i32; 8]>(x)[l & 7] = v;
}

fn at_f(x: F32x8, l: usize) -> f32 {
    x.to_array()[l & 7]
}

fn at_i(x: I32x8, l: usize) -> i32 {
    x.to_array()[l & 7]
}

/// A time moved into its clip: wrapped into `[0, len]` when looping
/// (`t - len floor(t / len)`, 0 for a one-frame clip), else clamped.
/// Returns the time, where it was held at an end, and the laps wrapped
/// (`floor(t / len)` where looping, else 0).
#[inline(always)]
fn place(t: F32x8, len: F32x8, looping: F32x8) -> (F32x8, F32x8, F32x8) {
    let laps = (t / len).floor();
    let wrapped = t - len * laps;
    let wrapped = len
        .simd_gt(F32x8::ZERO)
        .select(wrapped.max(F32x8::ZERO).min(len), F32x8::ZERO);
    let clamped = t.max(F32x8::ZERO).min(len);
    let held = !looping & (t.simd_lt(F32x8::ZERO) | t.simd_gt(len));
    let laps = (looping & len.simd_gt(F32x8::ZERO)).select(laps, F32x8::ZERO);
    (looping.select(wrapped, clamped), held, laps)
}

impl SourceLanes {
    const EMPTY: SourceLanes = SourceLanes {
        time: F32x8::ZERO,
        rate: F32x8::ZERO,
        len: F32x8::ZERO,
        start: I32x8::ZERO,
        last: I32x8::ZERO,
        clip: I32x8::ZERO,
        end: I32x8::ZERO,
        ended: I32x8::ZERO,
        fresh: I32x8::ZERO,
    };

    /// Advances by `dt`; returns the lanes that reached a reporting end for
    /// the first time, the lanes that wrapped around (bits), and the move.
    #[inline(always)]
    fn advance(&mut self, dt: F32x8) -> (u8, u8, Spanx8) {
        let looping: F32x8 = bytemuck::cast(self.end.simd_eq(I32x8::ZERO));
        let from = self.time;
        let moved = self.time + self.rate * dt;
        let (t, held, laps) = place(moved, self.len, looping);
        let fresh: F32x8 = bytemuck::cast(self.fresh);
        self.fresh = I32x8::ZERO;
        let span = Spanx8 {
            from,
            to: t,
            laps,
            moved,
            fresh: fresh.to_bitmask() as u8,
        };
        let reports: F32x8 = bytemuck::cast(self.end.simd_eq(I32x8::splat(2)));
        let ended: F32x8 = bytemuck::cast(self.ended);
        let now = held & reports & !ended;
        self.ended = bytemuck::cast(ended | now);
        self.time = t;
        let wrapped = looping & (moved.simd_lt(F32x8::ZERO) | moved.simd_gt(self.len));
        (now.to_bitmask() as u8, wrapped.to_bitmask() as u8, span)
    }

    /// Where it samples: its time, and its rate where it moves (0 where a
    /// source that does not loop sits at an end its rate pushes against).
    #[inline(always)]
    fn sample_at(&self) -> SampleAt {
        let looping: F32x8 = bytemuck::cast(self.end.simd_eq(I32x8::ZERO));
        let (t, r) = (self.time, self.rate);
        let out = (t.simd_ge(self.len) & r.simd_gt(F32x8::ZERO))
            | (t.simd_le(F32x8::ZERO) & r.simd_lt(F32x8::ZERO));
        let held = !looping & out;
        SampleAt {
            time: t,
            rate: held.select(F32x8::ZERO, r),
            start: self.start,
            last: self.last,
        }
    }

    fn set(&mut self, l: usize, s: &Source, rows: ClipRows) {
        lane_i(&mut self.clip, l, s.clip as i32);
        lane_i(&mut self.start, l, rows.start);
        lane_i(&mut self.last, l, rows.last);
        lane_f(&mut self.len, l, rows.len);
        lane_f(&mut self.rate, l, s.rate);
        self.set_end(l, s.end);
        lane_f(&mut self.time, l, s.time);
        lane_i(&mut self.fresh, l, -1);
        self.replace(l);
    }

    fn set_end(&mut self, l: usize, end: ClipEnd) {
        let e = match end {
            ClipEnd::Loop => 0,
            ClipEnd::Hold => 1,
            ClipEnd::Event => 2,
        };
        lane_i(&mut self.end, l, e);
        lane_i(&mut self.ended, l, 0);
    }

    /// Lane `l`'s time moved into its clip ([`place`]).
    fn replace(&mut self, l: usize) {
        let looping: F32x8 = bytemuck::cast(self.end.simd_eq(I32x8::ZERO));
        let (t, _, _) = place(self.time, self.len, looping);
        lane_f(&mut self.time, l, at_f(t, l));
    }

    fn get(&self, l: usize) -> Source {
        Source {
            clip: at_i(self.clip, l) as usize,
            time: at_f(self.time, l),
            rate: at_f(self.rate, l),
            end: match at_i(self.end, l) {
                0 => ClipEnd::Loop,
                1 => ClipEnd::Hold,
                _ => ClipEnd::Event,
            },
        }
    }
}

/// Damping of a half-life, `4 ln2 / (h + 1e-5)` (springs article).
#[inline(always)]
fn damping(h: F32x8) -> F32x8 {
    splat(4.0 * r::LN2) / (h + splat(r::EPS_SPRING))
}

impl Statex8 {
    /// Eight characters playing clip 0 from its start on both sources,
    /// weight 0, standing at the origin.
    pub(crate) fn new(rows: ClipRows) -> Statex8 {
        let mut s = Statex8 {
            a: SourceLanes::EMPTY,
            b: SourceLanes::EMPTY,
            w: F32x8::ZERO,
            w_vel: F32x8::ZERO,
            w_target: F32x8::ZERO,
            w_halflife: F32x8::ZERO,
            blend_time: splat(IDLE),
            duration: splat(1.0),
            halflife: splat(0.2),
            root: Motionx8::REST,
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
    /// transition's time, the root along its velocities. Returns what
    /// happened, for [`Statex8::step`].
    #[inline(always)]
    pub(crate) fn advance(&mut self, dt: F32x8) -> Happened {
        let (ended_a, wrapped_a, span_a) = self.a.advance(dt);
        let (ended_b, wrapped_b, span_b) = self.b.advance(dt);
        // The weight: a critically damped spring toward its target where a
        // half-life is set (simple_spring_damper_exact with exp).
        let springs = self.w_halflife.simd_gt(F32x8::ZERO);
        let y = damping(self.w_halflife) * splat(0.5);
        let j0 = self.w - self.w_target;
        let j1 = j0.mul_add(y, self.w_vel);
        let e = (-(y * dt)).exp();
        let w = e.mul_add(j1.mul_add(dt, j0), self.w_target);
        let v = e * (j1 * y).mul_neg_add(dt, self.w_vel);
        self.w = springs.select(w, self.w);
        self.w_vel = springs.select(lanes::flush_tiny(v), F32x8::ZERO);
        // The transition.
        let before = self.blend_time;
        self.blend_time = (before + dt).min(splat(IDLE));
        let finished = (before.simd_lt(self.duration) & self.blend_time.simd_ge(self.duration))
            .to_bitmask() as u8;
        // The root.
        self.root.pos = self.root_pos_after(dt);
        let root = &mut self.root;
        let turned = lanes::quat_mul(lanes::quat_from_scaled_angle_axis(root.ang * dt), root.rot);
        let n = lanes::rsqrt(lanes::quat_dot(turned, turned));
        root.rot = Quatx8::new(turned.w * n, turned.x * n, turned.y * n, turned.z * n);
        Happened {
            ended_a,
            ended_b,
            finished,
            wrapped: wrapped_a | wrapped_b,
            spans: [span_a, span_b],
        }
    }

    /// What the current state shows: sources sampled where they are, with
    /// what `advance` reported.
    #[inline(always)]
    pub(crate) fn step(&self, h: Happened) -> Stepx8 {
        Stepx8 {
            a: self.a.sample_at(),
            b: self.b.sample_at(),
            w: self.w,
            w_rate: self.w_vel,
            blend_time: self.blend_time,
            duration: self.duration,
            halflife: self.halflife,
            root: self.root,
            ended_a: h.ended_a,
            ended_b: h.ended_b,
            finished: h.finished,
            wrapped: h.wrapped,
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

    /// Applies `cmd` to lane `l` (already validated). Returns true for a
    /// transition. `rows` gives each clip's place in the database.
    pub(crate) fn apply(&mut self, l: usize, cmd: &Command, rows: &[ClipRows]) -> bool {
        match *cmd {
            Command::Play { a, b } => {
                self.a.set(l, &a, rows[a.clip]);
                self.b.set(l, &b, rows[b.clip]);
                false
            }
            Command::Transition {
                a,
                b,
                duration,
                halflife,
            } => {
                self.a.set(l, &a, rows[a.clip]);
                self.b.set(l, &b, rows[b.clip]);
                lane_f(&mut self.blend_time, l, 0.0);
                lane_f(&mut self.duration, l, duration);
                lane_f(&mut self.halflife, l, halflife);
                true
            }
            Command::SetWeight { weight } => {
                lane_f(&mut self.w, l, weight);
                lane_f(&mut self.w_vel, l, 0.0);
                lane_f(&mut self.w_target, l, weight);
                lane_f(&mut self.w_halflife, l, 0.0);
                false
            }
            Command::WeightToward { target, halflife } => {
                lane_f(&mut self.w_target, l, target);
                lane_f(&mut self.w_halflife, l, halflife);
                false
            }
            Command::SetRate { source, rate } => {
                let s = match source {
                    Which::A => &mut self.a,
                    Which::B => &mut self.b,
                };
                lane_f(&mut s.rate, l, rate);
                false
            }
            Command::SetEnd { source, end } => {
                let s = match source {
                    Which::A => &mut self.a,
                    Which::B => &mut self.b,
                };
                s.set_end(l, end);
                s.replace(l);
                false
            }
            Command::SetRoot(root) => {
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
                false
            }
        }
    }

    /// Lane `l` as a [`CharacterState`].
    pub(crate) fn get(&self, l: usize) -> CharacterState {
        let held = |s: &SourceLanes| {
            let t = at_f(s.time, l);
            at_i(s.end, l) != 0
                && (t <= 0.0 && at_f(s.rate, l) < 0.0
                    || t >= at_f(s.len, l) && at_f(s.rate, l) > 0.0)
        };
        CharacterState {
            a: SourceState {
                source: self.a.get(l),
                held: held(&self.a),
            },
            b: SourceState {
                source: self.b.get(l),
                held: held(&self.b),
            },
            weight: at_f(self.w, l),
            weight_velocity: at_f(self.w_vel, l),
            blend_time: at_f(self.blend_time, l),
            duration: at_f(self.duration, l),
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

impl Statex8 {
    /// Where [`Statex8::advance`] moves the roots in a step of `dt`: along
    /// their velocities (the same arithmetic, so a check of it is a check
    /// of the step).
    #[inline(always)]
    pub(crate) fn root_pos_after(&self, dt: F32x8) -> Vec3x8 {
        self.root.pos + self.root.vel * dt
    }
}

/// Why a root is refused past the domain.
const ROOT_DOMAIN: &str = "a root must stay within ±1e6 (kineform::limits::MAX_POSITION), \
     the positions a command may set: re-centre the world (Crowd::recenter)";

fn root_refusal(character: usize, value: f32, name: &'static str) -> crate::Error {
    crate::Error::Character {
        character,
        error: Box::new(crate::Error::Parameter {
            name,
            value,
            reason: ROOT_DOMAIN,
        }),
    }
}

/// The first of characters `0..characters` whose root a step of `dt`
/// would move out of ±[`crate::limits::MAX_POSITION`], unless `given(c)`
/// says a root is given to it in that step (a command sets it after the
/// advance): [`crate::Error::Character`] naming it.
pub(crate) fn check_roots_after(
    states: &[Statex8],
    characters: usize,
    dt: f32,
    given: impl Fn(usize) -> bool,
) -> crate::Result<()> {
    let most = splat(crate::limits::MAX_POSITION);
    for (p, s) in states.iter().enumerate() {
        let pos = s.root_pos_after(splat(dt));
        let inside =
            pos.x.abs().simd_le(most) & pos.y.abs().simd_le(most) & pos.z.abs().simd_le(most);
        let out = !inside.to_bitmask() as u8;
        if out == 0 {
            continue;
        }
        for l in (0..8).filter(|l| out & (1 << l) != 0) {
            let c = p * 8 + l;
            if c < characters && !given(c) {
                let v = pos.lane(l);
                let worst = [v.x, v.y, v.z].into_iter().fold(0.0f32, |m, x| {
                    if x.abs() > m.abs() || x.is_nan() {
                        x
                    } else {
                        m
                    }
                });
                return Err(root_refusal(c, worst, "root position after the step"));
            }
        }
    }
    Ok(())
}

/// Refuses an origin with a coordinate that is not finite.
pub(crate) fn check_origin(origin: Vec3) -> crate::Result<()> {
    match [origin.x, origin.y, origin.z]
        .iter()
        .find(|x| !x.is_finite())
    {
        None => Ok(()),
        Some(&value) => Err(crate::Error::Parameter {
            name: "origin",
            value,
            reason: "must be finite",
        }),
    }
}

/// The first of characters `0..characters` whose root, moved by
/// `-origin`, leaves ±[`crate::limits::MAX_POSITION`].
pub(crate) fn check_recentered(
    states: &[Statex8],
    characters: usize,
    origin: Vec3,
) -> crate::Result<()> {
    for (p, s) in states.iter().enumerate() {
        for l in 0..8 {
            let c = p * 8 + l;
            if c < characters {
                let pos = s.root.pos.lane(l);
                check_recentered_root(
                    c,
                    &Root {
                        pos,
                        ..Root::standing(Vec3::ZERO, 0.0)
                    },
                    origin,
                )?;
            }
        }
    }
    Ok(())
}

/// Refuses `root` of `character` when, moved by `-origin`, it leaves
/// ±[`crate::limits::MAX_POSITION`].
pub(crate) fn check_recentered_root(
    character: usize,
    root: &Root,
    origin: Vec3,
) -> crate::Result<()> {
    let p = root.pos - origin;
    let most = crate::limits::MAX_POSITION;
    match [p.x, p.y, p.z]
        .into_iter()
        .find(|x| x.is_nan() || x.abs() > most)
    {
        None => Ok(()),
        Some(v) => Err(root_refusal(character, v, "root position re-centred")),
    }
}
