//! Writing BVH: rotations back to Euler channels, and [`write()`].

use super::parse::excerpt;
use super::*;

pub(super) fn axis_quat64(axis: usize, angle: f64) -> [f64; 4] {
    let (s, c) = (angle * 0.5).sin_cos();
    let mut q = [c, 0.0, 0.0, 0.0];
    q[axis + 1] = s;
    q
}

pub(super) fn qmul64(q: [f64; 4], p: [f64; 4]) -> [f64; 4] {
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
/// Joints are listed depth-first, as BVH requires, and the motion's values
/// follow that order: a skeleton whose joints are in another parent-first
/// order (two children of the root, say, before the first one's child)
/// reads back with its joints in depth-first order, each with its own
/// motion.
///
/// Linear in the size of the output and iterative (any depth the parser
/// accepts, 65,535 nested joints included, writes without recursion):
/// children are listed once, and indentation stops growing at
/// [`MAX_INDENT`] tabs. Refused, with nothing written: fields of `bvh` whose
/// lengths differ from its skeleton's, a joint name that would not read back
/// (empty, or with line breaks, tabs or doubled spaces), no channels
/// at all (motion lines cannot be empty), a joint with
/// rotation channels other than 0 or 3 distinct axes, an offset or a
/// channel value that is not finite, and a text longer than
/// [`MAX_BVH_BYTES`], which [`load`] would refuse (so what is written can
/// be read: stopped as soon as it passes the limit). Refusals are
/// [`Error::Bvh`] with no line, their reason starting `cannot write`.
///
/// Numbers of at least 1e-4 and below 1e7 in magnitude (and 0) are
/// written as decimals, others in exponent form (`1.5e-30`), so that no
/// value takes more than 15 characters.
pub fn write(bvh: &Bvh, clip: &Clip) -> Result<String> {
    let rot_axes = writable(bvh, clip)?;
    let mut out = String::from("HIERARCHY\n");
    let order = write_hierarchy(bvh, &mut out)?;
    write_motion(bvh, clip, (&rot_axes, &order), &mut out)?;
    Ok(out)
}

/// A refusal of [`write()`]: [`Error::Bvh`] with no line, its reason
/// starting `cannot write`.
fn cannot<T>(reason: String) -> Result<T> {
    Err(Error::Bvh {
        path: None,
        line: 0,
        reason: format!("cannot write {reason}"),
    })
}

/// The refusal of a text past [`MAX_BVH_BYTES`] when `out` passes it.
fn within_limit(out: &str) -> Result<()> {
    if out.len() as u64 > MAX_BVH_BYTES {
        return cannot(format!(
            "the file: its text passes {} bytes, more than the {MAX_BVH_BYTES} bytes a .bvh file may have (kineform::limits::MAX_BVH_BYTES), so it could not be read back",
            out.len()
        ));
    }
    Ok(())
}

/// [`write()`]'s checks before anything is written (lengths, names,
/// offsets, rotation channels): each joint's rotation channels' axes in
/// order, `None` for a joint without rotation channels.
fn writable(bvh: &Bvh, clip: &Clip) -> Result<Vec<Option<[usize; 3]>>> {
    let joints = bvh.skeleton.len();
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
    // What the reader would refuse (issue 21, defect 9).
    if let Err(e) = clip.check_reach(bvh.skeleton.parents(), clip.positions()) {
        return cannot(format!("the motion: {e}"));
    }
    if bvh.channels.iter().all(Vec::is_empty) {
        return cannot(
            "the motion: no joint has channels, and BVH motion lines cannot be empty".into(),
        );
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
            return cannot(format!(
                "joint {j}: its name {} would not read back",
                excerpt(name)
            ));
        }
        if !finite(bvh.offsets[j]) || !bvh.end_sites[j].is_none_or(finite) {
            return cannot(format!(
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
            return cannot(format!(
                "joint {j} ({}): writing needs 0 or 3 distinct rotation channels",
                excerpt(name)
            ));
        }
        rot_axes.push(distinct.then(|| [rot[0], rot[1], rot[2]]));
    }
    Ok(rot_axes)
}

/// `depth` tabs, at most [`MAX_INDENT`].
fn tab(out: &mut String, depth: usize) {
    for _ in 0..depth.min(MAX_INDENT) {
        out.push('\t');
    }
}

/// An `OFFSET` line at `depth`.
fn offset_line(out: &mut String, depth: usize, o: Vec3) {
    tab(out, depth);
    out.push_str("OFFSET");
    for v in [o.x, o.y, o.z] {
        out.push(' ');
        number(out, v);
    }
    out.push('\n');
}

/// The hierarchy's blocks, depth-first without recursion: the joints in the
/// order the hierarchy lists them, the order of the motion's values (which
/// a reader assigns in that order).
fn write_hierarchy(bvh: &Bvh, out: &mut String) -> Result<Vec<usize>> {
    use core::fmt::Write as _;
    let (joints, names) = (bvh.skeleton.len(), bvh.skeleton.names());
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
    // A stack of (joint, entering).
    let mut stack: Vec<(usize, bool)> = (0..joints)
        .rev()
        .filter(|&j| parents[j] < 0)
        .map(|j| (j, true))
        .collect();
    let mut depth = 0usize;
    let mut order = Vec::with_capacity(joints);
    while let Some((j, entering)) = stack.pop() {
        if entering {
            order.push(j);
            let kind = if parents[j] < 0 { "ROOT" } else { "JOINT" };
            tab(out, depth);
            let _ = writeln!(out, "{kind} {}", names[j]);
            tab(out, depth);
            out.push_str("{\n");
            offset_line(out, depth + 1, bvh.offsets[j]);
            let cs = &bvh.channels[j];
            if !cs.is_empty() {
                tab(out, depth + 1);
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
                tab(out, depth + 1);
                out.push_str("End Site\n");
                tab(out, depth + 1);
                out.push_str("{\n");
                offset_line(out, depth + 2, e);
                tab(out, depth + 1);
                out.push_str("}\n");
            }
            tab(out, depth);
            out.push_str("}\n");
        }
        within_limit(out)?;
    }
    Ok(order)
}

/// `MOTION`, the frame count and time, and a line per frame: the channels'
/// values of the joints in `order`, rotations as Euler angles in each
/// joint's `rot_axes`, positions less the joint's offset.
fn write_motion(
    bvh: &Bvh,
    clip: &Clip,
    (rot_axes, order): (&[Option<[usize; 3]>], &[usize]),
    out: &mut String,
) -> Result<()> {
    use core::fmt::Write as _;
    let names = bvh.skeleton.names();
    let _ = write!(out, "MOTION\nFrames: {}\nFrame Time: ", clip.frames());
    number(out, clip.frame_time());
    out.push('\n');
    // A line holds at most 16 bytes a channel (15 characters and a
    // separator): room for it, grown with try_reserve (doubling, as
    // push_str would), so a text that cannot be had is Error::Size.
    let line = order.iter().map(|&j| bvh.channels[j].len()).sum::<usize>() * 16 + 1;
    for f in 0..clip.frames() {
        if out.capacity() - out.len() < line {
            let want = line.max(out.capacity());
            out.try_reserve(want).map_err(|_| {
                crate::error::refused_size::<u8>("BVH text bytes", out.len() + want)
            })?;
        }
        let mut first = true;
        for &j in order {
            let cs = &bvh.channels[j];
            if cs.is_empty() {
                continue;
            }
            let euler = match rot_axes[j] {
                Some(axes) => quat_to_euler(clip.rot_at(f, j), axes),
                None => [0.0; 3],
            };
            let p = clip.pos_at(f, j) - bvh.offsets[j];
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
                    return cannot(format!(
                        "frame {f} joint {j} ({}): {} {v} is not finite",
                        excerpt(&names[j]),
                        c.name()
                    ));
                }
                if !first {
                    out.push(' ');
                }
                first = false;
                number(out, v);
            }
        }
        out.push('\n');
        within_limit(out)?;
    }
    Ok(())
}

/// `v` in at most 15 characters: the shortest text that reads back as the
/// same f32, as a decimal where that is short (0, and magnitudes in
/// `[1e-4, 1e7)`), else in exponent form.
fn number(out: &mut String, v: f32) {
    use core::fmt::Write as _;
    let a = v.abs();
    let _ = if a == 0.0 || (1e-4..1e7).contains(&a) {
        write!(out, "{v}")
    } else {
        write!(out, "{v:e}")
    };
}

/// Most tabs [`write()`] indents a line by: deeper joints are written at this
/// indentation, so a deep hierarchy's file grows linearly with its joints.
pub const MAX_INDENT: usize = 16;
