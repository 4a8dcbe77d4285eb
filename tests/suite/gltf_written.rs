//! Files kineform writes (issue 22): every rotation unit, and files of
//! each kind the command line does not write left for `.ci/run`'s Khronos
//! validator.
#![cfg(feature = "gltf")]

use kineform::reference::{Quat, Vec3, quat_from_scaled_angle_axis};
use kineform::{bvh, gltf};

fn mocap(name: &str) -> bvh::Bvh {
    bvh::load(format!("{}/data/mocap/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Every rotation written, node or key, is unit to f32 rounding with every
/// component in [-1, 1] (the Khronos validator refused the world frames'
/// `w = 1.0000001`, issue 22): world frames whose rotations are off unit
/// by 1e-7 (as products of world rotations drift), and the CMU clips.
#[test]
fn every_written_rotation_is_unit() {
    let sk = kineform::Skeleton::new(vec![-1, 0, 1]).unwrap();
    let (mut pos, mut rot) = (Vec::new(), Vec::new());
    for f in 0..4 {
        for j in 0..3 {
            let q = quat_from_scaled_angle_axis(Vec3::new(0.0, 1e-4 * (f + j) as f32, 0.0));
            pos.push(Vec3::new(0.0, j as f32, f as f32));
            rot.push(Quat::new(q.w * 1.0000002, q.x, q.y, q.z));
        }
    }
    let world = gltf::write_world_glb(&gltf::WorldFrames {
        skeleton: &sk,
        characters: 1,
        frame_time: 0.1,
        positions: &pos,
        rotations: &rot,
    })
    .unwrap();
    let b = mocap("cmu_131_01_max.bvh");
    let clip = gltf::write_glb(&b.skeleton, None, &[("a", &b.clip)]).unwrap();
    for (name, glb) in [("world", world), ("clip", clip)] {
        let doc = ::gltf::Gltf::from_slice(&glb).unwrap();
        let blob = doc.blob.clone().unwrap();
        let unit = |q: [f32; 4], what: &str| {
            let n = q.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
            assert!(
                (n - 1.0).abs() < 2e-7 && q.iter().all(|x| x.abs() <= 1.0),
                "{name} {what}: {q:?} (norm {n})"
            );
        };
        for node in doc.nodes() {
            unit(node.transform().decomposed().1, "node");
        }
        let mut keys = 0;
        for anim in doc.animations() {
            for ch in anim.channels() {
                let reader = ch.reader(|_| Some(&blob[..]));
                if let Some(::gltf::animation::util::ReadOutputs::Rotations(r)) =
                    reader.read_outputs()
                {
                    for q in r.into_f32() {
                        unit(q, "key");
                        keys += 1;
                    }
                }
            }
        }
        assert!(keys > 0, "{name}");
    }
}

/// Files of every kind the writers make that the command line does not
/// (several clips with scale channels; a `.gltf` whose `.bin` name needs
/// percent-encoding), left in `target/tmp/gltf-validator/` for `.ci/run`
/// to check with the Khronos validator; each read back here.
#[test]
fn files_for_the_validator() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("gltf-validator");
    std::fs::create_dir_all(&dir).unwrap();
    let b = mocap("cmu_01_01_mb.bvh");
    let n = b.clip.frames().min(40);
    let cut = |first: usize, scale: f32| {
        let take = |v: &[Vec3]| v[first * 31..(first + n) * 31].to_vec();
        let scl = (0..n * 31)
            .map(|i| {
                if i % 31 == 5 {
                    Vec3::new(scale, 1.0, scale)
                } else {
                    Vec3::ONE
                }
            })
            .collect();
        kineform::Clip::new(
            n,
            31,
            b.clip.frame_time(),
            take(b.clip.positions()),
            b.clip.rotations()[first * 31..(first + n) * 31].to_vec(),
            scl,
        )
        .unwrap()
    };
    let (a, c) = (cut(0, 1.0), cut(10, 1.5));
    let clips = [("plain", &a), ("scaled", &c)];
    let glb = gltf::write_glb(&b.skeleton, None, &clips).unwrap();
    std::fs::write(dir.join("two_clips_scaled.glb"), &glb).unwrap();
    let files = gltf::write_gltf(&b.skeleton, None, &clips, "two clips #1.bin").unwrap();
    std::fs::write(dir.join("two_clips.gltf"), &files.gltf).unwrap();
    std::fs::write(dir.join("two clips #1.bin"), &files.bin).unwrap();
    let from_gltf = gltf::load(dir.join("two_clips.gltf"), 120.0).unwrap();
    assert_eq!(from_gltf, gltf::parse(&glb, 120.0).unwrap());
    assert_eq!(
        from_gltf.clips[1].clip.scl(3, 5).unwrap(),
        Vec3::new(1.5, 1.0, 1.5)
    );
}
