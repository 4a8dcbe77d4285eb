//! Per-pack state's one home: [`PackStore`], everything the 8-lane crowd
//! keeps or schedules for each pack of eight characters, and the views it
//! hands out to change it: a run of packs ([`Packs`]), which splits into
//! disjoint runs for threads and hands out each of its packs ([`Pack`],
//! what a pack's step gets). To read, a field is indexed by pack (`one`
//! fields) or gives a pack's row ([`Rows::pack`]), as the shown poses
//! gather theirs.
//!
//! The store is declared once, in the `pack_store!` list at the end of
//! this file: a field is either `one` item per pack (a pack's [`Statex8`])
//! or `rows` of items per pack (a row per joint, per turning joint, ...:
//! [`Rows`], whose length per pack is fixed when the crowd is built, 0 for
//! a feature the crowd does not use). Adding a feature's state (a layer's
//! sources, a level-of-detail schedule) is one line of that list and its
//! allocation in `lanes_crowd::construct`; every view then has it, and a
//! pass reads it from the [`Pack`] it is given (`pack.layers`), with no new
//! vector threaded through the step. Each field is still its own array in
//! memory, pack-major, as the passes' prefetching and the caller's
//! [`Crowd::world`](super::Crowd::world) want.

use super::Root;
use super::command::Command;
use super::motion::{LodOffsetx8, Motionx8, RootMotionx8, ShiftOffsetx8, TurnOffsetx8};
use super::schedule::Schedulex8;
use super::state::{LayerLanes, Statex8};
use crate::lanes::Vec3x8;

/// The largest row (bytes) [`Pack::prefetch_next`] fetches for the next
/// pack: the rows per joint of the world output and the offsets are
/// larger and are fetched in parts while the pack samples.
const SMALL_ROW: usize = 2048;

/// `per` items for each pack, pack-major, in one allocation; `per` is
/// fixed when the crowd is built and may be 0 (a feature the crowd does
/// not use keeps nothing). Reads as the whole pack-major slice.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rows<T> {
    items: Vec<T>,
    per: usize,
}

impl<T> Rows<T> {
    /// `items` cut into `packs` equal rows (`packs` > 0; an empty `items`
    /// gives rows of 0 items).
    pub(crate) fn new(items: Vec<T>, packs: usize) -> Rows<T> {
        let per = items.len() / packs.max(1);
        debug_assert_eq!(per * packs, items.len(), "whole rows per pack");
        Rows { items, per }
    }

    /// Items per pack.
    pub(crate) fn per(&self) -> usize {
        self.per
    }

    /// Pack `p`'s row.
    pub(crate) fn pack(&self, p: usize) -> &[T] {
        &self.items[p * self.per..][..self.per]
    }

    /// Every pack's row, to change, as a run to split.
    fn all_mut(&mut self) -> RowsMut<'_, T> {
        RowsMut {
            items: &mut self.items,
            per: self.per,
        }
    }
}

impl<T> core::ops::Deref for Rows<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.items
    }
}

impl<T> core::ops::DerefMut for Rows<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.items
    }
}

/// A run of packs' rows of one field, to change.
pub(crate) struct RowsMut<'a, T> {
    items: &'a mut [T],
    per: usize,
}

impl<'a, T> RowsMut<'a, T> {
    /// The first `packs` packs' rows, and the rest.
    fn split_at(self, packs: usize) -> (RowsMut<'a, T>, RowsMut<'a, T>) {
        let (a, b) = self.items.split_at_mut(packs * self.per);
        let per = self.per;
        (RowsMut { items: a, per }, RowsMut { items: b, per })
    }

    /// Pack `i`'s row.
    #[inline(always)]
    fn pack(&mut self, i: usize) -> &mut [T] {
        &mut self.items[i * self.per..][..self.per]
    }
}

/// Declares [`PackStore`] and its views from one list of fields (see the
/// module's docs): `one { name: Type, }` for one item per pack, `rows {
/// name: Type, }` for rows of items per pack.
macro_rules! pack_store {
    (
        one { $( $(#[$od:meta])* $o:ident: $ot:ty, )* }
        rows { $( $(#[$rd:meta])* $r:ident: $rt:ty, )* }
    ) => {
        /// Everything the crowd keeps or schedules per pack (the module's docs),
        /// each field pack-major.
        pub(crate) struct PackStore {
            /// Number of packs.
            pub(crate) count: usize,
            $( $(#[$od])* pub(crate) $o: Vec<$ot>, )*
            $( $(#[$rd])* pub(crate) $r: Rows<$rt>, )*
        }

        /// One pack's share of the store, to change: what its step gets.
        pub(crate) struct Pack<'a> {
            /// The pack's number (characters `8 index .. 8 index + 8`).
            pub index: usize,
            $( $(#[$od])* pub $o: &'a mut $ot, )*
            $( $(#[$rd])* pub $r: &'a mut [$rt], )*
        }

        /// A run of packs' shares of the store, to change: splits into
        /// disjoint runs, and hands out each of its packs.
        pub(crate) struct Packs<'a> {
            /// The first pack's number.
            first: usize,
            len: usize,
            $( $o: &'a mut [$ot], )*
            $( $r: RowsMut<'a, $rt>, )*
        }

        impl PackStore {
            /// Whether every field holds `count` packs (rows of `per`).
            pub(crate) fn is_whole(&self) -> bool {
                true $( && self.$o.len() == self.count )*
                    $( && self.$r.len() == self.$r.per() * self.count )*
            }

            /// The bytes every field holds: what a step of every pack
            /// reads and writes at most.
            pub(crate) fn bytes(&self) -> usize {
                0 $( + size_of_val(&self.$o[..]) )* $( + size_of_val(&self.$r[..]) )*
            }

            /// Every pack's share, to change.
            pub(crate) fn all_mut(&mut self) -> Packs<'_> {
                Packs {
                    first: 0,
                    len: self.count,
                    $( $o: &mut self.$o[..], )*
                    $( $r: self.$r.all_mut(), )*
                }
            }
        }

        impl<'a> Packs<'a> {
            /// The first `mid` packs (at most all) and the rest.
            pub(crate) fn split_at(self, mid: usize) -> (Packs<'a>, Packs<'a>) {
                let mid = mid.min(self.len);
                $( let $o = self.$o.split_at_mut(mid); )*
                $( let $r = self.$r.split_at(mid); )*
                (
                    Packs {
                        first: self.first,
                        len: mid,
                        $( $o: $o.0, )*
                        $( $r: $r.0, )*
                    },
                    Packs {
                        first: self.first + mid,
                        len: self.len - mid,
                        $( $o: $o.1, )*
                        $( $r: $r.1, )*
                    },
                )
            }
        }

        impl Pack<'_> {
            /// Starts loading into L2 the next pack's item of every field
            /// kept one per pack (its state, root motion, box, schedule,
            /// ...) and its row of every field whose rows take at most
            /// [`SMALL_ROW`] bytes (the layers' sources, the flips, ...);
            /// nothing past the last of the crowd's `packs`. Each field
            /// is its own array, so a step reads one region of each in
            /// turn: more streams at once than the hardware prefetcher
            /// follows in time once the crowd is larger than the caches
            /// (PERF.md, "The pack's own fields fetched ahead"). The
            /// larger rows (world output, offsets) are fetched in parts
            /// while a pack samples (`passes::pack_step::fetched`), or
            /// while a resuming pack's `lod_world` runs for a next pack
            /// that resumes too (`passes::pack_lod::next_own`).
            #[inline(always)]
            pub(crate) fn prefetch_next(&self, packs: usize) {
                if self.index + 1 < packs {
                    $( crate::prefetch::next_item_to_l2(&*self.$o); )*
                    $( if size_of_val(&*self.$r) <= SMALL_ROW {
                        crate::prefetch::next_run_to_l2(&*self.$r);
                    } )*
                }
            }
        }

        impl Packs<'_> {
            /// Pack `i` of the run (its first is 0), to change.
            #[inline(always)]
            pub(crate) fn pack(&mut self, i: usize) -> Pack<'_> {
                Pack {
                    index: self.first + i,
                    $( $o: &mut self.$o[i], )*
                    $( $r: self.$r.pack(i), )*
                }
            }
        }
    };
}

impl Packs<'_> {
    /// The packs of the run.
    pub(crate) fn range(&self) -> core::ops::Range<usize> {
        self.first..self.first + self.len
    }

    /// Whether every pack of the run has run this frame (nothing left to
    /// step, so no scratch is needed for it).
    pub(crate) fn all_ran(&self) -> bool {
        (0..self.len).all(|i| self.ran(i))
    }

    /// Whether pack `i` of the run (its first is 0) has run this frame.
    #[inline(always)]
    pub(crate) fn ran(&self, i: usize) -> bool {
        self.result[i].ran
    }

    /// Pack `i` of the run's schedule (its first is 0), `None` past the
    /// run.
    #[inline(always)]
    pub(crate) fn schedule_of(&self, i: usize) -> Option<&Schedulex8> {
        self.schedule.get(i)
    }
}

/// What happened to a pack's characters in a step, bits per lane: source
/// A ended, source B ended, a transition finished, a transition started,
/// then each layer's source ended.
pub(crate) type EventBits = [u8; 4 + super::MAX_LAYERS];

/// What a pack's step is to do this frame, set before the packs run.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PackPlan {
    /// The pack's commands among the frame's sorted ones (`commands` of
    /// the passes' `Shared`).
    pub commands: (usize, usize),
    /// Where the pack's transitioning characters' shown poses start among
    /// the frame's (`shown` of the passes' `Shared`).
    pub first_mover: usize,
}

impl PackPlan {
    /// The pack's commands among the frame's `sorted` ones.
    pub(crate) fn commands<'a>(&self, sorted: &'a [(u32, Command)]) -> &'a [(u32, Command)] {
        &sorted[self.commands.0..self.commands.1]
    }
}

/// What a pack's frame did (kept per pack in the store, merged in pack
/// order when the frame finishes, so the figures are the same for any
/// split of the packs).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PackResult {
    /// Whether the pack's step ran this frame.
    pub ran: bool,
    pub transitions: u32,
    /// Characters evaluated (not carried).
    pub evaluated: u32,
    pub check: super::VelocityCheck,
}

pack_store! {
    one {
        /// The characters' playback state: sources, weight, transition,
        /// root ([`Statex8`]).
        states: Statex8,
        /// The root motion the pack took out last step, where the crowd
        /// extracts it, and its sources' places ([`RootMotionx8`]).
        root_motion: RootMotionx8,
        /// Which characters were given a root since the last step (bit
        /// `i` for character `8p + i`; the roots are in `roots`).
        root_set: u8,
        /// What happened last step, bits per lane ([`EventBits`]).
        events: EventBits,
        /// This frame's work: the pack's commands and shown poses.
        plan: PackPlan,
        /// What the pack's step did this frame (and whether it ran).
        result: PackResult,
        /// How many of the pack's `marks` the last step filled.
        mark_count: u32,
        /// The characters' world bounding boxes, grown by the last step's
        /// forward kinematics ([`super::Aabb`]).
        bounds: super::bounds::Aabbx8,
        /// The characters' update periods and what carries them between
        /// evaluations (level of detail, [`super::schedule`]).
        schedule: Schedulex8,
    }
    rows {
        /// Per joint, which characters' two-source blends take their
        /// relative rotation negated (bit `i` for character `8p + i`):
        /// chosen the short way round when the sources change at once (a
        /// command, a wrap around a clip) and kept until then, so that a
        /// blend stays continuous however far apart its sources turn (with
        /// [`crate::Clip::with_continuous_rotations`]).
        ab_flips: u8,
        /// Inertialization's rotational offsets, one per turning joint
        /// (none when dead blending).
        turns: TurnOffsetx8,
        /// Inertialization's positional offsets, one per joint whose
        /// position moves (none when dead blending).
        shifts: ShiftOffsetx8,
        /// Dead blending's transition poses, one per joint (none when
        /// inertializing).
        transition: Motionx8,
        /// Per joint, which characters' dead-blending relative rotations
        /// are taken negated (bits): chosen the short way round at a
        /// transition and kept until the next, so that they move
        /// continuously ([`crate::reference::op_dead_blending`]).
        dead_flips: u8,
        /// Dead blending's fitted half-lives per axis, rotations: one per
        /// turning joint, the rows of `turns` (none unless
        /// [`super::DeadBlendHalflives::Fitted`]).
        fit_rot: Vec3x8,
        /// ... and positions: one per joint whose position moves, the rows
        /// of `shifts`.
        fit_pos: Vec3x8,
        /// Each layer's source and weight, one per layer of the crowd
        /// (none without layers).
        layers: LayerLanes,
        /// Per layer and joint (row `k j + joint`), which characters'
        /// relative rotations the layer takes negated (bits): chosen the
        /// short way round where the sources jump or the layer is idle,
        /// kept elsewhere, as `ab_flips` are for the base.
        layer_flips: u8,
        /// Roots given since the last step ([`super::Command::SetRoot`]),
        /// eight per pack, valid where `root_set` says.
        roots: Root,
        /// The world output: joint `j` of the pack's characters at row
        /// item `j` (read by the caller and by the next step's velocity
        /// check). With level of detail, each character's anchor (the pose
        /// it was last evaluated at), which it shows carried
        /// ([`super::passes::Carried`]).
        world: Motionx8,
        /// Level of detail: each joint's world-space offset from the pose carried
        /// to the one evaluated (none without level of detail).
        lod_offset: LodOffsetx8,
        /// The markers the pack's sources crossed last step
        /// ([`super::MarkerHit`], as events; the first `mark_count`): room
        /// for each of its sixteen sources to cross every marker of the
        /// clip with the most (none when no clip has markers).
        marks: super::Event,
    }
}
