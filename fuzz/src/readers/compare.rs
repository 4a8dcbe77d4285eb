//! The comparisons of what an accepted read wrote: against the expected
//! matrices bit for bit, finite, and lanes against reference within the
//! tolerances the module derives.

use kineform::reference as r;

use super::Span;
use super::bind::Bind;
use super::expected::Expected;
use super::layouts::Read;

/// The first entry where `got` and `want` differ in bits, as (character,
/// joint, entry) of a layout of `per` floats.
fn first_diff(got: &[u32], want: &[u32], per: usize, nj: usize, start: usize) -> Option<String> {
    let i = got.iter().zip(want).position(|(a, b)| a != b)?;
    let (m, e) = (i / per, i % per);
    Some(format!(
        "character {}, joint {}, entry {e}: {:e} where {:e}",
        start + m / nj,
        m % nj,
        f32::from_bits(got[i]),
        f32::from_bits(want[i])
    ))
}

/// Whether every float is finite.
fn finite(b: &[u32]) -> bool {
    b.iter().all(|v| f32::from_bits(*v).is_finite())
}

/// What one reader wrote on each crowd (lanes, reference) as bits.
type Bits = (Vec<u32>, Vec<u32>);

impl Span<'_> {
    /// `got` is `want` bit for bit, in a layout of `per` floats.
    pub(super) fn same_bits(&self, what: &str, got: &[u32], want: &[u32], per: usize) {
        if let Some(d) = first_diff(got, want, per, self.nj, self.chars.start) {
            panic!("{what} over {:?}: {d}\n{}", self.chars, (self.ctx)());
        }
    }

    /// The length of the reference's world position of character `c`,
    /// joint `j`.
    fn reference_length(&self, c: usize, j: usize) -> f32 {
        r::length(self.crowds.1.world_kform(c, j).unwrap().pos)
    }

    /// Accepted transforms `t16` and `same` (the same floats in the other
    /// types): bit for bit the expected (lanes, reference), and finite
    /// where the crowd's world output is.
    pub(super) fn transforms_as_expected(
        &self,
        t16: &Bits,
        same: &[(&str, Read)],
        (el, er): (&Expected, &Expected),
    ) {
        // Bit for bit what the one-joint accessor gives (the pose shown).
        let at = |what: &str, got: &[u32], want: &[u32]| self.same_bits(what, got, want, 16);
        at(
            "lanes transforms vs kform_matrix(world_kform)",
            &t16.0,
            &el.t16,
        );
        at(
            "reference transforms vs kform_matrix(world_kform)",
            &t16.1,
            &er.t16,
        );
        for (name, other) in same {
            let (l, r) = other.as_ref().expect("accepted as [f32; 16] was");
            at(&format!("lanes transforms into {name}"), l, &el.t16);
            at(&format!("reference transforms into {name}"), r, &er.t16);
        }
        let chars = self.chars;
        assert!(
            !el.finite || finite(&t16.0),
            "lanes transforms over {chars:?} not finite\n{}",
            (self.ctx)()
        );
        assert!(
            !er.finite || finite(&t16.1),
            "reference transforms over {chars:?} not finite\n{}",
            (self.ctx)()
        );
    }

    /// Accepted skinning matrices `s16` and `s12`, and `same` (the same
    /// floats as `s16` in the other types): bit for bit the expected
    /// (lanes, reference), and finite where the crowd's world output is
    /// and, `bounded`, the inverse bind's entries are within 1e30.
    pub(super) fn skinning_as_expected(
        &self,
        (s16, s12): (&Bits, &Bits),
        same: &[(&str, Read)],
        (el, er): (&Expected, &Expected),
        bounded: bool,
    ) {
        let at = |what: &str, got: &[u32], want: &[u32], per| self.same_bits(what, got, want, per);
        at(
            "lanes skinning 4x4 vs skin_lanes(world_kform)",
            &s16.0,
            &el.s16,
            16,
        );
        at(
            "reference skinning 4x4 vs skin_matrix(world_kform)",
            &s16.1,
            &er.s16,
            16,
        );
        at(
            "lanes skinning 3x4 vs skin_lanes(world_kform)",
            &s12.0,
            &el.s12,
            12,
        );
        at(
            "reference skinning 3x4 vs skin_matrix(world_kform)",
            &s12.1,
            &er.s12,
            12,
        );
        for (name, other) in same {
            let (l, r) = other.as_ref().expect("accepted as [f32; 16] was");
            at(&format!("lanes skinning into {name}"), l, &el.s16, 16);
            at(&format!("reference skinning into {name}"), r, &er.s16, 16);
        }
        let chars = self.chars;
        assert!(
            !(el.finite && bounded && el.reach <= 1e30) || finite(&s12.0) && finite(&s16.0),
            "lanes skinning matrices over {chars:?} not finite\n{}",
            (self.ctx)()
        );
        assert!(
            !(er.finite && bounded && er.reach <= 1e30) || finite(&s12.1) && finite(&s16.1),
            "reference skinning matrices over {chars:?} not finite\n{}",
            (self.ctx)()
        );
    }

    /// Accepted transforms (lanes, reference): within the tolerances of
    /// each other, joint by joint.
    pub(super) fn transforms_agree(&self, t16: &Bits) {
        let nj = self.nj;
        for (k, w) in t16.0.chunks(16).zip(t16.1.chunks(16)).enumerate() {
            let c = self.chars.start + k / nj;
            let p = self.reference_length(c, k % nj);
            crowds_agree_transform(w, p, &|| {
                format!("character {c}, joint {}\n{}", k % nj, (self.ctx)())
            });
        }
    }

    /// Accepted 3x4 skinning matrices (lanes, reference) through `bind`:
    /// within the tolerances of each other, joint by joint.
    pub(super) fn skinning_agree(&self, s12: &Bits, bind: &Bind) {
        let nj = self.nj;
        for (k, s) in s12.0.chunks(12).zip(s12.1.chunks(12)).enumerate() {
            let (c, j) = (self.chars.start + k / nj, k % nj);
            let p = self.reference_length(c, j);
            crowds_agree_skin(s, &bind.rows[j], p, &|| {
                format!("character {c}, joint {j}\n{}", (self.ctx)())
            });
        }
    }
}

/// `4 sqrt(2e-5)`: a rotation matrix entry's tolerance (the module's
/// derivation).
fn rot_tolerance() -> f32 {
    4.0 * 2e-5f32.sqrt()
}

fn pos_tolerance(p: f32) -> f32 {
    2e-4 + 2e-6 * p
}

/// One joint's transforms (lanes, reference bits), the reference's
/// position of length `p`.
fn crowds_agree_transform((l, r): (&[u32], &[u32]), p: f32, at: &dyn Fn() -> String) {
    for e in 0..16 {
        let tol = match (e / 4, e % 4) {
            (3, 3) => 0.0,
            (3, _) => pos_tolerance(p),
            (_, 3) => 0.0,
            _ => rot_tolerance(),
        };
        let d = (f32::from_bits(l[e]) - f32::from_bits(r[e])).abs();
        assert!(
            d <= tol,
            "transform entry {e}: lanes and reference {d:e} apart, past {tol:e}: {}",
            at()
        );
    }
}

/// One joint's 3x4 skinning rows (lanes, reference bits) through the
/// inverse bind rows `b`.
fn crowds_agree_skin((l, r): (&[u32], &[u32]), b: &[f32; 12], p: f32, at: &dyn Fn() -> String) {
    for e in 0..12 {
        let col = e % 4;
        let spread: f32 = (0..3).map(|k| b[4 * k + col].abs()).sum();
        let t = if col == 3 { pos_tolerance(p) } else { 0.0 };
        let round = 1e-5 + 4.0 * f32::EPSILON * (spread + if col == 3 { p } else { 0.0 });
        let tol = rot_tolerance() * spread + t + round;
        let d = (f32::from_bits(l[e]) - f32::from_bits(r[e])).abs();
        assert!(
            d <= tol,
            "skinning row {}, column {col}: lanes and reference {d:e} apart, past {tol:e}: {}",
            e / 4,
            at()
        );
    }
}
