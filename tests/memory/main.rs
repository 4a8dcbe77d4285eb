//! Memory under refusal, in a process of its own (its global allocator
//! fails allocations on request and counts them):
//!
//! - [`step`] (issue 21, defect 5, its per-step half): every allocation of
//!   a crowd's step that grows with its input is reserved fallibly or
//!   bounded when the crowd is built, and steady-state steps allocate
//!   nothing at all;
//! - [`build`]: every allocation that grows with the clips is reserved
//!   fallibly, from reading a BVH file to a matching crowd.
//!
//! An infallible allocation that the allocator fails aborts this binary.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// Allocations of at least this many bytes fail (`usize::MAX`: none).
static FAIL_FROM: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Allocations of at least [`LARGE`] bytes seen since `every_failure`
/// (`build.rs`) armed the allocator, and the one of them that fails
/// (`usize::MAX`: none).
static SEEN: AtomicUsize = AtomicUsize::new(0);
static FAIL_AT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Allocations of at least this many bytes are counted, and one of them
/// failed, by `every_failure`: a 3,000-frame clip's rotations are 1.5 MB,
/// its positions 1.1 MB; what does not grow with the clips (a crowd of 16
/// characters' state, rayon's and the test harness's blocks) is far less.
const LARGE: usize = 1 << 20;

/// Allocations (and reallocations) made while `COUNTING` is set, by
/// threads whose tag is `COUNTED`.
static COUNT: AtomicUsize = AtomicUsize::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);
static COUNTED: AtomicUsize = AtomicUsize::new(0);
/// Of them, those of the size of rayon's block of injected jobs
/// ([`step::injector_blocks`]).
static BLOCKS: AtomicUsize = AtomicUsize::new(0);

/// The last pool's number: each pool's threads carry their own, so that a
/// count taken in one pool leaves out the threads of the pools that
/// earlier tests dropped (dropping a pool does not wait for its threads,
/// which may still allocate as they exit while the next test counts).
static POOLS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The number of the pool this thread belongs to (0: none).
    static TAG: Cell<usize> = const { Cell::new(0) };
}

/// This thread's pool number (0 while its thread-locals are torn down).
fn tag() -> usize {
    TAG.try_with(Cell::get).unwrap_or(0)
}

/// Whether an allocation of `size` bytes is refused; counts it.
fn refused(size: usize) -> bool {
    if COUNTING.load(Relaxed) && tag() == COUNTED.load(Relaxed) {
        COUNT.fetch_add(1, Relaxed);
        if size == step::INJECTOR_BLOCK {
            BLOCKS.fetch_add(1, Relaxed);
        }
    }
    size >= FAIL_FROM.load(Relaxed)
        || (size >= LARGE
            && FAIL_AT.load(Relaxed) != usize::MAX
            && SEEN.fetch_add(1, Relaxed) + 1 == FAIL_AT.load(Relaxed))
}

/// The system allocator, refusing large allocations and counting them all
/// on request.
struct Refusing;

// SAFETY: every call is forwarded unchanged to `System`, which upholds
// `GlobalAlloc`'s contract, or answers null, which the contract allows for
// `alloc`, `alloc_zeroed` and `realloc` (a failed `realloc` leaves the old
// block as it was, and nothing was taken from `System` for it).
unsafe impl GlobalAlloc for Refusing {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if refused(layout.size()) {
            return core::ptr::null_mut();
        }
        // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if refused(layout.size()) {
            return core::ptr::null_mut();
        }
        // SAFETY: as `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout (this
        // allocator hands out only `System`'s blocks).
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if refused(new_size) {
            return core::ptr::null_mut();
        }
        // SAFETY: `ptr` came from `System` with `layout`; the caller
        // upholds the rest of `realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Refusing = Refusing;

/// One test at a time: the refusal is process-wide.
static SERIAL: Mutex<()> = Mutex::new(());

/// Allocations made by `f`, on any thread of the pool it is called in (the
/// tests run one at a time; call it inside `pool(n).install`).
fn allocations(f: impl FnOnce()) -> usize {
    COUNTED.store(tag(), Relaxed);
    COUNT.store(0, Relaxed);
    BLOCKS.store(0, Relaxed);
    COUNTING.store(true, Relaxed);
    f();
    COUNTING.store(false, Relaxed);
    COUNT.load(Relaxed)
}

/// Large allocations refused while the guard lives (16 KiB and more: a
/// worker's scratch is about 75 KB for the CMU skeleton, the frame's shown
/// poses and events far more; threads, locks and rayon's jobs far less).
struct Refuse;
impl Refuse {
    fn large() -> Refuse {
        FAIL_FROM.store(16 << 10, Relaxed);
        Refuse
    }
}
impl Drop for Refuse {
    fn drop(&mut self) {
        FAIL_FROM.store(usize::MAX, Relaxed);
    }
}

#[cfg(feature = "wander")]
mod build;
mod step;
