//! Helpers of the crowd tests: clips, thread pools, and the comparison of
//! the 8-lane crowd's world poses and bounding boxes with the reference
//! crowd's.
#![allow(dead_code)] // each test file uses its own share

pub mod matrices;

use kineform::crowd::{
    Aabb, BlendProfile, ClipLibrary, Crowd, CrowdConfig, Joints, Layer, Mask, ReferenceCrowd,
};
use kineform::reference::{self as r, Kform};

/// The embedded CMU clip as a library.
pub fn embedded() -> ClipLibrary {
    ClipLibrary::from_bvh(&kineform::data::default_clip()).unwrap()
}

/// A CMU clip of `data/mocap`.
pub fn load(name: &str) -> kineform::bvh::Bvh {
    kineform::bvh::load(format!("{}/data/mocap/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The embedded clip and 131_01 (the same hierarchy, another subject) with
/// the finger and thumb joints held at their first frame: CMU says they
/// carry no captured motion, and 131_01's right thumb turns 179° in one
/// frame (frame 242), where any two-source blend of the frames around it
/// must take one side or the other.
pub fn two_subjects() -> ClipLibrary {
    let mut library = embedded();
    let b = load("cmu_131_01_max.bvh");
    let c = &b.clip;
    let (f, j) = (c.frames(), c.joints());
    let mut rot = c.rotations().to_vec();
    for (k, name) in b.skeleton.names().iter().enumerate() {
        if name.contains("Fingers") || name.contains("Thumb") {
            for frame in 1..f {
                rot[frame * j + k] = rot[k];
            }
        }
    }
    let clip = kineform::Clip::new(
        f,
        j,
        c.frame_time(),
        c.positions().to_vec(),
        rot,
        c.scales().to_vec(),
    )
    .unwrap();
    library.add(&b.skeleton, &clip).unwrap();
    library
}

/// Both crowds of `n` characters on `library`, their velocity checks on.
pub fn checked_crowds(library: &ClipLibrary, n: usize) -> (Crowd, ReferenceCrowd) {
    let cfg = CrowdConfig {
        characters: n,
        velocity_check: true,
        ..CrowdConfig::default()
    };
    let lanes = Crowd::new(library, cfg.clone()).unwrap();
    (lanes, ReferenceCrowd::new(library, cfg).unwrap())
}

pub fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// Largest differences between the crowds, each over its tolerance
/// (`tests/suite/crowd/`); NaN-aware: a NaN anywhere makes a difference
/// infinite.
#[derive(Default, Debug)]
pub struct Diffs {
    pub pos: f32,
    pub rot: f32,
    pub vel: f32,
    pub ang: f32,
    /// Bounding boxes' faces ([`compare_bounds`]).
    pub bounds: f32,
    /// The extracted root motion (`RootDelta`): displacement 2e-4 units
    /// and 1e-4 relative, velocity 2e-2 units/s and 1e-4 relative, turn
    /// 1e-5 rad and 1e-4 relative, turn rate 2e-3 rad/s and 1e-4 relative (the
    /// root joint's blended pose, its twist and the twist's rate, a few
    /// ULP of the lanes' polynomials apart, over steps of 1/60 s).
    pub root: f32,
}

impl Diffs {
    /// Every difference within its tolerance (false on NaN).
    pub fn within(&self) -> bool {
        [
            self.pos,
            self.rot,
            self.vel,
            self.ang,
            self.bounds,
            self.root,
        ]
        .iter()
        .all(|d| *d <= 1.0)
    }
}

/// `max` that keeps NaN as infinity, so that a NaN never passes.
fn worst(a: f32, b: f32) -> f32 {
    if b.is_nan() || a.is_nan() {
        f32::INFINITY
    } else {
        a.max(b)
    }
}

/// Largest scaled differences between two world poses.
pub fn compare(a: &Kform, b: &Kform, d: &mut Diffs) {
    // |x - y| over its tolerance `abs + rel |y|`.
    let scaled =
        |x: r::Vec3, y: r::Vec3, abs: f32, rel: f32| r::length(x - y) / (abs + rel * r::length(y));
    d.pos = worst(d.pos, scaled(a.pos, b.pos, 2e-4, 2e-6));
    d.rot = worst(d.rot, (1.0 - r::quat_dot(a.rot, b.rot).abs()) / 1e-5);
    d.vel = worst(d.vel, scaled(a.vel, b.vel, 2e-3, 1e-5));
    d.ang = worst(d.ang, scaled(a.ang, b.ang, 2e-4, 1e-5));
}

/// Largest scaled differences between two bounding boxes, into
/// `d.bounds`: each face is the smallest or largest of the padded joint
/// positions (the same radii on both sides), so it moves no more than the
/// positions do between the crowds, and takes the positions' tolerance,
/// `2e-4 + 2e-6 |y|` per corner.
pub fn compare_bounds(a: &Aabb, b: &Aabb, d: &mut Diffs) {
    let scaled = |x: r::Vec3, y: r::Vec3| r::length(x - y) / (2e-4 + 2e-6 * r::length(y));
    d.bounds = worst(d.bounds, scaled(a.min, b.min));
    d.bounds = worst(d.bounds, scaled(a.max, b.max));
}

/// What a lanes-vs-reference run saw.
#[derive(Debug)]
pub struct Run {
    pub diffs: Diffs,
    pub transitions: u32,
    /// Transitions started while the character's previous one still ran.
    pub interrupted: u32,
    /// The factor on the velocity and angular-velocity tolerances (1: as
    /// `tests/suite/crowd/` states them; its users say why when more).
    pub velocity_slack: f32,
}

impl Default for Run {
    fn default() -> Run {
        Run {
            diffs: Diffs::default(),
            transitions: 0,
            interrupted: 0,
            velocity_slack: 1.0,
        }
    }
}

impl Run {
    /// Compares character `c`'s world pose, bounding box and extracted
    /// root motion in both crowds.
    pub fn compare_character(&mut self, lanes: &Crowd, reference: &ReferenceCrowd, c: usize) {
        for j in 0..lanes.skeleton().len() {
            let mut d = Diffs::default();
            compare(
                &lanes.world_kform(c, j).unwrap(),
                &reference.world_kform(c, j).unwrap(),
                &mut d,
            );
            let k = 1.0 / self.velocity_slack;
            let diffs = &mut self.diffs;
            diffs.pos = worst(diffs.pos, d.pos);
            diffs.rot = worst(diffs.rot, d.rot);
            diffs.vel = worst(diffs.vel, d.vel * k);
            diffs.ang = worst(diffs.ang, d.ang * k);
        }
        let (a, b) = (lanes.bounds(c).unwrap(), reference.bounds(c).unwrap());
        compare_bounds(&a, &b, &mut self.diffs);
        let (a, b) = (
            lanes.root_motion(c).unwrap(),
            reference.root_motion(c).unwrap(),
        );
        let scaled = |x: r::Vec3, y: r::Vec3, abs: f32, rel: f32| {
            r::length(x - y) / (abs + rel * r::length(y))
        };
        let one = |x: f32, y: f32, abs: f32, rel: f32| (x - y).abs() / (abs + rel * y.abs());
        for d in [
            scaled(a.displacement, b.displacement, 2e-4, 1e-4),
            scaled(a.velocity, b.velocity, 2e-2, 1e-4),
            one(a.turn, b.turn, 1e-5, 1e-4),
            one(a.turn_rate, b.turn_rate, 2e-3, 1e-4),
        ] {
            self.diffs.root = worst(self.diffs.root, d);
        }
    }
}

/// Two layers on the CMU skeleton of the 3dsMax files (an upper-body
/// override feathered at the chest, an additive on the lower back's
/// subtree relative to frame 10) and two blend profiles (legs over a
/// third of the duration, hands snapping; the head snapping, the arms at
/// half).
pub fn layered(cfg: CrowdConfig) -> CrowdConfig {
    CrowdConfig {
        layers: vec![
            Layer::overriding(Mask::new().feathered("Chest", 1.0, 0.5)),
            Layer::additive(Mask::new().subtree("lowerback", 1.0), 10),
        ],
        blend_profiles: vec![
            BlendProfile::new()
                .scale(Joints::subtree("LHipJoint"), 0.3)
                .scale(Joints::subtree("RHipJoint"), 0.3)
                .snap(Joints::named(&["lhand", "rhand"])),
            BlendProfile::new()
                .snap(Joints::subtree("Neck"))
                .scale(Joints::subtree("LeftCollar"), 0.5)
                .scale(Joints::subtree("RightCollar"), 0.5),
        ],
        ..cfg
    }
}
