//! The lanes twin of [`super::steer`]: eight characters' desired motion
//! and simulated root ([`SteerPack`], lane `l` the pack's `l`-th
//! character), stepped by the same springs eight at a time. Every
//! operation is the scalar [`Steer`]'s, in its order, on the same values
//! (no fused multiply-adds: Rust contracts neither path), so each lane is
//! the scalar path's bits exactly; the random targets stay scalar
//! ([`Steer::draw`], one character's numbers at a time, only for the lanes
//! whose countdown ran out).

use super::steer::{Lapse, Lapses, Steer};
use crate::crowd::motion::lane_mask;
use crate::lanes::{F32x8, splat};
use crate::matching::TrajectoryPoint;
use crate::reference::Vec3;

/// Eight characters' [`Steer`]s, ground axes `x` and `z` apart (a
/// [`Steer`]'s `y` components are always `+0`: its targets, its
/// simulated root and the clamp toward its character all stay on the
/// ground).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SteerPack {
    /// The gamepad's target velocity (`x`, `z`) and yaw.
    pub want_vel: [F32x8; 2],
    pub want_yaw: F32x8,
    /// Seconds until the next targets.
    pub countdown: F32x8,
    /// The simulated root: position, velocity, acceleration (`x`, `z`);
    /// yaw and its rate.
    pub pos: [F32x8; 2],
    pub vel: [F32x8; 2],
    pub acc: [F32x8; 2],
    pub yaw: F32x8,
    pub yaw_rate: F32x8,
}

/// Lane `l` of `v`.
#[inline(always)]
fn at(v: F32x8, l: usize) -> f32 {
    v.to_array()[l]
}

/// `v` with lane `l` set to `x`.
#[inline(always)]
fn put(v: &mut F32x8, l: usize, x: f32) {
    let mut a = v.to_array();
    a[l] = x;
    *v = F32x8::new(a);
}

impl SteerPack {
    /// Eight [`Steer::new`]s at the origin facing `+z`.
    pub fn new() -> SteerPack {
        let mut p = SteerPack {
            want_vel: [F32x8::ZERO; 2],
            want_yaw: F32x8::ZERO,
            countdown: F32x8::ZERO,
            pos: [F32x8::ZERO; 2],
            vel: [F32x8::ZERO; 2],
            acc: [F32x8::ZERO; 2],
            yaw: F32x8::ZERO,
            yaw_rate: F32x8::ZERO,
        };
        let s = Steer::new(Vec3::ZERO, 0.0);
        for l in 0..8 {
            p.set_lane(l, &s);
        }
        p
    }

    /// Lane `l`'s [`Steer`].
    pub fn lane(&self, l: usize) -> Steer {
        let v3 = |v: &[F32x8; 2]| Vec3::new(at(v[0], l), 0.0, at(v[1], l));
        Steer {
            want_vel: v3(&self.want_vel),
            want_yaw: at(self.want_yaw, l),
            countdown: at(self.countdown, l),
            pos: v3(&self.pos),
            vel: v3(&self.vel),
            acc: v3(&self.acc),
            yaw: at(self.yaw, l),
            yaw_rate: at(self.yaw_rate, l),
        }
    }

    /// Sets lane `l` to `s` (its `y` components dropped: always `+0`).
    pub fn set_lane(&mut self, l: usize, s: &Steer) {
        let v3 = |v: &mut [F32x8; 2], x: Vec3| {
            put(&mut v[0], l, x.x);
            put(&mut v[1], l, x.z);
        };
        v3(&mut self.want_vel, s.want_vel);
        put(&mut self.want_yaw, l, s.want_yaw);
        put(&mut self.countdown, l, s.countdown);
        v3(&mut self.pos, s.pos);
        v3(&mut self.vel, s.vel);
        v3(&mut self.acc, s.acc);
        put(&mut self.yaw, l, s.yaw);
        put(&mut self.yaw_rate, l, s.yaw_rate);
    }

    /// `Steer::retarget` of the lanes of `live` (a lane bit mask): each
    /// countdown run down by `dt`, and new targets drawn (scalar, from
    /// `draw(lane, its steer)`, which returns whether they changed
    /// sharply) for the lanes whose countdown ran out. Returns the lanes
    /// whose targets changed sharply.
    #[inline]
    pub fn retarget(
        &mut self,
        dt: f32,
        live: u8,
        mut draw: impl FnMut(usize, &mut Steer) -> bool,
    ) -> u8 {
        let live_m = lane_mask(live);
        self.countdown = live_m.select(self.countdown - splat(dt), self.countdown);
        // `retarget` draws where the countdown is not above 0.
        let mut out = !self.countdown.simd_gt(F32x8::ZERO).to_bitmask() & u32::from(live);
        let mut sharp = 0;
        while out != 0 {
            let l = out.trailing_zeros() as usize;
            out &= out - 1;
            let mut s = self.lane(l);
            if draw(l, &mut s) {
                sharp |= 1 << l;
            }
            self.set_lane(l, &s);
        }
        sharp
    }

    /// `Steer::step` of the lanes of `live`.
    #[inline]
    pub fn step(&mut self, l: &Lapses, live: u8) {
        let m = lane_mask(live);
        let (pos, vel, acc, yaw, rate) = self.advance(l);
        for k in 0..2 {
            self.pos[k] = m.select(pos[k], self.pos[k]);
            self.vel[k] = m.select(vel[k], self.vel[k]);
            self.acc[k] = m.select(acc[k], self.acc[k]);
        }
        self.yaw = m.select(yaw, self.yaw);
        self.yaw_rate = m.select(rate, self.yaw_rate);
    }

    /// `Steer::advance`, eight lanes: the simulated root after the step
    /// of `l` (position, velocity, acceleration, yaw, its rate).
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    pub fn advance(&self, l: &Lapses) -> ([F32x8; 2], [F32x8; 2], [F32x8; 2], F32x8, F32x8) {
        let (x0, v0, a0) = character_axis(
            (self.pos[0], self.vel[0], self.acc[0]),
            self.want_vel[0],
            &l.pos,
        );
        let (x1, v1, a1) = character_axis(
            (self.pos[1], self.vel[1], self.acc[1]),
            self.want_vel[1],
            &l.pos,
        );
        let goal = self.yaw + wrap(self.want_yaw - self.yaw);
        let (yaw, rate) = spring_damper(self.yaw, self.yaw_rate, goal, &l.yaw);
        ([x0, x1], [v0, v1], [a0, a1], yaw, rate)
    }

    /// The simulated roots predicted at each of `ahead`'s times
    /// (`Steer::trajectory`'s `Steer::advance`s, eight lanes): each
    /// lane's [`Ahead::point`] is its `Steer::trajectory` point, bit for
    /// bit.
    #[inline]
    pub fn ahead(&self, ahead: &[Lapses; 3]) -> [Ahead; 3] {
        ahead.each_ref().map(|l| {
            let (pos, _, _, yaw, _) = self.advance(l);
            Ahead { pos, yaw }
        })
    }

    /// The clamp of [`super::walker::desire`] for the lanes of `live`: each
    /// simulated root's ground distance to its character's root (`root`:
    /// `x` and `z` per lane), and the simulated root moved back to within
    /// `clamp` of it where it is farther. Returns the distances before the
    /// clamp (the trajectory errors).
    #[inline]
    pub fn clamp(&mut self, clamp: f32, root: [F32x8; 2], live: u8) -> F32x8 {
        // `length(pos - (root.x, 0, root.z))`: its `y` term is `+0 * +0`,
        // which adds nothing to a sum of squares.
        let off = [self.pos[0] - root[0], self.pos[1] - root[1]];
        let dist = (off[0] * off[0] + off[1] * off[1]).sqrt();
        let c = splat(clamp);
        let m = dist.simd_gt(c) & lane_mask(live);
        let k = splat(1.0) - c / dist;
        for (p, o) in self.pos.iter_mut().zip(off) {
            *p = m.select(*p - o * k, *p);
        }
        dist
    }
}

/// Eight simulated roots predicted ahead ([`SteerPack::ahead`]): ground
/// position (`x`, `z`) and yaw.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ahead {
    pub pos: [F32x8; 2],
    pub yaw: F32x8,
}

impl Ahead {
    /// Lane `l`'s trajectory point: its position and its facing
    /// `(sin yaw, 0, cos yaw)` (scalar `sin_cos`, as
    /// `Steer::trajectory`'s).
    pub fn point(&self, l: usize) -> TrajectoryPoint {
        let (s, c) = at(self.yaw, l).sin_cos();
        TrajectoryPoint {
            pos: Vec3::new(at(self.pos[0], l), 0.0, at(self.pos[1], l)),
            facing: Vec3::new(s, 0.0, c),
        }
    }
}

/// `super::steer::spring_damper`, eight lanes.
#[inline(always)]
fn spring_damper(x: F32x8, v: F32x8, x_goal: F32x8, l: &Lapse) -> (F32x8, F32x8) {
    let (y, eydt, dt) = (splat(l.y), splat(l.eydt), splat(l.dt));
    let j0 = x - x_goal;
    let j1 = v + j0 * y;
    (eydt * (j0 + j1 * dt) + x_goal, eydt * (v - j1 * y * dt))
}

/// One ground axis of `super::steer::spring_character_update`, eight
/// lanes: position, velocity and acceleration after the step.
#[inline(always)]
fn character_axis(
    (x, v, a): (F32x8, F32x8, F32x8),
    v_goal: F32x8,
    l: &Lapse,
) -> (F32x8, F32x8, F32x8) {
    let (y, e, dt) = (splat(l.y), splat(l.e), splat(l.dt));
    let j0 = v - v_goal;
    let j1 = a + j0 * y;
    let x = e * (-j1 / (y * y) + (-j0 - j1 * dt) / y) + j1 / (y * y) + j0 / y + v_goal * dt + x;
    let (v, a) = spring_damper(v, a, v_goal, l);
    (x, v, a)
}

/// [`super::steer::wrap`], eight lanes.
#[inline(always)]
fn wrap(a: F32x8) -> F32x8 {
    use core::f32::consts::{PI, TAU};
    a - splat(TAU) * ((a + splat(PI)) * splat(1.0 / TAU)).floor()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::MatcherConfig;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg32;

    fn random_steer(r: &mut Pcg32) -> Steer {
        let v =
            |r: &mut Pcg32, s: f32| Vec3::new(r.random_range(-s..s), 0.0, r.random_range(-s..s));
        Steer {
            want_vel: v(r, 4.0),
            want_yaw: r.random_range(-20.0..20.0),
            countdown: r.random_range(-0.1..0.1),
            pos: v(r, 50.0),
            vel: v(r, 4.0),
            acc: v(r, 30.0),
            yaw: r.random_range(-20.0..20.0),
            yaw_rate: r.random_range(-9.0..9.0),
        }
    }

    fn bits(s: &Steer) -> [u32; 16] {
        let v = |x: Vec3| [x.x.to_bits(), x.y.to_bits(), x.z.to_bits()];
        let mut out = [0; 16];
        let all = [v(s.want_vel), v(s.pos), v(s.vel), v(s.acc)].concat();
        out[..12].copy_from_slice(&all);
        out[12..].copy_from_slice(&[s.want_yaw, s.countdown, s.yaw, s.yaw_rate].map(f32::to_bits));
        out
    }

    /// Each lane of a pack's retarget, step, predicted trajectory and
    /// clamp is the scalar [`Steer`]'s (and [`super::super::walker::desire`]'s
    /// clamp) bit for bit, over random states, steps from 1/480 to 1/10 s
    /// and packs with lanes not live (which keep their state). Mutations
    /// caught: `spring_damper`'s `eydt` for `e`; the clamp's factor
    /// `c / dist` for `1 - c / dist`; a dead lane stepped; `Ahead::point`
    /// facing `(cos, 0, sin)`.
    #[test]
    fn each_lane_is_the_scalar_steer_bit_for_bit() {
        let cfg = MatcherConfig::default();
        let mut r = Pcg32::seed_from_u64(5);
        for round in 0..400 {
            let dt = [1.0 / 480.0, 1.0 / 60.0, 1.0 / 30.0, 0.1][round % 4];
            let lapses = Lapses::new(&cfg, dt);
            let steers: Vec<Steer> = (0..8).map(|_| random_steer(&mut r)).collect();
            let roots: Vec<Vec3> = (0..8)
                .map(|_| {
                    Vec3::new(
                        r.random_range(-60.0..60.0),
                        0.0,
                        r.random_range(-60.0..60.0),
                    )
                })
                .collect();
            let live: u8 = if round % 3 == 0 { r.random() } else { 0xFF };
            let mut pack = SteerPack::new();
            for (l, s) in steers.iter().enumerate() {
                pack.set_lane(l, s);
            }
            let seeds: Vec<u64> = (0..8).map(|_| r.random()).collect();
            let mut rngs: Vec<Pcg32> = seeds.iter().map(|&s| Pcg32::seed_from_u64(s)).collect();
            let sharp = pack.retarget(dt, live, |l, s| s.draw(&cfg, &mut rngs[l]));
            pack.step(&lapses, live);
            let ahead_times = [0.2 + round as f32 * 1e-3, 0.4, 1.0];
            let ahead_lapses = ahead_times.map(|t| Lapses::new(&cfg, t));
            let ahead = pack.ahead(&ahead_lapses);
            for (l, s) in steers.iter().enumerate() {
                let mut want = s.clone();
                if live & (1 << l) != 0 {
                    let mut rng = Pcg32::seed_from_u64(seeds[l]);
                    want.retarget(&cfg, &mut rng, dt);
                    want.step(&lapses);
                }
                for (a, p) in ahead.iter().zip(want.trajectory(&ahead_lapses)) {
                    let q = a.point(l);
                    let b = |p: &TrajectoryPoint| {
                        [p.pos, p.facing].map(|v| [v.x, v.y, v.z].map(f32::to_bits))
                    };
                    assert_eq!(b(&q), b(&p), "round {round} lane {l}: trajectory");
                }
            }
            let root = [0, 2]
                .map(|k| F32x8::new(core::array::from_fn(|l| [roots[l].x, 0.0, roots[l].z][k])));
            let dist = pack.clamp(cfg.clamp_distance, root, live).to_array();
            for (l, s) in steers.iter().enumerate() {
                let mut want = s.clone();
                if live & (1 << l) != 0 {
                    let mut rng = Pcg32::seed_from_u64(seeds[l]);
                    let sh = want.retarget(&cfg, &mut rng, dt);
                    assert_eq!(sh, sharp & (1 << l) != 0, "round {round} lane {l}: sharp");
                    want.step(&lapses);
                    let off = want.pos - Vec3::new(roots[l].x, 0.0, roots[l].z);
                    let d = crate::reference::length(off);
                    if d > cfg.clamp_distance {
                        want.pos -= off * (1.0 - cfg.clamp_distance / d);
                    }
                    assert_eq!(
                        d.to_bits(),
                        dist[l].to_bits(),
                        "round {round} lane {l}: distance"
                    );
                }
                assert_eq!(bits(&pack.lane(l)), bits(&want), "round {round} lane {l}");
            }
        }
    }
}
