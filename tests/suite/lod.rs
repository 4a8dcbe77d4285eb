//! Level of detail (issue 25): characters evaluated every `n`th step and
//! carried along their world velocities between.

use crate::crowds::*;

use kineform::crowd::{Crowd, CrowdConfig, ReferenceCrowd, Transition};

fn lod_cfg(characters: usize) -> CrowdConfig {
    CrowdConfig {
        characters,
        level_of_detail: true,
        velocity_check: true,
        transition: if std::env::var("DEAD").is_ok() {
            Transition::DeadBlend
        } else {
            Transition::Inertialize
        },
        ..Default::default()
    }
}

#[test]
fn debug_lod_agree() {
    let library = embedded();
    let mut lanes = Crowd::new(&library, lod_cfg(11)).unwrap();
    let mut reference = ReferenceCrowd::new(&library, lod_cfg(11)).unwrap();
    for c in 0..11 {
        let (period, phase) = if c < 8 {
            (1u32 << (c % 4), c as u32 % (1 << (c % 4)))
        } else {
            (4, 1)
        };
        lanes.set_period(c, period, phase).unwrap();
        reference.set_period(c, period, phase).unwrap();
    }
    for f in 0..20 {
        if f == 2 {
            let a = kineform::crowd::Source::looping(0, 0.34);
            lanes.transition(10, a, a, 0.5, 0.07).unwrap();
            reference.transition(10, a, a, 0.5, 0.07).unwrap();
        }
        lanes.step(1.0 / 60.0).unwrap();
        reference.step(1.0 / 60.0).unwrap();
        for c in 0..11 {
            let mut run = Run::default();
            run.compare_character(&lanes, &reference, c);
            if !run.diffs.within() {
                let a = lanes.world_kform(c, 5).unwrap();
                let b = reference.world_kform(c, 5).unwrap();
                panic!("frame {f} character {c}: {:?}\n{:?}\n{:?}", run.diffs, a, b);
            }
        }
    }
}
