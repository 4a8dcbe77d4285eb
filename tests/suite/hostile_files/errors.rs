//! Defect 10: errors that say what happened and name the file.

use super::*;

/// Defect 10: a writer's refusal is not "BVH line 0": it says it could
/// not write; converting names the file each error is about.
#[test]
fn defect_10_errors_say_what_happened_and_name_the_file() {
    use kineform::reference::{Quat, Vec3};
    let b = kineform::data::default_clip();
    let mut named = b.clone();
    let mut names = b.skeleton.names().to_vec();
    names[3] = "two\nlines".into();
    named.skeleton = kineform::Skeleton::with_names(b.skeleton.parents().to_vec(), names).unwrap();
    let e = bvh::write(&named, &named.clip).unwrap_err().to_string();
    assert!(
        !e.contains("line 0") && e.starts_with("BVH: cannot write joint 3"),
        "{e}"
    );

    let d = dir("names");
    let scaled = kineform::Clip::new(
        1,
        1,
        0.1,
        vec![Vec3::ZERO],
        vec![Quat::IDENTITY],
        vec![Vec3::splat(2.0)],
    )
    .unwrap();
    let skeleton = kineform::Skeleton::new(vec![-1]).unwrap();
    let e = kineform::convert::bvh_for_clip(&skeleton, &scaled)
        .unwrap_err()
        .in_file(&d.join("out.bvh"))
        .to_string();
    assert!(
        e.contains("out.bvh: BVH: cannot write joint 0 with scale"),
        "{e}"
    );

    let input = d.join("walk.bvh");
    std::fs::copy(mocap("cmu_102_01_max.bvh"), &input).unwrap();
    let options = kineform::convert::Options {
        animation: 3,
        ..Default::default()
    };
    let e = kineform::convert::convert_file(&input, &d.join("o.bvh"), &options).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("walk.bvh")
            && text.contains("has 1 animation(s)")
            && !text.contains("expected length"),
        "{text}"
    );
    let e = kineform::convert::convert_file(&input, &d.join("o.xyz"), &Default::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("o.xyz") && e.contains("cannot write `.xyz`"),
        "{e}"
    );
    std::fs::write(d.join("bad.bvh"), "HIERARCHY\nROOT a\n{\nOFFSET 0 0 x\n").unwrap();
    let e =
        kineform::convert::convert_file(&d.join("bad.bvh"), &d.join("o.bvh"), &Default::default())
            .unwrap_err()
            .to_string();
    assert!(
        e.starts_with(&format!("{}: BVH line 4", d.join("bad.bvh").display())),
        "{e}"
    );
    assert_eq!(files_in(&d), ["bad.bvh", "walk.bvh"], "nothing written");

    // An error that names no file gets the file; one that does keeps it.
    let io = Error::Io {
        path: "a".into(),
        reason: "r".into(),
    };
    assert_eq!(io.clone().in_file(Path::new("b")), io);
    let plain = Error::Index {
        what: "joint",
        index: 4,
        len: 2,
    };
    assert_eq!(
        plain.in_file(Path::new("f.glb")).to_string(),
        "f.glb: joint 4 is out of range (there are 2)"
    );
}

/// Defect 10: reversed and empty ranges say so (`positions_into(5..3)`
/// said the end was out of range).
#[test]
fn defect_10_ranges_say_they_are_reversed() {
    use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig};
    let library = ClipLibrary::from_bvh(&kineform::data::default_clip()).unwrap();
    let cfg = CrowdConfig {
        characters: 16,
        ..CrowdConfig::default()
    };
    let crowd = Crowd::new(&library, cfg).unwrap();
    let mut out = vec![[0.0f32; 3]; 0];
    #[allow(clippy::reversed_empty_ranges)]
    let e = crowd
        .positions_into(5..3, &mut out)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "characters 5..3 is reversed: it starts after it ends");
    let e = crowd
        .positions_into(10..20, &mut out)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "characters 10..20 runs past the end (there are 16)");
    let clip = kineform::data::default_clip().clip;
    let e = clip.excerpt(5..5).unwrap_err().to_string();
    assert_eq!(e, "excerpt's frames 5..5 is empty");
}

/// Defect 10: memory refusals say what could not be had, in words and
/// bytes ("world output: expected length 0, got 3328000000" before).
#[test]
fn defect_10_memory_refusals_say_what_could_not_be_had() {
    use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, ReferenceCrowd};
    let library = ClipLibrary::from_bvh(&kineform::data::default_clip()).unwrap();
    for characters in [1usize << 40, usize::MAX / 2] {
        let cfg = CrowdConfig {
            characters,
            ..CrowdConfig::default()
        };
        for e in [
            Crowd::new(&library, cfg.clone()).err().unwrap(),
            ReferenceCrowd::new(&library, cfg).err().unwrap(),
        ] {
            let text = e.to_string();
            assert!(matches!(e, Error::Size { .. }), "{text}");
            assert!(!text.contains("expected length"), "{text}");
            assert!(
                text.contains("could not be reserved") || text.contains("more than the"),
                "{text}"
            );
        }
    }
}
