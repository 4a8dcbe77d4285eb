//! The loader: glTF bytes to a [`Document`] (see the module docs of
//! [`crate::gltf`]).

use std::path::Path;

use ::gltf::accessor::Dimensions;

use super::accessor::{Data, buffers_of};
use super::animation::{Keys, decode, plan, sample, timing};
use super::buffers::buffers;
use super::checks::{check_enums, check_glb_header, check_indices, check_json_integers};
use super::nodes::{Joints, joints, node_rest, tree};
use super::{Document, NamedClip, Rate, err, error};
use crate::clip::MIN_FRAME_TIME;
use crate::error::{Error, Result};
use crate::reference::{Kform, kform_mul};
use crate::skeleton::{MAX_JOINTS, Skeleton};

/// Parses a `.glb` or a `.gltf` (JSON) whose buffers are in the GLB BIN
/// chunk or in data URIs, and resamples its animations at `rate`
/// ([`Rate::Keys`], each animation's own key rate, or frames per second
/// given as an `f32`). See [`load`] for `.gltf` files with `.bin` files
/// beside.
pub fn parse(bytes: &[u8], rate: impl Into<Rate>) -> Result<Document> {
    read(bytes, rate.into(), None)
}

/// Reads a `.glb` or `.gltf` file; buffers given as relative URIs are read
/// from the file's folder (see the module docs for how). Resamples
/// animations at `rate`. Every glTF error names the file.
pub fn load(path: impl AsRef<Path>, rate: impl Into<Rate>) -> Result<Document> {
    let path = path.as_ref();
    let bytes = crate::files::read_file(
        path,
        crate::limits::MAX_GLB_BYTES,
        ".glb / .gltf",
        crate::files::Links::Follow,
    )?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    read(&bytes, rate.into(), Some(dir)).map_err(|e| match e {
        Error::Gltf {
            file: None,
            path: at,
            reason,
        } => Error::Gltf {
            file: Some(path.display().to_string()),
            path: at,
            reason,
        },
        other => other,
    })
}

fn check_rate(rate: Rate) -> Result<()> {
    match rate {
        Rate::Keys => Ok(()),
        Rate::Fps(r) if r.is_finite() && r > 0.0 && 1.0 / r >= MIN_FRAME_TIME => Ok(()),
        Rate::Fps(r) => Err(Error::Parameter {
            name: "rate",
            value: r,
            reason: "frames per second must be finite, > 0 and at most 1e6",
        }),
    }
}

/// The JSON and BIN chunks of a `.glb` (borrowed from `bytes`, after the
/// `gltf` crate has checked the container), or the whole of a `.gltf`.
fn chunks(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>)> {
    if !bytes.starts_with(b"glTF") {
        return Ok((bytes, None));
    }
    check_glb_header(bytes)?;
    let glb = ::gltf::binary::Glb::from_slice(bytes).map_err(gltf_error)?;
    // Header 12 bytes, then each chunk's 8-byte header and its data.
    let json_end = 20 + glb.json.len();
    let json = bytes.get(20..json_end);
    let bin = match &glb.bin {
        None => Some(None),
        Some(b) => bytes.get(json_end + 8..json_end + 8 + b.len()).map(Some),
    };
    match (json, bin) {
        (Some(j), Some(b)) => Ok((j, b)),
        _ => err("glb", "chunks past the end of the file"),
    }
}

fn read(bytes: &[u8], rate: Rate, dir: Option<&Path>) -> Result<Document> {
    check_rate(rate)?;
    let (json, bin) = chunks(bytes)?;
    check_json_integers(json)?;
    let root = ::gltf::json::Root::from_slice(json).map_err(|e| error("", format!("JSON: {e}")))?;
    let doc = ::gltf::Document::from_json(root).map_err(gltf_error)?;
    check_enums(doc.as_json())?;
    check_indices(doc.as_json())?;
    let skin = doc.skins().next();
    let members: Vec<usize> = match &skin {
        Some(s) => s.joints().map(|n| n.index()).collect(),
        None => (0..doc.nodes().len()).collect(),
    };
    let at = if skin.is_some() {
        "skins[0].joints"
    } else {
        "nodes (a document without a skin: every node is a joint)"
    };
    if members.is_empty() {
        return err(at, "no joints");
    }
    if members.len() > MAX_JOINTS {
        return err(
            at,
            format!("{} joints; at most {MAX_JOINTS}", members.len()),
        );
    }
    let tree = tree(doc.as_json())?;
    let joints = joints(&doc, &tree, &members)?;
    drop(tree);
    let (skeleton, own_rest, rest) = skeleton(&doc, &joints)?;
    let ibm = skin
        .as_ref()
        .and_then(|s| s.inverse_bind_matrices())
        .map(|a| a.index());
    let plan = plan(&doc, &joints, ibm)?;
    let mut needed = vec![false; doc.buffers().len()];
    for acc in doc.accessors().filter(|a| plan.accessors[a.index()]) {
        for b in buffers_of(&acc) {
            needed[b] = true;
        }
    }
    let data = Data {
        buffers: buffers(&doc, bin, dir, &needed)?,
    };
    let mut keys = Keys::new(doc.accessors().len());
    decode(&doc, &data, &plan, &joints, &mut keys)?;
    let inverse_bind = match ibm {
        None => None,
        Some(a) => Some(inverse_bind(&doc, &data, &mut keys, a, &joints.slot)?),
    };
    drop(data);
    let timings = timing(&plan, &keys, joints.nodes.len(), rate)?;
    let mut clips = Vec::with_capacity(timings.len());
    for (anim, t) in doc.animations().zip(&timings) {
        let a = anim.index();
        let name = anim
            .name()
            .map_or_else(|| format!("animation{a}"), String::from);
        let clip = sample(&doc, &plan, &keys, &joints, &own_rest, a, t)?;
        clip.check_reach(skeleton.parents(), clip.positions())
            .map_err(|e| error(format!("animations[{a}]"), e.to_string()))?;
        clips.push(NamedClip { name, clip });
    }
    Ok(Document {
        skeleton,
        nodes: joints.nodes,
        rest,
        inverse_bind,
        clips,
    })
}

/// The skeleton of `joints`, each joint's own rest transform, and its rest
/// transform with the helpers above it folded in.
fn skeleton(doc: &::gltf::Document, joints: &Joints) -> Result<(Skeleton, Vec<Kform>, Vec<Kform>)> {
    let names: Vec<String> = joints
        .nodes
        .iter()
        .map(|&n| {
            doc.as_json().nodes[n]
                .name
                .clone()
                .unwrap_or_else(|| format!("node{n}"))
        })
        .collect();
    let skeleton = Skeleton::with_names(joints.parents.clone(), names)
        .map_err(|e| error("nodes", e.to_string()))?;
    let own_rest = joints
        .nodes
        .iter()
        .map(|&n| node_rest(doc, n))
        .collect::<Result<Vec<_>>>()?;
    let rest = own_rest
        .iter()
        .zip(&joints.fold)
        .map(|(&k, &f)| match joints.helpers.get(f as usize) {
            Some(h) => kform_mul(h.through(), k),
            None => k,
        })
        .collect();
    Ok((skeleton, own_rest, rest))
}

/// The skin's inverse bind matrices (accessor `a`), one per skin joint,
/// in skeleton order (`slot`: each joint's place in the skin).
fn inverse_bind(
    doc: &::gltf::Document,
    data: &Data,
    keys: &mut Keys,
    a: usize,
    slot: &[usize],
) -> Result<Vec<[f32; 16]>> {
    let path = "skins[0].inverseBindMatrices";
    let m = keys.get(doc, data, a, Dimensions::Mat4, false, path)?;
    let m: Vec<[f32; 16]> = m
        .chunks_exact(16)
        .map(|c| core::array::from_fn(|i| c[i]))
        .collect();
    if m.len() != slot.len() {
        return err(
            path,
            format!("{} matrices for {} joints", m.len(), slot.len()),
        );
    }
    Ok(slot.iter().map(|&k| m[k]).collect())
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
            error(path, format!("{what}{more}"))
        }
        ::gltf::Error::Binary(b) => error("glb", format!("binary container: {b}")),
        ::gltf::Error::Deserialize(j) => error("", format!("JSON: {j}")),
        other => error("", other.to_string()),
    }
}
