//! The checks after a step: both crowds' world output finite, the copies
//! out equal to `world_kform`, states and bounds equal, and in the tested
//! domain the tolerances of `tests/suite/crowd/`; and the world output
//! as bits, to see that a refused step wrote nothing.

use kineform::Error;
use kineform::crowd::{Aabb, Crowd, ReferenceCrowd, RootDelta, RootMotion};
use kineform::reference::{self as r, Kform, Vec3};

fn finite3(v: Vec3) -> bool {
    v.to_array().iter().all(|x| x.is_finite())
}

fn finite_kform(k: &Kform) -> bool {
    finite3(k.pos)
        && finite3(k.vel)
        && finite3(k.ang)
        && k.rot.to_array().iter().all(|x| x.is_finite())
}

/// `|a - b| <= abs + rel |b|` (the scale from the reference `b` alone);
/// false on NaN.
fn near(a: Vec3, b: Vec3, abs: f32, rel: f32) -> bool {
    let d = r::length(a - b);
    d <= abs + rel * r::length(b)
}

/// Every world value of the 8-lane crowd, as bits (to see that a refused
/// step wrote nothing).
pub(super) fn world_bits(lanes: &Crowd) -> Vec<u32> {
    let mut out = Vec::new();
    for c in 0..lanes.characters() {
        for j in 0..lanes.skeleton().len() {
            let k = lanes.world_kform(c, j).unwrap();
            for v in [k.pos, k.vel, k.ang] {
                out.extend(v.to_array().map(f32::to_bits));
            }
            out.extend(k.rot.to_array().map(f32::to_bits));
        }
        let m = lanes.root_motion(c).unwrap();
        out.extend(
            m.displacement
                .to_array()
                .into_iter()
                .chain(m.velocity.to_array())
                .chain([m.turn, m.turn_rate])
                .map(f32::to_bits),
        );
    }
    out
}

/// The world output of the 8-lane crowd through `positions_into` and the
/// other copies out, over the whole crowd.
struct Copies {
    pos: Vec<[f32; 3]>,
    vel: Vec<[f32; 3]>,
    ang: Vec<[f32; 3]>,
    rot: Vec<[f32; 4]>,
    boxes: Vec<Aabb>,
}

impl Copies {
    fn new(lanes: &Crowd) -> Copies {
        let n = lanes.characters();
        let j = lanes.skeleton().len();
        let mut pos = vec![[0.0f32; 3]; n * j];
        let mut vel = vec![[0.0f32; 3]; n * j];
        let mut ang = vec![[0.0f32; 3]; n * j];
        let mut rot = vec![[0.0f32; 4]; n * j];
        lanes.positions_into(0..n, &mut pos).unwrap();
        lanes.velocities_into(0..n, &mut vel).unwrap();
        lanes.angular_velocities_into(0..n, &mut ang).unwrap();
        lanes.rotations_into(0..n, &mut rot).unwrap();
        let mut boxes = vec![Aabb::ZERO; n];
        lanes.bounds_into(0..n, &mut boxes).unwrap();
        Copies {
            pos,
            vel,
            ang,
            rot,
            boxes,
        }
    }
}

/// The checks after a step: finite output on both sides, the copies out
/// equal to `world_kform`, states equal, and in the tested domain the
/// tolerances of `tests/suite/crowd/`.
pub(super) fn check_outputs(
    lanes: &Crowd,
    reference: &ReferenceCrowd,
    tame: bool,
    ctx: &dyn Fn() -> String,
) {
    let copies = Copies::new(lanes);
    assert_eq!(lanes.events(), reference.events(), "{}", ctx());
    root_motions(lanes, reference, ctx);
    for c in 0..lanes.characters() {
        states(lanes, reference, c, ctx);
        bounds(lanes, reference, (c, &copies), tame, ctx);
        root_motion(lanes, reference, c, tame, ctx);
        joints(lanes, reference, (c, &copies), tame, ctx);
    }
}

/// A root motion's values as bits (NaN-safe equality).
fn delta_bits(d: &RootDelta) -> [u32; 8] {
    let [a, b, c] = d.displacement.to_array();
    let [e, f, g] = d.velocity.to_array();
    [a, b, c, e, f, g, d.turn, d.turn_rate].map(f32::to_bits)
}

/// What a refused read must leave in the caller's slice.
const UNTOUCHED: RootDelta = RootDelta {
    displacement: Vec3::new(7.0, -7.0, 7.0),
    velocity: Vec3::new(-7.0, 7.0, -7.0),
    turn: 7.0,
    turn_rate: -7.0,
};

/// `root_motions_into` on both crowds, over the whole crowd and over its
/// second half: each character's `root_motion` of the same crowd, bit for
/// bit (zero where the crowd applies root motion: the lanes crowd's
/// `root_motion` says so itself, the reference's reader does); a range
/// past the crowd or reversed refused with `Error::Range`, a slice of
/// another length with `Error::Length`, the same on both crowds, the
/// slice untouched.
fn root_motions(lanes: &Crowd, reference: &ReferenceCrowd, ctx: &dyn Fn() -> String) {
    let n = lanes.characters();
    let extract = lanes.config().root_motion == RootMotion::Extract;
    for range in [0..n, n / 2..n] {
        let (mut l, mut r) = (vec![UNTOUCHED; range.len()], vec![UNTOUCHED; range.len()]);
        lanes.root_motions_into(range.clone(), &mut l).unwrap();
        reference.root_motions_into(range.clone(), &mut r).unwrap();
        for (k, c) in range.clone().enumerate() {
            let want_r = match extract {
                true => reference.root_motion(c).unwrap(),
                false => RootDelta::default(),
            };
            assert!(
                delta_bits(&l[k]) == delta_bits(&lanes.root_motion(c).unwrap())
                    && delta_bits(&r[k]) == delta_bits(&want_r),
                "character {c} of {range:?}: root_motions_into {:?} / {:?}, root_motion {:?} / {want_r:?}\n{}",
                l[k],
                r[k],
                lanes.root_motion(c),
                ctx()
            );
        }
    }
    #[allow(clippy::reversed_empty_ranges)]
    let refused = [(n..n + 1, 1, true), (1..0, 0, true), (0..n, n + 1, false)];
    for (range, len, is_range) in refused {
        let (mut l, mut r) = (vec![UNTOUCHED; len], vec![UNTOUCHED; len]);
        let le = lanes.root_motions_into(range.clone(), &mut l).unwrap_err();
        let re = reference
            .root_motions_into(range.clone(), &mut r)
            .unwrap_err();
        let kind = |e: &Error| match is_range {
            true => matches!(e, Error::Range { .. }),
            false => matches!(e, Error::Length { .. }),
        };
        let untouched = |v: &[RootDelta]| v.iter().all(|d| delta_bits(d) == delta_bits(&UNTOUCHED));
        assert!(
            kind(&le) && le.to_string() == re.to_string() && untouched(&l) && untouched(&r),
            "root_motions_into({range:?}) into {len}: {le} / {re}\n{}",
            ctx()
        );
    }
}

/// Character `c`'s state and each layer's, equal on both crowds.
fn states(lanes: &Crowd, reference: &ReferenceCrowd, c: usize, ctx: &dyn Fn() -> String) {
    assert_eq!(
        lanes.state(c),
        reference.state(c),
        "character {c}: states differ\n{}",
        ctx()
    );
    for k in 0..=lanes.config().layers.len() {
        assert_eq!(
            lanes.layer_state(c, k),
            reference.layer_state(c, k),
            "character {c}: layer {k}'s states differ\n{}",
            ctx()
        );
    }
}

/// Bounds (issue 24 item 4): finite where the output is (checked in
/// [`joints`]), each box the same as `bounds(c)`, and the crowds' boxes
/// within the positions' tolerance.
fn bounds(
    lanes: &Crowd,
    reference: &ReferenceCrowd,
    (c, copies): (usize, &Copies),
    tame: bool,
    ctx: &dyn Fn() -> String,
) {
    let (lb, rb) = (lanes.bounds(c).unwrap(), reference.bounds(c).unwrap());
    assert!(
        copies.boxes[c] == lb
            && finite3(lb.min)
            && finite3(lb.max)
            && finite3(rb.min)
            && finite3(rb.max),
        "character {c}: bounds {:?} / {lb:?}, reference {rb:?}\n{}",
        copies.boxes[c],
        ctx()
    );
    if tame {
        assert!(
            near(lb.min, rb.min, 2e-4, 2e-6) && near(lb.max, rb.max, 2e-4, 2e-6),
            "character {c}: bounds lanes {lb:?} vs reference {rb:?}\n{}",
            ctx()
        );
    }
}

/// Character `c`'s root motion: finite on both crowds, and in the tested
/// domain within 1e-3 + 1e-4 relative.
fn root_motion(
    lanes: &Crowd,
    reference: &ReferenceCrowd,
    c: usize,
    tame: bool,
    ctx: &dyn Fn() -> String,
) {
    let (lm, rm) = (
        lanes.root_motion(c).unwrap(),
        reference.root_motion(c).unwrap(),
    );
    let (ld, lv, rd, rv) = (lm.displacement, lm.velocity, rm.displacement, rm.velocity);
    let turns = [lm.turn, lm.turn_rate, rm.turn, rm.turn_rate];
    assert!(
        finite3(ld)
            && finite3(lv)
            && finite3(rd)
            && finite3(rv)
            && turns.iter().all(|t| t.is_finite()),
        "character {c}: root motion not finite: lanes {ld:?} {lv:?}, reference {rd:?} {rv:?}\n{}",
        ctx()
    );
    if tame {
        assert!(
            near(ld, rd, 1e-3, 1e-4) && near(lv, rv, 1e-3, 1e-4),
            "character {c}: root motion lanes {ld:?} {lv:?} vs reference {rd:?} {rv:?}\n{}",
            ctx()
        );
    }
}

/// Character `c`'s joints: the copies out equal to `world_kform`, finite
/// on both crowds, and in the tested domain within the crowd tests'
/// tolerances.
fn joints(
    lanes: &Crowd,
    reference: &ReferenceCrowd,
    (c, copies): (usize, &Copies),
    tame: bool,
    ctx: &dyn Fn() -> String,
) {
    let j = lanes.skeleton().len();
    let Copies {
        pos, vel, ang, rot, ..
    } = copies;
    for jj in 0..j {
        let a = lanes.world_kform(c, jj).unwrap();
        let b = reference.world_kform(c, jj).unwrap();
        let at = c * j + jj;
        let q = a.rot;
        assert!(
            pos[at] == a.pos.to_array()
                && vel[at] == a.vel.to_array()
                && ang[at] == a.ang.to_array()
                && rot[at] == [q.x, q.y, q.z, q.w],
            "character {c} joint {jj}: copies out differ from world_kform\n{}",
            ctx()
        );
        assert!(
            finite_kform(&a),
            "character {c} joint {jj}: lanes output not finite: {a:?}\n{}",
            ctx()
        );
        assert!(
            finite_kform(&b),
            "character {c} joint {jj}: reference output not finite: {b:?}\n{}",
            ctx()
        );
        if tame {
            let ok = near(a.pos, b.pos, 2e-4, 2e-6)
                && 1.0 - r::quat_dot(a.rot, b.rot).abs() <= 1e-5
                && near(a.vel, b.vel, 2e-3, 1e-5)
                && near(a.ang, b.ang, 2e-4, 1e-5);
            assert!(
                ok,
                "character {c} joint {jj}: lanes {a:?}\n vs reference {b:?}\n{}",
                ctx()
            );
        }
    }
}
