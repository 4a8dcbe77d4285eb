//! A slice of batch FK output as a .glb that Blender and web viewers open:
//! 4 characters on the embedded CMU clip, each at its own offset in time
//! and place, 2 seconds at 30 frames per second, world positions and
//! rotations copied out every frame (as a game copies a runtime's output)
//! and written with `gltf::write_world_glb`.
//!
//! `cargo run --release --example gltf_export [OUT.glb]`

use kineform::reference::{Kform, Quat, Vec3};
use kineform::stream::CrowdPose;
use kineform::{batch, data, gltf, output};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("kineform_crowd.glb"));
    let b = data::default_clip();
    let (skeleton, clip) = (b.skeleton, b.clip);
    let (characters, joints, fps, frames) = (4, skeleton.len(), 30.0f32, 60);

    let mut local = CrowdPose::new(characters, joints)?;
    let mut world = CrowdPose::new(characters, joints)?;
    let (mut positions, mut rotations) = (Vec::new(), Vec::new());
    let mut frame_pos = vec![Vec3::ZERO; characters * joints];
    let mut frame_rot = vec![Quat::IDENTITY; characters * joints];
    for f in 0..frames {
        let times: Vec<f32> = (0..characters)
            .map(|c| (f as f32 / fps + 0.4 * c as f32) % clip.last_time())
            .collect();
        batch::crowd::op_sample_linear(&mut local, &clip, &times)?;
        // Place the characters side by side: shift each root.
        for c in 0..characters {
            let root = local.get(c, 0).unwrap_or(Kform::IDENTITY);
            let shift = Vec3::new(40.0 * c as f32, 0.0, 0.0);
            local.set(
                c,
                0,
                Kform {
                    pos: root.pos + shift,
                    ..root
                },
            );
        }
        batch::crowd::op_fk(&mut world, &local, &skeleton)?;
        output::positions(world.packed(), &mut frame_pos)?;
        output::rotations(world.packed(), &mut frame_rot)?;
        positions.extend_from_slice(&frame_pos);
        rotations.extend_from_slice(&frame_rot);
    }
    let glb = gltf::write_world_glb(&gltf::WorldFrames {
        skeleton: &skeleton,
        characters,
        frame_time: 1.0 / fps,
        positions: &positions,
        rotations: &rotations,
    })?;
    std::fs::write(&out, &glb)?;
    // Read it back: the file is a valid glTF 2.0 document.
    let doc = gltf::parse(&glb, fps)?;
    println!(
        "{} characters x {joints} joints x {frames} frames -> {} ({} bytes; {} nodes, {} frames read back)",
        characters,
        out.display(),
        glb.len(),
        doc.skeleton.len(),
        doc.clips[0].clip.frames()
    );
    Ok(())
}
