//! A crowd stepped on threads of the game's own, as an engine with its own
//! job system does (the task pool of Bevy, a studio's scheduler): the step
//! is prepared, its parts are split into runs that the threads take in
//! turn, and the frame is finished. Here the threads are plain
//! `std::thread::scope` threads started for each part; an engine hands
//! the same runs to its scoped tasks (`part.run()` in each). A twin crowd
//! stepped the default way (on rayon) shows that the output is the same
//! bit for bit.
//!
//! `cargo run --release --example own_threads [CHARACTERS [THREADS]]`

use std::sync::Mutex;
use std::time::{Duration, Instant};

use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, PackRange, ShownRange, Source};

/// Runs `runs` on `threads` threads of our own, each taking the next run
/// until none is left (as a job system's workers take tasks: a thread the
/// machine slows down takes fewer).
fn on_threads<T: Send>(runs: impl Iterator<Item = T>, threads: usize, run: fn(T)) {
    let queue = Mutex::new(runs.collect::<Vec<T>>().into_iter());
    let next = || queue.lock().unwrap().next();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(part) = next() {
                    run(part)
                }
            });
        }
    });
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(2000);
    let threads: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(2);
    let library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
    let len = library.clips()[0].last_time();
    let cfg = CrowdConfig {
        characters: n,
        ..CrowdConfig::default()
    };
    let mut crowd = Crowd::new(&library, cfg.clone())?;
    let mut twin = Crowd::new(&library, cfg)?;
    let dt = 1.0 / 60.0;
    let (mut ours, mut rayons) = (Duration::ZERO, Duration::ZERO);
    for frame in 0..120 {
        // The game's commands: every frame one character in forty jumps to
        // another point of the clip, the jump hidden by inertialization.
        for c in (frame % 40..n).step_by(40) {
            let t = (c * 7 + frame) as f32 % 20.0 / 20.0 * (len - 0.5);
            let (a, b) = (Source::looping(0, t), Source::looping(0, t + 0.1));
            crowd.transition(c, a, b, 0.3, 0.1)?;
            twin.transition(c, a, b, 0.3, 0.1)?;
        }

        // The step on our threads: the commands planned, the poses the
        // transitioning characters would have shown, the packs (each part
        // in 8 runs a thread), then the events and figures.
        let start = Instant::now();
        let mut step = crowd.prepare(dt)?;
        on_threads(step.shown().split(8 * threads), threads, ShownRange::run);
        on_threads(step.packs().split(8 * threads), threads, PackRange::run);
        let stats = step.finish();
        ours += start.elapsed();

        let start = Instant::now();
        let want = twin.step(dt)?;
        rayons += start.elapsed();
        let same = bytemuck::cast_slice::<_, u8>(crowd.world())
            == bytemuck::cast_slice::<_, u8>(twin.world());
        assert!(
            same && stats == want,
            "frame {frame}: not the step's output"
        );
    }
    println!(
        "{n} characters, 120 frames on {threads} threads of our own: {:.3} ms a frame \
         (threads started every frame); on rayon: {:.3} ms; output identical bit for bit",
        ours.as_secs_f64() * 1e3 / 120.0,
        rayons.as_secs_f64() * 1e3 / 120.0,
    );
    Ok(())
}
