//! Layers' cost in the crowd's frame (issue 23, item 5): 10,000
//! characters x 31 joints of the embedded CMU clip driven by the demo's
//! driver, the velocity check on (the demo's frame), with
//!
//! - `base`: no layers (today's frame);
//! - `override`: an upper-body override (the chest's subtree, feathered
//!   at the chest) on every character;
//! - `override_additive`: that and an additive on the lower back's
//!   subtree (relative to frame 10) on every character.
//!
//! Every character plays both layers from its own time of the clip, and
//! each frame 2% of them get a new target for a layer's weight (always
//! above zero, so no pack skips a layer: the worst case), the weights
//! moving toward it at a half-life of 0.3 s. `lanes/10k_2t` and
//! `lanes/10k_1t` are the 8-lane crowd on 2 and 1 threads;
//! `reference/1k_1t` the scalar path on 1,000 characters (per
//! character-joint, as in `benches/crowd.rs`). Throughput is in
//! character-joints.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use kineform::crowd::{
    ClipLibrary, Command, Crowd, CrowdConfig, Driven, Layer, Mask, ReferenceCrowd, Source, Wander,
    WanderConfig,
};
use kineform::data;
use std::time::{Duration, Instant};

const WARMUP_FRAMES: usize = 180;
const DT: f32 = 1.0 / 60.0;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool")
}

/// The crowd's layers for `name`.
fn layers(name: &str) -> Vec<Layer> {
    let upper = Layer::overriding(Mask::new().feathered("Chest", 1.0, 0.5));
    let breath = Layer::additive(Mask::new().subtree("lowerback", 1.0), 10);
    match name {
        "base" => vec![],
        "override" => vec![upper],
        _ => vec![upper, breath],
    }
}

/// The layers' share of frame `frame`'s commands (module docs); on frame
/// 0 every character's layers start.
fn layer_commands(crowd: &mut impl Driven, frame: usize, len: f32) {
    let (n, layers) = (crowd.characters(), crowd.layers().len());
    if layers == 0 {
        return;
    }
    if frame == 0 {
        for c in 0..n {
            for layer in 0..layers {
                let source = Source::looping(0, (c as f32 * 0.137 + layer as f32 * 0.5) % len);
                crowd
                    .command(c, Command::PlayLayer { layer, source })
                    .expect("layer");
                let weight = 0.5 + 0.4 * ((c % 5) as f32 / 5.0);
                let cmd = Command::SetLayerWeight { layer, weight };
                crowd.command(c, cmd).expect("weight");
            }
        }
        return;
    }
    for k in 0..n / 50 {
        let c = (frame * 7919 + k * 104_729) % n;
        let cmd = Command::LayerWeightToward {
            layer: k % layers,
            target: 0.2 + 0.8 * ((frame + k) % 7) as f32 / 7.0,
            halflife: 0.3,
        };
        crowd.command(c, cmd).expect("weight target");
    }
}

/// `iters` frames of `frame` on a worker of `p`, timed there.
fn in_pool(p: &rayon::ThreadPool, iters: u64, mut f: impl FnMut() + Send) -> Duration {
    p.install(|| {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        t.elapsed()
    })
}

/// One frame of a driven crowd: the demo's driver, the layers' commands,
/// the step.
macro_rules! frame {
    ($crowd:expr, $wander:expr, $frame:expr, $len:expr) => {{
        $wander.update(&mut $crowd, DT).expect("driver");
        layer_commands(&mut $crowd, $frame, $len);
        $frame += 1;
        std::hint::black_box($crowd.step(DT).expect("step"));
    }};
}

fn layers_bench(c: &mut Criterion) {
    let library = ClipLibrary::from_bvh(&data::default_clip()).expect("library");
    let joints = library.skeleton().len();
    let len = library.clips()[0].last_time();
    let cfg = |characters, name| CrowdConfig {
        characters,
        velocity_check: true,
        layers: layers(name),
        ..Default::default()
    };
    for (characters, threads, scalar) in [(10_000, 2, false), (10_000, 1, false), (1_000, 1, true)]
    {
        let mut group = c.benchmark_group("layers");
        group.throughput(Throughput::Elements((characters * joints) as u64));
        group
            .sample_size(20)
            .measurement_time(Duration::from_secs(5));
        let p = pool(threads);
        let names: &[&str] = match threads {
            2 => &["base", "override", "override_additive"],
            _ => &["base", "override_additive"],
        };
        for &name in names {
            let cfg = cfg(characters, name);
            let mut wander = Wander::new(characters, WanderConfig::default());
            let mut f = 0usize;
            let id = match scalar {
                true => BenchmarkId::new(format!("{name}/reference"), format!("1k_{threads}t")),
                false => BenchmarkId::new(format!("{name}/lanes"), format!("10k_{threads}t")),
            };
            if scalar {
                let mut crowd = ReferenceCrowd::new(&library, cfg).expect("crowd");
                p.install(|| (0..WARMUP_FRAMES).for_each(|_| frame!(crowd, wander, f, len)));
                group.bench_function(id, |b| {
                    b.iter_custom(|iters| in_pool(&p, iters, || frame!(crowd, wander, f, len)))
                });
            } else {
                let mut crowd = Crowd::new(&library, cfg).expect("crowd");
                p.install(|| (0..WARMUP_FRAMES).for_each(|_| frame!(crowd, wander, f, len)));
                group.bench_function(id, |b| {
                    b.iter_custom(|iters| in_pool(&p, iters, || frame!(crowd, wander, f, len)))
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, layers_bench);
criterion_main!(benches);
