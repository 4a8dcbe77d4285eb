//! The desired motion a [`super::Matcher`] character follows: a random
//! walk of gamepad targets (a velocity and a facing), and the simulated
//! root that follows them with the springs article's critically damped
//! springs, predicted ahead for the query's trajectory.

use rand::Rng;
use rand_pcg::Pcg32;

use super::MatcherConfig;
use crate::matching::TrajectoryPoint;
use crate::reference::{Vec3, halflife_to_damping, simple_spring_damper_exact};

/// The springs article's `spring_character_update` on one axis: the
/// velocity `v` (acceleration `a`) follows `v_goal` by a critically damped
/// spring of `halflife`, the position `x` its exact integral over `dt`:
///
/// ```text
/// y = halflife_to_damping(halflife) / 2,  j0 = v - v_goal,  j1 = a + j0 y,  e = exp(-y dt)
/// x' = e (-j1 / y² + (-j0 - j1 dt) / y) + j1 / y² + j0 / y + v_goal dt + x
/// (v', a') = simple_spring_damper_exact(v, a, v_goal, halflife, dt)
/// ```
pub(crate) fn spring_character_update(
    (x, v, a): (f32, f32, f32),
    v_goal: f32,
    halflife: f32,
    dt: f32,
) -> (f32, f32, f32) {
    let y = halflife_to_damping(halflife) / 2.0;
    let j0 = v - v_goal;
    let j1 = a + j0 * y;
    let e = (-y * dt).exp();
    let x = e * (-j1 / (y * y) + (-j0 - j1 * dt) / y) + j1 / (y * y) + j0 / y + v_goal * dt + x;
    let (v, a) = simple_spring_damper_exact(v, a, v_goal, halflife, dt);
    (x, v, a)
}

/// One character's desired motion and simulated root (on the ground plane,
/// `+y` up).
#[derive(Clone, Debug)]
pub(crate) struct Steer {
    /// The gamepad's targets: velocity (world, on the ground) and yaw.
    pub want_vel: Vec3,
    pub want_yaw: f32,
    /// Seconds until the next target.
    pub countdown: f32,
    /// The simulated root: position, velocity, acceleration; yaw and its
    /// rate.
    pub pos: Vec3,
    pub vel: Vec3,
    pub acc: Vec3,
    pub yaw: f32,
    pub yaw_rate: f32,
}

impl Steer {
    pub fn new(pos: Vec3, yaw: f32) -> Steer {
        Steer {
            want_vel: Vec3::ZERO,
            want_yaw: yaw,
            countdown: 0.0,
            pos: Vec3::new(pos.x, 0.0, pos.z),
            vel: Vec3::ZERO,
            acc: Vec3::ZERO,
            yaw,
            yaw_rate: 0.0,
        }
    }

    /// Counts down `dt` and, when due, draws new targets: a direction
    /// uniform around, a speed uniform in `cfg.speed`, the facing the
    /// direction turned by up to `cfg.strafe` radians. Returns whether the
    /// desired motion changed sharply (velocity by more than
    /// `cfg.sharp_velocity` or facing by more than `cfg.sharp_turn`).
    pub fn retarget(&mut self, cfg: &MatcherConfig, rng: &mut Pcg32, dt: f32) -> bool {
        self.countdown -= dt;
        if self.countdown > 0.0 {
            return false;
        }
        let (lo, hi) = cfg.retarget_every;
        self.countdown = if hi > lo {
            rng.random_range(lo..hi)
        } else {
            lo
        };
        let dir = rng.random_range(0.0..core::f32::consts::TAU);
        let (lo, hi) = cfg.speed;
        let speed = if hi > lo {
            rng.random_range(lo..hi)
        } else {
            lo
        };
        let strafe = match cfg.strafe > 0.0 {
            true => rng.random_range(-cfg.strafe..cfg.strafe),
            false => 0.0,
        };
        let vel = Vec3::new(dir.sin() * speed, 0.0, dir.cos() * speed);
        let yaw = self.yaw + wrap(dir + strafe - self.yaw);
        let dv = crate::reference::length(vel - self.want_vel);
        let dyaw = wrap(yaw - self.want_yaw).abs();
        (self.want_vel, self.want_yaw) = (vel, yaw);
        dv > cfg.sharp_velocity || dyaw > cfg.sharp_turn
    }

    /// The simulated root after `dt` (its position by
    /// [`spring_character_update`] per axis, its yaw by
    /// `simple_spring_damper_exact` toward the target taken the short way).
    pub fn advance(&self, cfg: &MatcherConfig, dt: f32) -> (Vec3, Vec3, Vec3, f32, f32) {
        let h = cfg.velocity_halflife;
        let (px, vx, ax) =
            spring_character_update((self.pos.x, self.vel.x, self.acc.x), self.want_vel.x, h, dt);
        let (pz, vz, az) =
            spring_character_update((self.pos.z, self.vel.z, self.acc.z), self.want_vel.z, h, dt);
        let goal = self.yaw + wrap(self.want_yaw - self.yaw);
        let (yaw, rate) =
            simple_spring_damper_exact(self.yaw, self.yaw_rate, goal, cfg.rotation_halflife, dt);
        (
            Vec3::new(px, 0.0, pz),
            Vec3::new(vx, 0.0, vz),
            Vec3::new(ax, 0.0, az),
            yaw,
            rate,
        )
    }

    /// Steps the simulated root by `dt`.
    pub fn step(&mut self, cfg: &MatcherConfig, dt: f32) {
        (self.pos, self.vel, self.acc, self.yaw, self.yaw_rate) = self.advance(cfg, dt);
    }

    /// The desired trajectory: the simulated root predicted `times` ahead.
    pub fn trajectory(&self, cfg: &MatcherConfig, times: [f32; 3]) -> [TrajectoryPoint; 3] {
        times.map(|t| {
            let (pos, _, _, yaw, _) = self.advance(cfg, t);
            TrajectoryPoint {
                pos,
                facing: Vec3::new(yaw.sin(), 0.0, yaw.cos()),
            }
        })
    }
}

/// `a` wrapped into `[-π, π)`.
pub(crate) fn wrap(a: f32) -> f32 {
    use core::f32::consts::{PI, TAU};
    (a + PI).rem_euclid(TAU) - PI
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The position is the velocity's integral: its finite difference at
    /// shrinking steps approaches the mean velocity (gap shrinks ~dt²).
    #[test]
    fn position_integrates_velocity() {
        let s = ((1.0, -3.0, 8.0), 12.0, 0.27);
        let gap = |dt: f32| {
            let (x, v0, _) = (s.0.0, s.0.1, s.0.2);
            let (x1, v1, _) = spring_character_update(s.0, s.1, s.2, dt);
            ((x1 - x) / dt - (v0 + v1) / 2.0).abs()
        };
        let (g1, g2) = (gap(0.02), gap(0.01));
        assert!(g2 < 0.4 * g1 && g1 < 0.1, "{g1} {g2}");
    }
}
