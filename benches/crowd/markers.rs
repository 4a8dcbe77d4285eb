//! `crowd/markers/*`: the demo's frame with the events copied out, on
//! clips without markers, with foot contacts, and with 64 markers.

use super::{DT, driven, in_pool};
use crate::common::{banner, pool, thread_counts};
use criterion::{Criterion, Throughput};
use kineform::crowd::{ClipLibrary, CrowdConfig};
use kineform::data;
use kineform::markers::FootContact;
use std::time::Duration;

/// The demo's frame (the driver's commands, the step, and the events
/// copied into the game's buffer) on clips without markers (`none`), with
/// the feet's contacts detected on both feet (`feet`: the ankles' on the
/// embedded clip, `FootContact::CMU`), and with 64 markers evenly spread
/// (`dense`: every source's move is checked against 8 chunks), on 1 and all
/// threads.
pub(crate) fn markers(c: &mut Criterion) {
    banner("crowd markers");
    let plain = ClipLibrary::from_bvh(&data::default_clip()).expect("library");
    let joints = plain.skeleton().len();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut feet = plain.clone();
    let mut found = 0;
    // The embedded clip names its feet in 3dsMax's convention.
    for foot in ["LeftAnkle", "RightAnkle"] {
        found += feet
            .add_foot_contacts(0, foot, foot, &FootContact::CMU)
            .expect("foot contacts");
    }
    let mut dense = plain.clone();
    let last = dense.clips()[0].last_time();
    for i in 0..64 {
        dense
            .add_marker(0, "m", last * i as f32 / 64.0)
            .expect("marker");
    }
    eprintln!("feet: {found} markers; dense: 64");
    let cfg = CrowdConfig {
        characters: 10_000,
        velocity_check: true,
        ..Default::default()
    };
    let mut group = c.benchmark_group("crowd/markers");
    group.throughput(Throughput::Elements((cfg.characters * joints) as u64));
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(6));
    for t in thread_counts(threads) {
        let p = pool(t);
        for (name, library) in [("none", &plain), ("feet", &feet), ("dense", &dense)] {
            let (mut crowd, mut wander) = driven(library, cfg.clone(), &p);
            let mut events = Vec::new();
            group.bench_function(format!("{name}_10k_{t}t"), |bch| {
                bch.iter_custom(|iters| {
                    in_pool(&p, iters, || {
                        wander.update(&mut crowd, DT).expect("driver");
                        std::hint::black_box(crowd.step(DT).expect("step"));
                        crowd.events_into(&mut events);
                        std::hint::black_box(events.len());
                    })
                })
            });
        }
    }
    group.finish();
}
