#!/usr/bin/env bash
# The idle-machine runs of PERF.md "Idle-machine runs of 2026-11-28, merged
# main", in one script: build every binary first (not timed), then time
# readout, FK in cache and streaming, level of detail, the matching crowd
# and its queries, and compact clips, one after another. Run it with
# nothing else on the machine (about 15 minutes after the build).
#
#   tools/idle_runs.sh [PART ...]    PART: readout fk lod match layers compact
#                                    (default: all of them)
#   BASE=path/to/kineform-d2839a8    the 'layers' part's A (a kineform binary
#                                    built at d2839a8, the commit before
#                                    layers); skipped when unset
#   COMPACT_BASE=path/to/kineform    the 'compact' part's A/B against an
#                                    older build; skipped when unset
set -u
cd "$(dirname "$0")/.."
parts=${*:-readout fk lod match layers compact}
echo "== $(date -u +%T) machine"
lscpu | grep -E "Model name|^CPU\(s\)|L2|L3"; grep -m2 -E "cpu family|model\s" /proc/cpuinfo; uptime
echo "== $(date -u +%T) build (not timed)"
cargo build --release --all-features 2>&1 | tail -1
cargo build --release --bin kineform --example lod_cost 2>&1 | tail -1
cargo bench --no-run --bench readout --bench fk_floor --bench matching 2>&1 | tail -1
cargo bench --features wander --bench crowd --no-run 2>&1 | tail -1
bin() { ls -t target/release/deps/$1-* | grep -v '\.d$' | head -1; }
K=target/release/kineform
for part in $parts; do
  echo "== $(date -u +%T) $part (load $(cut -d' ' -f1-3 /proc/loadavg))"
  case $part in
  readout)
    KINEFORM_ROUNDS=5 timeout 200 "$(bin readout)" --bench 2>&1 | grep '^|' ;;
  fk)
    KINEFORM_NO_STREAM=1 KINEFORM_ROUNDS=5 KINEFORM_CASES=/fk/cache,/fk/l1 \
      timeout 100 "$(bin fk_floor)" --bench 2>&1 | grep -E '^\||caches'
    KINEFORM_SWEEP=1 KINEFORM_SIZES=1024,2048,4096,8192,16384 KINEFORM_ROUNDS=3 \
      KINEFORM_CASES=/copy/,/fk/,/fk_mem,/fk_regs timeout 300 "$(bin fk_floor)" --bench 2>&1 | grep -E '^\||caches' ;;
  lod)
    for round in 1 2 3; do for t in 1 2; do for mode in every mix off; do
      printf "round %d, %d thread(s): " "$round" "$t"
      RAYON_NUM_THREADS=$t target/release/examples/lod_cost "$mode" 100000 120
    done; done; done
    for t in 1 2; do
      printf "1M, %d thread(s): " "$t"
      RAYON_NUM_THREADS=$t /usr/bin/time -v target/release/examples/lod_cost mix 1000000 10 2>&1 \
        | grep -E "^mix|Maximum resident" | tr '\n' ' '; echo
    done ;;
  match)
    CL="--clip data/mocap/cmu_01_01_mb.bvh --clip data/mocap/cmu_01_03_mb.bvh --clip data/mocap/cmu_12_01_walk_mb.bvh --clip data/mocap/cmu_131_01_max.bvh"
    for t in 2 1; do for f in demo spring; do for m in 5 0; do
      printf "%s thread(s) %s margin %s: " "$t" "$f" "$m"
      # shellcheck disable=SC2086
      RAYON_NUM_THREADS=$t timeout 120 $K match $f --characters 10000 --seconds 5 --plain --json --switch-margin $m $CL \
        | python3 -c 'import json,sys; d=json.load(sys.stdin); print("plain %.3f ms, matching %.3f ms, ratio %.3f, update %.3f / step %.3f / follow %.3f ms, transitions %.2f a character a second" % (d["plain_frame_ms"], d["frame_ms"], d["matching_over_plain"], d["update_ms"], d["step_ms"], d["follow_ms"], d["transitions_per_second"]))'
    done; done; done
    timeout 200 "$(bin matching)" --bench --warm-up-time 0.5 --measurement-time 2 --sample-size 10 --noplot \
      'matching/(demo|spring)/' 2>&1 | grep -E '^\[matching\]' ;;
  layers)
    if [ -n "${BASE:-}" ]; then
      W=$(mktemp); printf '#!/bin/bash\nexec %s "$@" --no-markers\n' "$(pwd)/$K" > "$W"; chmod +x "$W"
      for t in 1 2; do
        echo "-- $t thread(s): A = $BASE, B = this build --no-markers"
        FRAMES=300 tools/ab_crowd.sh 6 "$BASE" "$W" --threads $t --characters 10000 | tail -2
      done
      rm -f "$W"
    else echo "BASE unset: skipped"; fi ;;
  compact)
    for round in 1 2; do
      echo "-- round $round"
      # The name, then its time line (not the change from the last run).
      "$(bin crowd)" --bench 'crowd/clips/' --noplot --warm-up-time 2 --measurement-time 4 --discard-baseline 2>/dev/null \
        | grep -E '^crowd/clips/|^ +time: +\[[0-9]' | paste - - | sed 's/  */ /g'
    done
    if [ -n "${COMPACT_BASE:-}" ]; then
      BIG=$(for i in $(seq 11); do ls data/mocap/*.bvh; done | sed 's/^/--clip /' | tr '\n' ' ')
      for t in 1 2; do
        FRAMES=300 tools/ab_crowd.sh 3 "$COMPACT_BASE" "$K" --compact --no-check --characters 10000 --threads $t | tail -2
      done
      # shellcheck disable=SC2086
      FRAMES=200 tools/ab_crowd.sh 3 "$COMPACT_BASE" "$K" --compact --no-check --characters 10000 --threads 1 $BIG | tail -2
    fi ;;
  *) echo "unknown part $part" ;;
  esac
done
echo "== $(date -u +%T) done"; uptime
