//! What one character's frame of the reference crowd reads: the crowd's
//! configuration, clips, hierarchy and layers ([`Crowdwide`]), the
//! character's step read out of its pack's lanes ([`CharStep`],
//! [`char_step`]), its fitted half-lives ([`Halflives`]), and a source
//! sampled into a crowd pose ([`ref_sample`]), which the frame
//! (`frame`) and the layers (`layers`) both use.

use crate::clip::Clip;
use crate::crowd::layer::Layout;
use crate::crowd::place::Place;
use crate::crowd::state::{LayerLanes, Statex8, Stepx8};
use crate::crowd::{CrowdConfig, MAX_LAYERS, Sampling};
use crate::lanes::F32x8;
use crate::reference::{self as r, Kform, Pose, Vec3};

/// What every character's frame reads of the crowd: its configuration,
/// clips, hierarchy and resolved layers and profiles.
#[derive(Clone, Copy)]
pub(super) struct Crowdwide<'a> {
    pub cfg: &'a CrowdConfig,
    pub clips: &'a [Clip],
    pub parents: &'a [i32],
    pub layout: &'a Layout,
}

/// One layer of one character's step: its source (clip, time, rate), its
/// weight and the weight's rate, and whether its hemispheres are chosen
/// anew (it is idle, or was before the step).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct CharLayer {
    pub src: (usize, f32, f32),
    pub w: f32,
    pub rate: f32,
    pub idle: bool,
}

/// One character's step, read out of its pack's lanes.
#[derive(Clone, Copy)]
pub(super) struct CharStep {
    pub a: (usize, f32, f32),
    pub b: (usize, f32, f32),
    pub w: f32,
    pub w_rate: f32,
    pub blend_time: f32,
    pub duration: f32,
    pub halflife: f32,
    /// The transition's blend profile row (0: none).
    pub profile: usize,
    pub root: Kform,
    /// A source (a layer's too) wrapped around its clip this step.
    pub wrapped: bool,
    pub layers: [CharLayer; MAX_LAYERS],
    pub nlayers: usize,
    /// Where sources A and B's clips stand ([`crate::crowd::place`]).
    pub places: [Place; 2],
}

/// Lane `l`'s step out of its pack's step `st`, its state and its layers
/// (its sources' places left at identity: the caller sets them).
pub(super) fn char_step(st: &Stepx8, state: &Statex8, layers: &[LayerLanes], l: usize) -> CharStep {
    let f = |x: F32x8| x.to_array()[l];
    let clip = |s: &crate::crowd::state::SourceLanes| s.clip.to_array()[l] as usize;
    let mut ls = [CharLayer::default(); MAX_LAYERS];
    for ((o, s), lanes) in ls.iter_mut().zip(st.layers.steps(layers)).zip(layers) {
        *o = CharLayer {
            src: (clip(&lanes.src), f(s.at.time), f(s.at.rate)),
            w: f(s.w),
            rate: f(s.rate),
            idle: s.idle & (1 << l) != 0,
        };
    }
    CharStep {
        a: (clip(&state.a), f(st.a.time), f(st.a.rate)),
        b: (clip(&state.b), f(st.b.time), f(st.b.rate)),
        w: f(st.w),
        w_rate: f(st.w_rate),
        blend_time: f(st.blend_time),
        duration: f(st.duration),
        halflife: f(st.halflife),
        profile: st.profile.to_array()[l].max(0) as usize,
        root: Kform {
            pos: st.root.pos.lane(l),
            rot: st.root.rot.lane(l),
            vel: st.root.vel.lane(l),
            ang: st.root.ang.lane(l),
            ..Kform::IDENTITY
        },
        wrapped: st.wrapped & (1 << l) != 0,
        layers: ls,
        nlayers: layers.len(),
        places: [Place::IDENTITY; 2],
    }
}

/// A character's fitted half-lives per joint: positions, rotations.
pub(super) type Halflives<'a> = (&'a [Vec3], &'a [Vec3]);

/// Samples clip `src` at `time` played at `rate` into crowd pose `out`
/// (joint 0 = the root), the clips' root joint moved by `place`
/// ([`crate::crowd::place`]).
pub(super) fn ref_sample(
    cfg: &CrowdConfig,
    clips: &[Clip],
    ((clip, time, rate), place): ((usize, f32, f32), Place),
    root: Kform,
    tmp: &mut Pose,
    out: &mut Pose,
) {
    let c = &clips[clip];
    let (p, q, s, dt) = (c.pos_slice(), c.rot_slice(), c.scl_slice(), c.frame_time());
    match cfg.sampling {
        Sampling::Linear => r::op_sample_linear(tmp, p, q, s, time, dt),
        Sampling::Cubic => r::op_sample_cubic(tmp, p, q, s, time, dt),
    }
    // Never refused: `Clip::new` refuses a clip without a frame, the
    // library holds clips of the skeleton's joints, and `tmp` (the
    // crowd's `sample` scratch) has those joints.
    .expect("a clip has a frame and a column per joint (its constructors check)");
    r::op_timescale(tmp, rate);
    out.set(0, root);
    for k in 0..tmp.len() {
        out.set(k + 1, tmp.get(k));
    }
    out.set(1, place.apply(&out.get(1)));
}
