//! Transparent huge pages for the crate's large buffers.
//!
//! A crowd's per-pack store, its world rows and a clip database are tens
//! to thousands of megabytes that every frame walks. With the kernel's
//! 4 KiB pages each 4 KiB of that is a TLB entry, so a frame over more
//! than the TLB's reach (3,072 entries of the second-level TLB on a Zen 4:
//! 12 MiB) pays a page walk every 64 lines, and the crowd's software
//! prefetches of the next pack's rows pay them too. Linux backs memory
//! with 2 MiB pages where a program asks for them (`madvise(MADV_HUGEPAGE)`,
//! honoured when `/sys/kernel/mm/transparent_hugepage/enabled` is
//! `madvise` or `always`, the default of most distributions), and that is
//! what the crate asks for its buffers of at least [`HUGE_PAGES_ABOVE`]
//! bytes, before their first write so the pages are huge from the start.
//! Memory the allocator hands back from earlier use (the heap after a
//! file's parse buffers were freed, say) is already paged in 4 KiB pages
//! that the advice does not change, so once such a buffer is written in
//! full the crate asks for it to be collapsed into huge pages
//! (`MADV_COLLAPSE`, Linux 6.1 on; skipped where the system's setting is
//! `never`, which that call would ignore).
//!
//! Measured (PERF.md, "Huge pages"): the 100,000-character level-of-detail
//! mix and the 10,000-character crowd frame run faster with them on a Zen
//! 4. The advice changes how the kernel backs the pages, never their
//! contents; where the kernel has no huge pages to give (THP `never`, not
//! built in, fragmented memory) the call fails or is ignored and the
//! buffer is ordinary memory. Memory use grows by at most the buffer's own
//! rounding to 2 MiB, and only inside the buffer. Other systems than
//! Linux are left as they are. [`set_huge_pages`] turns the advice off for
//! buffers made after it (a game that manages its own pages).

use core::sync::atomic::{AtomicBool, Ordering};

/// Buffers of at least this many bytes are advised: 4 MiB, so that at
/// least one whole 2 MiB page lies inside any of them.
pub const HUGE_PAGES_ABOVE: usize = 4 << 20;

/// The huge page size advised for (x86-64's and most aarch64 kernels').
const HUGE_PAGE: usize = 2 << 20;

static ADVISE: AtomicBool = AtomicBool::new(true);

/// Whether the crate asks for huge pages for its large buffers made from
/// now on (on by default; see the module docs). A crowd or database made
/// before the call keeps the pages it has.
pub fn set_huge_pages(on: bool) {
    ADVISE.store(on, Ordering::Relaxed);
}

/// Whether the crate asks for huge pages ([`set_huge_pages`]).
pub fn huge_pages() -> bool {
    ADVISE.load(Ordering::Relaxed)
}

/// `n` copies of `value` in a vector whose memory is advised as the
/// crate's own buffers are (module docs): for the large buffers a caller
/// hands to the readers (`Crowd::positions_into`, the skinning matrices,
/// a stream's `write_into`), which are the caller's memory and otherwise
/// on whatever pages its allocator gives. Refuses with
/// [`crate::Error::Size`], allocating nothing, when the memory cannot be
/// reserved.
pub fn huge_vec<T: Clone>(n: usize, value: T) -> crate::Result<Vec<T>> {
    crate::error::try_vec("buffer on huge pages", n, value)
}

/// Asks for huge pages over the whole 2 MiB pages inside `v`'s spare
/// capacity (the part not yet written: its elements past `len`), when
/// its capacity is at least [`HUGE_PAGES_ABOVE`] bytes and the advice is
/// on. Call it between reserving and filling.
pub(crate) fn advise_spare<T>(v: &Vec<T>) {
    let bytes = v.capacity().saturating_mul(size_of::<T>());
    if bytes < HUGE_PAGES_ABOVE || !huge_pages() {
        return;
    }
    let base = v.as_ptr() as usize;
    if let Some((at, len)) = whole_pages(base + v.len() * size_of::<T>(), base + bytes) {
        advise(at, len);
    }
}

/// The whole 2 MiB pages inside `[start, end)`: their start and length,
/// `None` when there is none.
fn whole_pages(start: usize, end: usize) -> Option<(usize, usize)> {
    let (lo, hi) = (start.next_multiple_of(HUGE_PAGE), end & !(HUGE_PAGE - 1));
    (hi > lo).then(|| (lo, hi - lo))
}

/// Asks the kernel to back the whole 2 MiB pages inside `v`'s elements
/// with huge pages now (`MADV_COLLAPSE`, Linux 6.1 on), for a buffer of at
/// least [`HUGE_PAGES_ABOVE`] bytes just written in full: memory the
/// allocator handed back from earlier use was already paged in 4 KiB
/// pages, which the advice of [`advise_spare`] does not change. Not done
/// where the system's huge pages are `never` (the call would ignore that
/// setting) or the advice is off.
pub(crate) fn collapse_filled<T>(v: &[T]) {
    let bytes = size_of_val(v);
    if bytes < HUGE_PAGES_ABOVE || !huge_pages() || !system_allows() {
        return;
    }
    let base = v.as_ptr() as usize;
    if let Some((at, len)) = whole_pages(base, base + bytes) {
        collapse(at, len);
    }
}

/// Whether `/sys/kernel/mm/transparent_hugepage/enabled` allows huge pages
/// (`always` or `madvise` chosen; read once).
fn system_allows() -> bool {
    static ALLOWS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ALLOWS.get_or_init(|| {
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .is_ok_and(|s| s.contains("[always]") || s.contains("[madvise]"))
    })
}

#[cfg(target_os = "linux")]
fn collapse(at: usize, len: usize) {
    /// Linux's `MADV_COLLAPSE` (uapi `asm-generic/mman-common.h`).
    const MADV_COLLAPSE: libc::c_int = 25;
    // SAFETY: as for `advise`: a collapse copies the range's contents into
    // huge pages and maps them at the same addresses, so every reference
    // into it stays valid with the same contents; the range is 2 MiB
    // aligned and inside the caller's slice. Before Linux 6.1 the call
    // fails with `EINVAL` and nothing changes.
    unsafe {
        libc::madvise(at as *mut libc::c_void, len, MADV_COLLAPSE);
    }
}

#[cfg(not(target_os = "linux"))]
fn collapse(_at: usize, _len: usize) {}

#[cfg(target_os = "linux")]
fn advise(at: usize, len: usize) {
    // SAFETY: `madvise(MADV_HUGEPAGE)` is advice about how the kernel backs
    // the range with pages; it never changes, frees or invalidates memory,
    // so every reference into the range (and anything else in the same
    // mapping) stays valid with the same contents, whatever the call
    // returns. `at` is 2 MiB aligned, as the call requires of its start,
    // and `[at, at + len)` lies inside the caller's vector's allocation
    // (`whole_pages` rounds its spare capacity inward). A failure (huge
    // pages not built in: `EINVAL`) leaves ordinary pages, so its result
    // is not needed.
    unsafe {
        libc::madvise(at as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_at: usize, _len: usize) {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The rest of the line starting `field` in the mapping of
    /// `/proc/self/smaps` that holds address `at`.
    fn smaps_field(at: usize, field: &str) -> String {
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((a, b)) = range.split_once('-')
                && let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
            {
                inside = (a..b).contains(&at);
            } else if inside && let Some(rest) = line.strip_prefix(field) {
                return rest.to_string();
            }
        }
        panic!("no mapping holds {at:#x}")
    }

    /// The `VmFlags` of the mapping that holds `at` (with a leading space).
    fn vm_flags(at: usize) -> String {
        smaps_field(at, "VmFlags:")
    }

    /// The `AnonHugePages` of the mapping that holds `at`, in KiB.
    fn huge_kib(at: usize) -> usize {
        let kb = smaps_field(at, "AnonHugePages:");
        kb.trim().trim_end_matches(" kB").parse().expect("a count")
    }

    #[test]
    fn a_filled_buffer_is_collapsed_into_huge_pages() {
        // Written before any advice (as memory the allocator hands back from
        // earlier use is): 4 KiB pages where THP is `madvise`.
        let v = vec![7u8; 16 << 20];
        let at = (v.as_ptr() as usize).next_multiple_of(HUGE_PAGE);
        let before = huge_kib(at);
        collapse_filled(&v);
        let after = huge_kib(at);
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let version: Vec<u32> = release
            .split(|c: char| !c.is_ascii_digit())
            .take(2)
            .filter_map(|n| n.parse().ok())
            .collect();
        if !system_allows() || version < vec![6, 1] {
            eprintln!("huge pages not available here ({release}): collapse not checked");
            return;
        }
        assert!(after >= 2048 && after > before, "{before} kB -> {after} kB");
        assert!(v.iter().all(|&b| b == 7));
    }

    #[test]
    fn large_buffers_are_advised_and_small_ones_are_not() {
        // The flag is `hg` in smaps: the range was advised MADV_HUGEPAGE.
        let advised = |v: &[u8]| {
            let probe = (v.as_ptr() as usize).next_multiple_of(HUGE_PAGE);
            vm_flags(probe.min(v.as_ptr() as usize + v.len() - 1)).contains(" hg")
        };
        let big = crate::error::try_vec("test", 16 << 20, 1u8).unwrap();
        assert!(advised(&big));
        assert!(big.iter().all(|&b| b == 1));
        let reserved = crate::database::reserve::<u64>(2 << 20, "test").unwrap();
        let probe = (reserved.as_ptr() as usize).next_multiple_of(HUGE_PAGE);
        assert!(vm_flags(probe).contains(" hg"), "{}", vm_flags(probe));
        // A caller's buffer through the public helper, and its refusal.
        let theirs = huge_vec(8 << 20, [0.0f32; 3]).unwrap();
        assert!(advised(bytemuck::cast_slice(&theirs)));
        assert!(matches!(
            huge_vec(usize::MAX / 2, 0u64),
            Err(crate::Error::Size { .. })
        ));
        // One byte under the threshold: not advised (a mapping with the
        // flag never merges with one without it).
        let small = crate::error::try_vec("test", HUGE_PAGES_ABOVE - 1, 2u8).unwrap();
        assert!(!advised(&small));
        // Turned off, a large buffer is not advised either.
        set_huge_pages(false);
        let off = crate::error::try_vec("test", 16 << 20, 3u8).unwrap();
        set_huge_pages(true);
        assert!(!advised(&off));
        assert!(huge_pages());
    }
}
