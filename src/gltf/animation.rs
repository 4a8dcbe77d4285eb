//! Animations, bounded per document (issue 21, defect 1): every channel on
//! a joint or a helper node resolved first; the key values of every
//! accessor they read counted once, whoever shares it, and refused past
//! [`MAX_KEY_VALUES`] before any is decoded; each accessor decoded and
//! checked once; each animation's rate and frames found and their
//! joint-frames summed over the document and refused past
//! [`MAX_SAMPLES`] before any clip is allocated; then each animation
//! sampled, helpers folded into the joints below them frame by frame.

use ::gltf::accessor::Dimensions;
use ::gltf::animation::{Interpolation, Property};

use super::accessor::{self, Data};
use super::nodes::{Joints, NONE, node_path, node_rest, uniform, unit_quat};
use super::track::{Track, check_rotations, check_times, track};
use super::{MAX_KEY_VALUES, MAX_SAMPLES, MIN_KEY_RATE, Rate, err, error};
use crate::clip::{Clip, MIN_FRAME_TIME};
use crate::error::{Result, bytes_text};
use crate::reference::{Kform, Vec3, kform_mul};

/// What a channel animates.
#[derive(Clone, Copy, PartialEq)]
enum Target {
    Joint(u32),
    Helper(u32),
}

#[derive(Clone, Copy, PartialEq)]
enum Prop {
    Translation,
    Rotation,
    Scale,
}

/// A channel the skeleton reads.
struct Channel {
    target: Target,
    prop: Prop,
    sampler: usize,
    mode: Interpolation,
    input: usize,
    output: usize,
}

/// Every animation's channels on joints and helpers, and the accessors
/// they and the skin read.
pub(super) struct Plan {
    channels: Vec<Vec<Channel>>,
    /// Accessors to decode.
    pub(super) accessors: Vec<bool>,
    /// Helpers whose transform changes over time: animated, or below one
    /// that is (in the same gap between joints), parent-first, with their
    /// rest transforms.
    dynamic: Vec<(u32, Kform)>,
    /// Each helper's place in `dynamic`, [`NONE`] for a static one.
    dynamic_of: Vec<u32>,
}

fn prop(p: Property) -> Option<Prop> {
    match p {
        Property::Translation => Some(Prop::Translation),
        Property::Rotation => Some(Prop::Rotation),
        Property::Scale => Some(Prop::Scale),
        Property::MorphTargetWeights => None,
    }
}

/// What a channel animates, if it is part of the skeleton.
fn resolve(ch: &::gltf::animation::Channel, joints: &Joints) -> Option<(Target, Prop)> {
    let prop = prop(ch.target().property())?;
    let node = ch.target().node().index();
    match (joints.joint_of[node], joints.helper_of[node]) {
        (NONE, NONE) => None,
        (NONE, h) => Some((Target::Helper(h), prop)),
        (j, _) => Some((Target::Joint(j), prop)),
    }
}

/// Resolves every channel, and refuses a document whose keys (each
/// accessor once, with the skin's inverse bind matrices `ibm`) are past
/// [`MAX_KEY_VALUES`].
pub(super) fn plan(doc: &::gltf::Document, joints: &Joints, ibm: Option<usize>) -> Result<Plan> {
    let mut accessors = vec![false; doc.accessors().len()];
    let mut total = 0usize;
    let mut count = |a: usize, total: &mut usize| {
        if !accessors[a] {
            accessors[a] = true;
            let values = doc
                .accessors()
                .nth(a)
                .map_or(0, |acc| accessor::values(&acc));
            *total = total.saturating_add(values);
        }
    };
    if let Some(a) = ibm {
        count(a, &mut total);
    }
    let mut animated = vec![false; joints.helpers.len()];
    let mut channels = Vec::with_capacity(doc.animations().len());
    for anim in doc.animations() {
        if anim.channels().next().is_none() {
            return err(
                format!("animations[{}].channels", anim.index()),
                "no channel",
            );
        }
        let mut list = Vec::new();
        for ch in anim.channels() {
            let Some((target, prop)) = resolve(&ch, joints) else {
                continue; // weights, or a node that is not part of the skeleton
            };
            if let Target::Helper(h) = target {
                animated[h as usize] = true;
            }
            let s = ch.sampler();
            let (input, output) = (s.input().index(), s.output().index());
            count(input, &mut total);
            count(output, &mut total);
            list.push(Channel {
                target,
                prop,
                sampler: s.index(),
                mode: s.interpolation(),
                input,
                output,
            });
        }
        channels.push(list);
    }
    if total > MAX_KEY_VALUES {
        let n = accessors.iter().filter(|&&a| a).count();
        return err(
            "animations",
            format!(
                "the animations and the skin read {total} key values ({}) from {n} accessors; the limit is {MAX_KEY_VALUES} ({}) for the whole document",
                bytes_text(total.checked_mul(4)),
                bytes_text(Some(MAX_KEY_VALUES * 4))
            ),
        );
    }
    let mut dynamic = Vec::new();
    let mut dynamic_of = vec![NONE; joints.helpers.len()];
    for (h, helper) in joints.helpers.iter().enumerate() {
        let above = helper.up != NONE && dynamic_of[helper.up as usize] != NONE;
        if animated[h] || above {
            dynamic_of[h] = dynamic.len() as u32;
            dynamic.push((h as u32, node_rest(doc, helper.node as usize)?));
        }
    }
    Ok(Plan {
        channels,
        accessors,
        dynamic,
        dynamic_of,
    })
}

/// Decoded accessors, each once, and the checks already made on each.
pub(super) struct Keys {
    values: Vec<Option<Vec<f32>>>,
    checked: Vec<u8>,
}

const TIMES: u8 = 1;
const ROTATIONS: u8 = 2;
const CUBIC_ROTATIONS: u8 = 4;
const UNIFORM: u8 = 8;

impl Keys {
    pub(super) fn new(accessors: usize) -> Keys {
        Keys {
            values: (0..accessors).map(|_| None).collect(),
            checked: vec![0; accessors],
        }
    }

    /// Accessor `a` read as `dims` (checked on every use; decoded on the
    /// first).
    pub(super) fn get(
        &mut self,
        doc: &::gltf::Document,
        data: &Data,
        a: usize,
        dims: Dimensions,
        rotation: bool,
        used_as: &str,
    ) -> Result<&[f32]> {
        let Some(acc) = doc.accessors().nth(a) else {
            return err(used_as, format!("accessor {a} does not exist"));
        };
        accessor::check_type(&acc, dims, rotation, used_as)?;
        if self.values[a].is_none() {
            self.values[a] = Some(data.read(&acc, dims, rotation, used_as)?);
        }
        Ok(self.values[a].as_deref().unwrap_or(&[]))
    }

    fn check(&mut self, a: usize, flag: u8, f: impl FnOnce(&[f32]) -> Result<()>) -> Result<()> {
        if self.checked[a] & flag == 0 {
            f(self.values[a].as_deref().unwrap_or(&[]))?;
            self.checked[a] |= flag;
        }
        Ok(())
    }

    fn slice(&self, a: usize) -> &[f32] {
        self.values[a].as_deref().unwrap_or(&[])
    }
}

/// Decodes and checks every channel's keys: times that do not go back,
/// rotations that can be normalized, uniform scales on helpers.
pub(super) fn decode(
    doc: &::gltf::Document,
    data: &Data,
    plan: &Plan,
    joints: &Joints,
    keys: &mut Keys,
) -> Result<()> {
    for (a, list) in plan.channels.iter().enumerate() {
        for ch in list {
            let spath = format!("animations[{a}].samplers[{}]", ch.sampler);
            let mode = ch.mode;
            let input = format!("{spath}.input");
            keys.get(doc, data, ch.input, Dimensions::Scalar, false, &input)?;
            keys.check(ch.input, TIMES, |t| check_times(t, &spath))?;
            let output = format!("{spath}.output");
            let (dims, rotation) = match ch.prop {
                Prop::Rotation => (Dimensions::Vec4, true),
                _ => (Dimensions::Vec3, false),
            };
            keys.get(doc, data, ch.output, dims, rotation, &output)?;
            let cubic = mode == Interpolation::CubicSpline;
            if rotation {
                let flag = if cubic { CUBIC_ROTATIONS } else { ROTATIONS };
                keys.check(ch.output, flag, |v| check_rotations(v, cubic, &spath))?;
            }
            if let (Prop::Scale, Target::Helper(h)) = (ch.prop, ch.target) {
                let node = joints.helpers[h as usize].node as usize;
                keys.check(ch.output, UNIFORM, |v| {
                    v.chunks_exact(3)
                        .try_for_each(|s| uniform(Vec3::new(s[0], s[1], s[2]), node, doc.as_json()))
                })?;
            }
        }
    }
    Ok(())
}

/// An animation's rate and frame count.
pub(super) struct Timing {
    rate: f64,
    frames: usize,
}

/// Frames per second a clip can have at most (its frame time at least
/// [`MIN_FRAME_TIME`]).
fn max_rate() -> f64 {
    1.0 / MIN_FRAME_TIME as f64
}

/// Each animation's rate and frames, refusing a document whose
/// joint-frames, summed over every animation, are past [`MAX_SAMPLES`].
pub(super) fn timing(plan: &Plan, keys: &Keys, joints: usize, rate: Rate) -> Result<Vec<Timing>> {
    let width = (joints + plan.dynamic.len()) as f64;
    let mut out = Vec::with_capacity(plan.channels.len());
    let mut total = 0.0f64;
    for (a, list) in plan.channels.iter().enumerate() {
        let duration = list
            .iter()
            .map(|ch| keys.slice(ch.input).last().copied().unwrap_or(0.0))
            .fold(0.0f32, f32::max);
        let fps = match rate {
            Rate::Fps(r) => r as f64,
            Rate::Keys => key_rate(list, keys, a)?,
        };
        let frames = (duration as f64 * fps + 1e-2).floor() + 1.0;
        let samples = frames * width;
        total += samples;
        if total > MAX_SAMPLES as f64 {
            let helpers = match plan.dynamic.len() {
                0 => String::new(),
                h => format!(" + {h} animated helper nodes"),
            };
            let before = match a {
                0 => String::new(),
                _ => format!(
                    " (with the {} joint-frames of the {a} animations before it)",
                    count(total - samples)
                ),
            };
            let advice = match rate {
                Rate::Keys => "ask for a lower rate",
                Rate::Fps(_) => "a lower rate needs fewer",
            };
            return err(
                format!("animations[{a}]"),
                format!(
                    "{} s at {fps} frames/s is {} frames x ({joints} joints{helpers}) = {} joint-frames{before}; the limit is {MAX_SAMPLES} for the whole document ({advice})",
                    count(duration as f64),
                    count(frames),
                    count(samples)
                ),
            );
        }
        out.push(Timing {
            rate: fps,
            frames: frames as usize,
        });
    }
    Ok(out)
}

/// A count or a time for a message: as it is up to 1e12, past that in
/// scientific notation (a key time of 3e38 s is 3e38 frames at 1 frame a
/// second, 39 digits of which say nothing).
fn count(x: f64) -> String {
    if x.abs() < 1e12 {
        format!("{x}")
    } else {
        format!("{x:.3e}")
    }
}

/// Animation `a`'s key rate (see [`Rate::Keys`]): its densest sampler's
/// `(keys - 1) / span`, whole when within 1e-6 of a whole number, at least
/// [`MIN_KEY_RATE`]; 60 when every sampler has one key (or one time).
/// Refused past the 1e6 frames per second a clip can have.
fn key_rate(list: &[Channel], keys: &Keys, a: usize) -> Result<f64> {
    let mut densest: Option<(f64, usize)> = None;
    for ch in list {
        let t = keys.slice(ch.input);
        let (Some(&first), Some(&last)) = (t.first(), t.last()) else {
            continue;
        };
        let span = last as f64 - first as f64;
        if t.len() > 1 && span > 0.0 {
            let r = (t.len() - 1) as f64 / span;
            if densest.is_none_or(|(d, _)| r > d) {
                densest = Some((r, ch.sampler));
            }
        }
    }
    let Some((r, s)) = densest else {
        return Ok(60.0);
    };
    if r > max_rate() {
        return err(
            format!("animations[{a}]"),
            format!(
                "its keys come {r:.4e} per second (samplers[{s}]), past the {:.0e} frames per second a clip can have: ask for a rate",
                max_rate()
            ),
        );
    }
    let whole = r.round();
    Ok(if whole >= 1.0 && (r - whole).abs() <= 1e-6 * r {
        whole
    } else {
        r.max(MIN_KEY_RATE)
    })
}

/// One node's tracks in one animation, and where each last found its key.
#[derive(Clone, Copy, Default)]
struct Tracks<'a> {
    pos: Option<Track<'a, 3>>,
    rot: Option<Track<'a, 4>>,
    scl: Option<Track<'a, 3>>,
    hints: [usize; 3],
}

impl Tracks<'_> {
    /// The node's transform at `t` (its rest value where it has no
    /// track), or `None` when a sampled rotation cannot be normalized.
    fn at(&mut self, rest: Kform, t: f32) -> Option<Kform> {
        let mut k = rest;
        let [hp, hr, hs] = &mut self.hints;
        if let Some(tr) = &self.pos {
            let v = tr.sample(t, false, hp);
            k.pos = Vec3::new(v[0], v[1], v[2]);
        }
        if let Some(tr) = &self.rot {
            k.rot = unit_quat(tr.sample(t, true, hr), "").ok()?;
        }
        if let Some(tr) = &self.scl {
            let v = tr.sample(t, false, hs);
            k.scl = Vec3::new(v[0], v[1], v[2]);
        }
        Some(k)
    }
}

/// Animation `a`'s tracks: each joint's (`n_joints`) and each animated
/// helper's translation, rotation and scale, as its channels give them.
fn tracks<'k>(
    plan: &Plan,
    keys: &'k Keys,
    a: usize,
    n_joints: usize,
    path: &str,
) -> Result<(Vec<Tracks<'k>>, Vec<Tracks<'k>>)> {
    let mut jt = vec![Tracks::default(); n_joints];
    let mut ht = vec![Tracks::default(); plan.dynamic.len()];
    for ch in &plan.channels[a] {
        let slot = match ch.target {
            Target::Joint(j) => &mut jt[j as usize],
            Target::Helper(h) => match plan.dynamic_of[h as usize] {
                NONE => continue,
                d => &mut ht[d as usize],
            },
        };
        let mode = ch.mode;
        let spath = format!("{path}.samplers[{}]", ch.sampler);
        let (times, values) = (keys.slice(ch.input), keys.slice(ch.output));
        match ch.prop {
            Prop::Translation => slot.pos = Some(track(times, values, mode, &spath)?),
            Prop::Rotation => slot.rot = Some(track(times, values, mode, &spath)?),
            Prop::Scale => slot.scl = Some(track(times, values, mode, &spath)?),
        }
    }
    Ok((jt, ht))
}

/// Animation `a` sampled at its timing: each joint's own transform, folded
/// under the helpers above it (static ones as one product, animated ones
/// frame by frame).
pub(super) fn sample(
    doc: &::gltf::Document,
    plan: &Plan,
    keys: &Keys,
    joints: &Joints,
    own_rest: &[Kform],
    a: usize,
    timing: &Timing,
) -> Result<Clip> {
    let path = format!("animations[{a}]");
    let n_joints = own_rest.len();
    let (mut jt, mut ht) = tracks(plan, keys, a, n_joints, &path)?;
    let frames = timing.frames;
    let n = frames * n_joints;
    let reserve = |what: &str| {
        error(
            &path,
            format!(
                "{n} {what} ({}) could not be reserved",
                bytes_text(n.checked_mul(16))
            ),
        )
    };
    let (mut p, mut r, mut s) = (Vec::new(), Vec::new(), Vec::new());
    p.try_reserve_exact(n).map_err(|_| reserve("positions"))?;
    r.try_reserve_exact(n).map_err(|_| reserve("rotations"))?;
    s.try_reserve_exact(n).map_err(|_| reserve("scales"))?;
    let mut g = vec![Kform::IDENTITY; plan.dynamic.len()];
    let above = |h: u32, g: &[Kform]| match h {
        NONE => None,
        h => Some(match plan.dynamic_of[h as usize] {
            NONE => joints.helpers[h as usize].through(),
            d => g[d as usize],
        }),
    };
    let zero = |node: usize, t: f32| {
        error(
            format!("{path} -> {}", node_path(doc.as_json(), node)),
            format!("its rotation at {t} s is zero: it cannot be normalized"),
        )
    };
    for f in 0..frames {
        let t = (f as f64 / timing.rate) as f32;
        for (d, &(h, rest)) in plan.dynamic.iter().enumerate() {
            let helper = &joints.helpers[h as usize];
            let local = ht[d]
                .at(rest, t)
                .ok_or_else(|| zero(helper.node as usize, t))?;
            g[d] = match above(helper.up, &g) {
                Some(base) => kform_mul(base, local),
                None => local,
            };
        }
        for j in 0..n_joints {
            let mut k = jt[j]
                .at(own_rest[j], t)
                .ok_or_else(|| zero(joints.nodes[j], t))?;
            if let Some(base) = above(joints.fold[j], &g) {
                k = kform_mul(base, k);
            }
            p.push(k.pos);
            r.push(k.rot);
            s.push(k.scl);
        }
    }
    Clip::new(frames, n_joints, (1.0 / timing.rate) as f32, p, r, s)
        .map_err(|e| error(path, e.to_string()))
}
