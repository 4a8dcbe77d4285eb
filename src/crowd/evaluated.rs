//! Reading only what the last step evaluated: with level of detail a
//! carried character's pose is made when it is read (its anchor carried
//! along its velocities, its offset applied), which costs a reader about
//! what the step saved by not evaluating it (README, "Level of detail").
//! A game that shows its distant characters on their own periods reads
//! their matrices only when they were evaluated, in one call over the
//! whole crowd.

use core::ops::Range;

use super::Crowd;
use crate::error::Result;
use crate::skinning::{InverseBind, SkinMatrix};

impl Crowd {
    /// [`Crowd::skinning_matrices_into`] for the characters of `chars`
    /// the last step evaluated (those whose [`Crowd::since_evaluated`]
    /// it set to 0; every character without level of detail), in the
    /// same places of `out`; the other characters' matrices are left as
    /// they are, the last ones the game read. Refused, with nothing
    /// written, as [`Crowd::skinning_matrices_into`] is. The packs run in
    /// parallel, with no fetch ahead: fetching the next pack with an
    /// evaluated character measured the same (100,000 characters, a
    /// 10/30/60% mix of periods 1/2/4: PERF.md, "On a Zen 4"). A
    /// character evaluated after being carried shows, at that step, the
    /// pose it was carried to (its offset is the whole gap), so its
    /// matrices cost what a carried one's do; the others', a plain
    /// readout's.
    ///
    /// ```
    /// # use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig};
    /// use kineform::reference::Kform;
    /// use kineform::skinning::InverseBind;
    /// # let library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
    /// let cfg = CrowdConfig { characters: 16, level_of_detail: true, ..Default::default() };
    /// let mut crowd = Crowd::new(&library, cfg)?;
    /// for c in 8..16 {
    ///     crowd.set_period(c, 4, 3)?; // far away: every 4th step
    /// }
    /// let joints = crowd.skeleton().len();
    /// let bind = InverseBind::from_bind_pose(crowd.skeleton(), &vec![Kform::IDENTITY; joints])?;
    /// let mut skin = vec![[0.0f32; 12]; 16 * joints]; // the game's, kept across frames
    /// crowd.step(1.0 / 60.0)?; // the first step evaluates everyone
    /// crowd.step(1.0 / 60.0)?; // the second pack is carried
    /// skin.fill([7.0; 12]);
    /// crowd.skinning_matrices_evaluated_into(0..16, &bind, &mut skin)?;
    /// assert_ne!(skin[3 * joints], [7.0; 12]); // evaluated: written
    /// assert_eq!(skin[12 * joints], [7.0; 12]); // carried: left
    /// # Ok::<(), kineform::Error>(())
    /// ```
    pub fn skinning_matrices_evaluated_into<M: SkinMatrix>(
        &self,
        chars: Range<usize>,
        inverse_bind: &InverseBind,
        out: &mut [M],
    ) -> Result<()> {
        let schedule = &self.packs.schedule;
        self.skin_out(chars, inverse_bind, out, false, |p| schedule[p].evaluated())
    }
}
