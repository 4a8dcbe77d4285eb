//! What level of detail did to each character, step by step, counted for
//! the smoke test (`Counts`): which characters a step resumed (evaluated
//! after being carried), at which period, whether the offset of their
//! previous resumption still ran then, which changed period while carried,
//! and which packs mixed evaluated and carried characters. No promise is
//! checked here ([`super::evaluated`] checks `since_evaluated`; the step's
//! check compares the periods and the characters evaluated): this only
//! shows that the fuzzed bytes reach those states.
//!
//! Whether an offset still runs is the crowd's internal state; it is
//! followed here from what the API shows (`since_evaluated`, `period`)
//! as `kineform::crowd::schedule` keeps it: a resumption at period `n`
//! after a step of `dt` starts an offset over `LOD_BLEND` at period 1,
//! else `min(LOD_BLEND, n max(0.85 dt, 14 ms))`, which runs while the
//! seconds since it started are below that.

use kineform::crowd::{Crowd, LOD_BLEND};

use super::count;

/// Each character's offset clock (seconds since its last resumption's
/// offset started, and that offset's blend) and period, as the last
/// accepted step left them.
pub struct Carry {
    since_offset: Vec<f32>,
    blend: Vec<f32>,
    period: Vec<u32>,
}

/// The blend of an offset started at period `period` after a step of
/// `dt` (`schedule::offset_blend`).
fn offset_blend(period: u32, dt: f32) -> f32 {
    let step = (dt * 0.85).max(0.014);
    match period <= 1 {
        true => LOD_BLEND,
        false => (period as f32 * step).min(LOD_BLEND),
    }
}

/// The index of `period` among 1, 2, 4, 8 and 16.
fn bucket(period: u32) -> usize {
    (period.max(1).trailing_zeros() as usize).min(4)
}

impl Carry {
    /// A new crowd's: every character at period 1, no offset.
    pub fn new(lanes: &Crowd) -> Carry {
        let n = lanes.characters();
        Carry {
            since_offset: vec![LOD_BLEND; n],
            blend: vec![LOD_BLEND; n],
            period: vec![1; n],
        }
    }

    /// After an accepted step of `dt`, from each character's
    /// `since_evaluated` bits before it (`since_bits`): counted.
    pub fn stepped(&mut self, lanes: &Crowd, before: &[u32], dt: f32) {
        let n = lanes.characters();
        let (mut resumed, mut running, mut changed, mut mixed) = (0, 0, 0, 0);
        let mut at = [0; 5];
        let mut fresh = vec![false; n];
        for c in 0..n {
            let was = f32::from_bits(before[c]);
            let now = lanes.since_evaluated(c).expect("a character");
            let period = lanes.period(c).expect("a character").0;
            fresh[c] = now == 0.0;
            let t = self.since_offset[c] + dt;
            if was > 0.0 && now == 0.0 {
                resumed += 1;
                running += usize::from(t < self.blend[c]);
                at[bucket(period)] += 1;
                self.since_offset[c] = 0.0;
                self.blend[c] = offset_blend(period, dt);
            } else {
                self.since_offset[c] = t.min(self.blend[c]);
            }
            changed += usize::from(was > 0.0 && period != self.period[c]);
            self.period[c] = period;
        }
        if lanes.config().level_of_detail {
            for pack in fresh.chunks(8) {
                mixed += usize::from(pack.contains(&true) && pack.contains(&false));
            }
        }
        count(|k| {
            k.resumed += resumed;
            k.resumed_running += running;
            k.changed += changed;
            k.mixed += mixed;
            for (s, a) in k.resumed_at.iter_mut().zip(at) {
                *s += a;
            }
        });
    }
}
