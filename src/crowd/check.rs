//! The live velocity check: the propagated world velocities against the
//! finite difference of world positions, over every character, joint and
//! step, with its verdict.

use crate::lanes::{self, F32x8, Vec3x8};

use super::motion::{Motionx8, put_motion};

/// Velocity check over a run: the gap between the propagated world velocity
/// and the finite difference of world positions across a frame,
/// `|(p₁ - p₀) / dt - (v₀ + v₁) / 2|`, over every character and joint.
///
/// The verdict ([`VelocityCheck::passed`]): every output finite, and the
/// largest gap within [`VelocityCheck::bound`], twice the top speed of the
/// run plus what f32 rounding of the positions alone can make
/// ([`VelocityCheck::rounding`]). A motion whose positions follow its velocities moves no faster
/// over a step than its top speed, so `|(p₁ - p₀) / dt|` and
/// `|(v₀ + v₁) / 2|` are both within it and their difference within twice
/// it, whatever the step; a jump in position (a snap, a pop at a
/// transition) gives a gap that grows as `1 / dt` and passes it. How
/// closely the velocities follow the motion (a few units/s on average; the
/// largest gaps are linear sampling's frame-to-frame velocity jumps) is
/// what `tests/suite/continuity/` proves, by halving the step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VelocityCheck {
    /// Largest gap, units per second.
    pub max_gap: f32,
    /// Where the largest gap was: character, crowd joint, frame (frames
    /// counted from 0, the crowd's first).
    pub worst: Option<GapAt>,
    /// Sum of gaps (for the mean).
    pub sum_gap: f64,
    /// Number of character-joint samples.
    pub samples: u64,
    /// Largest propagated speed seen, units per second (for scale).
    pub max_speed: f32,
    /// The largest gap f32 rounding of the positions alone can make,
    /// units per second: [`rounding_gap`] of the largest coordinate of a
    /// character's bounding box, the step's. A motionless crowd (top speed
    /// 0) still has positions that round differently from one frame's
    /// forward kinematics to the next: without it, its bound was 0 and a
    /// gap of 9.4e-4 units/s (the reference path, a still clip about 40
    /// units from the origin at 60 Hz) failed it.
    pub rounding: f32,
    /// Character-frames whose output holds a value that is not finite:
    /// counted on every step, the first and those with the check off
    /// ([`crate::crowd::CrowdConfig::velocity_check`]) included, whose
    /// other figures are empty. A game that runs without the check reads
    /// it here.
    pub non_finite: u64,
}

/// A place in a crowd run: character, crowd joint (0 the world root) and
/// frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GapAt {
    /// Character index.
    pub character: usize,
    /// Crowd joint.
    pub joint: usize,
    /// Frame, from 0.
    pub frame: u64,
}

impl VelocityCheck {
    /// Adds another part of the run (other characters or frames); the
    /// earlier part wins ties, so the sum is the same for any thread count.
    pub fn merge(&mut self, o: &VelocityCheck) {
        if o.max_gap > self.max_gap || (self.worst.is_none() && o.worst.is_some()) {
            self.max_gap = o.max_gap;
            self.worst = o.worst;
        }
        self.sum_gap += o.sum_gap;
        self.samples += o.samples;
        self.max_speed = self.max_speed.max(o.max_speed);
        self.rounding = self.rounding.max(o.rounding);
        self.non_finite += o.non_finite;
    }

    /// Mean gap, units per second.
    pub fn mean_gap(&self) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            self.sum_gap / self.samples as f64
        }
    }

    /// The bound the largest gap is held to: twice the top speed of the
    /// run plus [`VelocityCheck::rounding`] (see the type's docs), units
    /// per second.
    pub fn bound(&self) -> f32 {
        2.0 * self.max_speed + self.rounding
    }

    /// Every output finite and the largest gap within [`VelocityCheck::bound`].
    pub fn passed(&self) -> bool {
        self.non_finite == 0 && self.max_gap <= self.bound()
    }
}

/// The largest gap f32 rounding alone can make between positions whose
/// coordinates are at most `reach` in size, over a step of `dt`:
/// `16 ε reach / dt` ([`VelocityCheck::rounding`]). Forward kinematics
/// rounds each position at every joint of its chain (a few units in the
/// last place of the largest coordinate, measured 3.3), and the two
/// frames' errors need not cancel; 16 leaves room for chains of the
/// CMU skeleton's depth. At the position limit (1e6 units) and 60 Hz
/// it is 114 units/s: a pop of a unit in a step still fails the check.
pub fn rounding_gap(reach: f32, dt: f32) -> f32 {
    16.0 * f32::EPSILON * reach / dt
}

/// Writes joint `j`'s world output after comparing it with the previous
/// frame's: the finite difference of positions against the mean of the two
/// propagated velocities, kept as `dt` times the gap,
/// `|Δpos - (v + v_prev) dt/2|` (scaled by `1/dt` once per pack, in
/// [`PackCheck::finish`]). Whether or not the comparison is skipped
/// (`skip`: the first frame, or the check off), the output's position,
/// velocity, angular velocity and rotation's `w` are summed times zero
/// into the lane's probe, so a value that is not finite makes it NaN and
/// is counted; a gap that overflows on finite output (velocities past
/// 1e19 square to infinity) is a failed check, not output that is not
/// finite.
#[inline(always)]
pub(crate) fn write_world(
    w: &mut Motionx8,
    g: &Motionx8,
    (j, skip): (F32x8, bool),
    half_dt: F32x8,
    check: &mut PackCheck,
) {
    // 0 for finite values, NaN for any other (x × 0), summed as a tree so
    // one add per joint waits on the previous joint's.
    let z = F32x8::ZERO;
    let zero = |v: Vec3x8, a: F32x8| v.x.mul_add(z, v.y.mul_add(z, v.z.mul_add(z, a)));
    let pv = zero(g.pos, g.rot.w * z);
    let va = zero(g.vel, g.ang.x * z);
    check.probe += pv + g.ang.y.mul_add(z, g.ang.z.mul_add(z, va));
    if !skip {
        let e = (g.pos - w.pos) - (g.vel + w.vel) * half_dt;
        let gap = lanes::length(e);
        // A NaN gap is never greater and does not move the maximum; it
        // comes from output that is not finite, which the probe counts.
        let more = gap.simd_gt(check.max_gap);
        check.max_gap = more.select(gap, check.max_gap);
        check.max_joint = more.select(j, check.max_joint);
        check.sum_gap += gap;
        check.max_speed2 = check.max_speed2.fast_max(lanes::dot(g.vel, g.vel));
    }
    put_motion(w, g);
}

/// A pack's velocity check, kept in lanes until the pack is done.
pub(crate) struct PackCheck {
    max_gap: F32x8,
    /// The joint of each lane's largest gap.
    max_joint: F32x8,
    sum_gap: F32x8,
    /// Squared, so each joint needs no square root.
    max_speed2: F32x8,
    /// Each lane's output times zero, summed: NaN where a value is not
    /// finite.
    probe: F32x8,
}

impl PackCheck {
    pub(crate) const EMPTY: PackCheck = PackCheck {
        max_gap: F32x8::ZERO,
        max_joint: F32x8::ZERO,
        sum_gap: F32x8::ZERO,
        max_speed2: F32x8::ZERO,
        probe: F32x8::ZERO,
    };

    /// A lane mask: set where every output written so far was finite
    /// (the lane's probe is zero, not NaN).
    #[inline(always)]
    pub(crate) fn finite(&self) -> F32x8 {
        self.probe.simd_eq(F32x8::ZERO)
    }

    /// The run-level check of `joints` joints of the `valid` lanes of pack
    /// `pack` at `frame`, gaps divided by the step `dt`. A lane whose probe
    /// is not finite held a value that is not finite. Where the
    /// comparison was skipped (`skipped`: the first frame, or the check
    /// off), only those lanes are counted ([`VelocityCheck::non_finite`]).
    pub(crate) fn finish(
        &self,
        (pack, valid): (usize, [bool; 8]),
        (joints, reach): (usize, [f32; 8]),
        (skipped, frame): (bool, u64),
        dt: f32,
    ) -> VelocityCheck {
        let probe = self.probe.to_array();
        if skipped {
            let bad = (0..8).filter(|&l| valid[l] && !probe[l].is_finite());
            return VelocityCheck {
                non_finite: bad.count() as u64,
                ..VelocityCheck::default()
            };
        }
        let (gaps, at, sums) = (
            self.max_gap.to_array(),
            self.max_joint.to_array(),
            self.sum_gap.to_array(),
        );
        let mut check = VelocityCheck {
            samples: (valid.iter().filter(|&&v| v).count() * joints) as u64,
            ..VelocityCheck::default()
        };
        let speeds = self.max_speed2.to_array();
        for l in (0..8).filter(|&l| valid[l]) {
            if !probe[l].is_finite() {
                check.non_finite += 1;
                continue;
            }
            check.sum_gap += sums[l] as f64 / dt as f64;
            check.max_speed = check.max_speed.max(speeds[l].sqrt());
            check.rounding = check.rounding.max(rounding_gap(reach[l], dt));
            let gap = gaps[l] / dt;
            if gap > check.max_gap || check.worst.is_none() {
                check.max_gap = gap;
                check.worst = Some(GapAt {
                    character: pack * 8 + l,
                    joint: at[l] as usize,
                    frame,
                });
            }
        }
        check
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lanes::splat;

    /// A lane whose gaps summed to NaN or infinity is counted as not
    /// finite and fails the check (a NaN gap never moves `max_gap`, which
    /// `f32::max` would hide); the others give the largest gap and where.
    #[test]
    fn velocity_check_counts_values_that_are_not_finite() {
        let mut c = PackCheck::EMPTY;
        c.max_gap = F32x8::new([0.1, 0.2, 0.0, 0.3, 0.0, 0.0, 0.0, 0.0]);
        c.max_joint = F32x8::new([1.0, 2.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0]);
        c.sum_gap = F32x8::new([1.0, f32::NAN, f32::INFINITY, 1.0, 0.0, 0.0, 0.0, 0.0]);
        c.probe = F32x8::new([0.0, f32::NAN, f32::NAN, 0.0, 0.0, 0.0, 0.0, 0.0]);
        c.max_speed2 = splat(100.0);
        let v = c.finish((3, [true; 8]), (10, [0.0; 8]), (false, 7), 0.5);
        assert_eq!(v.non_finite, 2);
        assert!(!v.passed());
        assert_eq!(v.max_gap, 0.6);
        assert_eq!(
            v.worst,
            Some(GapAt {
                character: 27,
                joint: 5,
                frame: 7
            })
        );
        let mut ok = PackCheck::EMPTY;
        ok.max_speed2 = splat(100.0);
        ok.max_gap = splat(1.0);
        let v = ok.finish((0, [true; 8]), (10, [0.0; 8]), (false, 1), 0.5);
        assert!(v.passed() && v.bound() == 20.0 && v.max_gap == 2.0, "{v:?}");
    }

    /// Issue 21, defect 4: with the comparison skipped (the check off, or
    /// the first frame) a lane whose output holds a NaN or an infinity in
    /// a position, velocity, angular velocity or rotation is still counted,
    /// and huge finite values are not; nothing else is measured.
    #[test]
    fn defect_4_the_check_off_still_counts_values_that_are_not_finite() {
        let fine = Motionx8 {
            pos: Vec3x8::splat(crate::reference::Vec3::splat(3e38)),
            ..Motionx8::REST
        };
        let mut bad = fine;
        let lane = |v: &mut F32x8, l: usize, x: f32| {
            let mut a = v.to_array();
            a[l] = x;
            *v = F32x8::new(a);
        };
        lane(&mut bad.pos.y, 1, f32::NAN);
        lane(&mut bad.vel.z, 2, f32::INFINITY);
        lane(&mut bad.ang.x, 4, f32::NEG_INFINITY);
        lane(&mut bad.rot.w, 6, f32::NAN);
        let mut c = PackCheck::EMPTY;
        let mut w = Motionx8::REST;
        for g in [&fine, &bad, &fine] {
            write_world(&mut w, g, (F32x8::ZERO, true), splat(0.5), &mut c);
        }
        let mut valid = [true; 8];
        valid[6] = false; // past the crowd's last character
        let v = c.finish((0, valid), (3, [0.0; 8]), (true, 5), 0.01);
        assert_eq!(v.non_finite, 3, "{v:?}");
        assert_eq!((v.samples, v.max_gap, v.worst), (0, 0.0, None));
        assert!(!v.passed());
    }
}
