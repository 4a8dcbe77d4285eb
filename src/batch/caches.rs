//! The sizes of this machine's data caches, read once, for choosing how
//! forward kinematics walks its packs ([`super::fk::walk_for`]).
//!
//! Read from Linux's `/sys/devices/system/cpu/cpu0/cache/index*/{level,
//! type,size}` (the kernel's view of CPUID's cache leaves); on another
//! system, or where the files are missing or unreadable, a size is
//! unknown and the walk falls back to the default threshold.

use std::path::Path;
use std::sync::OnceLock;

/// The data cache sizes of one core, in bytes; `None` where unknown.
/// Read with [`Caches::l2`] and [`Caches::l3`]; made with [`Caches::new`]
/// (further levels or fields may come, so the fields are private).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Caches {
    /// The level-2 cache of one core (data or unified).
    pub(crate) l2: Option<usize>,
    /// The level-3 cache that core shares (one slice's size as the kernel
    /// reports it: a CCX's on AMD).
    pub(crate) l3: Option<usize>,
}

impl Caches {
    /// Caches of a core with an L2 of `l2` bytes sharing an L3 of `l3`
    /// bytes (`None`: unknown), for [`super::fk::stream_above_for`] on a
    /// machine described rather than read.
    pub const fn new(l2: Option<usize>, l3: Option<usize>) -> Caches {
        Caches { l2, l3 }
    }

    /// The level-2 cache of one core (data or unified), in bytes.
    pub const fn l2(&self) -> Option<usize> {
        self.l2
    }

    /// The level-3 cache that core shares, in bytes (one slice's size as
    /// the kernel reports it: a CCX's on AMD).
    pub const fn l3(&self) -> Option<usize> {
        self.l3
    }

    /// This machine's caches (CPU 0's), read from sysfs on the first call
    /// and kept; [`Caches::default`] (all unknown) off Linux.
    pub fn of_this_machine() -> Caches {
        static CACHES: OnceLock<Caches> = OnceLock::new();
        *CACHES.get_or_init(|| {
            if cfg!(target_os = "linux") {
                Caches::from_sysfs(Path::new("/sys/devices/system/cpu/cpu0/cache"))
            } else {
                Caches::default()
            }
        })
    }

    /// The caches described under `dir`, laid out as Linux's
    /// `/sys/devices/system/cpu/cpuN/cache`: one `index*` folder per cache
    /// with files `level` (`2`), `type` (`Data`, `Instruction` or
    /// `Unified`) and `size` (`1024K`). Instruction caches, unreadable
    /// entries and sizes that do not parse are left out (their level stays
    /// unknown); reading stops after 64 entries.
    pub fn from_sysfs(dir: &Path) -> Caches {
        let mut caches = Caches::default();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return caches;
        };
        for entry in entries.flatten().take(64) {
            let p = entry.path();
            if !entry.file_name().to_string_lossy().starts_with("index") {
                continue;
            }
            let read = |name: &str| {
                let text = std::fs::read_to_string(p.join(name)).ok()?;
                Some(text.trim().to_owned())
            };
            if read("type").is_none_or(|t| t == "Instruction") {
                continue;
            }
            let Some(size) = read("size").as_deref().and_then(parse_size) else {
                continue;
            };
            match read("level").as_deref() {
                Some("2") => caches.l2 = Some(size),
                Some("3") => caches.l3 = Some(size),
                _ => {}
            }
        }
        caches
    }
}

/// Bytes of a sysfs cache size: a decimal count with an optional `K`, `M`
/// or `G` suffix (binary multiples), as `1024K`; `None` for anything else
/// or a size that overflows.
pub fn parse_size(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, shift) = match text.as_bytes().last()? {
        b'K' => (&text[..text.len() - 1], 10),
        b'M' => (&text[..text.len() - 1], 20),
        b'G' => (&text[..text.len() - 1], 30),
        _ => (text, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<usize>().ok()?.checked_mul(1 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_their_suffixes() {
        assert_eq!(parse_size("1024K"), Some(1 << 20));
        assert_eq!(parse_size("32768K\n"), Some(32 << 20));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("512"), Some(512));
        for bad in ["", "K", "-1K", "1.5M", "12Q", "99999999999999999999G"] {
            assert_eq!(parse_size(bad), None, "{bad:?}");
        }
    }

    /// A sysfs tree of this AVX-512 machine's shape (L1d, L1i, L2, L3),
    /// and a damaged one: unknown levels stay unknown.
    #[test]
    fn caches_read_from_a_sysfs_tree() {
        let dir = tempfile::tempdir().unwrap();
        let entry = |i: usize, level: &str, ty: &str, size: &str| {
            let d = dir.path().join(format!("index{i}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("level"), format!("{level}\n")).unwrap();
            std::fs::write(d.join("type"), format!("{ty}\n")).unwrap();
            std::fs::write(d.join("size"), format!("{size}\n")).unwrap();
        };
        entry(0, "1", "Data", "32K");
        entry(1, "1", "Instruction", "32K");
        entry(2, "2", "Unified", "1024K");
        entry(3, "3", "Unified", "32768K");
        let c = Caches::from_sysfs(dir.path());
        assert_eq!(c, Caches::new(Some(1 << 20), Some(32 << 20)));
        assert_eq!((c.l2(), c.l3()), (Some(1 << 20), Some(32 << 20)));
        entry(3, "3", "Unified", "lots");
        assert_eq!(Caches::from_sysfs(dir.path()).l3(), None);
        assert_eq!(
            Caches::from_sysfs(&dir.path().join("missing")),
            Caches::default()
        );
    }
}
