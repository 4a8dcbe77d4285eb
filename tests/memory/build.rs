//! Building from long clips: every allocation that grows with the clips is
//! reserved fallibly, from reading a BVH file to a matching crowd. The
//! allocator fails the `k`-th allocation of at least [`LARGE`] bytes after
//! it is armed (as a process under a memory limit would fail whichever
//! allocation first passes it), for `k = 1, 2, ...`: each stage is then
//! either refused with [`Error::Size`], having changed nothing, or done
//! once no allocation was failed. An infallible allocation of that size
//! would abort the test binary instead.
//!
//! (`kineform match` under `ulimit -v` aborted at six of nine limits from
//! 250 MB to 1.5 GB with four 30,000-frame clips: the joint map's, the
//! mirror's and the continuous rotations' copies of the clips, the crowd's
//! copy of its library and the database's world poses were made with
//! `to_vec`, `vec!` and `collect`.)

use std::sync::atomic::Ordering::Relaxed;

use kineform::crowd::ReferenceCrowd;
use kineform::crowd::{ClipLibrary, ClipStorage, Crowd, CrowdConfig, Matcher, MatcherConfig};
use kineform::matching::{MatchConfig, MatchDatabase, MirrorMap, add_mirrored};
use kineform::{Error, bvh};

use super::{FAIL_AT, LARGE, SEEN, SERIAL};

/// Runs `stage` with the `k`-th large allocation failed, for `k = 1, 2,
/// ...`, until it runs through without one: each refusal must be
/// [`Error::Size`], and `unchanged` (called after each) checks that it
/// changed nothing. Returns how many refusals there were (at least one:
/// the stage allocates something large) and the stage's result.
pub(super) fn every_failure<T>(
    what: &str,
    mut stage: impl FnMut() -> kineform::Result<T>,
    mut unchanged: impl FnMut(),
) -> (usize, T) {
    for k in 1.. {
        SEEN.store(0, Relaxed);
        FAIL_AT.store(k, Relaxed);
        let r = stage();
        FAIL_AT.store(usize::MAX, Relaxed);
        let failed = SEEN.load(Relaxed) >= k;
        match r {
            Ok(v) if !failed => {
                assert!(k > 1, "{what}: no allocation of {LARGE} bytes or more");
                return (k - 1, v);
            }
            Ok(_) => panic!("{what}: large allocation {k} failed and the stage went on"),
            Err(e) if is_size(&e) => unchanged(),
            Err(e) => panic!("{what}: large allocation {k} failed with {e}, not Error::Size"),
        }
    }
    unreachable!()
}

/// [`every_failure`] of `add`, a stage that adds to `lib`: each refusal
/// must leave `lib` with the clips it had.
fn adds_all_or_nothing<T>(
    what: &str,
    lib: &mut ClipLibrary,
    mut add: impl FnMut(&mut ClipLibrary) -> kineform::Result<T>,
) -> (usize, T) {
    let before = lib.len();
    let len = std::cell::Cell::new(before);
    every_failure(
        what,
        || {
            let r = add(lib);
            len.set(lib.len());
            r
        },
        || assert_eq!(len.get(), before, "{what}: a refusal added clips"),
    )
}

/// Whether `e` is [`Error::Size`], or a refusal naming the file it is
/// about (an [`Error::File`] around one, an [`Error::Io`] or
/// [`Error::Gltf`] saying what could not be reserved).
fn is_size(e: &Error) -> bool {
    matches!(e, Error::Size { .. }) || e.to_string().contains("could not be reserved")
}

/// The CMU walk 12_01's 524 frames repeated to `frames`, as BVH text.
fn long_walk(frames: usize) -> String {
    let walk = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mocap/cmu_12_01_walk_mb.bvh"
    ))
    .unwrap();
    let (head, motion) = walk.split_once("MOTION").unwrap();
    let lines: Vec<&str> = motion
        .lines()
        .skip(3)
        .filter(|l| !l.trim().is_empty())
        .collect();
    let mut s = format!("{head}MOTION\nFrames: {frames}\nFrame Time: .0083333\n");
    for f in 0..frames {
        s.push_str(lines[f % lines.len()]);
        s.push('\n');
    }
    s
}

#[test]
fn every_large_allocation_from_a_file_to_a_matching_crowd_is_fallible() {
    // One test at a time: the allocator's arming is process-wide.
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let text = long_walk(3_000);
    let (n, walk) = every_failure("bvh::parse", || bvh::parse(&text), || {});
    let mut refusals = vec![("bvh::parse", n)];

    let mut lib = ClipLibrary::from_bvh(&kineform::data::default_clip()).unwrap();
    for _ in 0..2 {
        let (n, _) = adds_all_or_nothing("ClipLibrary::add_cmu", &mut lib, |l| l.add_cmu(&walk));
        refusals.push(("ClipLibrary::add_cmu", n));
    }

    // A library whose clips a crowd shares copies them before it adds.
    let shared = lib.clone();
    let what = "ClipLibrary::add_cmu, shared";
    let (n, _) = adds_all_or_nothing(what, &mut lib, |l| l.add_cmu(&walk));
    refusals.push((what, n));
    assert_eq!(shared.len() + 1, lib.len());

    let map = MirrorMap::cmu(lib.skeleton()).unwrap();
    let before = lib.len();
    let (n, mirrored) = adds_all_or_nothing("add_mirrored", &mut lib, |l| add_mirrored(l, &map));
    refusals.push(("add_mirrored", n));
    assert_eq!(mirrored.len(), before);

    let cfg = MatchConfig::default();
    let (n, db) = every_failure(
        "MatchDatabase::build",
        || MatchDatabase::build(&lib, &cfg),
        || {},
    );
    refusals.push(("MatchDatabase::build", n));
    // Every clip frame (over 1 MiB of features): its copy as parts.
    let every = MatchDatabase::build(
        &lib,
        &MatchConfig {
            frame_step: 1,
            ..cfg
        },
    )
    .unwrap();
    let (n, parts) = every_failure("MatchDatabase::to_parts", || every.to_parts(), || {});
    refusals.push(("MatchDatabase::to_parts", n));
    assert_eq!(
        MatchDatabase::from_parts(parts).unwrap().frames(),
        every.frames()
    );

    for storage in [ClipStorage::Full, ClipStorage::Compact] {
        let cfg = CrowdConfig {
            characters: 16,
            clip_storage: storage,
            ..CrowdConfig::default()
        };
        let (n, mut crowd) = every_failure("Crowd::new", || Crowd::new(&lib, cfg.clone()), || {});
        refusals.push(("Crowd::new", n));
        let (n, _) = every_failure(
            "ReferenceCrowd::new",
            || ReferenceCrowd::new(&lib, cfg.clone()),
            || {},
        );
        refusals.push(("ReferenceCrowd::new", n));
        // The matching crowd runs on what was built (no large allocation
        // is left to fail in its frames).
        let mut matcher = Matcher::new(16, &db, MatcherConfig::default()).unwrap();
        for _ in 0..30 {
            matcher.update(&mut crowd, &db, 1.0 / 60.0).unwrap();
            crowd.step(1.0 / 60.0).unwrap();
        }
    }
    eprintln!("large allocations failed, one at a time, per stage: {refusals:?}");
}

/// Converting a long clip between the formats: every large allocation of
/// reading, converting and encoding is fallible, and a refused conversion
/// writes nothing.
#[cfg(feature = "gltf")]
#[test]
fn every_large_allocation_of_a_conversion_is_fallible() {
    use kineform::convert::{Options, convert_file};
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let d = std::env::temp_dir().join(format!("kineform-build-memory-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let walk = d.join("walk.bvh");
    std::fs::write(&walk, long_walk(3_000)).unwrap();
    let mut refusals = Vec::new();
    for (from, to) in [
        ("walk.bvh", "walk.glb"),
        ("walk.glb", "back.bvh"),
        ("walk.bvh", "walk.gltf"),
        ("walk.gltf", "again.glb"),
        ("walk.bvh", "copy.bvh"),
    ] {
        let (input, output) = (d.join(from), d.join(to));
        let what = format!("convert {from} {to}");
        let (n, _) = every_failure(
            &what,
            || convert_file(&input, &output, &Options::default()),
            || assert!(!output.exists(), "{what}: a refused conversion wrote {to}"),
        );
        refusals.push((what, n));
    }
    std::fs::remove_dir_all(&d).ok();
    // A crowd's world frames as a .glb (the gltf_export example's path):
    // 8 characters of the walk's skeleton over 600 frames.
    let walk = bvh::parse(&long_walk(600)).unwrap();
    let (frames, joints) = (walk.clip.frames(), walk.skeleton.len());
    let mut positions = Vec::new();
    let mut rotations = Vec::new();
    for f in 0..frames {
        for c in 0..8 {
            for j in 0..joints {
                positions.push(
                    walk.clip.pos(f, j).unwrap()
                        + kineform::reference::Vec3::new(c as f32, 0.0, 0.0),
                );
                rotations.push(walk.clip.rot(f, j).unwrap());
            }
        }
    }
    let frames = kineform::gltf::WorldFrames {
        skeleton: &walk.skeleton,
        characters: 8,
        frame_time: walk.clip.frame_time(),
        positions: &positions,
        rotations: &rotations,
    };
    let (n, _) = every_failure(
        "write_world_glb",
        || kineform::gltf::write_world_glb(&frames),
        || {},
    );
    refusals.push(("write_world_glb".into(), n));
    eprintln!("large allocations failed, one at a time, per conversion: {refusals:?}");
}
