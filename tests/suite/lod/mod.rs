//! Level of detail (issue 25): characters evaluated every `n`th step and
//! carried along their world velocities between (`kineform::crowd::schedule`).
//! Both crowds agreeing under generated commands with periods on is
//! `commands::both_crowds_agree_under_generated_commands`; continuity at
//! 60 to 480 Hz with periods mixed and changing is
//! `continuity::level_of_detail`. Here: periods refused out of range, no
//! pop when a character moves from every 4th step to every step, and the
//! error of each period against the crowd evaluated every step.

use crate::crowds::matrices::{check_matrices, periods_mixed, some_bind, step_mixed};
use crate::crowds::*;

use kineform::Error;
use kineform::crowd::{
    ClipEnd, Command, Crowd, CrowdConfig, FrameStats, ReferenceCrowd, Sampling, Source,
};
use kineform::crowd::{Root, RootMotion};
use kineform::reference::{self as r, Kform, Vec3};

fn lod_cfg(characters: usize) -> CrowdConfig {
    CrowdConfig {
        characters,
        level_of_detail: true,
        velocity_check: true,
        sampling: Sampling::Cubic,
        ..Default::default()
    }
}

/// Every character's world joint transforms, character-major.
pub(crate) fn pose(crowd: &Crowd) -> Vec<Kform> {
    let (n, joints) = (crowd.characters(), crowd.skeleton().len());
    (0..n)
        .flat_map(|c| (0..joints).map(move |j| (c, j)))
        .map(|(c, j)| crowd.world_kform(c, j).unwrap())
        .collect()
}

/// Largest velocity gap `|(p₁ - p₀) / dt - (v₀ + v₁) / 2|` and largest
/// turn beyond the angular velocities (radians) between two poses `dt`
/// apart.
pub(crate) fn step_gaps(prev: &[Kform], cur: &[Kform], dt: f32) -> (f32, f32) {
    let (mut gap, mut snap) = (0.0f32, 0.0f32);
    for (a, b) in prev.iter().zip(cur) {
        gap = gap.max(r::length((b.pos - a.pos) / dt - (a.vel + b.vel) * 0.5));
        let turned = 2.0 * r::length(r::quat_log(r::quat_abs(r::quat_mul_inv(b.rot, a.rot))));
        snap = snap.max(turned - r::length(a.ang).max(r::length(b.ang)) * dt);
    }
    (gap, snap)
}

mod accuracy;
mod periods;
mod readers;
