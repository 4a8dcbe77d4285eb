//! Reading only what the last step evaluated (issue 25: a carried
//! character's pose costs its reader about what its evaluation saved):
//! `since_evaluated` and `skinning_matrices_evaluated_into`, in both
//! crowds. `lod::periods::periods_choose_the_evaluated_steps` checks
//! `since_evaluated` step by step.

use crate::crowds::matrices::{periods_mixed, some_bind, step_mixed};
use crate::crowds::*;

use kineform::Error;
use kineform::crowd::{Crowd, CrowdConfig, ReferenceCrowd};

const SENTINEL: f32 = 7.0;

/// Under periods 1, 2, 4 and 8 mixed within packs, phases staggered,
/// transitions forcing evaluations, a range entered part-way and a last
/// pack of five characters: each crowd's evaluated reader writes, bit for
/// bit, what its `skinning_matrices_into` writes for every character the
/// step evaluated (`since_evaluated` 0), into `[f32; 12]` and `[f32; 16]`,
/// and leaves every other character's matrices as they were (a
/// sentinel). Both kinds occur (counted). Fails when the lanes reader
/// writes a pack's every lane, or drops its first run of evaluated lanes.
#[test]
fn evaluated_readers_write_the_evaluated_and_leave_the_carried() {
    let n = 21;
    let (mut lanes, mut reference) = periods_mixed(CrowdConfig {
        characters: n,
        level_of_detail: true,
        ..Default::default()
    });
    let joints = lanes.skeleton().len();
    let bind = some_bind(lanes.skeleton());
    let range = 3..n;
    let m = range.len() * joints;
    let (mut fresh, mut carried) = (0, 0);
    for f in 0..24 {
        step_mixed(&mut lanes, &mut reference, f);
        let (mut all_l, mut all_r) = (vec![[0.0f32; 12]; m], vec![[0.0f32; 12]; m]);
        let mut all_l16 = vec![[0.0f32; 16]; m];
        lanes
            .skinning_matrices_into(range.clone(), &bind, &mut all_l)
            .unwrap();
        lanes
            .skinning_matrices_into(range.clone(), &bind, &mut all_l16)
            .unwrap();
        reference
            .skinning_matrices_into(range.clone(), &bind, &mut all_r)
            .unwrap();
        let (mut ev_l, mut ev_r) = (vec![[SENTINEL; 12]; m], vec![[SENTINEL; 12]; m]);
        let mut ev_l16 = vec![[SENTINEL; 16]; m];
        let r = range.clone();
        lanes
            .skinning_matrices_evaluated_into(r.clone(), &bind, &mut ev_l)
            .unwrap();
        lanes
            .skinning_matrices_evaluated_into(r.clone(), &bind, &mut ev_l16)
            .unwrap();
        reference
            .skinning_matrices_evaluated_into(r, &bind, &mut ev_r)
            .unwrap();
        for (k, c) in range.clone().enumerate() {
            let now = lanes.since_evaluated(c) == Some(0.0);
            assert_eq!(now, reference.since_evaluated(c) == Some(0.0));
            if now {
                fresh += 1
            } else {
                carried += 1
            }
            for j in 0..joints {
                let i = k * joints + j;
                let at = format!("step {f}, character {c}, joint {j}");
                if now {
                    assert_eq!(ev_l[i], all_l[i], "{at}");
                    assert_eq!(ev_l16[i], all_l16[i], "{at}");
                    assert_eq!(ev_r[i], all_r[i], "{at}");
                } else {
                    assert_eq!(ev_l[i], [SENTINEL; 12], "{at}");
                    assert_eq!(ev_l16[i], [SENTINEL; 16], "{at}");
                    assert_eq!(ev_r[i], [SENTINEL; 12], "{at}");
                }
            }
        }
    }
    assert!(
        fresh > 100 && carried > 100,
        "{fresh} evaluated, {carried} carried"
    );
}

/// Without level of detail every step evaluates every character: the
/// evaluated reader writes the whole range, as `skinning_matrices_into`.
#[test]
fn without_level_of_detail_every_character_is_written() {
    let library = embedded();
    let cfg = CrowdConfig {
        characters: 11,
        ..Default::default()
    };
    let mut crowd = Crowd::new(&library, cfg).unwrap();
    let joints = crowd.skeleton().len();
    let bind = some_bind(crowd.skeleton());
    for _ in 0..3 {
        crowd.step(1.0 / 60.0).unwrap();
        let mut all = vec![[0.0f32; 12]; 11 * joints];
        let mut ev = vec![[SENTINEL; 12]; 11 * joints];
        crowd
            .skinning_matrices_into(0..11, &bind, &mut all)
            .unwrap();
        crowd
            .skinning_matrices_evaluated_into(0..11, &bind, &mut ev)
            .unwrap();
        assert_eq!(ev, all);
        assert!((0..11).all(|c| crowd.since_evaluated(c) == Some(0.0)));
    }
}

/// Both crowds refuse what `skinning_matrices_into` refuses, writing
/// nothing: a range past the crowd, a slice of the wrong length, an
/// inverse bind of another joint count.
#[test]
fn evaluated_readers_refuse_as_the_matrix_readers_do() {
    let library = embedded();
    let cfg = CrowdConfig {
        characters: 9,
        level_of_detail: true,
        ..Default::default()
    };
    let mut lanes = Crowd::new(&library, cfg.clone()).unwrap();
    let mut reference = ReferenceCrowd::new(&library, cfg).unwrap();
    lanes.step(1.0 / 60.0).unwrap();
    reference.step(1.0 / 60.0).unwrap();
    let joints = lanes.skeleton().len();
    let bind = some_bind(lanes.skeleton());
    let other = kineform::skinning::InverseBind::from_bind_pose(
        &kineform::Skeleton::new(vec![-1]).unwrap(),
        &[kineform::reference::Kform::IDENTITY],
    )
    .unwrap();
    let mut out = vec![[SENTINEL; 12]; 2 * joints];
    let cases: [(core::ops::Range<usize>, &_, usize); 3] = [
        (9..10, &bind, joints),
        (0..2, &bind, joints),
        (0..2, &other, 2 * joints),
    ];
    for (range, b, len) in cases {
        let o = &mut out[..len];
        let l = lanes.skinning_matrices_evaluated_into(range.clone(), b, o);
        assert!(
            matches!(l, Err(Error::Range { .. } | Error::Length { .. })),
            "{l:?}"
        );
        let r = reference.skinning_matrices_evaluated_into(range, b, o);
        assert_eq!(format!("{l:?}"), format!("{r:?}"));
        assert!(out.iter().all(|m| *m == [SENTINEL; 12]));
    }
}
