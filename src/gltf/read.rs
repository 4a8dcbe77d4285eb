//! The loader: glTF bytes to a [`Document`] (see the module docs of
//! [`crate::gltf`]).

use std::path::Path;

use ::gltf::accessor::Dimensions;
use ::gltf::animation::Property;

use super::accessor::Data;
use super::checks::{check_enums, check_glb_header, check_indices};
use super::track::{Track, read_track};
use super::{Document, MAX_SAMPLES, NamedClip, err};
use crate::clip::Clip;
use crate::error::{Error, Result};
use crate::reference::{Kform, Quat, Vec3, kform_mul};
use crate::skeleton::{MAX_JOINTS, Skeleton};

/// Parses a `.glb` or a `.gltf` (JSON) whose buffers are all in the GLB
/// BIN chunk, and resamples its animations at `rate` frames per second
/// (finite, > 0). See [`load`] for `.gltf` files with `.bin` files beside.
pub fn parse(bytes: &[u8], rate: f32) -> Result<Document> {
    read(bytes, rate, None)
}

/// Reads a `.glb` or `.gltf` file; buffers given as relative URIs are read
/// from the file's folder. Resamples animations at `rate` frames per second.
pub fn load(path: impl AsRef<Path>, rate: f32) -> Result<Document> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    read(&bytes, rate, Some(path.parent().unwrap_or(Path::new("."))))
}

fn check_rate(rate: f32) -> Result<()> {
    if rate.is_finite() && rate > 0.0 {
        Ok(())
    } else {
        Err(Error::Parameter {
            name: "rate",
            value: rate,
            reason: "frames per second must be finite and > 0",
        })
    }
}

fn read(bytes: &[u8], rate: f32, dir: Option<&Path>) -> Result<Document> {
    check_rate(rate)?;
    check_glb_header(bytes)?;
    let doc = ::gltf::Gltf::from_slice(bytes).map_err(gltf_error)?;
    check_enums(doc.as_json())?;
    check_indices(doc.as_json())?;
    let buffers = buffers(&doc, dir)?;
    let data = Data { buffers: &buffers };
    let parents = node_parents(&doc)?;
    let skin = doc.skins().next();
    let members: Vec<usize> = match &skin {
        Some(s) => s.joints().map(|n| n.index()).collect(),
        None => (0..doc.nodes().len()).collect(),
    };
    if members.is_empty() {
        return err(
            if skin.is_some() {
                "skins[0].joints"
            } else {
                "nodes"
            },
            "no joints",
        );
    }
    if members.len() > MAX_JOINTS {
        return err(
            "skins[0].joints",
            format!("{} joints; at most {MAX_JOINTS}", members.len()),
        );
    }
    let n_nodes = doc.nodes().len();
    let mut joint_of = vec![usize::MAX; n_nodes];
    for (k, &n) in members.iter().enumerate() {
        if joint_of[n] != usize::MAX {
            return err(
                format!("skins[0].joints[{k}]"),
                format!("node {n} is listed twice"),
            );
        }
        joint_of[n] = k;
    }
    // Each member's nearest ancestor that is a member.
    let joint_parent = |n: usize| -> Option<usize> {
        let mut a = parents[n];
        while let Some(p) = a {
            if joint_of[p] != usize::MAX {
                return Some(p);
            }
            a = parents[p];
        }
        None
    };
    // Parent-first order: depth-first from the roots, in skin order.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n_nodes];
    let mut roots = Vec::new();
    for &n in &members {
        match joint_parent(n) {
            Some(p) => children[p].push(n),
            None => roots.push(n),
        }
    }
    let mut order = Vec::with_capacity(members.len());
    let mut stack: Vec<usize> = roots.iter().rev().copied().collect();
    while let Some(n) = stack.pop() {
        order.push(n);
        stack.extend(children[n].iter().rev());
    }
    let mut index = vec![usize::MAX; n_nodes];
    for (j, &n) in order.iter().enumerate() {
        index[n] = j;
    }
    let nodes: Vec<::gltf::Node> = doc.nodes().collect();
    let skel_parents: Vec<i32> = order
        .iter()
        .map(|&n| joint_parent(n).map_or(-1, |p| index[p] as i32))
        .collect();
    let names: Vec<String> = order
        .iter()
        .map(|&n| {
            nodes[n]
                .name()
                .map_or_else(|| format!("node{n}"), String::from)
        })
        .collect();
    let skeleton = Skeleton::with_names(skel_parents, names).map_err(|e| Error::Gltf {
        path: "nodes".into(),
        reason: e.to_string(),
    })?;

    let rest_of = |n: usize| node_rest(&nodes[n]);
    let mut own_rest = Vec::with_capacity(order.len());
    for &n in &order {
        own_rest.push(rest_of(n)?);
    }
    let mut rest = own_rest.clone();
    // Non-joint ancestors of each root joint, outermost first: their static
    // transforms are folded into the root.
    let mut above: Vec<Option<Kform>> = vec![None; order.len()];
    for (j, &n) in order.iter().enumerate() {
        if skeleton.parents()[j] >= 0 {
            continue;
        }
        let mut chain = Vec::new();
        let mut a = parents[n];
        while let Some(p) = a {
            chain.push(p);
            a = parents[p];
        }
        if !chain.is_empty() {
            let mut k = Kform::IDENTITY;
            for &p in chain.iter().rev() {
                k = kform_mul(k, rest_of(p)?);
            }
            above[j] = Some(k);
            rest[j] = kform_mul(k, rest[j]);
        }
    }

    let inverse_bind = match skin.as_ref().and_then(|s| s.inverse_bind_matrices()) {
        None => None,
        Some(acc) => {
            let path = "skins[0].inverseBindMatrices";
            let m: Vec<[f32; 16]> = data.read(&acc, Dimensions::Mat4, false, path)?;
            if m.len() != members.len() {
                return err(
                    path,
                    format!("{} matrices for {} joints", m.len(), members.len()),
                );
            }
            Some(order.iter().map(|&n| m[joint_of[n]]).collect())
        }
    };

    let mut clips = Vec::new();
    for anim in doc.animations() {
        let a = anim.index();
        let name = anim
            .name()
            .map_or_else(|| format!("animation{a}"), String::from);
        let clip = read_animation(&data, &anim, &index, &own_rest, &above, rate)?;
        clips.push(NamedClip { name, clip });
    }
    Ok(Document {
        skeleton,
        nodes: order,
        rest,
        inverse_bind,
        clips,
    })
}

fn gltf_error(e: ::gltf::Error) -> Error {
    match e {
        ::gltf::Error::Validation(v) => {
            let (path, what) = v
                .first()
                .map(|(p, e)| (p.to_string(), e.to_string()))
                .unwrap_or_default();
            let more = if v.len() > 1 {
                format!(" (and {} more problems)", v.len() - 1)
            } else {
                String::new()
            };
            Error::Gltf {
                path,
                reason: format!("{what}{more}"),
            }
        }
        ::gltf::Error::Binary(b) => Error::Gltf {
            path: "glb".into(),
            reason: format!("binary container: {b}"),
        },
        ::gltf::Error::Deserialize(j) => Error::Gltf {
            path: String::new(),
            reason: format!("JSON: {j}"),
        },
        other => Error::Gltf {
            path: String::new(),
            reason: other.to_string(),
        },
    }
}

/// Each buffer's bytes, checked to hold its declared `byteLength`.
fn buffers(doc: &::gltf::Gltf, dir: Option<&Path>) -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for b in doc.buffers() {
        let path = format!("buffers[{}]", b.index());
        let bytes = match b.source() {
            ::gltf::buffer::Source::Bin => match &doc.blob {
                Some(blob) => blob.clone(),
                None => return err(path, "refers to the GLB BIN chunk, and there is none"),
            },
            ::gltf::buffer::Source::Uri(uri) => {
                if uri.starts_with("data:") {
                    return err(
                        path,
                        "data URIs are not supported (convert the file to .glb)",
                    );
                }
                let Some(dir) = dir else {
                    return err(
                        path,
                        format!(
                            "external buffer `{uri}`: parse() has no folder to read it from; use load()"
                        ),
                    );
                };
                if uri.contains("..") || uri.contains(':') || uri.starts_with('/') {
                    return err(
                        path,
                        format!(
                            "buffer URI `{uri}` must be a relative path inside the file's folder"
                        ),
                    );
                }
                let file = dir.join(uri);
                std::fs::read(&file).map_err(|e| Error::Gltf {
                    path: path.clone(),
                    reason: format!("{}: {e}", file.display()),
                })?
            }
        };
        if bytes.len() < b.length() {
            return err(
                path,
                format!(
                    "truncated: byteLength is {} but {} bytes are there",
                    b.length(),
                    bytes.len()
                ),
            );
        }
        out.push(bytes);
    }
    Ok(out)
}

/// Each node's parent, refusing a node that is the child of two nodes, or
/// of itself through a cycle.
fn node_parents(doc: &::gltf::Gltf) -> Result<Vec<Option<usize>>> {
    let n = doc.nodes().len();
    let mut parent: Vec<Option<usize>> = vec![None; n];
    for node in doc.nodes() {
        for (k, c) in node.children().enumerate() {
            let c = c.index();
            if let Some(p) = parent[c] {
                return err(
                    format!("nodes[{}].children[{k}]", node.index()),
                    format!(
                        "node {c} is already a child of node {p} (the node tree must be a forest)"
                    ),
                );
            }
            parent[c] = Some(node.index());
        }
    }
    // Every node has at most one parent, so a walk up that lasts longer
    // than n steps is in a cycle.
    for start in 0..n {
        let (mut a, mut steps) = (parent[start], 0);
        while let Some(p) = a {
            steps += 1;
            if steps > n {
                return err(
                    format!("nodes[{start}]"),
                    "the node tree has a cycle through this node",
                );
            }
            a = parent[p];
        }
    }
    Ok(parent)
}

fn finite3(v: [f32; 3]) -> bool {
    v.iter().all(|x| x.is_finite())
}

fn node_rest(node: &::gltf::Node) -> Result<Kform> {
    let (t, r, s) = node.transform().decomposed();
    let path = format!("nodes[{}]", node.index());
    if !finite3(t) || !finite3(s) || !r.iter().all(|x| x.is_finite()) {
        return err(path, "its transform is not finite");
    }
    Ok(Kform {
        pos: Vec3::new(t[0], t[1], t[2]),
        rot: unit_quat(r, &path)?,
        scl: Vec3::new(s[0], s[1], s[2]),
        ..Kform::IDENTITY
    })
}

/// A glTF `(x, y, z, w)` rotation as a unit [`Quat`], refusing a zero one.
pub(super) fn unit_quat(r: [f32; 4], path: &str) -> Result<Quat> {
    let n = (r.iter().map(|x| x * x).sum::<f32>()).sqrt();
    if !(n.is_finite() && n > 1e-6) {
        return err(path, format!("rotation {r:?} is not a unit quaternion"));
    }
    Ok(Quat::new(r[3] / n, r[0] / n, r[1] / n, r[2] / n))
}

fn read_animation(
    data: &Data,
    anim: &::gltf::Animation,
    index: &[usize],
    node_rest: &[Kform],
    above: &[Option<Kform>],
    rate: f32,
) -> Result<Clip> {
    let a = anim.index();
    let joints = node_rest.len();
    if anim.channels().next().is_none() {
        return err(format!("animations[{a}].channels"), "no channel");
    }
    let mut pos: Vec<Option<Track<3>>> = (0..joints).map(|_| None).collect();
    let mut rot: Vec<Option<Track<4>>> = (0..joints).map(|_| None).collect();
    let mut scl: Vec<Option<Track<3>>> = (0..joints).map(|_| None).collect();
    let mut duration = 0.0f32;
    for ch in anim.channels() {
        let node = ch.target().node().index();
        let j = index[node];
        if j == usize::MAX {
            continue; // a node that is not a joint
        }
        let s = ch.sampler();
        // A track has at least one key: `read_track` reads its times through
        // an accessor, and accessors of count 0 are refused
        // (accessor.rs), so the `expect`s below cannot fire.
        let last = match ch.target().property() {
            Property::Translation => {
                let t = read_track::<3>(data, anim, &s, Dimensions::Vec3, false)?;
                let l = *t.times.last().expect("at least one key");
                pos[j] = Some(t);
                l
            }
            Property::Scale => {
                let t = read_track::<3>(data, anim, &s, Dimensions::Vec3, false)?;
                let l = *t.times.last().expect("at least one key");
                scl[j] = Some(t);
                l
            }
            Property::Rotation => {
                let t = read_track::<4>(data, anim, &s, Dimensions::Vec4, true)?;
                let l = *t.times.last().expect("at least one key");
                rot[j] = Some(t);
                l
            }
            Property::MorphTargetWeights => continue,
        };
        duration = duration.max(last);
    }
    let frames_f = (duration as f64 * rate as f64 + 1e-2).floor() + 1.0;
    let samples = frames_f * joints as f64;
    if samples > MAX_SAMPLES as f64 {
        return err(
            format!("animations[{a}]"),
            format!(
                "{duration} s at {rate} frames/s x {joints} joints is {samples} samples, past the limit {MAX_SAMPLES}"
            ),
        );
    }
    let frames = frames_f as usize;
    let n = frames * joints;
    let (mut p, mut r, mut s) = (Vec::new(), Vec::new(), Vec::new());
    for v in [&mut p, &mut s] {
        v.try_reserve_exact(n).map_err(|_| Error::Gltf {
            path: format!("animations[{a}]"),
            reason: format!("{n} samples do not fit in memory"),
        })?;
    }
    r.try_reserve_exact(n).map_err(|_| Error::Gltf {
        path: format!("animations[{a}]"),
        reason: format!("{n} samples do not fit in memory"),
    })?;
    for f in 0..frames {
        let t = (f as f64 / rate as f64) as f32;
        for j in 0..joints {
            let mut k = node_rest[j];
            if let Some(tr) = &pos[j] {
                let v = tr.sample(t, false);
                k.pos = Vec3::new(v[0], v[1], v[2]);
            }
            if let Some(tr) = &rot[j] {
                k.rot = unit_quat(tr.sample(t, true), &format!("animations[{a}]"))?;
            }
            if let Some(tr) = &scl[j] {
                let v = tr.sample(t, false);
                k.scl = Vec3::new(v[0], v[1], v[2]);
            }
            if let Some(above) = above[j] {
                k = kform_mul(above, k);
            }
            p.push(k.pos);
            r.push(k.rot);
            s.push(k.scl);
        }
    }
    Clip::new(frames, joints, 1.0 / rate, p, r, s)
}
