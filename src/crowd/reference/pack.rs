//! One pack's frame of the reference crowd ([`reference_pack`]), as the
//! lanes crowd's (`passes::step_pack`): its characters' states and layers
//! advanced, their commands applied with the same code
//! ([`pack_commands`]), then each character's frame through the reference
//! (`frame`), or its carried pose where level of detail carries it
//! (`show`).

use super::frame::reference_frame;
use super::lod::CharLod;
use super::show::ref_carry_frame;
use super::step::{CharStep, Crowdwide, char_step};
use super::{RefScratch, RefState};
use crate::crowd::command::Command;
use crate::crowd::markers::Advanced;
use crate::crowd::place::{Place, wrap_place};
use crate::crowd::schedule::{LodStep, Schedulex8, live_lanes};
use crate::crowd::state::{Applied, ClipRows, LayerLanes, Spanx8, Statex8, Stepx8};
use crate::crowd::store::EventBits;
use crate::crowd::{FrameStats, MAX_LAYERS};
use crate::lanes::F32x8;

/// A reference pack: its number, its characters' state, schedule and
/// layers, and their kept poses.
pub(super) type RefPack<'a> = (
    usize,
    &'a mut Statex8,
    &'a mut Schedulex8,
    &'a mut [LayerLanes],
    &'a mut [RefState],
);

/// Pack `p`'s frame, as the lanes crowd's (`passes::step_pack`): its
/// characters' states (and layers) advanced and their commands (among the
/// frame's `sorted` ones) applied with the same code, then each
/// character's frame through the reference ([`pack_characters`]), where
/// it transitions from the pose it would have shown without its commands;
/// the pack's figures, its events ([`EventBits`], without the
/// transitions started) and the number of markers `crossed` found (from
/// the advanced state and every source's move, the layers' included).
pub(super) fn reference_pack(
    crowd: &Crowdwide,
    (sorted, rows, frame, dt): (&[(u32, Command)], &[ClipRows], u64, f32),
    (p, state, sched, layers, chars): RefPack,
    s: &mut RefScratch,
    crossed: impl FnOnce(Advanced) -> usize,
) -> (FrameStats, EventBits, usize) {
    // A copy on the stack (at most MAX_LAYERS): a step allocates nothing.
    let before = *state;
    let mut layers_before = [<LayerLanes as bytemuck::Zeroable>::zeroed(); MAX_LAYERS];
    layers_before[..layers.len()].copy_from_slice(layers);
    let mut layer_spans = [Spanx8::default(); MAX_LAYERS];
    let happened = state.advance(F32x8::splat(dt), layers, &mut layer_spans);
    let marks = crossed(Advanced {
        state,
        layers,
        happened: &happened,
        layer_spans: &layer_spans[..layers.len()],
    });
    // The sources' places moved on by their wraps (before the commands,
    // as the pose the character would have shown has them).
    let clips = |s: &Statex8, l: usize| [s.a.clip, s.b.clip].map(|c| c.to_array()[l] as usize);
    for (l, ch) in chars.iter_mut().enumerate() {
        wrap_place(&mut ch.places, &happened.spans, clips(state, l), rows, l);
    }
    let commanded = pack_commands(sorted, p, (state, sched, layers), rows);
    let step = state.step(&happened, layers);
    let events = step_events(&step, commanded.trans, layers.len());
    // What transitioning characters would have shown.
    let (mut old_state, old_layers) = (before, &mut layers_before[..layers.len()]);
    let old_events = old_state.advance(F32x8::splat(dt), old_layers, &mut layer_spans);
    let old_step = old_state.step(&old_events, old_layers);
    // Level of detail: who is evaluated (those carried last step choose
    // their blends' hemispheres anew).
    let carried_before = sched.carried;
    let lod = crowd.cfg.level_of_detail.then(|| {
        let live = live_lanes(p, crowd.cfg.characters);
        sched.plan((frame, dt), frame == 0, commanded.trans, live)
    });
    let pack = PackStep {
        now: (&step, state, layers),
        old: (&old_step, &old_state, old_layers),
        commanded,
        carried_before,
        lod: lod.as_ref(),
    };
    let total = pack_characters(crowd, &pack, chars, s, (p, frame, dt));
    (total, events, marks)
}

/// A pack's step as [`char_step`] reads it: the step, the state it was
/// taken from, and the pack's layers.
type PackLanes<'a> = (&'a Stepx8, &'a Statex8, &'a [LayerLanes]);

/// What each character of a pack reads of the pack's step
/// ([`pack_characters`]).
struct PackStep<'a> {
    /// The step taken.
    now: PackLanes<'a>,
    /// The step the pack would have taken without its commands.
    old: PackLanes<'a>,
    /// The bits of the characters its commands touched.
    commanded: Commanded,
    /// The characters carried last step (level of detail).
    carried_before: u8,
    /// Who is evaluated this step, where the crowd has level of detail.
    lod: Option<&'a LodStep>,
}

/// Each character of a pack's frame ([`reference_pack`]): carried where
/// level of detail does not evaluate it ([`ref_carry_frame`]), else
/// through the reference ([`reference_frame`]) at its step, and at the
/// step it would have taken without its commands where they start a
/// transition; the pack's figures.
fn pack_characters(
    crowd: &Crowdwide,
    pack: &PackStep,
    chars: &mut [RefState],
    s: &mut RefScratch,
    (p, frame, dt): (usize, u64, f32),
) -> FrameStats {
    let Commanded {
        trans,
        played,
        placed,
    } = pack.commanded;
    let mut total = FrameStats::default();
    for (l, ch) in chars.iter_mut().enumerate() {
        let c = p * 8 + l;
        if c >= crowd.cfg.characters {
            break;
        }
        let moving = trans & (1 << l) != 0;
        let old_places = ch.places;
        if placed & (1 << l) != 0 {
            ch.places = [Place::IDENTITY; 2];
        }
        let cl = pack.lod.map(|x| CharLod::of(x, l));
        if let Some(cl) = cl.filter(|cl| !cl.due) {
            let check = ref_carry_frame(crowd, ch, s, &cl, (c, frame, dt));
            // A pack with nobody evaluated adds nothing to the check, as
            // in the lanes crowd, whose step does not make its carried
            // pose (`passes::Carried`); a carried character of an
            // evaluated pack is checked.
            if pack.lod.is_some_and(|x| x.due != 0) {
                total.velocity.merge(&check);
            }
            continue;
        }
        total.evaluated += 1;
        let (step, state, layers) = pack.now;
        let now = CharStep {
            places: ch.places,
            ..char_step(step, state, layers, l)
        };
        let old = moving.then(|| {
            let (step, state, layers) = pack.old;
            let st = char_step(step, state, layers, l);
            CharStep {
                places: old_places,
                wrapped: st.wrapped || pack.carried_before & (1 << l) != 0,
                ..st
            }
        });
        let resumed = cl.is_some_and(|cl| cl.resumed);
        let jumped = (played | trans) & (1 << l) != 0 || resumed;
        let at = (c, frame, dt, jumped);
        let check = reference_frame(crowd, (&now, old.as_ref()), ch, s, at, cl.as_ref());
        total.transitions += moving as u32;
        total.velocity.merge(&check);
    }
    total
}

/// A pack step's events ([`EventBits`]): sources A and B ended, the
/// transitions finished (not those started by `trans`, the bits of the
/// characters that began one this step), each of `nlayers` layers'
/// sources ended; the transitions started are left to the caller.
fn step_events(step: &Stepx8, trans: u8, nlayers: usize) -> EventBits {
    let mut events = EventBits::default();
    events[..3].copy_from_slice(&[step.ended_a, step.ended_b, step.finished & !trans]);
    events[4..][..nlayers].copy_from_slice(&step.layers.ended[..nlayers]);
    events
}

/// The bits of a pack's characters that its commands touched
/// ([`pack_commands`]).
#[derive(Clone, Copy)]
struct Commanded {
    /// Started a transition.
    trans: u8,
    /// Jumped (played).
    played: u8,
    /// Their places restart (played or transitioned).
    placed: u8,
}

/// Pack `p`'s commands among the frame's `sorted` ones applied in order
/// to its state, schedule and layers (the lanes crowd's code): the bits
/// of the characters that started a transition, that jumped (played),
/// and whose places restart (played or transitioned).
fn pack_commands(
    sorted: &[(u32, Command)],
    p: usize,
    (state, sched, layers): (&mut Statex8, &mut Schedulex8, &mut [LayerLanes]),
    rows: &[ClipRows],
) -> Commanded {
    let lo = sorted.partition_point(|(c, _)| (*c as usize) < p * 8);
    let hi = sorted.partition_point(|(c, _)| (*c as usize) < (p + 1) * 8);
    let (mut trans, mut played, mut placed) = (0u8, 0u8, 0u8);
    for (c, cmd) in &sorted[lo..hi] {
        let l = *c as usize % 8;
        placed |= (matches!(cmd, Command::Play { .. } | Command::Transition { .. }) as u8) << l;
        if let Command::SetPeriod { period, phase } = *cmd {
            sched.set(l, period, phase);
        }
        match state.apply(l, cmd, rows, layers) {
            Applied::Transition => trans |= 1 << l,
            Applied::Jump => played |= 1 << l,
            Applied::Other => {}
        }
    }
    Commanded {
        trans,
        played,
        placed,
    }
}
