//! The crowd: thousands of characters on one skeleton, each playing motion
//! capture at its own time and rate, blending two sources with a changing
//! weight, jumping to random points of the clips every few seconds with the
//! jumps hidden by cubic inertialization or dead blending, and carried
//! through forward kinematics to world-space positions, rotations,
//! velocities and angular velocities.
//!
//! Two implementations of the same frame:
//!
//! - [`Crowd`]: eight characters per pack; each pack's frame is a few
//!   passes over its joints whose data stays in L1/L2 (sample source A;
//!   sample source B and blend; inertialize or dead-blend; FK straight into
//!   the world output with the velocity check), packs across cores with
//!   rayon. Sampling reads a [`Database`] whose rows hold each frame's step
//!   to the next, so linear sampling is `exp(a w) r` with no logarithm, and
//!   `slerp(a, b, t)` is evaluated as `exp(t log(b a⁻¹)) a`, sharing the
//!   logarithm the angular velocity needs anyway. PERF.md has its figures
//!   and where its time goes.
//! - [`ReferenceCrowd`]: the same frame through [`crate::reference`], one
//!   character at a time (`kineform crowd --scalar`).
//!
//! Both share the per-character schedule ([`Character`]), so the same seed
//! gives the same transitions, and agree within the tolerances of
//! `tests/crowd.rs`.
//!
//! The crowd skeleton is the clip's with one joint in front: joint 0 is the
//! character's place in the world (a static root, so characters stand on a
//! grid), joint `j + 1` is clip joint `j`.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use rayon::prelude::*;
use std::sync::Mutex;

use crate::batch::positive;
use crate::clip::Clip;
use crate::database::{Database, Frames8, Rowx8};
use crate::error::{Error, Result};
use crate::lanes::{self, CubicWeights, F32x8, I32x8, Quatx8, Rotor, Vec3x8, splat};
use crate::prefetch;
use crate::reference::{self as r, Kform, Pose, Vec3};
use crate::skeleton::Skeleton;

/// How transitions are hidden.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transition {
    /// Cubic inertialization of the offset from the displayed pose.
    Inertialize,
    /// Dead blending: the displayed pose extrapolated with decaying
    /// velocities, cross-faded into the new animation.
    DeadBlend,
}

/// How clips are sampled between frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Linear (slerp) between the two frames around the time.
    Linear,
    /// Catmull-Rom through the four frames around the time.
    Cubic,
}

/// Everything that shapes a crowd run.
#[derive(Clone, Debug)]
pub struct CrowdConfig {
    /// Number of characters.
    pub characters: usize,
    /// Inertialization or dead blending.
    pub transition: Transition,
    /// Linear or cubic sampling.
    pub sampling: Sampling,
    /// Seed of every character's random schedule.
    pub seed: u64,
    /// Simulation step, seconds (one frame).
    pub dt: f32,
    /// Length of a transition, seconds.
    pub blend_duration: f32,
    /// Half-life of the extrapolation in dead blending, seconds.
    pub extrapolation_halflife: f32,
    /// Seconds between a character's transitions: uniform in this range.
    pub transition_every: (f32, f32),
    /// Playback rates: uniform in this range.
    pub playback_rate: (f32, f32),
    /// Distance between neighbouring characters on the world grid.
    pub spacing: f32,
}

impl Default for CrowdConfig {
    fn default() -> CrowdConfig {
        CrowdConfig {
            characters: 10_000,
            transition: Transition::Inertialize,
            sampling: Sampling::Linear,
            seed: 1,
            dt: 1.0 / 60.0,
            blend_duration: 0.3,
            extrapolation_halflife: 0.2,
            transition_every: (2.0, 5.0),
            playback_rate: (0.8, 1.2),
            spacing: 60.0,
        }
    }
}

impl CrowdConfig {
    fn check(&self) -> Result<()> {
        if self.characters == 0 {
            return Err(Error::Length {
                what: "characters",
                expected: 1,
                got: 0,
            });
        }
        positive("dt", self.dt)?;
        positive("blend_duration", self.blend_duration)?;
        positive("extrapolation_halflife", self.extrapolation_halflife)?;
        positive("transition_every", self.transition_every.0)?;
        positive("playback_rate", self.playback_rate.0)?;
        positive("spacing", self.spacing)?;
        for (name, (lo, hi)) in [
            ("transition_every", self.transition_every),
            ("playback_rate", self.playback_rate),
        ] {
            if hi < lo || !hi.is_finite() {
                return Err(Error::Parameter {
                    name,
                    value: hi,
                    reason: "range must be finite with max >= min",
                });
            }
        }
        Ok(())
    }
}

/// A point of one clip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Source {
    /// Clip index.
    pub clip: usize,
    /// Seconds into the clip.
    pub time: f32,
}

/// One character's schedule: its two sources, playback rate, blend weight
/// and transitions. Shared by [`ReferenceCrowd`] and [`Crowd`], which
/// advances eight at a time in lanes with the same arithmetic (`Schedx8`)
/// and calls on this one for jumps.
#[derive(Clone, Debug)]
pub struct Character {
    rng: Pcg32,
    a: Source,
    b: Source,
    rate: f32,
    lag: f32,
    phase: f32,
    freq: f32,
    countdown: f32,
    blend_time: f32,
    /// Place on the ground and facing (radians about +y): joint 0, kept
    /// small because every frame reads and writes the schedule.
    place: Vec3,
    facing: f32,
}

/// What one frame holds for one character.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// Sources had there been no transition (the step's playback applied).
    pub old: (Source, Source),
    /// Sources shown this frame.
    pub new: (Source, Source),
    /// True when the character jumped this frame.
    pub transition: bool,
    /// Playback rate (clip seconds per second).
    pub rate: f32,
    /// Phase of the blend weight, radians in `[0, 2π)`: source B's weight
    /// is `alpha = (1 + sin phase) / 2` ([`Step::weight`]).
    pub phase: f32,
    /// How fast the phase turns, radians per second.
    pub freq: f32,
    /// Time into the previous transition, had there been no jump.
    pub blend_time_old: f32,
    /// Time into the current transition.
    pub blend_time: f32,
}

impl Step {
    /// Source B's blend weight and its change over a step of `dt`
    /// (`op_blend`'s `alpha` and `alpha_vel`): `(1 + sin φ) / 2` and
    /// `cos(φ) f dt / 2`. The 8-lane crowd computes the same with
    /// [`lanes::sin_cos`].
    pub fn weight(&self, dt: f32) -> (f32, f32) {
        (
            0.5 + 0.5 * self.phase.sin(),
            0.5 * self.phase.cos() * self.freq * dt,
        )
    }
}

/// A blend time that means "no transition running".
const IDLE: f32 = 1e9;

impl Character {
    fn new(index: usize, clip_lengths: &[f32], cfg: &CrowdConfig) -> Character {
        let mut rng =
            Pcg32::seed_from_u64(cfg.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let cols = (cfg.characters as f32).sqrt().ceil().max(1.0) as usize;
        let facing = rng.random_range(0.0..std::f32::consts::TAU);
        let place = Vec3::new(
            (index % cols) as f32 * cfg.spacing,
            0.0,
            (index / cols) as f32 * cfg.spacing,
        );
        let mut c = Character {
            a: Source { clip: 0, time: 0.0 },
            b: Source { clip: 0, time: 0.0 },
            rate: rng.random_range(cfg.playback_rate.0..=cfg.playback_rate.1),
            lag: rng.random_range(0.05..0.3),
            phase: rng.random_range(0.0..std::f32::consts::TAU),
            freq: rng.random_range(0.3..1.5),
            countdown: 0.0,
            blend_time: IDLE,
            place,
            facing,
            rng,
        };
        c.jump(clip_lengths, cfg);
        c.blend_time = IDLE;
        c
    }

    /// Picks new sources and the time to the next jump: source A at a
    /// random point of a random clip, source B the same clip `lag` seconds
    /// later (blend trees blend poses that are alike; blending unrelated
    /// poses puts the blend's first-order rotation velocities far off).
    fn jump(&mut self, clip_lengths: &[f32], cfg: &CrowdConfig) {
        let clip = self.rng.random_range(0..clip_lengths.len());
        let span = (clip_lengths[clip] - 0.5 - self.lag).max(0.0);
        let time = if span > 0.0 {
            self.rng.random_range(0.0..span)
        } else {
            0.0
        };
        self.a = Source { clip, time };
        self.b = Source {
            clip,
            time: (time + self.lag).min(clip_lengths[clip]),
        };
        self.countdown = self
            .rng
            .random_range(cfg.transition_every.0..=cfg.transition_every.1);
        self.blend_time = 0.0;
    }

    /// The step [`Character::advance`] will take, without taking it: where
    /// it jumps, `new` repeats `old` and `blend_time` the old one (the jump
    /// draws from the generator, which only `advance` does).
    #[inline(always)]
    pub fn preview(&self, clip_lengths: &[f32], cfg: &CrowdConfig) -> Step {
        let dt = cfg.dt;
        let adv = |s: Source| Source {
            clip: s.clip,
            time: s.time + self.rate * dt,
        };
        let old = (adv(self.a), adv(self.b));
        let mut phase = self.phase + self.freq * dt;
        if phase >= std::f32::consts::TAU {
            // Once per turn; the remainder only matters for absurd steps.
            phase = (phase - std::f32::consts::TAU) % std::f32::consts::TAU;
        }
        let blend_time_old = (self.blend_time + dt).min(IDLE);
        let transition = self.will_jump(clip_lengths, dt);
        Step {
            old,
            new: old,
            transition,
            rate: self.rate,
            phase,
            freq: self.freq,
            blend_time_old,
            blend_time: blend_time_old,
        }
    }

    /// Whether the next step of `dt` jumps: when the countdown runs out or
    /// either source would pass the end of its clip.
    #[inline]
    pub fn will_jump(&self, clip_lengths: &[f32], dt: f32) -> bool {
        let past = |s: Source| s.time + self.rate * dt > clip_lengths[s.clip];
        self.countdown - dt <= 0.0 || past(self.a) || past(self.b)
    }

    /// Advances the schedule by one step of `cfg.dt` ([`Character::preview`],
    /// then the jump where it transitions).
    pub fn advance(&mut self, clip_lengths: &[f32], cfg: &CrowdConfig) -> Step {
        let mut step = self.preview(clip_lengths, cfg);
        self.phase = step.phase;
        self.countdown -= cfg.dt;
        self.blend_time = step.blend_time_old;
        if step.transition {
            self.jump(clip_lengths, cfg);
            step.new = (self.a, self.b);
            step.blend_time = self.blend_time;
        } else {
            (self.a, self.b) = step.old;
        }
        step
    }

    /// The character's place in the world (joint 0).
    pub fn world(&self) -> Kform {
        Kform {
            pos: self.place,
            rot: r::quat_from_angle_axis(self.facing, Vec3::new(0.0, 1.0, 0.0)),
            ..Kform::IDENTITY
        }
    }

    /// Seconds into the current transition (huge when none has happened).
    pub fn blend_time(&self) -> f32 {
        self.blend_time
    }

    /// The two sources shown.
    pub fn sources(&self) -> (Source, Source) {
        (self.a, self.b)
    }
}

/// Eight characters' schedules in lanes: the 8-lane crowd's form of
/// [`Character`], advanced with the same operations in the same order
/// ([`Character::preview`], [`Character::will_jump`]), so each lane follows
/// its character bit for bit. A jump, which draws from the character's
/// generator, goes through [`Character::jump`] on the scalar character,
/// which the crowd keeps beside; between jumps only its generator, lag,
/// clip and place are current ([`Schedx8::get`] gives the whole character).
#[derive(Clone, Copy)]
struct Schedx8 {
    a: F32x8,
    b: F32x8,
    rate: F32x8,
    phase: F32x8,
    freq: F32x8,
    countdown: F32x8,
    blend_time: F32x8,
    /// Per lane, its clip's length in seconds, first database row and last
    /// frame (both sources play one clip, as [`Character::jump`] picks
    /// them).
    length: F32x8,
    start: I32x8,
    last: I32x8,
}

/// Eight characters' step in lanes ([`Step`]): the times of the two
/// sources to sample and their clip's rows, the playback rate, the blend
/// weight's phase and frequency, the blend times, and which lanes jumped
/// (bits).
#[derive(Clone, Copy)]
struct Stepx8 {
    a: F32x8,
    b: F32x8,
    start: I32x8,
    last: I32x8,
    rate: F32x8,
    phase: F32x8,
    freq: F32x8,
    blend_time: F32x8,
    blend_time_old: F32x8,
    jumped: u8,
}

/// Clip `clip`'s first database row and last frame, as lanes take them.
fn clip_rows(db: &Database, clip: usize) -> (i32, i32) {
    let lane = |x: usize| i32::try_from(x).unwrap_or(i32::MAX);
    let (start, frames) = db.clips()[clip];
    (lane(start), lane(frames) - 1)
}

impl Schedx8 {
    /// The schedules of `chars` (eight).
    fn new(chars: &[Character], db: &Database, clip_lengths: &[f32]) -> Schedx8 {
        let zero = F32x8::ZERO;
        let mut s = Schedx8 {
            a: zero,
            b: zero,
            rate: zero,
            phase: zero,
            freq: zero,
            countdown: zero,
            blend_time: zero,
            length: zero,
            start: I32x8::ZERO,
            last: I32x8::ZERO,
        };
        for (l, c) in chars.iter().enumerate() {
            s.set(l, c, db, clip_lengths);
        }
        s
    }

    /// Lane `l` set to character `c`.
    fn set(&mut self, l: usize, c: &Character, db: &Database, clip_lengths: &[f32]) {
        debug_assert_eq!(c.a.clip, c.b.clip, "both sources play one clip");
        let (start, last) = clip_rows(db, c.a.clip);
        let l = l & 7;
        let fields = [
            (&mut self.a, c.a.time),
            (&mut self.b, c.b.time),
            (&mut self.rate, c.rate),
            (&mut self.phase, c.phase),
            (&mut self.freq, c.freq),
            (&mut self.countdown, c.countdown),
            (&mut self.blend_time, c.blend_time),
            (&mut self.length, clip_lengths[c.a.clip]),
        ];
        for (x, v) in fields {
            bytemuck::cast_mut::<F32x8, [f32; 8]>(x)[l] = v;
        }
        bytemuck::cast_mut::<I32x8, [i32; 8]>(&mut self.start)[l] = start;
        bytemuck::cast_mut::<I32x8, [i32; 8]>(&mut self.last)[l] = last;
    }

    /// Character `c` (lane `l`'s) with lane `l`'s state.
    fn get(&self, l: usize, c: &Character) -> Character {
        let at = |x: F32x8| x.to_array()[l & 7];
        Character {
            a: Source {
                clip: c.a.clip,
                time: at(self.a),
            },
            b: Source {
                clip: c.b.clip,
                time: at(self.b),
            },
            phase: at(self.phase),
            countdown: at(self.countdown),
            blend_time: at(self.blend_time),
            ..c.clone()
        }
    }

    /// [`Character::advance`] of every lane, `chars` the lanes'
    /// characters (eight).
    #[inline(always)]
    fn advance(
        &mut self,
        chars: &mut [Character],
        db: &Database,
        clip_lengths: &[f32],
        cfg: &CrowdConfig,
    ) -> Stepx8 {
        let dt = splat(cfg.dt);
        let (a, b) = (self.a + self.rate * dt, self.b + self.rate * dt);
        let mut phase = self.phase + self.freq * dt;
        const TAU: f32 = std::f32::consts::TAU;
        if phase.simd_ge(splat(TAU)).any() {
            // Once per turn, per lane as Character::preview.
            for p in bytemuck::cast_mut::<F32x8, [f32; 8]>(&mut phase) {
                if *p >= TAU {
                    *p = (*p - TAU) % TAU;
                }
            }
        }
        let countdown = self.countdown - dt;
        let blend_time_old = (self.blend_time + dt).min(splat(IDLE));
        let jump = countdown.simd_le(F32x8::ZERO) | a.simd_gt(self.length) | b.simd_gt(self.length);
        *self = Schedx8 {
            a,
            b,
            phase,
            countdown,
            blend_time: blend_time_old,
            ..*self
        };
        let jumped = jump.to_bitmask() as u8;
        for l in (0..8).filter(|l| jumped & (1 << l) != 0) {
            let mut c = self.get(l, &chars[l]);
            c.jump(clip_lengths, cfg);
            self.set(l, &c, db, clip_lengths);
            chars[l] = c;
        }
        Stepx8 {
            a: self.a,
            b: self.b,
            start: self.start,
            last: self.last,
            rate: self.rate,
            phase,
            freq: self.freq,
            blend_time: self.blend_time,
            blend_time_old,
            jumped,
        }
    }

    /// [`Character::will_jump`] of every lane, as bits.
    #[inline(always)]
    fn will_jump(&self, dt: f32) -> u8 {
        let dt = splat(dt);
        let past = |t: F32x8| (t + self.rate * dt).simd_gt(self.length);
        ((self.countdown - dt).simd_le(F32x8::ZERO) | past(self.a) | past(self.b)).to_bitmask()
            as u8
    }
}

impl Stepx8 {
    /// Eight scalar steps' old sources (the poses a jump leaves) in lanes.
    fn old_of(steps: &[Step; 8], db: &Database) -> Stepx8 {
        let lanef = |f: fn(&Step) -> f32| F32x8::new(steps.each_ref().map(f));
        let rows = steps.each_ref().map(|s| clip_rows(db, s.old.0.clip));
        Stepx8 {
            a: lanef(|s| s.old.0.time),
            b: lanef(|s| s.old.1.time),
            start: I32x8::new(rows.map(|r| r.0)),
            last: I32x8::new(rows.map(|r| r.1)),
            rate: lanef(|s| s.rate),
            phase: lanef(|s| s.phase),
            freq: lanef(|s| s.freq),
            blend_time: lanef(|s| s.blend_time),
            blend_time_old: lanef(|s| s.blend_time_old),
            jumped: 0,
        }
    }
}

/// The crowd skeleton: a static world root in front of the clip's joints.
fn crowd_skeleton(clip: &Skeleton) -> Result<Skeleton> {
    let parents = std::iter::once(-1)
        .chain(clip.parents().iter().map(|&p| p + 1))
        .collect();
    let names = std::iter::once("world".to_string())
        .chain(clip.names().iter().cloned())
        .collect();
    Skeleton::with_names(parents, names)
}

/// Velocity check over a run: the gap between the propagated world velocity
/// and the finite difference of world positions across a frame,
/// `|(p₁ - p₀) / dt - (v₀ + v₁) / 2|`, over every character and joint.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VelocityCheck {
    /// Largest gap, units per second.
    pub max_gap: f32,
    /// Sum of gaps (for the mean).
    pub sum_gap: f64,
    /// Number of character-joint samples.
    pub samples: u64,
    /// Largest propagated speed seen, units per second (for scale).
    pub max_speed: f32,
}

impl VelocityCheck {
    fn merge(&mut self, o: &VelocityCheck) {
        self.max_gap = self.max_gap.max(o.max_gap);
        self.sum_gap += o.sum_gap;
        self.samples += o.samples;
        self.max_speed = self.max_speed.max(o.max_speed);
    }

    /// Mean gap, units per second.
    pub fn mean_gap(&self) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            self.sum_gap / self.samples as f64
        }
    }
}

/// What one frame did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// Characters that jumped this frame.
    pub transitions: u32,
    /// This frame's velocity check (empty on a crowd's first frame).
    pub velocity: VelocityCheck,
}

impl FrameStats {
    /// The statistics of packs or characters put together, in order (so
    /// the sum is the same for any thread count).
    fn total(parts: &[FrameStats]) -> FrameStats {
        let mut total = FrameStats::default();
        for s in parts {
            total.transitions += s.transitions;
            total.velocity.merge(&s.velocity);
        }
        total
    }
}

fn validate(clips: &[Clip], skeleton: &Skeleton, cfg: &CrowdConfig) -> Result<Vec<f32>> {
    cfg.check()?;
    if clips.is_empty() {
        return Err(Error::Length {
            what: "clips",
            expected: 1,
            got: 0,
        });
    }
    for c in clips {
        if c.joints() != skeleton.len() {
            return Err(Error::Length {
                what: "clip joints (must match the skeleton)",
                expected: skeleton.len(),
                got: c.joints(),
            });
        }
    }
    Ok(clips.iter().map(Clip::last_time).collect())
}

// ---------------------------------------------------------------------------
// The 8-lane crowd.
// ---------------------------------------------------------------------------

/// Position, rotation and their velocities of one joint of eight characters:
/// a kineform without scale (the 8-lane crowd plays unit-scale clips). Also
/// the crowd's world-space output.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Motionx8 {
    /// Positions.
    pub pos: Vec3x8,
    /// Rotations.
    pub rot: Quatx8,
    /// Linear velocities.
    pub vel: Vec3x8,
    /// Angular velocities.
    pub ang: Vec3x8,
}

impl Motionx8 {
    const REST: Motionx8 = Motionx8 {
        pos: Vec3x8::ZERO,
        rot: Quatx8::IDENTITY,
        vel: Vec3x8::ZERO,
        ang: Vec3x8::ZERO,
    };
}

/// The rotational half of an inertialization offset of one joint of eight
/// characters: the rotation as a half-angle vector (logged once, at the
/// transition) and the angular velocity. Kept for every joint.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct TurnOffsetx8 {
    rot: Vec3x8,
    ang: Vec3x8,
}

/// The positional half of an inertialization offset: kept only for joints
/// whose position moves. Every other joint's offset is [`ShiftOffsetx8::ZERO`],
/// its local position being the same in every pose.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct ShiftOffsetx8 {
    pos: Vec3x8,
    vel: Vec3x8,
}

impl ShiftOffsetx8 {
    const ZERO: ShiftOffsetx8 = ShiftOffsetx8 {
        pos: Vec3x8::ZERO,
        vel: Vec3x8::ZERO,
    };
}

/// What a crowd joint's local pose does over the clips, which decides the
/// work its passes do and the state it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Track {
    /// Position and rotation the same in every frame of every clip
    /// ([`Database::still_rotation`]; 8 of the embedded clip's 31 joints):
    /// sampling, blending and transitions all give that pose with zero
    /// velocities, as the reference computes them exactly, so the scratch
    /// poses hold it from the start and only FK reads it. Also joint 0,
    /// the world root, which is set per pack.
    Still,
    /// A fixed position and an animated rotation: its row among a pack's
    /// turn offsets.
    Turns(usize),
    /// Animated position and rotation: its rows among the turn and the
    /// shift offsets.
    Moves(usize, usize),
}

impl Track {
    /// Per crowd joint (joint 0 the world root), from the database.
    /// Turn offsets follow the database's rotation rows.
    fn of(db: &Database) -> Vec<Track> {
        core::iter::once(Track::Still)
            .chain(
                (0..db.joints()).map(|j| match (db.turning_row(j), db.moving_row(j)) {
                    (None, _) => Track::Still,
                    (Some(k), None) => Track::Turns(k),
                    (Some(k), Some(s)) => Track::Moves(k, s),
                }),
            )
            .collect()
    }
}

/// Per-lane sampling rows of one source for a pack: the first database
/// row of the frames before, at and after each lane's time.
#[derive(Clone, Copy)]
struct SampleRows {
    prev: Frames8,
    at: Frames8,
    next: Frames8,
    prev_valid: F32x8,
    alpha: F32x8,
    alpha2: F32x8,
}

impl SampleRows {
    /// The rows at `time` of clips starting at row `start` with last
    /// frame `last` ([`clip_rows`]); for linear sampling only `at` is read
    /// (the others repeat it).
    #[inline(always)]
    fn new<const CUBIC: bool>(db: &Database, time: F32x8, start: I32x8, last: I32x8) -> SampleRows {
        let (st, alpha) = lanes::sample_frame(time, db.frame_time());
        let row = |k: I32x8| db.frames8_lanes(k.max(I32x8::ZERO).min(last) + start);
        let one = I32x8::splat(1);
        let at = row(st);
        SampleRows {
            prev: if CUBIC { row(st - one) } else { at },
            at,
            next: if CUBIC { row(st + one) } else { at },
            prev_valid: bytemuck::cast(st.simd_gt(I32x8::ZERO)),
            alpha,
            alpha2: alpha * alpha,
        }
    }
}

/// Linear sampling of one joint from a gathered row, velocities scaled by
/// the playback rate `speed`: `pos = p + a d`, `vel = d / dt`,
/// `rot = exp(a w) r` (the slerp), `ang = 2 w / dt`. `|a w|² = a² (w·w)`
/// from the row; when every lane's is within [`lanes::EXP_SMALL_S`] (a
/// 120 Hz clip's steps nearly always are) the exponential takes the short
/// series.
#[inline(always)]
fn sample_linear_row(
    row: &Rowx8,
    (alpha, alpha2): (F32x8, F32x8),
    vel_scale: F32x8,
    ang_scale: F32x8,
) -> Motionx8 {
    let s = alpha2 * row.step_h2;
    let step = if s.simd_le(splat(lanes::EXP_SMALL_S)).all() {
        lanes::quat_exp_small_scaled(row.step_rot, alpha, s)
    } else {
        lanes::quat_exp_short_scaled(row.step_rot, alpha, s)
    };
    Motionx8 {
        pos: row.pos + alpha * row.step_pos,
        rot: lanes::quat_mul(step, row.rot),
        vel: row.step_pos * vel_scale,
        ang: row.step_rot * ang_scale,
    }
}

/// Catmull-Rom sampling of one joint from the rows before, at and after the
/// frame, in the reference's formulation with differences taken from the
/// stored steps.
#[inline(always)]
fn sample_cubic_rows(
    prev: &Rowx8,
    at: &Rowx8,
    next: &Rowx8,
    valid: F32x8,
    alpha: F32x8,
    vel_scale: F32x8,
    ang_scale: F32x8,
) -> Motionx8 {
    let half = splat(0.5);
    let x = alpha;
    let (x2, x3) = (x * x, x * x * x);
    let (two, three) = (splat(2.0), splat(3.0));
    let (w1, w2, w3) = (three * x2 - two * x3, x3 - two * x2 + x, x3 - x2);
    let w0 = splat(1.0) - w1;
    let (q1, q2, q3) = (
        splat(6.0) * (x - x2),
        three * x2 - splat(4.0) * x + splat(1.0),
        three * x2 - two * x,
    );
    // Steps into the frame before, zero where there is none.
    let masked = |v: Vec3x8| Vec3x8::new(valid & v.x, valid & v.y, valid & v.z);
    let d10 = masked(prev.step_pos);
    let (d21, d32) = (at.step_pos, next.step_pos);
    let (v1, v2) = ((d10 + d21) * half, (d21 + d32) * half);
    let r10 = masked(prev.step_rot);
    let (r21, r32) = (at.step_rot, next.step_rot);
    let (u1, u2) = ((r10 + r21) * half, (r21 + r32) * half);
    Motionx8 {
        pos: w0 * at.pos + w1 * (at.pos + d21) + w2 * v1 + w3 * v2,
        rot: lanes::quat_mul(quat_exp_any(w1 * r21 + w2 * u1 + w3 * u2), at.rot),
        vel: (q1 * d21 + q2 * v1 + q3 * v2) * vel_scale,
        ang: (q1 * r21 + q2 * u1 + q3 * u2) * ang_scale,
    }
}

/// Blend of one joint: `slerp(a, b, t) = exp(t w) a` with
/// `w = log(quat_abs(b a⁻¹))`, velocities lerped plus `(b - a) rate`.
/// `w = k v` with `v` the relative rotation's vector part
/// ([`lanes::quat_log_short_factor`]), so `t w` and the angular velocity
/// term `2 w rate` scale `v` once each, and `|t w|² = (k t)² (v·v)`.
#[inline(always)]
fn blend_joint(a: &Motionx8, b: &Motionx8, alpha: F32x8, rate: F32x8) -> Motionx8 {
    let d = lanes::quat_abs(lanes::quat_mul_inv(b.rot, a.rot));
    let v = d.xyz();
    let l2 = lanes::dot(v, v);
    let k = lanes::quat_log_short_factor(d.w, l2);
    let kt = k * alpha;
    Motionx8 {
        pos: lanes::lerp_vec3(a.pos, b.pos, alpha),
        rot: lanes::quat_mul(lanes::quat_exp_short_scaled(v, kt, l2 * (kt * kt)), a.rot),
        vel: lanes::lerp_vec3(a.vel, b.vel, alpha) + (b.pos - a.pos) * rate,
        ang: lanes::lerp_vec3(a.ang, b.ang, alpha) + v * (k * (rate + rate)),
    }
}

/// The offset from the displayed pose `l` to the new input `r`
/// ([`r::op_inertialize_offset`], rotation stored as a half-angle vector;
/// [`lanes::quat_log_short`] applies, `quat_abs` giving `w >= 0`).
#[inline(always)]
fn offset_between(l: &Motionx8, r: &Motionx8) -> (TurnOffsetx8, ShiftOffsetx8) {
    let rot = lanes::quat_abs(lanes::quat_mul_inv(l.rot, r.rot));
    let turn = TurnOffsetx8 {
        rot: lanes::quat_log_short(rot),
        ang: l.ang - Rotor::new(rot).apply(r.ang),
    };
    let shift = ShiftOffsetx8 {
        pos: l.pos - r.pos,
        vel: l.vel - r.vel,
    };
    (turn, shift)
}

/// [`lanes::quat_exp`], through [`lanes::quat_exp_short`] when every lane
/// is in its domain (`|v| <= π/2`, nearly always for decaying offsets): a
/// branch taken by the whole pack, so no lane is ever evaluated outside
/// the domain.
#[inline(always)]
fn quat_exp_any(v: Vec3x8) -> Quatx8 {
    const SHORT2: f32 = core::f32::consts::FRAC_PI_2 * core::f32::consts::FRAC_PI_2;
    if lanes::dot(v, v).simd_le(splat(SHORT2)).all() {
        lanes::quat_exp_short(v)
    } else {
        lanes::quat_exp(v)
    }
}

/// The decayed offset applied to the input ([`r::op_inertialize`]). Lanes
/// past their transition need no select: their weights are exactly zero,
/// so the offset is the identity and the input passes through unchanged
/// (bit for bit, offsets being finite).
#[inline(always)]
fn inertialize_joint(
    t: &TurnOffsetx8,
    s: &ShiftOffsetx8,
    i: &Motionx8,
    w: &CubicWeights,
) -> Motionx8 {
    let saa = t.rot + t.rot;
    let off_rot = quat_exp_any(w.offset(saa, t.ang) * splat(0.5));
    Motionx8 {
        pos: i.pos + w.offset(s.pos, s.vel),
        rot: lanes::quat_mul(off_rot, i.rot),
        vel: i.vel + w.velocity(s.pos, s.vel),
        ang: Rotor::new(off_rot).apply_add(i.ang, w.velocity(saa, t.ang)),
    }
}

/// Dead blending of one joint: the transition pose extrapolated with
/// `(alpha, dalpha)`, blended into `input` with weight `a` changing at `ar`
/// per second ([`r::op_dead_blending`]).
#[inline(always)]
fn dead_blend_joint(
    tp: &Motionx8,
    input: &Motionx8,
    ex: (F32x8, F32x8),
    a: F32x8,
    ar: F32x8,
) -> Motionx8 {
    let e = Motionx8 {
        pos: tp.pos + tp.vel * ex.0,
        rot: lanes::quat_mul(lanes::quat_from_scaled_angle_axis(tp.ang * ex.0), tp.rot),
        vel: tp.vel * ex.1,
        ang: tp.ang * ex.1,
    };
    blend_joint(&e, input, a, ar)
}

#[inline(always)]
fn select_motion(m: F32x8, a: &Motionx8, b: &Motionx8) -> Motionx8 {
    Motionx8 {
        pos: m.select(a.pos, b.pos),
        rot: m.select(a.rot, b.rot),
        vel: m.select(a.vel, b.vel),
        ang: m.select(a.ang, b.ang),
    }
}

/// `state = mask ? new : state`, for the state kept across frames. A
/// bitwise select (and, and-not, or) rather than a blend: LLVM turns a
/// blend stored back where it was loaded from into masked stores
/// (`vmaskmovps`), which are microcoded and many times slower than a store
/// on AMD Zen; with the mask opaque (see [`mask`]) it cannot here.
#[inline(always)]
fn update_turn(m: F32x8, new: &TurnOffsetx8, state: &mut TurnOffsetx8) {
    *state = TurnOffsetx8 {
        rot: bitselect_vec3(m, new.rot, state.rot),
        ang: bitselect_vec3(m, new.ang, state.ang),
    };
}

/// [`update_turn`] for a [`ShiftOffsetx8`].
#[inline(always)]
fn update_shift(m: F32x8, new: &ShiftOffsetx8, state: &mut ShiftOffsetx8) {
    *state = ShiftOffsetx8 {
        pos: bitselect_vec3(m, new.pos, state.pos),
        vel: bitselect_vec3(m, new.vel, state.vel),
    };
}

/// [`update_turn`] for a [`Motionx8`].
#[inline(always)]
fn update_motion(m: F32x8, new: &Motionx8, state: &mut Motionx8) {
    let v = |n, o| bitselect_vec3(m, n, o);
    let (n, o) = (new.rot, state.rot);
    let rot = Quatx8::new(
        m.bitselect(n.w, o.w),
        m.bitselect(n.x, o.x),
        m.bitselect(n.y, o.y),
        m.bitselect(n.z, o.z),
    );
    *state = Motionx8 {
        pos: v(new.pos, state.pos),
        rot,
        vel: v(new.vel, state.vel),
        ang: v(new.ang, state.ang),
    };
}

/// `m ? n : o` per component, bitwise (see [`update_turn`]).
#[inline(always)]
fn bitselect_vec3(m: F32x8, n: Vec3x8, o: Vec3x8) -> Vec3x8 {
    Vec3x8::new(
        m.bitselect(n.x, o.x),
        m.bitselect(n.y, o.y),
        m.bitselect(n.z, o.z),
    )
}

/// Forward kinematics step at unit scale ([`lanes::kform_mul`] without
/// the scale terms): `pos = R l.pos + p.pos`, `rot = p.rot l.rot`,
/// `vel = R l.vel + ω_p × (R l.pos) + v_p`, `ang = R l.ang + ω_p`. `VEL` and
/// `ANG` say whether the local velocity and angular velocity can be
/// non-zero: a joint with a fixed position has no local velocity, a still
/// joint no angular velocity either, and their terms are left out (exactly:
/// rotating a zero vector gives zero).
#[inline(always)]
fn motion_mul<const VEL: bool, const ANG: bool>(p: &Motionx8, l: &Motionx8) -> Motionx8 {
    let r = Rotor::new(p.rot);
    let lever = r.apply(l.pos);
    let carried = lanes::cross_add(p.ang, lever, p.vel);
    Motionx8 {
        pos: lever + p.pos,
        rot: lanes::quat_mul(p.rot, l.rot),
        vel: if VEL {
            r.apply_add(l.vel, carried)
        } else {
            carried
        },
        ang: if ANG {
            r.apply_add(l.ang, p.ang)
        } else {
            p.ang
        },
    }
}

/// `*o = m` for a joint whose local position is fixed: only the rotation and
/// angular velocity are stored. Every local pose of such a joint holds the
/// fixed position and zero velocity from the start ([`PackScratch::new`]),
/// which is what `m.pos` and `m.vel` would be, and the compiler drops the
/// arithmetic behind them.
#[inline(always)]
fn put_turn(o: &mut Motionx8, m: Motionx8) {
    o.rot = m.rot;
    o.ang = m.ang;
}

/// A lane mask from eight flags, opaque to the optimizer so that the
/// bitwise selects of [`update_turn`] stay bitwise.
fn mask(b: [bool; 8]) -> F32x8 {
    opaque(F32x8::new(
        b.map(|b| if b { f32::from_bits(u32::MAX) } else { 0.0 }),
    ))
}

/// `m`, opaque to the optimizer (see [`mask`]).
fn opaque(m: F32x8) -> F32x8 {
    std::hint::black_box(m)
}

/// The crowd, eight characters per pack (see the module docs).
pub struct Crowd {
    cfg: CrowdConfig,
    db: Database,
    skeleton: Skeleton,
    clip_lengths: Vec<f32>,
    /// The characters: their schedules in lanes, advanced every frame, and
    /// as scalars, which jumps use (see [`Schedx8`]).
    scheds: Vec<Schedx8>,
    characters: Vec<Character>,
    /// Inertialization offsets, pack-major: rotational halves for every
    /// joint, positional halves for the joints whose position moves.
    turns: Vec<TurnOffsetx8>,
    shifts: Vec<ShiftOffsetx8>,
    /// Dead blending's transition poses, pack-major.
    transition: Vec<Motionx8>,
    world: Vec<Motionx8>,
    /// Each pack's joint 0: the characters' places in the world (static).
    roots: Vec<Motionx8>,
    /// Per crowd joint, what its local pose does.
    tracks: Vec<Track>,
    /// Rows of turn offsets per pack (joints that are not still).
    turning: usize,
    /// A local pose at rest: joints with a fixed position at it, still
    /// joints at their constant pose.
    rest: Vec<Motionx8>,
    /// One scratch per rayon worker, kept across frames (see
    /// [`PackScratch`]).
    scratch: Vec<Mutex<PackScratch>>,
    /// Per pack, which of its characters jump in the next frame (bit `i`
    /// for character `8p + i`; `Schedx8::will_jump`). Derivable from
    /// `scheds`, but kept: each pack writes its bits while its schedules
    /// are in cache, where deriving them at the start of the next frame
    /// would be a serial pass over all the schedules.
    jumps: Vec<u8>,
    /// The next frame's jumping characters in order, and per pack the
    /// index of its first one among them.
    movers: Vec<u32>,
    first_mover: Vec<u32>,
    /// The poses the jumping characters would have shown, eight per
    /// batch in the order of `movers` (see [`shown_batch`]).
    shown: Vec<Motionx8>,
    frames: u64,
}

/// Everything a pack's frame reads that is not the pack's own state.
struct Shared<'a> {
    cfg: &'a CrowdConfig,
    db: &'a Database,
    parents: &'a [i32],
    clip_lengths: &'a [f32],
    roots: &'a [Motionx8],
    tracks: &'a [Track],
    /// The poses the frame's jumping characters would have shown.
    shown: &'a [Motionx8],
    /// Pack 0's world output (a head and a tail) and kept state (turn
    /// offsets or transition poses) as regions to prefetch, in parts of one
    /// per clip joint; a pack prefetches the next pack's while it runs.
    world_ahead: [Ahead; 2],
    kept_ahead: Ahead,
    packs: usize,
    characters: usize,
    first: bool,
}

impl Crowd {
    /// A crowd of `cfg.characters` on `skeleton` playing `clips` (which must
    /// all have `skeleton`'s joints and one frame time, and unit scales: the
    /// fused 8-lane path carries no scales; see [`ReferenceCrowd`] for clips
    /// with scales).
    pub fn new(clips: &[Clip], skeleton: &Skeleton, cfg: CrowdConfig) -> Result<Crowd> {
        let clip_lengths = validate(clips, skeleton, &cfg)?;
        let db = Database::new(clips)?;
        if !db.unit_scales() {
            return Err(Error::Parameter {
                name: "clip scales",
                value: f32::NAN,
                reason: "the 8-lane crowd needs unit scales (use the reference crowd)",
            });
        }
        let skel = crowd_skeleton(skeleton)?;
        let packs = cfg.characters.div_ceil(8);
        let j = skel.len();
        let characters: Vec<Character> = (0..packs * 8)
            .map(|i| Character::new(i, &clip_lengths, &cfg))
            .collect();
        let roots = characters
            .chunks(8)
            .map(|chars| {
                let w: [Kform; 8] = core::array::from_fn(|i| chars[i].world());
                Motionx8 {
                    pos: Vec3x8::from_array(w.map(|k| k.pos)),
                    rot: Quatx8::from_array(w.map(|k| k.rot)),
                    vel: Vec3x8::ZERO,
                    ang: Vec3x8::ZERO,
                }
            })
            .collect();
        let tracks = Track::of(&db);
        let turning = db.turning_joints();
        let rest: Vec<Motionx8> = (0..j)
            .map(|cj| match cj.checked_sub(1) {
                Some(clip_joint) if db.moving_row(clip_joint).is_none() => Motionx8 {
                    pos: Vec3x8::splat(db.fixed_position(clip_joint)),
                    rot: db
                        .still_rotation(clip_joint)
                        .map_or(Quatx8::IDENTITY, Quatx8::splat),
                    ..Motionx8::REST
                },
                _ => Motionx8::REST,
            })
            .collect();
        let turn = TurnOffsetx8 {
            rot: Vec3x8::ZERO,
            ang: Vec3x8::ZERO,
        };
        let (inert, moving) = (
            cfg.transition == Transition::Inertialize,
            db.moving_joints(),
        );
        let scheds: Vec<Schedx8> = characters
            .chunks(8)
            .map(|chars| Schedx8::new(chars, &db, &clip_lengths))
            .collect();
        let jumps = scheds.iter().map(|s| s.will_jump(cfg.dt)).collect();
        Ok(Crowd {
            scheds,
            jumps,
            movers: Vec::new(),
            first_mover: Vec::new(),
            shown: Vec::new(),
            skeleton: skel,
            clip_lengths,
            characters,
            turns: vec![turn; if inert { packs * turning } else { 0 }],
            shifts: vec![ShiftOffsetx8::ZERO; if inert { packs * moving } else { 0 }],
            transition: if inert {
                Vec::new()
            } else {
                rest.repeat(packs)
            },
            world: vec![Motionx8::REST; packs * j],
            roots,
            tracks,
            turning,
            rest,
            scratch: Vec::new(),
            db,
            frames: 0,
            cfg,
        })
    }

    /// The crowd skeleton (world root + the clip's joints).
    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }

    /// The configuration.
    pub fn config(&self) -> &CrowdConfig {
        &self.cfg
    }

    /// Character `c`'s schedule (assembled from its lanes).
    pub fn character(&self, c: usize) -> Option<Character> {
        (c < self.cfg.characters).then(|| self.scheds[c / 8].get(c % 8, &self.characters[c]))
    }

    /// World-space output, pack-major: `world()[p * joints + j]` is joint `j`
    /// of characters `8p .. 8p + 8`.
    pub fn world(&self) -> &[Motionx8] {
        &self.world
    }

    /// Joint `j` of character `c` in world space (rotation, position and
    /// velocities; unit scale).
    pub fn world_kform(&self, c: usize, j: usize) -> Option<Kform> {
        let nj = self.skeleton.len();
        (c < self.cfg.characters && j < nj).then(|| {
            let w = &self.world[(c / 8) * nj + j];
            let l = c % 8;
            Kform {
                pos: w.pos.lane(l),
                rot: w.rot.lane(l),
                vel: w.vel.lane(l),
                ang: w.ang.lane(l),
                ..Kform::IDENTITY
            }
        })
    }

    /// Runs one frame on the current rayon pool; returns its statistics.
    /// Output is bit-identical for any number of threads.
    pub fn step(&mut self) -> FrameStats {
        match (self.cfg.sampling, self.cfg.transition) {
            (Sampling::Linear, Transition::Inertialize) => self.step_with::<false, true>(),
            (Sampling::Linear, Transition::DeadBlend) => self.step_with::<false, false>(),
            (Sampling::Cubic, Transition::Inertialize) => self.step_with::<true, true>(),
            (Sampling::Cubic, Transition::DeadBlend) => self.step_with::<true, false>(),
        }
    }

    fn step_with<const CUBIC: bool, const INERT: bool>(&mut self) -> FrameStats {
        let j = self.skeleton.len();
        let parts = j - 1;
        let packs = self.characters.len() / 8;
        let (turning, moving) = (self.turning, self.db.moving_joints());
        while self.scratch.len() < rayon::current_num_threads() {
            let s = PackScratch::new(&self.rest, turning, moving);
            self.scratch.push(Mutex::new(s));
        }
        let (rest, scratch) = (&self.rest, &self.scratch[..]);
        let make = || PackScratch::new(rest, turning, moving);
        let region = |at: *const u8, len: usize| match len {
            0 => Ahead::NONE,
            _ => Ahead::new(at as usize, len, parts),
        };
        let kept_ahead = match INERT {
            true => region(
                self.turns.as_ptr().cast(),
                turning * size_of::<TurnOffsetx8>(),
            ),
            false => region(self.transition.as_ptr().cast(), j * size_of::<Motionx8>()),
        };
        // A third of the world output in the first pass, the rest with the
        // kept state in the second (about twice as long): the fetching runs
        // at about the same rate through both.
        let world_len = j * size_of::<Motionx8>();
        let head = (world_len / 3).next_multiple_of(64).min(world_len);
        let world: *const u8 = self.world.as_ptr().cast();
        let world_ahead = [
            region(world, head),
            region(world.wrapping_add(head), world_len - head),
        ];
        let mut shared = Shared {
            world_ahead,
            kept_ahead,
            packs,
            cfg: &self.cfg,
            db: &self.db,
            parents: self.skeleton.parents(),
            clip_lengths: &self.clip_lengths,
            roots: &self.roots,
            tracks: &self.tracks,
            shown: &[],
            characters: self.cfg.characters,
            first: self.frames == 0,
        };

        // The characters that jump this frame, eight at a time across
        // packs: the poses they would have shown (a pack on its own would
        // sample its old sources for all eight lanes for the one or two
        // that jump).
        self.movers.clear();
        self.first_mover.clear();
        for (p, &bits) in self.jumps.iter().enumerate() {
            self.first_mover.push(self.movers.len() as u32);
            let lanes = (0..8).filter(|i| bits & (1 << i) != 0);
            self.movers.extend(lanes.map(|i| (p * 8 + i) as u32));
        }
        // Batches start at rest, as the scratch poses do: the passes write
        // only what moves.
        let batches = self.movers.len().div_ceil(8);
        while self.shown.len() < batches * j {
            self.shown.extend_from_slice(&self.rest);
        }
        let kept = Kept {
            turns: &self.turns,
            shifts: &self.shifts,
            transition: &self.transition,
            turning,
            moving,
        };
        let characters = (&self.scheds[..], &self.characters[..]);
        self.shown[..batches * j]
            .par_chunks_mut(j)
            .zip(self.movers.par_chunks(8))
            .for_each(|(out, movers)| {
                with_scratch(scratch, make, |s| {
                    shown_batch::<CUBIC, INERT>(&shared, characters, movers, &kept, out, s)
                })
            });
        shared.shown = &self.shown;

        // Each pack gets its slices of whichever state its transitions keep.
        let turns = per_pack(&mut self.turns, turning, packs);
        let shifts = per_pack(&mut self.shifts, moving, packs);
        let transitions = per_pack(&mut self.transition, j, packs);
        let state: Vec<PackState> = turns
            .into_iter()
            .zip(shifts)
            .zip(transitions)
            .zip(self.jumps.iter_mut().zip(&self.first_mover))
            .zip(self.scheds.iter_mut())
            .map(
                |((((turns, shifts), transition), (jumps, &first)), sched)| PackState {
                    turns,
                    shifts,
                    transition,
                    sched,
                    jumps,
                    first_mover: first as usize,
                },
            )
            .collect();
        let stats: Vec<FrameStats> = self
            .characters
            .par_chunks_mut(8)
            .zip(self.world.par_chunks_mut(j))
            .zip(state)
            .enumerate()
            .map(|(p, ((chars, world), st))| {
                with_scratch(scratch, make, |s| {
                    step_pack::<CUBIC, INERT>(&shared, p, chars, world, st, s)
                })
            })
            .collect();
        self.frames += 1;
        FrameStats::total(&stats)
    }
}

/// Runs `f` with the calling rayon worker's scratch: each worker has its
/// own, so the lock is never contended; a thread outside the pool it was
/// sized for gets a new one from `make`.
fn with_scratch<R>(
    scratch: &[Mutex<PackScratch>],
    make: impl Fn() -> PackScratch,
    f: impl FnOnce(&mut PackScratch) -> R,
) -> R {
    match rayon::current_thread_index().and_then(|t| scratch.get(t)) {
        Some(m) => f(&mut m.lock().unwrap_or_else(|e| e.into_inner())),
        None => f(&mut make()),
    }
}

/// The whole crowd's kept state, read by [`shown_batch`].
struct Kept<'a> {
    turns: &'a [TurnOffsetx8],
    shifts: &'a [ShiftOffsetx8],
    transition: &'a [Motionx8],
    turning: usize,
    moving: usize,
}

/// Copies lane `from` of `src` into lane `to` of `dst`, two 8-lane
/// structures of `f32` lanes (component `c` of lane `l` at `8c + l`).
#[inline(always)]
fn copy_lane<T: bytemuck::Pod>(dst: &mut T, to: usize, src: &T, from: usize) {
    let d: &mut [f32] = bytemuck::cast_slice_mut(core::slice::from_mut(dst));
    let s: &[f32] = bytemuck::cast_slice(core::slice::from_ref(src));
    for (d, s) in d.chunks_exact_mut(8).zip(s.chunks_exact(8)) {
        d[to & 7] = s[from & 7];
    }
}

/// The poses that up to eight jumping characters (`movers`, from any
/// packs) would have shown this frame had they not jumped, into `out`:
/// their old sources sampled and blended, then inertialized or
/// dead-blended with their packs' kept state gathered into lanes
/// (`scheds` and `characters` the crowd's, before the frame). Lanes
/// past `movers.len()` repeat its last character. `out` holds the rest
/// pose where nothing moves (see [`PackScratch`]).
fn shown_batch<const CUBIC: bool, const INERT: bool>(
    sh: &Shared,
    (scheds, characters): (&[Schedx8], &[Character]),
    movers: &[u32],
    kept: &Kept,
    out: &mut [Motionx8],
    scratch: &mut PackScratch,
) {
    let (cfg, j) = (sh.cfg, out.len());
    let at: [usize; 8] = core::array::from_fn(|i| movers[i.min(movers.len() - 1)] as usize);
    let steps = at.map(|c| {
        let character = scheds[c / 8].get(c % 8, &characters[c]);
        character.preview(sh.clip_lengths, cfg)
    });
    let dur = cfg.blend_duration;
    let active_old: [bool; 8] = core::array::from_fn(|i| steps[i].blend_time_old < dur);
    let old = Stepx8::old_of(&steps, sh.db);
    let pl = PackLanes::new(&old, sh);
    let input = |a: &mut [Motionx8]| pl.input::<CUBIC>(&old, a, [&[], &[]]);
    if !active_old.contains(&true) {
        input(out);
        return;
    }
    let old_a = &mut scratch.old_a;
    input(old_a);
    let (d, bt_old) = (splat(dur), pl.blend_time_old);
    if INERT {
        let (kt, ks) = (&mut scratch.kept_turns, &mut scratch.kept_shifts);
        for (l, &c) in at.iter().enumerate() {
            let (p, cl) = (c / 8, c % 8);
            let turns = &kept.turns[p * kept.turning..][..kept.turning];
            let shifts = &kept.shifts[p * kept.moving..][..kept.moving];
            kt.iter_mut()
                .zip(turns)
                .for_each(|(k, t)| copy_lane(k, l, t, cl));
            ks.iter_mut()
                .zip(shifts)
                .for_each(|(k, t)| copy_lane(k, l, t, cl));
        }
        let w = CubicWeights::new(bt_old, d);
        inertialize_pass(out, old_a, (kt, ks), sh.tracks, &w);
    } else {
        let kp = &mut scratch.kept_poses;
        for (l, &c) in at.iter().enumerate() {
            let (p, cl) = (c / 8, c % 8);
            let poses = &kept.transition[p * j..][..j];
            kp.iter_mut()
                .zip(poses)
                .for_each(|(k, t)| copy_lane(k, l, t, cl));
        }
        dead_blend_pass(
            out,
            old_a,
            kp,
            sh.tracks,
            lanes::extrapolate_decayed_weights(bt_old, splat(cfg.extrapolation_halflife)),
            fade(bt_old, d, splat(cfg.dt)),
            mask(active_old),
        );
    }
}

/// `v` cut into `packs` slices of `per` items (empty ones when `v` is).
fn per_pack<T>(v: &mut [T], per: usize, packs: usize) -> Vec<&mut [T]> {
    if v.is_empty() || per == 0 {
        (0..packs).map(|_| &mut [][..]).collect()
    } else {
        v.chunks_mut(per).collect()
    }
}

/// A pack's share of the state kept across frames: inertialization offsets
/// (for inertialization) or transition poses (for dead blending), the
/// other kind empty; its characters' schedules; which of them jump in the
/// next frame
/// (bits, written by the pack); where its jumping characters' shown poses
/// start among the frame's ([`Shared::shown`]).
struct PackState<'a> {
    turns: &'a mut [TurnOffsetx8],
    shifts: &'a mut [ShiftOffsetx8],
    transition: &'a mut [Motionx8],
    sched: &'a mut Schedx8,
    jumps: &'a mut u8,
    first_mover: usize,
}

/// Scratch of one worker, about 13 KB per pose for the CMU skeleton, so a
/// pack's passes stay in L1/L2. Poses in crowd joint order (joint 0 the
/// world root): `a` the blended input, `b` the inertialized or dead-blended
/// local pose, `shown` the pose that jumping lanes would have shown,
/// `old_a` the input of a batch of jumping characters' old sources
/// ([`shown_batch`]). Joints with a fixed position hold it, and zero
/// velocity, from the start; the passes write only their rotations and
/// angular velocities. `kept_*`: a batch's kept state, gathered from its
/// characters' packs.
struct PackScratch {
    a: Vec<Motionx8>,
    b: Vec<Motionx8>,
    shown: Vec<Motionx8>,
    old_a: Vec<Motionx8>,
    kept_turns: Vec<TurnOffsetx8>,
    kept_shifts: Vec<ShiftOffsetx8>,
    kept_poses: Vec<Motionx8>,
}

impl PackScratch {
    /// For `turning` turn offsets and `moving` shift offsets per pack.
    fn new(rest: &[Motionx8], turning: usize, moving: usize) -> PackScratch {
        let v = || rest.to_vec();
        let turn = TurnOffsetx8 {
            rot: Vec3x8::ZERO,
            ang: Vec3x8::ZERO,
        };
        PackScratch {
            a: v(),
            b: v(),
            shown: v(),
            old_a: v(),
            kept_turns: vec![turn; turning],
            kept_shifts: vec![ShiftOffsetx8::ZERO; moving],
            kept_poses: v(),
        }
    }
}

/// Eight characters' steps in lanes: the sampler, source B's blend weight
/// and its rate of change per second ([`Step::weight`] through
/// [`lanes::sin_cos`]), the blend times.
struct PackLanes<'a> {
    sampler: Sampler<'a>,
    weight: (F32x8, F32x8),
    blend_time: F32x8,
    blend_time_old: F32x8,
}

impl<'a> PackLanes<'a> {
    #[inline(always)]
    fn new(st: &Stepx8, sh: &Shared<'a>) -> PackLanes<'a> {
        let (sin, cos) = lanes::sin_cos(st.phase);
        let half = splat(0.5);
        PackLanes {
            sampler: Sampler {
                db: sh.db,
                tracks: sh.tracks,
                inv_frame: splat(1.0 / sh.db.frame_time()),
                speed: st.rate,
            },
            weight: (half.mul_add(sin, half), half * cos * st.freq),
            blend_time: st.blend_time,
            blend_time_old: st.blend_time_old,
        }
    }

    /// The input of sources at times `st.a` and `st.b` into `a`
    /// ([`Sampler::input`]).
    #[inline(always)]
    fn input<const CUBIC: bool>(&self, st: &Stepx8, a: &mut [Motionx8], ahead: [&[Ahead]; 2]) {
        let db = self.sampler.db;
        self.sampler.input::<CUBIC>(
            &SampleRows::new::<CUBIC>(db, st.a, st.start, st.last),
            &SampleRows::new::<CUBIC>(db, st.b, st.start, st.last),
            self.weight,
            a,
            ahead,
        )
    }
}

/// Dead blending's fade at blend time `t` of `d`: the smoothstep weight
/// and its rate of change per second over a step of `dt`.
#[inline(always)]
fn fade(t: F32x8, d: F32x8, dt: F32x8) -> (F32x8, F32x8) {
    (
        lanes::smoothstep_blend_alpha(t, d),
        lanes::smoothstep_blend_alpha_dx(t, d, dt) / dt,
    )
}

/// What a pack's sampling reads besides the rows.
struct Sampler<'a> {
    db: &'a Database,
    tracks: &'a [Track],
    inv_frame: F32x8,
    speed: F32x8,
}

impl Sampler<'_> {
    /// Samples every clip joint of one source into `out[1..]`, velocities
    /// scaled by the playback rate ([`r::op_timescale`]).
    ///
    /// `ahead` lists per-joint arrays that the next pack will read: joint
    /// `j`'s element of each is prefetched as joint `j` is sampled (see
    /// [`prefetch`]).
    #[inline(never)]
    fn sample<const CUBIC: bool>(&self, rows: &SampleRows, out: &mut [Motionx8], ahead: &[Ahead]) {
        for (cj, (o, t)) in out[1..].iter_mut().zip(&self.tracks[1..]).enumerate() {
            prefetch_part(ahead, cj);
            match t {
                Track::Still => {}
                Track::Turns(_) => put_turn(o, self.joint::<CUBIC>(rows, cj)),
                Track::Moves(..) => *o = self.joint::<CUBIC>(rows, cj),
            }
        }
    }

    /// `a = blend(a, sample(rows))` per joint: the second source sampled and
    /// blended in one pass ([`blend_joint`] at weight `alpha` changing at
    /// `rate` per second).
    #[inline(never)]
    fn sample_blend<const CUBIC: bool>(
        &self,
        rows: &SampleRows,
        a: &mut [Motionx8],
        (alpha, rate): (F32x8, F32x8),
        ahead: &[Ahead],
    ) {
        for (cj, (x, t)) in a[1..].iter_mut().zip(&self.tracks[1..]).enumerate() {
            prefetch_part(ahead, cj);
            match t {
                Track::Still => {}
                Track::Turns(_) => {
                    let y = self.joint::<CUBIC>(rows, cj);
                    put_turn(x, blend_joint(x, &y, alpha, rate));
                }
                Track::Moves(..) => {
                    *x = blend_joint(x, &self.joint::<CUBIC>(rows, cj), alpha, rate)
                }
            }
        }
    }

    /// Clip joint `cj` of one source.
    #[inline(always)]
    fn joint<const CUBIC: bool>(&self, rows: &SampleRows, cj: usize) -> Motionx8 {
        let ang_scale = (self.inv_frame + self.inv_frame) * self.speed;
        let vel_scale = self.inv_frame * self.speed;
        if CUBIC {
            let (pr, at, nx) = (
                self.db.gather(&rows.prev, cj),
                self.db.gather(&rows.at, cj),
                self.db.gather(&rows.next, cj),
            );
            sample_cubic_rows(
                &pr,
                &at,
                &nx,
                rows.prev_valid,
                rows.alpha,
                vel_scale,
                ang_scale,
            )
        } else {
            sample_linear_row(
                &self.db.gather(&rows.at, cj),
                (rows.alpha, rows.alpha2),
                vel_scale,
                ang_scale,
            )
        }
    }

    /// The blended input of sources `ra` and `rb` into `a[1..]`:
    /// [`blend_joint`] at weight `alpha` changing at `rate` per second;
    /// `ahead` as for [`Sampler::sample`], one list for each of the two
    /// passes, so that the fetching is spread over both.
    fn input<const CUBIC: bool>(
        &self,
        ra: &SampleRows,
        rb: &SampleRows,
        weight: (F32x8, F32x8),
        a: &mut [Motionx8],
        ahead: [&[Ahead]; 2],
    ) {
        self.sample::<CUBIC>(ra, a, ahead[0]);
        self.sample_blend::<CUBIC>(rb, a, weight, ahead[1]);
    }
}

/// A region of memory the next pack will read, fetched in equal parts of
/// `step` bytes over a pass (`step` 0 for none).
#[derive(Clone, Copy)]
struct Ahead {
    addr: usize,
    step: usize,
}

impl Ahead {
    const NONE: Ahead = Ahead { addr: 0, step: 0 };

    /// `len` bytes at `addr`, in `parts` parts of whole lines.
    fn new(addr: usize, len: usize, parts: usize) -> Ahead {
        Ahead {
            addr,
            step: len.div_ceil(parts.max(1)).next_multiple_of(64),
        }
    }
}

/// Prefetches part `i` of each region.
#[inline(always)]
fn prefetch_part(ahead: &[Ahead], i: usize) {
    for a in ahead {
        prefetch::to_l2_at(a.addr + i * a.step, a.step);
    }
}

/// `out = inertialize(offsets, pose)` per joint (lanes past their
/// transition pass through; see [`inertialize_joint`]).
#[inline(never)]
fn inertialize_pass(
    out: &mut [Motionx8],
    pose: &[Motionx8],
    (turns, shifts): (&[TurnOffsetx8], &[ShiftOffsetx8]),
    tracks: &[Track],
    w: &CubicWeights,
) {
    for ((r, m), t) in out.iter_mut().zip(pose).zip(tracks).skip(1) {
        match *t {
            Track::Still => {}
            Track::Turns(k) => {
                let zero = ShiftOffsetx8::ZERO;
                put_turn(r, inertialize_joint(&turns[k], &zero, m, w));
            }
            Track::Moves(k, s) => *r = inertialize_joint(&turns[k], &shifts[s], m, w),
        }
    }
}

/// `out = select(mask, dead_blend(transition, pose), pose)` per joint.
#[inline(never)]
fn dead_blend_pass(
    out: &mut [Motionx8],
    pose: &[Motionx8],
    transition: &[Motionx8],
    tracks: &[Track],
    ex: (F32x8, F32x8),
    fade: (F32x8, F32x8),
    mask: F32x8,
) {
    let joints = out.iter_mut().zip(pose).zip(transition.iter().zip(tracks));
    for ((r, m), (t, track)) in joints.skip(1) {
        let d = |m| select_motion(mask, &dead_blend_joint(t, m, ex, fade.0, fade.1), m);
        match track {
            Track::Still => {}
            Track::Turns(_) => put_turn(r, d(m)),
            Track::Moves(..) => *r = d(m),
        }
    }
}

/// One frame of one pack, as passes over the pack's joints whose data stays
/// in L1/L2: sample and blend the input; on a transition, the new offsets
/// (or transition poses) from the poses that would have been shown
/// ([`shown_batch`]); inertialize or dead-blend; forward kinematics straight
/// into the world output, checked against the previous frame's.
fn step_pack<const CUBIC: bool, const INERT: bool>(
    sh: &Shared,
    p: usize,
    chars: &mut [Character],
    world: &mut [Motionx8],
    state: PackState,
    scratch: &mut PackScratch,
) -> FrameStats {
    let cfg = sh.cfg;
    let PackState {
        turns,
        shifts,
        transition,
        sched,
        jumps,
        first_mover,
    } = state;
    let st = sched.advance(chars, sh.db, sh.clip_lengths, cfg);
    debug_assert_eq!(*jumps, st.jumped, "jumps foreseen by will_jump");
    *jumps = sched.will_jump(cfg.dt);
    let valid: [bool; 8] = core::array::from_fn(|i| p * 8 + i < sh.characters);
    let trans: [bool; 8] = core::array::from_fn(|i| st.jumped & (1 << i) != 0);
    let (d, dt) = (splat(cfg.blend_duration), splat(cfg.dt));
    let pl = PackLanes::new(&st, sh);
    let PackScratch { a, b, shown, .. } = scratch;

    // The input: two sources blended. Meanwhile the next pack's world
    // output and kept state are fetched from memory a joint at a time
    // (the world's head in the first pass, its tail and the state in the
    // second), so that the fetching is spread over this pack's work and
    // the next pack finds them in L2.
    let next = |a: Ahead, len: usize| match p + 1 < sh.packs {
        true => Ahead {
            addr: a.addr + (p + 1) * len,
            step: a.step,
        },
        false => Ahead::NONE,
    };
    let world_next = sh.world_ahead.map(|w| next(w, size_of_val(world)));
    let kept_next = match INERT {
        true => next(sh.kept_ahead, size_of_val(turns)),
        false => next(sh.kept_ahead, size_of_val(transition)),
    };
    prefetch::to_l2(bytemuck::cast_slice(shifts));
    let [head, tail] = world_next;
    pl.input::<CUBIC>(&st, a, [&[head], &[tail, kept_next]]);

    // Transitions: the pose that would have been shown, computed for the
    // frame's jumping characters together, becomes the new offset's (or
    // the extrapolation's) start.
    if trans.contains(&true) {
        let j = a.len();
        let lanes = (0..8).filter(|&l| trans[l]);
        for (l, m) in lanes.zip(first_mover..) {
            let batch = &sh.shown[(m / 8) * j..][..j];
            for ((o, s), t) in shown.iter_mut().zip(batch).zip(sh.tracks) {
                if *t != Track::Still {
                    copy_lane(o, l, s, m % 8);
                }
            }
        }
        let m_trans = mask(trans);
        for (j, t) in sh.tracks.iter().enumerate().skip(1) {
            match (*t, INERT) {
                (Track::Still, _) => {}
                (Track::Turns(k), true) => {
                    update_turn(m_trans, &offset_between(&shown[j], &a[j]).0, &mut turns[k]);
                }
                (Track::Moves(k, s), true) => {
                    let (turn, shift) = offset_between(&shown[j], &a[j]);
                    update_turn(m_trans, &turn, &mut turns[k]);
                    update_shift(m_trans, &shift, &mut shifts[s]);
                }
                (_, false) => update_motion(m_trans, &shown[j], &mut transition[j]),
            }
        }
    }

    // Transitions under way.
    let bt = pl.blend_time;
    let active = bt.simd_lt(d);
    let local = if active.any() {
        if INERT {
            inertialize_pass(b, a, (turns, shifts), sh.tracks, &CubicWeights::new(bt, d));
        } else {
            dead_blend_pass(
                b,
                a,
                transition,
                sh.tracks,
                lanes::extrapolate_decayed_weights(bt, splat(cfg.extrapolation_halflife)),
                fade(bt, d, dt),
                opaque(active),
            );
        }
        b
    } else {
        a
    };

    // Forward kinematics into the world output, parents first, from joint
    // 0, each character's place in the world (static: set on the first
    // frame only).
    let check = fk_pass(
        world,
        (&sh.roots[p], local),
        sh.parents,
        sh.tracks,
        sh.first,
        splat(0.5 * cfg.dt),
    );
    FrameStats {
        transitions: trans.iter().zip(&valid).filter(|(t, v)| **t && **v).count() as u32,
        velocity: check.finish(valid, local.len(), sh.first, cfg.dt),
    }
}

/// Forward kinematics of a pack's `local` pose straight into its `world`
/// output (parents first), each joint checked against the previous frame's
/// by [`write_world`]. Joint 0 is `root`, written on the `first` frame
/// only (`local[0]` is not read).
#[inline(never)]
fn fk_pass(
    world: &mut [Motionx8],
    (root, local): (&Motionx8, &[Motionx8]),
    parents: &[i32],
    tracks: &[Track],
    first: bool,
    half_dt: F32x8,
) -> PackCheck {
    let mut check = PackCheck::EMPTY;
    // Joint 0, the characters' places in the world, never changes: written
    // on the first frame, then left (its check gap is exactly zero).
    if first {
        write_world(&mut world[0], root, first, half_dt, &mut check);
    }
    for j in 1..local.len() {
        let (done, rest) = world.split_at_mut(j);
        let (p, l) = (&done[parents[j] as usize], &local[j]);
        let g = match tracks[j] {
            Track::Moves(..) => motion_mul::<true, true>(p, l),
            Track::Turns(_) => motion_mul::<false, true>(p, l),
            Track::Still => motion_mul::<false, false>(p, l),
        };
        write_world(&mut rest[0], &g, first, half_dt, &mut check);
    }
    check
}

/// Writes one joint's world output after comparing it with the previous
/// frame's: the finite difference of positions against the mean of the two
/// propagated velocities, kept as `dt` times the gap,
/// `|Δpos - (v + v_prev) dt/2|` (scaled by `1/dt` once per pack, in
/// [`PackCheck::finish`]).
#[inline(always)]
fn write_world(w: &mut Motionx8, g: &Motionx8, first: bool, half_dt: F32x8, check: &mut PackCheck) {
    if !first {
        let e = (g.pos - w.pos) - (g.vel + w.vel) * half_dt;
        let gap = lanes::length(e);
        // fast_max: vmaxps, no NaN select (a NaN gap still shows in the sum).
        check.max_gap = check.max_gap.fast_max(gap);
        check.sum_gap += gap;
        check.max_speed2 = check.max_speed2.fast_max(lanes::dot(g.vel, g.vel));
    }
    *w = *g;
}

/// A pack's velocity check, kept in lanes until the pack is done.
struct PackCheck {
    max_gap: F32x8,
    sum_gap: F32x8,
    /// Squared, so each joint needs no square root.
    max_speed2: F32x8,
}

impl PackCheck {
    const EMPTY: PackCheck = PackCheck {
        max_gap: F32x8::ZERO,
        sum_gap: F32x8::ZERO,
        max_speed2: F32x8::ZERO,
    };

    /// The run-level check of `joints` joints of the `valid` lanes, gaps
    /// divided by the step `dt`.
    fn finish(&self, valid: [bool; 8], joints: usize, first: bool, dt: f32) -> VelocityCheck {
        if first {
            return VelocityCheck::default();
        }
        let lanes = |v: F32x8| {
            v.to_array()
                .into_iter()
                .zip(valid)
                .filter_map(|(x, ok)| ok.then_some(x))
        };
        let max = |v: F32x8| lanes(v).fold(0.0f32, f32::max);
        VelocityCheck {
            max_gap: max(self.max_gap) / dt,
            sum_gap: lanes(self.sum_gap).map(|x| x as f64).sum::<f64>() / dt as f64,
            samples: (valid.iter().filter(|&&v| v).count() * joints) as u64,
            max_speed: max(self.max_speed2).sqrt(),
        }
    }
}

// ---------------------------------------------------------------------------
// The reference crowd.
// ---------------------------------------------------------------------------

/// The same crowd through the scalar reference, one character at a time.
pub struct ReferenceCrowd {
    cfg: CrowdConfig,
    clips: Vec<Clip>,
    skeleton: Skeleton,
    clip_lengths: Vec<f32>,
    characters: Vec<Character>,
    state: Vec<RefState>,
    frames: u64,
}

#[derive(Clone)]
struct RefState {
    offset: Pose,
    transition: Pose,
    world: Pose,
}

/// Scratch poses of one reference worker.
struct RefScratch {
    a: Pose,
    b: Pose,
    input: Pose,
    old: Pose,
    shown: Pose,
    local: Pose,
    extrapolated: Pose,
    global: Pose,
    sample: Pose,
}

impl ReferenceCrowd {
    /// See [`Crowd::new`]; clips with any scales are accepted.
    pub fn new(clips: &[Clip], skeleton: &Skeleton, cfg: CrowdConfig) -> Result<ReferenceCrowd> {
        let clip_lengths = validate(clips, skeleton, &cfg)?;
        let _ = Database::new(clips)?; // same frame-time checks as the lanes crowd
        let skel = crowd_skeleton(skeleton)?;
        let j = skel.len();
        let characters: Vec<Character> = (0..cfg.characters)
            .map(|i| Character::new(i, &clip_lengths, &cfg))
            .collect();
        let state = vec![
            RefState {
                offset: Pose::new(j),
                transition: Pose::new(j),
                world: Pose::new(j)
            };
            cfg.characters
        ];
        Ok(ReferenceCrowd {
            clips: clips.to_vec(),
            skeleton: skel,
            clip_lengths,
            characters,
            state,
            frames: 0,
            cfg,
        })
    }

    /// The crowd skeleton.
    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }

    /// Joint `j` of character `c` in world space.
    pub fn world_kform(&self, c: usize, j: usize) -> Option<Kform> {
        (c < self.cfg.characters && j < self.skeleton.len()).then(|| self.state[c].world.get(j))
    }

    /// Character `c`'s schedule.
    pub fn character(&self, c: usize) -> Option<&Character> {
        self.characters.get(c)
    }

    /// Runs one frame on the current rayon pool.
    pub fn step(&mut self) -> FrameStats {
        let j = self.skeleton.len();
        let (cfg, clips, lengths, parents) = (
            &self.cfg,
            &self.clips,
            &self.clip_lengths,
            self.skeleton.parents(),
        );
        let first = self.frames == 0;
        let scratch = || {
            let p = || Pose::new(j);
            RefScratch {
                a: p(),
                b: p(),
                input: p(),
                old: p(),
                shown: p(),
                local: p(),
                extrapolated: p(),
                global: p(),
                sample: Pose::new(j - 1),
            }
        };
        let stats: Vec<FrameStats> = self
            .characters
            .par_iter_mut()
            .zip(self.state.par_iter_mut())
            .map_init(scratch, |s, (ch, st)| {
                let step = ch.advance(lengths, cfg);
                reference_frame(cfg, clips, parents, ch.world(), &step, st, s, first)
            })
            .collect();
        self.frames += 1;
        FrameStats::total(&stats)
    }
}

/// Samples `src` played at `rate` into crowd pose `out` (joint 0 = `world`).
fn ref_sample(
    cfg: &CrowdConfig,
    clips: &[Clip],
    src: Source,
    rate: f32,
    world: Kform,
    tmp: &mut Pose,
    out: &mut Pose,
) {
    let c = &clips[src.clip];
    let (p, q, s, dt) = (c.pos_slice(), c.rot_slice(), c.scl_slice(), c.frame_time());
    match cfg.sampling {
        Sampling::Linear => r::op_sample_linear(tmp, p, q, s, src.time, dt),
        Sampling::Cubic => r::op_sample_cubic(tmp, p, q, s, src.time, dt),
    }
    r::op_timescale(tmp, rate);
    out.set(0, world);
    for k in 0..tmp.len() {
        out.set(k + 1, tmp.get(k));
    }
}

/// The blended input of two sources at this step's weight.
fn ref_input(
    cfg: &CrowdConfig,
    clips: &[Clip],
    srcs: (Source, Source),
    step: &Step,
    world: Kform,
    s: &mut RefScratch,
    out: &mut Pose,
) {
    ref_sample(
        cfg,
        clips,
        srcs.0,
        step.rate,
        world,
        &mut s.sample,
        &mut s.a,
    );
    ref_sample(
        cfg,
        clips,
        srcs.1,
        step.rate,
        world,
        &mut s.sample,
        &mut s.b,
    );
    let (alpha, alpha_vel) = step.weight(cfg.dt);
    r::op_blend(out, &s.a, &s.b, alpha, alpha_vel, cfg.dt).expect("pose sizes");
    out.set(0, world);
}

#[allow(clippy::too_many_arguments)]
fn reference_frame(
    cfg: &CrowdConfig,
    clips: &[Clip],
    parents: &[i32],
    world: Kform,
    step: &Step,
    st: &mut RefState,
    s: &mut RefScratch,
    first: bool,
) -> FrameStats {
    let dur = cfg.blend_duration;
    let mut input = std::mem::take(&mut s.input);
    ref_input(cfg, clips, step.new, step, world, s, &mut input);
    let mut local = std::mem::take(&mut s.local);
    if step.transition {
        let mut old = std::mem::take(&mut s.old);
        ref_input(cfg, clips, step.old, step, world, s, &mut old);
        let mut shown = std::mem::take(&mut s.shown);
        match cfg.transition {
            Transition::Inertialize => {
                if step.blend_time_old < dur {
                    r::op_inertialize(&mut shown, &st.offset, &old, step.blend_time_old, dur)
                        .expect("pose sizes");
                } else {
                    shown.clone_from(&old);
                }
                r::op_inertialize_offset(&mut st.offset, &shown, &input).expect("pose sizes");
            }
            Transition::DeadBlend => {
                if step.blend_time_old < dur {
                    r::op_dead_blending(
                        &mut shown,
                        &mut s.extrapolated,
                        &st.transition,
                        &old,
                        cfg.extrapolation_halflife,
                        step.blend_time_old,
                        dur,
                        cfg.dt,
                    )
                    .expect("pose sizes");
                } else {
                    shown.clone_from(&old);
                }
                shown.set(0, world);
                st.transition.clone_from(&shown);
            }
        }
        s.old = old;
        s.shown = shown;
    }
    if step.blend_time < dur {
        match cfg.transition {
            Transition::Inertialize => {
                r::op_inertialize(&mut local, &st.offset, &input, step.blend_time, dur)
                    .expect("pose sizes")
            }
            Transition::DeadBlend => r::op_dead_blending(
                &mut local,
                &mut s.extrapolated,
                &st.transition,
                &input,
                cfg.extrapolation_halflife,
                step.blend_time,
                dur,
                cfg.dt,
            )
            .expect("pose sizes"),
        }
        local.set(0, world);
    } else {
        local.clone_from(&input);
    }
    s.input = input;
    r::op_fk(&mut s.global, &local, parents).expect("pose sizes");
    s.local = local;
    let mut check = VelocityCheck::default();
    if !first {
        for k in 0..s.global.len() {
            let fd = (s.global.pos[k] - st.world.pos[k]) / cfg.dt;
            let mid = (s.global.vel[k] + st.world.vel[k]) * 0.5;
            let gap = r::length(fd - mid);
            check.max_gap = check.max_gap.max(gap);
            check.sum_gap += gap as f64;
            check.samples += 1;
            check.max_speed = check.max_speed.max(r::length(s.global.vel[k]));
        }
    }
    st.world.clone_from(&s.global);
    FrameStats {
        transitions: step.transition as u32,
        velocity: check,
    }
}
