//! Level of detail (issue 25): each character's update period, and what
//! the crowd keeps to carry a character between the steps it evaluates.
//!
//! A character with period `n` and phase `k` ([`Command::SetPeriod`](super::Command::SetPeriod))
//! is evaluated on the steps whose number (the crowd's
//! [`frames`](super::Crowd::frames) before the step) is `k` modulo `n`, on
//! the crowd's first step, and on a step in which a command starts one of
//! its transitions (a base's or a layer's); its state (sources' times,
//! weights, root, markers, events) advances on every step and its
//! commands apply on every step. Between evaluations its world pose is
//! *carried*: the last evaluated world pose `E` (the anchor), extrapolated
//! over the `τ` seconds since along its own world velocities, without
//! decay (positions `p + v τ`, rotations `exp(ω τ) q`, the exponential of
//! the scaled angle axis `ω τ`; velocities held). When it is evaluated again after being
//! carried, the gap between the pose it would have shown (carried) and the
//! evaluated one becomes a world-space inertialization offset per joint
//! ([`crate::reference::op_inertialize_offset`]) that decays over its
//! blend (`offset_blend`: [`LOD_BLEND`] seconds, or the character's
//! period when that is shorter, so that the offset has ended when the
//! character is next evaluated; [`crate::reference::kform_inertialize`]),
//! applied to what it shows on the steps that follow, carried or
//! evaluated: positions and velocities are continuous across every change
//! of period. The joints of a carried pose are extrapolated one by one, so
//! its bones may stretch a little (about `|ω|² τ² / 2` of their length).
//!
//! The lanes crowd keeps each character's anchor in its world rows and
//! makes the shown pose when it is read (`passes::Carried`: every reader
//! but the raw [`Crowd::world`](super::Crowd::world) slice), so a step
//! writes nothing for a pack none of whose characters is due, and a
//! resumed pack writes its evaluated pose and offsets only.
//!
//! The schedule is per character; the saving is per pack: a pack of eight
//! characters none of which is due this step costs its commands only
//! (O(1), nothing per joint), while a pack with a character due is evaluated whole
//! (eight lanes are one SIMD operation) and its other characters shown
//! carried. So a game gets the full saving by giving the eight characters
//! of a pack (characters `8p .. 8p + 8`) the same period and phase (a
//! game sorts its characters into packs by distance once, as it sorts
//! them for culling); characters are not regrouped behind the caller's
//! back, so every output stays indexed by the caller's character number
//! and a period change moves no memory. Neighbouring packs given the same
//! phase ([`super::budget::PhaseRuns`], as the allocator
//! hands them out) make a step's evaluated packs lie together in memory:
//! 8 to 14% off the frame at periods 4 to 16 at 100,000 characters
//! against phases staggered pack by pack ([`super::budget`], "Phases").
//!
//! With [`RootMotion::Extract`](super::RootMotion::Extract), a carried
//! character's root motion is its last step's velocity and turn rate
//! times `dt`, and its first evaluation after being carried reports its
//! velocities times `dt` (as a command that moves its sources at once).
//! Its blends' hemispheres are chosen anew at that evaluation (as after a
//! wrap), since it was not sampled in between.

use crate::lanes::{F32x8, splat};

/// The longest update period, in steps: periods are 1, 2, 4, 8 or 16.
pub const MAX_PERIOD: u32 = 16;

/// The longest time, in seconds, over which the gap between a carried
/// pose and the next evaluated one is hidden (cubic inertialization in
/// world space); a character at a period of `n > 1` steps hides it over
/// its period where that is shorter (`offset_blend`).
pub const LOD_BLEND: f32 = 0.1;

/// The share of a period's steps an offset runs, below 1 by the jitter
/// of a game's frame time it allows for (15%, see [`offset_blend`]).
const PERIOD_BLEND: f32 = 0.85;

/// The shortest step [`offset_blend`] counts a period in, seconds: a
/// 60 Hz step (16.7 ms) less 16%.
const PERIOD_STEP: f32 = 0.014;

/// The seconds over which the offset of a character resumed at period
/// `period` (steps) with step `dt` decays: [`LOD_BLEND`] at period 1 (it
/// is not carried again: a character moving to every step hides its gap
/// over the whole of it), else `min(LOD_BLEND, n max(0.85 dt, 14 ms))`.
/// At 60 Hz and slower, with frame times that vary by up to about 7%
/// either way, the offset has then ended by the character's next periodic
/// evaluation `n` steps on, and that resumption starts from the carried
/// anchor alone, with no old offset to apply: at 60 Hz periods 2 and 4
/// hide their gaps over 28 and 57 ms, where a 0.1 s offset ran at every
/// resumption (applying it cost the 10/30/60% mix of issue 25 a sixth of
/// its instructions). The blend never shrinks below `n` × 14 ms with the
/// step, so that as steps get shorter the offsets' velocities converge as
/// the crowd's own (the continuity tests at 60 to 480 Hz; a blend of
/// `n dt` fails them). At faster rates, after steps shorter than the one
/// that resumed by more than the margin, or after a command that forces an
/// evaluation, an offset may still run at a resumption, which then
/// applies it: the same pose, only slower.
#[inline(always)]
pub(crate) fn offset_blend(period: F32x8, dt: f32) -> F32x8 {
    let step = (dt * PERIOD_BLEND).max(PERIOD_STEP);
    let periodic = (period * splat(step)).fast_min(splat(LOD_BLEND));
    period
        .simd_le(splat(1.0))
        .select(splat(LOD_BLEND), periodic)
}

/// Eight characters' schedule and carry: what both crowds keep per pack,
/// advanced by the same code ([`Schedulex8::plan`]).
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct Schedulex8 {
    /// Seconds since each character's anchor was evaluated (0 on a step
    /// that evaluates it).
    pub(crate) since_eval: F32x8,
    /// Seconds since each character's offset started (`blend` and more:
    /// no offset).
    pub(crate) since_offset: F32x8,
    /// The seconds over which each character's offset decays
    /// ([`offset_blend`] at its last resumption; [`LOD_BLEND`] before).
    pub(crate) blend: F32x8,
    /// Each character's significance for the budget allocator
    /// ([`super::budget`]; 0 until the game sets it).
    pub(crate) significance: F32x8,
    /// Each character's period, 1 to [`MAX_PERIOD`].
    pub(crate) period: [u8; 8],
    /// Each character's phase, below its period.
    pub(crate) phase: [u8; 8],
    /// Characters carried (not evaluated) in the last step (bits).
    pub(crate) carried: u8,
    /// 1 where the pack's last step evaluated none of its characters and
    /// so wrote nothing: its boxes are made when read (the lanes crowd's
    /// bookkeeping; [`crate::crowd::passes::Carried`]).
    pub(crate) stale: u8,
    pad: [u8; 14],
}

impl Schedulex8 {
    /// Every character evaluated every step, no offset.
    pub(crate) fn every_step() -> Schedulex8 {
        Schedulex8 {
            since_eval: F32x8::ZERO,
            since_offset: splat(LOD_BLEND),
            blend: splat(LOD_BLEND),
            period: [1; 8],
            phase: [0; 8],
            significance: F32x8::ZERO,
            carried: 0,
            stale: 0,
            pad: [0; 14],
        }
    }

    /// Sets lane `l`'s period and phase (checked by the command).
    pub(crate) fn set(&mut self, l: usize, period: u32, phase: u32) {
        self.period[l & 7] = period as u8;
        self.phase[l & 7] = phase as u8;
    }

    /// The pack's clocks now: seconds since each anchor, into each offset,
    /// and each offset's blend.
    #[inline(always)]
    pub(crate) fn clocks(&self) -> LodClocks {
        LodClocks {
            tau: self.since_eval,
            t: self.since_offset,
            blend: self.blend,
        }
    }

    /// Each lane's period, as a float.
    #[inline(always)]
    fn periods(&self) -> F32x8 {
        F32x8::new(core::array::from_fn(|l| f32::from(self.period[l])))
    }

    /// Lane `l`'s period and phase.
    pub(crate) fn get(&self, l: usize) -> (u32, u32) {
        (self.period[l & 7] as u32, self.phase[l & 7] as u32)
    }

    /// The lanes the last step evaluated (bits; all without level of
    /// detail): the others were carried.
    pub(crate) fn evaluated(&self) -> u8 {
        !self.carried
    }

    /// Seconds since lane `l`'s pose was last evaluated: 0 when the last
    /// step evaluated it (and always without level of detail).
    pub(crate) fn since_evaluated(&self, l: usize) -> f32 {
        self.since_eval.to_array()[l & 7]
    }

    /// Sets lane `l`'s significance (checked by the caller: not NaN).
    pub(crate) fn set_significance(&mut self, l: usize, value: f32) {
        let lanes: &mut [f32; 8] = bytemuck::cast_mut(&mut self.significance);
        lanes[l & 7] = value;
    }

    /// The pack's significance: its most significant `live` lane's
    /// (bits), `-inf` for none.
    pub(crate) fn significance(&self, live: u8) -> f32 {
        let s = self.significance.to_array();
        (0..8)
            .filter(|l| live & (1 << l) != 0)
            .fold(f32::NEG_INFINITY, |m, l| m.max(s[l]))
    }

    /// Whether [`Schedulex8::plan`] at step number `frame` will resume a
    /// character of the `live` lanes (bits) by its period and phase,
    /// before any command forces one: read without changing anything, by
    /// the pack before this one, to fetch this pack's anchors and offsets
    /// ahead.
    #[inline(always)]
    pub(crate) fn resumes_at(&self, frame: u64, live: u8) -> bool {
        self.periodic_due(frame) & live & self.carried != 0
    }

    /// The lanes due at step number `frame` by their period and phase
    /// (bits; periods are powers of two, checked by the command).
    #[inline(always)]
    fn periodic_due(&self, frame: u64) -> u8 {
        let mut due = 0u8;
        for l in 0..8 {
            let n = u64::from(self.period[l].max(1));
            due |= u8::from(frame & (n - 1) == u64::from(self.phase[l])) << l;
        }
        due
    }

    /// This step's plan for the pack at step number `frame` (`first`: the
    /// crowd's first step, which evaluates every lane; `forced`: the
    /// characters a command transitions this step; `live`: the lanes that
    /// hold characters, the others, past the crowd's last character, never
    /// due after the first step), the schedule advanced by `dt` past it:
    /// the evaluated lanes' anchors are now, the resumed lanes' offsets
    /// start now.
    #[inline(always)]
    pub(crate) fn plan(
        &mut self,
        (frame, dt): (u64, f32),
        first: bool,
        forced: u8,
        live: u8,
    ) -> LodStep {
        let due = forced | self.periodic_due(frame);
        let due = if first { 0xff } else { due & live };
        let step_dt = dt;
        let dt = splat(dt);
        let tau = self.since_eval + dt;
        let t_old = self.since_offset + dt;
        let resumed = due & self.carried;
        let blend_old = self.blend;
        let (t_new, blend_new) = match resumed {
            0 => (t_old, blend_old),
            _ => {
                let m_resumed = bits_mask(resumed);
                let blend = offset_blend(self.periods(), step_dt);
                (
                    m_resumed.select(F32x8::ZERO, t_old),
                    m_resumed.select(blend, blend_old),
                )
            }
        };
        let step = LodStep {
            due,
            resumed,
            tau,
            t_old,
            t_new,
            blend_old,
            blend_new,
        };
        // Lanes past the crowd's last character are never due: their clock
        // is held at 0, so that their (never read) rows need no carrying.
        self.since_eval = bits_mask(due | !live).select(F32x8::ZERO, tau);
        // Held at the blend once past it, so that it never grows.
        self.since_offset = t_new.fast_min(blend_new);
        self.blend = blend_new;
        self.carried = !due;
        step
    }
}

/// A pack's level of detail in one step ([`Schedulex8::plan`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LodStep {
    /// Characters evaluated this step (bits).
    pub due: u8,
    /// Characters evaluated this step after being carried in the last:
    /// their offsets start now (bits).
    pub resumed: u8,
    /// Seconds from each anchor's evaluation to this step (the carry).
    pub tau: F32x8,
    /// Seconds into each running offset at this step, before the resumed
    /// lanes' new ones (the pose they would have shown carried).
    pub t_old: F32x8,
    /// ... and after: 0 in the resumed lanes.
    pub t_new: F32x8,
    /// The blend of each offset running before the resumed lanes' new ones
    /// ([`Schedulex8::blend`]) ...
    pub blend_old: F32x8,
    /// ... and after: [`offset_blend`] in the resumed lanes.
    pub blend_new: F32x8,
}

impl LodStep {
    /// Whether the offset of blend `blend` runs at time `t` (a mask).
    #[inline(always)]
    pub(crate) fn running(t: F32x8, blend: F32x8) -> F32x8 {
        t.simd_lt(blend)
    }

    /// Whether all eight characters are evaluated this step after being
    /// carried in the last (a whole resumption: `passes::lod::lod_world`'s
    /// whole form, whose new offsets replace the old without reading them).
    #[inline(always)]
    pub(crate) fn whole(&self) -> bool {
        self.due == u8::MAX && self.resumed == u8::MAX
    }

    /// The clocks of the pose each character would show carried this step
    /// (its anchor over `tau`, its running offset at `t_old`).
    #[inline(always)]
    pub(crate) fn carried_clocks(&self) -> LodClocks {
        LodClocks {
            tau: self.tau,
            t: self.t_old,
            blend: self.blend_old,
        }
    }

    /// The clocks after this step's resumptions: the offsets at `t_new`
    /// over `blend_new` (`tau` as in [`LodStep::carried_clocks`]).
    #[inline(always)]
    pub(crate) fn resumed_clocks(&self) -> LodClocks {
        LodClocks {
            t: self.t_new,
            blend: self.blend_new,
            ..self.carried_clocks()
        }
    }
}

/// A pack's level-of-detail clocks at one instant: seconds since each
/// character's anchor (`tau`), into its offset (`t`), and the offset's
/// blend (`blend`; `t >= blend`: ended).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LodClocks {
    pub tau: F32x8,
    pub t: F32x8,
    pub blend: F32x8,
}

impl LodClocks {
    /// Where each offset runs (a mask, [`LodStep::running`]).
    #[inline(always)]
    pub(crate) fn running(&self) -> F32x8 {
        LodStep::running(self.t, self.blend)
    }
}

/// The lanes of pack `p` that hold characters of a crowd of `characters`
/// (bits).
#[inline(always)]
pub(crate) fn live_lanes(p: usize, characters: usize) -> u8 {
    match characters.saturating_sub(p * 8) {
        n if n >= 8 => 0xff,
        n => (1u8 << n) - 1,
    }
}

/// A lane mask from bits (lane `l` set where bit `l` is), opaque to the
/// optimizer ([`crate::crowd::motion::opaque`]): a select by a mask LLVM
/// can see through, stored back where it was loaded from (the level of
/// detail's `update_motion` of the world rows, its offsets), becomes
/// masked stores (`vpmaskmovd`), microcoded on AMD Zen: they were 44% of
/// `passes::lod::lod_world`'s time (perf, 100,000 characters, periods
/// 1/2/4) before the mask was made opaque.
#[inline(always)]
pub(crate) fn bits_mask(bits: u8) -> F32x8 {
    crate::crowd::motion::opaque(F32x8::new(core::array::from_fn(|l| {
        match bits & (1 << l) != 0 {
            true => f32::from_bits(u32::MAX),
            false => 0.0,
        }
    })))
}

/// Checks a period and a phase as [`Command::SetPeriod`](super::Command::SetPeriod) takes them.
pub(crate) fn check_period(period: u32, phase: u32) -> crate::Result<()> {
    if !(period.is_power_of_two() && period <= MAX_PERIOD) {
        return Err(crate::Error::Parameter {
            name: "period",
            value: period as f32,
            reason: "must be 1, 2, 4, 8 or 16 (steps)",
        });
    }
    if phase >= period {
        return Err(crate::Error::Parameter {
            name: "phase",
            value: phase as f32,
            reason: "must be below the period",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// At 60 Hz and slower, with each frame time off its rate by up to
    /// ±6% at random, a resumption at period 2 to 16 finds its old offset
    /// ended (so it applies none), while period 1's offset runs the whole
    /// [`LOD_BLEND`], and the blends do not shrink with the step below
    /// 14 ms a step (120 to 480 Hz give the same). Mutations:
    /// [`LOD_BLEND`] for every period (the offsets before) leaves an old
    /// offset running at every resumption at periods 2 and 4, and a
    /// margin of `1 - 2⁻¹⁰` in place of 0.85 leaves some running under
    /// the jitter: both fail it.
    #[test]
    fn offsets_end_before_the_next_periodic_evaluation() {
        let mut r = rand_pcg::Pcg32::seed_from_u64(5);
        for hz in [24.0f32, 30.0, 50.0, 60.0] {
            for period in [2u32, 4, 8, 16] {
                let mut s = Schedulex8::every_step();
                for l in 0..8 {
                    s.set(l, period, l as u32 % period);
                }
                let (mut resumptions, mut t) = (0, 0.0f32);
                for frame in 0..200u64 {
                    let dt = (1.0 + r.random_range(-0.06..0.06f32)) / hz;
                    let lod = s.plan((frame, dt), frame == 0, 0, 0xff);
                    let old = LodStep::running(lod.t_old, lod.blend_old);
                    let ran = bytemuck::cast::<F32x8, [u32; 8]>(old);
                    for (l, ran) in ran.iter().enumerate() {
                        if lod.resumed & (1 << l) != 0 {
                            resumptions += 1;
                            assert_eq!(*ran, 0, "{hz} Hz, period {period}, frame {frame}");
                        }
                    }
                    t += dt;
                }
                assert!(resumptions > 50, "{resumptions} in {t} s");
            }
        }
        let blend = |period: f32, dt: f32| offset_blend(splat(period), dt).to_array()[0];
        assert_eq!(blend(1.0, 1.0 / 60.0), LOD_BLEND);
        for period in [2.0, 4.0] {
            assert!(blend(period, 1.0 / 60.0) < LOD_BLEND);
            assert_eq!(blend(period, 1.0 / 120.0), blend(period, 1.0 / 480.0));
            assert_eq!(blend(period, 1.0 / 480.0), period * PERIOD_STEP);
        }
        assert_eq!(blend(8.0, 1.0 / 60.0), LOD_BLEND);
    }

    /// `resumes_at` says what `plan` will do with no command forcing a
    /// lane: for random periods, phases, carried lanes, live lanes and
    /// frames, it is true exactly when the plan resumes someone (both read
    /// `periodic_due`; this holds the masks they put on it).
    /// Mutations: leaving out `carried` (every due lane counted) or `live`
    /// fails it.
    #[test]
    fn resumes_at_foretells_the_plan() {
        let mut r = rand_pcg::Pcg32::seed_from_u64(3);
        let (mut yes, mut no) = (0, 0);
        for _ in 0..20_000 {
            let mut s = Schedulex8::every_step();
            for l in 0..8 {
                let period = 1u32 << r.random_range(0..5);
                s.set(l, period, r.random_range(0..period));
            }
            s.carried = r.random();
            let live = match r.random_range(0..4) {
                0 => r.random(),
                _ => 0xff,
            };
            let frame = r.random_range(0..1000u64);
            let said = s.resumes_at(frame, live);
            let plan = s.plan((frame, 1.0 / 60.0), false, 0, live);
            assert_eq!(said, plan.resumed != 0, "frame {frame}");
            if said { yes += 1 } else { no += 1 }
        }
        assert!(yes > 1000 && no > 1000, "{yes} {no}");
    }
}
