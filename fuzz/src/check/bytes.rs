//! [`Bytes`]: the lane kernels' inputs read from the fuzzer's bytes (any
//! bit pattern, or values in a range with 0 and both ends reachable;
//! vectors, rotations and transforms of them).

use kineform::reference::{self as r, Kform, Quat, Vec3};

/// Reads inputs from the fuzzer's bytes; past the end everything is zero.
pub(super) struct Bytes<'a>(pub(super) &'a [u8]);

impl Bytes<'_> {
    pub(super) fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    /// Any f32 bit pattern: NaN, infinities, subnormals included.
    pub(super) fn raw(&mut self) -> f32 {
        f32::from_bits(u32::from_le_bytes([
            self.u8(),
            self.u8(),
            self.u8(),
            self.u8(),
        ]))
    }
    /// A value in [lo, hi] (16 bits of resolution), with 0 and both ends
    /// reachable exactly.
    pub(super) fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let b = u16::from_le_bytes([self.u8(), self.u8()]);
        match b {
            0 => 0.0f32.clamp(lo, hi),
            1 => lo,
            2 => hi,
            _ => lo + (hi - lo) * (b as f32 / 65535.0),
        }
    }
    pub(super) fn vec3(&mut self, r: f32) -> Vec3 {
        Vec3::new(self.range(-r, r), self.range(-r, r), self.range(-r, r))
    }
    pub(super) fn quat(&mut self) -> Quat {
        let q = r::quat_from_scaled_angle_axis(self.vec3(6.0));
        if self.u8() & 1 == 1 { -q } else { q }
    }
    pub(super) fn kform(&mut self, r: f32) -> Kform {
        Kform {
            pos: self.vec3(r),
            rot: self.quat(),
            scl: Vec3::new(
                self.range(0.5, 2.0),
                self.range(0.5, 2.0),
                self.range(0.5, 2.0),
            ),
            vel: self.vec3(r),
            ang: self.vec3(3.0),
            svl: self.vec3(1.0),
        }
    }
}
