//! The desired motion a [`super::Matcher`] character follows: a random
//! walk of gamepad targets (a velocity and a facing), and the simulated
//! root that follows them with the springs article's critically damped
//! springs, predicted ahead for the query's trajectory.
//!
//! The springs here, one character at a time (`spring_damper`,
//! `spring_character_update`, `Steer::advance`, `step` and `trajectory`,
//! compiled for the tests), are the scalar definitions; the driver runs
//! their lanes twin, eight characters at a time
//! ([`super::steer_lanes::SteerPack`]), tested against them lane by lane,
//! bit for bit. The random targets ([`Steer::draw`]) run here.

use rand::Rng;
use rand_pcg::Pcg32;

use super::MatcherConfig;
#[cfg(test)]
use crate::matching::TrajectoryPoint;
use crate::reference::{Vec3, fast_negexp, halflife_to_damping};

/// What a critically damped spring of one half-life does over one `dt`,
/// the same for every character: `y = halflife_to_damping(halflife) / 2`,
/// `e = exp(-y dt)` and `eydt = fast_negexp(y dt)`, computed once per
/// update and half-life instead of per character and call (the same
/// operations on the same values: the same bits).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lapse {
    pub y: f32,
    pub e: f32,
    pub eydt: f32,
    pub dt: f32,
}

impl Lapse {
    pub fn new(halflife: f32, dt: f32) -> Lapse {
        let y = halflife_to_damping(halflife) / 2.0;
        Lapse {
            y,
            e: (-y * dt).exp(),
            eydt: fast_negexp(y * dt),
            dt,
        }
    }
}

/// The springs article's `simple_spring_damper_exact(x, v, x_goal,
/// halflife, dt)` with its half-life and step in `l` ([`Lapse`]):
///
/// ```text
/// j0 = x - x_goal,  j1 = v + j0 y
/// (x', v') = (eydt (j0 + j1 dt) + x_goal, eydt (v - j1 y dt))
/// ```
#[cfg(test)]
#[inline]
pub(crate) fn spring_damper(x: f32, v: f32, x_goal: f32, l: &Lapse) -> (f32, f32) {
    let (y, eydt, dt) = (l.y, l.eydt, l.dt);
    let j0 = x - x_goal;
    let j1 = v + j0 * y;
    (eydt * (j0 + j1 * dt) + x_goal, eydt * (v - j1 * y * dt))
}

/// The springs article's `spring_character_update` on the ground plane's
/// two axes (`x` and `z`, one half-life, its step in `l`): the velocity
/// `v` (acceleration `a`) follows `v_goal` by a critically damped spring,
/// the position `x` its exact integral over `dt`; per axis
///
/// ```text
/// y = halflife_to_damping(halflife) / 2,  j0 = v - v_goal,  j1 = a + j0 y,  e = exp(-y dt)
/// x' = e (-j1 / y² + (-j0 - j1 dt) / y) + j1 / y² + j0 / y + v_goal dt + x
/// (v', a') = simple_spring_damper_exact(v, a, v_goal, halflife, dt)
/// ```
#[cfg(test)]
pub(crate) fn spring_character_update(
    (x, v, a): ([f32; 2], [f32; 2], [f32; 2]),
    v_goal: [f32; 2],
    l: &Lapse,
) -> ([f32; 2], [f32; 2], [f32; 2]) {
    let (y, e, dt) = (l.y, l.e, l.dt);
    let axis = |k: usize| {
        let (x, v, a, v_goal) = (x[k], v[k], a[k], v_goal[k]);
        let j0 = v - v_goal;
        let j1 = a + j0 * y;
        let x = e * (-j1 / (y * y) + (-j0 - j1 * dt) / y) + j1 / (y * y) + j0 / y + v_goal * dt + x;
        let (v, a) = spring_damper(v, a, v_goal, l);
        (x, v, a)
    };
    let ((x0, v0, a0), (x1, v1, a1)) = (axis(0), axis(1));
    ([x0, x1], [v0, v1], [a0, a1])
}

/// The [`Lapse`]s of one step of the simulated root: its position's and
/// its yaw's springs over `dt`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lapses {
    pub pos: Lapse,
    pub yaw: Lapse,
}

impl Lapses {
    pub fn new(cfg: &MatcherConfig, dt: f32) -> Lapses {
        Lapses {
            pos: Lapse::new(cfg.velocity_halflife, dt),
            yaw: Lapse::new(cfg.rotation_halflife, dt),
        }
    }
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
    ///
    /// The scalar definition [`super::steer_lanes::SteerPack`] is tested
    /// against, lane by lane (the driver runs the lanes twin).
    #[cfg(test)]
    pub fn retarget(&mut self, cfg: &MatcherConfig, rng: &mut Pcg32, dt: f32) -> bool {
        self.countdown -= dt;
        if self.countdown > 0.0 {
            return false;
        }
        self.draw(cfg, rng)
    }

    /// `Steer::retarget`'s new targets, drawn now (its countdown already
    /// run out); returns whether they changed sharply.
    pub fn draw(&mut self, cfg: &MatcherConfig, rng: &mut Pcg32) -> bool {
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

    /// The simulated root after the step of `l` (its position by
    /// [`spring_character_update`] per axis, its yaw by
    /// `simple_spring_damper_exact` toward the target taken the short way).
    #[cfg(test)]
    pub fn advance(&self, l: &Lapses) -> (Vec3, Vec3, Vec3, f32, f32) {
        let ([px, pz], [vx, vz], [ax, az]) = spring_character_update(
            (
                [self.pos.x, self.pos.z],
                [self.vel.x, self.vel.z],
                [self.acc.x, self.acc.z],
            ),
            [self.want_vel.x, self.want_vel.z],
            &l.pos,
        );
        let goal = self.yaw + wrap(self.want_yaw - self.yaw);
        let (yaw, rate) = spring_damper(self.yaw, self.yaw_rate, goal, &l.yaw);
        (
            Vec3::new(px, 0.0, pz),
            Vec3::new(vx, 0.0, vz),
            Vec3::new(ax, 0.0, az),
            yaw,
            rate,
        )
    }

    /// Steps the simulated root by the step of `l` (the scalar definition
    /// of [`super::steer_lanes::SteerPack::step`]).
    #[cfg(test)]
    pub fn step(&mut self, l: &Lapses) {
        (self.pos, self.vel, self.acc, self.yaw, self.yaw_rate) = self.advance(l);
    }

    /// The desired trajectory: the simulated root predicted at each of
    /// `ahead`'s times.
    #[cfg(test)]
    pub fn trajectory(&self, ahead: &[Lapses; 3]) -> [TrajectoryPoint; 3] {
        ahead.each_ref().map(|l| {
            let (pos, _, _, yaw, _) = self.advance(l);
            let (s, c) = yaw.sin_cos();
            TrajectoryPoint {
                pos,
                facing: Vec3::new(s, 0.0, c),
            }
        })
    }
}

/// `a` wrapped into `[-π, π)` (to rounding): `a - 2π floor((a + π) / 2π)`.
/// A floor, not `rem_euclid`, which calls libm's `fmodf` (about 100
/// instructions, half of `Steer::advance` by callgrind).
pub(crate) fn wrap(a: f32) -> f32 {
    use core::f32::consts::{PI, TAU};
    a - TAU * ((a + PI) * (1.0 / TAU)).floor()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::simple_spring_damper_exact;

    /// The position is the velocity's integral: its finite difference at
    /// shrinking steps approaches the mean velocity (gap shrinks ~dt²), on
    /// both axes.
    #[test]
    fn position_integrates_velocity() {
        let s = (([1.0, -2.0], [-3.0, 5.0], [8.0, -1.0]), [12.0, -7.0], 0.27);
        for k in 0..2 {
            let gap = |dt: f32| {
                let (x, v0) = (s.0.0[k], s.0.1[k]);
                let (x1, v1, _) = spring_character_update(s.0, s.1, &Lapse::new(s.2, dt));
                ((x1[k] - x) / dt - (v0 + v1[k]) / 2.0).abs()
            };
            let (g1, g2) = (gap(0.02), gap(0.01));
            assert!(g2 < 0.4 * g1 && g1 < 0.1, "axis {k}: {g1} {g2}");
        }
    }

    /// `wrap` lands in `[-π, π]` (π only by rounding) and differs from `a`
    /// by a whole number of turns, for angles of many turns either way.
    #[test]
    fn wrap_keeps_the_angle() {
        use core::f32::consts::{PI, TAU};
        for i in -2000..2000 {
            let a = i as f32 * 0.0173 + 0.001;
            let w = wrap(a);
            assert!((-PI..=PI).contains(&w), "{a} -> {w}");
            let turns = (a - w) / TAU;
            assert!((turns - turns.round()).abs() < 1e-3, "{a} -> {w}");
        }
    }

    /// Each axis's velocity and acceleration are the springs article's
    /// `simple_spring_damper_exact`, bit for bit (the [`Lapse`] computed
    /// once changes no rounding).
    #[test]
    fn velocity_is_the_simple_spring_damper() {
        let s = (([1.0, -2.0], [-3.0, 5.0], [8.0, -1.0]), [12.0, -7.0], 0.27);
        for dt in [1.0 / 60.0, 0.1, 1.0] {
            let (_, v, a) = spring_character_update(s.0, s.1, &Lapse::new(s.2, dt));
            for k in 0..2 {
                let (v1, a1) = simple_spring_damper_exact(s.0.1[k], s.0.2[k], s.1[k], s.2, dt);
                assert_eq!(
                    (v[k].to_bits(), a[k].to_bits()),
                    (v1.to_bits(), a1.to_bits())
                );
            }
        }
    }

    /// [`spring_damper`] with a [`Lapse`] is `simple_spring_damper_exact`
    /// bit for bit, over positions, velocities, goals, half-lives and
    /// steps of many sizes (the yaw's spring, and the trajectory's
    /// predictions up to a second ahead). Mutation caught: `Lapse::new`
    /// with `y` not halved.
    #[test]
    fn spring_damper_is_the_articles_exactly() {
        for i in 0..500 {
            let f = i as f32;
            let (x, v, g) = (
                (f * 0.37).sin() * 5.0,
                (f * 0.11).cos() * 9.0,
                f * 0.01 - 2.0,
            );
            let h = 0.05 + (i % 7) as f32 * 0.1;
            let dt = [1.0 / 240.0, 1.0 / 60.0, 0.2, 0.4, 1.0][i % 5];
            let (a, b) = (
                spring_damper(x, v, g, &Lapse::new(h, dt)),
                simple_spring_damper_exact(x, v, g, h, dt),
            );
            assert_eq!(
                (a.0.to_bits(), a.1.to_bits()),
                (b.0.to_bits(), b.1.to_bits()),
                "{i}"
            );
        }
    }
}
