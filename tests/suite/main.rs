//! kineform's integration tests, one binary.
//!
//! Each file of this folder was a test binary of its own; linked into one
//! they share one build of their dependencies' generic code (proptest's
//! strategies, the lane kernels inlined into each caller) and one link,
//! which on CI's two cores took about as long as running them. A test's name
//! starts with its file's: `cargo test --all-features --test suite
//! continuity::` runs `continuity.rs`. Tests that need a process of their own
//! (a counting global allocator, a global logger) stay beside this folder as
//! binaries of their own: `tests/memory/`, `tests/gltf_hostile/`,
//! `tests/simd_log.rs`. A file added here must be named below:
//! `inventory::every_test_file_is_built` fails otherwise.

mod common;
mod crowds;
#[path = "common/matching.rs"]
mod shipped;

mod backends;
mod batch;
#[cfg(feature = "wander")]
mod bounds;
mod budget;
mod bvh;
mod catalogue_equivalence;
mod catalogue_velocities;
mod cli;
mod commands;
mod compact_clips;
#[cfg(feature = "wander")]
mod continuity;
mod convert;
mod corrections;
mod cost;
#[cfg(feature = "wander")]
mod crowd;
mod edge_cases;
mod equivalence;
mod evaluated;
mod exact_velocities;
mod fit_halflives;
mod fuzz_smoke;
mod gltf;
mod gltf_exporters;
mod gltf_written;
mod hemisphere_ties;
mod hostile_files;
mod hostile_values;
mod interop;
mod joint_map;
mod joints;
mod layers;
mod lod;
mod loop_offsets;
mod looping;
mod markers;
mod matching;
mod matching_cost;
#[cfg(feature = "wander")]
mod matching_crowd;
mod matching_search;
#[cfg(feature = "wander")]
mod readout;
mod refusals;
mod root_motion;
mod serde;
mod shape_refusals;
mod skinning;
mod tasks;
mod tracking;
mod velocities;
mod inventory {
    //! Every test file is built: a file of `tests/suite/` not named in
    //! `main.rs`, or a file of `tests/` that Cargo builds as a binary of its
    //! own without being listed as one, would be a test that never runs (the
    //! first) or one that costs a build and link of its own (the second).

    const OWN_BINARIES: [&str; 3] = ["gltf_hostile/", "memory/", "simd_log.rs"];

    /// The `.rs` files of `dir` and its folders (named `name/`), sorted:
    /// a folder of `tests/suite/` is a module (`mod.rs` inside), one of
    /// `tests/` a binary (`main.rs` inside).
    fn entries(dir: &str) -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                match e.file_type().unwrap().is_dir() {
                    true => Some(format!("{name}/")),
                    false => name.ends_with(".rs").then_some(name),
                }
            })
            .collect();
        names.sort();
        names
    }

    #[test]
    fn every_test_file_is_built() {
        let main = include_str!("main.rs");
        for f in entries("tests/suite") {
            let name = f.trim_end_matches(".rs").trim_end_matches('/');
            assert!(
                f == "main.rs" || main.contains(&format!("\nmod {name};\n")),
                "tests/suite/{f} is not named in tests/suite/main.rs: its tests never run"
            );
        }
        let own: Vec<String> = entries("tests")
            .into_iter()
            .filter(|f| f != "suite/" && f != "proptest-regressions/")
            .collect();
        assert_eq!(
            own, OWN_BINARIES,
            "tests/: a new test file or folder belongs in tests/suite/ (named in main.rs) unless it needs a process of its own"
        );
    }

    /// The `.txt` files under `dir`, as paths relative to it.
    fn regressions(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                regressions(root, &p, out);
            } else if p.extension().is_some_and(|x| x == "txt") {
                let rel = p.strip_prefix(root).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }

    /// Every saved proptest case is replayed: proptest reads the cases of
    /// `tests/suite/a/b.rs` from `tests/proptest-regressions/a/b.txt` (the
    /// path below the folder holding `main.rs`), so a test file moved into
    /// a folder leaves its cases behind unread unless they move with it.
    #[test]
    fn every_saved_proptest_case_has_its_test_file() {
        let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
        let root = tests.join("proptest-regressions");
        let mut saved = Vec::new();
        regressions(&root, &root, &mut saved);
        assert!(
            !saved.is_empty(),
            "no saved cases found under {}",
            root.display()
        );
        for f in saved {
            let source = tests.join("suite").join(f.replace(".txt", ".rs"));
            assert!(
                source.is_file()
                    && std::fs::read_to_string(&source)
                        .unwrap()
                        .contains("proptest!"),
                "tests/proptest-regressions/{f}: no proptest in {} reads it",
                source.display()
            );
        }
    }
}
