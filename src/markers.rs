//! Markers on clips: named points in a clip's time (a footstep, a hit, a
//! sound) that a crowd reports as events when a character's playhead
//! crosses them ([`crate::crowd::EventKind::Marker`], with the crossing
//! rules in [`crate::crowd::MarkerHit`]). A clip's markers live with the
//! clip ([`Clip::markers`]; serialized with it), added through
//! [`Clip::add_marker`] (or [`crate::crowd::ClipLibrary::add_marker`] for a
//! clip already in a library) or detected: [`Clip::foot_contacts`] finds
//! where a foot lands from its height and speed.

use crate::clip::Clip;
use crate::error::{Error, Result};
use crate::limits::{MAX_MARKER_NAME, MAX_MARKERS};
use crate::reference::{Quat, Vec3, quat_mul, quat_mul_vec3};

/// A named point of a clip's time.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Marker {
    /// What it marks ("left foot", "hit"): at most
    /// [`MAX_MARKER_NAME`] bytes.
    pub name: String,
    /// Seconds into the clip, within `[0, last_time]`.
    pub time: f32,
}

/// Checks a marker for a clip of `last_time` seconds that holds `count`
/// markers already.
pub(crate) fn check_marker(name: &str, time: f32, last_time: f32, count: usize) -> Result<()> {
    if count >= MAX_MARKERS {
        return Err(Error::Length {
            what: "markers of a clip (at most kineform::limits::MAX_MARKERS)",
            expected: MAX_MARKERS,
            got: count + 1,
        });
    }
    if name.len() > MAX_MARKER_NAME {
        return Err(Error::Length {
            what: "marker name bytes (at most kineform::limits::MAX_MARKER_NAME)",
            expected: MAX_MARKER_NAME,
            got: name.len(),
        });
    }
    if !(time.is_finite() && (0.0..=last_time).contains(&time)) {
        return Err(Error::Parameter {
            name: "marker time",
            value: time,
            reason: "must be finite and within the clip, [0, last_time] s",
        });
    }
    Ok(())
}

/// Thresholds of foot-contact detection ([`Clip::foot_contacts`]): a foot
/// is down on a frame where it is at most `height` above the lowest point
/// it reaches in the clip (measured along `up`) and moves at most `speed`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FootContact {
    /// Height above the foot's lowest point in the clip, clip units:
    /// finite, >= 0.
    pub height: f32,
    /// The foot's speed (central differences of its position in the clip's
    /// space), clip units per second: finite, >= 0.
    pub speed: f32,
    /// Fewest consecutive frames down that count as a contact (>= 1): one
    /// frame of a foot sliding through the thresholds is not a step.
    pub min_frames: usize,
    /// The up axis (a unit vector; normalized here): +y for BVH and glTF.
    pub up: Vec3,
    /// Whether the clip loops: a contact that runs over the clip's end into
    /// its start is one contact, not a new one at frame 0.
    pub looping: bool,
}

impl FootContact {
    /// Thresholds for the CMU clips (units of about 5.6 cm, 120 Hz, +y up):
    /// within 1.5 units (about 8 cm) of the lowest point, under 12 units
    /// per second (about 0.7 m/s), for 4 frames or more, looping.
    pub const CMU: FootContact = FootContact {
        height: 1.5,
        speed: 12.0,
        min_frames: 4,
        up: Vec3 {
            x: 0.0,
            y: 1.0,
            z: 0.0,
        },
        looping: true,
    };

    fn check(&self) -> Result<()> {
        for (name, v) in [
            ("foot contact height", self.height),
            ("foot contact speed", self.speed),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::Parameter {
                    name,
                    value: v,
                    reason: "must be finite and >= 0",
                });
            }
        }
        if self.min_frames == 0 {
            return Err(Error::Length {
                what: "foot contact min_frames (at least 1)",
                expected: 1,
                got: 0,
            });
        }
        let u = self.up;
        let len = (u.x * u.x + u.y * u.y + u.z * u.z).sqrt();
        if !(len.is_finite() && len > 1e-6) {
            return Err(Error::Parameter {
                name: "foot contact up",
                value: len,
                reason: "must be a finite vector of non-zero length",
            });
        }
        Ok(())
    }
}

/// The world position (the clip's space) at frame `f` of the last joint of
/// `chain` (root first): positions, rotations and scales down the chain,
/// as [`crate::reference::op_fk_static`] does.
fn joint_position(clip: &Clip, chain: &[usize], f: usize) -> Vec3 {
    let (mut pos, mut rot, mut scl) = (Vec3::ZERO, Quat::IDENTITY, Vec3::splat(1.0));
    for &k in chain {
        pos = quat_mul_vec3(rot, clip.pos_at(f, k) * scl) + pos;
        rot = quat_mul(rot, clip.rot_at(f, k));
        scl = clip.scl_at(f, k) * scl;
    }
    pos
}

impl Clip {
    /// The clip's markers, in the order they were added (a marker's index
    /// here is the one events name).
    pub fn markers(&self) -> &[Marker] {
        &self.markers
    }

    /// Adds a marker named `name` at `time` seconds; returns its index.
    /// Refused, with nothing added: a time that is not finite or not within
    /// `[0, last_time]`, a name past [`MAX_MARKER_NAME`] bytes, a clip that
    /// holds [`MAX_MARKERS`] already.
    pub fn add_marker(&mut self, name: &str, time: f32) -> Result<usize> {
        check_marker(name, time, self.last_time(), self.markers.len())?;
        self.markers.push(Marker {
            name: name.to_string(),
            time,
        });
        Ok(self.markers.len() - 1)
    }

    /// Removes every marker.
    pub fn clear_markers(&mut self) {
        self.markers.clear();
    }

    /// The times (seconds) at which joint `foot` comes down: the first
    /// frame of each run of at least `c.min_frames` frames on which it is
    /// within `c.height` of its lowest point along `c.up` and moves at
    /// most `c.speed` ([`FootContact`]). `parents` is the clip's hierarchy
    /// (each parent -1 or before its child). A run that holds at the clip's
    /// start is a contact at time 0 unless the clip loops and the run
    /// continues from its end. Refuses a `foot` or `parents` that do not
    /// fit the clip, and thresholds out of range, naming them.
    ///
    /// ```
    /// use kineform::markers::FootContact;
    /// let bvh = kineform::bvh::load("data/mocap/cmu_12_01_walk_mb.bvh")?;
    /// let foot = bvh.skeleton.find("LeftFoot").unwrap();
    /// let steps = bvh.clip.foot_contacts(bvh.skeleton.parents(), foot, &FootContact::CMU)?;
    /// assert!((3..=6).contains(&steps.len())); // a left step about every 1.1 s of 4.4 s
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn foot_contacts(&self, parents: &[i32], foot: usize, c: &FootContact) -> Result<Vec<f32>> {
        c.check()?;
        if parents.len() != self.joints() {
            return Err(Error::Length {
                what: "foot contact parents (one per clip joint)",
                expected: self.joints(),
                got: parents.len(),
            });
        }
        crate::skeleton::Skeleton::new(parents.to_vec())?;
        if foot >= self.joints() {
            return Err(Error::Index {
                what: "foot joint",
                index: foot,
                len: self.joints(),
            });
        }
        let n = self.frames();
        let up = c.up * (1.0 / (c.up.x * c.up.x + c.up.y * c.up.y + c.up.z * c.up.z).sqrt());
        let mut at = Vec::new();
        at.try_reserve_exact(n).map_err(|_| Error::Size {
            what: "foot positions",
            reason: format!("{n} positions could not be reserved"),
        })?;
        let mut chain = Vec::new();
        let mut j = foot as i32;
        while j >= 0 {
            chain.push(j as usize);
            j = parents[j as usize];
        }
        chain.reverse();
        at.extend((0..n).map(|f| joint_position(self, &chain, f)));
        let height = |p: Vec3| f64::from(p.x * up.x + p.y * up.y + p.z * up.z);
        let lowest = at.iter().map(|&p| height(p)).fold(f64::INFINITY, f64::min);
        let dt = f64::from(self.frame_time());
        let down: Vec<bool> = (0..n)
            .map(|f| {
                let (a, b) = (at[f.saturating_sub(1)], at[(f + 1).min(n - 1)]);
                let span = ((f + 1).min(n - 1) - f.saturating_sub(1)).max(1) as f64 * dt;
                let d = b - a;
                let speed = crate::clip::length64(&[d.x, d.y, d.z]) / span;
                height(at[f]) - lowest <= f64::from(c.height) && speed <= f64::from(c.speed)
            })
            .collect();
        Ok(contact_starts(&down, c.min_frames, c.looping)
            .into_iter()
            .map(|f| f as f32 * self.frame_time())
            .collect())
    }

    /// Adds a marker named `name` at each of [`Clip::foot_contacts`]'s
    /// times; returns how many. Refused, with nothing added, as
    /// [`Clip::foot_contacts`] and [`Clip::add_marker`] refuse.
    pub fn add_foot_contacts(
        &mut self,
        parents: &[i32],
        foot: usize,
        name: &str,
        c: &FootContact,
    ) -> Result<usize> {
        let times = self.foot_contacts(parents, foot, c)?;
        let last = self.last_time();
        for (i, &t) in times.iter().enumerate() {
            check_marker(name, t.min(last), last, self.markers.len() + i)?;
        }
        for &t in &times {
            self.add_marker(name, t.min(last))?;
        }
        Ok(times.len())
    }
}

/// The first frame of each run of at least `min` `true`s in `down`; where
/// `looping`, a run may go on over the end into the start (reported at its
/// first frame near the end) and one run that covers every frame is none.
fn contact_starts(down: &[bool], min: usize, looping: bool) -> Vec<usize> {
    let n = down.len();
    if n == 0 || (looping && down.iter().all(|&d| d)) {
        return Vec::new();
    }
    // Where looping, start scanning just after a frame that is up, so no
    // run is cut by the seam.
    let first = match looping {
        true => (0..n).find(|&f| !down[f]).map_or(0, |f| f + 1),
        false => 0,
    };
    let mut starts = Vec::new();
    let mut run: Option<(usize, usize)> = None;
    let scan = if looping { n } else { n + 1 };
    for i in 0..scan {
        let f = (first + i) % n;
        let is_down = i < n && down[f];
        match (run, is_down) {
            (None, true) => run = Some((f, 1)),
            (Some((s, len)), true) => run = Some((s, len + 1)),
            (Some((s, len)), false) => {
                if len >= min {
                    starts.push(s);
                }
                run = None;
            }
            (None, false) => {}
        }
    }
    if let Some((s, len)) = run
        && len >= min
    {
        starts.push(s);
    }
    starts.sort_unstable();
    starts
}

#[cfg(test)]
mod tests {
    use super::contact_starts;

    #[test]
    fn runs_start_where_the_foot_comes_down() {
        let d = |s: &str| s.chars().map(|c| c == '#').collect::<Vec<_>>();
        assert_eq!(contact_starts(&d("..###..##.####"), 3, false), vec![2, 10]);
        assert_eq!(contact_starts(&d("###..###"), 3, false), vec![0, 5]);
        // Looping: the run over the seam is one contact, at frame 5.
        assert_eq!(contact_starts(&d("###..###"), 3, true), vec![5]);
        assert_eq!(contact_starts(&d("########"), 1, true), Vec::<usize>::new());
        assert_eq!(contact_starts(&d("#......."), 1, true), vec![0]);
    }
}
