//! glTF in and out (feature `gltf`): BVH -> glTF -> Clip round trips on the
//! five CMU clips, the three interpolation modes against hand-computed
//! values, world frames out, and malformed documents refused with a path.
#![cfg(feature = "gltf")]

use kineform::reference::Pose;
use kineform::reference::{Kform, Quat, Vec3, op_fk, quat_from_scaled_angle_axis, quat_mul_vec3};
use kineform::{Error, bvh, gltf};
use serde_json::{Value, json};

const CLIPS: [&str; 5] = [
    "cmu_01_01_mb.bvh",
    "cmu_01_03_mb.bvh",
    "cmu_102_01_max.bvh",
    "cmu_12_01_walk_mb.bvh",
    "cmu_131_01_max.bvh",
];

fn mocap(name: &str) -> bvh::Bvh {
    bvh::load(format!("{}/data/mocap/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Angle between two rotations (radians), either sign of the quaternion:
/// `2 atan2(|v|, |w|)` of `a⁻¹ b` (well conditioned near zero, where
/// `acos` of the dot product is not).
fn angle(a: Quat, b: Quat) -> f32 {
    let r = kineform::reference::quat_inv_mul(a, b);
    let v = (r.x * r.x + r.y * r.y + r.z * r.z).sqrt();
    2.0 * v.atan2(r.w.abs())
}

/// BVH -> .glb -> Clip at the BVH's own rate: same skeleton and names,
/// same frame count and frame time, local positions exact (they go through
/// f32 unchanged, and resampling at a key time takes the key), rotations
/// within 1e-6 rad (measured 0.8e-7 to 1.3e-7: the loader renormalizes),
/// world positions by FK within 1e-5 of the skeleton's size (measured
/// 7.6e-6 to 1.5e-5 absolute on sizes 15 to 18).
#[test]
fn bvh_gltf_clip_round_trip_on_the_cmu_clips() {
    for name in CLIPS {
        let b = mocap(name);
        let glb = gltf::write_glb(&b.skeleton, None, &[(name, &b.clip)]).unwrap();
        let rate = 1.0 / b.clip.frame_time();
        let doc = gltf::parse(&glb, rate).unwrap();
        assert_eq!(doc.skeleton, b.skeleton, "{name}");
        assert_eq!(doc.clips.len(), 1);
        let c = &doc.clips[0].clip;
        assert_eq!(
            (c.frames(), c.joints()),
            (b.clip.frames(), b.clip.joints()),
            "{name}"
        );
        assert!(
            (c.frame_time() - b.clip.frame_time()).abs() < 1e-9,
            "{name}"
        );
        let (mut pos_gap, mut rot_gap, mut world_gap, mut size) = (0f32, 0f32, 0f32, 0f32);
        let parents = b.skeleton.parents();
        for f in 0..c.frames() {
            let (mut l0, mut l1) = (Vec::new(), Vec::new());
            for j in 0..c.joints() {
                let (p0, p1) = (b.clip.pos(f, j).unwrap(), c.pos(f, j).unwrap());
                let d = p0 - p1;
                pos_gap = pos_gap.max(
                    d.x.abs().max(d.y.abs()).max(d.z.abs())
                        / (1.0 + p0.x.abs().max(p0.y.abs()).max(p0.z.abs())),
                );
                rot_gap = rot_gap.max(angle(b.clip.rot(f, j).unwrap(), c.rot(f, j).unwrap()));
                assert_eq!(c.scl(f, j).unwrap(), Vec3::ONE);
                l0.push(Kform {
                    pos: p0,
                    rot: b.clip.rot(f, j).unwrap(),
                    ..Kform::IDENTITY
                });
                l1.push(Kform {
                    pos: p1,
                    rot: c.rot(f, j).unwrap(),
                    ..Kform::IDENTITY
                });
            }
            let (mut w0, mut w1) = (Pose::new(l0.len()), Pose::new(l0.len()));
            op_fk(&mut w0, &Pose::from_kforms(&l0), parents).unwrap();
            op_fk(&mut w1, &Pose::from_kforms(&l1), parents).unwrap();
            for j in 0..l0.len() {
                let d = w0.pos[j] - w1.pos[j];
                world_gap = world_gap.max(d.x.abs().max(d.y.abs()).max(d.z.abs()));
                let r = w0.pos[j] - w0.pos[0];
                size = size.max(r.x.abs().max(r.y.abs()).max(r.z.abs()));
            }
        }
        eprintln!(
            "{name}: position gap {pos_gap:e} (relative), rotation gap {rot_gap:e} rad, world gap {world_gap:e} (skeleton size {size})"
        );
        assert!(pos_gap <= 1e-6, "{name}: {pos_gap}");
        assert!(rot_gap <= 1e-6, "{name}: {rot_gap}");
        assert!(world_gap <= 1e-5 * size.max(1.0), "{name}: {world_gap}");
    }
}

/// A .glb from a JSON document and a BIN chunk, built by hand.
fn glb(doc: &Value, bin: &[u8]) -> Vec<u8> {
    let mut j = serde_json::to_vec(doc).unwrap();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + 8 + b.len();
    let mut out = Vec::new();
    out.extend(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((j.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(&j);
    out.extend((b.len() as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(&b);
    out
}

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// One node animated by one sampler: times [0, 1] (accessor 0), values
/// in accessor 1 (`out` floats of `type_`).
fn one_channel(path: &str, interpolation: &str, type_: &str, out: &[f32]) -> (Value, Vec<u8>) {
    let mut bin = floats(&[0.0, 1.0]);
    bin.extend(floats(out));
    let width = if type_ == "VEC4" { 4 } else { 3 };
    let doc = json!({
        "asset": {"version": "2.0"},
        "nodes": [{"name": "a"}],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 8},
            {"buffer": 0, "byteOffset": 8, "byteLength": out.len() * 4}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 1, "componentType": 5126, "count": out.len() / width, "type": type_}
        ],
        "animations": [{
            "channels": [{"sampler": 0, "target": {"node": 0, "path": path}}],
            "samplers": [{"input": 0, "output": 1, "interpolation": interpolation}]
        }]
    });
    (doc, bin)
}

#[test]
fn interpolation_modes() {
    // Translation from (0,0,0) to (4,0,0) over one second, at 4 frames/s.
    let at = |interp: &str, out: &[f32]| {
        let (d, b) = one_channel("translation", interp, "VEC3", out);
        let doc = gltf::parse(&glb(&d, &b), 4.0).unwrap();
        let c = doc.clips[0].clip.clone();
        assert_eq!(c.frames(), 5);
        (0..5).map(|f| c.pos(f, 0).unwrap().x).collect::<Vec<_>>()
    };
    assert_eq!(
        at("LINEAR", &[0., 0., 0., 4., 0., 0.]),
        [0.0, 1.0, 2.0, 3.0, 4.0]
    );
    assert_eq!(
        at("STEP", &[0., 0., 0., 4., 0., 0.]),
        [0.0, 0.0, 0.0, 0.0, 4.0]
    );
    // Cubic Hermite from 0 to 4 with out-tangent 0 at key 0 and in-tangent
    // 12 at key 1 (per second; the interval is 1 s): p(u) = 4(-2u³+3u²) +
    // 12(u³-u²) = 4u³ at u = 0.25, 0.5, 0.75 -> 0.0625, 0.5, 1.6875.
    let cubic = [
        9., 9., 9., /* in-tangent 0, unused */ 0., 0., 0., /* value 0 */ 0., 0.,
        0., /* out 0 */
        12., 0., 0., /* in-tangent 1 */ 4., 0., 0., /* value 1 */ 9., 9.,
        9., /* out 1, unused */
    ];
    let got = at("CUBICSPLINE", &cubic);
    for (g, w) in got.iter().zip([0.0, 0.0625, 0.5, 1.6875, 4.0]) {
        assert!((g - w).abs() < 1e-6, "{got:?}");
    }
    // Rotation: LINEAR is slerp (constant angular speed), from identity to
    // a half turn minus a little about y, so the midpoint angle is half.
    let q1 = quat_from_scaled_angle_axis(Vec3::new(0.0, 3.0, 0.0));
    let (d, b) = one_channel(
        "rotation",
        "LINEAR",
        "VEC4",
        &[0., 0., 0., 1., q1.x, q1.y, q1.z, q1.w],
    );
    let c = gltf::parse(&glb(&d, &b), 4.0).unwrap().clips[0]
        .clip
        .clone();
    for f in 0..5 {
        let want = quat_from_scaled_angle_axis(Vec3::new(0.0, 0.75 * f as f32, 0.0));
        assert!(
            angle(c.rot(f, 0).unwrap(), want) < 1e-5,
            "frame {f}: {:?}",
            c.rot(f, 0).unwrap()
        );
        // The order (x, y, z, w) is read right: x rotated goes toward -z.
        let v = quat_mul_vec3(c.rot(f, 0).unwrap(), Vec3::new(1.0, 0.0, 0.0));
        assert!((v.z + (0.75 * f as f32).sin()).abs() < 1e-5);
    }
}

/// A skin's joints under an armature node: parent-first order from a skin
/// that lists children first, the armature's transform folded into the
/// root, inverse bind matrices reordered with the joints.
#[test]
fn skin_order_and_armature() {
    let mut ibm = Vec::new();
    for t in [2.0f32, 1.0] {
        // Column-major translations by (0, -t, 0): listed child first.
        ibm.extend([
            1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., -t, 0., 1.,
        ]);
    }
    let bin = floats(&ibm);
    let d = json!({
        "asset": {"version": "2.0"},
        "nodes": [
            {"name": "armature", "translation": [10.0, 0.0, 0.0], "children": [2]},
            {"name": "child", "translation": [0.0, 1.0, 0.0]},
            {"name": "root", "translation": [0.0, 1.0, 0.0], "children": [1]}
        ],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": 0}],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [{"buffer": 0, "byteLength": bin.len()}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 2, "type": "MAT4"}]
    });
    let doc = gltf::parse(&glb(&d, &bin), 30.0).unwrap();
    assert_eq!(doc.skeleton.names(), ["root", "child"]);
    assert_eq!(doc.skeleton.parents(), [-1, 0]);
    assert_eq!(doc.nodes, [2, 1]);
    assert_eq!(doc.rest[0].pos, Vec3::new(10.0, 1.0, 0.0));
    let ib = doc.inverse_bind.unwrap();
    assert_eq!((ib[0][13], ib[1][13]), (-1.0, -2.0));
    assert!(doc.clips.is_empty());
}

/// Sets `pointer` in a document to `v` (adding the last key if missing).
fn with(mut d: Value, pointer: &str, v: Value) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    match d.pointer_mut(parent).unwrap() {
        Value::Object(o) => {
            o.insert(key.to_string(), v);
        }
        Value::Array(a) => a[key.parse::<usize>().unwrap()] = v,
        _ => panic!("{pointer}"),
    }
    d
}

fn refused(bytes: &[u8]) -> (String, String) {
    match gltf::parse(bytes, 30.0) {
        Err(Error::Gltf { path, reason, .. }) => (path, reason),
        other => panic!("expected a glTF error, got {other:?}"),
    }
}

#[test]
fn malformed_documents_are_refused_with_a_path() {
    let (d, b) = one_channel("translation", "LINEAR", "VEC3", &[0., 0., 0., 4., 0., 0.]);
    assert!(gltf::parse(&glb(&d, &b), 30.0).is_ok());

    // Truncated buffer: byteLength past the BIN chunk.
    let (p, r) = refused(&glb(
        &with(d.clone(), "/buffers/0/byteLength", json!(1000)),
        &b,
    ));
    assert!(p == "buffers[0]" && r.contains("truncated"), "{p}: {r}");
    // A truncated file: the GLB container says so.
    let good = glb(&d, &b);
    let (p, _) = refused(&good[..good.len() - 9]);
    assert_eq!(p, "glb");
    // A GLB header whose length is under 12 (the fuzzer's second find: the
    // gltf crate subtracts 12 from it unchecked), and one cut inside the header.
    let mut short = good.clone();
    short[8..12].copy_from_slice(&5u32.to_le_bytes());
    let (p, r) = refused(&short);
    assert!(p == "glb" && r.contains("shorter"), "{p}: {r}");
    let (p, _) = refused(&good[..10]);
    assert_eq!(p, "glb");
    // Accessor count past the end of its view.
    let (p, r) = refused(&glb(&with(d.clone(), "/accessors/1/count", json!(100)), &b));
    assert!(
        p.contains("accessors[1]") && p.contains("samplers[0].output"),
        "{p}: {r}"
    );
    // A view past the end of its buffer.
    let (p, _) = refused(&glb(
        &with(d.clone(), "/bufferViews/1/byteLength", json!(4000)),
        &b,
    ));
    assert_eq!(p, "bufferViews[1]");
    // Cycles and shared children in the node tree.
    let two = json!([{"name": "a", "children": [1]}, {"name": "b", "children": [0]}]);
    let (p, r) = refused(&glb(&with(d.clone(), "/nodes", two), &b));
    assert!(
        p.starts_with("nodes[") && r.contains("cycle") || r.contains("already"),
        "{p}: {r}"
    );
    let shared = json!([{"children": [2]}, {"children": [2]}, {}]);
    let (p, r) = refused(&glb(&with(d.clone(), "/nodes", shared), &b));
    assert!(
        p == "nodes[1].children[0]" && r.contains("already a child"),
        "{p}: {r}"
    );
    let self_loop = json!([{"children": [0]}]);
    let (p, r) = refused(&glb(&with(d.clone(), "/nodes", self_loop), &b));
    assert!(p == "nodes[0]" && r.contains("cycle"), "{p}: {r}");
    // Missing channels; a channel's sampler out of range (the gltf crate's
    // validation, its path passed on).
    let (p, r) = refused(&glb(
        &with(d.clone(), "/animations/0/channels", json!([])),
        &b,
    ));
    assert!(
        p == "animations[0].channels" && r.contains("no channel"),
        "{p}: {r}"
    );
    let (p, _) = refused(&glb(
        &with(d.clone(), "/animations/0/channels/0/sampler", json!(3)),
        &b,
    ));
    assert!(p.contains("animations[0].channels[0].sampler"), "{p}");
    // Unknown enum values (the fuzzer's first find: the gltf crate's
    // validation let an unknown path through and then unwrapped it).
    let (p, r) = refused(&glb(
        &with(
            d.clone(),
            "/animations/0/channels/0/target/path",
            json!("translatioo"),
        ),
        &b,
    ));
    assert!(
        p == "animations[0].channels[0].target.path" && r.contains("unknown path"),
        "{p}: {r}"
    );
    let (p, _) = refused(&glb(
        &with(
            d.clone(),
            "/animations/0/samplers/0/interpolation",
            json!("SMOOTH"),
        ),
        &b,
    ));
    assert!(p.contains("animations[0].samplers[0].interpolation"), "{p}");
    let (p, _) = refused(&glb(
        &with(d.clone(), "/accessors/1/type", json!("VEC7")),
        &b,
    ));
    assert!(p.contains("accessors[1]"), "{p}");
    // A channel target node out of range (the fuzzer's third find: the gltf
    // crate's validation let it through, then unwrapped the lookup).
    let (p, r) = refused(&glb(
        &with(d.clone(), "/animations/0/channels/0/target/node", json!(7)),
        &b,
    ));
    assert!(
        p == "animations[0].channels[0].target.node" && r.contains("out of range"),
        "{p}: {r}"
    );
    // Output count not matching the keys (CUBICSPLINE needs three per key).
    let (p, r) = refused(&glb(
        &with(
            d.clone(),
            "/animations/0/samplers/0/interpolation",
            json!("CUBICSPLINE"),
        ),
        &b,
    ));
    assert!(
        p == "animations[0].samplers[0].output" && r.contains("per key"),
        "{p}: {r}"
    );
    // Key times that go back.
    let back = [floats(&[1.0, 0.0]), b[8..].to_vec()].concat();
    let (p, r) = refused(&glb(&d, &back));
    assert!(
        p == "animations[0].samplers[0].input" && r.contains("go back"),
        "{p}: {r}"
    );
    // Non-finite values, a wrong accessor type, a zero rotation.
    let nan = [b[..8].to_vec(), floats(&[f32::NAN, 0., 0., 4., 0., 0.])].concat();
    let (p, r) = refused(&glb(&d, &nan));
    assert!(
        p.ends_with("accessors[1]") && r.contains("not finite"),
        "{p}: {r}"
    );
    let (p, r) = refused(&glb(
        &with(d.clone(), "/accessors/1/type", json!("VEC2")),
        &b,
    ));
    assert!(
        p.ends_with("accessors[1]") && r.contains("expected"),
        "{p}: {r}"
    );
    let (dz, bz) = one_channel(
        "rotation",
        "LINEAR",
        "VEC4",
        &[0., 0., 0., 0., 0., 0., 0., 1.],
    );
    let (p, r) = refused(&glb(&dz, &bz));
    assert!(p.contains("output[0]") && r.contains("unit"), "{p}: {r}");
    // Not JSON at all; data URI buffers that are not base64, or too short.
    let (p, r) = refused(b"{ not json");
    assert!(p.is_empty() && r.starts_with("JSON"), "{r}");
    for (uri, says) in [
        ("data:application/octet-stream,AAAA", "not base64"),
        ("data:application/octet-stream;base64,AA*A", "data URI"),
        ("data:application/octet-stream;base64,AAAA", "truncated"),
    ] {
        let (p, r) = refused(&glb(&with(d.clone(), "/buffers/0/uri", json!(uri)), &b));
        assert!(p == "buffers[0]" && r.contains(says), "{uri}: {p}: {r}");
    }
    // A rate that gives no frames is a parameter error.
    assert!(matches!(
        gltf::parse(&good, 0.0),
        Err(Error::Parameter { name: "rate", .. })
    ));
    // A duration that would need more samples than the limit.
    let long = [floats(&[0.0, 1e9]), b[8..].to_vec()].concat();
    let (p, r) = refused(&glb(&d, &long));
    assert!(p == "animations[0]" && r.contains("limit"), "{p}: {r}");
}

/// World frames out: two characters on a two-joint chain; reading the file
/// back and running FK gives the world positions written.
#[test]
fn world_frames_round_trip() {
    let sk =
        kineform::Skeleton::with_names(vec![-1, 0], vec!["hip".into(), "knee".into()]).unwrap();
    let frames = 3;
    let (mut pos, mut rot) = (Vec::new(), Vec::new());
    for f in 0..frames {
        for c in 0..2 {
            let r0 = quat_from_scaled_angle_axis(Vec3::new(0.0, 0.0, 0.3 * f as f32 + c as f32));
            let p0 = Vec3::new(c as f32 * 5.0, 1.0, f as f32);
            pos.push(p0);
            rot.push(r0);
            pos.push(p0 + quat_mul_vec3(r0, Vec3::new(0.0, -1.0, 0.0)));
            rot.push(r0);
        }
    }
    let w = gltf::WorldFrames {
        skeleton: &sk,
        characters: 2,
        frame_time: 0.5,
        positions: &pos,
        rotations: &rot,
    };
    let glb = gltf::write_world_glb(&w).unwrap();
    let doc = gltf::parse(&glb, 2.0).unwrap();
    assert_eq!(
        doc.skeleton.names(),
        ["c0/hip", "c0/knee", "c1/hip", "c1/knee"]
    );
    let c = &doc.clips[0].clip;
    assert_eq!(c.frames(), 3);
    for f in 0..frames {
        let local: Vec<Kform> = (0..4)
            .map(|j| Kform {
                pos: c.pos(f, j).unwrap(),
                rot: c.rot(f, j).unwrap(),
                ..Kform::IDENTITY
            })
            .collect();
        let mut world = Pose::new(4);
        op_fk(
            &mut world,
            &Pose::from_kforms(&local),
            doc.skeleton.parents(),
        )
        .unwrap();
        for k in 0..4 {
            let d = world.pos[k] - pos[f * 4 + k];
            assert!(
                d.x.abs().max(d.y.abs()).max(d.z.abs()) < 1e-5,
                "frame {f} joint {k}"
            );
        }
    }
    // Refusals.
    let bad = gltf::WorldFrames {
        positions: &pos[..5],
        rotations: &rot[..5],
        ..w
    };
    assert!(gltf::write_world_glb(&bad).is_err());
    assert!(gltf::write_world_glb(&gltf::WorldFrames { characters: 0, ..w }).is_err());
    assert!(
        gltf::write_world_glb(&gltf::WorldFrames {
            frame_time: f32::NAN,
            ..w
        })
        .is_err()
    );
}

#[test]
fn write_refusals() {
    let b = mocap("cmu_102_01_max.bvh");
    let other = kineform::Skeleton::new(vec![-1, 0]).unwrap();
    assert!(gltf::write_glb(&other, None, &[("x", &b.clip)]).is_err());
    let mut rest = vec![Kform::IDENTITY; b.skeleton.len()];
    rest[3].scl = Vec3::ZERO;
    assert!(matches!(
        gltf::write_glb(&b.skeleton, Some(&rest), &[]),
        Err(Error::Skeleton { joint: 3, .. })
    ));
}
