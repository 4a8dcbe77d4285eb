//! [`Wander::follow`]: the driver's roots moved and turned by the root
//! motion the crowd extracts, and the heading error it measures.

use super::Wander;
use crate::crowd::command::Driven;
use crate::error::Result;
use crate::reference::{self as r, Quat, Vec3};

impl Wander {
    /// After a step of `dt`: where the crowd extracts root motion and the
    /// driver follows it ([`super::WanderConfig::follow_root_motion`]), each
    /// character's root moved by the step's displacement and turned by its
    /// turn about +y, then handed to the crowd for the next step
    /// ([`Driven::set_roots`]); else nothing. Measures the heading error
    /// ([`Wander::heading_error`]).
    pub fn follow(&mut self, crowd: &mut impl Driven, dt: f32) -> Result<()> {
        if !self.cfg.follow_root_motion || crowd.root_motion(0).is_none() {
            return Ok(());
        }
        let n = crowd.characters().min(self.walkers.len());
        let library = crowd.library();
        let up = Vec3::new(0.0, 1.0, 0.0);
        self.roots.clear();
        for (c, w) in self.walkers.iter_mut().enumerate().take(n) {
            let d = crowd.root_motion(c).unwrap_or_default();
            w.root.pos += d.displacement;
            let turn = r::quat_from_angle_axis(d.turn, up);
            w.root.rot = r::quat_normalize(r::quat_mul(turn, w.root.rot));
            self.roots.push(w.root);
            // The clip's own heading at source A's time, against the
            // heading the reported turns add up to since the sources were
            // set (the step that set them reports its velocities times
            // dt, and is where the comparison starts).
            // A crowd of fewer clips than the one the driver last played
            // (another crowd handed to `follow`): nothing to measure.
            let Some(clip) = library.clips().get(w.clip) else {
                w.fresh = true;
                continue;
            };
            let heading = r::quat_twist(clip_root_rotation(clip, w.times[0]), up);
            if std::mem::take(&mut w.fresh) {
                (w.heading_from, w.turned, w.since) = (heading, 0.0, 0.0);
                continue;
            }
            w.turned += d.turn;
            w.since += dt;
            let own = r::twist_angle(r::quat_inv_mul(w.heading_from, heading), up);
            let off = (w.turned - own + core::f32::consts::PI).rem_euclid(core::f32::consts::TAU)
                - core::f32::consts::PI;
            let e = match w.since > self.cfg.blend_duration {
                true => &mut self.heading_error.0,
                false => &mut self.heading_error.1,
            };
            *e = e.max(off.abs());
        }
        crowd.set_roots(0, &self.roots)
    }

    /// The largest heading error (radians) [`Wander::follow`] measured:
    /// between the heading a root was turned to by the reported turns and
    /// its clip's own root's heading change (source A's, linearly sampled),
    /// both since the character's sources were last set; once their
    /// transition has finished, and while it runs (the transition blends
    /// the heading's rate, so the heading drifts from the new clip's by
    /// what the offset turns it, and comes back as it decays).
    pub fn heading_error(&self) -> (f32, f32) {
        self.heading_error
    }
}

/// The clip's root joint's rotation at `time`, linearly sampled (the
/// frames around it slerped the short way).
fn clip_root_rotation(clip: &crate::Clip, time: f32) -> Quat {
    let ft = clip.frame_time();
    let last = clip.frames() - 1;
    let x = (time / ft).clamp(0.0, last as f32);
    let f = (x.floor() as usize).min(last);
    let (q0, q1) = (clip.rot_at(f, 0), clip.rot_at((f + 1).min(last), 0));
    r::quat_slerp_shortest(q0, q1, x - f as f32)
}
