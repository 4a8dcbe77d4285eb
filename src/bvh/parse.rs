//! Reading BVH: the line scanner, [`parse()`] and [`load`].

use super::write::{axis_quat64, qmul64};
use super::*;
use crate::error::{try_push, try_vec};

fn err<T>(line: usize, reason: impl Into<String>) -> Result<T> {
    Err(Error::Bvh {
        path: None,
        line,
        reason: reason.into(),
    })
}

/// `s` quoted for an error message: at most [`EXCERPT_CHARS`] characters,
/// control characters escaped, with the full length said when cut.
pub(super) fn excerpt(s: &str) -> String {
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

/// The hierarchy part of a BVH file as it is read: one entry per joint in
/// file order, and the open blocks.
#[derive(Default)]
struct Hierarchy {
    parents: Vec<i32>,
    names: Vec<String>,
    offsets: Vec<Vec3>,
    channels: Vec<Vec<Channel>>,
    end_sites: Vec<Option<Vec3>>,
    /// The line of each joint's header, for errors about the joint.
    joint_lines: Vec<usize>,
    /// Open blocks: `Some(joint)` for a joint, `None` for an End Site.
    stack: Vec<Option<usize>>,
}

impl Hierarchy {
    /// Reads from after `HIERARCHY` to `MOTION` (consumed).
    fn read(lines: &mut Lines) -> Result<Hierarchy> {
        let mut h = Hierarchy::default();
        // A header awaiting its `{`: its line and the block it opens.
        let mut pending: Option<(usize, Option<usize>)> = None;
        loop {
            let (n, l) = lines.expect("the hierarchy or MOTION")?;
            let words: Vec<&str> = l.split_whitespace().collect();
            let key = words[0].to_ascii_uppercase();
            if let Some((hn, kind)) = pending.take() {
                if l != "{" {
                    return err(n, format!("expected `{{` after the header on line {hn}"));
                }
                h.stack.push(kind);
                continue;
            }
            match key.as_str() {
                "ROOT" | "JOINT" => pending = Some((n, Some(h.joint(n, &key, l, &words)?))),
                "END" => {
                    if words.len() < 2 || !words[1].eq_ignore_ascii_case("Site") {
                        return err(n, format!("expected `End Site`, found {}", excerpt(l)));
                    }
                    if !matches!(h.stack.last(), Some(Some(_))) {
                        return err(n, "End Site outside a joint");
                    }
                    pending = Some((n, None));
                }
                "OFFSET" => h.offset(n, &words)?,
                "CHANNELS" => h.channels(n, &words)?,
                "}" => {
                    if h.stack.pop().is_none() {
                        return err(n, "unmatched `}`");
                    }
                }
                "MOTION" => {
                    if !h.stack.is_empty() {
                        let open = h.stack.len();
                        return err(n, format!("MOTION with {open} unclosed block(s)"));
                    }
                    if h.parents.is_empty() {
                        return err(n, "MOTION before any ROOT");
                    }
                    return Ok(h);
                }
                _ => return err(n, format!("unexpected {}", excerpt(words[0]))),
            }
        }
    }

    /// A `ROOT` or `JOINT` header on line `n`: the new joint's index.
    fn joint(&mut self, n: usize, key: &str, l: &str, words: &[&str]) -> Result<usize> {
        if key == "ROOT" && !self.stack.is_empty() {
            return err(n, "ROOT inside another joint");
        }
        if key == "JOINT" && self.stack.is_empty() {
            return err(n, "JOINT outside any ROOT");
        }
        if key == "JOINT" && matches!(self.stack.last(), Some(None)) {
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
        let parent = self
            .stack
            .last()
            .copied()
            .flatten()
            .map_or(-1, |p| p as i32);
        let j = self.parents.len();
        if j >= crate::skeleton::MAX_JOINTS {
            return err(
                n,
                format!(
                    "too many joints: at most {} are allowed",
                    crate::skeleton::MAX_JOINTS
                ),
            );
        }
        self.parents.push(parent);
        self.names.push(words[1..].join(" "));
        self.offsets.push(Vec3::ZERO);
        self.channels.push(Vec::new());
        self.end_sites.push(None);
        self.joint_lines.push(n);
        Ok(j)
    }

    /// An `OFFSET` line: the open joint's offset, or its End Site's.
    fn offset(&mut self, n: usize, words: &[&str]) -> Result<()> {
        let v = parse_vec3(n, &words[1..], "OFFSET")?;
        let most = crate::limits::MAX_POSITION;
        if ![v.x, v.y, v.z].iter().all(|c| c.abs() <= most) {
            return err(
                n,
                format!(
                    "OFFSET {:?} must have each coordinate within ±{most:e} (kineform::limits::MAX_POSITION)",
                    [v.x, v.y, v.z]
                ),
            );
        }
        match self.stack.last() {
            Some(Some(j)) => self.offsets[*j] = v,
            Some(None) => {
                let owner = self.stack.iter().rev().find_map(|s| *s);
                if let Some(j) = owner {
                    self.end_sites[j] = Some(v);
                }
            }
            None => return err(n, "OFFSET outside a joint"),
        }
        Ok(())
    }

    /// A `CHANNELS` line: the open joint's channels.
    fn channels(&mut self, n: usize, words: &[&str]) -> Result<()> {
        let Some(Some(j)) = self.stack.last().copied() else {
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
        self.channels[j] = cs;
        Ok(())
    }
}

/// The `Frames:` and `Frame Time:` lines after `MOTION`, checked against
/// [`MAX_SAMPLES`] and the time limits: the frame count and frame time.
fn read_timing(lines: &mut Lines, joints: usize) -> Result<(usize, f32)> {
    let header = |lines: &mut Lines, label: &str| -> Result<(usize, String)> {
        let (n, l) = lines.expect(label)?;
        match l.split_once(':') {
            Some((k, v)) if k.trim().eq_ignore_ascii_case(label) => Ok((n, v.trim().to_string())),
            _ => err(n, format!("expected `{label}:`, found {}", excerpt(l))),
        }
    };
    let (n, v) = header(lines, "Frames")?;
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
                    "Frames {frames} × {joints} joints is more than the {MAX_SAMPLES} samples a file may hold (kineform::limits::MAX_SAMPLES)"
                ),
            );
        }
    }
    let (n, v) = header(lines, "Frame Time")?;
    let frame_time = parse_f32(n, &v, "Frame Time")?;
    let (min, max) = (crate::limits::MIN_FRAME_TIME, crate::limits::MAX_TIME);
    if !(min..=max).contains(&frame_time) {
        return err(
            n,
            format!(
                "Frame Time {frame_time} must be within [{min:e}, {max:e}] s (kineform::limits)"
            ),
        );
    }
    if (frames - 1) as f32 * frame_time > max {
        return err(
            n,
            format!(
                "Frame Time {frame_time} × {} frames is longer than {max:e} s, the longest time a command can set (kineform::limits::MAX_TIME)",
                frames - 1
            ),
        );
    }
    Ok((frames, frame_time))
}

/// The motion lines: every joint's local position (OFFSET plus position
/// channels) and rotation (the rotation channels in file order, composed in
/// f64) at every frame, frame-major. Grown as frames are read, never sized
/// from the header alone; nothing may follow the last frame.
fn read_motion(lines: &mut Lines, h: &Hierarchy, frames: usize) -> Result<(Vec<Vec3>, Vec<Quat>)> {
    let total: usize = h.channels.iter().map(Vec::len).sum();
    let (mut pos, mut rot) = (Vec::new(), Vec::new());
    let mut values = Vec::with_capacity(total);
    for f in 0..frames {
        let Some((n, l)) = lines.next() else {
            return err(
                lines.last.max(1),
                format!("the file ends after {f} of {frames} frames"),
            );
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
        frame_pose(h, &values, (n, f), (&mut pos, &mut rot))?;
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
    Ok((pos, rot))
}

/// One frame's local pose from its channel values (line `n`, frame `f`),
/// appended to `pos` and `rot`; a position past
/// [`crate::limits::MAX_POSITION`] is refused naming the frame and joint.
fn frame_pose(
    h: &Hierarchy,
    values: &[f32],
    (n, f): (usize, usize),
    (pos, rot): (&mut Vec<Vec3>, &mut Vec<Quat>),
) -> Result<()> {
    let mut k = 0;
    for (j, channels) in h.channels.iter().enumerate() {
        let mut p = h.offsets[j];
        let mut r = [1.0f64, 0.0, 0.0, 0.0];
        for &c in channels {
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
        let most = crate::limits::MAX_POSITION;
        if ![p.x, p.y, p.z].iter().all(|c| c.abs() <= most) {
            return err(
                n,
                format!(
                    "frame {f}: joint {j} ({}) position {:?}, OFFSET plus channels, must be finite, each coordinate within ±{most:e} (kineform::limits::MAX_POSITION)",
                    excerpt(&h.names[j]),
                    [p.x, p.y, p.z]
                ),
            );
        }
        // Grown with try_reserve: a file whose motion does not fit in
        // memory is refused (Error::Size), not an abort.
        let q = Quat::new(r[0] as f32, r[1] as f32, r[2] as f32, r[3] as f32);
        try_push("BVH joint positions", pos, p)?;
        try_push("BVH joint rotations", rot, q)?;
    }
    Ok(())
}

/// Parses a BVH file's text (a leading UTF-8 byte order mark is skipped).
///
/// Refused with [`Error::Bvh`], naming the line: malformed structure, a
/// joint name with a control character (it could not be written back), more
/// than [`crate::skeleton::MAX_JOINTS`] joints, counts that are not whole
/// numbers or overflow, more than [`MAX_SAMPLES`] frames × joints, numbers
/// that are not finite, a joint position (OFFSET plus position channels)
/// with a coordinate past ±[`crate::limits::MAX_POSITION`] (naming the
/// frame and the joint), a frame time outside
/// [[`crate::limits::MIN_FRAME_TIME`], [`crate::limits::MAX_TIME`]] or one
/// that makes the clip longer than [`crate::limits::MAX_TIME`]. Messages
/// quote at most [`EXCERPT_CHARS`] characters of input.
pub fn parse(text: &str) -> Result<Bvh> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = Lines::new(text);
    let (n, l) = lines.expect("HIERARCHY")?;
    if !l.eq_ignore_ascii_case("HIERARCHY") {
        return err(n, format!("expected HIERARCHY, found {}", excerpt(l)));
    }
    let h = Hierarchy::read(&mut lines)?;
    let joints = h.parents.len();
    let (frames, frame_time) = read_timing(&mut lines, joints)?;
    let (pos, rot) = read_motion(&mut lines, &h, frames)?;

    let Hierarchy {
        parents,
        names,
        offsets,
        channels,
        end_sites,
        joint_lines,
        ..
    } = h;
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
    let scl = try_vec("BVH joint scales", frames * joints, Vec3::ONE)?;
    // Every value was checked above, each with its line: what is left to
    // refuse (memory) is not tied to one.
    let clip = Clip::new(frames, joints, frame_time, pos, rot, scl).map_err(|e| Error::Bvh {
        path: None,
        line: 0,
        reason: e.to_string(),
    })?;
    // Every value is within the domain, but a long chain of large offsets
    // can still reach past what forward kinematics keeps finite.
    clip.check_reach(skeleton.parents(), clip.positions())
        .map_err(|e| Error::Bvh {
            path: None,
            line: match &e {
                Error::Clip { joint, .. } => joint_lines.get(*joint).copied().unwrap_or(0),
                _ => 0,
            },
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
/// the line of the first bad byte. The file is read by
/// [`crate::files::read_file`]: a regular file of at most
/// [`MAX_BVH_BYTES`], else refused ([`Error::Io`] naming it) before
/// anything is read.
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
    let bytes = crate::files::read_file(path, MAX_BVH_BYTES, ".bvh", crate::files::Links::Follow)?;
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
