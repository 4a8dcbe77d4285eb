//! Converting motion between files by extension: `.bvh`, and with the
//! `gltf` feature (on by default) `.glb` / `.gltf` in and out (a `.gltf`
//! is written with its buffer in a `.bin` file of the same name beside
//! it). What the `kineform convert` command runs.
//!
//! BVH in gives one clip at the file's frame time; glTF in gives one clip
//! per animation at its own key rate, or resampled at [`Options::rate`]
//! when one is given (BVH out takes the one chosen by
//! [`Options::animation`]). BVH out writes each joint's first
//! frame as its OFFSET, position channels on roots and on joints whose
//! position moves, and `Zrotation Yrotation Xrotation` on every joint; BVH
//! has no scale, so clips with scales are refused.
//!
//! Files are read by [`crate::files::read_file`] (regular files only,
//! within their format's byte limit) and written by
//! [`crate::files::write_file`]: whole or not at all, through a temporary
//! file beside the output renamed over it, so a conversion that fails
//! (a full disk, a file-size limit, a refusal) leaves every existing file
//! as it was, and the output may be the input. What is written is within
//! the byte limit of kineform's reader for its format
//! ([`crate::limits`]), else refused: whatever kineform writes it reads.

use std::path::Path;

use crate::bvh::{self, Bvh, Channel};
use crate::clip::Clip;
use crate::error::{Error, Result};
use crate::reference::{Kform, Vec3};
use crate::skeleton::Skeleton;

/// Choices for [`convert_file`] (default: each animation's own rate, the
/// first animation).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Options {
    /// Frames per second at which glTF animations are resampled; `None`
    /// (the default) keeps each animation's own key rate
    /// ([`crate::gltf::Rate::Keys`]): a 120 Hz clip keeps its 120 frames
    /// per second.
    pub rate: Option<f32>,
    /// Which glTF animation goes to a BVH file (BVH holds one).
    pub animation: usize,
}

/// What [`convert_file`] read.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Joints of the skeleton.
    pub joints: usize,
    /// Clips read (glTF animations, or 1 for BVH).
    pub clips: usize,
    /// Frames of the clip written (of the first, for .glb out).
    pub frames: usize,
    /// Its frame time, seconds.
    pub frame_time: f32,
}

/// A BVH hierarchy for `clip` on `skeleton` (see the module docs). Refuses
/// a clip with another joint count or with a scale that is not one.
pub fn bvh_for_clip(skeleton: &Skeleton, clip: &Clip) -> Result<Bvh> {
    let joints = skeleton.len();
    if clip.joints() != joints {
        return Err(Error::Length {
            what: "clip joints (must match the skeleton)",
            expected: joints,
            got: clip.joints(),
        });
    }
    if let Some(i) = clip.scales().iter().position(|&s| s != Vec3::ONE) {
        return Err(Error::Bvh {
            path: None,
            line: 0,
            reason: format!(
                "cannot write joint {} with scale {:?} at frame {}: BVH has no scale channels",
                i % joints,
                clip.scales()[i],
                i / joints
            ),
        });
    }
    let rot = [Channel::Zrotation, Channel::Yrotation, Channel::Xrotation];
    let pos = [Channel::Xposition, Channel::Yposition, Channel::Zposition];
    let channels = (0..joints)
        .map(|j| {
            let moves = (1..clip.frames()).any(|f| clip.pos_at(f, j) != clip.pos_at(0, j));
            if skeleton.parents()[j] < 0 || moves {
                pos.iter().chain(&rot).copied().collect()
            } else {
                rot.to_vec()
            }
        })
        .collect();
    Ok(Bvh {
        skeleton: skeleton.clone(),
        offsets: (0..joints).map(|j| clip.pos_at(0, j)).collect(),
        channels,
        end_sites: vec![None; joints],
        clip: clip.try_clone()?,
    })
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

fn unsupported(path: &Path, what: &str) -> Error {
    Error::Io {
        path: path.display().to_string(),
        reason: what.to_string(),
    }
}

/// Reads `input` and writes `output`, each in the format its extension
/// names (`.bvh`; `.glb`, `.gltf` in and `.glb` out with the `gltf`
/// feature). Nothing is written when reading or converting fails, and a
/// write that fails part way leaves `output` as it was (module docs);
/// `output` may be `input`. Every error names the file it is about (the
/// input for what it holds, the output for what could not be written to
/// it, [`Error::in_file`]).
pub fn convert_file(input: &Path, output: &Path, options: &Options) -> Result<Summary> {
    // The output's format, and that it could be replaced, before the input
    // is read.
    let out_ext = extension(output);
    let limit = output_limit(output, &out_ext)?;
    // A `.gltf` is written with its buffer in a `.bin` of the same name.
    let bin_path = output.with_extension("bin");
    let outputs: &[&Path] = match out_ext.as_str() {
        "gltf" => &[output, &bin_path],
        _ => &[output],
    };
    for &out in outputs {
        if let Ok(m) = std::fs::symlink_metadata(out)
            && !m.is_file()
        {
            return Err(unsupported(
                out,
                "is not a regular file: kineform writes only regular files, replacing them whole",
            ));
        }
    }
    let read = read_input(input, options)?;
    let written = encode(&read, input, output, options)?;
    for (&out, bytes) in outputs.iter().zip(&written) {
        if bytes.len() as u64 > limit {
            return Err(unsupported(
                out,
                &format!(
                    "not written: it would be {} bytes, more than the {limit} bytes kineform reads back in a `.{out_ext}` file (kineform::limits)",
                    bytes.len()
                ),
            ));
        }
    }
    // The `.bin` before the `.gltf` that names it; both written whole
    // before either replaces a file.
    let set: Vec<(&Path, &[u8])> = outputs
        .iter()
        .zip(&written)
        .rev()
        .map(|(&p, b)| (p, b.as_slice()))
        .collect();
    crate::files::write_files(&set)?;
    let first = read
        .clips
        .get(options.animation)
        .or(read.clips.first())
        .map(|(_, c)| c);
    Ok(Summary {
        joints: read.skeleton.len(),
        clips: read.clips.len(),
        frames: first.map_or(0, Clip::frames),
        frame_time: first.map_or(0.0, Clip::frame_time),
    })
}

/// The largest file kineform reads back in the format of `output`
/// (extension `ext`), or the refusal of a format this build cannot write.
fn output_limit(output: &Path, ext: &str) -> Result<u64> {
    match ext {
        "bvh" => Ok(crate::limits::MAX_BVH_BYTES),
        #[cfg(feature = "gltf")]
        "glb" | "gltf" => Ok(crate::limits::MAX_GLB_BYTES),
        e => Err(unsupported(
            output,
            &format!(
                "cannot write `.{e}` (this build writes .bvh{})",
                if cfg!(feature = "gltf") {
                    ", .glb, .gltf"
                } else {
                    ""
                }
            ),
        )),
    }
}

/// What an input file holds: its skeleton, its named clips, and the rest
/// pose where the format has one (glTF's nodes).
struct Read {
    skeleton: Skeleton,
    clips: Vec<(String, Clip)>,
    #[cfg_attr(not(feature = "gltf"), allow(dead_code))]
    rest: Option<Vec<Kform>>,
}

/// Reads `input` by its extension (glTF at `options.rate`).
fn read_input(input: &Path, options: &Options) -> Result<Read> {
    // Read only by the glTF reader (a build without it has no rate).
    let _ = options;
    match extension(input).as_str() {
        "bvh" => {
            let b = bvh::load(input)?;
            Ok(Read {
                skeleton: b.skeleton,
                clips: vec![("bvh".to_string(), b.clip)],
                rest: None,
            })
        }
        #[cfg(feature = "gltf")]
        "glb" | "gltf" => {
            let rate = options
                .rate
                .map_or(crate::gltf::Rate::Keys, crate::gltf::Rate::Fps);
            let d = crate::gltf::load(input, rate).map_err(|e| e.in_file(input))?;
            Ok(Read {
                skeleton: d.skeleton,
                clips: d.clips.into_iter().map(|c| (c.name, c.clip)).collect(),
                rest: Some(d.rest),
            })
        }
        e => Err(unsupported(
            input,
            &format!("cannot read `.{e}` (this build reads {})", formats()),
        )),
    }
}

/// The bytes of each output file of `output` (the `.gltf`, then its
/// `.bin`), encoded from what was read; errors name the file.
fn encode(read: &Read, input: &Path, output: &Path, options: &Options) -> Result<Vec<Vec<u8>>> {
    Ok(match extension(output).as_str() {
        "bvh" => {
            let Some((_, clip)) = read.clips.get(options.animation) else {
                return Err(no_animation(input, read.clips.len(), options.animation).in_file(input));
            };
            let b = bvh_for_clip(&read.skeleton, clip).map_err(|e| e.in_file(output))?;
            vec![
                bvh::write(&b, clip)
                    .map_err(|e| e.in_file(output))?
                    .into_bytes(),
            ]
        }
        #[cfg(feature = "gltf")]
        "glb" => {
            let named: Vec<(&str, &Clip)> =
                read.clips.iter().map(|(n, c)| (n.as_str(), c)).collect();
            vec![
                crate::gltf::write_glb(&read.skeleton, read.rest.as_deref(), &named)
                    .map_err(|e| e.in_file(output))?,
            ]
        }
        #[cfg(feature = "gltf")]
        "gltf" => {
            let named: Vec<(&str, &Clip)> =
                read.clips.iter().map(|(n, c)| (n.as_str(), c)).collect();
            let bin_path = output.with_extension("bin");
            let bin_name = bin_path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("buffer.bin");
            let files =
                crate::gltf::write_gltf(&read.skeleton, read.rest.as_deref(), &named, bin_name)
                    .map_err(|e| e.in_file(output))?;
            vec![files.gltf, files.bin]
        }
        e => return Err(unsupported(output, &format!("cannot write `.{e}`"))),
    })
}

/// The refusal of an animation the input does not have, in words.
fn no_animation(input: &Path, animations: usize, asked: usize) -> Error {
    if extension(input) == "bvh" {
        return unsupported(
            input,
            &format!(
                "has {animations} animation(s), numbered from 0: there is no animation {asked} to write as BVH"
            ),
        );
    }
    Error::Gltf {
        file: Some(input.display().to_string()),
        path: "animations".into(),
        reason: match animations {
            0 => "the file has no animations: there is no motion to write as BVH (a BVH file needs at least one frame of motion)".to_string(),
            n => format!(
                "animation {asked} was asked for, but the file has {n} (0 to {})",
                n - 1
            ),
        },
    }
}

fn formats() -> &'static str {
    if cfg!(feature = "gltf") {
        ".bvh, .glb, .gltf"
    } else {
        ".bvh (glTF needs the `gltf` feature)"
    }
}
