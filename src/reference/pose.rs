//! Poses and the whole-pose operators of the velocities article: forward
//! and backward kinematics and finite differences.
//!
//! Operators keep the article's argument order with outputs first as
//! `&mut Pose`. They take `parents: &[i32]` with -1 for a root, in
//! parent-first order. Where the article `assert`s, they return an error
//! and write nothing: [`Error::Length`] when a pose is shorter than the
//! output (or than `parents`) or its fields differ in length,
//! [`Error::Skeleton`] when a parent does not precede its child. The
//! validated entry points over whole crowds are in [`crate::batch`].

use super::kform::{Kform, kform_div, kform_mul};
use super::math::{
    Quat, Vec3, div_dt, log_vec3, quat_abs, quat_mul_inv, quat_to_scaled_angle_axis,
};
use crate::error::{Error, Result};

/// A pose: one entry per joint in each field (the article's `struct pose`).
/// `clone_from` reuses the target's memory (a derived `Clone` would
/// allocate six vectors anew each time).
#[derive(Debug, PartialEq, Default)]
pub struct Pose {
    /// Positions.
    pub pos: Vec<Vec3>,
    /// Rotations.
    pub rot: Vec<Quat>,
    /// Scales.
    pub scl: Vec<Vec3>,
    /// Linear velocities.
    pub vel: Vec<Vec3>,
    /// Angular velocities.
    pub ang: Vec<Vec3>,
    /// Scalar velocities.
    pub svl: Vec<Vec3>,
}

impl Clone for Pose {
    fn clone(&self) -> Pose {
        Pose {
            pos: self.pos.clone(),
            rot: self.rot.clone(),
            scl: self.scl.clone(),
            vel: self.vel.clone(),
            ang: self.ang.clone(),
            svl: self.svl.clone(),
        }
    }

    /// Field by field, each vector keeping its memory where it has room.
    fn clone_from(&mut self, source: &Pose) {
        self.pos.clone_from(&source.pos);
        self.rot.clone_from(&source.rot);
        self.scl.clone_from(&source.scl);
        self.vel.clone_from(&source.vel);
        self.ang.clone_from(&source.ang);
        self.svl.clone_from(&source.svl);
    }
}

impl Pose {
    /// A pose of `joints` identity kineforms.
    pub fn new(joints: usize) -> Pose {
        Pose::from_kforms(&vec![Kform::IDENTITY; joints])
    }

    /// A pose from one kineform per joint.
    pub fn from_kforms(k: &[Kform]) -> Pose {
        Pose {
            pos: k.iter().map(|k| k.pos).collect(),
            rot: k.iter().map(|k| k.rot).collect(),
            scl: k.iter().map(|k| k.scl).collect(),
            vel: k.iter().map(|k| k.vel).collect(),
            ang: k.iter().map(|k| k.ang).collect(),
            svl: k.iter().map(|k| k.svl).collect(),
        }
    }

    /// Number of joints (the length of `pos`).
    pub fn len(&self) -> usize {
        self.pos.len()
    }

    /// True for a pose of no joints.
    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }

    /// True when every field has the same length.
    pub fn is_consistent(&self) -> bool {
        let n = self.pos.len();
        self.field_lens().iter().all(|&m| m == n)
    }

    /// Each field's length, `pos` first, in the fields' order.
    fn field_lens(&self) -> [usize; 6] {
        [
            self.pos.len(),
            self.rot.len(),
            self.scl.len(),
            self.vel.len(),
            self.ang.len(),
            self.svl.len(),
        ]
    }

    /// Joint `i` as a kineform (the article's `pose::operator()`).
    ///
    /// # Panics
    /// When `i` is past a field (`i >= len()`, or a shorter field of a pose
    /// that is not [`Pose::is_consistent`]).
    pub fn get(&self, i: usize) -> Kform {
        Kform {
            pos: self.pos[i],
            rot: self.rot[i],
            scl: self.scl[i],
            vel: self.vel[i],
            ang: self.ang[i],
            svl: self.svl[i],
        }
    }

    /// Sets joint `i` from a kineform.
    ///
    /// # Panics
    /// As [`Pose::get`], before writing anything: a pose that is not
    /// consistent keeps every field as it was when `i` is past its
    /// shortest one.
    pub fn set(&mut self, i: usize, k: Kform) {
        // The documented precondition of an index (as `get`'s slice
        // indexing): only a caller's joint past the pose reaches it; the
        // crate's own callers (the reference crowd) set joints below the
        // length they built their poses with.
        let shortest = self.field_lens().into_iter().min().unwrap_or(0);
        assert!(
            i < shortest,
            "joint {i} past the pose's shortest field ({shortest} joints)"
        );
        self.pos[i] = k.pos;
        self.rot[i] = k.rot;
        self.scl[i] = k.scl;
        self.vel[i] = k.vel;
        self.ang[i] = k.ang;
        self.svl[i] = k.svl;
    }

    /// Every joint as a kineform.
    ///
    /// # Panics
    /// For a pose that is not [`Pose::is_consistent`] (a field shorter
    /// than the positions).
    pub fn to_kforms(&self) -> Vec<Kform> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }
}

/// [`Error::Length`] unless every pose has every field at least `n` long
/// (and its own fields equally long).
pub(crate) fn lengths(n: usize, poses: &[&Pose]) -> Result<()> {
    for p in poses {
        let short = p
            .field_lens()
            .into_iter()
            .find(|&m| m < n || m != p.pos.len());
        if let Some(got) = short {
            return Err(short_pose(n.max(p.pos.len()), got));
        }
    }
    Ok(())
}

/// The refusal of a pose with a field of `got` joints where `expected` are
/// needed: the one [`Error::Length`] of both paths ([`lengths`] here,
/// [`pose_lengths`] for the 8-lane poses).
fn short_pose(expected: usize, got: usize) -> Error {
    Error::Length {
        what: "pose joints (every field of every pose)",
        expected,
        got,
    }
}

/// [`lengths`] for poses held as one slice each (the 8-lane poses of
/// [`crate::lanes`], whose fields cannot differ in length): [`Error::Length`]
/// unless each of `lens` is at least `n`, the first short one named.
pub(crate) fn pose_lengths(n: usize, lens: &[usize]) -> Result<()> {
    match lens.iter().find(|&&m| m < n) {
        Some(&got) => Err(short_pose(n, got)),
        None => Ok(()),
    }
}

/// The poses have every joint of `parents`, and each parent precedes its
/// child ([`Error::Skeleton`] naming the first joint that does not).
pub(crate) fn check_hierarchy(parents: &[i32], poses: &[&Pose]) -> Result<()> {
    lengths(parents.len(), poses)?;
    check_parents(parents)
}

/// Poses of `lens` joints have every joint of `parents` ([`Error::Length`]),
/// and each parent precedes its child ([`Error::Skeleton`]).
pub(crate) fn check_joints(parents: &[i32], lens: &[usize]) -> Result<()> {
    if let Some(&got) = lens.iter().find(|&&n| n < parents.len()) {
        return Err(Error::Length {
            what: "pose joints",
            expected: parents.len(),
            got,
        });
    }
    check_parents(parents)
}

/// Each parent is -1 or precedes its child ([`Error::Skeleton`] naming
/// the first joint whose parent does not).
pub(crate) fn check_parents(parents: &[i32]) -> Result<()> {
    for (i, &p) in parents.iter().enumerate() {
        if !(p < i as i32 && p >= -1) {
            return Err(Error::Skeleton {
                joint: i,
                reason: format!("parent {p} must be -1 or a joint index smaller than {i}"),
            });
        }
    }
    Ok(())
}

/// Forward kinematics with velocities: each joint is `kform_mul(parent's
/// global, local)`, roots copied (velocities article, "Forward & Backward
/// Kinematics").
pub fn op_fk(global: &mut Pose, local: &Pose, parents: &[i32]) -> Result<()> {
    check_hierarchy(parents, &[&*global, local])?;
    for (i, &p) in parents.iter().enumerate() {
        let k = if p < 0 {
            local.get(i)
        } else {
            kform_mul(global.get(p as usize), local.get(i))
        };
        global.set(i, k);
    }
    Ok(())
}

/// Forward kinematics of positions, rotations and scales only; the global
/// velocities are set to zero.
pub fn op_fk_static(global: &mut Pose, local: &Pose, parents: &[i32]) -> Result<()> {
    check_hierarchy(parents, &[&*global, local])?;
    for (i, &p) in parents.iter().enumerate() {
        global.vel[i] = Vec3::ZERO;
        global.ang[i] = Vec3::ZERO;
        global.svl[i] = Vec3::ZERO;
        if p < 0 {
            global.pos[i] = local.pos[i];
            global.rot[i] = local.rot[i];
            global.scl[i] = local.scl[i];
        } else {
            let p = p as usize;
            let (par_pos, par_rot, par_scl) = (global.pos[p], global.rot[p], global.scl[p]);
            global.pos[i] = super::math::quat_mul_vec3(par_rot, local.pos[i] * par_scl) + par_pos;
            global.rot[i] = super::math::quat_mul(par_rot, local.rot[i]);
            global.scl[i] = local.scl[i] * par_scl;
        }
    }
    Ok(())
}

/// Backward kinematics: each joint is `kform_div(parent's global, global)`,
/// the exact inverse of [`op_fk`] (see [`kform_div`] for the deviation from
/// the published reference at non-unit scale).
pub fn op_bk(local: &mut Pose, global: &Pose, parents: &[i32]) -> Result<()> {
    check_hierarchy(parents, &[&*local, global])?;
    for (i, &p) in parents.iter().enumerate() {
        let k = if p < 0 {
            global.get(i)
        } else {
            kform_div(global.get(p as usize), global.get(i))
        };
        local.set(i, k);
    }
    Ok(())
}

/// Velocities of `input_curr` by finite difference with `input_prev`:
/// `vel = (pos₁ - pos₀) / dt`,
/// `ang = quat_to_scaled_angle_axis(quat_abs(rot₁ rot₀⁻¹)) / dt`,
/// `svl = log(scl₁ / scl₀) / dt`. Only the velocity fields of `output` are
/// written. With `dt == 0` they are zero (edge-case table).
pub fn op_finite_diff(
    output: &mut Pose,
    input_curr: &Pose,
    input_prev: &Pose,
    dt: f32,
) -> Result<()> {
    let n = output.len();
    lengths(n, &[&*output, input_curr, input_prev])?;
    for i in 0..n {
        output.vel[i] = div_dt(input_curr.pos[i] - input_prev.pos[i], dt);
        output.ang[i] = div_dt(
            quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(input_curr.rot[i], input_prev.rot[i]))),
            dt,
        );
        output.svl[i] = div_dt(log_vec3(input_curr.scl[i] / input_prev.scl[i]), dt);
    }
    Ok(())
}

/// The panic of [`Slice2d::at`] and [`Slice2d::get8`] for column `c`
/// of `cols`, kept out of line so that the check leaves the gathers' loops
/// as they were.
#[cold]
#[inline(never)]
#[track_caller]
fn past_column(c: usize, cols: usize) -> ! {
    panic!("column {c} of a view of {cols} columns")
}

/// The panic of [`Slice2d::at`] and [`Slice2d::get8`] for row `r` of
/// `rows`.
#[cold]
#[inline(never)]
#[track_caller]
fn past_row(r: usize, rows: usize) -> ! {
    panic!("row {r} of a view of {rows} rows")
}

/// A read-only frames × joints view (the articles' `slice2d`): `rows`
/// frames of `cols` values each, frame-major.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slice2d<'a, T> {
    data: &'a [T],
    cols: usize,
    rows: usize,
}

impl<'a, T: Copy> Slice2d<'a, T> {
    /// A view of `data` as rows of `cols` values; `None` when `cols` is 0
    /// or does not divide the length.
    pub fn new(data: &'a [T], cols: usize) -> Option<Slice2d<'a, T>> {
        // Lazily: with `cols` 0 the division must not run.
        (cols > 0 && data.len().is_multiple_of(cols)).then(|| Slice2d {
            data,
            cols,
            rows: data.len() / cols,
        })
    }

    /// Number of rows (frames).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns (joints).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The value at row `r`, column `c`; `None` when `r >= rows()` or `c >=
    /// cols()`.
    pub fn get(&self, r: usize, c: usize) -> Option<T> {
        (r < self.rows && c < self.cols).then(|| self.data[r * self.cols + c])
    }

    /// [`Slice2d::get`] for the crate's kernels, which check their views'
    /// shapes before reading (`check_views`, the loops' `seam_frames` and
    /// per-joint checks) and read rows clamped to the view and columns
    /// below its joints: the checks here are never reached from any input,
    /// and keep a broken caller from reading another row's value.
    #[inline(always)]
    pub(crate) fn at(&self, r: usize, c: usize) -> T {
        if c >= self.cols {
            past_column(c, self.cols);
        }
        if r >= self.rows {
            past_row(r, self.rows);
        }
        self.data[r * self.cols + c]
    }

    /// Column `c` of eight rows, the gather of the 8-lane sampler:
    /// [`Slice2d::at`] of each row with the column checked once (its
    /// callers, `op_sample_*`, checked the views and clamp the rows, so
    /// the checks are never reached from any input).
    #[inline(always)]
    pub(crate) fn get8(&self, rows: &[usize; 8], c: usize) -> [T; 8] {
        if c >= self.cols {
            past_column(c, self.cols);
        }
        let top = rows.iter().fold(0, |m, &r| m.max(r));
        if top >= self.rows {
            past_row(top, self.rows);
        }
        // Every row is below the view's: no product can wrap. Written out:
        // `from_fn` or `map` here were left as calls by the compiler,
        // which made the 8-lane sampling 1.8x slower; the column checked
        // after the rows, or with them in one branch, made it 1.2x slower
        // (`catalogue` bench, `velocities/op_sample_linear/lanes`, Zen 4).
        let (d, cols) = (self.data, self.cols);
        let at = |r: usize| d[r * cols + c];
        [
            at(rows[0]),
            at(rows[1]),
            at(rows[2]),
            at(rows[3]),
            at(rows[4]),
            at(rows[5]),
            at(rows[6]),
            at(rows[7]),
        ]
    }

    /// Row `r`; `None` when `r >= rows()`.
    pub fn row(&self, r: usize) -> Option<&'a [T]> {
        (r < self.rows).then(|| &self.data[r * self.cols..(r + 1) * self.cols])
    }

    /// All values, frame-major.
    pub fn data(&self) -> &'a [T] {
        self.data
    }
}

/// Velocities of `output` by finite difference with `input_prev`, in place:
/// [`op_finite_diff`] with `output` as the current pose.
pub fn op_finite_diff_inplace(output: &mut Pose, input_prev: &Pose, dt: f32) -> Result<()> {
    let n = output.len();
    lengths(n, &[&*output, input_prev])?;
    for i in 0..n {
        output.vel[i] = div_dt(output.pos[i] - input_prev.pos[i], dt);
        output.ang[i] = div_dt(
            quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(output.rot[i], input_prev.rot[i]))),
            dt,
        );
        output.svl[i] = div_dt(log_vec3(output.scl[i] / input_prev.scl[i]), dt);
    }
    Ok(())
}

/// The pose `dt` seconds earlier along its own velocities (velocities
/// article, "Finite Difference"): `pos - vel dt`,
/// `inv(exp(ang dt / 2)) rot`, `scl / exp(svl dt)`; velocities copied.
pub fn op_extrapolate_prev(proj: &mut Pose, pose: &Pose, dt: f32) -> Result<()> {
    let n = proj.len();
    lengths(n, &[&*proj, pose])?;
    for i in 0..n {
        proj.pos[i] = pose.pos[i] - pose.vel[i] * dt;
        proj.rot[i] = super::math::quat_inv_mul(
            super::math::quat_from_scaled_angle_axis(pose.ang[i] * dt),
            pose.rot[i],
        );
        proj.scl[i] = pose.scl[i] / super::math::exp_vec3(pose.svl[i] * dt);
        proj.vel[i] = pose.vel[i];
        proj.ang[i] = pose.ang[i];
        proj.svl[i] = pose.svl[i];
    }
    Ok(())
}

/// Scales a pose's velocities by `factor` (the velocities article's
/// `op_timescale`): an animation played at `factor` times its speed moves
/// `factor` times as fast.
pub fn op_timescale(output: &mut Pose, factor: f32) {
    // Field by field: a pose whose fields differ in length is scaled as far
    // as each goes, not indexed past one.
    for v in [&mut output.vel, &mut output.ang, &mut output.svl] {
        for x in v.iter_mut() {
            *x = *x * factor;
        }
    }
}
