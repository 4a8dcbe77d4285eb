//! Loop a BVH clip (article "Creating Looping Animations from Motion
//! Capture") and write it: the first and last frames meet, with the
//! correction spread by cubic inertializers over 0.3 s at each end; the
//! root loops in character space so the character keeps walking.
//!
//! `cargo run --release --example loop_clip [IN.bvh [OUT.bvh]]`

use kineform::batch::looping::{LoopMethod, LoopOptions, make_loop};
use kineform::bvh;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let input = args.next().unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/mocap/cmu_12_01_walk_mb.bvh"
        )
        .into()
    });
    let output = args
        .next()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("kineform_loop.bvh"));
    let b = bvh::load(&input)?;
    let options = LoopOptions {
        method: LoopMethod::Cubic {
            blendtime_start: 0.3,
            blendtime_end: 0.3,
        },
        ratio: 0.5,
        root_in_character_space: true,
    };
    let looped = make_loop(&b.clip, &options)?;
    // The seam: largest gap between the last and first frame's local
    // rotations (quaternion components) over the joints below the root.
    let seam = |c: &kineform::Clip| {
        (1..c.joints())
            .flat_map(|j| {
                let (p, q) = (c.rot(c.frames() - 1, j).unwrap(), c.rot(0, j).unwrap());
                let s = if p.w * q.w + p.x * q.x + p.y * q.y + p.z * q.z < 0.0 {
                    -1.0
                } else {
                    1.0
                };
                [p.w - s * q.w, p.x - s * q.x, p.y - s * q.y, p.z - s * q.z]
            })
            .fold(0.0f32, |m, d| m.max(d.abs()))
    };
    std::fs::write(&output, bvh::write(&b, &looped)?)?;
    println!(
        "{input}: {} frames; seam gap {:.4} before, {:.6} after; written to {}",
        b.clip.frames(),
        seam(&b.clip),
        seam(&looped),
        output.display()
    );
    Ok(())
}
