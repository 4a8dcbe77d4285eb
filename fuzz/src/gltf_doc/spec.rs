//! The typed values a document is built from (the `arbitrary` crate
//! decodes them from the fuzzer's bytes, in the order of their fields):
//! nodes, samplers, channels, animations and the document, with the
//! tables of key spacings and rates.

use arbitrary::Arbitrary;

/// A small float from a table of telling values, or a raw one in a range.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub(super) enum Small {
    Zero,
    One,
    Half,
    MinusTwo,
    Ten,
    Tiny,
    Raw(i16),
}

impl Small {
    pub(super) fn get(self) -> f32 {
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
pub(super) enum Scale {
    Uniform(Small),
    Any([Small; 3]),
}

#[derive(Arbitrary, Debug)]
pub(super) struct NodeSpec {
    /// Parent among the nodes before (index modulo their count), or none
    /// (one node in eight is a root).
    pub(super) parent: u8,
    pub(super) t: Option<[Small; 3]>,
    /// An angle-axis rotation (scaled axis), or a raw quaternion.
    pub(super) r: Option<[Small; 4]>,
    pub(super) s: Option<Scale>,
    pub(super) named: bool,
}

/// Seconds between keys, from the table: 1e-7 s gives a key rate past
/// what a clip can have, 1e9 s a clip past the sample limit at any rate
/// (refused at once); the rest keep accepted clips small enough for the
/// fuzzer's speed (at most 63 keys, 1,000 keys per second).
pub(super) const SPACING: [f32; 8] = [1.0 / 120.0, 1.0 / 30.0, 0.25, 1.0, 1e-7, 1e-3, 1e9, 0.0];

#[derive(Arbitrary, Debug)]
pub(super) struct SamplerSpec {
    pub(super) keys: u8,
    pub(super) spacing: u8,
    pub(super) start: Small,
    /// 0 LINEAR, 1 STEP, 2 CUBICSPLINE.
    pub(super) interpolation: u8,
    /// Reuse the accessors of an earlier sampler (of any animation).
    pub(super) reuse: Option<u8>,
    /// Values substituted sparsely over zeros.
    pub(super) sparse: bool,
    pub(super) values: Vec<Small>,
}

#[derive(Arbitrary, Debug)]
pub(super) struct ChannelSpec {
    pub(super) sampler: u8,
    pub(super) node: u16,
    /// 0 translation, 1 rotation, 2 scale, 3 weights.
    pub(super) path: u8,
}

#[derive(Arbitrary, Debug)]
pub(super) struct AnimSpec {
    pub(super) samplers: Vec<SamplerSpec>,
    pub(super) channels: Vec<ChannelSpec>,
    /// This many more channels, on consecutive nodes from `node`, sharing
    /// sampler 0 and `path` (the shape of the defect 1 files).
    pub(super) fan: u8,
    pub(super) fan_node: u16,
    pub(super) fan_path: u8,
}

#[derive(Arbitrary, Debug)]
pub(super) struct DocSpec {
    pub(super) nodes: Vec<NodeSpec>,
    /// A chain of `(chain - 223) × 64` nodes (none when `chain` is 223 or
    /// less: one document in eight has one, of 64 to 2,048 nodes) below
    /// node `chain_at`, each translated by `chain_t`, every
    /// `joint_every`-th one a joint (when there is a skin).
    pub(super) chain: u8,
    pub(super) chain_at: u8,
    pub(super) chain_t: Small,
    pub(super) joint_every: u8,
    /// Skin joints (node indices modulo the node count); none: no skin.
    pub(super) skin: Option<Vec<u16>>,
    /// Extra child links, which may share children or close cycles (used
    /// in one document of eight: `mischief` under 32).
    pub(super) extra: Vec<(u16, u16)>,
    pub(super) mischief: u8,
    pub(super) animations: Vec<AnimSpec>,
    pub(super) embedded: bool,
    /// 0: the key rate; else a rate from the table.
    pub(super) rate: u8,
}

pub(super) const RATES: [f32; 5] = [1.0, 24.0, 30.0, 60.0, 120.0];

pub(super) fn quat(r: [Small; 4]) -> [f32; 4] {
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

pub(super) fn scale(s: Scale) -> [f32; 3] {
    match s {
        Scale::Uniform(x) => [x.get(); 3],
        Scale::Any(v) => v.map(Small::get),
    }
}
