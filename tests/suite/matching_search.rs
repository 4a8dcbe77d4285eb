//! Every search path agrees with the scalar reference on generated
//! databases: frame and distance bit for bit, with ties (values from a
//! small set of exact binary fractions, duplicated frames, queries that
//! are frames), excluded frames, seeds, and queries so far that every
//! distance overflows to infinity (ranked by frame alone). Sizes cover one,
//! two and three levels of boxes. Batches carry a switch margin
//! (hysteresis: a seeded query keeps its seed unless a frame beats it by
//! the margin), 0 in a third of the cases, exact palette sums or any
//! value in the others.
//!
//! Features drawn independently frame by frame fill most boxes of the
//! accelerated search's index nearly whole, so their bounds are about 0
//! and the search prunes little. Half the databases are therefore walks,
//! as motion is: each frame a small step from the one before, so the
//! boxes of runs of frames are small and apart at every level, and
//! queries near a frame prune most of them, as with real clips. (With
//! every box's bound made half as large again, no longer a lower bound,
//! the three-level database of independent frames still agrees with the
//! reference; its walk does not.)

use kineform::matching::{
    ClipSpan, DatabaseParts, FeatureJoints, FootFeatures, Match, MatchConfig, MatchDatabase,
    QueryBatch, reference, search,
};
use kineform::reference::Vec3;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Values whose sums of squares are often exactly equal.
const PALETTE: [f32; 7] = [-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0];

#[derive(Clone, Copy, Debug)]
struct Shape {
    frames: usize,
    seed: u64,
    /// Draw features from [`PALETTE`] (ties) or uniformly.
    palette: bool,
    /// Each frame a small step from the one before (module docs), its
    /// steps from the palette's halves where `palette`.
    walk: bool,
    /// Chance that a frame repeats an earlier one.
    duplicates: f64,
    /// Chance that a frame is not searched.
    excluded: f64,
    feet: FootFeatures,
    /// The batch's switch margin.
    margin: f32,
}

fn database(s: Shape) -> MatchDatabase {
    let cfg = MatchConfig::with_feet(s.feet);
    let dims = kineform::matching::FeatureLayout::new(&cfg).dims();
    let mut rng = Pcg64::seed_from_u64(s.seed);
    let mut features: Vec<f32> = Vec::with_capacity(s.frames * dims);
    for f in 0..s.frames {
        if f > 0 && rng.random_bool(s.duplicates) {
            let g = rng.random_range(0..f);
            let row: Vec<f32> = features[g * dims..(g + 1) * dims].to_vec();
            features.extend(row);
        } else if s.walk && f > 0 {
            for d in 0..dims {
                let step = if s.palette {
                    PALETTE[rng.random_range(0..PALETTE.len())] / 8.0
                } else {
                    rng.random_range(-0.1..0.1)
                };
                let x = features[(f - 1) * dims + d] + step;
                features.push(x.clamp(-3.0, 3.0));
            }
        } else {
            for _ in 0..dims {
                features.push(if s.palette {
                    PALETTE[rng.random_range(0..PALETTE.len())]
                } else {
                    rng.random_range(-3.0..3.0)
                });
            }
        }
    }
    let mut searchable: Vec<bool> = (0..s.frames)
        .map(|_| !rng.random_bool(s.excluded))
        .collect();
    let k = rng.random_range(0..s.frames);
    searchable[k] = true;
    MatchDatabase::from_parts(DatabaseParts {
        config: cfg,
        joints: FeatureJoints {
            hips: 0,
            left_foot: 1,
            right_foot: 2,
            forward: Vec3::new(0.0, 0.0, 1.0),
        },
        frame_time: 1.0 / 120.0,
        offset: vec![0.0; dims],
        scale: vec![1.0; dims],
        clips: vec![ClipSpan {
            first: 0,
            frames: s.frames,
        }],
        features,
        searchable,
    })
    .unwrap()
}

fn queries(db: &MatchDatabase, seed: u64, n: usize, palette: bool, margin: f32) -> QueryBatch {
    let mut rng = Pcg64::seed_from_u64(seed ^ 0x9e37);
    let (dims, padded) = (db.layout().dims(), db.layout().padded());
    let mut batch = QueryBatch::new(db);
    batch.set_margin(margin).unwrap();
    for k in 0..n {
        let mut q = vec![0.0f32; padded];
        match k % 4 {
            // A frame itself: distance 0, tied with its duplicates.
            0 => q[..dims].copy_from_slice(&db.features(rng.random_range(0..db.frames())).unwrap()),
            // So far that every distance is infinite.
            1 if k % 8 == 1 => q[..dims].iter_mut().for_each(|x| *x = 1e30),
            // Near a frame: in a walk, most boxes are pruned.
            2 => {
                q[..dims].copy_from_slice(&db.features(rng.random_range(0..db.frames())).unwrap());
                for x in &mut q[..dims] {
                    *x += rng.random_range(-0.3..0.3);
                }
            }
            _ => q[..dims].iter_mut().for_each(|x| {
                *x = if palette {
                    PALETTE[rng.random_range(0..PALETTE.len())]
                } else {
                    rng.random_range(-4.0..4.0)
                }
            }),
        }
        let seed = rng
            .random_bool(0.5)
            .then(|| rng.random_range(0..db.frames() + 3));
        batch.push(&q, seed).unwrap();
    }
    batch
}

fn check(s: Shape, n: usize) -> Result<(), TestCaseError> {
    let db = database(s);
    let batch = queries(&db, s.seed, n, s.palette, s.margin);
    let none = Match {
        frame: usize::MAX,
        distance: f32::NAN,
    };
    let (mut b, mut a, mut rs) = (vec![none; n], vec![none; n], vec![none; n]);
    search::brute_force(&db, &batch, &mut b).unwrap();
    search::accelerated(&db, &batch, &mut a).unwrap();
    search::reference(&db, &batch, &mut rs).unwrap();
    let key = |m: Match| (m.frame, m.distance.to_bits());
    for i in 0..n {
        let q = batch.get(i).unwrap();
        let best = reference::search(&db, q).unwrap();
        let r = reference::search_seeded(&db, q, batch.seed(i), s.margin).unwrap();
        prop_assert!(db.searchable(r.frame));
        // The rule: the best frame, or the searched seed it does not beat
        // by the margin (that seed at its own distance, never nearer than
        // the best); with no margin always the best.
        if r != best {
            prop_assert_eq!(Some(r.frame), batch.seed(i));
            prop_assert!(s.margin > 0.0 && r.distance >= best.distance);
            prop_assert!(best.distance >= r.distance - s.margin);
        }
        prop_assert_eq!(key(rs[i]), key(r), "search::reference, query {}", i);
        prop_assert_eq!(key(b[i]), key(r), "brute force, query {}", i);
        prop_assert_eq!(
            key(a[i]),
            key(r),
            "accelerated, query {} seed {:?}",
            i,
            batch.seed(i)
        );
        let (one, _) = search::accelerated_one(&db, q, batch.seed(i)).unwrap();
        prop_assert_eq!(key(one), key(best), "accelerated_one, query {}", i);
    }
    Ok(())
}

fn feet() -> impl Strategy<Value = FootFeatures> {
    prop_oneof![Just(FootFeatures::DEMO), Just(FootFeatures::SPRING)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn all_searches_agree_with_the_reference(
        frames in prop_oneof![1usize..40, 40usize..400, 1000usize..2200],
        seed in any::<u64>(),
        palette in any::<bool>(),
        walk in any::<bool>(),
        duplicates in prop_oneof![Just(0.0), Just(0.3), Just(0.9)],
        excluded in prop_oneof![Just(0.0), Just(0.2), Just(0.95)],
        feet in feet(),
        margin in prop_oneof![Just(0.0f32), Just(0.5), Just(2.0), 0.0f32..40.0],
    ) {
        check(Shape { frames, seed, palette, walk, duplicates, excluded, feet, margin }, 24)?;
    }
}

#[test]
fn three_levels_of_boxes_agree_with_the_reference() {
    for (seed, palette, walk) in [(1, true, false), (2, false, false), (3, false, true)] {
        let s = Shape {
            frames: 9000,
            seed,
            palette,
            walk,
            duplicates: 0.3,
            excluded: 0.1,
            feet: FootFeatures::DEMO,
            margin: 0.0,
        };
        check(s, 48).unwrap();
        check(Shape { margin: 3.0, ..s }, 48).unwrap();
    }
}

#[test]
fn a_database_of_one_frame_repeated_gives_its_first_searched_frame() {
    let s = Shape {
        frames: 3000,
        seed: 7,
        palette: true,
        walk: false,
        duplicates: 1.0,
        excluded: 0.5,
        feet: FootFeatures::DEMO,
        margin: 0.0,
    };
    let db = database(s);
    let first = (0..db.frames()).find(|&f| db.searchable(f)).unwrap();
    let batch = queries(&db, 3, 16, true, 0.0);
    let mut a = vec![
        Match {
            frame: 0,
            distance: 0.0
        };
        16
    ];
    search::accelerated(&db, &batch, &mut a).unwrap();
    assert!(a.iter().all(|m| m.frame == first), "{a:?}");
}
