//! The `bvh_parse` target's check: bytes parsed as a BVH file and loaded
//! from a file alike, and whatever parses written and parsed again.

use kineform::reference as r;

/// Parses bytes as a BVH file, and loads them from a file: `load` agrees
/// with `parse` (and refuses bytes that are not UTF-8). Whatever parses
/// must write (or be refused for a stated reason: rotation channels that
/// are not 0 or 3 distinct axes, or a position minus its OFFSET that
/// overflows f32) and parse again to the same hierarchy, offsets, channels,
/// End Sites, frames and frame time, with positions equal to rounding and
/// rotations the same within 1e-5.
///
/// Returns true when the round trip ran (the bytes parsed and wrote).
pub fn check_bvh(data: &[u8]) -> bool {
    let text = std::str::from_utf8(data).ok();
    let parsed = kineform::bvh::parse(&String::from_utf8_lossy(data));
    check_load(data, text.map(|_| &parsed));
    let Ok(b) = parsed else { return false };
    let out = match kineform::bvh::write(&b, &b.clip) {
        Ok(out) => out,
        Err(e) => {
            let e = e.to_string();
            assert!(
                e.contains("rotation channels") || e.contains("is not finite"),
                "parsed, then write refused: {e}"
            );
            return false;
        }
    };
    let again = kineform::bvh::parse(&out).expect("written BVH parses");
    assert_eq!(again.skeleton, b.skeleton);
    assert_eq!(again.channels, b.channels);
    assert_eq!(again.offsets, b.offsets);
    assert_eq!(again.end_sites, b.end_sites);
    let (c, d) = (&b.clip, &again.clip);
    assert_eq!(
        (c.frames(), c.joints(), c.frame_time()),
        (d.frames(), d.joints(), d.frame_time())
    );
    for f in 0..c.frames() {
        for j in 0..c.joints() {
            let (p, q, o) = (c.pos(f, j).unwrap(), d.pos(f, j).unwrap(), b.offsets[j]);
            for k in 0..3 {
                let (p, q, o) = (p.to_array()[k], q.to_array()[k], o.to_array()[k]);
                // Written as p - o, read back as (p - o) + o: two roundings.
                let tol = 2.4e-7 * (p.abs() + o.abs() + (p - o).abs());
                assert!(
                    (p - q).abs() <= tol,
                    "frame {f} joint {j}: position {p:e} read back as {q:e}"
                );
            }
            let (r, s) = (c.rot(f, j).unwrap(), d.rot(f, j).unwrap());
            let s = if r::quat_dot(r, s) < 0.0 { -s } else { s };
            let gap = r::quat_length(r - s);
            assert!(
                gap < 1e-5,
                "frame {f} joint {j}: rotation {r:?} read back as {s:?}"
            );
        }
    }
    true
}

/// `bvh::load` of `data` written to a file: equal to `parse` when `data` is
/// UTF-8 (`parsed` is `Some`), an error naming the file otherwise.
fn check_load(data: &[u8], parsed: Option<&kineform::Result<kineform::bvh::Bvh>>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "kineform-fuzz-{}-{}.bvh",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed) % 4
    ));
    std::fs::write(&path, data).expect("temp file");
    let loaded = kineform::bvh::load(&path);
    let _ = std::fs::remove_file(&path);
    let name = path.display().to_string();
    match (parsed, loaded) {
        (Some(Ok(p)), Ok(l)) => assert!(*p == l, "load differs from parse"),
        (Some(Err(p)), Err(l)) => {
            assert_eq!(l.to_string(), format!("{name}: {p}"), "load's error")
        }
        (Some(p), l) => panic!("parse {:?} but load {:?}", p.is_ok(), l.is_ok()),
        (None, l) => {
            let e = l
                .expect_err("load accepted bytes that are not UTF-8")
                .to_string();
            assert!(e.starts_with(&name) && e.contains("not valid UTF-8"), "{e}");
        }
    }
}
