//! Walk and wave: characters walk (CMU 131_01) while their upper body
//! plays another clip (the embedded 102_01's arms: an override layer on
//! the chest's subtree, the chest itself half way so the spine blends
//! into it), with an additive lean of the lower back on top. The arms
//! fade in, jump to another part of their clip under a transition the
//! crowd hides, and fade out; every world pose keeps its velocities.
//! Prints one character's right hand as it goes.
//!
//! `cargo run --release --example layers`

use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, Layer, Mask, Source};
use kineform::reference::length;

const WALK: usize = 0;
const ARMS: usize = 1;
/// The layers, in the order the crowd's configuration gives them.
const UPPER: usize = 0;
const LEAN: usize = 1;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Both clips are CMU's 3dsMax conversion: one skeleton.
    let walk = kineform::bvh::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mocap/cmu_131_01_max.bvh"
    ))?;
    let arms = kineform::data::default_clip();
    let mut library = ClipLibrary::from_bvh(&walk)?;
    library.add(&arms.skeleton, &arms.clip)?;

    let characters = 16;
    let cfg = CrowdConfig {
        characters,
        layers: vec![
            // Replaces the pose below from the chest up.
            Layer::overriding(Mask::new().feathered("Chest", 1.0, 0.5)),
            // Adds the lower back's motion relative to its clip's frame 0.
            Layer::additive(Mask::new().subtree("lowerback", 1.0), 0),
        ],
        ..Default::default()
    };
    let mut crowd = Crowd::new(&library, cfg)?;
    for c in 0..characters {
        // 131_01 walks from about 1 s in; each character a little later.
        let walking = Source::looping(WALK, 1.0 + 0.1 * c as f32);
        crowd.play(c, walking, walking)?;
        // The arms start at weight 0 and fade in (a damped weight).
        crowd.play_layer(c, UPPER, Source::looping(ARMS, 0.05 * c as f32))?;
        crowd.layer_weight_toward(c, UPPER, 1.0, 0.15)?;
        crowd.play_layer(c, LEAN, Source::looping(ARMS, 0.5))?;
        crowd.set_layer_weight(c, LEAN, 0.5)?;
    }

    let hand = crowd.skeleton().find("rhand").ok_or("no joint rhand")?;
    let dt = 1.0 / 60.0;
    for frame in 0..=240 {
        match frame {
            // The arms jump to another part of their clip, hidden.
            100 => (0..characters).try_for_each(|c| {
                crowd.transition_layer(c, UPPER, Source::looping(ARMS, 1.2), 0.3, 0.1)
            })?,
            // The wave fades out.
            170 => {
                (0..characters).try_for_each(|c| crowd.layer_weight_toward(c, UPPER, 0.0, 0.1))?
            }
            _ => {}
        }
        crowd.step(dt)?;
        if frame % 20 == 0 {
            let k = crowd.world_kform(0, hand).ok_or("no pose")?;
            let upper = crowd.layer_state(0, UPPER).ok_or("no layer")?;
            println!(
                "{:4.2} s: arms at weight {:.2}; right hand at height {:6.1}, moving {:6.1} units/s",
                frame as f32 * dt,
                upper.weight,
                k.pos.y,
                length(k.vel)
            );
        }
    }
    Ok(())
}
