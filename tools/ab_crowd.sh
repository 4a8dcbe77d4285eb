#!/bin/bash
# A/B timing of two builds of the main job on this noisy shared machine:
# runs them alternately N times and prints, for each, the median and mean
# of the per-run median frame times, the fastest run's median, and the
# mean best frame.
#   usage: FRAMES=200 tools/ab_crowd.sh N path/to/kineform-A path/to/kineform-B [crowd options]
#   e.g.:  cp target/release/kineform /tmp/kf-a; (change, rebuild);
#          tools/ab_crowd.sh 6 target/release/kineform /tmp/kf-a --threads 1
N=$1; A=$2; B=$3; shift 3
for i in $(seq "$N"); do
  for X in A B; do
    bin=$A; [ "$X" = B ] && bin=$B
    "$bin" --frames "${FRAMES:-200}" --json "$@" 2>/dev/null |
      python3 -c "import json,sys; d=json.load(sys.stdin); print('$X', d['frame_ms_median'], d['frame_ms_best'])"
  done
done | python3 -c "
import sys, statistics as st
r = {'A': [], 'B': []}
for l in sys.stdin:
    k, m, b = l.split(); r[k].append((float(m), float(b)))
for k in 'AB':
    ms = [x[0] for x in r[k]]; bs = [x[1] for x in r[k]]
    print(k, 'median of medians %.3f ms, mean %.3f, fastest median %.3f, mean best %.3f' % (st.median(ms), st.mean(ms), min(ms), st.mean(bs)))
"
