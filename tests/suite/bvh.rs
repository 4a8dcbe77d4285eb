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
                let got = bvh::quat_to_matrix(b.clip.rot(f, j));
                for i in 0..3 {
                    for c in 0..3 {
                        worst = worst.max((got[i][c] - m[i][c]).abs());
                    }
                }
                let pos = b.clip.pos(f, j);
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
    assert_eq!(b.clip.pos(1, 0), r::Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(b.clip.pos(0, 1), r::Vec3::new(0.0, -1.0, 0.0));
    assert_eq!(b.clip.frame_time(), 0.5);
    // CRLF everywhere, no indentation: the same result.
    let crlf: String = SMALL.lines().map(|l| format!("{}\r\n", l.trim())).collect();
    assert_eq!(bvh::parse(&crlf).unwrap(), b);
}

#[test]
fn malformed_files_name_line_and_reason() {
    let cases: [(&str, &str, &str); 13] = [
        ("", "", "line 1: unexpected end of file"),
        ("HIERARCHY\n", "HIERARCHY\nHIERARCHYX\n", "line 2"),
        (
            "OFFSET 0 -1 0\n",
            "OFFSET 0 -1 zero\n",
            "line 8: OFFSET `zero` is not a number",
        ),
        (
            "CHANNELS 3 Zrotation Xrotation Yrotation\n",
            "CHANNELS 3 Zrotation Wrotation Yrotation\n",
            "line 9: unknown channel `Wrotation`",
        ),
        (
            "CHANNELS 3 Zrotation Xrotation Yrotation\n",
            "CHANNELS 4 Zrotation Xrotation Yrotation\n",
            "line 9: CHANNELS says 4 but lists 3",
        ),
        (
            "1 2 3 10 20 30 40 50 61\n",
            "1 2 3 10 20 30 40 50\n",
            "line 20: frame 1 has 8 values, the channels need 9",
        ),
        (
            "1 2 3 10 20 30 40 50 61\n",
            "",
            "line 20: the file ends after 1 of 2 frames",
        ),
        ("Frames: 2", "Frames: -2", "line 17: Frames `-2`"),
        (
            "Frame Time: .5",
            "Frame Time: 0",
            "line 18: Frame Time 0 must be within [1e-6, 1e6] s",
        ),
        (
            "Frame Time: .5",
            "Frame Time: nan",
            "line 18: Frame Time `nan` is not finite",
        ),
        (
            " }\n}\nMOTION",
            " }\nMOTION",
            "line 15: MOTION with 1 unclosed block(s)",
        ),
        (
            "1 2 3 10 20 30 40 50 61\n",
            "1 2 3 10 20 30 40 50 61\n7 7 7\n",
            "line 21: more motion lines than Frames says",
        ),
        (
            " JOINT Leg\n {",
            " JOINT Leg\n OFFSET 1 2 3",
            "line 7: expected `{` after the header on line 6",
        ),
    ];
    for (from, to, want) in cases {
        let text = if from.is_empty() {
            to.to_string()
        } else {
            SMALL.replacen(from, to, 1)
        };
        let e = bvh::parse(&text).expect_err(want).to_string();
        assert!(e.contains(want), "want `{want}`, got `{e}`");
    }
    let e = bvh::load("/no/such/file.bvh").unwrap_err().to_string();
    assert!(e.starts_with("/no/such/file.bvh: "), "{e}");
}

/// BVH-shaped garbage: a random hierarchy (random depth, channel lists and
/// counts) with motion rows, then a few lines replaced by lines of the
/// format's own vocabulary with extreme counts and numbers, so the parser is
/// driven past line 1 into the hierarchy, the counts and the motion. None
/// may panic; a share must parse and a share must be refused deep in the
/// file.
#[test]
fn bvh_shaped_garbage_never_panics() {
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let mut rnd = |n: usize| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as usize % n
    };
    let numbers = [
        "0",
        "1",
        "-1",
        "2",
        "0.5",
        "1e39",
        "3e38",
        "nan",
        "18446744073709551615",
        "x",
    ];
    let names = [
        "Xposition",
        "Zrotation",
        "Xrotation",
        "Yrotation",
        "Wrotation",
    ];
    let (mut parsed, mut deep) = (0, 0);
    for _ in 0..3000 {
        let mut lines: Vec<String> = vec!["HIERARCHY".into()];
        let (mut open, mut total, mut joints) = (0usize, 0usize, 0usize);
        loop {
            if joints == 0 || (open > 0 && rnd(3) > 0 && joints < 12) {
                lines.push(if joints == 0 {
                    "ROOT r".into()
                } else {
                    format!("JOINT j{joints}")
                });
                lines.push("{".into());
                lines.push(format!("OFFSET {} 1 0", numbers[rnd(5)]));
                let k = [0, 3, 3, 6, 1, 2][rnd(6)];
                let list: Vec<&str> = (0..k).map(|_| names[rnd(names.len() - 1)]).collect();
                lines.push(format!("CHANNELS {k} {}", list.join(" ")));
                total += k;
                joints += 1;
                open += 1;
            } else if open > 0 {
                if rnd(4) == 0 {
                    lines.extend(["End Site", "{", "OFFSET 0 1 0", "}"].map(String::from));
                }
                lines.push("}".into());
                open -= 1;
                if open == 0 {
                    break;
                }
            }
        }
        let frames = 1 + rnd(3);
        lines.push("MOTION".into());
        lines.push(format!("Frames: {frames}"));
        lines.push(format!(
            "Frame Time: {}",
            ["0.0083333", "0.5", "1e38", "1e-45"][rnd(4).min(rnd(4))]
        ));
        for _ in 0..frames {
            let row: Vec<&str> = (0..total).map(|_| numbers[rnd(5).min(rnd(10))]).collect();
            lines.push(row.join(" "));
        }
        // Damage: replace, duplicate or drop a few lines.
        for _ in 0..rnd(3) {
            let at = rnd(lines.len());
            let extreme = numbers[rnd(numbers.len())];
            match rnd(4) {
                // A count replaced by an extreme one, on a line that has one.
                0 | 1 => {
                    let key = if rnd(2) == 0 { "Frames:" } else { "CHANNELS" };
                    let hits: Vec<usize> = (0..lines.len())
                        .filter(|&i| lines[i].starts_with(key))
                        .collect();
                    if hits.is_empty() {
                        continue;
                    }
                    let i = hits[rnd(hits.len())];
                    let mut words: Vec<String> = lines[i].split(' ').map(String::from).collect();
                    words[1] = extreme.to_string();
                    lines[i] = words.join(" ");
                }
                2 => {
                    let l = lines[at].clone();
                    lines.insert(at, l);
                }
                _ => {
                    lines.remove(at);
                }
            }
        }
        match bvh::parse(&lines.join("\n")) {
            Ok(_) => parsed += 1,
            Err(kineform::Error::Bvh { line, .. }) if line > 3 => deep += 1,
            Err(_) => {}
        }
    }
    assert!(parsed >= 300, "only {parsed} of 3000 parsed");
    assert!(deep >= 300, "only {deep} of 3000 refused past line 3");
}

proptest! {
    #[test]
    fn damaged_files_never_panic(cut in 0usize..400, len in 0usize..30, insert in "[ {}0-9A-Za-z.\\-\n]{0,12}") {
        let mut t = SMALL.to_string();
        let a = cut.min(t.len());
        let b = (a + len).min(t.len());
        t.replace_range(a..b, &insert);
        let _ = bvh::parse(&t);
    }
}

/// The CMU header (31 joints) with `motion` after `MOTION`.
fn cmu_with_motion(motion: &str) -> String {
    let text = std::fs::read_to_string(path("cmu_102_01_max.bvh")).unwrap();
    let at = text.find("MOTION").unwrap();
    format!("{}MOTION\n{motion}", &text[..at])
}

/// Issue 13, defect 1: the `Frames:` header was trusted before any frame was
/// read (a 37 GB allocation aborted the process; `usize::MAX` frames
/// panicked on capacity overflow).
#[test]
fn frames_header_is_not_trusted_before_data() {
    for frames in ["100000000", "18446744073709551615", "2165000"] {
        let text = cmu_with_motion(&format!("Frames: {frames}\nFrame Time: 0.0083333\n"));
        let e = bvh::parse(&text).unwrap_err().to_string();
        assert!(
            e.contains("more than the 8388608 samples"),
            "Frames {frames}: {e}"
        );
        assert!(e.starts_with("BVH line "), "{e}");
    }
    // Below the limit, a header that promises more frames than the file has
    // is refused at the end of the file, having allocated only what it read.
    let text = cmu_with_motion("Frames: 200000\nFrame Time: 0.0083333\n");
    let e = bvh::parse(&text).unwrap_err().to_string();
    assert!(e.contains("the file ends after 0 of 200000 frames"), "{e}");
}

/// Issue 13, defect 1: `CHANNELS 18446744073709551615 ...` overflowed
/// `count + 2`.
#[test]
fn channel_count_overflow_is_refused() {
    for count in [
        "18446744073709551615",
        "18446744073709551614",
        "99999999999999999999999",
    ] {
        let text = SMALL.replacen(
            "CHANNELS 3 Zrotation",
            &format!("CHANNELS {count} Zrotation"),
            1,
        );
        let e = bvh::parse(&text).unwrap_err().to_string();
        assert!(e.starts_with("BVH line 9: CHANNELS"), "{count}: {e}");
    }
}

/// Issue 13, defect 2: an OFFSET plus a position channel could overflow to
/// infinity, which `write` emitted as `inf` and the crowd turned into NaN.
#[test]
fn non_finite_positions_from_a_file_are_refused() {
    // Issue 21, defect 4: the positions' domain is ±1e6 (an OFFSET past it
    // is refused at its line; OFFSET plus channel at the frame's line).
    let text = SMALL.replacen("OFFSET 0 0 0", "OFFSET 3e38 0 0", 1);
    let e = bvh::parse(&text).unwrap_err().to_string();
    assert!(e.starts_with("BVH line 4: OFFSET"), "{e}");
    let text = SMALL
        .replacen("OFFSET 0 0 0", "OFFSET 6e5 0 0", 1)
        .replacen("1 2 3 10 20 30 40 50 61", "6e5 2 3 10 20 30 40 50 61", 1);
    let e = bvh::parse(&text).unwrap_err().to_string();
    assert!(
        e.starts_with("BVH line 20: frame 1: joint 0 (`Hips`) position"),
        "{e}"
    );
    for (from, to) in [
        ("OFFSET 0 -1 0", "OFFSET 0 -1 1e39"),
        ("1 2 3 10", "1 inf 3 10"),
    ] {
        let e = bvh::parse(&SMALL.replacen(from, to, 1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not finite"), "{e}");
    }
}

/// Issue 13, defect 2: `Frame Time: 1e38` with 5 frames made the clip
/// length infinite (and the crowd panic); a subnormal frame time made every
/// sampled velocity infinite.
#[test]
fn frame_times_that_break_the_clip_are_refused() {
    let five = "1 2 3 10 20 30 40 50 61\n".repeat(5);
    let text = SMALL
        .replacen("Frames: 2", "Frames: 5", 1)
        .replacen("Frame Time: .5", "Frame Time: 1e38", 1)
        .replacen(
            "1 2 3 10 20 30 40 50 60\n1 2 3 10 20 30 40 50 61\n",
            &five,
            1,
        );
    let e = bvh::parse(&text).unwrap_err().to_string();
    assert!(e.starts_with("BVH line 18: Frame Time"), "{e}");
    assert!(e.contains("within [1e-6, 1e6] s"), "{e}");
    for ft in ["1e-45", "1e-7"] {
        let e = bvh::parse(&SMALL.replacen("Frame Time: .5", &format!("Frame Time: {ft}"), 1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("within [1e-6, 1e6] s"), "{ft}: {e}");
    }
    // The CMU frame time, and one frame at any frame time up to 1e6 s
    // (issue 21: the longest time a command can set), load.
    assert!(
        bvh::parse(
            &SMALL
                .replacen("Frames: 2", "Frames: 1", 1)
                .replacen("1 2 3 10 20 30 40 50 61\n", "", 1)
                .replacen("Frame Time: .5", "Frame Time: 1e6", 1)
        )
        .is_ok()
    );
}

/// Issue 13, defect 8: errors quoted the whole offending line (a 10 MB line
/// made a 10 MB message; a CR-only file echoed the whole file).
#[test]
fn errors_quote_a_bounded_excerpt() {
    let long = "x".repeat(10_000_000);
    for text in [
        format!("HIERARCHY\n{long}\n"),
        format!("{long}\n"),
        SMALL.replacen("OFFSET 0 -1 0", &format!("OFFSET 0 -1 {long}"), 1),
        SMALL.replacen("Frames: 2", &format!("Frames: {long}"), 1),
        SMALL.replacen(
            "Zrotation Xrotation Yrotation",
            &format!("Zrotation {long} Yrotation"),
            1,
        ),
        SMALL.replacen(
            "1 2 3 10 20 30 40 50 61\n",
            &format!("1 2 3 10 20 30 40 50 61\n{long}\n"),
            1,
        ),
        // Old Mac line ends: a CR-only file is still read line by line; the
        // damaged one quotes only its line.
        SMALL
            .replace('\n', "\r")
            .replacen("HIERARCHY", "HIERARCHX", 1),
    ] {
        let e = bvh::parse(&text).unwrap_err().to_string();
        assert!(e.len() < 200, "{} bytes: {}", e.len(), &e[..200]);
    }
    let e = bvh::parse(&format!("HIERARCHY\n{long}\n"))
        .unwrap_err()
        .to_string();
    assert!(e.ends_with("…` (10000000 bytes)"), "{e}");
}

/// Issue 13, defect 8: a UTF-8 byte order mark was refused, with an
/// invisible character in the message; CR-only line ends are lines too.
#[test]
fn byte_order_mark_and_cr_line_ends_are_accepted() {
    let want = bvh::parse(SMALL).unwrap();
    assert_eq!(bvh::parse(&format!("\u{feff}{SMALL}")).unwrap(), want);
    assert_eq!(bvh::parse(&SMALL.replace('\n', "\r")).unwrap(), want);
    let e = bvh::parse(
        &SMALL
            .replace('\n', "\r")
            .replacen("Frames: 2", "Frames: two", 1),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("BVH line 17: Frames `two`"), "{e}");
}

/// Issue 13, defect 8: a parse error read from a file names the file.
#[test]
fn load_errors_name_the_file() {
    let dir = std::env::temp_dir().join(format!("kineform-bvh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("broken.bvh");
    std::fs::write(&file, SMALL.replacen("Frames: 2", "Frames: -2", 1)).unwrap();
    let e = bvh::load(&file).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}: BVH line 17: Frames `-2`", file.display())),
        "{e}"
    );
    std::fs::write(&file, b"HIERARCHY\n\xff\n").unwrap();
    let e = bvh::load(&file).unwrap_err().to_string();
    assert!(e.contains("BVH line 2: byte 10 is not valid UTF-8"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
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
    assert_eq!(a.clip.pos(0, 0), r::Vec3::new(5.0, 2.0, 3.0));
    let b = bvh::parse(&bvh::write(&a, &a.clip).unwrap()).unwrap();
    assert_eq!(b.clip.positions(), a.clip.positions());
}
