//! Defect 9: one set of limits, so that what kineform writes it can read.

use super::*;

/// A BVH of `joints` joints (every joint a child of the root, which has
/// three rotation channels) and `frames` frames.
fn wide_bvh(joints: usize, frames: usize, frame_time: &str) -> String {
    let mut s = String::from(
        "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Yrotation Xrotation\n",
    );
    for j in 1..joints {
        s.push_str(&format!("JOINT j{j}\n{{\nOFFSET 1 0 0\n}}\n"));
    }
    s.push_str(&format!(
        "}}\nMOTION\nFrames: {frames}\nFrame Time: {frame_time}\n"
    ));
    for _ in 0..frames {
        s.push_str("0 0 0\n");
    }
    s
}

/// Defect 9: a 2 MB BVH at the joint cap asking for more samples than a
/// clip may hold is refused at its `Frames:` line (it became a 524 MB
/// clip: the old cap, 2^26 samples, made a clip and a `.glb` that
/// kineform's own glTF reader refused); one within the cap loads.
#[test]
fn defect_9_a_bvh_past_the_sample_limit_is_refused_at_its_header() {
    let joints = limits::MAX_JOINTS;
    // 2^23 samples: the cap every reader holds (MAX_SAMPLES).
    assert_eq!(limits::MAX_SAMPLES, 1 << 23);
    let frames = (1 << 23) / joints + 1;
    let text = wide_bvh(joints, frames, "0.01");
    assert!(text.len() < 3_000_000);
    let e = bvh::parse(&text).unwrap_err().to_string();
    assert!(e.contains("Frames") && e.contains("MAX_SAMPLES"), "{e}");
    let ok = wide_bvh(joints, frames - 1, "0.01");
    let b = bvh::parse(&ok).unwrap();
    assert!(b.clip.frames() * b.clip.joints() <= limits::MAX_SAMPLES);
}

/// Defect 9: a frame time whose clip no command could play through (a
/// 1e37 s frame time loaded, but commands refuse times past 1e6) is
/// refused where it is read, naming the line; so is a clip built with it.
#[test]
fn defect_9_a_clip_longer_than_a_command_can_reach_is_refused() {
    for ft in ["1e37", "2e6"] {
        let e = bvh::parse(&wide_bvh(2, 2, ft)).unwrap_err().to_string();
        assert!(e.contains("line ") && e.contains("Frame Time"), "{ft}: {e}");
    }
    let e = bvh::parse(&wide_bvh(2, 3, "6e5")).unwrap_err().to_string();
    assert!(e.contains("MAX_TIME"), "{e}");
    bvh::parse(&wide_bvh(2, 3, "5e5")).unwrap();
    let v = kineform::reference::Vec3::ZERO;
    let q = kineform::reference::Quat::IDENTITY;
    let s = kineform::reference::Vec3::ONE;
    let clip = |ft: f32| kineform::Clip::new(2, 1, ft, vec![v; 2], vec![q; 2], vec![s; 2]);
    assert!(clip(1e37).is_err() && clip(2e6).is_err() && clip(1e6).is_ok());
}

/// Defect 9: the limits agree: the most samples a reader accepts, written
/// back as BVH (at most `BVH_BYTES_PER_SAMPLE` a sample) with a hierarchy
/// of the most joints, and as `.glb`, fit the byte limits their readers
/// hold files to.
#[test]
fn defect_9_what_kineform_writes_fits_what_it_reads() {
    let samples = limits::MAX_SAMPLES as u64;
    // A joint's hierarchy lines, as the writer indents them: a name of
    // `j65534`, offsets of 15 characters, 16 tabs.
    let hierarchy = limits::MAX_JOINTS as u64 * 200;
    assert!(samples * limits::BVH_BYTES_PER_SAMPLE + hierarchy <= limits::MAX_BVH_BYTES);
    assert!(samples * limits::GLB_BYTES_PER_SAMPLE < limits::MAX_GLB_BYTES / 2);
}

/// Defect 9: every number the BVH writer prints takes at most 15
/// characters (the bound `BVH_BYTES_PER_SAMPLE` rests on) and reads back
/// as the same f32, whatever its size: tiny angles, positions at the
/// domain's edge, subnormals.
#[test]
fn defect_9_bvh_numbers_are_short_and_read_back() {
    use kineform::reference::{Quat, Vec3, quat_from_angle_axis};
    let angles = [0.0f32, 1e-30, -3e-9, 1e-5, 0.3, 1.0, -2.5, 3.1, 1e-40];
    let positions = [
        0.0f32,
        1e-38,
        -1e-7,
        0.1,
        123.456,
        -999_999.94,
        1e6,
        -1e6,
        2e-45,
    ];
    let n = angles.len();
    // Frame 0 at the origin: the root's OFFSET is 0, so its channels carry
    // the positions exactly.
    let pos: Vec<Vec3> = (0..n)
        .map(|i| match i {
            0 => Vec3::ZERO,
            _ => Vec3::new(positions[i], -positions[i], positions[(i + 3) % n]),
        })
        .collect();
    let rot: Vec<Quat> = angles
        .iter()
        .map(|&a| quat_from_angle_axis(a, Vec3::new(0.0, 1.0, 0.0)))
        .collect();
    let clip = kineform::Clip::new(n, 1, 1e-6, pos, rot, vec![Vec3::ONE; n]).unwrap();
    let skeleton = kineform::Skeleton::new(vec![-1]).unwrap();
    let b = kineform::convert::bvh_for_clip(&skeleton, &clip).unwrap();
    let text = bvh::write(&b, &clip).unwrap();
    let motion = &text[text.find("Frame Time").unwrap()..];
    for word in motion
        .split_whitespace()
        .filter(|w| w.parse::<f32>().is_ok())
    {
        assert!(word.len() <= 15, "{word} in\n{motion}");
    }
    let again = bvh::parse(&text).unwrap();
    assert_eq!(again.clip.positions(), clip.positions());
    assert_eq!(again.clip.frame_time(), clip.frame_time());
}

/// Defect 9, found by the `clips_from_values` fuzz target: a skeleton
/// whose joints are parent-first but not depth-first (the root's two
/// children before the first one's child, as glTF skins may be) was
/// written with its hierarchy depth-first and its motion in joint order,
/// so every joint read back another's motion (a position past the limit
/// in the case found). Now each joint reads back its own motion, by name.
#[test]
fn defect_9_a_skeleton_out_of_depth_first_order_reads_back_its_own_motion() {
    use kineform::reference::{Vec3, quat_dot, quat_from_angle_axis};
    let skeleton = kineform::Skeleton::new(vec![-1, 0, 0, 1]).unwrap();
    let frames = 3;
    let pos: Vec<Vec3> = (0..frames * 4)
        .map(|i| Vec3::new(i as f32, (i % 4) as f32 * 10.0, 0.5))
        .collect();
    let rot = (0..frames * 4)
        .map(|i| quat_from_angle_axis(0.1 * i as f32, Vec3::new(0.0, 0.6, 0.8)))
        .collect();
    let clip = kineform::Clip::new(frames, 4, 0.1, pos, rot, vec![Vec3::ONE; frames * 4]).unwrap();
    let b = kineform::convert::bvh_for_clip(&skeleton, &clip).unwrap();
    let back = bvh::parse(&bvh::write(&b, &clip).unwrap()).unwrap();
    let names = back.skeleton.names();
    assert_eq!(names, ["joint0", "joint1", "joint3", "joint2"]);
    for (k, name) in names.iter().enumerate() {
        let j = skeleton.find(name).unwrap();
        for f in 0..frames {
            let (p, q) = (back.clip.pos(f, k).unwrap(), clip.pos(f, j).unwrap());
            assert!(
                (p - q).to_array().iter().all(|d| d.abs() < 1e-4),
                "{name} {f}: {p:?} {q:?}"
            );
            let dot = quat_dot(back.clip.rot(f, k).unwrap(), clip.rot(f, j).unwrap()).abs();
            assert!(dot > 1.0 - 1e-6, "{name} frame {f}: {dot}");
        }
    }
}

/// The error of a refusal (without printing a large accepted value).
fn refused<T>(r: kineform::Result<T>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

/// A BVH chain of `joints` joints, each `offset` units along x from its
/// parent (the root has three rotation channels, the others none), two
/// frames.
fn chain_bvh(joints: usize, offset: &str) -> String {
    let mut s = format!(
        "HIERARCHY\nROOT j0\n{{\nOFFSET {offset} 0 0\nCHANNELS 3 Zrotation Yrotation Xrotation\n"
    );
    for j in 1..joints {
        s.push_str(&format!("JOINT j{j}\n{{\nOFFSET {offset} 0 0\n"));
    }
    s.push_str(&"}\n".repeat(joints));
    s.push_str("MOTION\nFrames: 2\nFrame Time: 0.01\n0 0 0\n0 0 0\n");
    s
}

/// Defect 9: one domain for clips in every reader, writer and library: a
/// chain whose joints reach past `MAX_REACH` from the root (1,001 joints
/// 1e6 apart, each offset within `MAX_POSITION`) loaded from BVH and from
/// glTF (a `ClipLibrary` refused it, so a file kineform read could not
/// be played), and was written by both writers. Now the readers refuse it
/// naming the joint (BVH: its line), the writers refuse to write it, and
/// 1,000 joints (a reach of exactly 1e9) are accepted.
#[test]
fn defect_9_a_clip_past_the_reach_limit_is_refused_by_every_reader_and_writer() {
    let e = refused(bvh::parse(&chain_bvh(1001, "1e6")));
    // Joint 1000's `JOINT` line: 5 lines for the root, 3 per joint
    // (joint j at line 3j + 3).
    assert!(
        e.contains("MAX_REACH") && e.contains("joint 1000") && e.contains("line 3003"),
        "{e}"
    );
    bvh::parse(&chain_bvh(1000, "1e6")).unwrap();

    let near = bvh::parse(&chain_bvh(1001, "1e5")).unwrap();
    let far_pos: Vec<_> = near.clip.positions().iter().map(|p| *p * 10.0).collect();
    let far = kineform::Clip::new(
        2,
        1001,
        0.01,
        far_pos,
        near.clip.rotations().to_vec(),
        near.clip.scales().to_vec(),
    )
    .unwrap();
    let e = bvh::write(&near, &far).unwrap_err().to_string();
    assert!(e.contains("MAX_REACH"), "{e}");
    bvh::write(&near, &near.clip).unwrap();

    #[cfg(feature = "gltf")]
    {
        use kineform::gltf;
        let e = gltf::write_glb(&near.skeleton, None, &[("far", &far)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("MAX_REACH") && e.contains("far"), "{e}");
        // A file that another writer made: kineform's own, with every
        // 1e5 of its translations' keys made 1e6 (the rest pose and the
        // inverse bind matrices are left as they were).
        let mut glb = gltf::write_glb(&near.skeleton, None, &[("near", &near.clip)]).unwrap();
        gltf::parse(&glb, gltf::Rate::Keys).unwrap();
        let (from, to) = (1e5f32.to_le_bytes(), 1e6f32.to_le_bytes());
        let mut patched = 0;
        for i in 0..glb.len() - 3 {
            if glb[i..i + 4] == from {
                glb[i..i + 4].copy_from_slice(&to);
                patched += 1;
            }
        }
        assert!(patched >= 2 * 1001, "{patched}");
        let e = refused(gltf::parse(&glb, gltf::Rate::Keys));
        assert!(
            e.contains("MAX_REACH") && e.contains("animations[0]") && e.contains("joint 1000"),
            "{e}"
        );
    }
}
