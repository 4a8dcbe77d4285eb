//! `kineform crowd --lod` and `--budget MS` (issue 25): level of detail
//! driven as a game drives it, from a camera. A simulated camera circles
//! over the crowd (once every [`TURN_SECONDS`] of game time, half-way out
//! from the crowd's centre); after each frame, outside its timing, the
//! driver reads a quarter of the characters' boxes (each box every
//! [`REREAD`] frames: the camera needs no more, and with level of detail
//! a carried character's box is made from its carried pose when read, a
//! cost of every joint; the report reads every box after each timed
//! frame, as a renderer would), and before the next step
//! either sets each pack's period by its distance band ([`Mode::Bands`],
//! `--lod`) or gives the crowd's budget allocator every character's
//! closeness to the camera as its significance ([`Mode::Budget`],
//! `--budget`). Both crowds (`--scalar`) are driven the same way.

use std::ops::Range;

use kineform::crowd::budget::{CHOSEN, PERIODS, PhaseRuns};
use kineform::crowd::{Aabb, Budget, Command, Crowd, Driven, FrameStats, ReferenceCrowd};

/// Seconds of game time the camera takes to circle the crowd once.
pub(crate) const TURN_SECONDS: f32 = 20.0;

/// Frames between two readings of a character's box by the driver.
pub(crate) const REREAD: usize = 4;

/// The distance bands of `--lod`, as shares of the crowd's half-diagonal:
/// a pack whose nearest character is within `BANDS[i]` of the camera is
/// evaluated at the `i`-th period the budget allocator chooses from
/// (`PERIODS[CHOSEN[i]]`: 1, 4, 8; period 2 saves little over period 1);
/// beyond the last, every 16th.
pub(crate) const BANDS: [f32; 3] = [0.15, 0.4, 0.75];

/// Level of detail's options of `kineform crowd`.
#[derive(clap::Args, Clone, Copy)]
pub(crate) struct LodArgs {
    /// Level of detail (`CrowdConfig::level_of_detail`), periods from a
    /// simulated camera circling over the crowd: each pack of eight
    /// characters is evaluated every frame when its nearest character is
    /// within 15% of the crowd's half-diagonal of the camera, every 4th
    /// within 40%, every 8th within 75%, and every 16th beyond (phases in
    /// runs of neighbouring packs, as the crowd's allocator gives them;
    /// period 2 saves little over period 1), carried
    /// along its velocities between; a `SetPeriod` when its band changes.
    #[arg(long)]
    pub(crate) lod: bool,
    /// A budget of MS milliseconds of CPU time per frame, summed over the
    /// threads, in (0, 10000]: level of detail with the crowd's allocator
    /// (`Crowd::set_budget`, from its own measured cost) choosing the
    /// periods, each character's significance its closeness to the same
    /// camera (`--lod`'s bands are then not used).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = parse_budget)]
    pub(crate) budget: Option<f32>,
}

impl LodArgs {
    /// Whether the crowd runs with level of detail.
    pub(crate) fn on(&self) -> bool {
        self.lod || self.budget.is_some()
    }
}

/// A budget in milliseconds: finite, in (0, 10000] (the allocator's
/// [`kineform::crowd::budget::MAX_BUDGET`], 10 s), and a number of
/// seconds above 0 once divided by 1000.
fn parse_budget(s: &str) -> Result<f32, String> {
    let ms: f32 = s.parse().map_err(|e| format!("{e}"))?;
    match ms / 1e3 > 0.0 && ms / 1e3 <= kineform::crowd::budget::MAX_BUDGET {
        true => Ok(ms),
        false => Err(format!("{ms} ms must be finite, > 0 and <= 10000")),
    }
}

/// What level of detail a crowd needs from its driver: both crowds have it.
pub(crate) trait Detailed: Driven {
    /// [`Crowd::set_significance`].
    fn set_significance(&mut self, first: usize, values: &[f32]) -> kineform::Result<()>;
    /// [`Crowd::set_budget`].
    fn set_budget(&mut self, budget: Option<Budget>) -> kineform::Result<()>;
}

impl Detailed for Crowd {
    fn set_significance(&mut self, first: usize, values: &[f32]) -> kineform::Result<()> {
        Crowd::set_significance(self, first, values)
    }
    fn set_budget(&mut self, budget: Option<Budget>) -> kineform::Result<()> {
        Crowd::set_budget(self, budget)
    }
}

impl Detailed for ReferenceCrowd {
    fn set_significance(&mut self, first: usize, values: &[f32]) -> kineform::Result<()> {
        ReferenceCrowd::set_significance(self, first, values)
    }
    fn set_budget(&mut self, budget: Option<Budget>) -> kineform::Result<()> {
        ReferenceCrowd::set_budget(self, budget)
    }
}

/// How the driver chooses periods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Mode {
    /// `--lod`: by distance band, per pack.
    Bands,
    /// `--budget`: the crowd's allocator, within this budget (seconds).
    Budget(f32),
}

/// What the timed frames of a level-of-detail run add up.
#[derive(Clone, Debug, Default)]
pub(crate) struct LodFigures {
    /// Timed frames.
    pub(crate) frames: u64,
    /// Characters evaluated, over the timed frames.
    pub(crate) evaluated: u64,
    /// Characters at each of [`PERIODS`], summed over the timed frames.
    pub(crate) at: [u64; 5],
    /// Characters whose period the driver changed before the timed steps
    /// (bands).
    pub(crate) changed: u64,
    /// The allocator's expected and the measured CPU seconds, summed over
    /// the timed frames, and the frames whose choice fitted (budget).
    pub(crate) expected_s: f64,
    pub(crate) measured_s: f64,
    pub(crate) fitting: u64,
    /// The allocator's last cost per evaluated character, seconds.
    pub(crate) per_character_s: f64,
}

/// The camera and the driver of `--lod` and `--budget`.
pub(crate) struct LodDriver {
    mode: Mode,
    characters: usize,
    /// The boxes read after the last step.
    boxes: Vec<Aabb>,
    /// Each character's closeness to the camera: minus its distance.
    closeness: Vec<f32>,
    /// Each pack's period (bands; 0 before the first is set).
    periods: Vec<u32>,
    /// Each pack's new period this step, 0 where it keeps its own
    /// (bands).
    wanted: Vec<u32>,
    /// The phases handed out (bands), kept from step to step as the
    /// crowd's allocator keeps them.
    phases: PhaseRuns,
    /// The crowd's half-diagonal, from the last boxes read.
    reach: f32,
    time: f32,
    /// Steps seen (which quarter of the boxes is read next).
    steps: usize,
    /// Characters whose period the driver changed before this step.
    changing: u64,
    /// Whether the budget was given to the crowd.
    started: bool,
    /// What the timed frames add up.
    pub(crate) figures: LodFigures,
}

impl LodDriver {
    /// A driver for `characters` characters, or `None` without level of
    /// detail.
    pub(crate) fn new(a: &LodArgs, characters: usize) -> Option<LodDriver> {
        if !a.on() {
            return None;
        }
        Some(LodDriver {
            mode: match a.budget {
                Some(ms) => Mode::Budget(ms / 1e3),
                None => Mode::Bands,
            },
            characters,
            boxes: vec![Aabb::ZERO; characters],
            closeness: vec![0.0; characters],
            periods: vec![0; characters.div_ceil(8)],
            wanted: vec![0; characters.div_ceil(8)],
            phases: PhaseRuns::default(),
            reach: 0.0,
            time: 0.0,
            steps: 0,
            changing: 0,
            started: false,
            figures: LodFigures::default(),
        })
    }

    /// Before a step, in the frame: the closeness as significance
    /// (budget; the budget itself the first time), or a `SetPeriod` for
    /// each character of each pack whose band changed (bands).
    pub(crate) fn before(&mut self, crowd: &mut impl Detailed) -> kineform::Result<()> {
        if let Mode::Budget(seconds) = self.mode {
            if !self.started {
                crowd.set_budget(Some(Budget::measured(seconds)))?;
                self.started = true;
            }
            return crowd.set_significance(0, &self.closeness);
        }
        // The packs whose band changed, then their phases in pack order,
        // in runs of neighbouring packs as the crowd's allocator hands
        // them out (`budget::PhaseRuns`: the evaluated packs of a step lie
        // together in memory).
        let mut changing = [0u32; 5];
        for (p, (period, wanted)) in self.periods.iter().zip(&mut self.wanted).enumerate() {
            let pack = 8 * p..(8 * p + 8).min(self.characters);
            let near = self.closeness[pack]
                .iter()
                .fold(f32::NEG_INFINITY, |a, &b| a.max(b));
            let band = BANDS.iter().take_while(|&&b| -near > b * self.reach);
            let i = CHOSEN[band.count()];
            *wanted = 0;
            if PERIODS[i] != *period {
                *wanted = PERIODS[i];
                changing[i] += 1;
            }
        }
        self.phases.begin(changing);
        for (p, &want) in self.wanted.iter().enumerate() {
            // 0 (the pack keeps its period) is not one of PERIODS.
            let Some(phase) = self.phases.phase(want) else {
                continue;
            };
            self.periods[p] = want;
            for c in 8 * p..(8 * p + 8).min(self.characters) {
                crowd.command(
                    c,
                    Command::SetPeriod {
                        period: want,
                        phase,
                    },
                )?;
                self.figures.changed += 1;
            }
        }
        Ok(())
    }

    /// After a step of `dt`, out of the frame: a quarter of the boxes
    /// read by `bounds` (all after the first step), the camera moved and
    /// the closeness measured for the next step; the step's figures added
    /// when `timed`.
    pub(crate) fn after(
        &mut self,
        bounds: impl FnOnce(Range<usize>, &mut [Aabb]) -> kineform::Result<()>,
        s: &FrameStats,
        dt: f32,
        timed: bool,
    ) -> kineform::Result<()> {
        let n = self.characters;
        let q = self.steps % REREAD;
        let read = match self.steps {
            0 => 0..n,
            _ => q * n / REREAD..(q + 1) * n / REREAD,
        };
        self.steps += 1;
        bounds(read.clone(), &mut self.boxes[read])?;
        self.time += dt;
        let (lo, hi) = self.boxes.iter().map(Aabb::center).fold(
            ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]),
            |(lo, hi), c| {
                (
                    [lo[0].min(c.x), lo[1].min(c.z)],
                    [hi[0].max(c.x), hi[1].max(c.z)],
                )
            },
        );
        let half = [0.5 * (hi[0] - lo[0]), 0.5 * (hi[1] - lo[1])];
        self.reach = length64(half[0], half[1]);
        let turn = std::f32::consts::TAU * self.time / TURN_SECONDS;
        let camera = [
            lo[0] + half[0] + 0.5 * half[0] * turn.cos(),
            lo[1] + half[1] + 0.5 * half[1] * turn.sin(),
        ];
        for (close, b) in self.closeness.iter_mut().zip(&self.boxes) {
            let c = b.center();
            *close = -length64(c.x - camera[0], c.z - camera[1]);
        }
        if timed {
            self.add(s);
            self.figures.changed += self.changing;
        }
        self.changing = 0;
        Ok(())
    }

    /// A timed step's figures.
    fn add(&mut self, s: &FrameStats) {
        let f = &mut self.figures;
        f.frames += 1;
        f.evaluated += u64::from(s.evaluated);
        match s.budget {
            Some(b) => {
                for (at, n) in f.at.iter_mut().zip(b.characters_at) {
                    *at += u64::from(n);
                }
                f.expected_s += f64::from(b.expected_seconds);
                f.measured_s += f64::from(b.measured_seconds);
                f.fitting += u64::from(b.fits);
                f.per_character_s = f64::from(b.seconds_per_character);
            }
            None => {
                for (p, &period) in self.periods.iter().enumerate() {
                    let n = (8 * p + 8).min(self.characters) - 8 * p;
                    if let Some(i) = PERIODS.iter().position(|&q| q == period) {
                        f.at[i] += n as u64;
                    }
                }
            }
        }
    }

    /// The figures as `--json` reports them.
    pub(crate) fn json(&self) -> serde_json::Value {
        let f = &self.figures;
        let frames = f.frames.max(1) as f64;
        let per_frame = |x: f64| x / frames;
        let budget = match self.mode {
            Mode::Budget(s) => Some(s),
            Mode::Bands => None,
        };
        serde_json::json!({
            "mode": if budget.is_some() { "budget" } else { "bands" },
            "budget_ms": budget.map(|s| f64::from(s) * 1e3),
            "evaluated_share": per_frame(f.evaluated as f64) / self.characters as f64,
            "periods": PERIODS,
            "characters_at_period_mean": f.at.map(|n| per_frame(n as f64)),
            "period_changes_per_frame": budget.is_none().then(|| per_frame(f.changed as f64)),
            "expected_cpu_ms_mean": budget.map(|_| per_frame(f.expected_s) * 1e3),
            "measured_cpu_ms_mean": budget.map(|_| per_frame(f.measured_s) * 1e3),
            "frames_fitting": budget.map(|_| f.fitting),
            "us_per_evaluated_character": budget.map(|_| f.per_character_s * 1e6),
        })
    }

    /// The figures as the text report prints them.
    pub(crate) fn text(&self) -> String {
        let f = &self.figures;
        let frames = f.frames.max(1) as f64;
        let share = f.evaluated as f64 / frames / self.characters as f64;
        let mix: Vec<String> = PERIODS
            .iter()
            .zip(f.at)
            .map(|(p, n)| {
                format!(
                    "{:.1}% every {p}",
                    100.0 * n as f64 / frames / self.characters as f64
                )
            })
            .collect();
        let head = format!(
            "level of detail: {:.1}% of characters evaluated a frame; {}",
            100.0 * share,
            mix.join(", ")
        );
        match self.mode {
            Mode::Bands => format!(
                "{head}; periods by distance to a camera circling the crowd ({:.1} changes a frame)",
                f.changed as f64 / frames
            ),
            Mode::Budget(s) => format!(
                "{head}; budget {:.3} ms CPU a frame: the allocator expected {:.3} ms, measured {:.3} ms ({:.3} us per evaluated character), {} of {} frames fitting",
                s * 1e3,
                f.expected_s / frames * 1e3,
                f.measured_s / frames * 1e3,
                f.per_character_s * 1e6,
                f.fitting,
                f.frames
            ),
        }
    }
}

/// `x.hypot(y)` computed in f64 (where the squares of f32 values cannot
/// overflow), without the libm call: the camera's distance to each
/// character every step. (The library's `clip::length64` is the same sum
/// over a slice; it is crate-private there, and this binary's one use is
/// not worth a public function.)
fn length64(x: f32, y: f32) -> f32 {
    (f64::from(x) * f64::from(x) + f64::from(y) * f64::from(y)).sqrt() as f32
}
