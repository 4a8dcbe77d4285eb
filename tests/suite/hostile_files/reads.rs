//! Defect 7: files are read as regular files within their format's limit.

use super::*;

/// `f()` on another thread, or `None` when it has not returned after 10 s
/// (a hang: the thread is left blocked).
fn within<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(10)).ok()
}

/// Defect 7: a FIFO as input is refused at once, naming it (it hung for
/// ever: `open` waited for a writer), through the loader and the CLI.
#[test]
fn defect_7_a_fifo_is_refused_without_waiting() {
    let d = dir("fifo");
    let fifo = d.join("clip.bvh");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let f = fifo.clone();
    let e = within(move || bvh::load(&f).map(|_| ()).unwrap_err().to_string())
        .expect("bvh::load on a FIFO returned");
    assert!(e.contains("FIFO") && e.contains("clip.bvh"), "{e}");
    let f = fifo.clone();
    let o = within(move || {
        Command::new(env!("CARGO_BIN_EXE_kineform"))
            .args(["crowd", "--characters", "8", "--frames", "1", "--clip"])
            .arg(&f)
            .output()
            .unwrap()
    })
    .expect("kineform crowd --clip FIFO returned");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("FIFO"));
}

/// Defect 7: a `.bvh` that is a link to `/dev/zero` (read until memory ran
/// out), a folder, and a file past the format's byte limit (a sparse file
/// of 1 GiB + 1 byte: refused by its size, nothing read) are refused with
/// the path named.
#[test]
fn defect_7_only_regular_files_within_the_limit_are_read() {
    let d = dir("kinds");
    let zero = d.join("zero.bvh");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let z = zero.clone();
    let e = within(move || bvh::load(&z).map(|_| ()).unwrap_err().to_string())
        .expect("bvh::load on /dev/zero returned");
    assert!(
        e.contains("character device") && e.contains("zero.bvh"),
        "{e}"
    );
    let e = bvh::load(&d).unwrap_err().to_string();
    assert!(e.contains("directory"), "{e}");
    let big = d.join("big.bvh");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(limits::MAX_BVH_BYTES + 1).unwrap();
    let e = bvh::load(&big).unwrap_err().to_string();
    assert!(
        e.contains("big.bvh") && e.contains(&limits::MAX_BVH_BYTES.to_string()),
        "{e}"
    );
    // The convert command names them too.
    let o = Command::new(env!("CARGO_BIN_EXE_kineform"))
        .arg("convert")
        .args([&zero, &d.join("out.bvh")])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("zero.bvh"));
    assert!(!d.join("out.bvh").exists());
}

/// Defect 7: the shared reader follows a link to a regular file where
/// asked to and refuses it where not (a file named inside another), and
/// reads within the limit only.
#[test]
fn defect_7_read_file_follows_links_only_when_asked() {
    let d = dir("links");
    let target = d.join("data.bin");
    std::fs::write(&target, b"12345").unwrap();
    let link = d.join("link.bin");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert_eq!(
        read_file(&link, 5, ".bin", Links::Follow).unwrap(),
        b"12345"
    );
    let e = read_file(&link, 5, ".bin", Links::Refuse).unwrap_err();
    assert!(e.to_string().contains("symbolic link"), "{e}");
    assert_eq!(
        read_file(&target, 5, ".bin", Links::Refuse).unwrap(),
        b"12345"
    );
    let e = read_file(&target, 4, ".bin", Links::Follow).unwrap_err();
    assert!(e.to_string().contains("more than the 4 bytes"), "{e}");
}
