#!/usr/bin/env bash
# Runs fuzz campaigns one target at a time at `nice -n 19`, from binaries
# already built by `cargo fuzz build -s none -a` (so that a campaign never
# builds while the worktree is being built), and prints one summary line a
# target: commit, executions, seconds, load averages at start and end,
# peak RSS and result. Usage (from the repository root):
#   export RUSTFLAGS="-C target-cpu=x86-64-v3"
#   (cd fuzz && cargo fuzz build -s none -a)
#   tools/fuzz_campaigns.sh LOGDIR TARGET...
# With `cargo fuzz build --target-dir DIR`, set
# FUZZ_BIN=DIR/x86_64-unknown-linux-gnu/release.
# Each campaign stops at 10 million executions or 30 minutes
# (SECONDS_PER_TARGET overrides the time), or at a finding, whose input
# libFuzzer writes to fuzz/artifacts/TARGET/. GLTF_DOC_TIMEOUT (seconds, 10
# by default) sets gltf_doc's per-input timeout: on a loaded machine at
# nice 19 a 0.3 s document can wait past 10 s for the CPU.
set -u
logdir=$1
shift
mkdir -p "$logdir"
root=$(git rev-parse --show-toplevel)
bin=${FUZZ_BIN:-"$root/fuzz/target/x86_64-unknown-linux-gnu/release"}
commit=$(git -C "$root" rev-parse --short HEAD)
secs=${SECONDS_PER_TARGET:-1800}
for t in "$@"; do
    extra=()
    case $t in
        bvh_parse) extra=(-max_len=65536) ;;
        gltf_parse) extra=(-rss_limit_mb=4096) ;;
        gltf_doc) extra=(-timeout=${GLTF_DOC_TIMEOUT:-10} -rss_limit_mb=2048 -max_len=2048 -len_control=0) ;;
        # At about 200 inputs a second libFuzzer's growing length limit
        # stays near 14 bytes for minutes: too short for a clip, a config
        # and any commands. 150 s from the same corpus reached 5,137 edges
        # that way and 6,967 with these (2026-12-06).
        crowd_api) extra=(-max_len=1024 -len_control=0) ;;
        # A database of a few hundred frames takes several KB of features.
        matching_api) extra=(-max_len=8192) ;;
    esac
    mkdir -p "$root/fuzz/corpus/$t" "$root/fuzz/artifacts/$t"
    load0=$(cut -d' ' -f1-3 /proc/loadavg)
    start=$(date +%s)
    (cd "$root/fuzz" && nice -n 19 "$bin/$t" "corpus/$t" -artifact_prefix="artifacts/$t/" \
        -runs=10000000 -max_total_time="$secs" -print_final_stats=1 "${extra[@]}") \
        >"$logdir/$t.log" 2>&1
    rc=$?
    end=$(date +%s)
    load1=$(cut -d' ' -f1-3 /proc/loadavg)
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$logdir/$t.log" | grep -o '[0-9]*$' | tail -1)
    rss=$(grep -o 'stat::peak_rss_mb: *[0-9]*' "$logdir/$t.log" | grep -o '[0-9]*$' | tail -1)
    if [ "$rc" = 0 ]; then result="no failure"; else result="FINDING (exit $rc)"; fi
    echo "$t commit=$commit runs=${runs:-?} seconds=$((end - start)) load_start=[$load0] load_end=[$load1] peak_rss_mb=${rss:-?} start=$(date -u -d @"$start" +%H:%M) result=$result" |
        tee -a "$logdir/summary.txt"
done
