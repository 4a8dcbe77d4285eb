//! The commands a crowd was given since its last step ([`Queue`]), checked
//! when given, in the order given, and taken sorted by character at the
//! step.

use super::Command;
use crate::crowd::CrowdConfig;
use crate::crowd::library::ClipLibrary;
use crate::crowd::state::check_recentered_root;
use crate::error::{Error, Result};

/// Commands given since the last step, in the order given; `keys` is room
/// for one `(character, index)` per command, reserved with them, which
/// [`Queue::drain_sorted`] and [`Queue::recenter`] sort in place (a
/// step's work allocates nothing that grows with the commands given:
/// issue 21).
#[derive(Clone, Debug, Default)]
pub(crate) struct Queue {
    items: Vec<(u32, Command)>,
    keys: Vec<(u32, u32)>,
}

impl Queue {
    /// Checks a command for `character` of a crowd of `cfg`.
    pub(crate) fn check(
        cfg: &CrowdConfig,
        library: &ClipLibrary,
        character: usize,
        cmd: &Command,
    ) -> Result<()> {
        if character >= cfg.characters {
            return Err(Error::Index {
                what: "character",
                index: character,
                len: cfg.characters,
            });
        }
        cmd.validate_in(library, cfg)
    }

    /// Makes room for `n` more commands (and their sorting keys), or
    /// refuses with nothing queued. A queue holds at most `u32::MAX`
    /// commands.
    pub(crate) fn reserve(&mut self, n: usize) -> Result<()> {
        let len = self.items.len();
        let refused = || Error::Size {
            what: "command queue",
            reason: format!("room for {n} more commands (after {len}) could not be reserved"),
        };
        let total = len
            .checked_add(n)
            .filter(|&t| t <= u32::MAX as usize)
            .ok_or_else(refused)?;
        self.items.try_reserve(n).map_err(|_| refused())?;
        self.keys
            .try_reserve(total.saturating_sub(self.keys.len()))
            .map_err(|_| refused())
    }

    /// Makes room in `into` for every queued command, for
    /// [`Queue::drain_sorted`], or refuses with nothing changed.
    pub(crate) fn reserve_drain(&self, into: &mut Vec<(u32, Command)>) -> Result<()> {
        let n = self.items.len();
        into.try_reserve(n.saturating_sub(into.len()))
            .map_err(|_| Error::Size {
                what: "the step's commands",
                reason: format!("room for {n} commands could not be reserved"),
            })
    }

    /// Whether a [`Command::SetRoot`] is queued for `character`.
    pub(crate) fn sets_root(&self, character: usize) -> bool {
        self.items
            .iter()
            .any(|(c, cmd)| *c as usize == character && matches!(cmd, Command::SetRoot(_)))
    }

    /// Every queued root moved by `-origin`, after checking that the one a
    /// step would apply (each character's last) stays within
    /// ±[`crate::limits::MAX_POSITION`] (nothing moved otherwise): the
    /// 8-lane crowd keeps only the last root given, and both crowds judge
    /// the same roots (found by the `clips_from_values` fuzz target).
    pub(crate) fn recenter(&mut self, origin: crate::reference::Vec3) -> Result<()> {
        // The keys' room is reserved with the commands: no allocation.
        let last = &mut self.keys;
        last.clear();
        last.extend(
            (self.items.iter().enumerate())
                .filter(|(_, (_, cmd))| matches!(cmd, Command::SetRoot(_)))
                .map(|(i, (c, _))| (*c, i as u32)),
        );
        last.sort_unstable();
        for (k, &(c, i)) in last.iter().enumerate() {
            let later = last.get(k + 1).is_some_and(|&(next, _)| next == c);
            if let (false, Command::SetRoot(r)) = (later, &self.items[i as usize].1) {
                check_recentered_root(c as usize, r, origin)?;
            }
        }
        for (_, cmd) in &mut self.items {
            if let Command::SetRoot(r) = cmd {
                r.pos -= origin;
            }
        }
        Ok(())
    }

    /// Queues `cmd` for `character` after checking both; nothing is queued
    /// when either is refused.
    pub(crate) fn push(
        &mut self,
        cfg: &CrowdConfig,
        library: &ClipLibrary,
        character: usize,
        cmd: Command,
    ) -> Result<()> {
        Queue::check(cfg, library, character, &cmd)?;
        self.reserve(1)?;
        self.items.push((character as u32, cmd));
        Ok(())
    }

    /// The queued commands sorted by character, each character's in the
    /// order given, into `into` (cleared first), leaving the queue empty
    /// with its memory kept. Sorts `(character, index)` keys in place
    /// (`sort_unstable` allocates nothing; a stable sort would allocate
    /// half the queue), and allocates nothing when `into` has room for
    /// every command ([`Queue::reserve_drain`]).
    pub(crate) fn drain_sorted(&mut self, into: &mut Vec<(u32, Command)>) {
        into.clear();
        let keys = &mut self.keys;
        keys.clear();
        keys.extend(
            self.items
                .iter()
                .enumerate()
                .map(|(i, (c, _))| (*c, i as u32)),
        );
        keys.sort_unstable();
        into.extend(keys.iter().map(|&(_, i)| self.items[i as usize]));
        keys.clear();
        self.items.clear();
    }

    /// Number of queued transitions: at least the number of characters
    /// that start one in the next step.
    pub(crate) fn transitions(&self) -> usize {
        self.items
            .iter()
            .filter(|(_, cmd)| matches!(cmd, Command::Transition { .. }))
            .count()
    }

    /// Number of queued commands.
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether a [`Command::SetPeriod`] is queued.
    pub(crate) fn has_period(&self) -> bool {
        let period = |(_, cmd): &(u32, Command)| matches!(cmd, Command::SetPeriod { .. });
        self.items.iter().any(period)
    }
}
