#!/bin/bash
# Paired A/B timing on a noisy 2-vCPU machine: runs command A and command B
# at the same time, one pinned to each core (taskset), N rounds with the
# cores swapped every round, and prints each round's B/A ratio and their
# mean and median. Whatever slows the machine during a round (a neighbour
# on the host, a clock change) slows both sides of it, so the ratio moves
# far less than alternated runs do: on the Zen 4 of PERF.md ("Level of
# detail's whole packs"), alternated runs of one binary spread 20%, paired
# runs of it 0.89 to 1.03.
# The two sides share the L3 and the memory bus, so use it to compare
# builds or settings of one single-threaded workload, not for absolute
# figures or thread scaling.
#   usage: tools/ab_paired.sh N 'command A' 'command B'
#   PATTERN: a Python regex whose first group is the figure in a command's
#   output (default: the number before "ms/frame", as examples/lod_cost prints).
#   e.g.:  cp target/release/examples/lod_cost /tmp/lod-a; (change, rebuild);
#          tools/ab_paired.sh 8 '/tmp/lod-a mix 4000 600' \
#              'target/release/examples/lod_cost mix 4000 600'
#          PATTERN='"frame_ms_median":\s*([0-9.]+)' tools/ab_paired.sh 8 \
#              '/tmp/kf-a crowd --threads 1 --json' 'target/release/kineform crowd --threads 1 --json'
set -eu
N=$1; A=$2; B=$3
PATTERN=${PATTERN:-'([0-9.]+) ms/frame'}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$N"); do
  ca=$((r % 2)); cb=$((1 - ca))
  # shellcheck disable=SC2086
  RAYON_NUM_THREADS=1 taskset -c $ca $A > "$out/a" 2>&1 &
  # shellcheck disable=SC2086
  RAYON_NUM_THREADS=1 taskset -c $cb $B > "$out/b" 2>&1 &
  wait
  PATTERN=$PATTERN python3 - "$out/a" "$out/b" <<'EOF'
import os, re, sys
pick = lambda p: float(re.findall(os.environ["PATTERN"], open(p).read())[-1])
a, b = pick(sys.argv[1]), pick(sys.argv[2])
print("%.4f %.4f %.4f" % (a, b, b / a))
EOF
done | python3 -c '
import sys, statistics as st
rows = [l.split() for l in sys.stdin]
for r in rows: print("A %s  B %s  B/A %s" % tuple(r))
q = [float(r[2]) for r in rows]
print("B/A mean %.3f, median %.3f, range %.3f to %.3f over %d rounds" % (st.mean(q), st.median(q), min(q), max(q), len(q)))
'
