//! The budget allocator (issue 25, item 3): the game gives each character
//! a significance (its closeness to the camera, or any number: higher is
//! more significant) and the crowd a time budget per step; the crowd
//! chooses every character's update period ([`super::schedule`]) so that
//! its steps fit the budget, highest significance first, from its own
//! measured cost per evaluated character, as Unreal's Animation Budget
//! Allocator does, but with no interpolation and so no lag: a character
//! between evaluations is carried along its own velocities.
//!
//! The budget is time spent in the crowd's work, summed over the threads
//! that run a step (as Unreal's is): a step of 2 ms on each of two
//! threads spends 4 ms. The crowd times its own work (each run of a
//! [`super::PreparedStep`]'s parts on whatever thread runs it, and the
//! frame's serial parts, by the wall clock), so the budget holds whatever
//! job system runs the step; a thread preempted inside the crowd's work
//! counts that time too, and the job system's own scheduling outside it
//! is not counted.
//!
//! **The choice, each step, before the packs run.** Periods are chosen
//! per pack of eight characters (the unit the crowd evaluates: a pack
//! with one character due costs as much as a full one), so a pack's
//! significance is its most significant character's. With `k` seconds per
//! evaluated character, a pack of `n` characters at period `P` costs
//! `k n / P` a step on average. The packs are taken in order of
//! significance (ties: the lower pack first); all start at
//! [`MAX_PERIOD`], which leaves the slack `S = B - Σ k n / 16`, and each in
//! turn takes the shortest period of [`CHOSEN`] (1, 4, 8, 16: period 2
//! saves little over period 1), no shorter than the pack before it took,
//! whose extra cost `k n / P - k n / 16` the slack still holds, and spends
//! it. So periods never shorten as significance falls, every pack gets the
//! most the budget leaves after the ones before it, and the packs after it
//! keep at least period 16. The model `k n / P` understates what short
//! periods cost (a resumed evaluation costs about two plain ones, and a
//! carried pack still steps its sources, [`CHOSEN`]); under a measured
//! cost `k` is what the steps spent per character they evaluated, which
//! takes that in on average, so the steps still settle at the budget.
//! When even period 16 for all does not fit, every pack gets it and the
//! choice says it does not fit ([`BudgetChoice::fits`]).
//!
//! **Phases.** A pack whose period does not change keeps its phase; the
//! packs whose period changes take their new period's phases in turn (a
//! counter per period), in pack order and in runs: up to [`PHASE_RUN`]
//! neighbouring packs given a period take the same phase before the
//! counter moves on, so each step evaluates an even share (to within a
//! run a phase) of packs that lie together in memory. Phases handed out
//! one pack at a time instead (as this allocator did, by a counter in
//! significance order, and `kineform crowd --lod` by `p % period`) leave
//! each step's evaluated packs scattered about one in every `period`,
//! which the memory system streams worse. Every pack at period 4, 100,000 characters (AMD EPYC Zen 5,
//! `examples/lod_cost p4 100000 120 RUN`, alternated): 15.9 to 16.2 ms a
//! frame on one thread and 8.8 to 9.0 on two with phases pack by pack,
//! 14.1 to 14.5 and 7.8 to 8.0 in runs of 16; at period 8 on two threads
//! 4.6 to 4.7 against 4.1 to 4.2, at period 16 3.3 to 3.4 against 2.9 to
//! 3.0. Longer runs gain little more (runs of a quarter of the crowd: 14.0
//! to 14.2 and 7.8 to 7.9 at period 4). A run is shorter
//! where few packs change, so that every phase still gets some: at most
//! a quarter of the changing packs' share of a phase. A pack moved to a
//! shorter period is evaluated at its next phase; the gap to what it
//! showed carried is hidden as every resumption's (over at most
//! [`super::LOD_BLEND`]).
//!
//! **The cost.** With [`CharacterCost::Measured`], `k` is the running
//! mean (each step weighing a quarter) of the steps' spending over the
//! running mean of the characters they evaluated (steps that evaluated
//! nobody included), which holds the step's fixed costs (carried packs,
//! commands) too: if the budget is above those, the choice settles where
//! the measured steps take the budget. Every step with a budget set is
//! measured, whatever its cost kind, and the measurement is kept when
//! the budget changes or is cleared. Until a step has been measured (the
//! first after a crowd's first budget) the periods stay as they are.
//! [`CharacterCost::Fixed`] uses a caller's figure (a target machine's,
//! or a test's: the choice then depends on nothing measured, and both
//! crowds make the same one).
//!
//! A budget is refused while [`super::Command::SetPeriod`] commands are
//! queued (they would apply after the step's choice), and `SetPeriod`
//! while a budget is set.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::schedule::{MAX_PERIOD, Schedulex8, live_lanes};
use crate::error::{Error, Result};

/// Every period a character may have, shortest first ([`MAX_PERIOD`]
/// last): the periods [`BudgetChoice::characters_at`] counts.
pub const PERIODS: [u32; 5] = [1, 2, 4, 8, 16];

/// The periods the allocator chooses from, as indices into [`PERIODS`]:
/// 1, 4, 8 and 16. Period 2 is left out because it saves little over
/// period 1: every evaluation of a pack at period 2 is a resumption (the
/// carried pose, the new offset, the velocity check against the carried
/// one), which costs about twice a plain evaluation. Measured on an AMD
/// EPYC (Zen 5, 2 vCPU, `avx2+fma` backend), `RAYON_NUM_THREADS=T
/// target/release/examples/lod_cost pP N F`: with 0.1 s offsets still
/// running at every resumption, every pack at period 2 took 1.23 to 1.53x
/// the every-frame crowd's time (10,000 and 100,000 characters, one and
/// two threads, 60 Hz; 1.00 to 1.15x with phases in runs of 16 and the
/// next pack's anchors fetched ahead); since offsets end before the next
/// periodic evaluation (`schedule::offset_blend`), 0.94 to 0.99x
/// (`lod_cost p2 100000 120 16`, two rounds alternated with `every`, one
/// and two threads), against 0.53 to 0.57x at period 4: the allocator's
/// cost per evaluated character would be wrong for it, so it stays out.
pub const CHOSEN: [usize; 4] = [0, 2, 3, 4];

/// The most neighbouring packs the allocator gives one phase of a period
/// before moving to the next (module docs, "Phases"): 16 packs, 128
/// characters.
pub const PHASE_RUN: u32 = 16;

/// The run of neighbouring packs the allocator gives each phase when
/// `changing` packs take period `period` in a step (module docs,
/// "Phases"): a quarter of a phase's share, `changing / (4 period)`,
/// within `1 ..= PHASE_RUN`. A game that sets periods itself
/// ([`super::Command::SetPeriod`]) gets the same streaming by handing its
/// phases out in pack order in runs of this many packs.
pub fn phase_run(changing: u32, period: u32) -> u32 {
    (changing / period.max(1) / 4).clamp(1, PHASE_RUN)
}

/// Phases handed out in pack order, in runs of neighbouring packs (module
/// docs, "Phases"): the allocator's, and for a game that sets periods
/// itself ([`super::Command::SetPeriod`]) the same streaming. Each step,
/// [`PhaseRuns::begin`] with how many packs take each period, then
/// [`PhaseRuns::phase`] for each of those packs in pack order. The last
/// phase of each period is kept from step to step, so that successive
/// steps' changes spread over the phases.
///
/// ```
/// use kineform::crowd::budget::PhaseRuns;
/// let mut phases = PhaseRuns::default();
/// phases.begin([0, 0, 0, 0, 128]); // 128 packs move to period 16: runs of 2
/// let got: Vec<u32> = (0..6).filter_map(|_| phases.phase(16)).collect();
/// assert_eq!(got, [1, 1, 2, 2, 3, 3]);
/// assert_eq!(phases.phase(3), None); // not one of `PERIODS`
/// ```
#[derive(Clone, Debug, Default)]
pub struct PhaseRuns {
    /// The phase each period (of [`PERIODS`]) handed out last.
    last: [u32; 5],
    /// This step's run length for each period ([`phase_run`]).
    run: [u32; 5],
    /// Packs left in each period's current run.
    left: [u32; 5],
}

impl PhaseRuns {
    /// Starts a step in which `changing[i]` packs take period
    /// `PERIODS[i]`: each period's runs are [`phase_run`] packs long, and
    /// its first pack starts a new run.
    pub fn begin(&mut self, changing: [u32; 5]) {
        self.run = core::array::from_fn(|i| phase_run(changing[i], PERIODS[i]));
        self.left = [0; 5];
    }

    /// The phase of the next pack, in pack order, that takes `period`;
    /// `None` for a period not in [`PERIODS`].
    pub fn phase(&mut self, period: u32) -> Option<u32> {
        let i = PERIODS.iter().position(|&q| q == period)?;
        if self.left[i] == 0 {
            self.last[i] = (self.last[i] + 1) % MAX_PERIOD;
            self.left[i] = self.run[i].max(1);
        }
        self.left[i] -= 1;
        Some(self.last[i] % period)
    }
}

/// The longest budget a step may be given, in seconds.
pub const MAX_BUDGET: f32 = 10.0;

/// A crowd's time budget per step ([`super::Crowd::set_budget`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Budget {
    /// Seconds a step's work may spend, summed over the threads that run
    /// it (module docs: the crowd's work timed by the wall clock of each
    /// part): finite, in `(0, 10]`.
    pub seconds: f32,
    /// What an evaluated character costs.
    pub cost: CharacterCost,
}

/// What an evaluated character costs the allocator ([`Budget::cost`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum CharacterCost {
    /// The crowd's own steps, timed: the running mean of what they spent
    /// over the running mean of the characters they evaluated (module
    /// docs).
    Measured,
    /// The caller's figure, seconds per evaluated character: finite, in
    /// `(0, 1]`.
    Fixed(f32),
}

impl Budget {
    /// `seconds` of the crowd's work a step (summed over threads), the
    /// cost measured by the crowd.
    pub fn measured(seconds: f32) -> Budget {
        Budget {
            seconds,
            cost: CharacterCost::Measured,
        }
    }

    /// `seconds` of the crowd's work a step (summed over threads) at
    /// `per_character` seconds per evaluated character.
    pub fn fixed(seconds: f32, per_character: f32) -> Budget {
        Budget {
            seconds,
            cost: CharacterCost::Fixed(per_character),
        }
    }

    /// Refuses a budget out of `(0, 10]` seconds or a fixed cost out of
    /// `(0, 1]` ([`Error::Parameter`] with the range).
    pub(crate) fn check(&self) -> Result<()> {
        if !(self.seconds > 0.0 && self.seconds <= MAX_BUDGET) {
            return Err(Error::Parameter {
                name: "budget seconds",
                value: self.seconds,
                reason: "must be > 0 and <= 10 (seconds of work a step, summed over threads)",
            });
        }
        match self.cost {
            CharacterCost::Fixed(k) if !(k > 0.0 && k <= 1.0) => Err(Error::Parameter {
                name: "seconds per character",
                value: k,
                reason: "must be > 0 and <= 1",
            }),
            _ => Ok(()),
        }
    }
}

/// What the allocator chose for a step ([`super::FrameStats::budget`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BudgetChoice {
    /// Characters given each period of [`PERIODS`] (1, 2, 4, 8, 16).
    pub characters_at: [u32; 5],
    /// The seconds per evaluated character the choice was made with (0
    /// before anything was measured: the periods as they stood).
    pub seconds_per_character: f32,
    /// The seconds a step is expected to spend on average under the
    /// choice, summed over threads: `Σ k n / P` over the packs (0 before
    /// anything was measured).
    pub expected_seconds: f32,
    /// Whether the choice fits the budget (false: every pack at period
    /// 16 is still expected to spend more).
    pub fits: bool,
    /// The seconds this step's work spent, summed over its threads (the
    /// figure the next choices learn from under
    /// [`CharacterCost::Measured`]).
    pub measured_seconds: f32,
}

/// The allocator a crowd keeps: its budget, its cost, and the room to
/// order its packs.
#[derive(Debug, Default)]
pub(crate) struct Allocator {
    budget: Option<Budget>,
    /// Running means (each step weighing a quarter) of the seconds each
    /// timed step spent and of the characters it evaluated, steps that
    /// evaluated none included; `None` before the first timed step.
    measured: Option<(f64, f64)>,
    /// Each pack's order key: significance (descending), then pack.
    keys: Vec<u64>,
    /// The phases handed out, kept from step to step.
    phases: PhaseRuns,
    /// Each pack's chosen period (an index into [`PERIODS`]) this step,
    /// by pack, for the phases handed out in pack order.
    chosen: Vec<u8>,
    /// The last step's choice.
    choice: Option<BudgetChoice>,
    /// Nanoseconds this step's work has spent so far, on any thread.
    spent: AtomicU64,
}

impl Allocator {
    /// Sets the budget for `packs` packs (`None`: periods are the game's
    /// again, as the allocator left them), room for the packs' order
    /// reserved first ([`Error::Size`]); a refused budget changes nothing.
    pub(crate) fn set(&mut self, budget: Option<Budget>, packs: usize) -> Result<()> {
        if let Some(b) = &budget {
            b.check()?;
            let refused = |_| Error::Size {
                what: "budget allocator",
                reason: format!("room to order {packs} packs could not be reserved"),
            };
            let more = packs.saturating_sub(self.keys.len());
            self.keys.try_reserve_exact(more).map_err(refused)?;
            let more = packs.saturating_sub(self.chosen.len());
            self.chosen.try_reserve_exact(more).map_err(refused)?;
        }
        self.budget = budget;
        Ok(())
    }

    /// The budget, if one is set.
    pub(crate) fn budget(&self) -> Option<Budget> {
        self.budget
    }

    /// Whether the step's work is timed (a budget is set).
    pub(crate) fn timing(&self) -> Option<&AtomicU64> {
        self.budget.is_some().then_some(&self.spent)
    }

    /// Chooses every pack's period for the coming step of a crowd of
    /// `characters` (module docs), writing each pack's schedule; nothing
    /// without a budget.
    pub(crate) fn allocate(&mut self, schedules: &mut [Schedulex8], characters: usize) {
        let Some(budget) = self.budget else {
            self.choice = None;
            return;
        };
        self.spent.store(0, Ordering::Relaxed);
        let k = match budget.cost {
            CharacterCost::Fixed(k) => Some(k),
            CharacterCost::Measured => self.per_character(),
        };
        let Some(k) = k else {
            // Nothing measured yet: the periods stay as they are, and this
            // step's time is the first measurement.
            self.choice = Some(BudgetChoice {
                characters_at: periods_now(schedules, characters),
                fits: true,
                ..BudgetChoice::default()
            });
            return;
        };
        self.keys.clear();
        for (p, s) in schedules.iter().enumerate() {
            self.keys
                .push(order_key(s.significance(live_lanes(p, characters)), p));
        }
        self.keys.sort_unstable();
        let mut choice = BudgetChoice {
            seconds_per_character: k,
            fits: true,
            ..BudgetChoice::default()
        };
        let k = f64::from(k);
        let n_of = |p: usize| live_lanes(p, characters).count_ones();
        let cost = |n: u32, i: usize| k * f64::from(n) / f64::from(PERIODS[i]);
        let all_last: f64 = (0..schedules.len()).map(|p| cost(n_of(p), 4)).sum();
        let mut slack = f64::from(budget.seconds) - all_last;
        choice.fits = slack >= 0.0;
        let (mut expected, mut floor) = (0.0, 0);
        self.chosen.clear();
        self.chosen.resize(schedules.len(), 0);
        for key in &self.keys {
            let p = *key as u32 as usize;
            let n = n_of(p);
            let extra = |i: usize| cost(n, i) - cost(n, 4);
            // Period 16's extra is 0: it always fits a slack >= 0, and
            // takes what a negative slack leaves. No shorter period than a
            // more significant pack's (the last pack, with fewer
            // characters, might fit one).
            let mut shorter = CHOSEN.iter().copied().filter(|&i| i >= floor && i < 4);
            let i = shorter.find(|&i| extra(i) <= slack).unwrap_or(4);
            floor = i;
            slack -= extra(i);
            expected += cost(n, i);
            choice.characters_at[i] += n;
            self.chosen[p] = i as u8;
        }
        set_phases(schedules, &self.chosen, &mut self.phases);
        choice.expected_seconds = expected as f32;
        self.choice = Some(choice);
    }

    /// Adds `since`'s elapsed time to the step's spending (a serial part
    /// of the step, where a budget is set).
    pub(crate) fn add_since(&self, since: Option<Instant>) {
        if let Some(t) = since {
            add_elapsed(&self.spent, t);
        }
    }

    /// The step is done, having evaluated `evaluated` characters: its
    /// spending feeds the measured cost, and the choice is returned with
    /// it.
    pub(crate) fn finish(&mut self, evaluated: u32) -> Option<BudgetChoice> {
        let mut choice = self.choice.take()?;
        let seconds = self.spent.swap(0, Ordering::Relaxed) as f64 * 1e-9;
        choice.measured_seconds = seconds as f32;
        let now = (seconds, f64::from(evaluated));
        self.measured = Some(match self.measured {
            None => now,
            Some((s, e)) => (s + (now.0 - s) * 0.25, e + (now.1 - e) * 0.25),
        });
        Some(choice)
    }

    /// The measured seconds per evaluated character: the running mean of
    /// the steps' spending over that of their evaluated characters, within
    /// `[1e-12, 1]`; `None` before a step that evaluated anyone was timed.
    fn per_character(&self) -> Option<f32> {
        let (spent, evaluated) = self.measured?;
        (evaluated > 0.0).then(|| (spent / evaluated).clamp(1e-12, 1.0) as f32)
    }
}

/// Sets the significance of characters `first .. first + values.len()`
/// of a crowd of `characters` in their packs' schedules, after checking
/// them all (a refusal sets none): [`Error::Index`] for a range past the
/// crowd, [`Error::Character`] naming the first NaN (any other number,
/// infinities included, orders; -0.0 is taken as 0.0).
pub(crate) fn set_significance(
    schedules: &mut [Schedulex8],
    characters: usize,
    first: usize,
    values: &[f32],
) -> Result<()> {
    if first
        .checked_add(values.len())
        .is_none_or(|end| end > characters)
    {
        return Err(Error::Index {
            what: "character range end (set_significance)",
            index: first.saturating_add(values.len()),
            len: characters,
        });
    }
    if let Some(k) = values.iter().position(|v| v.is_nan()) {
        return Err(Error::Character {
            character: first + k,
            error: Box::new(Error::Parameter {
                name: "significance",
                value: f32::NAN,
                reason: "must be a number (not NaN)",
            }),
        });
    }
    for (k, v) in values.iter().enumerate() {
        let c = first + k;
        // -0.0 + 0.0 is +0.0: equal numbers order as a tie.
        schedules[c / 8].set_significance(c % 8, *v + 0.0);
    }
    Ok(())
}

/// Refuses a budget ([`Error::Parameter`]) for a crowd without level of
/// detail (`level_of_detail`), whose periods cannot change, or while
/// [`Command::SetPeriod`](super::Command::SetPeriod) commands are queued
/// (`periods_queued`): they would apply after the step's choice and
/// override it.
pub(crate) fn check_settable(
    budget: Option<Budget>,
    level_of_detail: bool,
    periods_queued: bool,
) -> Result<()> {
    let reason = match (budget, level_of_detail, periods_queued) {
        (None, ..) | (_, true, false) => return Ok(()),
        (_, false, _) => "a budget needs a crowd with level_of_detail (periods above 1)",
        (_, true, true) => {
            "SetPeriod commands are queued: step once so that they apply, then set the budget"
        }
    };
    Err(Error::Parameter {
        name: "budget seconds",
        value: budget.map_or(0.0, |b| b.seconds),
        reason,
    })
}

/// Refuses [`Command::SetPeriod`](super::Command::SetPeriod) while a
/// budget is set: the allocator chooses the periods
/// ([`Error::Parameter`]).
pub(crate) fn check_command(budget: Option<Budget>, cmd: &super::Command) -> Result<()> {
    match (budget, cmd) {
        (Some(_), super::Command::SetPeriod { period, .. }) => Err(Error::Parameter {
            name: "period",
            value: *period as f32,
            reason: "a budget is set: the allocator chooses periods (set_budget(None) first)",
        }),
        _ => Ok(()),
    }
}

/// Adds the time since `t` to `spent` (nanoseconds).
pub(crate) fn add_elapsed(spent: &AtomicU64, t: Instant) {
    let ns = u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX);
    spent.fetch_add(ns, Ordering::Relaxed);
}

/// Pack `p`'s place in the allocator's order: significance descending,
/// then the pack ascending, as one integer (the significance's bits made
/// to order as the numbers do, then flipped).
fn order_key(significance: f32, p: usize) -> u64 {
    let b = significance.to_bits();
    let ascending = match b >> 31 {
        1 => !b,
        _ => b | 0x8000_0000,
    };
    (u64::from(!ascending) << 32) | p as u64
}

/// Characters at each of [`PERIODS`] as the schedules stand (each live
/// lane its own period).
fn periods_now(schedules: &[Schedulex8], characters: usize) -> [u32; 5] {
    let mut at = [0u32; 5];
    for (p, s) in schedules.iter().enumerate() {
        let live = live_lanes(p, characters);
        for l in (0..8).filter(|&l| live & (1 << l) != 0) {
            let i = PERIODS.iter().position(|&q| q == s.get(l).0);
            at[i.unwrap_or(0)] += 1;
        }
    }
    at
}

/// Gives every pack `p` the period `PERIODS[chosen[p]]`: its phases kept
/// where every lane has that period already; else, in pack order, the
/// next phase of `phases` ([`PhaseRuns`]: runs of neighbouring changing
/// packs).
fn set_phases(schedules: &mut [Schedulex8], chosen: &[u8], phases: &mut PhaseRuns) {
    let keeps = |s: &Schedulex8, period: u32| (0..8).all(|l| s.get(l).0 == period);
    let mut changing = [0u32; 5];
    for (s, &i) in schedules.iter().zip(chosen) {
        let i = usize::from(i);
        changing[i] += u32::from(!keeps(s, PERIODS[i]));
    }
    phases.begin(changing);
    for (s, &i) in schedules.iter_mut().zip(chosen) {
        let period = PERIODS[usize::from(i)];
        if keeps(s, period) {
            continue;
        }
        // A period of PERIODS: always a phase.
        let phase = phases.phase(period).unwrap_or(0);
        for l in 0..8 {
            s.set(l, period, phase);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Successive steps' changes take successive phases: the counter is
    /// kept between calls, so one pack moved to period 16 in each of two
    /// steps lands on two phases, not one. Mutation: a counter made anew
    /// in each call of `set_phases` gives both phase 1.
    #[test]
    fn phases_move_on_from_step_to_step() {
        let mut schedules = vec![Schedulex8::every_step(); 4];
        let mut phases = PhaseRuns::default();
        let mut chosen = vec![0u8; 4];
        chosen[0] = 4;
        set_phases(&mut schedules, &chosen, &mut phases);
        chosen[1] = 4;
        set_phases(&mut schedules, &chosen, &mut phases);
        let (a, b) = (schedules[0].get(0), schedules[1].get(0));
        assert_eq!((a.0, b.0), (16, 16));
        assert_ne!(a.1, b.1, "both phase {}", a.1);
        assert_eq!(schedules[2].get(0), (1, 0));
    }

    /// `phase_run` takes a quarter of a phase's share, within 1 ..=
    /// PHASE_RUN, for any period (no overflow at the largest).
    #[test]
    fn phase_runs_are_a_quarter_of_a_share() {
        assert_eq!(phase_run(0, 16), 1);
        assert_eq!(phase_run(512, 16), 8);
        assert_eq!(phase_run(1 << 20, 4), PHASE_RUN);
        assert_eq!(phase_run(u32::MAX, u32::MAX), 1);
        assert_eq!(phase_run(u32::MAX, 0), PHASE_RUN);
    }

    #[test]
    fn order_keys_sort_by_significance_then_pack() {
        let mut keys = [
            order_key(1.0, 3),
            order_key(-2.0, 0),
            order_key(5.0, 1),
            order_key(1.0, 2),
            order_key(f32::NEG_INFINITY, 4),
            order_key(f32::INFINITY, 5),
            order_key(0.0, 6),
            order_key(-0.0, 7),
        ];
        keys.sort_unstable();
        let packs: Vec<u32> = keys.iter().map(|k| *k as u32).collect();
        // -0.0 orders below +0.0 (its bits do): a tie a game cannot mean.
        assert_eq!(packs, [5, 1, 2, 3, 6, 7, 0, 4]);
    }
}
