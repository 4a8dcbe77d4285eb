//! The cheapest transitions between two clips by the inertialization
//! transition cost (article "Inertialization Transition Cost"): each frame's
//! joint positions and velocities in character space become spring
//! features `2 x / y + v / y²` (`batch::cost::transition_features_spring`),
//! and the cost of jumping from frame `i` of one clip to frame `j` of the
//! other is the squared distance between their features.
//!
//! `cargo run --release --example transition_cost [A.bvh B.bvh]`

use kineform::reference::Vec3;
use kineform::stream::{CrowdPose, Vec3Stream};
use kineform::{Clip, Skeleton, batch, bvh};

/// Character-space positions (relative to the root) and velocities of every
/// frame and joint, frame-major: FK of all frames at once, a frame per
/// "character" of a crowd pose.
fn features(skeleton: &Skeleton, clip: &Clip, halflife: f32) -> kineform::Result<Vec<Vec3>> {
    let (frames, joints) = (clip.frames(), clip.joints());
    let times: Vec<f32> = (0..frames).map(|f| f as f32 * clip.frame_time()).collect();
    let (mut local, mut world) = (
        CrowdPose::new(frames, joints)?,
        CrowdPose::new(frames, joints)?,
    );
    batch::crowd::op_sample_linear(&mut local, clip, &times)?;
    batch::crowd::op_fk(&mut world, &local, skeleton)?;
    let mut pos = vec![Vec3::ZERO; frames * joints];
    kineform::output::positions(world.packed(), &mut pos)?;
    let mut vel = vec![Vec3::ZERO; frames * joints];
    for f in 0..frames {
        let (a, b) = (f.saturating_sub(1), (f + 1).min(frames - 1));
        for j in 0..joints {
            vel[f * joints + j] = (pos[b * joints + j] - pos[a * joints + j])
                / ((b - a).max(1) as f32 * clip.frame_time());
        }
    }
    for f in 0..frames {
        let root = pos[f * joints];
        for j in 0..joints {
            pos[f * joints + j] -= root;
        }
    }
    let mut out = Vec3Stream::new(frames * joints)?;
    batch::cost::transition_features_spring(
        &mut out,
        &Vec3Stream::from_elems(&pos)?,
        &Vec3Stream::from_elems(&vel)?,
        halflife,
    )?;
    Ok(out.to_vec())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/mocap/");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (a, b) = match args.as_slice() {
        [a, b] => (a.clone(), b.clone()),
        _ => (
            format!("{dir}cmu_01_01_mb.bvh"),
            format!("{dir}cmu_01_03_mb.bvh"),
        ),
    };
    let (ca, cb) = (bvh::load(&a)?, bvh::load(&b)?);
    if ca.skeleton.parents() != cb.skeleton.parents() {
        return Err("the two clips need the same skeleton".into());
    }
    let halflife = 0.1;
    let (fa, fb) = (
        features(&ca.skeleton, &ca.clip, halflife)?,
        features(&cb.skeleton, &cb.clip, halflife)?,
    );
    let joints = ca.skeleton.len();
    // Every 4th frame of each: the cost of jumping from a frame of A to one of B.
    let mut best: Vec<(f32, usize, usize)> = Vec::new();
    for i in (0..ca.clip.frames()).step_by(4) {
        for j in (0..cb.clip.frames()).step_by(4) {
            let cost: f32 = (0..joints)
                .map(|k| {
                    let d = fa[i * joints + k] - fb[j * joints + k];
                    d.x * d.x + d.y * d.y + d.z * d.z
                })
                .sum();
            best.push((cost, i, j));
        }
    }
    best.sort_by(|x, y| x.0.total_cmp(&y.0));
    println!("cheapest transitions from {a} to {b} (half-life {halflife} s):");
    for (cost, i, j) in best.iter().take(5) {
        println!("  frame {i:5} -> frame {j:5}: cost {cost:.1}");
    }
    Ok(())
}
