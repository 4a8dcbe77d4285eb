//! Batch forward kinematics over a crowd pose: 1,000 characters, each
//! sampling the embedded CMU clip at its own time (velocities included),
//! carried to world space, and copied out one transform per character and
//! joint as a game would upload them.
//!
//! `cargo run --release --example fk_stream`

use std::time::Instant;

use kineform::stream::CrowdPose;
use kineform::{batch, data, output, reference::Vec3};

fn main() -> kineform::Result<()> {
    let clip = data::default_clip();
    let (skeleton, clip) = (clip.skeleton, clip.clip);
    let (characters, joints) = (1000, skeleton.len());

    // Character c plays the clip at its own time (seconds).
    let times: Vec<f32> = (0..characters)
        .map(|c| (c as f32 * 0.013) % clip.last_time())
        .collect();
    let mut local = CrowdPose::new(characters, joints)?;
    let mut world = CrowdPose::new(characters, joints)?;
    let start = Instant::now();
    batch::crowd::op_sample_linear(&mut local, &clip, &times)?;
    batch::crowd::op_fk(&mut world, &local, &skeleton)?;
    let took = start.elapsed();

    // One position per character and joint, character-major.
    let mut positions = vec![Vec3::ZERO; characters * joints];
    output::positions(world.packed(), &mut positions)?;
    let head = skeleton.find("Head").unwrap_or(joints - 1);
    let k = world.get(7, head).expect("character 7 exists");
    println!(
        "{characters} characters x {joints} joints sampled and carried to world space in {:.2} ms ({} SIMD)",
        took.as_secs_f64() * 1e3,
        kineform::simd_backend()
    );
    println!(
        "character 7's {} at {:?}, moving at {:?} units/s",
        skeleton.names()[head],
        positions[7 * joints + head],
        k.vel
    );
    Ok(())
}
