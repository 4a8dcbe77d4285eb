//! What the crowds are built from: the clip library (the embedded CMU
//! clip, perhaps with an excerpt of it, and markers) and a
//! [`CrowdConfig`] with every field chosen (sizes of 0 to 40 characters
//! and now and then an `ABSURD` one; layers and blend profiles in some
//! configurations).

use std::sync::OnceLock;

use kineform::crowd::{
    BlendProfile, ClipLibrary, ClipStorage, CrowdConfig, DeadBlendHalflives, Joints, Layer, Mask,
    RootMotion, Sampling, Transition,
};

use super::Bytes;

/// An upper-body override and an additive on the lower back (its
/// reference frame chosen), now and then a mask naming no joint.
fn layers(b: &mut Bytes) -> Vec<Layer> {
    let upper = match b.u8() % 16 {
        0 => Mask::new().subtree("Spine9", 1.0),
        _ => Mask::new().feathered("Chest", 1.0, 0.5),
    };
    let frame = b.u16() as usize;
    vec![
        Layer::overriding(upper),
        Layer::additive(Mask::new().subtree("lowerback", 1.0), frame),
    ]
}

/// Legs a third of the way, hands snapping.
fn profiles() -> Vec<BlendProfile> {
    vec![
        BlendProfile::new()
            .scale(Joints::subtree("LHipJoint"), 0.3)
            .scale(Joints::subtree("RHipJoint"), 0.3)
            .snap(Joints::named(&["lhand", "rhand"])),
    ]
}

/// The embedded CMU clip, parsed once.
fn embedded() -> &'static (kineform::bvh::Bvh, ClipLibrary) {
    static LIB: OnceLock<(kineform::bvh::Bvh, ClipLibrary)> = OnceLock::new();
    LIB.get_or_init(|| {
        let b = kineform::data::default_clip();
        let lib = ClipLibrary::from_bvh(&b).expect("the embedded clip makes a library");
        (b, lib)
    })
}

/// Absurd crowd sizes: each must be refused with a typed error.
const ABSURD: [usize; 6] = [
    usize::MAX,
    usize::MAX - 7,
    usize::MAX / 2,
    isize::MAX as usize,
    1 << 40,
    1 << 50,
];

/// The library: the embedded clip, perhaps an excerpt of it as well, and
/// a few markers at any time (refused ones add nothing).
pub(super) fn library(b: &mut Bytes) -> ClipLibrary {
    let (bvh, base) = embedded();
    let mut library = base.clone();
    if b.u8().is_multiple_of(4) {
        let frames = bvh.clip.frames();
        let start = b.u16() as usize % (frames + 4);
        let end = start.saturating_add(b.u16() as usize % (frames + 4));
        match bvh.clip.excerpt(start..end) {
            Ok(clip) => {
                library
                    .add(&bvh.skeleton, &clip)
                    .expect("an excerpt of a library clip is accepted");
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                assert!(
                    start >= end || end > frames,
                    "excerpt {start}..{end} refused: {e}"
                );
            }
        }
    }
    let clips = library.len();
    // Markers: a few, at any time (refused ones add nothing).
    for _ in 0..b.u8() % 4 {
        let clip = b.u8() as usize % clips;
        let time = b.f32(0.0, library.clips()[clip].last_time());
        if let Err(e) = library.add_marker(clip, "m", time) {
            assert!(!e.to_string().is_empty());
        }
    }
    library
}

/// The configuration, every field chosen.
pub(super) fn config(b: &mut Bytes, library: &ClipLibrary) -> CrowdConfig {
    let sel = b.u8();
    let characters = if sel < 244 {
        b.u8() as usize % 41
    } else {
        ABSURD[sel as usize % ABSURD.len()]
    };
    let flags = b.u8();
    let clip_storage = match b.u8() % 3 {
        0 => ClipStorage::Full,
        1 => ClipStorage::Compact,
        _ => ClipStorage::Stepped,
    };
    let dead_blend_halflives = match b.u8() % 4 {
        0 | 1 => DeadBlendHalflives::Command,
        2 => DeadBlendHalflives::FITTED,
        _ => DeadBlendHalflives::Fitted {
            scale: b.f32(0.05, 1.0),
            min: b.f32(0.05, 0.5),
            max: b.f32(0.1, 2.0),
        },
    };
    let joint_radii = joint_radii(b, library.skeleton().len());
    CrowdConfig {
        characters,
        joint_radii,
        sampling: if flags & 1 == 0 {
            Sampling::Linear
        } else {
            Sampling::Cubic
        },
        transition: if flags & 2 == 0 {
            Transition::Inertialize
        } else {
            Transition::DeadBlend
        },
        root_motion: if flags & 4 == 0 {
            RootMotion::Apply
        } else {
            RootMotion::Extract
        },
        velocity_check: flags & 8 == 0,
        up: kineform::reference::Vec3::new(0.0, 1.0, 0.0),
        dead_blend_halflives,
        marker_weight: if flags & 64 == 0 { 0.0 } else { 0.5 },
        layers: match flags & 16 != 0 {
            true => layers(b),
            false => Vec::new(),
        },
        blend_profiles: match flags & 32 != 0 {
            true => profiles(),
            false => Vec::new(),
        },
        clip_storage,
        level_of_detail: flags & 128 != 0,
    }
}

/// Bounds' joint radii: none, one per joint in range, or a drawn list
/// (any length; negative, past 1e6, or not finite: refused by both).
fn joint_radii(b: &mut Bytes, clip_joints: usize) -> Vec<f32> {
    match b.u8() % 4 {
        0 | 1 => Vec::new(),
        2 => (0..clip_joints).map(|_| b.f32(0.0, 10.0)).collect(),
        _ => {
            let n = match b.u8() % 2 {
                0 => clip_joints,
                _ => b.u8() as usize % 40,
            };
            let bad = [-1.0, f32::NAN, f32::INFINITY, 2e6, 1e6, 0.0];
            (0..n)
                .map(|_| match b.u8() {
                    0..=199 => b.f32(0.0, 10.0),
                    s => bad[s as usize % bad.len()],
                })
                .collect()
        }
    }
}
