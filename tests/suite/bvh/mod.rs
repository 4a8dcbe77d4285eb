//! BVH loading and writing on the real CMU files and on broken input.

#![allow(clippy::needless_range_loop)] // tests index several parallel arrays

use kineform::bvh::{self, Channel};
use kineform::reference::{self as r};
use proptest::prelude::*;

fn path(name: &str) -> String {
    format!("{}/data/mocap/{name}", env!("CARGO_MANIFEST_DIR"))
}

const FILES: [(&str, usize); 5] = [
    ("cmu_01_01_mb.bvh", 2752),
    ("cmu_01_03_mb.bvh", 4511),
    ("cmu_102_01_max.bvh", 277),
    ("cmu_12_01_walk_mb.bvh", 524),
    ("cmu_131_01_max.bvh", 994),
];

fn mat_mul(a: [[f64; 3]; 3], b: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut m = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    m
}

/// The rotation matrix about one axis, built directly (not via quaternions).
fn axis_matrix(axis: usize, deg: f64) -> [[f64; 3]; 3] {
    let (s, c) = deg.to_radians().sin_cos();
    match axis {
        0 => [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]],
        1 => [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]],
        _ => [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
    }
}

/// The raw numbers of each motion line, read independently of the parser.
fn raw_motion(text: &str) -> Vec<Vec<f64>> {
    let motion = &text[text.find("MOTION").unwrap()..];
    motion
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("Frame Time"))
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(|w| w.parse().unwrap()).collect())
        .collect()
}

#[test]
fn all_five_cmu_files_load_and_match_their_euler_angles() {
    for (name, frames) in FILES {
        let text = std::fs::read_to_string(path(name)).unwrap();
        let b = bvh::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(b.skeleton.len(), 31, "{name}");
        assert_eq!(b.clip.frames(), frames, "{name}");
        assert_eq!(b.clip.frame_time(), 0.0083333, "{name}");
        assert_eq!(b.skeleton.depth(), 10, "{name}");
        assert_eq!(
            b.end_sites.iter().filter(|e| e.is_some()).count(),
            7,
            "{name}"
        );
        assert!(b.clip.scales().iter().all(|s| *s == r::Vec3::ONE));
        let zxy = b
            .channels
            .iter()
            .filter(|c| {
                c.first() == Some(&Channel::Zrotation) && c.get(1) == Some(&Channel::Xrotation)
            })
            .count();
        assert_eq!(
            zxy,
            if name.contains("_max") { 12 } else { 0 },
            "{name}: ZXY joints"
        );
        let raw = raw_motion(&text);
        assert_eq!(raw.len(), frames);
        let mut worst = 0.0f64;
        for (f, row) in raw.iter().enumerate().step_by(7) {
            let mut k = 0;
            for (j, cs) in b.channels.iter().enumerate() {
                let mut m = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
                let mut p = [
                    b.offsets[j].x as f64,
                    b.offsets[j].y as f64,
                    b.offsets[j].z as f64,
                ];
                for c in cs {
                    if c.is_rotation() {
                        m = mat_mul(m, axis_matrix(c.axis(), row[k]));
                    } else {
                        p[c.axis()] += row[k];
                    }
                    k += 1;
                }
                let got = bvh::quat_to_matrix(b.clip.rot(f, j).unwrap());
                for i in 0..3 {
                    for c in 0..3 {
                        worst = worst.max((got[i][c] - m[i][c]).abs());
                    }
                }
                let pos = b.clip.pos(f, j).unwrap();
                assert!(
                    (pos.x as f64 - p[0]).abs() < 1e-4
                        && (pos.y as f64 - p[1]).abs() < 1e-4
                        && (pos.z as f64 - p[2]).abs() < 1e-4,
                    "{name} f{f} j{j}"
                );
            }
        }
        // f32 quaternions hold a rotation to about 1e-7.
        assert!(worst < 1e-6, "{name}: rotation matrices differ by {worst}");
    }
}

#[test]
fn round_trip_through_write() {
    for (name, _) in FILES
        .iter()
        .filter(|(n, _)| n.contains("102") || n.contains("131") || n.contains("12_01"))
    {
        let a = bvh::load(path(name)).unwrap();
        let text = bvh::write(&a, &a.clip).unwrap();
        let b = bvh::parse(&text).unwrap();
        assert_eq!(a.skeleton, b.skeleton, "{name}");
        assert_eq!(a.offsets, b.offsets);
        assert_eq!(a.channels, b.channels);
        assert_eq!(a.end_sites, b.end_sites);
        assert_eq!(
            (a.clip.frames(), a.clip.frame_time()),
            (b.clip.frames(), b.clip.frame_time())
        );
        for (p, q) in a.clip.positions().iter().zip(b.clip.positions()) {
            assert!(
                r::length(*p - *q) < 1e-5 * (1.0 + r::length(*p)),
                "{name}: {p:?} vs {q:?}"
            );
        }
        for (p, q) in a.clip.rotations().iter().zip(b.clip.rotations()) {
            // Same rotation (q or -q) within the print precision of degrees.
            let q = if r::quat_dot(*p, *q) < 0.0 { -*q } else { *q };
            let d = r::quat_length(*p - q);
            assert!(d < 1e-6, "{name}: {p:?} vs {q:?} ({d:e})");
        }
    }
}

#[test]
fn euler_extraction_handles_every_order_and_gimbal_lock() {
    let orders = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    for order in orders {
        for (a, b, c) in [
            (10.0, 20.0, 30.0),
            (-170.0, 89.9, 45.0),
            (33.0, -90.0, 12.0),
            (0.0, 90.0, 0.0),
            (179.0, -45.0, -179.0),
        ] {
            let m = mat_mul(
                mat_mul(axis_matrix(order[0], a), axis_matrix(order[1], b)),
                axis_matrix(order[2], c),
            );
            // Build the quaternion the way the parser does: product of axis quats.
            let mut q = r::Quat::IDENTITY;
            for (axis, d) in order.iter().zip([a, b, c]) {
                let mut v = r::Vec3::ZERO;
                match axis {
                    0 => v.x = 1.0,
                    1 => v.y = 1.0,
                    _ => v.z = 1.0,
                }
                q = r::quat_mul(q, r::quat_from_angle_axis((d as f32).to_radians(), v));
            }
            let e = bvh::quat_to_euler(q, order);
            let back = mat_mul(
                mat_mul(
                    axis_matrix(order[0], e[0] as f64),
                    axis_matrix(order[1], e[1] as f64),
                ),
                axis_matrix(order[2], e[2] as f64),
            );
            for i in 0..3 {
                for j in 0..3 {
                    assert!(
                        (back[i][j] - m[i][j]).abs() < 1e-5,
                        "order {order:?} angles {a} {b} {c}: got {e:?}"
                    );
                }
            }
        }
    }
}

const SMALL: &str = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n JOINT Leg\n {\n  OFFSET 0 -1 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 -1 0\n  }\n }\n}\nMOTION\nFrames: 2\nFrame Time: .5\n1 2 3 10 20 30 40 50 60\n1 2 3 10 20 30 40 50 61\n";

#[test]
fn small_file_parses() {
    let b = bvh::parse(SMALL).unwrap();
    assert_eq!(b.skeleton.parents(), &[-1, 0]);
    assert_eq!(b.skeleton.names(), &["Hips".to_string(), "Leg".to_string()]);
    assert_eq!(b.clip.pos(1, 0).unwrap(), r::Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(b.clip.pos(0, 1).unwrap(), r::Vec3::new(0.0, -1.0, 0.0));
    assert_eq!(b.clip.frame_time(), 0.5);
    // CRLF everywhere, no indentation: the same result.
    let crlf: String = SMALL.lines().map(|l| format!("{}\r\n", l.trim())).collect();
    assert_eq!(bvh::parse(&crlf).unwrap(), b);
}

/// A one-frame file of `joints` joints, each with `parent(j)`, three
/// rotation channels and, for the root, positions.
fn synthetic(joints: usize, parent: impl Fn(usize) -> i32) -> bvh::Bvh {
    use kineform::{Clip, Skeleton};
    let parents: Vec<i32> = (0..joints).map(&parent).collect();
    let skeleton = Skeleton::new(parents).unwrap();
    let mut channels =
        vec![vec![Channel::Zrotation, Channel::Xrotation, Channel::Yrotation]; joints];
    channels[0].splice(
        0..0,
        [Channel::Xposition, Channel::Yposition, Channel::Zposition],
    );
    let offsets: Vec<r::Vec3> = (0..joints)
        .map(|j| r::Vec3::new(0.0, 1.0 + j as f32 * 1e-3, 0.0))
        .collect();
    let rot: Vec<r::Quat> = (0..joints)
        .map(|j| r::quat_from_scaled_angle_axis(r::Vec3::new(0.001 * (j % 100) as f32, 0.2, -0.1)))
        .collect();
    let mut end_sites = vec![None; joints];
    end_sites[joints - 1] = Some(r::Vec3::new(0.0, 0.5, 0.0));
    let clip = Clip::new(
        1,
        joints,
        1.0 / 120.0,
        offsets.clone(),
        rot,
        vec![r::Vec3::ONE; joints],
    )
    .unwrap();
    bvh::Bvh {
        skeleton,
        offsets,
        channels,
        end_sites,
        clip,
    }
}

/// Issue 13, defect 3: `bvh::write` recursed once per level (65,535 nested
/// joints, which `parse` accepts, overflowed the stack), indented by depth
/// (20,000 levels wrote 800 MB) and found children by scanning every joint
/// (65,535 siblings took 2.2 s). The deepest and the widest skeletons the
/// parser accepts now round-trip, in output linear in the joints.
#[test]
fn write_is_iterative_and_linear_on_the_deepest_and_widest_skeletons() {
    let max = kineform::skeleton::MAX_JOINTS;
    for (what, b) in [
        ("deepest", synthetic(max, |j| j as i32 - 1)),
        ("widest", synthetic(max, |j| if j == 0 { -1 } else { 0 })),
    ] {
        let t = std::time::Instant::now();
        let text = bvh::write(&b, &b.clip).unwrap();
        assert!(
            text.len() < 200 * max,
            "{what}: {} bytes for {max} joints",
            text.len()
        );
        let again = bvh::parse(&text).unwrap();
        assert_eq!(again.skeleton, b.skeleton, "{what}");
        assert_eq!(again.offsets, b.offsets, "{what}");
        assert_eq!(again.channels, b.channels, "{what}");
        assert_eq!(again.end_sites, b.end_sites, "{what}");
        eprintln!(
            "{what}: {max} joints, {} bytes, round trip {:?}",
            text.len(),
            t.elapsed()
        );
    }
}

/// `write` refuses what would not read back, and writes nothing.
#[test]
fn write_refuses_what_would_not_read_back() {
    let good = bvh::parse(SMALL).unwrap();
    let mut b = good.clone();
    b.offsets[1].y = f32::INFINITY;
    assert!(
        bvh::write(&b, &b.clip)
            .unwrap_err()
            .to_string()
            .contains("not finite")
    );
    let mut b = good.clone();
    b.offsets.pop();
    assert!(bvh::write(&b, &b.clip).is_err());
    for name in ["", "a\nb", "a  b", " a", "tab\there"] {
        let b = bvh::Bvh {
            skeleton: kineform::Skeleton::with_names(vec![-1, 0], vec!["Hips".into(), name.into()])
                .unwrap(),
            ..good.clone()
        };
        let e = bvh::write(&b, &b.clip).unwrap_err().to_string();
        assert!(e.contains("would not read back"), "{name:?}: {e}");
    }
    let b = bvh::Bvh {
        channels: vec![vec![], vec![]],
        ..good.clone()
    };
    assert!(bvh::write(&b, &b.clip).is_err());
}

/// Found by the bvh_parse fuzz target: a joint name with a NUL parsed, and
/// then `write` refused it (it would not read back). Names with control
/// characters are refused by `parse`, with the line.
#[test]
fn joint_names_with_control_characters_are_refused() {
    for name in ["Le\0g", "Leg\u{1}", "L\u{7f}eg"] {
        let e = bvh::parse(&SMALL.replacen("JOINT Leg", &format!("JOINT {name}"), 1))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("BVH line 6: JOINT name"), "{name:?}: {e}");
        assert!(e.contains("control character"), "{e}");
    }
}

/// Found by the bvh_parse fuzz target: a joint with the same position
/// channel twice reads the sum of the two values, and `write` wrote the
/// whole position to both, so the round trip doubled it.
#[test]
fn repeated_position_channels_round_trip() {
    let text = SMALL
        .replacen(
            "CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation",
            "CHANNELS 7 Xposition Yposition Zposition Xposition Zrotation Yrotation Xrotation",
            1,
        )
        .replace("1 2 3 10 20 30 40 50 6", "1 2 3 4 10 20 30 40 50 6");
    let a = bvh::parse(&text).unwrap();
    assert_eq!(a.clip.pos(0, 0).unwrap(), r::Vec3::new(5.0, 2.0, 3.0));
    let b = bvh::parse(&bvh::write(&a, &a.clip).unwrap()).unwrap();
    assert_eq!(b.clip.positions(), a.clip.positions());
}

mod hostile;
