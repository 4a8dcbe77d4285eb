//! Forward kinematics down a skeleton's chains ([`crate::Skeleton::chains`])
//! over packs of any joint type ([`Jointx8`]): the 8-lane walk that
//! [`crate::batch::fk`] runs, with no reference counterpart of its own (per
//! character it is [`crate::reference::op_fk_joints`], and every mode gives
//! the bits of [`super::joint::op_fk_joints`]).
//!
//! How a chain is walked ([`FkMode`]) was measured (PERF.md, "FK at the
//! floor"): one pack with the parent kept in registers compiles, for
//! [`super::PosRotx8`], to a 59-instruction loop per joint with no spills,
//! but one pack alone is limited by the chain's latency; two packs side by
//! side need two parents (14 lane vectors for [`super::PosRotx8`]) plus
//! temporaries in AVX2's 16 registers and spill. Two packs whose parents
//! are read back from the output just written (a store-to-load forward, off
//! the arithmetic's critical path once two chains overlap) is the fastest
//! in cache for every type, so it is every type's [`Jointx8::FK`]. Beyond
//! a threshold read from this machine's caches
//! ([`crate::batch::fk::stream_above_for`]: on one thread twice the L2
//! where it is 1 MiB or more, else the L3) [`crate::batch::fk::walk_for`]
//! takes one pack at
//! a time instead ([`Jointx8::FK_STREAM`]): on the AVX-512 Zen of PERF.md
//! the pairs ran 1.1 to 1.8x slower than one pack from 14 MB.

use super::joint::Jointx8;
use crate::error::{Error, Result, exactly};
use crate::skeleton::Chain;

/// How forward kinematics carries a parent from one joint of a chain to
/// the next ([`fk_packs`]); every way gives the same bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Walk {
    /// The joint just computed stays in registers as the next one's parent;
    /// a parent is read from memory only where a chain starts.
    Registers,
    /// Every parent is read back from the output just written (the way of
    /// [`crate::lanes::op_fk`]), which the core forwards from its store
    /// buffer; leaves the registers to the arithmetic.
    Memory,
}

/// How [`fk_packs`] runs: the [`Walk`], and whether two packs go down their
/// chains side by side (two independent dependency chains for the core to
/// overlap) or one at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FkMode {
    /// How a parent is carried down a chain.
    pub walk: Walk,
    /// Two packs interleaved.
    pub pairs: bool,
}

/// Forward kinematics of consecutive packs: `global` and `local` hold
/// whole packs of `joints` joints each back to back (`joints` being
/// `chains`' last `end`), and every pack is walked chain by chain in the
/// given [`FkMode`] (each mode's kernel is compiled separately; the mode is
/// looked at once per call). Every mode gives the bits of
/// [`super::joint::op_fk_joints`] on each pack.
///
/// Refuses, writing nothing, `chains` that do not cut `0..joints` into
/// consecutive runs whose parents precede them ([`Error::Skeleton`]) and
/// slices that are not the same whole number of packs ([`Error::Length`]);
/// a [`crate::Skeleton`]'s chains always pass.
pub fn fk_packs<T: Jointx8>(
    global: &mut [T],
    local: &[T],
    chains: &[Chain],
    mode: FkMode,
) -> Result<()> {
    let joints = check_chains(chains)?;
    let whole = |what, got: usize| {
        if got.is_multiple_of(joints.max(1)) {
            Ok(())
        } else {
            Err(Error::Length {
                what,
                expected: got.next_multiple_of(joints.max(1)),
                got,
            })
        }
    };
    whole("global (whole packs of the chains' joints)", global.len())?;
    exactly("local (global's length)", global.len(), local.len())?;
    fk_packs_unchecked(global, local, chains, mode);
    Ok(())
}

/// Number of joints `chains` cover, unless they do not cut `0..joints`
/// into consecutive runs whose parents come before them
/// ([`Error::Skeleton`] naming the first chain's first joint).
fn check_chains(chains: &[Chain]) -> Result<usize> {
    let mut next = 0;
    for c in chains {
        if !(c.start == next && c.end > c.start && c.parent >= -1 && c.parent < c.start as i32) {
            return Err(Error::Skeleton {
                joint: c.start,
                reason: format!("chain {c:?} does not follow joint {next} or has a bad parent"),
            });
        }
        next = c.end;
    }
    Ok(next)
}

/// [`fk_packs`] without the checks, for callers holding a validated
/// [`crate::Skeleton`] (a bad index still panics: memory safe).
#[inline]
pub(crate) fn fk_packs_unchecked<T: Jointx8>(
    global: &mut [T],
    local: &[T],
    chains: &[Chain],
    mode: FkMode,
) {
    match (mode.walk, mode.pairs) {
        (Walk::Registers, false) => walk::<T, true, false>(global, local, chains),
        (Walk::Registers, true) => walk::<T, true, true>(global, local, chains),
        (Walk::Memory, false) => walk::<T, false, false>(global, local, chains),
        (Walk::Memory, true) => walk::<T, false, true>(global, local, chains),
    }
}

/// The packs of `global`/`local`, two at a time when `PAIRS` (an odd last
/// pack alone).
#[inline(never)]
fn walk<T: Jointx8, const REGS: bool, const PAIRS: bool>(
    global: &mut [T],
    local: &[T],
    chains: &[Chain],
) {
    let joints = chains.last().map_or(0, |c| c.end);
    if joints == 0 {
        return;
    }
    let mut g = global.chunks_exact_mut(joints);
    let mut l = local.chunks_exact(joints);
    if PAIRS {
        while g.len() >= 2 {
            let (g0, g1, l0, l1) = (g.next(), g.next(), l.next(), l.next());
            if let (Some(g0), Some(g1), Some(l0), Some(l1)) = (g0, g1, l0, l1) {
                for c in chains {
                    chain2::<T, REGS>([g0, g1], [l0, l1], c);
                }
            }
        }
    }
    for (g, l) in g.zip(l) {
        for c in chains {
            chain1::<T, REGS>(g, l, c);
        }
    }
}

/// One chain of one pack.
#[inline(always)]
fn chain1<T: Jointx8, const REGS: bool>(global: &mut [T], local: &[T], c: &Chain) {
    let (done, rest) = global.split_at_mut(c.start);
    let out = &mut rest[..c.end - c.start];
    let loc = &local[c.start..c.end];
    match usize::try_from(c.parent) {
        Ok(p) => T::mul_into(&mut out[0], &done[p], &loc[0]),
        Err(_) => T::copy(&mut out[0], &loc[0]),
    }
    if REGS {
        let mut g = out[0];
        for (o, l) in out[1..].iter_mut().zip(&loc[1..]) {
            g = T::mul(&g, l);
            *o = g;
        }
    } else {
        for k in 1..out.len() {
            let (prev, cur) = out.split_at_mut(k);
            T::mul_into(&mut cur[0], &prev[k - 1], &loc[k]);
        }
    }
}

/// One chain of two packs, joint by joint side by side.
#[inline(always)]
fn chain2<T: Jointx8, const REGS: bool>(global: [&mut [T]; 2], local: [&[T]; 2], c: &Chain) {
    let [ga, gb] = global;
    let [la, lb] = local;
    let (da, ra) = ga.split_at_mut(c.start);
    let (db, rb) = gb.split_at_mut(c.start);
    let n = c.end - c.start;
    let (oa, ob) = (&mut ra[..n], &mut rb[..n]);
    let (la, lb) = (&la[c.start..c.end], &lb[c.start..c.end]);
    match usize::try_from(c.parent) {
        Ok(p) => {
            T::mul_into(&mut oa[0], &da[p], &la[0]);
            T::mul_into(&mut ob[0], &db[p], &lb[0]);
        }
        Err(_) => {
            T::copy(&mut oa[0], &la[0]);
            T::copy(&mut ob[0], &lb[0]);
        }
    }
    if REGS {
        let (mut a, mut b) = (oa[0], ob[0]);
        let outs = oa[1..].iter_mut().zip(ob[1..].iter_mut());
        for ((oa, ob), (la, lb)) in outs.zip(la[1..].iter().zip(&lb[1..])) {
            a = T::mul(&a, la);
            b = T::mul(&b, lb);
            *oa = a;
            *ob = b;
        }
    } else {
        for k in 1..n {
            let (pa, ca) = oa.split_at_mut(k);
            let (pb, cb) = ob.split_at_mut(k);
            T::mul_into(&mut ca[0], &pa[k - 1], &la[k]);
            T::mul_into(&mut cb[0], &pb[k - 1], &lb[k]);
        }
    }
}
