#!/bin/bash
# A/B timing of two builds of the main job on this noisy shared machine:
# runs them alternately N times and prints, for each, the fastest run's
# median frame, the median of the runs' medians, the best frame of all and
# the median of the runs' best frames. On this VM the fastest figures are
# the ones that tell builds apart (the medians move 10 to 30% with the
# neighbours); changes under ~5% stay inside the noise either way.
#   usage: FRAMES=300 tools/ab_crowd.sh N path/to/kineform-A path/to/kineform-B [crowd options]
#   e.g.:  cp target/release/kineform /tmp/kf-a; (change, rebuild);
#          tools/ab_crowd.sh 8 /tmp/kf-a target/release/kineform --threads 1
#          tools/ab_crowd.sh 10 /tmp/kf-a target/release/kineform --threads 1 --characters 400
N=$1; A=$2; B=$3; shift 3
for i in $(seq "$N"); do
  for X in A B; do
    bin=$A; [ "$X" = B ] && bin=$B
    "$bin" --frames "${FRAMES:-300}" --json "$@" 2>/dev/null |
      python3 -c "import json,sys; d=json.load(sys.stdin); print('$X', d['frame_ms_median'], d['frame_ms_best'])"
  done
done | python3 -c "
import sys, statistics as st
r = {'A': [], 'B': []}
for l in sys.stdin:
    k, m, b = l.split(); r[k].append((float(m), float(b)))
for k in 'AB':
    ms = [x[0] for x in r[k]]; bs = [x[1] for x in r[k]]
    print(k, 'fastest median %.4f ms, median of medians %.4f, best %.4f, median best %.4f' % (min(ms), st.median(ms), min(bs), st.median(bs)))
"
