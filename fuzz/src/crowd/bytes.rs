//! [`Bytes`]: the `crowd_api` check's choices read from the fuzzer's
//! bytes (values in a range, special values or raw bits; characters,
//! sources, layers and roots in range or past it). The matrix readers
//! (`src/readers/`) and the `matcher_api` check (`src/matcher/`) read
//! theirs through it too.

use kineform::crowd::{ClipEnd, Root, Source, Which};
use kineform::reference::{self as r, Quat, Vec3};

use super::super::api::SPECIALS;

/// Reads choices from the fuzzer's bytes; past the end everything is zero.
pub(crate) struct Bytes<'a>(pub(crate) &'a [u8]);

impl Bytes<'_> {
    pub(crate) fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    pub(crate) fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    pub(crate) fn u64(&mut self) -> u64 {
        u64::from_le_bytes(core::array::from_fn(|_| self.u8()))
    }
    /// Any f32 bit pattern (four bytes, little-endian).
    pub(crate) fn raw(&mut self) -> f32 {
        f32::from_bits(u32::from_le_bytes([
            self.u8(),
            self.u8(),
            self.u8(),
            self.u8(),
        ]))
    }
    /// Mostly a value in `[lo, hi]`; else one of [`SPECIALS`] (negated
    /// half the time) or any bit pattern.
    pub(super) fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        let sel = self.u8();
        if sel < 150 {
            lo + (hi - lo) * (self.u16() as f32 / 65535.0)
        } else if sel < 235 {
            let s = SPECIALS[sel as usize % SPECIALS.len()];
            if sel & 1 == 1 { -s } else { s }
        } else {
            self.raw()
        }
    }
    pub(super) fn vec3(&mut self, r: f32) -> Vec3 {
        Vec3::new(self.f32(-r, r), self.f32(-r, r), self.f32(-r, r))
    }
    /// A character: mostly in range or just past it, sometimes far past.
    pub(super) fn character(&mut self, n: usize) -> usize {
        match self.u8() {
            0..=239 => self.u8() as usize % (n + 2),
            240..=247 => usize::MAX,
            248..=251 => n.wrapping_add(1 << 32),
            _ => u32::MAX as usize + 1,
        }
    }
    pub(super) fn source(&mut self, clips: usize) -> Source {
        let clip = match self.u8() {
            0..=249 => self.u8() as usize % (clips + 1),
            _ => usize::MAX,
        };
        Source {
            clip,
            time: self.f32(-10.0, 10.0),
            rate: self.f32(-2.0, 2.0),
            end: self.end(),
        }
    }
    pub(super) fn end(&mut self) -> ClipEnd {
        [ClipEnd::Loop, ClipEnd::Hold, ClipEnd::Event][self.u8() as usize % 3]
    }
    pub(super) fn which(&mut self) -> Which {
        match self.u8() % 4 {
            0 | 1 => Which::A,
            2 => Which::B,
            _ => Which::Layer(self.u8() as usize % 4),
        }
    }
    /// A layer index: mostly one of a crowd's two, sometimes past them.
    pub(super) fn layer(&mut self) -> usize {
        match self.u8() {
            0..=219 => self.u8() as usize % 3,
            _ => usize::MAX,
        }
    }
    /// A root: a yaw about +y (a unit rotation) or four chosen components.
    pub(super) fn root(&mut self) -> Root {
        let pos = self.vec3(50.0);
        let rot = if self.u8() < 200 {
            r::quat_from_angle_axis(self.f32(-3.0, 3.0), Vec3::new(0.0, 1.0, 0.0))
        } else {
            Quat::new(
                self.f32(-1.0, 1.0),
                self.f32(-1.0, 1.0),
                self.f32(-1.0, 1.0),
                self.f32(-1.0, 1.0),
            )
        };
        Root {
            pos,
            rot,
            vel: self.vec3(30.0),
            ang: self.vec3(2.0),
        }
    }
}
