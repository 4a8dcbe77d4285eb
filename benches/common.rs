//! Shared inputs for the benches: the CMU skeleton, random poses, pools.
#![allow(dead_code)]

use kineform::Skeleton;
use kineform::lanes::Kformx8;
use kineform::reference::{Kform, Pose, Quat, Vec3, quat_from_scaled_angle_axis};

/// Tiny deterministic generator (xorshift) so benches need no extra crate.
pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn f32(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.f32()
    }
    pub fn vec3(&mut self, r: f32) -> Vec3 {
        Vec3::new(self.range(-r, r), self.range(-r, r), self.range(-r, r))
    }
    pub fn quat(&mut self) -> Quat {
        quat_from_scaled_angle_axis(self.vec3(2.0))
    }
    pub fn kform(&mut self) -> Kform {
        Kform {
            pos: self.vec3(10.0),
            rot: self.quat(),
            scl: Vec3::new(
                self.range(0.9, 1.1),
                self.range(0.9, 1.1),
                self.range(0.9, 1.1),
            ),
            vel: self.vec3(2.0),
            ang: self.vec3(3.0),
            svl: self.vec3(0.1),
        }
    }
}

/// The 31-joint skeleton of the CMU clips.
pub fn cmu_skeleton() -> Skeleton {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/mocap/cmu_102_01_max.bvh");
    kineform::bvh::load(path).expect("CMU clip").skeleton
}

/// A synthetic 100-joint skeleton: a spine of 10 with 9 limbs of 10 joints.
pub fn synthetic_skeleton(joints: usize) -> Skeleton {
    let parents = (0..joints as i32)
        .map(|i| {
            if i == 0 {
                -1
            } else if i % 10 == 0 {
                (i / 10 - 1).max(0)
            } else {
                i - 1
            }
        })
        .collect();
    Skeleton::new(parents).expect("valid synthetic skeleton")
}

pub fn random_pose(rng: &mut Rng, joints: usize) -> Pose {
    Pose::from_kforms(&(0..joints).map(|_| rng.kform()).collect::<Vec<_>>())
}

pub fn random_pack(rng: &mut Rng, joints: usize) -> Vec<Kformx8> {
    (0..joints)
        .map(|_| Kformx8::from_array(core::array::from_fn(|_| rng.kform())))
        .collect()
}

/// The thread counts a bench runs: 1, and `threads` (all) when more.
pub fn thread_counts(threads: usize) -> Vec<usize> {
    match threads > 1 {
        true => vec![1, threads],
        false => vec![1],
    }
}

pub fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool")
}

pub fn banner(group: &str) {
    eprintln!(
        "[{group}] SIMD backend: {} | cores: {}",
        kineform::simd_backend(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
}
