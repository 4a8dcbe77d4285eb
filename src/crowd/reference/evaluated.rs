//! Reading only what the last step evaluated, one character at a time
//! (the lanes crowd's `crowd::evaluated`).

use core::ops::Range;

use super::{ReferenceCrowd, check_joint_readout, joints_of};
use crate::error::Result;
use crate::skinning::{self, InverseBind, SkinMatrix};

impl ReferenceCrowd {
    /// The skinning matrices of the characters of `chars` the last step
    /// evaluated, the others' left as they are in `out`
    /// ([`crate::crowd::Crowd::skinning_matrices_evaluated_into`]).
    pub fn skinning_matrices_evaluated_into<M: SkinMatrix>(
        &self,
        chars: Range<usize>,
        inverse_bind: &InverseBind,
        out: &mut [M],
    ) -> Result<()> {
        let nj = self.skeleton.len();
        skinning::check_joints(nj, inverse_bind)?;
        check_joint_readout(&chars, self.cfg.characters, nj, out.len())?;
        let ib = inverse_bind.as_rows();
        for (o, (c, j)) in out.iter_mut().zip(joints_of(chars, nj)) {
            if self.schedules[c / 8].carried & (1 << (c % 8)) == 0 {
                *o = self.skin_matrix(c, j, ib);
            }
        }
        Ok(())
    }
}
