//! Software prefetch: asking the CPU to start loading memory that a later
//! pass will read, so the pass finds it in cache. A hint only: it never
//! faults, reads nothing architecturally, and is a no-op on architectures
//! other than x86_64. (Prefetching the clip rows a few joints ahead of a
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
    let n = size_of_val(run);
    let at = run.as_ptr() as usize + n;
    let mut line = at & !63;
    while line < at + n {
        line_at::<{ HINT_T1 }>(line);
        line += 64;
    }
}

/// Starts loading the 64-byte line at address `addr` into L1
/// (`prefetcht0`): for data the pass at hand reads a few hundred
/// instructions later (the clip rows or words of a pack's frames).
#[inline(always)]
pub fn to_l1_line(addr: usize) {
    line_at::<{ HINT_T0 }>(addr);
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
