//! Dead blending with fitted half-lives in isolation.

use super::*;

/// Dead blending with fitted half-lives in isolation: 16 characters
/// playing the clip from different times, each given a transition into a
/// held pose (rate 0) elsewhere in the clip, so that the input is still
/// and every motion shown during the transition is the extrapolation's
/// and the fade's. Over every step of the transition, for both crowds and
/// every joint: the largest gap between the finite difference of world
/// positions (rotations) and the mean of the step's velocities (angular
/// velocities), relative to `1 + |v|`, shrinks at least threefold per
/// halving of the step (the trapezoid's own error goes as the step
/// squared: measured 3.8-3.9x), and no joint turns beyond its angular
/// velocity by more than 0.05°. Rotations are compared at 120, 240 and
/// 480 Hz, positions at 120 and 240 Hz: at 480 Hz f32 rounding of world
/// positions 35 units from the origin (4e-6 a step, 2e-3 units/s) is the
/// larger part of the gap.
///
/// A velocity off by a fixed amount does not shrink: with the first-order
/// angular velocity `ṁ` for `J(m) ṁ` of a scaled angle axis whose axes
/// decay at different rates the gaps stay at 0.048 (positions) and 0.028
/// (rotations) at every rate.
#[test]
fn fitted_dead_blending_velocities_follow_the_motion() {
    let library = embedded();
    let len = library.clips()[0].last_time();
    let n = 16;
    let run = |scalar: bool, hz: f32| -> (f32, f32, f32) {
        let dt = 1.0 / hz;
        let cfg = CrowdConfig {
            characters: n,
            sampling: Sampling::Cubic,
            transition: Transition::DeadBlend,
            dead_blend_halflives: DeadBlendHalflives::FITTED,
            ..Default::default()
        };
        let mut lanes = Crowd::new(&library, cfg.clone()).unwrap();
        let mut reference = ReferenceCrowd::new(&library, cfg).unwrap();
        let crowd: &mut dyn Stepped = if scalar { &mut reference } else { &mut lanes };
        for c in 0..n {
            let from = kineform::crowd::Source::looping(0, 0.1 * c as f32);
            crowd
                .command(c, kineform::crowd::Command::Play { a: from, b: from })
                .unwrap();
        }
        for _ in 0..(0.3 * hz).round() as usize {
            crowd.step(dt);
        }
        for c in 0..n {
            let held = kineform::crowd::Source {
                rate: 0.0,
                ..kineform::crowd::Source::looping(0, (0.37 * c as f32 + 0.5) % len)
            };
            let cmd = kineform::crowd::Command::Transition {
                a: held,
                b: held,
                duration: 0.5,
                halflife: 0.2,
            };
            crowd.command(c, cmd).unwrap();
        }
        let joints = crowd.library().skeleton().len() + 1;
        let (mut pos_gap, mut ang_gap, mut snap) = (0.0f32, 0.0f32, 0.0f32);
        let mut prev: Vec<Kform> = Vec::new();
        for k in 0..(0.6 * hz).round() as usize {
            crowd.step(dt);
            let cur: Vec<Kform> = (0..n * joints)
                .map(|i| crowd.world(i / joints, i % joints))
                .collect();
            if k >= 1 {
                for (a, b) in prev.iter().zip(&cur) {
                    let v = (a.vel + b.vel) * 0.5;
                    let fd = (b.pos - a.pos) / dt;
                    pos_gap = pos_gap.max(r::length(fd - v) / (1.0 + r::length(v)));
                    let w = (a.ang + b.ang) * 0.5;
                    let fdw = r::quat_differentiate_angular_velocity(b.rot, a.rot, dt);
                    ang_gap = ang_gap.max(r::length(fdw - w) / (1.0 + r::length(w)));
                    let turned =
                        2.0 * r::length(r::quat_log(r::quat_abs(r::quat_mul_inv(b.rot, a.rot))));
                    snap = snap.max(turned - r::length(a.ang).max(r::length(b.ang)) * dt);
                }
            }
            prev = cur;
        }
        (pos_gap, ang_gap, snap)
    };
    for scalar in [false, true] {
        let g = [120.0, 240.0, 480.0].map(|hz| run(scalar, hz));
        let kind = if scalar { "reference" } else { "lanes" };
        eprintln!(
            "MEASURE {kind} fitted dead blend, relative gaps (position, rotation, snap) at 120, 240, 480 Hz: {g:?}"
        );
        assert!(
            g[1].0 <= g[0].0 / 3.0 && g[1].1 <= g[0].1 / 3.0 && g[2].1 <= g[1].1 / 3.0,
            "{kind}: gaps {g:?} at 120, 240, 480 Hz"
        );
        let snap = g.iter().fold(0.0f32, |m, x| m.max(x.2));
        assert!(
            snap < 0.05f32.to_radians(),
            "{kind}: a joint turned {:.3}° beyond its angular velocity",
            snap.to_degrees()
        );
    }
}

/// Either crowd, stepped and read.
trait Stepped {
    fn command(&mut self, c: usize, cmd: kineform::crowd::Command) -> kineform::Result<()>;
    fn step(&mut self, dt: f32);
    fn world(&self, c: usize, j: usize) -> Kform;
    fn library(&self) -> &ClipLibrary;
}

impl Stepped for Crowd {
    fn command(&mut self, c: usize, cmd: kineform::crowd::Command) -> kineform::Result<()> {
        Crowd::command(self, c, cmd)
    }
    fn step(&mut self, dt: f32) {
        Crowd::step(self, dt).unwrap();
    }
    fn world(&self, c: usize, j: usize) -> Kform {
        self.world_kform(c, j).unwrap()
    }
    fn library(&self) -> &ClipLibrary {
        Crowd::library(self)
    }
}

impl Stepped for ReferenceCrowd {
    fn command(&mut self, c: usize, cmd: kineform::crowd::Command) -> kineform::Result<()> {
        ReferenceCrowd::command(self, c, cmd)
    }
    fn step(&mut self, dt: f32) {
        ReferenceCrowd::step(self, dt).unwrap();
    }
    fn world(&self, c: usize, j: usize) -> Kform {
        self.world_kform(c, j).unwrap()
    }
    fn library(&self) -> &ClipLibrary {
        ReferenceCrowd::library(self)
    }
}
