//! glTF as exporters write it (issue 22, item 2): buffers embedded as data
//! URIs (Blender's "glTF Embedded"), sparse accessors, `.gltf` with its
//! `.bin` beside it (written and read), and each animation read at its own
//! key rate unless a rate is asked for.
#![cfg(feature = "gltf")]

use crate::fuzz_smoke::check::gltf_build;

use gltf_build::{Builder, bytes};
use kineform::gltf::{self, Rate};
use kineform::reference::{Quat, Vec3, quat_from_scaled_angle_axis};
use kineform::{Clip, Error, Skeleton};
use serde_json::json;

/// Two joints (hip, knee); the hip moves over 1 s in 5 keys, the knee turns.
fn two_joints() -> Builder {
    let mut b = Builder::new();
    b.node(json!({"name": "hip", "children": [1]}));
    b.node(json!({"name": "knee", "translation": [0.0, -1.0, 0.0]}));
    b.push("skins", json!({"joints": [0, 1]}));
    let t = b.floats(&[0.0, 0.25, 0.5, 0.75, 1.0], "SCALAR");
    let p: Vec<f32> = (0..5).flat_map(|k| [k as f32, 1.0, 0.0]).collect();
    let p = b.floats(&p, "VEC3");
    b.channels(0, t, p, "LINEAR", &[(0, "translation")]);
    let q: Vec<f32> = (0..5)
        .flat_map(|k| {
            let q = quat_from_scaled_angle_axis(Vec3::new(0.3 * k as f32, 0.0, 0.0));
            [q.x, q.y, q.z, q.w]
        })
        .collect();
    let q = b.floats(&q, "VEC4");
    b.channels(0, t, q, "LINEAR", &[(1, "rotation")]);
    b
}

#[test]
fn embedded_data_uri_buffers_read_as_the_glb_does() {
    let b = two_joints();
    let from_glb = gltf::parse(&b.glb(), Rate::Keys).unwrap();
    let from_embedded = gltf::parse(&b.embedded(), Rate::Keys).unwrap();
    assert_eq!(from_embedded, from_glb);
    assert_eq!(from_glb.clips[0].clip.frames(), 5);
    assert_eq!(
        from_glb.clips[0].clip.pos(3, 0).unwrap(),
        Vec3::new(3.0, 1.0, 0.0)
    );
    // Without padding too, and a media type other than octet-stream.
    let text = String::from_utf8(b.embedded()).unwrap();
    let unpadded = text
        .replace("==\"", "\"")
        .replace("=\"", "\"")
        .replace("application/octet-stream", "application/gltf-buffer");
    assert_eq!(
        gltf::parse(unpadded.as_bytes(), Rate::Keys).unwrap(),
        from_glb
    );
}

/// The same keys through a sparse accessor: zeros (no bufferView) with
/// three values substituted, by u8, u16 and u32 indices; and a dense base
/// with two substituted.
#[test]
fn sparse_accessors_are_read() {
    let dense = two_joints();
    let want = gltf::parse(&dense.glb(), Rate::Keys).unwrap();
    for (component, index_bytes) in [
        (5121, vec![1u8, 2, 3, 4]),
        (
            5123,
            [1u16, 2, 3, 4]
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect(),
        ),
        (
            5125,
            [1u32, 2, 3, 4]
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect(),
        ),
    ] {
        let mut b = dense.clone();
        // The hip's positions: key 0 is (0, 0, 0) in zeros... and must be
        // (0, 1, 0): substitute keys 1 to 4 and give key 0 a dense base.
        let base = b.view(&bytes(&[
            0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        ]));
        let idx = b.view(&index_bytes);
        let val = b.view(&bytes(&[
            1.0, 1.0, 0.0, 2.0, 1.0, 0.0, 3.0, 1.0, 0.0, 4.0, 1.0, 0.0,
        ]));
        let acc = b.push(
            "accessors",
            json!({"bufferView": base, "componentType": 5126, "count": 5, "type": "VEC3",
                   "sparse": {"count": 4, "indices": {"bufferView": idx, "componentType": component},
                              "values": {"bufferView": val}}}),
        );
        b.doc["animations"][0]["samplers"][0]["output"] = json!(acc);
        assert_eq!(
            gltf::parse(&b.glb(), Rate::Keys).unwrap(),
            want,
            "{component}"
        );
    }
    // No bufferView: zeros, with every key substituted.
    let mut b = dense.clone();
    let idx = b.view(&[0, 1, 2, 3, 4]);
    let val = b.view(&bytes(
        &(0..5)
            .flat_map(|k| [k as f32, 1.0, 0.0])
            .collect::<Vec<_>>(),
    ));
    let acc = b.push(
        "accessors",
        json!({"componentType": 5126, "count": 5, "type": "VEC3",
               "sparse": {"count": 5, "indices": {"bufferView": idx, "componentType": 5121},
                          "values": {"bufferView": val}}}),
    );
    b.doc["animations"][0]["samplers"][0]["output"] = json!(acc);
    assert_eq!(gltf::parse(&b.glb(), Rate::Keys).unwrap(), want);
    // Refused, each with its path: indices out of order, an index past the
    // count, indices past the end of their view.
    for (indices, count, says) in [
        (vec![0u8, 2, 1, 3, 4], 5, "rise strictly"),
        (vec![0u8, 1, 2, 3, 9], 5, "below the count"),
        (vec![0u8, 1, 2], 5, "past the end"),
    ] {
        let mut c = b.clone();
        let idx = c.view(&indices);
        c.doc["accessors"][acc]["sparse"]["indices"]["bufferView"] = json!(idx);
        c.doc["accessors"][acc]["sparse"]["count"] = json!(count);
        match gltf::parse(&c.glb(), Rate::Keys) {
            Err(Error::Gltf { path, reason, .. }) => {
                assert!(path.contains("sparse.indices"), "{path}: {reason}");
                assert!(reason.contains(says), "{path}: {reason}");
            }
            other => panic!("{indices:?}: {other:?}"),
        }
    }
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kineform-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `write_gltf` and `load`: a `.gltf` and its `.bin` (a name with a space,
/// percent-encoded in the URI) read back as the `.glb` of the same clips.
#[test]
fn gltf_with_bin_beside_round_trips() {
    let b = kineform::data::default_clip();
    let glb = gltf::write_glb(&b.skeleton, None, &[("walk", &b.clip)]).unwrap();
    let files = gltf::write_gltf(&b.skeleton, None, &[("walk", &b.clip)], "my walk.bin").unwrap();
    let text = String::from_utf8(files.gltf.clone()).unwrap();
    assert!(
        text.contains("\"uri\":\"my%20walk.bin\""),
        "{}",
        &text[..200]
    );
    let d = temp_dir("gltf-bin");
    std::fs::write(d.join("my walk.gltf"), &files.gltf).unwrap();
    std::fs::write(d.join("my walk.bin"), &files.bin).unwrap();
    let read = gltf::load(d.join("my walk.gltf"), Rate::Keys).unwrap();
    assert_eq!(read, gltf::parse(&glb, Rate::Keys).unwrap());
    assert_eq!(read.clips[0].clip.frames(), b.clip.frames());
    // parse() has no folder to read the .bin from, and says so.
    let e = gltf::parse(&files.gltf, Rate::Keys).unwrap_err();
    assert!(e.to_string().contains("use load()"), "{e}");
    // A name with a folder is refused.
    assert!(gltf::write_gltf(&b.skeleton, None, &[], "../x.bin").is_err());
    std::fs::remove_dir_all(&d).ok();
}

fn clip_at(frames: usize, frame_time: f32) -> (Skeleton, Clip) {
    let sk = Skeleton::new(vec![-1, 0]).unwrap();
    let pos = (0..frames)
        .flat_map(|f| [Vec3::new(f as f32, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0)])
        .collect();
    let rot = vec![Quat::IDENTITY; 2 * frames];
    let clip = Clip::new(frames, 2, frame_time, pos, rot, vec![Vec3::ONE; 2 * frames]).unwrap();
    (sk, clip)
}

/// `Rate::Keys`: a clip written at 120, 30 or 24 frames per second (and
/// BVH's 0.0083333 s) comes back with every frame at its own frame time;
/// a rate asked for is the rate given.
#[test]
fn key_rate_keeps_every_frame() {
    for (frames, ft, want) in [
        (277, 1.0 / 120.0, 1.0 / 120.0),
        (277, 0.0083333, 0.0083333),
        (61, 1.0 / 30.0, 1.0 / 30.0),
        (10, 1.0 / 24.0, 1.0 / 24.0),
        (5, 0.4, 0.4),
    ] {
        let (sk, clip) = clip_at(frames, ft);
        let glb = gltf::write_glb(&sk, None, &[("a", &clip)]).unwrap();
        let d = gltf::parse(&glb, Rate::Keys).unwrap();
        let c = &d.clips[0].clip;
        assert_eq!(c.frames(), frames, "{ft}");
        assert!(
            (c.frame_time() - want).abs() <= 1e-6 * want,
            "{ft}: {}",
            c.frame_time()
        );
        for f in 0..frames {
            assert_eq!(
                c.pos(f, 0).unwrap(),
                clip.pos(f, 0).unwrap(),
                "{ft} frame {f}"
            );
        }
        let d = gltf::parse(&glb, 10.0).unwrap();
        assert_eq!(d.clips[0].clip.frame_time(), 0.1);
    }
    // Keys further apart than a second: sampled once a second.
    let (sk, clip) = clip_at(3, 2.0);
    let glb = gltf::write_glb(&sk, None, &[("a", &clip)]).unwrap();
    let c = gltf::parse(&glb, Rate::Keys).unwrap().clips.remove(0).clip;
    assert_eq!((c.frames(), c.frame_time()), (5, 1.0));
    // One key: one frame.
    let (sk, clip) = clip_at(1, 0.5);
    let glb = gltf::write_glb(&sk, None, &[("a", &clip)]).unwrap();
    let c = gltf::parse(&glb, Rate::Keys).unwrap().clips.remove(0).clip;
    assert_eq!(c.frames(), 1);
}
