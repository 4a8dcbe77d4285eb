//! The parts of eight characters' state that both the base and the
//! layers have: a source ([`SourceLanes`]: clip, time, rate, end) and a
//! blend weight ([`WeightLanes`]: set, or a spring toward a target); a
//! layer is one of each ([`LayerLanes`]).

use super::ClipRows;
use crate::crowd::{ClipEnd, Source};
use crate::lanes::{self, F32x8, I32x8, splat};
use crate::reference as r;

pub(crate) fn lane_f(x: &mut F32x8, l: usize, v: f32) {
    bytemuck::cast_mut::<F32x8, [f32; 8]>(x)[l & 7] = v;
}

pub(crate) fn lane_i(x: &mut I32x8, l: usize, v: i32) {
    bytemuck::cast_mut::<I32x8, [i32; 8]>(x)[l & 7] = v;
}

pub(crate) fn at_f(x: F32x8, l: usize) -> f32 {
    x.to_array()[l & 7]
}

pub(crate) fn at_i(x: I32x8, l: usize) -> i32 {
    x.to_array()[l & 7]
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
    pub(crate) const EMPTY: SourceLanes = SourceLanes {
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
    pub(crate) fn advance(&mut self, dt: F32x8) -> (u8, u8, Spanx8) {
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
    pub(crate) fn sample_at(&self) -> SampleAt {
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

    pub(crate) fn set(&mut self, l: usize, s: &Source, rows: ClipRows) {
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

    pub(crate) fn set_end(&mut self, l: usize, end: ClipEnd) {
        let e = match end {
            ClipEnd::Loop => 0,
            ClipEnd::Hold => 1,
            ClipEnd::Event => 2,
        };
        lane_i(&mut self.end, l, e);
        lane_i(&mut self.ended, l, 0);
    }

    /// Lane `l`'s time moved into its clip ([`place`]).
    pub(crate) fn replace(&mut self, l: usize) {
        let looping: F32x8 = bytemuck::cast(self.end.simd_eq(I32x8::ZERO));
        let (t, _, _) = place(self.time, self.len, looping);
        lane_f(&mut self.time, l, at_f(t, l));
    }

    pub(crate) fn get(&self, l: usize) -> Source {
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

    /// Whether lane `l` holds at an end this step (its effective rate 0).
    pub(crate) fn held(&self, l: usize) -> bool {
        let t = at_f(self.time, l);
        at_i(self.end, l) != 0
            && (t <= 0.0 && at_f(self.rate, l) < 0.0
                || t >= at_f(self.len, l) && at_f(self.rate, l) > 0.0)
    }
}

/// A blend weight of eight characters: its value, its rate per second,
/// and the target and half-life of the spring that moves it (half-life 0:
/// the weight holds).
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct WeightLanes {
    pub w: F32x8,
    pub vel: F32x8,
    pub target: F32x8,
    pub halflife: F32x8,
}

/// Damping of a half-life, `4 ln2 / (h + 1e-5)` (springs article).
#[inline(always)]
fn damping(h: F32x8) -> F32x8 {
    splat(4.0 * r::LN2) / (h + splat(r::EPS_SPRING))
}

/// A layer's weight this close to its target, and this still, is taken
/// as there ([`WeightLanes::settle`]).
const SETTLED_W: f32 = 1e-6;
const SETTLED_VEL: f32 = 1e-5;

impl WeightLanes {
    pub(crate) const ZERO: WeightLanes = WeightLanes {
        w: F32x8::ZERO,
        vel: F32x8::ZERO,
        target: F32x8::ZERO,
        halflife: F32x8::ZERO,
    };

    /// Advances by `dt`: a critically damped spring toward the target
    /// where a half-life is set (`simple_spring_damper_exact` with the
    /// exact exponential, so its velocity is its derivative).
    #[inline(always)]
    pub(crate) fn advance(&mut self, dt: F32x8) {
        let springs = self.halflife.simd_gt(F32x8::ZERO);
        let y = damping(self.halflife) * splat(0.5);
        let j0 = self.w - self.target;
        let j1 = j0.mul_add(y, self.vel);
        let e = (-(y * dt)).exp();
        let w = e.mul_add(j1.mul_add(dt, j0), self.target);
        let v = e * (j1 * y).mul_neg_add(dt, self.vel);
        self.w = springs.select(w, self.w);
        self.vel = springs.select(lanes::flush_tiny(v), F32x8::ZERO);
    }

    /// A spring within 1e-6 of its target and slower than 1e-5 per second
    /// stops there (a layer's weight: at exactly 0 a pack skips the
    /// layer; the jump is at most 1e-6 of the layer's pose).
    #[inline(always)]
    pub(crate) fn settle(&mut self) {
        let near = (self.w - self.target).abs().simd_le(splat(SETTLED_W))
            & self.vel.abs().simd_le(splat(SETTLED_VEL))
            & self.halflife.simd_gt(F32x8::ZERO);
        self.w = near.select(self.target, self.w);
        self.vel = near.select(F32x8::ZERO, self.vel);
        self.halflife = near.select(F32x8::ZERO, self.halflife);
    }

    /// Lane `l` set to `weight`, still.
    pub(crate) fn set(&mut self, l: usize, weight: f32) {
        lane_f(&mut self.w, l, weight);
        lane_f(&mut self.vel, l, 0.0);
        lane_f(&mut self.target, l, weight);
        lane_f(&mut self.halflife, l, 0.0);
    }

    /// Lane `l` moving toward `target` with a spring of `halflife`.
    pub(crate) fn toward(&mut self, l: usize, target: f32, halflife: f32) {
        lane_f(&mut self.target, l, target);
        lane_f(&mut self.halflife, l, halflife);
    }

    /// Lanes whose weight is zero and still (bits).
    #[inline(always)]
    pub(crate) fn idle(&self) -> u8 {
        (self.w.simd_eq(F32x8::ZERO) & self.vel.simd_eq(F32x8::ZERO)).to_bitmask() as u8
    }
}

/// One layer of eight characters: its source and its weight.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct LayerLanes {
    pub src: SourceLanes,
    pub weight: WeightLanes,
}

/// What a layer of eight characters shows this step: where its source
/// samples, its weight and the weight's rate, and the lanes where its
/// hemispheres are chosen anew because it was idle (weight zero and
/// still) before the step or is now.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LayerStep {
    pub at: SampleAt,
    pub w: F32x8,
    pub rate: F32x8,
    pub idle: u8,
}

impl LayerLanes {
    /// Playing clip 0 from its start at weight 0.
    pub(crate) fn new(rows: ClipRows) -> LayerLanes {
        let mut s = LayerLanes {
            src: SourceLanes::EMPTY,
            weight: WeightLanes::ZERO,
        };
        for l in 0..8 {
            s.src.set(l, &Source::looping(0, 0.0), rows);
        }
        s
    }

    /// Advances by `dt` (its weight settles, [`WeightLanes::settle`]);
    /// returns the lanes that reached a reporting end, the lanes that
    /// wrapped, the lanes idle before the step, and its source's move
    /// (for the markers it crossed, [`crate::crowd::MarkerHit`]).
    #[inline(always)]
    pub(crate) fn advance(&mut self, dt: F32x8) -> (u8, u8, u8, Spanx8) {
        let before = self.weight.idle();
        let (ended, wrapped, span) = self.src.advance(dt);
        self.weight.advance(dt);
        self.weight.settle();
        (ended, wrapped, before, span)
    }

    /// What the layer shows now, idle before the step in `before`.
    #[inline(always)]
    pub(crate) fn step(&self, before: u8) -> LayerStep {
        LayerStep {
            at: self.src.sample_at(),
            w: self.weight.w,
            rate: self.weight.vel,
            idle: before | self.weight.idle(),
        }
    }
}
