//! The domain of the characters' roots: a step or a re-centring that
//! would move a root out of ±[`crate::limits::MAX_POSITION`] is refused
//! before anything changes.

use super::Statex8;
use crate::crowd::Root;
use crate::lanes::{F32x8, Vec3x8, splat};
use crate::reference::Vec3;

impl Statex8 {
    /// Where [`Statex8::advance`] moves the roots in a step of `dt`: along
    /// their velocities (the same arithmetic, so a check of it is a check
    /// of the step).
    #[inline(always)]
    pub(crate) fn root_pos_after(&self, dt: F32x8) -> Vec3x8 {
        self.root.pos + self.root.vel * dt
    }
}

/// Why a root is refused past the domain.
const ROOT_DOMAIN: &str = "a root must stay within ±1e6 (kineform::limits::MAX_POSITION), \
     the positions a command may set: re-centre the world (Crowd::recenter)";

fn root_refusal(character: usize, value: f32, name: &'static str) -> crate::Error {
    crate::Error::Character {
        character,
        error: Box::new(crate::Error::Parameter {
            name,
            value,
            reason: ROOT_DOMAIN,
        }),
    }
}

/// The first of characters `0..characters` whose root a step of `dt`
/// would move out of ±[`crate::limits::MAX_POSITION`], unless `given(c)`
/// says a root is given to it in that step (a command sets it after the
/// advance): [`crate::Error::Character`] naming it.
pub(crate) fn check_roots_after(
    states: &[Statex8],
    characters: usize,
    dt: f32,
    given: impl Fn(usize) -> bool,
) -> crate::Result<()> {
    let most = splat(crate::limits::MAX_POSITION);
    for (p, s) in states.iter().enumerate() {
        let pos = s.root_pos_after(splat(dt));
        let inside =
            pos.x.abs().simd_le(most) & pos.y.abs().simd_le(most) & pos.z.abs().simd_le(most);
        let out = !inside.to_bitmask() as u8;
        if out == 0 {
            continue;
        }
        for l in (0..8).filter(|l| out & (1 << l) != 0) {
            let c = p * 8 + l;
            if c < characters && !given(c) {
                let v = pos.lane(l);
                let worst = [v.x, v.y, v.z].into_iter().fold(0.0f32, |m, x| {
                    if x.abs() > m.abs() || x.is_nan() {
                        x
                    } else {
                        m
                    }
                });
                return Err(root_refusal(c, worst, "root position after the step"));
            }
        }
    }
    Ok(())
}

/// Refuses an origin with a coordinate that is not finite.
pub(crate) fn check_origin(origin: Vec3) -> crate::Result<()> {
    match [origin.x, origin.y, origin.z]
        .iter()
        .find(|x| !x.is_finite())
    {
        None => Ok(()),
        Some(&value) => Err(crate::Error::Parameter {
            name: "origin",
            value,
            reason: "must be finite",
        }),
    }
}

/// The first of characters `0..characters` whose root, moved by
/// `-origin`, leaves ±[`crate::limits::MAX_POSITION`].
pub(crate) fn check_recentered(
    states: &[Statex8],
    characters: usize,
    origin: Vec3,
) -> crate::Result<()> {
    for (p, s) in states.iter().enumerate() {
        for l in 0..8 {
            let c = p * 8 + l;
            if c < characters {
                let pos = s.root.pos.lane(l);
                check_recentered_root(
                    c,
                    &Root {
                        pos,
                        ..Root::standing(Vec3::ZERO, 0.0)
                    },
                    origin,
                )?;
            }
        }
    }
    Ok(())
}

/// Refuses `root` of `character` when, moved by `-origin`, it leaves
/// ±[`crate::limits::MAX_POSITION`].
pub(crate) fn check_recentered_root(
    character: usize,
    root: &Root,
    origin: Vec3,
) -> crate::Result<()> {
    let p = root.pos - origin;
    let most = crate::limits::MAX_POSITION;
    match [p.x, p.y, p.z]
        .into_iter()
        .find(|x| x.is_nan() || x.abs() > most)
    {
        None => Ok(()),
        Some(v) => Err(root_refusal(character, v, "root position re-centred")),
    }
}
