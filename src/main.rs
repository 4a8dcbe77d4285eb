//! Demo: forward kinematics with velocities for a crowd of 10,000
//! characters on the CMU skeleton (the clip embedded in the crate), timed.

use std::time::Instant;

use kineform::reference::{Kform, Pose, op_finite_diff};
use kineform::stream::CrowdPose;
use kineform::{batch, data};

const CHARACTERS: usize = 10_000;
const FRAMES: usize = 200;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bvh = data::default_clip();
    let (clip, skel) = (&bvh.clip, &bvh.skeleton);
    let joints = skel.len();
    let threads = rayon::current_num_threads();
    println!(
        "kineform {} | SIMD backend: {} | threads: {threads}",
        env!("CARGO_PKG_VERSION"),
        kineform::simd_backend()
    );
    println!(
        "clip: CMU 102_01, {joints} joints, {} frames at {:.0} fps; crowd: {CHARACTERS} characters",
        clip.frames(),
        1.0 / clip.frame_time()
    );

    // Local poses with velocities (finite difference of the clip), one
    // frame per character so that every character has its own data.
    let frame_pose = |f: usize| {
        let k: Vec<Kform> = (0..joints)
            .map(|j| Kform {
                pos: clip.pos(f, j),
                rot: clip.rot(f, j),
                scl: clip.scl(f, j),
                ..Kform::IDENTITY
            })
            .collect();
        Pose::from_kforms(&k)
    };
    let poses: Vec<Pose> = (0..clip.frames() - 1)
        .map(|f| {
            let mut p = frame_pose(f);
            op_finite_diff(
                &mut p,
                &frame_pose(f + 1),
                &frame_pose(f),
                clip.frame_time(),
            );
            p
        })
        .collect();
    let locals: Vec<Pose> = (0..CHARACTERS)
        .map(|c| poses[c % poses.len()].clone())
        .collect();
    let local = CrowdPose::from_poses(&locals, joints).ok_or("inconsistent poses")?;
    let mut global = CrowdPose::new(CHARACTERS, joints);

    batch::crowd::op_fk(&mut global, &local, skel)?; // warm up
    let mut times = Vec::with_capacity(FRAMES);
    for _ in 0..FRAMES {
        let t = Instant::now();
        batch::crowd::op_fk(&mut global, &local, skel)?;
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let median = times[FRAMES / 2];
    let elems = (CHARACTERS * joints) as f64;
    println!(
        "FK with velocities: {:.3} ms per frame (median of {FRAMES}), {:.2} ns per character-joint, {:.0} M character-joints/s",
        median * 1e3,
        median * 1e9 / elems,
        elems / median / 1e6
    );
    let head = skel.find("Head").unwrap_or(joints - 1);
    let k = global.get(CHARACTERS - 1, head).ok_or("no such joint")?;
    println!(
        "character {} head: position ({:.2}, {:.2}, {:.2}), velocity ({:.2}, {:.2}, {:.2}) units/s",
        CHARACTERS - 1,
        k.pos.x,
        k.pos.y,
        k.pos.z,
        k.vel.x,
        k.vel.y,
        k.vel.z
    );
    Ok(())
}
