//! The writer: skeletons and clips, or world-space frames, to `.glb`.

use std::borrow::Cow;

use ::gltf::json;
use json::validation::Checked::Valid;
use json::validation::USize64;

use crate::clip::Clip;
use crate::error::{Error, Result};
use crate::reference::{Kform, Quat, Vec3, quat_inv_mul, quat_inv_mul_vec3};
use crate::skeleton::{MAX_JOINTS, Skeleton};
use crate::skinning::InverseBind;

fn bad(name: &'static str, value: f32, reason: &'static str) -> Error {
    Error::Parameter {
        name,
        value,
        reason,
    }
}

/// The BIN chunk under construction and the JSON it is described by.
struct Builder {
    root: json::Root,
    bin: Vec<u8>,
}

impl Builder {
    /// A buffer view and an accessor for `values` (f32, `width` per
    /// element), with `min`/`max` when asked (glTF requires them on
    /// animation inputs).
    fn accessor(
        &mut self,
        values: &[f32],
        width: usize,
        type_: json::accessor::Type,
        bounds: bool,
    ) -> json::Index<json::Accessor> {
        let offset = self.bin.len();
        self.bin.extend(values.iter().flat_map(|v| v.to_le_bytes()));
        let view = self.root.push(json::buffer::View {
            buffer: json::Index::new(0),
            byte_length: USize64::from(values.len() * 4),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            extensions: Default::default(),
            extras: Default::default(),
            name: None,
            target: None,
        });
        let (min, max) = if bounds {
            let lo: Vec<f32> = (0..width)
                .map(|k| {
                    values
                        .iter()
                        .skip(k)
                        .step_by(width)
                        .fold(f32::INFINITY, |a, &b| a.min(b))
                })
                .collect();
            let hi: Vec<f32> = (0..width)
                .map(|k| {
                    values
                        .iter()
                        .skip(k)
                        .step_by(width)
                        .fold(f32::NEG_INFINITY, |a, &b| a.max(b))
                })
                .collect();
            (Some(json::Value::from(lo)), Some(json::Value::from(hi)))
        } else {
            (None, None)
        };
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(values.len() / width),
            component_type: Valid(json::accessor::GenericComponentType(
                json::accessor::ComponentType::F32,
            )),
            extensions: Default::default(),
            extras: Default::default(),
            type_: Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }
}

fn finite(v: Vec3) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

fn xyzw(q: Quat) -> [f32; 4] {
    [q.x, q.y, q.z, q.w]
}

/// A `.glb` of `skeleton` with one animation per clip (named as given):
/// one node per joint at its `rest` transform (default: the first clip's
/// first frame, or the identity without clips), a skin whose inverse bind
/// matrices are the rest pose's, and per clip a LINEAR sampler for each
/// joint's translation and rotation, and scale where it is not one, keyed
/// at every frame (`k × frame_time`).
///
/// Refuses, writing nothing: a clip or rest pose whose joint count is not
/// the skeleton's, non-finite values, a rest pose with a zero scale (no
/// inverse bind matrix), and a file past glTF's 4 GiB.
pub fn write_glb(
    skeleton: &Skeleton,
    rest: Option<&[Kform]>,
    clips: &[(&str, &Clip)],
) -> Result<Vec<u8>> {
    let joints = skeleton.len();
    for (_, c) in clips {
        if c.joints() != joints {
            return Err(Error::Length {
                what: "clip joints (must match the skeleton)",
                expected: joints,
                got: c.joints(),
            });
        }
        if !(c.positions().iter().all(|&v| finite(v))
            && c.scales().iter().all(|&v| finite(v))
            && c.rotations()
                .iter()
                .all(|q| q.to_array().iter().all(|x| x.is_finite())))
        {
            return Err(bad("clip values", f32::NAN, "must be finite"));
        }
    }
    let rest: Vec<Kform> = match (rest, clips.first()) {
        (Some(r), _) => {
            if r.len() != joints {
                return Err(Error::Length {
                    what: "rest pose joints",
                    expected: joints,
                    got: r.len(),
                });
            }
            r.to_vec()
        }
        (None, Some((_, c))) => (0..joints)
            .map(|j| Kform {
                pos: c.pos(0, j),
                rot: c.rot(0, j),
                scl: c.scl(0, j),
                ..Kform::IDENTITY
            })
            .collect(),
        (None, None) => vec![Kform::IDENTITY; joints],
    };
    let inverse_bind = InverseBind::from_bind_pose(skeleton, &rest)?;

    let mut b = Builder {
        root: json::Root::default(),
        bin: Vec::new(),
    };
    b.root.asset.generator = Some(format!("kineform {}", env!("CARGO_PKG_VERSION")));
    let parents = skeleton.parents();
    let mut children: Vec<Vec<json::Index<json::Node>>> = vec![Vec::new(); joints];
    for (j, &p) in parents.iter().enumerate() {
        if p >= 0 {
            children[p as usize].push(json::Index::new(j as u32));
        }
    }
    for (j, (name, k)) in skeleton.names().iter().zip(&rest).enumerate() {
        let kids = std::mem::take(&mut children[j]);
        b.root.push(json::Node {
            name: Some(name.clone()),
            children: (!kids.is_empty()).then_some(kids),
            translation: Some(k.pos.to_array()),
            rotation: Some(json::scene::UnitQuaternion(xyzw(k.rot))),
            scale: (k.scl != Vec3::ONE).then_some(k.scl.to_array()),
            ..Default::default()
        });
    }
    let roots: Vec<json::Index<json::Node>> = (0..joints)
        .filter(|&j| parents[j] < 0)
        .map(|j| json::Index::new(j as u32))
        .collect();
    let ibm: Vec<f32> = inverse_bind.to_matrices().concat();
    let ibm = b.accessor(&ibm, 16, json::accessor::Type::Mat4, false);
    b.root.push(json::Skin {
        extensions: Default::default(),
        extras: Default::default(),
        inverse_bind_matrices: Some(ibm),
        joints: (0..joints).map(|j| json::Index::new(j as u32)).collect(),
        name: Some("skeleton".into()),
        skeleton: (roots.len() == 1).then(|| roots[0]),
    });
    let scene = b.root.push(json::Scene {
        extensions: Default::default(),
        extras: Default::default(),
        name: None,
        nodes: roots,
    });
    b.root.scene = Some(scene);

    for (name, clip) in clips {
        let frames = clip.frames();
        let times: Vec<f32> = (0..frames)
            .map(|f| (f as f64 * clip.frame_time() as f64) as f32)
            .collect();
        let input = b.accessor(&times, 1, json::accessor::Type::Scalar, true);
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        for j in 0..joints {
            let mut channel = |b: &mut Builder, values: Vec<f32>, width, property| {
                let type_ = if width == 3 {
                    json::accessor::Type::Vec3
                } else {
                    json::accessor::Type::Vec4
                };
                let output = b.accessor(&values, width, type_, false);
                let sampler = json::Index::new(samplers.len() as u32);
                samplers.push(json::animation::Sampler {
                    extensions: Default::default(),
                    extras: Default::default(),
                    input,
                    interpolation: Valid(json::animation::Interpolation::Linear),
                    output,
                });
                channels.push(json::animation::Channel {
                    sampler,
                    target: json::animation::Target {
                        extensions: Default::default(),
                        extras: Default::default(),
                        node: json::Index::new(j as u32),
                        path: Valid(property),
                    },
                    extensions: Default::default(),
                    extras: Default::default(),
                });
            };
            let pos: Vec<f32> = (0..frames)
                .flat_map(|f| clip.pos(f, j).to_array())
                .collect();
            channel(&mut b, pos, 3, json::animation::Property::Translation);
            let rot: Vec<f32> = (0..frames).flat_map(|f| xyzw(clip.rot(f, j))).collect();
            channel(&mut b, rot, 4, json::animation::Property::Rotation);
            if (0..frames).any(|f| clip.scl(f, j) != Vec3::ONE) {
                let scl: Vec<f32> = (0..frames)
                    .flat_map(|f| clip.scl(f, j).to_array())
                    .collect();
                channel(&mut b, scl, 3, json::animation::Property::Scale);
            }
        }
        b.root.push(json::Animation {
            extensions: Default::default(),
            extras: Default::default(),
            channels,
            name: Some((*name).to_string()),
            samplers,
        });
    }

    b.root.push(json::Buffer {
        byte_length: USize64::from(b.bin.len()),
        extensions: Default::default(),
        extras: Default::default(),
        name: None,
        uri: None,
    });
    let text = json::serialize::to_vec(&b.root).map_err(|e| Error::Gltf {
        path: String::new(),
        reason: format!("serializing the document: {e}"),
    })?;
    let total = 12 + 8 + text.len().div_ceil(4) * 4 + 8 + b.bin.len().div_ceil(4) * 4;
    if total > u32::MAX as usize {
        return Err(Error::Length {
            what: "glb bytes (glTF's limit is 4 GiB)",
            expected: u32::MAX as usize,
            got: total,
        });
    }
    let glb = ::gltf::binary::Glb {
        header: ::gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            length: total as u32,
        },
        json: Cow::Owned(text),
        bin: Some(Cow::Owned(b.bin)),
    };
    glb.to_vec().map_err(|e| Error::Gltf {
        path: "glb".into(),
        reason: e.to_string(),
    })
}

/// World-space frames of several characters that share a skeleton, as a
/// runtime's output gives them: `positions[(f × characters + c) × joints +
/// j]` is joint `j` of character `c` at frame `f` (so each frame is what
/// [`crate::output::positions`] writes), rotations likewise. Unit scales.
#[derive(Clone, Copy, Debug)]
pub struct WorldFrames<'a> {
    /// The characters' skeleton.
    pub skeleton: &'a Skeleton,
    /// Characters per frame.
    pub characters: usize,
    /// Seconds between frames.
    pub frame_time: f32,
    /// World positions, frame-major, then character, then joint.
    pub positions: &'a [Vec3],
    /// World rotations, in the same order.
    pub rotations: &'a [Quat],
}

/// A `.glb` of world-space frames ([`WorldFrames`]): one copy of the
/// skeleton per character (nodes named `c{c}/{joint}`), each joint's local
/// transform recovered from its parent's world transform
/// (`local = parent⁻¹ × world`), written as one animation by
/// [`write_glb`]. Refuses, writing nothing: no character, a frame time that
/// is not finite and positive, position and rotation counts that differ or
/// are not whole frames, non-finite values, and more than
/// [`MAX_JOINTS`] joints in all.
pub fn write_world_glb(w: &WorldFrames<'_>) -> Result<Vec<u8>> {
    let joints = w.skeleton.len();
    if w.characters == 0 {
        return Err(Error::Length {
            what: "characters (at least 1)",
            expected: 1,
            got: 0,
        });
    }
    if !(w.frame_time.is_finite() && w.frame_time > 0.0) {
        return Err(bad("frame_time", w.frame_time, "must be finite and > 0"));
    }
    let all = match w.characters.checked_mul(joints) {
        Some(n) if n <= MAX_JOINTS => n,
        _ => {
            return Err(Error::Length {
                what: "characters x joints in one file",
                expected: MAX_JOINTS,
                got: w.characters.saturating_mul(joints),
            });
        }
    };
    if w.rotations.len() != w.positions.len() {
        return Err(Error::Length {
            what: "world rotations (one per position)",
            expected: w.positions.len(),
            got: w.rotations.len(),
        });
    }
    if w.positions.is_empty() || !w.positions.len().is_multiple_of(all) {
        return Err(Error::Length {
            what: "world positions (frames x characters x joints)",
            expected: all * (w.positions.len() / all).max(1),
            got: w.positions.len(),
        });
    }
    let frames = w.positions.len() / all;
    let parents = w.skeleton.parents();
    let mut pos = Vec::with_capacity(w.positions.len());
    let mut rot = Vec::with_capacity(w.positions.len());
    for f in 0..frames {
        for c in 0..w.characters {
            let base = (f * w.characters + c) * joints;
            for (j, &p) in parents.iter().enumerate() {
                let (wp, wr) = (w.positions[base + j], w.rotations[base + j]);
                if p < 0 {
                    pos.push(wp);
                    rot.push(wr);
                } else {
                    let (pp, pr) = (
                        w.positions[base + p as usize],
                        w.rotations[base + p as usize],
                    );
                    pos.push(quat_inv_mul_vec3(pr, wp - pp));
                    rot.push(quat_inv_mul(pr, wr));
                }
            }
        }
    }
    let mut all_parents = Vec::with_capacity(all);
    let mut names = Vec::with_capacity(all);
    for c in 0..w.characters {
        for (j, &p) in parents.iter().enumerate() {
            all_parents.push(if p < 0 { -1 } else { (c * joints) as i32 + p });
            names.push(format!("c{c}/{}", w.skeleton.names()[j]));
        }
    }
    let skeleton = Skeleton::with_names(all_parents, names)?;
    let clip = Clip::new(
        frames,
        all,
        w.frame_time,
        pos,
        rot,
        vec![Vec3::ONE; frames * all],
    )?;
    write_glb(&skeleton, None, &[("world", &clip)])
}
