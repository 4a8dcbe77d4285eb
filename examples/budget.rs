//! A frame budget: 4,000 characters on a grid, a camera sweeping over
//! them, and the crowd choosing each character's update period so that
//! its steps spend about 0.3 ms of CPU time (summed over threads),
//! the characters nearest the camera evaluated every frame and the far
//! ones every 4th, 8th or 16th, carried along their own velocities
//! between. Each frame the game reads the characters' boxes (as it would
//! for culling), gives their closeness to the camera as significance,
//! steps, and updates the skinning matrices of the characters the step
//! evaluated (the others show the ones of their last evaluation: reading
//! a carried pose costs about what its evaluation saved); every half
//! second it prints what the allocator chose.
//!
//! `cargo run --release --example budget`

use kineform::crowd::{Aabb, Budget, ClipLibrary, Crowd, CrowdConfig, Root, Source};
use kineform::reference::{Kform, Vec3};
use kineform::skinning::InverseBind;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
    let (characters, spacing) = (4_000, 60.0);
    let cfg = CrowdConfig {
        characters,
        level_of_detail: true,
        ..Default::default()
    };
    let mut crowd = Crowd::new(&library, cfg)?;
    let cols = 64;
    let len = library.clips()[0].last_time();
    for c in 0..characters {
        let place = Vec3::new((c % cols) as f32, 0.0, (c / cols) as f32) * spacing;
        crowd.set_root(c, Root::standing(place, 0.0))?;
        let walk = Source::looping(0, (c as f32 * 0.37) % len);
        crowd.play(c, walk, walk)?;
    }
    crowd.set_budget(Some(Budget::measured(0.3e-3)))?;

    let (dt, width) = (1.0 / 60.0, cols as f32 * spacing);
    let mut boxes = vec![Aabb::ZERO; characters];
    let mut closeness = vec![0.0f32; characters];
    // The bind pose: every joint at the origin (a real mesh's comes from
    // its file); the renderer's matrices, kept across frames.
    let joints = crowd.skeleton().len();
    let bind = InverseBind::from_bind_pose(crowd.skeleton(), &vec![Kform::IDENTITY; joints])?;
    let mut skin = vec![[0.0f32; 12]; characters * joints];
    for frame in 0..=120 {
        // The camera sweeps along the grid's rows and back in 4 s.
        let t = frame as f32 * dt;
        let camera = Vec3::new(
            width * (0.5 - 0.5 * (t * std::f32::consts::FRAC_PI_2).cos()),
            0.0,
            width * 0.5,
        );
        for (close, b) in closeness.iter_mut().zip(&boxes) {
            let d = b.center() - camera;
            *close = -(d.x * d.x + d.z * d.z).sqrt();
        }
        crowd.set_significance(0, &closeness)?;
        let stats = crowd.step(dt)?;
        crowd.bounds_into(0..characters, &mut boxes)?;
        crowd.skinning_matrices_evaluated_into(0..characters, &bind, &mut skin)?;
        if let Some(b) = stats.budget.filter(|_| frame % 30 == 0) {
            println!(
                "frame {frame:3}: {} evaluated; characters at periods 1/2/4/8/16: {:?}; expected {:.3} ms, spent {:.3} ms",
                stats.evaluated,
                b.characters_at,
                b.expected_seconds * 1e3,
                b.measured_seconds * 1e3
            );
        }
    }
    Ok(())
}
