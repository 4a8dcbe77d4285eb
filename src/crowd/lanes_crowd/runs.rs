//! The runs of work a prepared frame hands out ([`ShownRange`],
//! [`PackRange`]): each splits into disjoint runs that run from any
//! thread, each batch or pack at most once, with the calling thread's
//! scratch ([`Kit`]); rayon's splitting of them for [`Crowd::step`], and
//! the passes each runs, chosen once per run by the crowd's sampling and
//! transition.
//!
//! [`Crowd::step`]: super::Crowd::step

use core::ops::Range;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use crate::crowd::budget::add_elapsed;
use crate::crowd::motion::Motionx8;
use crate::crowd::passes::{self, PackScratch, Scratches, Shared, ShownBatches};
use crate::crowd::schedule::live_lanes;
use crate::crowd::store::{PackStore, Packs};

/// What a run of work needs besides its data: the threads' scratch, how
/// to make one, and which passes the crowd runs.
#[derive(Clone, Copy)]
pub(super) struct Kit<'a> {
    pub(super) scratch: &'a Scratches,
    pub(super) rest: &'a [Motionx8],
    pub(super) turning: usize,
    pub(super) moving: usize,
    pub(super) layers: usize,
    pub(super) cubic: bool,
    pub(super) inert: bool,
    /// Where a run adds the time it took (a budget is set).
    pub(super) spent: Option<&'a AtomicU64>,
}

impl Kit<'_> {
    /// Runs `f` with the calling thread's scratch ([`Scratches::with`]);
    /// `None`, not run, when none can be had.
    fn with<R>(&self, f: impl FnOnce(&mut PackScratch) -> R) -> Option<R> {
        let make = || PackScratch::try_new(self.rest, self.turning, self.moving, self.layers);
        let start = self.spent.map(|_| Instant::now());
        let out = self.scratch.with(make, f);
        if let (Some(spent), Some(t)) = (self.spent, start) {
            add_elapsed(spent, t);
        }
        out
    }
}

/// Runs `$f::<CUBIC, INERT>($args)` for the kit's passes.
macro_rules! dispatch {
    ($kit:expr, $f:ident ($($arg:expr),*)) => {
        match ($kit.cubic, $kit.inert) {
            (false, true) => $f::<false, true>($($arg),*),
            (false, false) => $f::<false, false>($($arg),*),
            (true, true) => $f::<true, true>($($arg),*),
            (true, false) => $f::<true, false>($($arg),*),
        }
    };
}

/// A run of a prepared frame's batches of shown poses
/// ([`PreparedStep::shown`](super::PreparedStep::shown)): split it into
/// disjoint runs, run each from any thread.
pub struct ShownRange<'f> {
    pub(super) sh: Shared<'f>,
    pub(super) store: &'f PackStore,
    pub(super) batches: ShownBatches<'f>,
    pub(super) kit: Kit<'f>,
}

impl<'f> ShownRange<'f> {
    /// The batches of the run, numbered from 0 in the frame.
    pub fn batches(&self) -> Range<usize> {
        self.batches.range()
    }

    /// Number of batches.
    pub fn len(&self) -> usize {
        self.batches().len()
    }

    /// Whether the run has no batch.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first `mid` batches (all of them if `mid` is past the end) and
    /// the rest.
    pub fn split_at(self, mid: usize) -> (ShownRange<'f>, ShownRange<'f>) {
        let ShownRange {
            sh,
            store,
            batches,
            kit,
        } = self;
        let (a, b) = batches.split_at(mid);
        let part = |batches| ShownRange {
            sh,
            store,
            batches,
            kit,
        };
        (part(a), part(b))
    }

    /// The run in `parts` runs as equal as can be (sizes differ by at most
    /// one; some empty when there are fewer batches than parts; one part
    /// when `parts` is 0).
    pub fn split(self, parts: usize) -> impl Iterator<Item = ShownRange<'f>> {
        split_into(self, parts, ShownRange::len, ShownRange::split_at)
    }

    /// Computes the run's batches (those not computed yet), on this
    /// thread (or leaves them to the next part when this thread's scratch
    /// cannot be had, [`PreparedStep`](super::PreparedStep)).
    pub fn run(self) {
        // A run already computed (the rest of a frame whose batches all
        // ran elsewhere) takes no scratch: a thread without one of its own
        // would make one for nothing (0.1 M instructions a frame).
        if self.is_empty() || self.batches.all_done() {
            return;
        }
        let ShownRange {
            sh,
            store,
            batches,
            kit,
        } = self;
        // None: no scratch for this thread, the next part computes them.
        let _ = kit.with(|s| dispatch!(kit, run_shown(batches, &sh, store, s)));
    }

    /// Runs the batches on the current rayon pool.
    pub(super) fn run_on_rayon(self) {
        if !self.is_empty() {
            use rayon::iter::ParallelIterator;
            rayon::iter::split(self, |r| halve(r, ShownRange::len, ShownRange::split_at))
                .for_each(ShownRange::run);
        }
    }
}

/// Computes `batches` with the passes `CUBIC` and `INERT` choose (the
/// kit's, `dispatch!`).
fn run_shown<const CUBIC: bool, const INERT: bool>(
    batches: ShownBatches,
    sh: &Shared,
    store: &PackStore,
    scratch: &mut PackScratch,
) {
    batches.run::<CUBIC, INERT>(sh, store, scratch)
}

/// A run of a prepared frame's packs
/// ([`PreparedStep::packs`](super::PreparedStep::packs)): split it into
/// disjoint runs, run each from any thread.
pub struct PackRange<'f> {
    pub(super) sh: Shared<'f>,
    pub(super) packs: Packs<'f>,
    pub(super) kit: Kit<'f>,
}

impl<'f> PackRange<'f> {
    /// The packs of the run (pack `p` holds characters `8p .. 8p + 8`).
    pub fn packs(&self) -> Range<usize> {
        self.packs.range()
    }

    /// The characters of the run.
    pub fn characters(&self) -> Range<usize> {
        let (p, n) = (self.packs(), self.sh.characters);
        (p.start * 8).min(n)..(p.end * 8).min(n)
    }

    /// Number of packs.
    pub fn len(&self) -> usize {
        self.packs().len()
    }

    /// Whether the run has no pack.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first `mid` packs (all of them if `mid` is past the end) and
    /// the rest.
    pub fn split_at(self, mid: usize) -> (PackRange<'f>, PackRange<'f>) {
        let PackRange { sh, packs, kit } = self;
        let (a, b) = packs.split_at(mid);
        (
            PackRange { sh, packs: a, kit },
            PackRange { sh, packs: b, kit },
        )
    }

    /// The run in `parts` runs as equal as can be (sizes differ by at most
    /// one; some empty when there are fewer packs than parts; one part
    /// when `parts` is 0).
    pub fn split(self, parts: usize) -> impl Iterator<Item = PackRange<'f>> {
        split_into(self, parts, PackRange::len, PackRange::split_at)
    }

    /// Steps the run's packs (those not stepped yet), in order, on this
    /// thread (or leaves them to the next part when this thread's scratch
    /// cannot be had, [`PreparedStep`](super::PreparedStep)).
    pub fn run(self) {
        // As ShownRange::run: no scratch for a run that has all run.
        if self.is_empty() || self.packs.all_ran() {
            return;
        }
        let PackRange { sh, packs, kit } = self;
        // None: no scratch for this thread, the next part steps them.
        let _ = kit.with(|s| dispatch!(kit, run_packs(packs, &sh, s)));
    }

    /// Runs the packs on the current rayon pool.
    pub(super) fn run_on_rayon(self) {
        use rayon::iter::ParallelIterator;
        rayon::iter::split(self, |r| halve(r, PackRange::len, PackRange::split_at))
            .for_each(PackRange::run);
    }
}

/// Steps the packs of `packs` not stepped yet, in order, with the passes
/// `CUBIC` and `INERT` choose (the kit's, `dispatch!`).
fn run_packs<const CUBIC: bool, const INERT: bool>(
    mut packs: Packs,
    sh: &Shared,
    scratch: &mut PackScratch,
) {
    let first = packs.range().start;
    // Whether the pack stepped last, on this thread, fetched this one's
    // anchors, kept state and (below half the L3) offsets, then in this
    // core's L2 (`passes::next_own`).
    let mut fetched = false;
    for i in 0..packs.range().len() {
        if packs.ran(i) {
            fetched = false;
            continue;
        }
        // Whether the next pack of the run resumes (level of detail):
        // this one then fetches its anchors, kept state and offsets ahead.
        let next = sh.lod
            && packs
                .schedule_of(i + 1)
                .is_some_and(|s| s.resumes_at(sh.frame, live_lanes(first + i + 1, sh.characters)));
        let at = (next, fetched);
        fetched = passes::step_pack::<CUBIC, INERT>(sh, packs.pack(i), scratch, at);
    }
}

/// `run` in two halves for rayon's splitting (none when it has one item).
fn halve<T>(run: T, len: fn(&T) -> usize, split_at: fn(T, usize) -> (T, T)) -> (T, Option<T>) {
    match len(&run) {
        0 | 1 => (run, None),
        n => {
            let (a, b) = split_at(run, n / 2);
            (a, Some(b))
        }
    }
}

/// `run` in `parts` runs whose lengths differ by at most one, the longer
/// first (one when `parts` is 0).
fn split_into<T>(
    run: T,
    parts: usize,
    len: fn(&T) -> usize,
    split_at: fn(T, usize) -> (T, T),
) -> impl Iterator<Item = T> {
    let parts = parts.max(1);
    let n = len(&run);
    let (mut rest, mut k) = (Some(run), 0);
    std::iter::from_fn(move || {
        let run = rest.take()?;
        k += 1;
        if k == parts {
            return Some(run);
        }
        let (this, after) = split_at(run, n / parts + usize::from(k <= n % parts));
        rest = Some(after);
        Some(this)
    })
}

impl core::fmt::Debug for ShownRange<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ShownRange")
            .field("batches", &self.batches())
            .finish_non_exhaustive()
    }
}

impl core::fmt::Debug for PackRange<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PackRange")
            .field("packs", &self.packs())
            .finish_non_exhaustive()
    }
}
