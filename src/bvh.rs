//! BVH motion capture in and out.
//!
//! A small parser of our own rather than a crate: the crates on crates.io
//! for BVH (`bvh_anim` 0.4 being the most complete) give Euler channels but
//! no quaternions or clip layout, pull in their own math types, and were not
//! checked against these files' quirks; what we need is about 300 lines and
//! has to produce our [`Skeleton`] and [`Clip`] directly.
//!
//! Quirks handled (all five CMU files in `data/mocap` load): CRLF and LF
//! mixed in one file, lines without indentation, `Frame Time: .0083333`,
//! a different Euler order on different joints, zero-length bones, End Sites.
//! Euler channels apply in the listed order as intrinsic rotations
//! (`Zrotation Yrotation Xrotation` is `Rz Ry Rx`), in degrees. A joint's
//! local position is its OFFSET plus its position channels, if any.
//!
//! Malformed input gives [`Error::Bvh`] with the line number and the
//! reason, never a panic.

use crate::clip::Clip;
use crate::error::{Error, Result};
use crate::reference::{Quat, Vec3};
use crate::skeleton::Skeleton;

/// One motion channel of a joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// Translation along x.
    Xposition,
    /// Translation along y.
    Yposition,
    /// Translation along z.
    Zposition,
    /// Rotation about x, degrees.
    Xrotation,
    /// Rotation about y, degrees.
    Yrotation,
    /// Rotation about z, degrees.
    Zrotation,
}

impl Channel {
    fn parse(s: &str) -> Option<Channel> {
        Some(match s.to_ascii_lowercase().as_str() {
            "xposition" => Channel::Xposition,
            "yposition" => Channel::Yposition,
            "zposition" => Channel::Zposition,
            "xrotation" => Channel::Xrotation,
            "yrotation" => Channel::Yrotation,
            "zrotation" => Channel::Zrotation,
            _ => return None,
        })
    }

    /// The name used in files.
    pub fn name(self) -> &'static str {
        match self {
            Channel::Xposition => "Xposition",
            Channel::Yposition => "Yposition",
            Channel::Zposition => "Zposition",
            Channel::Xrotation => "Xrotation",
            Channel::Yrotation => "Yrotation",
            Channel::Zrotation => "Zrotation",
        }
    }

    /// Axis index (0 = x, 1 = y, 2 = z).
    pub fn axis(self) -> usize {
        match self {
            Channel::Xposition | Channel::Xrotation => 0,
            Channel::Yposition | Channel::Yrotation => 1,
            Channel::Zposition | Channel::Zrotation => 2,
        }
    }

    /// True for a rotation channel.
    pub fn is_rotation(self) -> bool {
        matches!(
            self,
            Channel::Xrotation | Channel::Yrotation | Channel::Zrotation
        )
    }
}

/// A parsed BVH file: the hierarchy with its offsets and channels, and the
/// motion as a [`Clip`] (unit scales).
#[derive(Clone, Debug, PartialEq)]
pub struct Bvh {
    /// Joint hierarchy and names (End Sites are not joints).
    pub skeleton: Skeleton,
    /// OFFSET of each joint.
    pub offsets: Vec<Vec3>,
    /// CHANNELS of each joint, in file order.
    pub channels: Vec<Vec<Channel>>,
    /// The End Site OFFSET under each joint, if it has one.
    pub end_sites: Vec<Option<Vec3>>,
    /// The motion.
    pub clip: Clip,
}

/// Most samples (frames × joints) a BVH file may hold: 2^26, about 67
/// million, 2.7 GB as a [`Clip`]. The `Frames:` header is checked against it
/// before any motion is read, and storage grows only as frames are read, so
/// a header cannot make the parser allocate what the file does not contain.
pub const MAX_SAMPLES: usize = 1 << 26;

/// Longest excerpt of the input quoted in an error message, in characters.
pub const EXCERPT_CHARS: usize = 40;

fn err<T>(line: usize, reason: impl Into<String>) -> Result<T> {
    Err(Error::Bvh {
        path: None,
        line,
        reason: reason.into(),
    })
}

/// `s` quoted for an error message: at most [`EXCERPT_CHARS`] characters,
/// control characters escaped, with the full length said when cut.
fn excerpt(s: &str) -> String {
    let mut out = String::new();
    for (n, c) in s.chars().enumerate() {
        if n == EXCERPT_CHARS {
            return format!("`{out}…` ({} bytes)", s.len());
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    format!("`{out}`")
}

/// Lines with their 1-based numbers, trimmed, blank ones skipped. A line
/// ends at LF, CRLF or a lone CR (old Mac files).
struct Lines<'a> {
    rest: &'a str,
    done: bool,
    number: usize,
    last: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines {
            rest: text,
            done: false,
            number: 0,
            last: 0,
        }
    }

    fn raw(&mut self) -> Option<&'a str> {
        if self.done {
            return None;
        }
        self.number += 1;
        let (line, rest) = match self.rest.find(['\n', '\r']) {
            Some(i) => {
                let skip = if self.rest[i..].starts_with("\r\n") {
                    2
                } else {
                    1
                };
                (&self.rest[..i], &self.rest[i + skip..])
            }
            None => {
                self.done = true;
                (self.rest, "")
            }
        };
        self.rest = rest;
        Some(line)
    }

    fn next(&mut self) -> Option<(usize, &'a str)> {
        while let Some(l) = self.raw() {
            self.last = self.number;
            let l = l.trim();
            if !l.is_empty() {
                return Some((self.number, l));
            }
        }
        None
    }

    fn expect(&mut self, what: &str) -> Result<(usize, &'a str)> {
        match self.next() {
            Some(x) => Ok(x),
            None => err(
                self.last.max(1),
                format!("unexpected end of file, expected {what}"),
            ),
        }
    }
}

fn parse_f32(line: usize, s: &str, what: &str) -> Result<f32> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => err(line, format!("{what} {} is not finite", excerpt(s))),
        Err(_) => err(line, format!("{what} {} is not a number", excerpt(s))),
    }
}

fn parse_vec3(line: usize, words: &[&str], what: &str) -> Result<Vec3> {
    if words.len() != 3 {
        return err(
            line,
            format!("{what} needs 3 numbers, found {}", words.len()),
        );
    }
    Ok(Vec3::new(
        parse_f32(line, words[0], what)?,
        parse_f32(line, words[1], what)?,
        parse_f32(line, words[2], what)?,
    ))
}

/// Parses a BVH file's text (a leading UTF-8 byte order mark is skipped).
///
/// Refused with [`Error::Bvh`], naming the line: malformed structure, a
/// joint name with a control character (it could not be written back), more
/// than [`crate::skeleton::MAX_JOINTS`] joints, counts that are not whole
/// numbers or overflow, more than [`MAX_SAMPLES`] frames × joints, numbers
/// that are not finite, a joint position (OFFSET plus position channels)
/// that is not finite in f32, a frame time below
/// [`crate::clip::MIN_FRAME_TIME`] or one that makes the clip length
/// infinite. Messages quote at most [`EXCERPT_CHARS`] characters of input.
pub fn parse(text: &str) -> Result<Bvh> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = Lines::new(text);
    let (n, l) = lines.expect("HIERARCHY")?;
    if !l.eq_ignore_ascii_case("HIERARCHY") {
        return err(n, format!("expected HIERARCHY, found {}", excerpt(l)));
    }

    let mut parents: Vec<i32> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut offsets: Vec<Vec3> = Vec::new();
    let mut channels: Vec<Vec<Channel>> = Vec::new();
    let mut end_sites: Vec<Option<Vec3>> = Vec::new();
    // The line of each joint's header, for errors about the joint.
    let mut joint_lines: Vec<usize> = Vec::new();
    // Stack of open blocks: Some(joint) for a joint, None for an End Site.
    let mut stack: Vec<Option<usize>> = Vec::new();
    let mut pending: Option<(usize, Option<usize>)> = None; // header awaiting `{`
    let mut seen_root = false;

    loop {
        let (n, l) = lines.expect("the hierarchy or MOTION")?;
        let words: Vec<&str> = l.split_whitespace().collect();
        let key = words[0].to_ascii_uppercase();
        if let Some((hn, kind)) = pending.take() {
            if l != "{" {
                return err(n, format!("expected `{{` after the header on line {hn}"));
            }
            stack.push(kind);
            continue;
        }
        match key.as_str() {
            "ROOT" | "JOINT" => {
                if key == "ROOT" && !stack.is_empty() {
                    return err(n, "ROOT inside another joint");
                }
                if key == "JOINT" && stack.is_empty() {
                    return err(n, "JOINT outside any ROOT");
                }
                if key == "JOINT" && matches!(stack.last(), Some(None)) {
                    return err(n, "JOINT inside an End Site");
                }
                if words.len() < 2 {
                    return err(n, format!("{key} without a name"));
                }
                if words[1..].iter().any(|w| w.chars().any(char::is_control)) {
                    return err(
                        n,
                        format!("{key} name {} has a control character", excerpt(l)),
                    );
                }
                let parent = stack.last().copied().flatten().map_or(-1, |p| p as i32);
                let j = parents.len();
                if j >= crate::skeleton::MAX_JOINTS {
                    return err(
                        n,
                        format!(
                            "too many joints: at most {} are allowed",
                            crate::skeleton::MAX_JOINTS
                        ),
                    );
                }
                parents.push(parent);
                names.push(words[1..].join(" "));
                offsets.push(Vec3::ZERO);
                channels.push(Vec::new());
                end_sites.push(None);
                joint_lines.push(n);
                seen_root = true;
                pending = Some((n, Some(j)));
            }
            "END" => {
                if words.len() < 2 || !words[1].eq_ignore_ascii_case("Site") {
                    return err(n, format!("expected `End Site`, found {}", excerpt(l)));
                }
                if !matches!(stack.last(), Some(Some(_))) {
                    return err(n, "End Site outside a joint");
                }
                pending = Some((n, None));
            }
            "OFFSET" => {
                let v = parse_vec3(n, &words[1..], "OFFSET")?;
                match stack.last() {
                    Some(Some(j)) => offsets[*j] = v,
                    Some(None) => {
                        let owner = stack.iter().rev().find_map(|s| *s);
                        if let Some(j) = owner {
                            end_sites[j] = Some(v);
                        }
                    }
                    None => return err(n, "OFFSET outside a joint"),
                }
            }
            "CHANNELS" => {
                let Some(Some(j)) = stack.last().copied() else {
                    return err(n, "CHANNELS outside a joint");
                };
                let listed = words.len().saturating_sub(2);
                let count: usize = match words.get(1).and_then(|c| c.parse().ok()) {
                    Some(c) => c,
                    None => return err(n, "CHANNELS needs a whole-number count"),
                };
                if count != listed {
                    return err(n, format!("CHANNELS says {count} but lists {listed}"));
                }
                let mut cs = Vec::with_capacity(listed);
                for w in &words[2..] {
                    match Channel::parse(w) {
                        Some(c) => cs.push(c),
                        None => return err(n, format!("unknown channel {}", excerpt(w))),
                    }
                }
                channels[j] = cs;
            }
            "}" => {
                if stack.pop().is_none() {
                    return err(n, "unmatched `}`");
                }
            }
            "MOTION" => {
                if !stack.is_empty() {
                    return err(n, format!("MOTION with {} unclosed block(s)", stack.len()));
                }
                if !seen_root {
                    return err(n, "MOTION before any ROOT");
                }
                break;
            }
            _ => return err(n, format!("unexpected {}", excerpt(words[0]))),
        }
    }

    let header = |lines: &mut Lines, label: &str| -> Result<(usize, String)> {
        let (n, l) = lines.expect(label)?;
        match l.split_once(':') {
            Some((k, v)) if k.trim().eq_ignore_ascii_case(label) => Ok((n, v.trim().to_string())),
            _ => err(n, format!("expected `{label}:`, found {}", excerpt(l))),
        }
    };
    let joints = parents.len();
    let (n, v) = header(&mut lines, "Frames")?;
    let frames: usize = match v.parse() {
        Ok(f) if f > 0 => f,
        _ => {
            return err(
                n,
                format!("Frames {} is not a positive whole number", excerpt(&v)),
            );
        }
    };
    match frames.checked_mul(joints) {
        Some(s) if s <= MAX_SAMPLES => {}
        _ => {
            return err(
                n,
                format!(
                    "Frames {frames} × {joints} joints is more than {MAX_SAMPLES} samples (2^26)"
                ),
            );
        }
    }
    let (n, v) = header(&mut lines, "Frame Time")?;
    let frame_time = parse_f32(n, &v, "Frame Time")?;
    if frame_time < crate::clip::MIN_FRAME_TIME {
        return err(
            n,
            format!(
                "Frame Time {frame_time} must be positive and at least {:e} s",
                crate::clip::MIN_FRAME_TIME
            ),
        );
    }
    if !((frames - 1) as f32 * frame_time).is_finite() {
        return err(
            n,
            format!("Frame Time {frame_time} × {frames} frames is not finite in f32"),
        );
    }

    let total: usize = channels.iter().map(Vec::len).sum();
    // Grown as frames are read, never sized from the header alone.
    let (mut pos, mut rot) = (Vec::new(), Vec::new());
    let mut values = Vec::with_capacity(total);
    for f in 0..frames {
        let (n, l) = match lines.next() {
            Some(x) => x,
            None => {
                return err(
                    lines.last.max(1),
                    format!("the file ends after {f} of {frames} frames"),
                );
            }
        };
        values.clear();
        for w in l.split_whitespace() {
            if values.len() == total {
                return err(
                    n,
                    format!("frame {f} has more than the {total} values the channels need"),
                );
            }
            values.push(parse_f32(n, w, "motion value")?);
        }
        if values.len() != total {
            return err(
                n,
                format!(
                    "frame {f} has {} values, the channels need {total}",
                    values.len()
                ),
            );
        }
        let mut k = 0;
        for j in 0..joints {
            let mut p = offsets[j];
            let mut r = [1.0f64, 0.0, 0.0, 0.0];
            for &c in &channels[j] {
                let v = values[k];
                k += 1;
                if c.is_rotation() {
                    r = qmul64(r, axis_quat64(c.axis(), (v as f64).to_radians()));
                } else {
                    match c.axis() {
                        0 => p.x += v,
                        1 => p.y += v,
                        _ => p.z += v,
                    }
                }
            }
            if !(p.x.is_finite() && p.y.is_finite() && p.z.is_finite()) {
                return err(
                    n,
                    format!(
                        "frame {f}: joint {j} ({}) position, OFFSET plus channels, is not finite in f32",
                        excerpt(&names[j])
                    ),
                );
            }
            pos.push(p);
            rot.push(Quat::new(
                r[0] as f32,
                r[1] as f32,
                r[2] as f32,
                r[3] as f32,
            ));
        }
    }
    if let Some((n, l)) = lines.next() {
        return err(
            n,
            format!(
                "more motion lines than Frames says ({frames}): {}",
                excerpt(l)
            ),
        );
    }

    let skeleton = Skeleton::with_names(parents, names).map_err(|e| {
        let line = match &e {
            Error::Skeleton { joint, .. } => joint_lines.get(*joint).copied().unwrap_or(0),
            _ => 0,
        };
        Error::Bvh {
            path: None,
            line,
            reason: e.to_string(),
        }
    })?;
    let scl = vec![Vec3::ONE; frames * joints];
    let clip = Clip::new(frames, joints, frame_time, pos, rot, scl).map_err(|e| Error::Bvh {
        path: None,
        line: 0,
        reason: e.to_string(),
    })?;
    Ok(Bvh {
        skeleton,
        offsets,
        channels,
        end_sites,
        clip,
    })
}

/// Reads and parses a BVH file; parse errors name the file
/// ([`Error::Bvh`]'s `path`), and a file that is not UTF-8 is refused with
/// the line of the first bad byte.
pub fn load(path: impl AsRef<std::path::Path>) -> Result<Bvh> {
    let path = path.as_ref();
    let named = |e: Error| match e {
        Error::Bvh { line, reason, .. } => Error::Bvh {
            path: Some(path.display().to_string()),
            line,
            reason,
        },
        e => e,
    };
    let bytes = std::fs::read(path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.valid_up_to();
            let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
            return Err(named(Error::Bvh {
                path: None,
                line,
                reason: format!("byte {at} is not valid UTF-8"),
            }));
        }
    };
    parse(text).map_err(named)
}

fn axis_quat64(axis: usize, angle: f64) -> [f64; 4] {
    let (s, c) = (angle * 0.5).sin_cos();
    let mut q = [c, 0.0, 0.0, 0.0];
    q[axis + 1] = s;
    q
}

fn qmul64(q: [f64; 4], p: [f64; 4]) -> [f64; 4] {
    [
        q[0] * p[0] - q[1] * p[1] - q[2] * p[2] - q[3] * p[3],
        q[0] * p[1] + q[1] * p[0] + q[2] * p[3] - q[3] * p[2],
        q[0] * p[2] - q[1] * p[3] + q[2] * p[0] + q[3] * p[1],
        q[0] * p[3] + q[1] * p[2] - q[2] * p[1] + q[3] * p[0],
    ]
}

/// The rotation matrix of a quaternion (computed in f64), `m[row][col]`.
pub fn quat_to_matrix(q: Quat) -> [[f64; 3]; 3] {
    let (w, x, y, z) = (q.w as f64, q.x as f64, q.y as f64, q.z as f64);
    let n = (w * w + x * x + y * y + z * z).sqrt();
    let (w, x, y, z) = (w / n, x / n, y / n, z / n);
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// Euler angles in degrees, in the order of `axes` (three distinct axes,
/// intrinsic: `R = R_a0 R_a1 R_a2`), that reproduce `q`. The middle angle is
/// in `[-90, 90]`.
pub fn quat_to_euler(q: Quat, axes: [usize; 3]) -> [f32; 3] {
    let m = quat_to_matrix(q);
    let [i, j, k] = axes;
    // +1 for an even permutation of (x, y, z), -1 for an odd one.
    let s = if (j + 3 - i) % 3 == 1 { 1.0 } else { -1.0 };
    let b = (s * m[i][k]).clamp(-1.0, 1.0).asin();
    let (a, c) = if m[i][k].abs() < 1.0 - 1e-12 {
        ((-s * m[j][k]).atan2(m[k][k]), (-s * m[i][j]).atan2(m[i][i]))
    } else {
        // Gimbal lock: put the whole remaining rotation in the first angle.
        ((s * m[k][j]).atan2(m[j][j]), 0.0)
    };
    [
        a.to_degrees() as f32,
        b.to_degrees() as f32,
        c.to_degrees() as f32,
    ]
}

/// Writes a BVH file: the hierarchy of `bvh` with its offsets and channels,
/// and the motion of `clip` (which must have `bvh`'s joints). Positions are
/// written to the position channels as `clip position - OFFSET` (a channel
/// repeated on one joint gets 0 after the first, since reading adds them);
/// rotations as
/// Euler angles in each joint's channel order. Scales are not written (BVH
/// has no scale channels). Numbers are printed with the shortest text that
/// reads back as the same f32.
///
/// Linear in the size of the output and iterative (any depth the parser
/// accepts, 65,535 nested joints included, writes without recursion):
/// children are listed once, and indentation stops growing at
/// [`MAX_INDENT`] tabs. Refused, with nothing written: fields of `bvh` whose
/// lengths differ from its skeleton's, a joint name that would not read back
/// (empty, or with line breaks, tabs or doubled spaces), no channels
/// at all (motion lines cannot be empty), a joint with
/// rotation channels other than 0 or 3 distinct axes, and an offset or a
/// channel value that is not finite.
pub fn write(bvh: &Bvh, clip: &Clip) -> Result<String> {
    use core::fmt::Write as _;
    let joints = bvh.skeleton.len();
    let bad = |reason: String| {
        Err(Error::Bvh {
            path: None,
            line: 0,
            reason,
        })
    };
    for (what, len) in [
        ("clip joints", clip.joints()),
        ("offsets", bvh.offsets.len()),
        ("channels", bvh.channels.len()),
        ("end sites", bvh.end_sites.len()),
    ] {
        if len != joints {
            return Err(Error::Length {
                what,
                expected: joints,
                got: len,
            });
        }
    }
    if bvh.channels.iter().all(Vec::is_empty) {
        return bad("no joint has channels: BVH motion lines cannot be empty".into());
    }
    let names = bvh.skeleton.names();
    let finite = |v: Vec3| v.x.is_finite() && v.y.is_finite() && v.z.is_finite();
    let mut rot_axes: Vec<Option<[usize; 3]>> = Vec::with_capacity(joints);
    for (j, cs) in bvh.channels.iter().enumerate() {
        let name = &names[j];
        let words: Vec<&str> = name.split(' ').collect();
        if name.is_empty()
            || words.iter().any(|w| w.is_empty())
            || name
                .chars()
                .any(|c| c.is_whitespace() && c != ' ' || c.is_control())
        {
            return bad(format!(
                "joint {j} name {} would not read back",
                excerpt(name)
            ));
        }
        if !finite(bvh.offsets[j]) || !bvh.end_sites[j].is_none_or(finite) {
            return bad(format!(
                "joint {j} ({}): an OFFSET is not finite",
                excerpt(name)
            ));
        }
        let rot: Vec<usize> = cs
            .iter()
            .filter(|c| c.is_rotation())
            .map(|c| c.axis())
            .collect();
        let distinct = rot.len() == 3 && rot[0] != rot[1] && rot[1] != rot[2] && rot[0] != rot[2];
        if !(rot.is_empty() || distinct) {
            return bad(format!(
                "joint {j} ({}): writing needs 0 or 3 distinct rotation channels",
                excerpt(name)
            ));
        }
        rot_axes.push(distinct.then(|| [rot[0], rot[1], rot[2]]));
    }

    // Children listed once, in index order (parents precede children).
    let parents = bvh.skeleton.parents();
    let mut first_child = vec![usize::MAX; joints];
    let mut next_sibling = vec![usize::MAX; joints];
    for j in (0..joints).rev() {
        if let Ok(p) = usize::try_from(parents[j]) {
            next_sibling[j] = first_child[p];
            first_child[p] = j;
        }
    }

    let mut out = String::from("HIERARCHY\n");
    let tab = |out: &mut String, depth: usize| {
        for _ in 0..depth.min(MAX_INDENT) {
            out.push('\t');
        }
    };
    // Depth-first without recursion: a stack of (joint, entering).
    let mut stack: Vec<(usize, bool)> = (0..joints)
        .rev()
        .filter(|&j| parents[j] < 0)
        .map(|j| (j, true))
        .collect();
    let mut depth = 0usize;
    while let Some((j, entering)) = stack.pop() {
        if entering {
            let kind = if parents[j] < 0 { "ROOT" } else { "JOINT" };
            let o = bvh.offsets[j];
            tab(&mut out, depth);
            let _ = writeln!(out, "{kind} {}", names[j]);
            tab(&mut out, depth);
            out.push_str("{\n");
            tab(&mut out, depth + 1);
            let _ = writeln!(out, "OFFSET {} {} {}", o.x, o.y, o.z);
            let cs = &bvh.channels[j];
            if !cs.is_empty() {
                tab(&mut out, depth + 1);
                let _ = write!(out, "CHANNELS {}", cs.len());
                for c in cs {
                    out.push(' ');
                    out.push_str(c.name());
                }
                out.push('\n');
            }
            stack.push((j, false));
            // Children pushed last-first so they are written in order.
            let mut kids = Vec::new();
            let mut c = first_child[j];
            while c != usize::MAX {
                kids.push(c);
                c = next_sibling[c];
            }
            stack.extend(kids.into_iter().rev().map(|c| (c, true)));
            depth += 1;
        } else {
            depth -= 1;
            if let Some(e) = bvh.end_sites[j] {
                tab(&mut out, depth + 1);
                out.push_str("End Site\n");
                tab(&mut out, depth + 1);
                out.push_str("{\n");
                tab(&mut out, depth + 2);
                let _ = writeln!(out, "OFFSET {} {} {}", e.x, e.y, e.z);
                tab(&mut out, depth + 1);
                out.push_str("}\n");
            }
            tab(&mut out, depth);
            out.push_str("}\n");
        }
    }
    let _ = write!(
        out,
        "MOTION\nFrames: {}\nFrame Time: {}\n",
        clip.frames(),
        clip.frame_time()
    );
    for f in 0..clip.frames() {
        let mut first = true;
        for (j, cs) in bvh.channels.iter().enumerate() {
            if cs.is_empty() {
                continue;
            }
            let euler = match rot_axes[j] {
                Some(axes) => quat_to_euler(clip.rot(f, j), axes),
                None => [0.0; 3],
            };
            let p = clip.pos(f, j) - bvh.offsets[j];
            let mut p = [p.x, p.y, p.z];
            let mut r = 0;
            for c in cs {
                let v = if c.is_rotation() {
                    r += 1;
                    euler[r - 1]
                } else {
                    // A repeated position channel adds to the same axis
                    // when read: the first carries the value, later ones 0.
                    core::mem::take(&mut p[c.axis()])
                };
                if !v.is_finite() {
                    return bad(format!(
                        "frame {f} joint {j} ({}): {} {v} is not finite",
                        excerpt(&names[j]),
                        c.name()
                    ));
                }
                if !first {
                    out.push(' ');
                }
                first = false;
                let _ = write!(out, "{v}");
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// Most tabs [`write()`] indents a line by: deeper joints are written at this
/// indentation, so a deep hierarchy's file grows linearly with its joints.
pub const MAX_INDENT: usize = 16;
