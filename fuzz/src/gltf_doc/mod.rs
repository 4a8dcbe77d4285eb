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
//!
//! The parts: [`spec`] the typed values a document is built from,
//! [`document`] the document built from them and what the builder knows
//! of it, [`animation`] its samplers and channels, and [`oracle`] the
//! world positions glTF's matrices give, compared with kineform's.

mod animation;
mod document;
mod oracle;
mod spec;

use arbitrary::{Arbitrary, Result, Unstructured};
use kineform::gltf::{self, MAX_SAMPLES, Rate};

use document::build;
use oracle::{compare, within_reach};
use spec::{DocSpec, RATES};

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
