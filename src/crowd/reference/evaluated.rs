//! Reading only what the last step evaluated, one character at a time
//! (the lanes crowd's `crowd::evaluated`).

use core::ops::Range;

use super::ReferenceCrowd;
use crate::error::Result;
use crate::skinning::{InverseBind, SkinMatrix};

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
        let schedule = &self.schedules;
        self.skin_where(chars, inverse_bind, out, |c| {
            schedule[c / 8].evaluated() & (1 << (c % 8)) != 0
        })
    }
}
