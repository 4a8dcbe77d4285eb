//! What a driver needs of a crowd ([`Driven`]), and both crowds'
//! implementations of it.

use super::Command;
use crate::crowd::library::ClipLibrary;
use crate::crowd::{Crowd, Layer, ReferenceCrowd, Root, RootDelta, RootMotion};
use crate::error::Result;
use core::ops::Range;

/// What a driver needs of a crowd (the demo's `Wander` with the
/// `wander` feature, or a game's own): both crowds are driven the same way.
pub trait Driven {
    /// Number of characters.
    fn characters(&self) -> usize;
    /// The clips.
    fn library(&self) -> &ClipLibrary;
    /// Queues a command.
    fn command(&mut self, c: usize, cmd: Command) -> Result<()>;
    /// The crowd's layers ([`crate::crowd::CrowdConfig::layers`]; none unless a
    /// crowd says so).
    fn layers(&self) -> &[Layer] {
        &[]
    }
    /// Number of the crowd's blend profiles.
    fn blend_profiles(&self) -> usize {
        0
    }
    /// The root motion character `c`'s clips made last step where the
    /// crowd extracts it ([`Crowd::root_motion`]), else `None`.
    fn root_motion(&self, _c: usize) -> Option<RootDelta> {
        None
    }
    /// The root motion of characters `chars` into `out`, one per
    /// character ([`Crowd::root_motions_into`]; zero where
    /// [`Driven::root_motion`] is `None`). Refuses, writing nothing, a
    /// range reversed or past the crowd and an `out` of another length;
    /// by default one [`Driven::root_motion`] a character.
    fn root_motions_into(&self, chars: Range<usize>, out: &mut [RootDelta]) -> Result<()> {
        crate::crowd::output::check_root_motions(&chars, self.characters(), out.len())?;
        for (o, c) in out.iter_mut().zip(chars) {
            *o = self.root_motion(c).unwrap_or_default();
        }
        Ok(())
    }
    /// Joint `j` of character `c` in world space after the last step
    /// (crowd joints: 0 the root, [`Crowd::world_kform`]), where
    /// the crowd gives it, else `None`.
    fn world_kform(&self, _c: usize, _j: usize) -> Option<crate::reference::Kform> {
        None
    }
    /// Roots for characters `first..` from the next step on
    /// ([`Crowd::set_roots`]); by default one
    /// [`Command::SetRoot`] each.
    fn set_roots(&mut self, first: usize, roots: &[Root]) -> Result<()> {
        for (c, root) in (first..).zip(roots) {
            self.command(c, Command::SetRoot(*root))?;
        }
        Ok(())
    }
}

impl Driven for Crowd {
    fn characters(&self) -> usize {
        Crowd::characters(self)
    }
    fn library(&self) -> &ClipLibrary {
        Crowd::library(self)
    }
    fn command(&mut self, c: usize, cmd: Command) -> Result<()> {
        Crowd::command(self, c, cmd)
    }
    fn layers(&self) -> &[Layer] {
        &Crowd::config(self).layers
    }
    fn blend_profiles(&self) -> usize {
        Crowd::config(self).blend_profiles.len()
    }
    fn root_motion(&self, c: usize) -> Option<RootDelta> {
        match Crowd::config(self).root_motion {
            RootMotion::Extract => Crowd::root_motion(self, c),
            RootMotion::Apply => None,
        }
    }
    fn root_motions_into(&self, chars: Range<usize>, out: &mut [RootDelta]) -> Result<()> {
        Crowd::root_motions_into(self, chars, out)
    }
    fn world_kform(&self, c: usize, j: usize) -> Option<crate::reference::Kform> {
        Crowd::world_kform(self, c, j)
    }
    fn set_roots(&mut self, first: usize, roots: &[Root]) -> Result<()> {
        Crowd::set_roots(self, first, roots)
    }
}

impl Driven for ReferenceCrowd {
    fn characters(&self) -> usize {
        ReferenceCrowd::characters(self)
    }
    fn library(&self) -> &ClipLibrary {
        ReferenceCrowd::library(self)
    }
    fn command(&mut self, c: usize, cmd: Command) -> Result<()> {
        ReferenceCrowd::command(self, c, cmd)
    }
    fn layers(&self) -> &[Layer] {
        &ReferenceCrowd::config(self).layers
    }
    fn blend_profiles(&self) -> usize {
        ReferenceCrowd::config(self).blend_profiles.len()
    }
    fn root_motion(&self, c: usize) -> Option<RootDelta> {
        match ReferenceCrowd::config(self).root_motion {
            RootMotion::Extract => ReferenceCrowd::root_motion(self, c),
            RootMotion::Apply => None,
        }
    }
    fn root_motions_into(&self, chars: Range<usize>, out: &mut [RootDelta]) -> Result<()> {
        ReferenceCrowd::root_motions_into(self, chars, out)
    }
    fn world_kform(&self, c: usize, j: usize) -> Option<crate::reference::Kform> {
        ReferenceCrowd::world_kform(self, c, j)
    }
    fn set_roots(&mut self, first: usize, roots: &[Root]) -> Result<()> {
        ReferenceCrowd::set_roots(self, first, roots)
    }
}
