//! `crowd/clips/*`: full against compact and stepped clips, on the
//! embedded clip and on every shipped clip repeated.

use super::{DT, driven, in_pool};
use crate::common::{pool, thread_counts};
use criterion::{Criterion, Throughput};
use kineform::crowd::{ClipLibrary, ClipStorage, CrowdConfig};
use kineform::data;
use std::time::Duration;

/// All shipped clips (the embedded one and `data/mocap`'s five, joined
/// through the CMU joint maps) repeated until the database holds at least
/// `frames` frames.
fn shipped_clips_repeated(frames: usize) -> ClipLibrary {
    let mut library = ClipLibrary::from_bvh(&data::default_clip()).expect("library");
    let dir = format!("{}/data/mocap", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("data/mocap")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "bvh"))
        .collect();
    files.sort();
    for f in files {
        library
            .add_cmu(&kineform::bvh::load(f).expect("bvh"))
            .expect("cmu clip");
    }
    let once = library.clips().to_vec();
    let skeleton = library.skeleton().clone();
    let total = |l: &ClipLibrary| l.clips().iter().map(|c| c.frames()).sum::<usize>();
    while total(&library) < frames {
        for c in &once {
            library.add(&skeleton, c).expect("the same clip again");
        }
    }
    library
}

/// Full against compact and stepped clips (issue 27, item 3): the demo's
/// frame (linear sampling, inertialization, velocity check off as a game
/// runs) of 10,000 characters on the embedded clip (277 frames: 213 KB
/// full, 53 KB compact, 104 KB stepped, all in L2) and on every shipped
/// clip repeated to 102,685 frames (92 MB full, beyond the 32 MiB L3;
/// 23 MB compact, 45 MB stepped), on
/// 1 and all threads. Run the group more than once and compare rounds
/// (the two storages of a size run back to back).
pub(crate) fn clips(c: &mut Criterion) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let sizes = [
        (
            "cmu_277_frames",
            ClipLibrary::from_bvh(&data::default_clip()).expect("library"),
        ),
        ("shipped_100k_frames", shipped_clips_repeated(100_000)),
    ];
    for (name, library) in &sizes {
        let joints = library.skeleton().len();
        let mut group = c.benchmark_group(format!("crowd/clips/{name}"));
        group.throughput(Throughput::Elements((10_000 * joints) as u64));
        group
            .sample_size(20)
            .measurement_time(Duration::from_secs(5));
        for t in thread_counts(threads) {
            let p = pool(t);
            for storage in [
                ClipStorage::Full,
                ClipStorage::Compact,
                ClipStorage::Stepped,
            ] {
                let cfg = CrowdConfig {
                    characters: 10_000,
                    clip_storage: storage,
                    ..Default::default()
                };
                let (mut crowd, mut wander) = driven(library, cfg, &p);
                let id = format!("{}_{t}t", storage.name());
                group.bench_function(id, |bch| {
                    bch.iter_custom(|iters| {
                        in_pool(&p, iters, || {
                            wander.update(&mut crowd, DT).expect("driver");
                            std::hint::black_box(crowd.step(DT).expect("step"));
                        })
                    })
                });
            }
        }
        group.finish();
    }
}
