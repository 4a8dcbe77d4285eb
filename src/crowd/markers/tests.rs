//! The crossing rules ([`super::crossings`]) case by case: half-open in
//! the direction of travel, the seam, loops faster than the clip.

use super::{Move, crossings};

fn run(m: Move, times: &[f32]) -> Vec<(u32, f32, u32)> {
    let entries: Vec<(f32, u32)> = times
        .iter()
        .enumerate()
        .map(|(i, &t)| (t, i as u32))
        .collect();
    let mut v = Vec::new();
    crossings(&m, &entries, 0.5, |i, at, n| v.push((i, at, n)));
    v
}

const LOOP: Move = Move {
    from: 0.25,
    to: 0.75,
    laps: 0.0,
    moved: 0.75,
    len: 1.0,
    looping: true,
    fresh: false,
};

#[test]
fn half_open_in_the_direction_of_travel() {
    // (0.25, 0.75]: not the start, the end.
    assert_eq!(
        run(LOOP, &[0.25, 0.5, 0.75]),
        vec![(1, 0.25, 1), (2, 0.5, 1)]
    );
    let back = Move {
        from: 0.75,
        to: 0.25,
        moved: 0.25,
        ..LOOP
    };
    assert_eq!(
        run(back, &[0.25, 0.5, 0.75]),
        vec![(0, 0.5, 1), (1, 0.25, 1)]
    );
}

#[test]
fn the_seam_crosses_both_ends_and_fast_loops_count() {
    // 0.75 -> 1.25: wraps once to 0.25.
    let wrap = Move {
        from: 0.75,
        to: 0.25,
        laps: 1.0,
        moved: 1.25,
        ..LOOP
    };
    assert_eq!(
        run(wrap, &[0.0, 1.0, 0.5]),
        vec![(0, 0.25, 1), (1, 0.25, 1)]
    );
    // 0.25 -> 3.25: three laps.
    let fast = Move {
        from: 0.25,
        to: 0.25,
        laps: 3.0,
        moved: 3.25,
        ..LOOP
    };
    assert_eq!(
        run(fast, &[0.25, 0.5]),
        vec![(0, 1.0 / 6.0, 3), (1, 0.25 / 6.0, 3)]
    );
}
