//! The `gltf_doc` target: glTF documents built from typed values (the
//! `arbitrary` crate), shaped to reach issue 21's glTF defects: samplers
//! and accessors shared by many channels and animations, durations and key
//! spacings from a table that spans 1e-7 to 1e9 seconds (defect 1), long
//! node chains with joints every so many nodes, cycles and shared children
//! (defect 2), helper nodes (not joints) between and above joints, static
//! and animated, with uniform and non-uniform scales (defect 6), sparse
//! accessors, data-URI buffers and rates from the key rate to 120 fps.
//!
//! What must hold: `parse` returns, typed, without a panic (the fuzzer's
//! `-timeout` and `-rss_limit_mb` catch time and memory); what it accepts
//! stays within `MAX_SAMPLES` joint-frames; every joint's world position
//! at rest, at frame 0 of each animation and at its last frame (when every
//! channel has reached its last key by then), equals the one glTF defines
//! (the nodes' matrices multiplied, `gltf_build::world`) wherever the
//! document has no non-uniform scale (kineform's joints compose scale
//! without shear, as the documented model says); and the document written
//! back as `.glb` parses to the same skeleton and clip shapes.

use arbitrary::{Arbitrary, Result, Unstructured};
use kineform::gltf::{self, MAX_SAMPLES, Rate};
use kineform::reference::{Kform, Pose, op_fk};
use serde_json::{Value, json};

use super::gltf_build::{Builder, Override, bytes, origin, worlds};

/// A small float from a table of telling values, or a raw one in a range.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Small {
    Zero,
    One,
    Half,
    MinusTwo,
    Ten,
    Tiny,
    Raw(i16),
}

impl Small {
    fn get(self) -> f32 {
        match self {
            Small::Zero => 0.0,
            Small::One => 1.0,
            Small::Half => 0.5,
            Small::MinusTwo => -2.0,
            Small::Ten => 10.0,
            Small::Tiny => 1e-6,
            Small::Raw(v) => v as f32 / 1000.0,
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Scale {
    Uniform(Small),
    Any([Small; 3]),
}

#[derive(Arbitrary, Debug)]
struct NodeSpec {
    /// Parent among the nodes before (index modulo their count), or none
    /// (one node in eight is a root).
    parent: u8,
    t: Option<[Small; 3]>,
    /// An angle-axis rotation (scaled axis), or a raw quaternion.
    r: Option<[Small; 4]>,
    s: Option<Scale>,
    named: bool,
}

/// Seconds between keys, from the table: 1e-7 s gives a key rate past
/// what a clip can have, 1e9 s a clip past the sample limit at any rate
/// (refused at once); the rest keep accepted clips small enough for the
/// fuzzer's speed (at most 63 keys, 1,000 keys per second).
const SPACING: [f32; 8] = [1.0 / 120.0, 1.0 / 30.0, 0.25, 1.0, 1e-7, 1e-3, 1e9, 0.0];

#[derive(Arbitrary, Debug)]
struct SamplerSpec {
    keys: u8,
    spacing: u8,
    start: Small,
    /// 0 LINEAR, 1 STEP, 2 CUBICSPLINE.
    interpolation: u8,
    /// Reuse the accessors of an earlier sampler (of any animation).
    reuse: Option<u8>,
    /// Values substituted sparsely over zeros.
    sparse: bool,
    values: Vec<Small>,
}

#[derive(Arbitrary, Debug)]
struct ChannelSpec {
    sampler: u8,
    node: u16,
    /// 0 translation, 1 rotation, 2 scale, 3 weights.
    path: u8,
}

#[derive(Arbitrary, Debug)]
struct AnimSpec {
    samplers: Vec<SamplerSpec>,
    channels: Vec<ChannelSpec>,
    /// This many more channels, on consecutive nodes from `node`, sharing
    /// sampler 0 and `path` (the shape of the defect 1 files).
    fan: u8,
    fan_node: u16,
    fan_path: u8,
}

#[derive(Arbitrary, Debug)]
struct DocSpec {
    nodes: Vec<NodeSpec>,
    /// A chain of `(chain - 223) × 64` nodes (none when `chain` is 223 or
    /// less: one document in eight has one, of 64 to 2,048 nodes) below
    /// node `chain_at`, each translated by `chain_t`, every
    /// `joint_every`-th one a joint (when there is a skin).
    chain: u8,
    chain_at: u8,
    chain_t: Small,
    joint_every: u8,
    /// Skin joints (node indices modulo the node count); none: no skin.
    skin: Option<Vec<u16>>,
    /// Extra child links, which may share children or close cycles (used
    /// in one document of eight: `mischief` under 32).
    extra: Vec<(u16, u16)>,
    mischief: u8,
    animations: Vec<AnimSpec>,
    embedded: bool,
    /// 0: the key rate; else a rate from the table.
    rate: u8,
}

const RATES: [f32; 5] = [1.0, 24.0, 30.0, 60.0, 120.0];

fn quat(r: [Small; 4]) -> [f32; 4] {
    let v = r.map(Small::get);
    if r[3].get() == 0.0 {
        // Angle-axis from the first three.
        let a = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if a < 1e-9 {
            return [0.0, 0.0, 0.0, 1.0];
        }
        let (s, c) = (a / 2.0).sin_cos();
        return [v[0] / a * s, v[1] / a * s, v[2] / a * s, c];
    }
    v
}

fn scale(s: Scale) -> [f32; 3] {
    match s {
        Scale::Uniform(x) => [x.get(); 3],
        Scale::Any(v) => v.map(Small::get),
    }
}

/// What one document did, for the smoke test's counts.
#[derive(Debug, Default, Clone, Copy)]
pub struct Outcome {
    /// `parse` accepted it.
    pub parsed: bool,
    /// Its nodes.
    pub nodes: usize,
    /// Helpers folded (nodes above joints that are not joints).
    pub helpers: usize,
    /// The world positions were compared with glTF's.
    pub compared: bool,
    /// Animations compared at their last frame too.
    pub last_frames: usize,
    /// Refused for a limit (samples, keys).
    pub limited: bool,
}

/// Builds the document `data` describes, parses it and checks it (see the
/// module docs).
pub fn check_doc(data: &[u8]) -> Outcome {
    let mut u = Unstructured::new(data);
    match DocSpec::arbitrary(&mut u) {
        Ok(spec) => check_spec(&spec).unwrap_or_default(),
        Err(_) => Outcome::default(),
    }
}

fn check_spec(spec: &DocSpec) -> Result<Outcome> {
    let (b, info) = build(spec);
    let file = if spec.embedded { b.embedded() } else { b.glb() };
    let rate = match spec.rate as usize % (RATES.len() + 1) {
        0 => Rate::Keys,
        k => Rate::Fps(RATES[k - 1]),
    };
    let mut out = Outcome {
        nodes: info.nodes,
        ..Outcome::default()
    };
    let d = match gltf::parse(&file, rate) {
        Ok(d) => d,
        Err(e) => {
            let text = e.to_string();
            assert!(!text.is_empty());
            if std::env::var("GLTF_DOC_DEBUG").is_ok() {
                eprintln!("{text}");
            }
            out.limited = text.contains("the limit is");
            return Ok(out);
        }
    };
    out.parsed = true;
    let samples: usize = d
        .clips
        .iter()
        .map(|c| c.clip.frames() * c.clip.joints())
        .sum();
    assert!(samples <= MAX_SAMPLES, "{samples} joint-frames accepted");
    let mut is_joint = vec![false; info.nodes];
    for &n in &d.nodes {
        is_joint[n] = true;
    }
    out.helpers = info.helpers(&is_joint);
    if !info.non_uniform && !info.oracle_off && within_reach(&d) {
        compare(&b.doc, &d, None);
        for (a, c) in d.clips.iter().enumerate() {
            compare(&b.doc, &d, Some((a, 0, &info.first[a])));
            // The last frame, when every channel has reached its last key
            // by then (each then holds its last value; kineform reads a
            // time within 4 f32 roundings of a key as the key, and `t`
            // here may differ from its frame time by a rounding).
            let f = c.clip.frames() - 1;
            let t = (f as f64 * c.clip.frame_time() as f64) as f32;
            if f > 0 && t >= info.end[a] * (1.0 - f32::EPSILON) {
                compare(&b.doc, &d, Some((a, f, &info.last[a])));
                out.last_frames += 1;
            }
        }
        out.compared = true;
    }
    // Written back, read again: same skeleton and clip shapes (for clips
    // of up to a million joint-frames, to keep the fuzzer fast).
    if samples > 1 << 20 {
        return Ok(out);
    }
    let named: Vec<(&str, &kineform::Clip)> =
        d.clips.iter().map(|c| (c.name.as_str(), &c.clip)).collect();
    if let Ok(glb) = gltf::write_glb(&d.skeleton, Some(&d.rest), &named) {
        let again = gltf::parse(&glb, rate).expect("a written .glb parses");
        assert_eq!(again.skeleton, d.skeleton);
        assert_eq!(again.clips.len(), d.clips.len());
        if let Rate::Fps(_) = rate {
            for (x, y) in again.clips.iter().zip(&d.clips) {
                assert_eq!(
                    (x.clip.frames(), x.clip.joints()),
                    (y.clip.frames(), y.clip.joints())
                );
            }
        }
    }
    Ok(out)
}

/// What the builder knows of the document it made.
struct Info {
    nodes: usize,
    parent: Vec<Option<usize>>,
    non_uniform: bool,
    /// A target animated twice in one animation (glTF forbids it), or by a
    /// reused sampler whose first value is not tracked: no comparison.
    oracle_off: bool,
    /// Per animation, node -> first value of its channels at time 0.
    first: Vec<Vec<Override>>,
    /// Per animation, node -> last value of its channels (what they hold
    /// from their last key on).
    last: Vec<Vec<Override>>,
    /// Per animation, the latest last key time of its channels.
    end: Vec<f32>,
}

impl Info {
    /// Nodes that are not joints but are ancestors of one (the document
    /// parsed, so the nodes form a forest): one pass up from each joint,
    /// stopping at a node already marked.
    fn helpers(&self, is_joint: &[bool]) -> usize {
        let mut above = vec![false; self.nodes];
        for j in (0..self.nodes).filter(|&j| is_joint[j]) {
            let mut a = self.parent[j];
            while let Some(p) = a {
                if above[p] {
                    break;
                }
                above[p] = true;
                a = self.parent[p];
            }
        }
        (0..self.nodes)
            .filter(|&n| above[n] && !is_joint[n])
            .count()
    }
}

fn build(spec: &DocSpec) -> (Builder, Info) {
    let mut b = Builder::new();
    let tree = nodes(spec);
    let n = tree.nodes.len();
    for v in tree.nodes {
        b.node(v);
    }
    if let Some(skin) = &spec.skin {
        // Each node once (a node listed twice is refused, which
        // tests/suite/gltf.rs covers; here it would hide every other check).
        let mut listed = vec![false; n];
        let mut joints: Vec<usize> = Vec::new();
        let every = spec.joint_every.max(1) as usize;
        let chosen = skin.iter().take(64).map(|&j| j as usize % n);
        for j in chosen.chain(tree.chain.iter().step_by(every).copied()) {
            if !listed[j] {
                listed[j] = true;
                joints.push(j);
            }
        }
        if !joints.is_empty() {
            b.push("skins", json!({"joints": joints}));
        }
    }
    let mut info = Info {
        nodes: n,
        parent: tree.parent,
        non_uniform: tree.non_uniform,
        oracle_off: false,
        first: Vec::new(),
        last: Vec::new(),
        end: Vec::new(),
    };
    let mut pool = Vec::new();
    for anim in spec.animations.iter().take(6) {
        animation(&mut b, anim, &mut pool, &mut info);
    }
    (b, info)
}

/// The nodes a spec describes, before they are added.
struct Nodes {
    nodes: Vec<Value>,
    parent: Vec<Option<usize>>,
    /// The long chain's nodes.
    chain: Vec<usize>,
    non_uniform: bool,
}

fn nodes(spec: &DocSpec) -> Nodes {
    let mut parent: Vec<Option<usize>> = Vec::new();
    let mut children: Vec<Vec<usize>> = Vec::new();
    let mut non_uniform = false;
    let mut nodes = Vec::new();
    for (i, n) in spec.nodes.iter().take(48).enumerate() {
        let mut v = json!({});
        if n.named {
            v["name"] = json!(format!("n{i}"));
        }
        if let Some(t) = n.t {
            v["translation"] = json!(t.map(Small::get));
        }
        if let Some(r) = n.r {
            v["rotation"] = json!(quat(r));
        }
        if let Some(s) = n.s {
            let s = scale(s);
            non_uniform |= s[0] != s[1] || s[1] != s[2];
            v["scale"] = json!(s);
        }
        let p = (i > 0 && n.parent >= 32).then(|| n.parent as usize % i);
        nodes.push(v);
        parent.push(p);
        children.push(Vec::new());
        if let Some(p) = p {
            children[p].push(i);
        }
    }
    if nodes.is_empty() {
        nodes.push(json!({}));
        parent.push(None);
        children.push(Vec::new());
    }
    let mut chain = Vec::new();
    let mut above = spec.chain_at as usize % nodes.len();
    for _ in 0..(spec.chain as usize).saturating_sub(223) * 64 {
        let i = nodes.len();
        nodes.push(json!({"translation": [0.0, spec.chain_t.get(), 0.0]}));
        parent.push(Some(above));
        children.push(Vec::new());
        children[above].push(i);
        chain.push(i);
        above = i;
    }
    let n = nodes.len();
    let extra = if spec.mischief < 32 { 4 } else { 0 };
    for &(a, c) in spec.extra.iter().take(extra) {
        let (a, c) = (a as usize % n, c as usize % n);
        children[a].push(c);
        parent[c] = Some(a); // the oracle is only asked of documents that parse
    }
    for (i, v) in nodes.iter_mut().enumerate() {
        if !children[i].is_empty() {
            v["children"] = json!(children[i]);
        }
    }
    Nodes {
        nodes,
        parent,
        chain,
        non_uniform,
    }
}

/// A sampler added: its accessors, their element width (3 or 4), its
/// interpolation, its first and last values (`None` for accessors reused
/// from the pool, whose values are not tracked) and its last key time.
struct Sampler {
    input: usize,
    output: usize,
    width: usize,
    interpolation: &'static str,
    first: Option<Vec<f64>>,
    last: Option<Vec<f64>>,
    end: f32,
}

/// Adds sampler `s`'s accessors (or reuses a pair from `pool`, shared by
/// every animation).
fn sampler(b: &mut Builder, s: &SamplerSpec, pool: &mut Vec<(usize, usize, usize)>) -> Sampler {
    let interpolation = ["LINEAR", "STEP", "CUBICSPLINE"][s.interpolation as usize % 3];
    if let Some(&(input, output, width)) = s
        .reuse
        .and_then(|k| pool.get(k as usize % pool.len().max(1)))
    {
        return Sampler {
            input,
            output,
            width,
            interpolation,
            first: None,
            last: None,
            end: f32::INFINITY,
        };
    }
    let per_key = if interpolation == "CUBICSPLINE" { 3 } else { 1 };
    let keys = (s.keys as usize % 64).max(1);
    let dt = SPACING[s.spacing as usize % SPACING.len()];
    let t0 = s.start.get().abs();
    let times: Vec<f32> = (0..keys).map(|k| t0 + k as f32 * dt).collect();
    let input = b.floats(&times, "SCALAR");
    let width = if matches!(s.values.first(), Some(Small::One)) {
        4
    } else {
        3
    };
    let count = keys * per_key * width;
    let mut vals: Vec<f32> = (0..count)
        .map(|k| {
            s.values
                .get(k % s.values.len().max(1))
                .map_or(0.5, |v| v.get())
        })
        .collect();
    if width == 4 {
        // Mostly unit rotations: an angle-axis per element.
        for e in vals.chunks_exact_mut(4) {
            let raw = |x: f32| Small::Raw((x * 1000.0) as i16);
            e.copy_from_slice(&quat([raw(e[0]), raw(e[1]), raw(e[2]), Small::Zero]));
        }
    }
    let type_ = if width == 4 { "VEC4" } else { "VEC3" };
    let output = if s.sparse {
        // Every element substituted over zeros (u8 indices: at most 189).
        let idx: Vec<u8> = (0..count / width).map(|k| k as u8).collect();
        let iv = b.view(&idx);
        let vv = b.view(&bytes(&vals));
        b.push(
            "accessors",
            json!({"componentType": 5126, "count": count / width, "type": type_,
                   "sparse": {"count": count / width,
                              "indices": {"bufferView": iv, "componentType": 5121},
                              "values": {"bufferView": vv}}}),
        )
    } else {
        b.floats(&vals, type_)
    };
    pool.push((input, output, width));
    let at = (per_key / 3) * width; // a cubic key's value follows its in-tangent
    let value = |k: usize| {
        let i = k * per_key * width + at;
        Some(vals[i..i + width].iter().map(|&x| x as f64).collect())
    };
    Sampler {
        input,
        output,
        width,
        interpolation,
        first: value(0),
        last: value(keys - 1),
        end: times[keys - 1],
    }
}

/// Adds an animation (none when it has no sampler or channel), noting
/// each animated node's value at time 0 in `info`.
fn animation(
    b: &mut Builder,
    anim: &AnimSpec,
    pool: &mut Vec<(usize, usize, usize)>,
    info: &mut Info,
) {
    let samplers: Vec<Sampler> = anim
        .samplers
        .iter()
        .take(6)
        .map(|s| sampler(b, s, pool))
        .collect();
    if samplers.is_empty() {
        return;
    }
    let n = info.nodes;
    let mut firsts = vec![Override::default(); n];
    let mut lasts = vec![Override::default(); n];
    let mut end = 0.0f32;
    let mut targets = std::collections::HashSet::new();
    let mut list = Vec::new();
    let mut push = |node: usize, path: u8, s: usize, info: &mut Info| {
        let sm = &samplers[s];
        let path = match (path % 4, sm.width) {
            (3, _) => "weights",
            (_, 4) => "rotation",
            (2, _) => "scale",
            _ => "translation",
        };
        if !targets.insert((node, path)) {
            info.oracle_off = true;
        }
        end = end.max(sm.end);
        for (o, value) in [(&mut firsts[node], &sm.first), (&mut lasts[node], &sm.last)] {
            match (path, value) {
                ("weights", _) => {}
                (_, None) => info.oracle_off = true,
                ("translation", Some(v)) => o.t = Some([v[0], v[1], v[2]]),
                ("rotation", Some(v)) => o.r = Some([v[0], v[1], v[2], v[3]]),
                (_, Some(v)) => {
                    info.non_uniform |= v[0] != v[1] || v[1] != v[2];
                    o.s = Some([v[0], v[1], v[2]]);
                }
            }
        }
        list.push(json!({"sampler": s, "target": {"node": node, "path": path}}));
    };
    for c in anim.channels.iter().take(16) {
        push(
            c.node as usize % n,
            c.path,
            c.sampler as usize % samplers.len(),
            info,
        );
    }
    for k in 0..anim.fan as usize {
        push((anim.fan_node as usize + k) % n, anim.fan_path, 0, info);
    }
    if list.is_empty() {
        return;
    }
    let json_samplers: Vec<Value> = samplers
        .iter()
        .map(|s| json!({"input": s.input, "output": s.output, "interpolation": s.interpolation}))
        .collect();
    b.push(
        "animations",
        json!({"channels": list, "samplers": json_samplers}),
    );
    info.first.push(firsts);
    info.last.push(lasts);
    info.end.push(end);
}

/// Whether the document's rest pose and every frame of its clips stay
/// within `kineform::limits::reach` (the domain in which forward
/// kinematics is finite: a `ClipLibrary` refuses clips past it; `parse`
/// hands them over, and 38 joints each scaled by 10 put a world position
/// at 1.7e39, past f32, so that kineform's FK gives NaN where glTF's f64
/// matrices give a number; found by the smoke test at 14,000 seeds).
fn within_reach(d: &gltf::Document) -> bool {
    let n = d.skeleton.len();
    let mut length = vec![0.0f64; n];
    let mut scale = vec![1.0f64; n];
    let mut see = |j: usize, p: kineform::reference::Vec3, s: kineform::reference::Vec3| {
        let l = ((p.x as f64).powi(2) + (p.y as f64).powi(2) + (p.z as f64).powi(2)).sqrt();
        length[j] = length[j].max(l);
        scale[j] = scale[j].max(s.x.abs().max(s.y.abs()).max(s.z.abs()) as f64);
    };
    for (j, k) in d.rest.iter().enumerate() {
        see(j, k.pos, k.scl);
    }
    for c in &d.clips {
        for f in 0..c.clip.frames() {
            for j in 0..c.clip.joints() {
                see(j, c.clip.pos(f, j), c.clip.scl(f, j));
            }
        }
    }
    kineform::limits::reach(d.skeleton.parents(), &length, &scale).is_none()
}

/// Every joint's world position by kineform's FK (rest, or frame `f` of
/// clip `c` for `at = (c, f, values)`) against glTF's matrices with the
/// same values (`values[node]`: the node's animated values at that frame).
fn compare(doc: &Value, d: &gltf::Document, at: Option<(usize, usize, &[Override])>) {
    let local: Vec<Kform> = match at {
        None => d.rest.clone(),
        Some((c, f, _)) => {
            let k = &d.clips[c].clip;
            (0..k.joints())
                .map(|j| Kform {
                    pos: k.pos(f, j),
                    rot: k.rot(f, j),
                    scl: k.scl(f, j),
                    ..Kform::IDENTITY
                })
                .collect()
        }
    };
    let mut w = Pose::new(local.len());
    op_fk(&mut w, &Pose::from_kforms(&local), d.skeleton.parents()).expect("FK");
    let over = |n: usize| match at {
        None => Override::default(),
        Some((_, _, values)) => values[n],
    };
    let all = worlds(doc, &over);
    let want: Vec<[f64; 3]> = d.nodes.iter().map(|&n| origin(&all[n])).collect();
    let size = want.iter().flatten().fold(1.0f64, |m, x| m.max(x.abs()));
    for (j, q) in want.iter().enumerate() {
        let p = w.pos[j];
        let gap = (p.x as f64 - q[0])
            .abs()
            .max((p.y as f64 - q[1]).abs())
            .max((p.z as f64 - q[2]).abs());
        assert!(
            gap <= 1e-3 * size,
            "{:?} joint {j} (node {}): kineform {p:?}, glTF {q:?}",
            at.map(|(c, f, _)| (c, f)),
            d.nodes[j]
        );
    }
}
