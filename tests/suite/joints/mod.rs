//! Joints that hold only what a caller uses (`PosRot`, `PosRotScl`,
//! `Motion`, and `Kform` itself), in both paths:
//!
//! - the reference's `mul`, `div` and `inv` of each type are the article's
//!   `kform_mul`, `kform_div` and `kform_inv` on the fields it holds, to the
//!   bit (compared with `==`, so NaN fails and only the sign of a zero may
//!   differ), and so are `op_fk_joints` / `op_bk_joints` against `op_fk` /
//!   `op_bk` on whole poses;
//! - the lanes against the reference, each lane a different character;
//! - forward kinematics over packs (`lanes::fk_packs`) gives the same bits
//!   in every mode (parents in registers or read back, one pack or two
//!   interleaved) as the plain per-joint loop, and matches the reference;
//! - the batch entry points over `PoseStream`s: partial packs, 1, 2 and 3
//!   threads to the bit, refusals that write nothing, sizes refused before
//!   anything is allocated;
//! - the velocities `Motion` FK propagates against central differences of
//!   FK positions and rotations at three step sizes, the gap shrinking.
//!
//! Tolerances (|a - b| <= abs + rel * scale, as in `tests/suite/equivalence.rs`):
//! `ARITH` (rel 2e-6) for one `mul`, `div` or `inv`: the lanes fuse
//! multiply-adds and sum the parent's terms last, a few ULP of the largest
//! intermediate (floors from `kform_mul_floors`, or eight times the inputs'
//! magnitude for the division); `CHAIN` (1e-5 + 2e-5 of the pose's largest
//! magnitude) for FK and BK down hierarchies of up to 40 joints, where
//! those differences accumulate.

#![allow(clippy::needless_range_loop)] // tests index several parallel arrays

use crate::common;
use common::*;

use kineform::lanes::{self, FkMode, Jointx8, Kformx8, Motionx8, PosRotSclx8, PosRotx8, Walk};
use kineform::pose_stream::PoseStream;
use kineform::reference::{self as r, Joint, Kform, Motion, PosRot, PosRotScl, Pose};
use kineform::{Error, Skeleton, batch};
use proptest::prelude::*;

const ARITH: Tol = Tol::new(0.0, 2e-6);
const CHAIN: Tol = Tol::new(1e-5, 2e-5);

const MODES: [FkMode; 4] = [
    FkMode {
        walk: Walk::Registers,
        pairs: false,
    },
    FkMode {
        walk: Walk::Registers,
        pairs: true,
    },
    FkMode {
        walk: Walk::Memory,
        pairs: false,
    },
    FkMode {
        walk: Walk::Memory,
        pairs: true,
    },
];

fn pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
}

/// `got == want` field by field with `==`: NaN fails, `-0 == 0` passes.
fn same<J: Joint>(got: J, want: J, what: &str) -> Result<(), TestCaseError> {
    let (g, w) = (got.to_kform().parts(), want.to_kform().parts());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        prop_assert!(
            a == b,
            "{what}: component {i}: {a:e} vs {b:e}\n {got:?}\n {want:?}"
        );
    }
    Ok(())
}

/// The float bits of every lane value, for bit-for-bit comparisons.
fn bits<T: Jointx8>(v: &[T]) -> Vec<u32> {
    v.iter()
        .flat_map(|t| t.to_array())
        .flat_map(|e| e.to_kform().parts())
        .map(f32::to_bits)
        .collect()
}

mod fk;
mod operators;
mod streams;
mod velocities;
mod walk;
