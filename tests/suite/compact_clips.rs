//! Compact clips (issue 27, item 3) against their source, over every
//! shipped clip of `data/mocap` (each alone, and all of them in one
//! library, where each moving joint's box spans every clip):
//!
//! - every decoded rotation within
//!   [`codec::ROTATION_ERROR_BOUND`] (5e-6 rad) of the source's, every
//!   decoded position within its joint's
//!   [`Database::position_error_bound`] per axis, and the still joints
//!   and fixed positions exact;
//! - the frames' tables take at most a quarter of the full rows' bytes;
//! - what sampling gathers from compact words is what full rows of the
//!   decoded clips hold: the decoded frame and the step to the next
//!   (derived at sampling), so the velocities are the decoded motion's.
//!
//! Stepped words ([`ClipStorage::Stepped`]) over the same clips: the same
//! decoded frames as compact words, every stored step within its joint's
//! [`Database::step_error_bound`] of the step between the decoded frames
//! (computed in f64, rounded to f32) and zero on each clip's last frame,
//! at most half the full rows' bytes, and gathers that
//! are the full rows of the decoded clips with the steps within that
//! bound.
//!
//! The largest errors measured are printed (`-- --nocapture`).

use kineform::Clip;
use kineform::crowd::ClipLibrary;
use kineform::database::{ClipStorage, Database, codec, stepped};
use kineform::reference::{self as r, Quat};

/// Every BVH file of `data/mocap`, by name, with its clip.
fn shipped() -> Vec<(String, kineform::bvh::Bvh)> {
    let dir = format!("{}/data/mocap", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bvh"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 5, "the five shipped clips of {dir}");
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, kineform::bvh::load(&p).unwrap())
        })
        .collect()
}

/// The largest rotation error (rad) and position error (units) of `db`'s
/// decoded frames against `clips`, asserting the bounds on the way.
fn largest_errors(name: &str, db: &Database, clips: &[Clip]) -> (f64, f32) {
    let (mut rot, mut pos) = (0.0f64, 0.0f32);
    for (c, &(start, frames)) in clips.iter().zip(db.clips()) {
        assert_eq!(c.frames(), frames);
        for f in 0..frames {
            for j in 0..c.joints() {
                let (p, q) = db.frame_joint(start + f, j).unwrap();
                let s = c.rot(f, j).unwrap();
                let len = r::quat_length(s) as f64;
                let s64 = [s.w, s.x, s.y, s.z].map(|x| x as f64 / len);
                let angle = codec::rotation_angle(q, s64);
                assert!(
                    angle <= codec::ROTATION_ERROR_BOUND as f64,
                    "{name} frame {f} joint {j}: rotation {q:?} is {angle:e} rad from {s:?}"
                );
                let bound = db.position_error_bound(j);
                let e = (p - c.pos(f, j).unwrap()).to_array();
                for (k, e) in e.iter().enumerate() {
                    assert!(
                        e.abs() <= bound.to_array()[k],
                        "{name} frame {f} joint {j} axis {k}: position {p:?} against {:?}, bound {bound:?}",
                        c.pos(f, j).unwrap()
                    );
                }
                if db.moving_row(j).is_none() {
                    assert_eq!(p, c.pos(f, j).unwrap(), "{name}: a fixed position is exact");
                }
                if let Some(still) = db.still_rotation(j) {
                    assert_eq!(q, still, "{name}: a still rotation is exact");
                }
                rot = rot.max(angle);
                pos = pos.max(e.iter().fold(0.0, |m, x| m.max(x.abs())));
            }
        }
    }
    (rot, pos)
}

#[test]
fn every_shipped_clip_decodes_within_the_stated_bounds_in_a_quarter_of_the_bytes() {
    let mut all = Vec::new();
    for (name, bvh) in shipped() {
        let clips = [bvh.clip.clone()];
        let db = Database::with_storage(&clips, ClipStorage::Compact).unwrap();
        let full = Database::new(&clips).unwrap();
        let (rot, pos) = largest_errors(&name, &db, &clips);
        let root = db.position_error_bound(0);
        let per = |d: &Database| d.table_bytes() as f64 / (d.frames() * d.joints()) as f64;
        println!(
            "{name}: largest rotation error {rot:.3e} rad, position {pos:.3e} (root bound {root:?}); \
             {:.2} against {:.2} bytes per frame and joint",
            per(&db),
            per(&full)
        );
        assert!(
            4 * db.table_bytes() <= full.table_bytes(),
            "{name}: {} compact bytes against {} full",
            db.table_bytes(),
            full.table_bytes()
        );
        all.push(bvh);
    }
    // All of them in one library (the boxes span every clip).
    let mut library = ClipLibrary::from_bvh(&kineform::data::default_clip()).unwrap();
    for b in &all {
        library.add_cmu(b).unwrap();
    }
    let db = Database::with_storage(library.clips(), ClipStorage::Compact).unwrap();
    let (rot, pos) = largest_errors("library", &db, library.clips());
    println!(
        "all clips in one library: largest rotation error {rot:.3e} rad, position {pos:.3e} \
         (root bound {:?}); {} frames, {} against {} bytes",
        db.position_error_bound(0),
        db.frames(),
        db.table_bytes(),
        Database::new(library.clips()).unwrap().table_bytes()
    );
}

/// Stepped words decode every shipped clip's frames as compact words do
/// (the same rotation and position words), store each step within its
/// joint's bound of the decoded frames' step (computed in f64 and rounded
/// to f32, [`stepped::step_between`]; exactly zero on a clip's last
/// frame), and take at most half the full rows' bytes. Fails with the
/// steps' boxes shifted by one joint (steps encoded in another joint's
/// box), with the frame after a clip's last taken from the next clip, or
/// with boxes not symmetric about zero (a last frame's step decodes to
/// 1e-7 or so).
#[test]
fn stepped_words_store_the_decoded_steps_within_their_bounds_in_half_the_bytes() {
    let mut library = ClipLibrary::from_bvh(&kineform::data::default_clip()).unwrap();
    for (_, b) in shipped() {
        library.add_cmu(&b).unwrap();
    }
    let clips = library.clips();
    let db = Database::with_storage(clips, ClipStorage::Stepped).unwrap();
    let compact = Database::with_storage(clips, ClipStorage::Compact).unwrap();
    let full = Database::new(clips).unwrap();
    assert_eq!(db.storage(), ClipStorage::Stepped);
    assert!(
        2 * db.table_bytes() <= full.table_bytes(),
        "{} stepped bytes against {} full",
        db.table_bytes(),
        full.table_bytes()
    );
    let (mut worst, mut most_bound) = (0.0f32, 0.0f32);
    for &(start, frames) in db.clips() {
        for f in start..start + frames {
            let g = (f + 1).min(start + frames - 1);
            for j in 0..db.joints() {
                assert_eq!(
                    db.frame_joint(f, j),
                    compact.frame_joint(f, j),
                    "frame {f} joint {j}"
                );
                let want = match db.still_rotation(j).is_some() {
                    true => r::Vec3::ZERO,
                    false => {
                        let (_, q0) = db.frame_joint(f, j).unwrap();
                        let (_, q1) = db.frame_joint(g, j).unwrap();
                        stepped::step_between(q0, q1)
                    }
                };
                let got = db.stored_step(f, j).unwrap();
                if g == f {
                    // A clip's last frame: no step, exactly (zero is a
                    // code of every step box).
                    assert_eq!(
                        got,
                        r::Vec3::ZERO,
                        "frame {f} joint {j}: the last frame's step"
                    );
                }
                let bound = db.step_error_bound(j);
                for k in 0..3 {
                    let e = (got.to_array()[k] - want.to_array()[k]).abs();
                    assert!(
                        e <= bound.to_array()[k],
                        "frame {f} joint {j} axis {k}: step {got:?} against {want:?}, bound {bound:?}"
                    );
                    worst = worst.max(e);
                    most_bound = most_bound.max(bound.to_array()[k]);
                }
            }
        }
    }
    println!(
        "stepped: {} frames, {} bytes against {} full and {} compact; largest step error {worst:e} rad, largest bound {most_bound:e}",
        db.frames(),
        db.table_bytes(),
        full.table_bytes(),
        compact.table_bytes()
    );
}

/// A compact database gathers what full rows of its decoded clips hold:
/// the decoded frames, and steps derived from them that match the full
/// rows' (the scalar `quat_log` of the step against the lanes'
/// `quat_log_short`: within 2e-6 of a half-angle; positions' differences
/// exactly), at every frame of every clip, the clips' last frames (a zero
/// step) included. Stepped words gather the same with each step also
/// within its stored bound ([`Database::step_error_bound`]).
#[test]
fn compact_gathers_are_the_full_rows_of_the_decoded_clips() {
    for storage in [ClipStorage::Compact, ClipStorage::Stepped] {
        gathers_are_the_full_rows_of_the_decoded_clips(storage);
    }
}

fn gathers_are_the_full_rows_of_the_decoded_clips(storage: ClipStorage) {
    let mut library = ClipLibrary::from_bvh(&kineform::data::default_clip()).unwrap();
    for (_, b) in shipped().iter().take(2) {
        library.add_cmu(b).unwrap();
    }
    let compact = Database::with_storage(library.clips(), storage).unwrap();
    let decoded = compact.decoded_clips(library.clips()).unwrap();
    let full = Database::new(&decoded).unwrap();
    let frames = compact.frames();
    let mut worst = 0.0f32;
    for f0 in (0..frames).step_by(8) {
        let f: [usize; 8] = core::array::from_fn(|i| (f0 + i * 97) % frames);
        let (a, b) = (compact.frames8(f), full.frames8(f));
        for j in 0..compact.joints() {
            let (x, y) = (compact.gather(&a, j), full.gather(&b, j));
            for (i, fi) in f.iter().enumerate() {
                let at = format!("frame {fi} joint {j}");
                assert_eq!(x.pos.lane(i), y.pos.lane(i), "{at}");
                let (qx, qy): (Quat, Quat) = (x.rot.lane(i), y.rot.lane(i));
                assert_eq!(qx, qy, "{at}");
                assert_eq!(x.step_pos.lane(i), y.step_pos.lane(i), "{at}");
                let d = x.step_rot.lane(i) - y.step_rot.lane(i);
                let bound = compact.step_error_bound(j);
                let e = (0..3).fold(0.0f32, |m, k| {
                    m.max(d.to_array()[k].abs() - bound.to_array()[k])
                });
                worst = worst.max(e);
                assert!(
                    e <= 2e-6,
                    "{at}: step {:?} against {:?}, bound {bound:?}",
                    x.step_rot.lane(i),
                    y.step_rot.lane(i)
                );
                // `|w + d|² - |w|² = 2 w·d + d·d`, with `|d|` within the
                // bound's length `b`: at most `2 |w| b + b²` more.
                let h2 = (x.step_h2.to_array()[i] - y.step_h2.to_array()[i]).abs();
                let b = r::length(bound);
                let w = r::length(y.step_rot.lane(i));
                assert!(h2 <= 2e-6 + 2.0 * w * b + b * b, "{at}: squared step");
            }
        }
    }
    println!(
        "{}: largest step difference beyond the stored bound {worst:e}",
        storage.name()
    );
}
