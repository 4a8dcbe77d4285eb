//! Software prefetch: asking the CPU to start loading memory that a later
//! pass will read, so the pass finds it in cache, or (where
//! [`dest_ahead_help`] says so) taking lines it will write. A hint only:
//! it never faults, reads and writes nothing architecturally, and is a
//! no-op on architectures other than x86_64. (Prefetching the clip rows a few joints ahead of a
//! gather into L1 was tried and measured slower: the rows are 32 bytes, so
//! neighbouring joints share lines and the hardware prefetcher follows.
//! Prefetching a pack's frames whole before it samples,
//! [`crate::database::Gather::prefetch`], is faster past L3.)

/// Starts loading the 64-byte line at address `addr` into L2, which may be
/// memory another thread is writing: a prefetch reads nothing
/// architecturally, so no reference to it is made.
#[inline(always)]
pub fn to_l2_line(addr: usize) {
    line_at::<{ HINT_T1 }>(addr);
}

/// Starts loading into L2 every line of the `T` that follows `item` in
/// memory: the next element of the slice `item` is in (past its end, the
/// addresses are only hints that read nothing). What a pack's step does
/// for the next pack's items of the crowd's per-pack fields.
#[inline(always)]
pub fn next_item_to_l2<T>(item: &T) {
    next_run_to_l2(core::slice::from_ref(item));
}

/// Starts loading into L2 every line of the run of `T` that follows `run`
/// in memory, as long as `run` (the next pack's row of a per-pack field;
/// past the end of its allocation, hints that read nothing).
#[inline(always)]
pub fn next_run_to_l2<T>(run: &[T]) {
    lines_after(run, line_at::<{ HINT_T1 }>);
}

/// `each(line)` for the address of every 64-byte line of the run of `T`
/// that follows `run` in memory, as long as `run` (addresses only: the
/// run need not exist).
/// Nothing for an empty run (or one of zero-sized `T`), and nothing that
/// would reach past the top of the address space: the walk counts lines,
/// so no address it forms wraps.
#[inline(always)]
fn lines_after<T>(run: &[T], mut each: impl FnMut(usize)) {
    let n = size_of_val(run);
    if n == 0 {
        return;
    }
    // `n <= isize::MAX`, so `2 n - 1` does not overflow.
    let Some(last) = (run.as_ptr() as usize).checked_add(2 * n - 1) else {
        return;
    };
    let first = (run.as_ptr() as usize + n) >> 6;
    for line in first..=last >> 6 {
        each(line << 6);
    }
}

/// Starts loading the 64-byte line at address `addr` into L1
/// (`prefetcht0`): for data the pass at hand reads a few hundred
/// instructions later (the clip rows or words of a pack's frames).
#[inline(always)]
pub fn to_l1_line(addr: usize) {
    line_at::<{ HINT_T0 }>(addr);
}

/// Whether the readers' fetch of the next pack's world rows ahead of its
/// copy (`rotations_into`'s rotation lines, the matrix readers' whole rows
/// past a core's L2) was measured faster on CPUs of this one's vendor:
/// AMD's (`rotations_into` 3 to 8% faster fetched ahead on a Zen 3, a Zen
/// 4 and a Zen 5, PERF.md "On the Zen 3 (2026-12-07)"; `output::transforms`
/// 0.75 to 0.81x the time on a Zen 5), not Intel's (on a Xeon of family 6
/// model 207, without it `rotations_into` 11 to 13% faster at 10,000
/// characters and 19 to 30% at 100,000, `transforms_into` 16 to 21%, the
/// skinning readers 9 to 15%: PERF.md "On an Intel Xeon (2026-12-07)").
/// `false` for every other vendor and architecture (nothing measured
/// there: the hardware prefetchers are left to it). Read once (CPUID leaf
/// 0's vendor string).
pub fn rows_ahead_help() -> bool {
    cpu().rows_ahead
}

/// What the two prefetch choices read of this CPU, read once.
struct Cpu {
    /// [`rows_ahead_help`].
    rows_ahead: bool,
    /// [`dest_ahead_help`].
    dest_ahead: bool,
}

/// This CPU's [`Cpu`]: its vendor string and PRFCHW bit read from CPUID
/// on the first call.
fn cpu() -> &'static Cpu {
    static CPU: std::sync::OnceLock<Cpu> = std::sync::OnceLock::new();
    CPU.get_or_init(|| {
        let v = vendor();
        Cpu {
            rows_ahead: v.is_some_and(|v| is_amd(&v)),
            dest_ahead: v.is_some_and(|v| &v == b"GenuineIntel") && has_prefetchw(),
        }
    })
}

/// Whether a CPUID vendor string is AMD's.
fn is_amd(vendor: &[u8; 12]) -> bool {
    vendor == b"AuthenticAMD"
}

/// Whether the crowd's readers start taking the lines of the next pack's
/// destination for writing (`prefetchw`, [`next_run_for_write`]) while
/// they write a pack: on Intel's CPUs that have the instruction (CPUID
/// leaf `0x8000_0001`, `ecx` bit 8, PRFCHW). There each pack's rows
/// otherwise wait at their stores for the lines they write into: on a
/// Xeon of family 6 model 207, 10,000 characters, the three-vector
/// readers 0.61 to 0.92x the time with it on one thread (PERF.md, "On an
/// Intel Xeon (2026-12-07)", "The destination taken ahead"). Not on AMD's, where it
/// was not measured. Read once.
pub fn dest_ahead_help() -> bool {
    cpu().dest_ahead
}

/// [`dest_ahead_help`] for a reader of elements `O`: not for elements
/// of a multiple of 64 bytes (4x4 matrices: whole lines), where taking
/// the lines ahead measured 1 to 3% either way.
/// (The size is tested first, so that for those the test and the fetch
/// fold away at compile time.)
#[inline(always)]
pub fn dest_ahead_for<O>() -> bool {
    !size_of::<O>().is_multiple_of(64) && dest_ahead_help()
}

/// Whether this CPU has `prefetchw` (CPUID leaf `0x8000_0001`, `ecx`
/// bit 8); `false` off x86_64.
fn has_prefetchw() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: CPUID exists on every x86_64 CPU; leaf 0x8000_0000
        // gives the highest extended leaf, and leaf 0x8000_0001 is read
        // only where it exists. Both read identification registers only.
        #[allow(unused_unsafe)]
        let (max, ecx) = unsafe {
            let max = core::arch::x86_64::__cpuid(0x8000_0000).eax;
            let ecx = match max >= 0x8000_0001 {
                true => core::arch::x86_64::__cpuid(0x8000_0001).ecx,
                false => 0,
            };
            (max, ecx)
        };
        max >= 0x8000_0001 && ecx & (1 << 8) != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Starts taking for writing (`prefetchw`, into L1 in an exclusive state)
/// every line of the run of `T` that follows `run` in memory, as long as
/// `run`: the next pack's destination of a reader, so that its stores
/// find their lines owned. Nothing where [`dest_ahead_help`] is false
/// (callers test it once beforehand, [`dest_ahead_for`], so that the
/// fetch folds away where it cannot help; the test here keeps the
/// instruction off CPUs without it whoever calls). Past the end of the
/// allocation the addresses are hints that touch nothing.
#[inline(always)]
pub fn next_run_for_write<T>(run: &[T]) {
    if dest_ahead_help() {
        lines_after(run, line_for_write);
    }
}

/// `prefetchw` of the line at `addr` (x86_64; nothing elsewhere).
#[inline(always)]
fn line_for_write(addr: usize) {
    // SAFETY: `prefetchw` is a hint: it never faults whatever the
    // address, and neither reads nor writes memory architecturally (it
    // may move the line into this core's cache, exclusive, which changes
    // no value any thread can observe). It is only reached where
    // [`dest_ahead_help`] found the instruction in CPUID
    // ([`next_run_for_write`], its one caller, tests it). No stack, no
    // flags.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        core::arch::asm!("prefetchw [{0}]", in(reg) addr, options(nostack, preserves_flags, readonly));
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = addr;
}

/// This CPU's vendor string from CPUID leaf 0 (`ebx`, `edx`, `ecx` in
/// that order: "GenuineIntel", "AuthenticAMD", ...); `None` off x86_64.
fn vendor() -> Option<[u8; 12]> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: CPUID exists on every x86_64 CPU, and leaf 0 only
        // reads identification registers (the intrinsic is safe in the
        // Rust releases since it was made so; `unsafe` is kept for the
        // crate's minimum Rust version, where it was not).
        #[allow(unused_unsafe)]
        let r = unsafe { core::arch::x86_64::__cpuid(0) };
        let mut v = [0u8; 12];
        v[..4].copy_from_slice(&r.ebx.to_le_bytes());
        v[4..8].copy_from_slice(&r.edx.to_le_bytes());
        v[8..].copy_from_slice(&r.ecx.to_le_bytes());
        Some(v)
    }
    #[cfg(not(target_arch = "x86_64"))]
    None
}

/// The prefetch of the line at `addr` with hint `HINT`.
#[inline(always)]
fn line_at<const HINT: i32>(addr: usize) {
    // SAFETY: `_mm_prefetch` needs SSE, part of the x86_64 baseline; a
    // prefetch never faults and does not access memory in the language's
    // sense, whatever the address (no provenance is claimed for it).
    #[cfg(target_arch = "x86_64")]
    unsafe {
        core::arch::x86_64::_mm_prefetch::<HINT>(core::ptr::without_provenance::<i8>(addr))
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = addr;
}

#[cfg(target_arch = "x86_64")]
const HINT_T0: i32 = core::arch::x86_64::_MM_HINT_T0;
#[cfg(not(target_arch = "x86_64"))]
const HINT_T0: i32 = 0;

#[cfg(target_arch = "x86_64")]
const HINT_T1: i32 = core::arch::x86_64::_MM_HINT_T1;
#[cfg(not(target_arch = "x86_64"))]
const HINT_T1: i32 = 0;

#[cfg(test)]
mod tests {
    use super::*;

    /// The vendor string is read in CPUID's register order (`ebx`,
    /// `edx`, `ecx`), and only AMD's turns the readers' fetch ahead on.
    #[test]
    fn vendor_strings_are_told_apart() {
        assert!(is_amd(b"AuthenticAMD"));
        assert!(!is_amd(b"GenuineIntel"));
        assert!(!is_amd(b"AuthenticAMX"));
        #[cfg(target_arch = "x86_64")]
        {
            let v = vendor().expect("x86_64 has CPUID");
            assert!(v.is_ascii(), "{v:?}");
            // Linux's own reading of the same leaf names the same vendor
            // (the registers' order: "GenuineIntel", not "GenuntelineI"),
            // after "vendor_id\t: " and untrimmed (Zhaoxin's is
            // "  Shanghai  "); and its flags hold `3dnowprefetch`, its
            // name for PRFCHW, exactly where `has_prefetchw` says so.
            if let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") {
                let field = |name: &str| {
                    info.lines().find_map(|l| {
                        let (k, val) = l.split_once(':')?;
                        (k.trim() == name).then(|| val.strip_prefix(' ').unwrap_or(val).to_string())
                    })
                };
                if let Some(named) = field("vendor_id") {
                    assert_eq!(named.as_bytes(), &v[..]);
                }
                if let Some(flags) = field("flags") {
                    let listed = flags.split_whitespace().any(|f| f == "3dnowprefetch");
                    assert_eq!(has_prefetchw(), listed, "PRFCHW against /proc/cpuinfo");
                }
            }
            assert_eq!(rows_ahead_help(), &v == b"AuthenticAMD");
            assert!(!dest_ahead_help() || (&v == b"GenuineIntel" && has_prefetchw()));
        }
    }

    /// Taking lines for writing changes nothing, here or past the end of
    /// the allocation (where the CPU has the instruction, it runs).
    #[test]
    fn taking_lines_for_writing_changes_nothing() {
        let v: Vec<u32> = (0..4096).collect();
        next_run_for_write(&v[..2048]);
        next_run_for_write(&v[2048..]);
        next_run_for_write(&v[4095..]);
        assert!(v.iter().enumerate().all(|(i, &x)| x as usize == i));
    }

    /// The lines a walk visits: every 64-byte line holding a byte of the
    /// run that follows `run`, each once, and none for an empty run or a
    /// run of zero-sized elements.
    #[test]
    fn the_walk_takes_each_line_of_the_next_run_once() {
        let lines = |run: &[[f32; 3]]| {
            let mut got = Vec::new();
            lines_after(run, |l| got.push(l));
            got
        };
        let v = vec![[0.0f32; 3]; 200];
        for (from, len) in [(0, 8), (1, 8), (3, 5), (5, 1), (0, 64), (7, 33)] {
            let run = &v[from..from + len];
            let (at, n) = (run.as_ptr() as usize + 12 * len, 12 * len);
            let want: Vec<usize> = (at / 64..=(at + n - 1) / 64).map(|l| l * 64).collect();
            assert_eq!(lines(run), want, "{len} elements from {from}");
        }
        assert_eq!(lines(&v[4..4]), Vec::<usize>::new());
        let mut zst = 0;
        lines_after(&[(); 9], |_| zst += 1);
        assert_eq!(zst, 0);
    }
}
