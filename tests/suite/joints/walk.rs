//! The walk by working set: which walk `op_fk` takes, and that both give
//! the same bits.

use super::*;

/// The walk by working set (`batch::fk::walk_for_above`): two packs side
/// by side up to `above` bytes of local and global pose, one pack beyond,
/// at the boundary of each type's own size, for the default threshold and
/// the AVX-512 Zen's (2 MiB); the threshold by caches and threads
/// (`stream_above_for`: twice a big L2 per thread, at most the L3; the L3
/// with a smaller L2); `walk_for` is it with this machine's
/// threshold on the current pool (`stream_above_bytes`, from its caches and
/// the pool's threads, checked on pools of 1 and 2); and `op_fk` over a
/// crowd just past the default boundary gives the bits of both walks, on
/// one and two threads (which walk `op_fk` took does not show in its
/// output: that is the point). Mutations caught: the working set counted
/// without the type's size (every type switching where `Kformx8` does),
/// and counted one way only (local, not local and global); the thread
/// count ignored (`stream_above_bytes` asking `stream_above_for` for one
/// thread: the 2-thread pool's check fails here).
#[test]
fn the_walk_follows_the_working_set() {
    use batch::caches::Caches;
    use batch::fk::{
        STREAM_ABOVE_BYTES, stream_above_bytes, stream_above_for, walk_for, walk_for_above,
    };
    // The threshold follows the pool it is asked on: twice a big L2 per
    // thread of the pool, at most the shared cache.
    let here = Caches::of_this_machine();
    for threads in [1, 2] {
        let above = pool(threads).install(stream_above_bytes);
        assert_eq!(above, stream_above_for(here, threads), "{threads} threads");
    }
    let big_l2 = Caches::new(Some(1 << 20), Some(32 << 20));
    assert_eq!(stream_above_for(big_l2, 1), 2 << 20);
    assert_eq!(stream_above_for(big_l2, 2), 4 << 20);
    assert_eq!(stream_above_for(big_l2, 3), 6 << 20);
    for threads in [16, 17, usize::MAX] {
        assert_eq!(stream_above_for(big_l2, threads), 32 << 20, "{threads}");
    }
    assert_eq!(
        stream_above_for(Caches::new(Some(1 << 20), None), 2),
        4 << 20
    );
    assert_eq!(
        stream_above_for(Caches::new(Some(1 << 20), None), 64),
        STREAM_ABOVE_BYTES
    );
    let zen3 = Caches::new(Some(512 << 10), Some(32 << 20));
    assert_eq!(stream_above_for(zen3, 1), 32 << 20);
    assert_eq!(stream_above_for(zen3, 2), 32 << 20);
    fn case<T: Jointx8>(skel: &Skeleton) {
        let name = core::any::type_name::<T>();
        assert_ne!(T::FK, T::FK_STREAM, "{name}: two walks to choose between");
        let joints = skel.len();
        for above in [STREAM_ABOVE_BYTES, 2 << 20] {
            // The largest crowd of whole packs whose two poses fit.
            let fits = above / (2 * size_of::<T>() * joints) * 8;
            let walk = |n| walk_for_above::<T>(n, joints, above);
            assert_eq!(walk(fits), T::FK, "{name} at {fits}, {above}");
            assert_eq!(
                walk(fits + 1),
                T::FK_STREAM,
                "{name} at {fits} + 1, {above}"
            );
            assert_eq!(walk(0), T::FK);
            assert_eq!(walk(usize::MAX), T::FK_STREAM);
        }
        for n in [0, 64, 1024, 8192, 40_000] {
            for threads in [1, 2] {
                pool(threads).install(|| {
                    let above = stream_above_for(Caches::of_this_machine(), threads);
                    let want = walk_for_above::<T>(n, joints, above);
                    assert_eq!(walk_for::<T>(n, joints), want, "{name} {n}, {threads}");
                });
            }
        }
        let fits = STREAM_ABOVE_BYTES / (2 * size_of::<T>() * joints) * 8;
        // Past the boundary: op_fk walks one pack, with the pairs' bits.
        let chars = fits + 3;
        let local = PoseStream::<T>::from_fn(chars, joints, |c, j| {
            let f = (c * joints + j) as f32 * 0.37;
            T::Elem::from_kform(Kform {
                pos: r::Vec3::new(f.sin(), 0.5, f.cos()),
                rot: r::quat_from_scaled_angle_axis(r::Vec3::new(0.3 * f.cos(), 0.2, f.sin())),
                scl: r::Vec3::new(1.0, 1.0 + 0.1 * f.sin(), 0.9),
                vel: r::Vec3::new(f.cos(), 0.0, 1.0),
                ang: r::Vec3::new(0.1, f.sin(), 0.0),
                svl: r::Vec3::new(0.0, 0.1, 0.0),
            })
        })
        .unwrap();
        let mut by_size = PoseStream::<T>::new(chars, joints).unwrap();
        batch::fk::op_fk(&mut by_size, &local, skel).unwrap();
        for (threads, mode) in [(1, T::FK), (2, T::FK), (1, T::FK_STREAM), (2, T::FK_STREAM)] {
            let mut g = PoseStream::<T>::new(chars, joints).unwrap();
            pool(threads)
                .install(|| batch::fk::op_fk_with(&mut g, &local, skel, mode))
                .unwrap();
            let raw = |s: &PoseStream<T>| bytemuck::cast_slice::<T, u32>(s.lanes()).to_vec();
            assert!(
                raw(&g) == raw(&by_size),
                "{name}: {mode:?}, {threads} threads"
            );
        }
    }
    let skel = kineform::data::default_clip().skeleton;
    case::<PosRotx8>(&skel);
    case::<PosRotSclx8>(&skel);
    case::<Motionx8>(&skel);
    case::<Kformx8>(&skel);
}
