//! The domain the crowd tests generate (`tests/suite/commands/`), where
//! the 8-lane crowd and the reference are held to agree: the values
//! checked against it.

use kineform::crowd::{Command, Root, Source};
use kineform::reference::Vec3;

pub(super) fn within(x: f32, lo: f32, hi: f32) -> bool {
    x >= lo && x <= hi
}

fn vec_within(v: Vec3, r: f32) -> bool {
    v.to_array().iter().all(|x| within(*x, -r, r))
}

/// Whether an accepted command lies in the domain the crowd tests
/// generate, where lanes and reference are held to agree.
pub(super) fn tame_command(cmd: &Command) -> bool {
    let source = |s: &Source| within(s.time, -10.0, 10.0) && within(s.rate, -2.0, 2.0);
    match cmd {
        Command::Play { a, b } => source(a) && source(b),
        Command::Transition {
            a,
            b,
            duration,
            halflife,
        } => source(a) && source(b) && within(*duration, 0.05, 1.0) && within(*halflife, 0.05, 1.0),
        Command::SetWeight { .. } | Command::SetEnd { .. } => true,
        Command::SetLayerWeight { .. } | Command::SetBlendProfile { .. } => true,
        Command::WeightToward { halflife, .. } => within(*halflife, 0.05, 1.0),
        Command::LayerWeightToward { halflife, .. } => within(*halflife, 0.05, 1.0),
        Command::PlayLayer { source: s, .. } => source(s),
        Command::TransitionLayer {
            source: s,
            duration,
            halflife,
            ..
        } => source(s) && within(*duration, 0.05, 1.0) && within(*halflife, 0.05, 1.0),
        Command::SetRate { rate, .. } => within(*rate, -2.0, 2.0),
        Command::SetRoot(root) => tame_root(root),
        Command::SetPeriod { .. } => true,
    }
}

pub(super) fn tame_root(root: &Root) -> bool {
    let q = root.rot;
    let n = (q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z).sqrt();
    vec_within(root.pos, 50.0)
        && vec_within(root.vel, 30.0)
        && vec_within(root.ang, 2.0)
        && (n - 1.0).abs() <= 1e-6
}
