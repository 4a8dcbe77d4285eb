//! Issue 21, files on disk: `kineform convert` never destroys a file
//! (defect 3), files are read as regular files within their format's
//! limit (defect 7), one set of limits that what kineform writes it can
//! read (defect 9), and errors that say what happened and name the file
//! (defect 10).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use kineform::files::{Links, read_file, write_file};
use kineform::limits;
use kineform::{Error, bvh};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kineform-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn mocap(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/mocap")
        .join(name)
}

fn files_in(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

mod errors;
mod reads;
mod within_limits;
mod writes;
