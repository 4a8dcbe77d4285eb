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
                "joint {} has scale {:?} at frame {}: BVH has no scale channels",
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
            let moves = (1..clip.frames()).any(|f| clip.pos(f, j) != clip.pos(0, j));
            if skeleton.parents()[j] < 0 || moves {
                pos.iter().chain(&rot).copied().collect()
            } else {
                rot.to_vec()
            }
        })
        .collect();
    Ok(Bvh {
        skeleton: skeleton.clone(),
        offsets: (0..joints).map(|j| clip.pos(0, j)).collect(),
        channels,
        end_sites: vec![None; joints],
        clip: clip.clone(),
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
/// feature). Nothing is written when reading or converting fails.
pub fn convert_file(input: &Path, output: &Path, options: &Options) -> Result<Summary> {
    let (skeleton, clips, rest): (Skeleton, Vec<(String, Clip)>, Option<Vec<Kform>>) =
        match extension(input).as_str() {
            "bvh" => {
                let b = bvh::load(input)?;
                (b.skeleton, vec![("bvh".to_string(), b.clip)], None)
            }
            #[cfg(feature = "gltf")]
            "glb" | "gltf" => {
                let rate = options
                    .rate
                    .map_or(crate::gltf::Rate::Keys, crate::gltf::Rate::Fps);
                let d = crate::gltf::load(input, rate)?;
                let clips = d.clips.into_iter().map(|c| (c.name, c.clip)).collect();
                (d.skeleton, clips, Some(d.rest))
            }
            e => {
                return Err(unsupported(
                    input,
                    &format!("cannot read `.{e}` (this build reads {})", formats()),
                ));
            }
        };
    let text_or_bytes: Vec<u8> = match extension(output).as_str() {
        "bvh" => {
            let Some((_, clip)) = clips.get(options.animation) else {
                return Err(no_animation(input, clips.len(), options.animation));
            };
            let b = bvh_for_clip(&skeleton, clip)?;
            bvh::write(&b, clip)?.into_bytes()
        }
        #[cfg(feature = "gltf")]
        "glb" => {
            let named: Vec<(&str, &Clip)> = clips.iter().map(|(n, c)| (n.as_str(), c)).collect();
            crate::gltf::write_glb(&skeleton, rest.as_deref(), &named)?
        }
        #[cfg(feature = "gltf")]
        "gltf" => {
            let named: Vec<(&str, &Clip)> = clips.iter().map(|(n, c)| (n.as_str(), c)).collect();
            let bin_path = output.with_extension("bin");
            let bin_name = bin_path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("buffer.bin");
            let files = crate::gltf::write_gltf(&skeleton, rest.as_deref(), &named, bin_name)?;
            std::fs::write(&bin_path, files.bin).map_err(|e| Error::Io {
                path: bin_path.display().to_string(),
                reason: e.to_string(),
            })?;
            files.gltf
        }
        e => {
            return Err(unsupported(
                output,
                &format!(
                    "cannot write `.{e}` (this build writes .bvh{})",
                    if cfg!(feature = "gltf") {
                        ", .glb, .gltf"
                    } else {
                        ""
                    }
                ),
            ));
        }
    };
    let _ = &rest;
    std::fs::write(output, text_or_bytes).map_err(|e| Error::Io {
        path: output.display().to_string(),
        reason: e.to_string(),
    })?;
    let first = clips
        .get(options.animation)
        .or(clips.first())
        .map(|(_, c)| c);
    Ok(Summary {
        joints: skeleton.len(),
        clips: clips.len(),
        frames: first.map_or(0, Clip::frames),
        frame_time: first.map_or(0.0, Clip::frame_time),
    })
}

/// The refusal of an animation the input does not have, in words.
fn no_animation(input: &Path, animations: usize, asked: usize) -> Error {
    if extension(input) == "bvh" {
        return Error::Index {
            what: "animation (a BVH file holds one: animation 0)",
            index: asked,
            len: animations,
        };
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
