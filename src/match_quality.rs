//! What `kineform match --quality` measures of a matching crowd (issue 26
//! item 4, the transition-cost article's comparison): the exact
//! displacement each transition makes on the feet, and foot sliding.
//!
//! - **Transition cost.** At each transition, the feet's positions and
//!   velocities of the pose the character shows (read from the crowd's
//!   output before the step, the pose its query was built from), in the
//!   character frame under its hips, minus those of the destination frame
//!   in its own character frame (as the features take them): per axis
//!   `x` and `v`, the exact displacement the inertializer makes,
//!   `decay_spring_damper_displacement(x, v, 0.1)` (the spring feature's
//!   half-life) and `decay_cubic_displacement(x, v, 0.3)` (the cubic
//!   feature's blend time, the driver's blend duration), summed over the
//!   six axes of the two feet; units·s.
//! - **Foot sliding.** A foot is in contact in a frame when its joint (the
//!   ankle) is at most a margin (`--contact-margin`, [`CONTACT_MARGIN`]
//!   by default) above the lowest feet: the
//!   1st percentile of the feet's heights over the database's searched
//!   frames. Sliding is the mean ground speed (`x`, `z`) of feet in
//!   contact at both ends of a frame, from their world positions
//!   (`|Δp| / dt`), the roots' motion included: what a viewer sees. The
//!   same measure on the clips as recorded (central-difference velocities
//!   of the database's frames) is the floor the mocap itself has.

use kineform::crowd::{Crowd, Matcher};
use kineform::matching::{CharacterFrame, FrameInputs, MatchDatabase};
use kineform::reference::{Vec3, decay_cubic_displacement, decay_spring_damper_displacement};

/// Units above the lowest feet a foot may be and be in contact, by
/// default (2 CMU units, about 11 cm).
pub const CONTACT_MARGIN: f32 = 2.0;

/// The spring inertializer's half-life the cost is taken at, seconds.
pub const COST_HALFLIFE: f32 = 0.1;

/// The cubic inertializer's blend time the cost is taken at, seconds.
pub const COST_BLENDTIME: f32 = 0.3;

/// The measures, summed over a run.
pub struct Quality {
    inputs: Vec<FrameInputs>,
    contact: f32,
    prev: Vec<[Vec3; 2]>,
    spring_cost: f64,
    cubic_cost: f64,
    transitions: u64,
    slide_sum: f64,
    slide_samples: u64,
    foot_samples: u64,
}

/// A foot's position and velocity in its character frame.
fn local(frame: &CharacterFrame, pos: Vec3, vel: Vec3) -> (Vec3, Vec3) {
    (frame.to_local(pos), frame.dir_to_local(vel))
}

impl Quality {
    /// Ready to measure a crowd matching on `db` (built from `library`).
    pub fn new(
        db: &MatchDatabase,
        library: &kineform::crowd::ClipLibrary,
        margin: f32,
    ) -> kineform::Result<Quality> {
        let inputs = MatchDatabase::frame_inputs(library, db.config())?;
        let mut heights: Vec<f32> = inputs
            .iter()
            .filter(|i| i.searchable)
            .flat_map(|i| [i.pose.left_foot_pos.y, i.pose.right_foot_pos.y])
            .collect();
        heights.sort_by(f32::total_cmp);
        // A database built from `library` has a searchable frame; one from
        // another library may not: refused, not indexed past the end.
        let Some(&low) = heights.get(heights.len() / 100) else {
            return Err(kineform::Error::Length {
                what: "searchable frames of the library (at least 1, for the contact height)",
                expected: 1,
                got: 0,
            });
        };
        let contact = low + margin;
        Ok(Quality {
            inputs,
            contact,
            prev: Vec::new(),
            spring_cost: 0.0,
            cubic_cost: 0.0,
            transitions: 0,
            slide_sum: 0.0,
            slide_samples: 0,
            foot_samples: 0,
        })
    }

    /// The height under which a foot is in contact.
    pub fn contact_height(&self) -> f32 {
        self.contact
    }

    /// After [`Matcher::update`], before the step: the cost of each
    /// transition it gave.
    pub fn transitions(&mut self, crowd: &Crowd, m: &Matcher, db: &MatchDatabase) {
        let j = db.joints();
        for &(c, f) in m.last_transitions() {
            let kf = |k: usize| crowd.world_kform(c, k + 1).unwrap_or_default();
            let (hips, lf, rf) = (kf(j.hips), kf(j.left_foot), kf(j.right_foot));
            let frame = CharacterFrame::from_hips(hips.pos, hips.rot, j.forward);
            let d = &self.inputs[f];
            let src = [local(&frame, lf.pos, lf.vel), local(&frame, rf.pos, rf.vel)];
            let dst = [
                local(&d.frame, d.pose.left_foot_pos, d.pose.left_foot_vel),
                local(&d.frame, d.pose.right_foot_pos, d.pose.right_foot_vel),
            ];
            for ((sp, sv), (dp, dv)) in src.into_iter().zip(dst) {
                let (x, v) = ((sp - dp).to_array(), (sv - dv).to_array());
                for k in 0..3 {
                    self.spring_cost +=
                        f64::from(decay_spring_damper_displacement(x[k], v[k], COST_HALFLIFE));
                    self.cubic_cost +=
                        f64::from(decay_cubic_displacement(x[k], v[k], COST_BLENDTIME));
                }
            }
            self.transitions += 1;
        }
    }

    /// After the step and [`Matcher::follow`]: the feet in contact and
    /// how fast they slide over the frame of `dt`.
    pub fn feet(&mut self, crowd: &Crowd, db: &MatchDatabase, dt: f32) {
        let j = db.joints();
        let n = crowd.characters();
        let first = self.prev.is_empty();
        self.prev.resize(n, [Vec3::ZERO; 2]);
        for (c, prev) in self.prev.iter_mut().enumerate() {
            let pos = |k: usize| crowd.world_kform(c, k + 1).unwrap_or_default().pos;
            let now = [pos(j.left_foot), pos(j.right_foot)];
            if !first {
                for (a, b) in prev.iter().zip(&now) {
                    self.foot_samples += 1;
                    if a.y <= self.contact && b.y <= self.contact {
                        let (dx, dz) = (b.x - a.x, b.z - a.z);
                        self.slide_sum += f64::from((dx * dx + dz * dz).sqrt() / dt);
                        self.slide_samples += 1;
                    }
                }
            }
            *prev = now;
        }
    }

    /// Mean exact displacement of a transition: (spring, cubic).
    pub fn mean_cost(&self) -> (f64, f64) {
        let t = self.transitions.max(1) as f64;
        (self.spring_cost / t, self.cubic_cost / t)
    }

    /// Mean ground speed of feet in contact, and the share of foot
    /// samples in contact.
    pub fn sliding(&self) -> (f64, f64) {
        (
            self.slide_sum / self.slide_samples.max(1) as f64,
            self.slide_samples as f64 / self.foot_samples.max(1) as f64,
        )
    }

    /// The same measure on the database's searched frames as recorded:
    /// mean ground speed of feet in contact, share in contact.
    pub fn clips_sliding(&self) -> (f64, f64) {
        let (mut sum, mut n, mut all) = (0.0f64, 0u64, 0u64);
        for i in self.inputs.iter().filter(|i| i.searchable) {
            for (p, v) in [
                (i.pose.left_foot_pos, i.pose.left_foot_vel),
                (i.pose.right_foot_pos, i.pose.right_foot_vel),
            ] {
                all += 1;
                if p.y <= self.contact {
                    sum += f64::from((v.x * v.x + v.z * v.z).sqrt());
                    n += 1;
                }
            }
        }
        (sum / n.max(1) as f64, n as f64 / all.max(1) as f64)
    }
}
