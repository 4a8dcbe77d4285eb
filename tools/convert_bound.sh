#!/usr/bin/env bash
# Measures what `kineform convert` spends per input byte on hostile files
# (issue 21: a service points it at a folder of uploads). For every file
# of DIR (tools/hostile_inputs.py writes the crafted ones), converts it
# (BVH to .glb, glTF to .bvh) under GNU time, a virtual-memory cap and a
# time cap, and prints one line a file, then the worst ratios:
#   peak RSS above the smallest input's, in bytes per input byte, and
#   CPU seconds (user + system) per input MB,
# each over the files of at least MIN_BYTES (default 65536: smaller ones
# measure the program's start, which the baseline states).
# Usage: tools/convert_bound.sh DIR [KINEFORM] > table.txt
#   KINEFORM defaults to target/release/kineform (cargo build --release).
#   VMEM_KB (default 8 GiB) and TIME_S (default 300) cap each run; a run
#   past either is reported as such: it is a finding, not a figure.
set -u
dir=$1
bin=${2:-target/release/kineform}
min=${MIN_BYTES:-65536}
vmem=${VMEM_KB:-8388608}
cap=${TIME_S:-300}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '# %s, %s, load %s, %s\n' "$(date -u +%FT%TZ)" "$("$bin" --version 2>/dev/null || echo "$bin")" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$(lscpu | sed -n 's/^Model name: *//p')"
printf '%-52s %10s %4s %9s %8s %8s  %s\n' file bytes exit rss_kb cpu_s wall_s first_line_of_stderr
for f in "$dir"/*; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    case $name in
        *.bvh) dest=$out/out.glb ;;
        *) dest=$out/out.bvh ;;
    esac
    rm -f "$dest"
    bytes=$(stat -c %s "$f")
    # %M peak RSS (KB), %U %S CPU seconds, %e wall seconds, %x exit code.
    ( ulimit -v "$vmem"; /usr/bin/time -o "$out/time" -f '%M %U %S %e %x' \
        timeout -s KILL "$cap" "$bin" convert "$f" "$dest" ) >/dev/null 2>"$out/err"
    read -r rss user sys wall code < <(tail -1 "$out/time")
    sig=$(grep -o 'terminated by signal [0-9]*' "$out/time" | grep -o '[0-9]*$')
    [ -n "$sig" ] && code=sig$sig
    msg=$(grep -v '^Command \(exited\|terminated\)' "$out/err" | head -1 | cut -c1-110)
    printf '%-52s %10d %4s %9d %8.2f %8.2f  %s\n' "$name" "$bytes" "$code" "$rss" \
        "$(echo "$user + $sys" | bc)" "$wall" "$msg"
done | tee "$out/table"
awk -v min="$min" '
    /^#/ || $2 == "bytes" { next }
    { n++; if (base == "" || $4 < base) base = $4
      if ($4 > top_r) { top_r = $4; tr = $1 }
      if ($5 > top_c) { top_c = $5; tc = $1 } }
    $2 >= min { big[$1] = $2; rss[$1] = $4; cpu[$1] = $5 }
    $3 != 0 && $3 != 1 && $3 != 2 { bad = bad " " $1 "(exit " $3 ")" }
    END {
        for (f in big) {
            k = (f ~ /\.bvh$/) ? "BVH" : "glTF"
            r = (rss[f] - base) * 1024 / big[f]
            c = cpu[f] / (big[f] / 1048576)
            if (r > wr[k]) { wr[k] = r; wrf[k] = f }
            if (c > wc[k]) { wc[k] = c; wcf[k] = f }
        }
        printf "files: %d; baseline peak RSS (smallest): %d KB\n", n, base
        printf "largest peak RSS: %d KB (%s); most CPU: %.2f s (%s)\n", top_r, tr, top_c, tc
        for (k in wr) {
            printf "%s, files >= %d bytes: worst peak RSS above baseline per input byte %.1f (%s); ", k, min, wr[k], wrf[k]
            printf "worst CPU s per input MB %.3f (%s)\n", wc[k], wcf[k]
        }
        if (bad != "") printf "runs that did not end in success or a typed refusal:%s\n", bad
    }' "$out/table"
