//! Which SIMD path this build runs, and whether the CPU could run a faster
//! one.
//!
//! `wide` picks its instructions at compile time (`cfg(target_feature)`):
//! a crate built for the default `x86_64` target gets SSE2, two 128-bit
//! halves per 8-lane operation and no fused multiply-add, about half the
//! speed of the AVX2+FMA build on the same CPU (PERF.md, "The fast build").
//! A crate that depends on kineform chooses the target for the whole build,
//! so kineform cannot choose for it; it can only notice. [`simd_support`]
//! compares the compiled path with what the running CPU detects
//! (`is_x86_feature_detected!`), and [`SimdSupport::advice`] says what to
//! put in `.cargo/config.toml` (README, "Using kineform in your project").
//!
//! An `x86-64-v4` build (AVX-512) keeps the same 8 lanes but compiles
//! them with AVX-512VL: 32 vector registers instead of 16, so the longer
//! kernels spill less. [`simd_backend`] names it `"avx512vl+fma"` and
//! [`simd_level`] `"x86-64-v4"`; [`SimdSupport::advice`] does not ask for
//! it (the gain is about 8 to 10% of the crowd's frame on the Zen 5 of
//! issue 27, and such a binary stops with an illegal instruction on every
//! CPU without AVX-512), [`SimdSupport::v4_available`] only reports it.

/// Which SIMD path `wide` was compiled with: `"avx512vl+fma"` (8 lanes in
/// AVX-512VL encodings, 32 vector registers: an `x86-64-v4` build),
/// `"avx2+fma"`, `"avx+fma"`, `"avx"`, `"sse4.1"`, `"sse2"`, `"neon"`,
/// `"simd128"` or `"scalar"`. `wide` chooses at compile time
/// (`cfg(target_feature)`), so this is the path every lane kernel of this
/// build takes. [`simd_support`] also says whether the running CPU could
/// take a faster one.
pub const fn simd_backend() -> &'static str {
    if cfg!(all(
        target_feature = "avx512f",
        target_feature = "avx512vl",
        target_feature = "avx2",
        target_feature = "fma"
    )) {
        "avx512vl+fma"
    } else if cfg!(all(target_feature = "avx2", target_feature = "fma")) {
        "avx2+fma"
    } else if cfg!(all(target_feature = "avx", target_feature = "fma")) {
        "avx+fma"
    } else if cfg!(target_feature = "avx") {
        "avx"
    } else if cfg!(target_feature = "sse4.1") {
        "sse4.1"
    } else if cfg!(target_feature = "sse2") {
        "sse2"
    } else if cfg!(target_feature = "neon") {
        "neon"
    } else if cfg!(target_feature = "simd128") {
        "simd128"
    } else {
        "scalar"
    }
}

/// The x86-64 microarchitecture level this build was compiled for, from
/// its target features: `"x86-64-v4"` (AVX-512 F, BW, CD, DQ, VL on top of
/// v3), `"x86-64-v3"` (AVX2, FMA, BMI1/2, F16C, LZCNT, MOVBE), `"x86-64-v2"`
/// (SSE4.2, SSSE3, POPCNT, CX16), `"x86-64"` (the baseline, SSE2); on other
/// architectures the architecture's name (`"aarch64"`, `"wasm32"`, ...).
/// The repository's own builds are `"x86-64-v3"` (`.cargo/config.toml`).
pub const fn simd_level() -> &'static str {
    if !cfg!(target_arch = "x86_64") {
        return std::env::consts::ARCH;
    }
    let v2 = cfg!(all(
        target_feature = "sse4.2",
        target_feature = "ssse3",
        target_feature = "popcnt",
        target_feature = "cmpxchg16b"
    ));
    let v3 = v2
        && cfg!(all(
            target_feature = "avx2",
            target_feature = "fma",
            target_feature = "bmi1",
            target_feature = "bmi2",
            target_feature = "f16c",
            target_feature = "lzcnt",
            target_feature = "movbe"
        ));
    let v4 = v3
        && cfg!(all(
            target_feature = "avx512f",
            target_feature = "avx512bw",
            target_feature = "avx512cd",
            target_feature = "avx512dq",
            target_feature = "avx512vl"
        ));
    if v4 {
        "x86-64-v4"
    } else if v3 {
        "x86-64-v3"
    } else if v2 {
        "x86-64-v2"
    } else {
        "x86-64"
    }
}

/// How fast a path is, for comparison only (higher is faster).
fn rank(path: &str) -> u8 {
    match path {
        "avx512vl+fma" => 6,
        "avx2+fma" => 5,
        "avx+fma" => 4,
        "avx" => 3,
        "sse4.1" => 2,
        "sse2" | "neon" | "simd128" => 1,
        _ => 0,
    }
}

/// The compiled SIMD path against the running CPU's best.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimdSupport {
    /// The path this build runs ([`simd_backend`]).
    pub compiled: &'static str,
    /// The best path the running CPU supports, in the same names (the
    /// compiled path where there is nothing to detect).
    pub cpu: &'static str,
    /// Whether the CPU has every feature of `x86-64-v3` (AVX2, FMA, BMI1,
    /// BMI2, F16C, LZCNT, MOVBE), so `-C target-cpu=x86-64-v3` runs on it.
    pub x86_64_v3: bool,
}

impl SimdSupport {
    /// True when the build is below the 256-bit AVX2 + FMA path and the
    /// CPU could run a faster one: the builds that run at about half speed.
    /// An `x86-64-v3` build on a CPU with AVX-512 is not one of them (see
    /// [`Self::v4_available`]).
    pub fn faster_available(&self) -> bool {
        rank(self.cpu) > rank(self.compiled) && rank(self.compiled) < rank("avx2+fma")
    }

    /// True when the CPU has AVX-512 (`x86-64-v4`) and the build does not
    /// use it. Information, not advice: on the Zen 5 of issue 27 a v4 build
    /// ran the crowd 8 to 10% faster (32 vector registers, fewer spills),
    /// but a v4 binary stops with an illegal instruction on every CPU
    /// without AVX-512 (AMD before Zen 4, Intel's client cores since Alder
    /// Lake): build it only for machines known to have it (README, "Build
    /// for the CPU you run on").
    pub fn v4_available(&self) -> bool {
        self.cpu == "avx512vl+fma" && self.compiled != "avx512vl+fma"
    }

    /// The compiler flags of the faster build, when there is one:
    /// `-C target-cpu=x86-64-v3` on a CPU that has all of it, else the
    /// features themselves.
    pub fn rustflags(&self) -> Option<&'static str> {
        if !self.faster_available() {
            return None;
        }
        Some(match self.cpu {
            "avx512vl+fma" | "avx2+fma" if self.x86_64_v3 => "-C target-cpu=x86-64-v3",
            "avx512vl+fma" | "avx2+fma" => "-C target-feature=+avx,+avx2,+fma",
            "avx+fma" => "-C target-feature=+avx,+fma",
            "avx" => "-C target-feature=+avx",
            _ => "-C target-feature=+sse4.1",
        })
    }

    /// One sentence for a log or a terminal when a faster build is
    /// available, naming both paths and the flags; `None` otherwise.
    ///
    /// ```
    /// use kineform::SimdSupport;
    /// let s = SimdSupport { compiled: "sse2", cpu: "avx2+fma", x86_64_v3: true };
    /// let advice = s.advice().unwrap();
    /// assert!(advice.contains("sse2") && advice.contains("-C target-cpu=x86-64-v3"));
    /// let fast = SimdSupport { compiled: "avx2+fma", ..s };
    /// assert_eq!(fast.advice(), None);
    /// ```
    pub fn advice(&self) -> Option<String> {
        let flags = self.rustflags()?;
        Some(format!(
            "kineform was compiled for {} SIMD but this CPU supports {}, about twice as fast: \
             build with `{flags}` (in .cargo/config.toml: [build] rustflags = {:?}; \
             see kineform's README, \"Using kineform in your project\")",
            self.compiled,
            self.cpu,
            flags.split(' ').collect::<Vec<_>>(),
        ))
    }
}

/// The compiled path and the running CPU's best (detected once per
/// process by the standard library's feature detection).
pub fn simd_support() -> SimdSupport {
    let compiled = simd_backend();
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        use std::arch::is_x86_feature_detected as has;
        let (avx, avx2, fma) = (has!("avx"), has!("avx2"), has!("fma"));
        let x86_64_v3 = avx2
            && fma
            && has!("bmi1")
            && has!("bmi2")
            && has!("f16c")
            && has!("lzcnt")
            && has!("movbe");
        let v4 = x86_64_v3
            && has!("avx512f")
            && has!("avx512bw")
            && has!("avx512cd")
            && has!("avx512dq")
            && has!("avx512vl");
        let cpu = if v4 {
            "avx512vl+fma"
        } else if avx2 && fma {
            "avx2+fma"
        } else if avx && fma {
            "avx+fma"
        } else if avx {
            "avx"
        } else if has!("sse4.1") {
            "sse4.1"
        } else if has!("sse2") {
            "sse2"
        } else {
            compiled
        };
        // Never report the CPU below what runs (the build may have been
        // for a feature detection does not name).
        let cpu = if rank(cpu) < rank(compiled) {
            compiled
        } else {
            cpu
        };
        SimdSupport {
            compiled,
            cpu,
            x86_64_v3,
        }
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    {
        SimdSupport {
            compiled,
            cpu: compiled,
            x86_64_v3: false,
        }
    }
}

/// [`simd_support`], and with the `log` feature, the first call in a
/// process logs it: a `warn!` with [`SimdSupport::advice`] when a faster
/// build is available, else a `debug!` naming the path. Meant to be called
/// where a runtime is built (`Crowd::new`); without the `log` feature it
/// only returns.
pub fn note_simd_support() -> SimdSupport {
    let s = simd_support();
    #[cfg(feature = "log")]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| match s.advice() {
            Some(a) => log::warn!("{a}"),
            None => log::debug!("kineform SIMD path: {} (the CPU's best)", s.compiled),
        });
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse2_build_on_an_avx2_cpu_gets_advice() {
        let s = SimdSupport {
            compiled: "sse2",
            cpu: "avx2+fma",
            x86_64_v3: true,
        };
        assert!(s.faster_available());
        assert_eq!(s.rustflags(), Some("-C target-cpu=x86-64-v3"));
        let a = s.advice().unwrap();
        assert!(a.contains("sse2") && a.contains("avx2+fma"), "{a}");
        assert!(a.contains(r#"["-C", "target-cpu=x86-64-v3"]"#), "{a}");
        // AVX2 without the rest of x86-64-v3: name the features instead.
        let partial = SimdSupport {
            x86_64_v3: false,
            ..s
        };
        assert_eq!(
            partial.rustflags(),
            Some("-C target-feature=+avx,+avx2,+fma")
        );
        let avx_only = SimdSupport { cpu: "avx", ..s };
        assert_eq!(avx_only.rustflags(), Some("-C target-feature=+avx"));
    }

    #[test]
    fn no_advice_when_the_build_is_the_cpus_best() {
        for (compiled, cpu) in [
            ("avx2+fma", "avx2+fma"),
            ("neon", "neon"),
            ("avx+fma", "avx"),
        ] {
            let s = SimdSupport {
                compiled,
                cpu,
                x86_64_v3: true,
            };
            assert!(!s.faster_available(), "{compiled} on {cpu}");
            assert_eq!(s.advice(), None);
        }
    }

    /// This repository builds for x86-64-v3 (.cargo/config.toml): on a CPU
    /// that runs it, there is nothing faster to suggest; the build names its
    /// own level, and a v4 build its own path.
    #[test]
    fn this_build_reports_itself() {
        let s = simd_support();
        assert_eq!(s.compiled, simd_backend());
        assert!(rank(s.cpu) >= rank(s.compiled));
        if cfg!(all(target_feature = "avx2", target_feature = "fma")) {
            assert!(!s.faster_available());
        }
        if cfg!(all(target_arch = "x86_64", target_feature = "avx512vl")) {
            assert_eq!(
                (simd_level(), simd_backend()),
                ("x86-64-v4", "avx512vl+fma")
            );
            assert!(!s.v4_available());
        } else if cfg!(all(target_arch = "x86_64", target_feature = "avx2")) {
            assert_eq!((simd_level(), simd_backend()), ("x86-64-v3", "avx2+fma"));
        }
    }

    /// A v3 build on a CPU with AVX-512: no advice (the v4 gain is a few
    /// percent and the binary would exclude most CPUs), only the report;
    /// a baseline build there is told to use v3, the portable fast level.
    /// Catches the v4 CPU ranked as a reason for the slow-build warning,
    /// and the flags of a CPU named "avx512vl+fma" falling through to
    /// SSE4.1's.
    #[test]
    fn v4_is_reported_not_advised() {
        let v3_on_v4 = SimdSupport {
            compiled: "avx2+fma",
            cpu: "avx512vl+fma",
            x86_64_v3: true,
        };
        assert!(!v3_on_v4.faster_available() && v3_on_v4.advice().is_none());
        assert!(v3_on_v4.v4_available());
        let sse2_on_v4 = SimdSupport {
            compiled: "sse2",
            ..v3_on_v4
        };
        assert_eq!(sse2_on_v4.rustflags(), Some("-C target-cpu=x86-64-v3"));
        let v4_on_v4 = SimdSupport {
            compiled: "avx512vl+fma",
            ..v3_on_v4
        };
        assert!(!v4_on_v4.v4_available() && v4_on_v4.advice().is_none());
    }
}
