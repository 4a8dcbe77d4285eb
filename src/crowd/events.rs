//! The step's events: what happened to each character (a clip's end
//! reached, a transition finished, a marker crossed), gathered from each
//! pack's bits in character order into a list the crowd keeps, and read
//! out with [`Crowd::events`] or copied into the game's buffer with
//! [`Crowd::events_into`].

use super::Crowd;
use super::command::Which;
use super::markers::MarkerHit;
use super::store::EventBits;

/// What happened to a character in a step (more kinds may come: match
/// with a wildcard arm).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum EventKind {
    /// A source whose clip end is [`super::ClipEnd::Event`] reached an end
    /// of its clip (and holds there).
    ClipEnded(Which),
    /// A transition ran its full duration.
    TransitionFinished,
    /// A source's playhead crossed a marker of its clip (the crossing
    /// rules: [`MarkerHit`]).
    Marker(MarkerHit),
}

/// An event of the last step.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Event {
    /// The character.
    pub character: usize,
    /// What happened.
    pub kind: EventKind,
}

/// Appends the events of per-pack bits ([`EventBits`]: source A ended,
/// source B ended, a transition finished, (started), each layer's source
/// ended; bit `i` for character `8p + i`) and each pack's markers (by
/// character, [`super::markers`]) to `out`, in character order, for the
/// first `n` characters of a crowd of `layers` layers: a character's clip
/// ends of A, B and its layers in order, then its transition's end, then
/// its markers. `out` has room for them all (reserved when the crowd was
/// built), so nothing is allocated.
pub(crate) fn push_events<'b>(
    packs: impl Iterator<Item = (&'b EventBits, &'b [Event])>,
    n: usize,
    layers: usize,
    out: &mut Vec<Event>,
) {
    let mut kinds = [(2, EventKind::TransitionFinished); 3 + super::MAX_LAYERS];
    kinds[0] = (0, EventKind::ClipEnded(Which::A));
    kinds[1] = (1, EventKind::ClipEnded(Which::B));
    for k in 0..layers.min(super::MAX_LAYERS) {
        kinds[2 + k] = (4 + k, EventKind::ClipEnded(Which::Layer(k)));
    }
    let kinds = &kinds[..3 + layers.min(super::MAX_LAYERS)];
    // The bits the kinds read, to pass over a pack without any at once.
    let mut read = EventBits::default();
    kinds.iter().for_each(|&(i, _)| read[i] = 0xff);
    for (p, (bits, marks)) in packs.enumerate() {
        if bits.iter().zip(&read).all(|(b, r)| b & r == 0) {
            if !marks.is_empty() {
                out.extend_from_slice(marks);
            }
            continue;
        }
        let mut marks = marks;
        for l in 0..8 {
            let character = p * 8 + l;
            if character >= n {
                break;
            }
            for &(i, kind) in kinds {
                if bits[i] & (1 << l) != 0 {
                    out.push(Event { character, kind });
                }
            }
            let mine = marks.partition_point(|e| e.character == character);
            out.extend_from_slice(&marks[..mine]);
            marks = &marks[mine..];
        }
    }
}

impl Crowd {
    /// Turns the packs' event bits into [`Crowd::events`], in character
    /// order (the list's memory is kept from step to step).
    pub(crate) fn collect_events(&mut self) {
        self.events.clear();
        let (n, layers) = (self.cfg.characters, self.cfg.layers.len());
        let store = &self.packs;
        let packs = store.events.iter().enumerate().map(|(p, b)| {
            let marks = &store.marks.pack(p)[..store.mark_count[p] as usize];
            (b, marks)
        });
        push_events(packs, n, layers, &mut self.events);
    }

    /// The last step's events, in character order (a character's in the
    /// order clip end of A, of B, of each layer, transition finished, then
    /// the markers its sources crossed, [`MarkerHit`]: source A's, then
    /// B's, each by the time it was first crossed). Room for a step's most
    /// events is reserved when the crowd is built, so a step allocates
    /// none. To act on them
    /// with commands, which borrow the crowd mutably, copy them out first
    /// with [`Crowd::events_into`].
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Copies the last step's events ([`Crowd::events`]) into the caller's
    /// `out`, which is cleared first: a buffer the game keeps allocates
    /// only while it grows to the most events a frame has had, and the
    /// crowd is free for commands while the game walks it:
    ///
    /// ```
    /// # use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, ClipEnd, EventKind, Source};
    /// # let library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
    /// # let mut crowd = Crowd::new(&library, CrowdConfig { characters: 4, ..Default::default() })?;
    /// let once = Source { end: ClipEnd::Event, ..Source::looping(0, 2.2) };
    /// crowd.play(2, once, once)?; // 2.2 s into a 2.3 s clip, reporting its end
    /// let mut events = Vec::new(); // the game's, kept across frames
    /// let mut restarted = 0;
    /// for _frame in 0..30 {
    ///     crowd.step(1.0 / 60.0)?;
    ///     crowd.events_into(&mut events);
    ///     for e in &events {
    ///         if e.kind == EventKind::ClipEnded(kineform::crowd::Which::A) {
    ///             // Commands in the same loop: `events` is the game's.
    ///             crowd.transition(e.character, Source::looping(0, 0.0), Source::looping(0, 0.0), 0.3, 0.1)?;
    ///             restarted += 1;
    ///         }
    ///     }
    /// }
    /// assert_eq!(restarted, 1);
    /// # Ok::<(), kineform::Error>(())
    /// ```
    pub fn events_into(&self, out: &mut Vec<Event>) {
        out.clear();
        out.extend_from_slice(&self.events);
    }
}
