//! The writer: skeletons and clips to `.glb`, or to `.gltf` with a `.bin`
//! beside it.

use ::gltf::json;
use json::validation::Checked::Valid;
use json::validation::USize64;

use super::MAX_SAMPLES;
use crate::clip::Clip;
use crate::error::{Error, Result, refused_size, try_collect};
use crate::reference::{Kform, Quat, Vec3};
use crate::skeleton::Skeleton;
use crate::skinning::InverseBind;

pub(super) fn bad(name: &'static str, value: f32, reason: &'static str) -> Error {
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
    /// animation inputs). The buffer grows with `try_reserve`
    /// ([`Error::Size`] where its bytes cannot be had).
    fn accessor(
        &mut self,
        values: &[f32],
        width: usize,
        type_: json::accessor::Type,
        bounds: bool,
    ) -> Result<json::Index<json::Accessor>> {
        let offset = self.bin.len();
        let more = values.len() * 4;
        if self.bin.capacity() - offset < more {
            // Doubling, as `extend` would, so that many accessors cost
            // amortized constant copies.
            let want = more.max(self.bin.capacity());
            self.bin
                .try_reserve(want)
                .map_err(|_| refused_size::<u8>("glTF buffer bytes", offset + want))?;
        }
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
        Ok(self.root.push(json::Accessor {
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
        }))
    }
}

fn finite(v: Vec3) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

/// A rotation as glTF's `(x, y, z, w)`, normalized in f64: kineform's
/// rotations are unit to f32 rounding, and a product of them (a local
/// rotation recovered from two world ones) drifts a few ulps further,
/// which the Khronos validator reports (`w = 1.0000001`: `ROTATION_NON_UNIT`).
fn xyzw(q: Quat) -> [f32; 4] {
    let v = [q.x as f64, q.y as f64, q.z as f64, q.w as f64];
    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if !(n > 0.0 && n.is_finite()) {
        return [0.0, 0.0, 0.0, 1.0];
    }
    v.map(|x| (x / n).clamp(-1.0, 1.0) as f32)
}

/// A `.glb` of `skeleton` with one animation per clip (named as given):
/// one node per joint at its `rest` transform (default: the first clip's
/// first frame, or the identity without clips), a skin whose inverse bind
/// matrices are the rest pose's, and per clip a LINEAR sampler for each
/// joint's translation and rotation, and scale where it is not one, keyed
/// at every frame (`k × frame_time`). Rotations are written normalized.
///
/// Refuses, writing nothing: a clip or rest pose whose joint count is not
/// the skeleton's, non-finite values, a rest pose with a zero scale (no
/// inverse bind matrix), clips whose frames × joints sum past
/// [`MAX_SAMPLES`] (kineform's reader would refuse the file), and a file
/// past glTF's 4 GiB.
pub fn write_glb(
    skeleton: &Skeleton,
    rest: Option<&[Kform]>,
    clips: &[(&str, &Clip)],
) -> Result<Vec<u8>> {
    let mut b = document(skeleton, rest, clips)?;
    let bin = std::mem::take(&mut b.bin);
    let text = finish(b, bin.len(), None)?;
    let total = 12 + 8 + text.len().div_ceil(4) * 4 + 8 + bin.len().div_ceil(4) * 4;
    if total > u32::MAX as usize {
        return Err(Error::Length {
            what: "glb bytes (glTF's limit is 4 GiB)",
            expected: u32::MAX as usize,
            got: total,
        });
    }
    glb_bytes(&text, &bin, total)
}

/// The GLB container (glTF 2.0, section 4.4: a 12-byte header, then the
/// JSON chunk padded with spaces and the BIN chunk padded with zeros to 4
/// bytes, each after its length and type), `total` bytes reserved with
/// `try_reserve` ([`Error::Size`] where they cannot be had). Written here
/// rather than by the `gltf` crate's `Glb::to_vec`, whose copy of the
/// buffer is infallible.
fn glb_bytes(text: &[u8], bin: &[u8], total: usize) -> Result<Vec<u8>> {
    let mut out = crate::error::try_empty::<u8>("glb bytes", total)?;
    let chunk = |out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8], pad: u8| {
        let len = data.len().div_ceil(4) * 4;
        out.extend_from_slice(&(len as u32).to_le_bytes());
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        out.resize(out.len() + len - data.len(), pad);
    };
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    chunk(&mut out, b"JSON", text, b' ');
    chunk(&mut out, b"BIN\0", bin, 0);
    // `total` is the same sum of the header, the chunks' 8-byte heads and
    // their padded lengths (write_glb): equal whatever the document holds.
    debug_assert_eq!(out.len(), total);
    Ok(out)
}

/// A `.gltf` and its buffer: the JSON document, whose one buffer's URI is
/// `bin_name` (percent-encoded), and the bytes to write to that file, in
/// the same folder.
#[derive(Clone, Debug, PartialEq)]
pub struct GltfFiles {
    /// The `.gltf` file's bytes (JSON).
    pub gltf: Vec<u8>,
    /// The buffer file's bytes.
    pub bin: Vec<u8>,
}

/// The characters percent-encoded in a buffer URI: controls, and those
/// RFC 3986 reserves or forbids in a path segment.
const URI_ESCAPES: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b']')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}')
    .add(b':');

/// What [`write_glb`] writes, as a `.gltf` whose buffer is the file
/// `bin_name` beside it (a plain file name: no folder). Refuses what
/// [`write_glb`] refuses, and a `bin_name` that is empty or names a folder.
pub fn write_gltf(
    skeleton: &Skeleton,
    rest: Option<&[Kform]>,
    clips: &[(&str, &Clip)],
    bin_name: &str,
) -> Result<GltfFiles> {
    if bin_name.is_empty() || bin_name.contains(['/', '\\']) || bin_name == "." || bin_name == ".."
    {
        return Err(super::error(
            "buffers[0].uri",
            format!("the buffer file name {bin_name:?} must be a plain file name"),
        ));
    }
    let mut b = document(skeleton, rest, clips)?;
    let bin = std::mem::take(&mut b.bin);
    let uri = percent_encoding::utf8_percent_encode(bin_name, URI_ESCAPES).to_string();
    let gltf = finish(b, bin.len(), Some(uri))?;
    Ok(GltfFiles { gltf, bin })
}

/// The document's one buffer (`bin` bytes, in the GLB BIN chunk or at
/// `uri`) added, and its JSON.
fn finish(mut b: Builder, bin: usize, uri: Option<String>) -> Result<Vec<u8>> {
    b.root.push(json::Buffer {
        byte_length: USize64::from(bin),
        extensions: Default::default(),
        extras: Default::default(),
        name: None,
        uri,
    });
    json::serialize::to_vec(&b.root)
        .map_err(|e| super::error("", format!("serializing the document: {e}")))
}

/// Everything of the document but its buffer.
fn document(
    skeleton: &Skeleton,
    rest: Option<&[Kform]>,
    clips: &[(&str, &Clip)],
) -> Result<Builder> {
    check_clips(skeleton, clips)?;
    let rest = rest_pose(skeleton.len(), rest, clips)?;
    let inverse_bind = InverseBind::from_bind_pose(skeleton, &rest)?;
    let mut b = Builder {
        root: json::Root::default(),
        bin: Vec::new(),
    };
    b.root.asset.generator = Some(format!("kineform {}", env!("CARGO_PKG_VERSION")));
    b.nodes_and_skin(skeleton, &rest, &inverse_bind)?;
    for (name, clip) in clips {
        b.animation(name, clip)?;
    }
    Ok(b)
}

/// Refuses clips that kineform's reader would refuse in one document
/// (more than [`MAX_SAMPLES`] joint-frames in all), that do not have the
/// skeleton's joints, that hold a value that is not finite, or whose
/// joints reach past [`crate::limits::MAX_REACH`] (kineform's reader
/// refuses them).
fn check_clips(skeleton: &Skeleton, clips: &[(&str, &Clip)]) -> Result<()> {
    let joints = skeleton.len();
    let samples = clips.iter().fold(0usize, |a, (_, c)| {
        a.saturating_add(c.frames().saturating_mul(c.joints()))
    });
    if samples > MAX_SAMPLES {
        return Err(super::error(
            "animations",
            format!(
                "the clips hold {samples} joint-frames; kineform's glTF reader reads at most {MAX_SAMPLES} in one document (write them to several files)"
            ),
        ));
    }
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
    for (name, c) in clips {
        c.check_reach(skeleton.parents(), c.positions())
            .map_err(|e| super::error(format!("animation {name}"), e.to_string()))?;
    }
    Ok(())
}

/// The nodes' rest transforms: `rest` as given (of `joints` joints), else
/// the first clip's first frame, else the identity.
fn rest_pose(joints: usize, rest: Option<&[Kform]>, clips: &[(&str, &Clip)]) -> Result<Vec<Kform>> {
    Ok(match (rest, clips.first()) {
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
                pos: c.pos_at(0, j),
                rot: c.rot_at(0, j),
                scl: c.scl_at(0, j),
                ..Kform::IDENTITY
            })
            .collect(),
        (None, None) => vec![Kform::IDENTITY; joints],
    })
}

impl Builder {
    /// One node per joint at its `rest` transform (children listed, the
    /// roots in the scene), and the skin with `inverse_bind`'s matrices.
    fn nodes_and_skin(
        &mut self,
        skeleton: &Skeleton,
        rest: &[Kform],
        inverse_bind: &InverseBind,
    ) -> Result<()> {
        let joints = skeleton.len();
        let parents = skeleton.parents();
        let mut children: Vec<Vec<json::Index<json::Node>>> = vec![Vec::new(); joints];
        for (j, &p) in parents.iter().enumerate() {
            if p >= 0 {
                children[p as usize].push(json::Index::new(j as u32));
            }
        }
        for (j, (name, k)) in skeleton.names().iter().zip(rest).enumerate() {
            let kids = std::mem::take(&mut children[j]);
            self.root.push(json::Node {
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
        let ibm = self.accessor(&ibm, 16, json::accessor::Type::Mat4, false)?;
        self.root.push(json::Skin {
            extensions: Default::default(),
            extras: Default::default(),
            inverse_bind_matrices: Some(ibm),
            joints: (0..joints).map(|j| json::Index::new(j as u32)).collect(),
            name: Some("skeleton".into()),
            skeleton: (roots.len() == 1).then(|| roots[0]),
        });
        let scene = self.root.push(json::Scene {
            extensions: Default::default(),
            extras: Default::default(),
            name: None,
            nodes: roots,
        });
        self.root.scene = Some(scene);
        Ok(())
    }

    /// One animation named `name`: a LINEAR sampler keyed at every frame of
    /// `clip` for each joint's translation and rotation, and its scale
    /// where it is not one.
    fn animation(&mut self, name: &str, clip: &Clip) -> Result<()> {
        let frames = clip.frames();
        let times = try_collect(
            "glTF key times",
            frames,
            (0..frames).map(|f| (f as f64 * clip.frame_time() as f64) as f32),
        )?;
        let input = self.accessor(&times, 1, json::accessor::Type::Scalar, true)?;
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        for j in 0..clip.joints() {
            let mut channel = |b: &mut Builder, values: Vec<f32>, width, property| {
                let type_ = if width == 3 {
                    json::accessor::Type::Vec3
                } else {
                    json::accessor::Type::Vec4
                };
                let output = b.accessor(&values, width, type_, false)?;
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
                Ok::<(), Error>(())
            };
            let (n3, n4) = (frames * 3, frames * 4);
            let pos = (0..frames).flat_map(|f| clip.pos_at(f, j).to_array());
            let pos = try_collect("glTF translation keys", n3, pos)?;
            channel(self, pos, 3, json::animation::Property::Translation)?;
            let rot = (0..frames).flat_map(|f| xyzw(clip.rot_at(f, j)));
            let rot = try_collect("glTF rotation keys", n4, rot)?;
            channel(self, rot, 4, json::animation::Property::Rotation)?;
            if (0..frames).any(|f| clip.scl_at(f, j) != Vec3::ONE) {
                let scl = (0..frames).flat_map(|f| clip.scl_at(f, j).to_array());
                let scl = try_collect("glTF scale keys", n3, scl)?;
                channel(self, scl, 3, json::animation::Property::Scale)?;
            }
        }
        self.root.push(json::Animation {
            extensions: Default::default(),
            extras: Default::default(),
            channels,
            name: Some(name.to_string()),
            samplers,
        });
        Ok(())
    }
}
