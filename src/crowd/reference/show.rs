//! What a character of the reference crowd shows at the end of its frame
//! ([`show`]): its pose checked against the last frame's ([`ref_check`],
//! the velocity check, and [`pose_finite`]) and its bounding box; and the
//! frame of a character that level of detail carries
//! ([`ref_carry_frame`]).

use super::bounds::ref_bounds;
use super::lod::{CharLod, ref_carried};
use super::step::Crowdwide;
use super::{RefScratch, RefState};
use crate::crowd::check::GapAt;
use crate::crowd::{CrowdConfig, RootDelta, RootMotion, VelocityCheck};
use crate::reference::{self as r, Pose, Vec3};

/// `pose` becomes what character `ch` shows: checked against what it
/// showed last step ([`ref_check`]), and its bounding box.
pub(super) fn show(
    cfg: &CrowdConfig,
    pose: &Pose,
    ch: &mut RefState,
    (character, frame, dt): (usize, u64, f32),
) -> VelocityCheck {
    let bounds = ref_bounds(pose, &cfg.joint_radii, pose_finite(pose));
    let check = match frame != 0 && cfg.velocity_check {
        true => {
            let mut c = ref_check(pose, &ch.world, (character, frame, dt));
            // The rounding floor from the character's box, as the 8-lane
            // crowd takes it (`check::rounding_gap`).
            let reach = [bounds.min, bounds.max]
                .iter()
                .flat_map(|v| v.to_array())
                .fold(0.0f32, |m, x| m.max(x.abs()));
            if c.non_finite == 0 {
                c.rounding = crate::crowd::check::rounding_gap(reach, dt);
            }
            c
        }
        // Without the check (or before it has a previous frame), output
        // that is not finite is counted all the same (issue 21).
        false => VelocityCheck {
            non_finite: !pose_finite(pose) as u64,
            ..VelocityCheck::default()
        },
    };
    ch.world.clone_from(pose);
    ch.bounds = bounds;
    check
}

/// A character not evaluated this step (level of detail): it shows its
/// carried pose ([`ref_carried`]), and where the crowd extracts root
/// motion, its last step's velocity and turn rate and those times `dt`.
pub(super) fn ref_carry_frame(
    crowd: &Crowdwide,
    ch: &mut RefState,
    s: &mut RefScratch,
    lod: &CharLod,
    at: (usize, u64, f32),
) -> VelocityCheck {
    let dt = at.2;
    ref_carried(&mut s.carried, ch, lod);
    if crowd.cfg.root_motion == RootMotion::Extract {
        let m = ch.root_motion;
        ch.root_motion = RootDelta {
            displacement: m.velocity * dt,
            velocity: m.velocity,
            turn: m.turn_rate * dt,
            turn_rate: m.turn_rate,
        };
    }
    show(crowd.cfg, &s.carried, ch, at)
}

/// The velocity check of a character's world pose `now` against the
/// previous frame's `before` ([`VelocityCheck`]).
fn ref_check(
    now: &Pose,
    before: &Pose,
    (character, frame, dt): (usize, u64, f32),
) -> VelocityCheck {
    let mut check = VelocityCheck::default();
    // Output that is not finite, judged on the output (a gap that
    // overflows on finite output is a failed check, as in the 8-lane
    // crowd: found by the `clips_from_values` fuzz target).
    let finite = pose_finite(now);
    for k in 0..now.len() {
        // As the 8-lane check: the gap times dt, `|Δpos - (v + v_prev)
        // dt/2|`, divided by dt.
        let e = (now.pos[k] - before.pos[k]) - (now.vel[k] + before.vel[k]) * (0.5 * dt);
        let gap = r::length(e) / dt;
        if gap > check.max_gap || check.worst.is_none() {
            check.max_gap = gap;
            check.worst = Some(GapAt {
                character,
                joint: k,
                frame,
            });
        }
        check.sum_gap += gap as f64;
        check.samples += 1;
        check.max_speed = check.max_speed.max(r::length(now.vel[k]));
    }
    if !finite {
        check = VelocityCheck {
            samples: check.samples,
            non_finite: 1,
            ..VelocityCheck::default()
        };
    }
    check
}
/// Whether every position, rotation, velocity and angular velocity of
/// `pose` is finite (what a crowd hands a game).
fn pose_finite(pose: &Pose) -> bool {
    let v = |v: &[Vec3]| {
        v.iter()
            .all(|p| [p.x, p.y, p.z].iter().all(|x| x.is_finite()))
    };
    v(&pose.pos)
        && v(&pose.vel)
        && v(&pose.ang)
        && pose
            .rot
            .iter()
            .all(|q| [q.w, q.x, q.y, q.z].iter().all(|x| x.is_finite()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 21, defect 4: the reference crowd's count of output that is
    /// not finite, which runs with the velocity check off, sees a NaN or
    /// an infinity in any field a game reads, and not huge finite values.
    #[test]
    fn defect_4_pose_finite_sees_every_field_a_game_reads() {
        let mut pose = Pose::new(3);
        pose.pos[1] = Vec3::splat(3e38);
        assert!(pose_finite(&pose));
        for field in 0..4 {
            let mut p = pose.clone();
            match field {
                0 => p.pos[2].y = f32::NAN,
                1 => p.vel[0].z = f32::INFINITY,
                2 => p.ang[1].x = f32::NEG_INFINITY,
                _ => p.rot[2].w = f32::NAN,
            }
            assert!(!pose_finite(&p), "field {field}");
        }
    }
}
