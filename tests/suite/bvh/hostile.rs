//! Broken and hostile BVH input: each refused with the line and the
//! reason (and the file), never a panic; headers not trusted before data.

use super::*;

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
