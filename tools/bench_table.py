#!/usr/bin/env python3
"""Turns criterion's terminal output (cargo bench 2>&1 | tee log) into a
table: name, mean time, elements per iteration, ns per element.
Usage: python3 tools/bench_table.py log"""
import re, sys

UNIT = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
ELEMS = {"fk/cmu31": 10_000 * 31, "fk/synthetic100": 10_000 * 100}
text = open(sys.argv[1]).read()
name = None
for line in text.splitlines():
    m = re.match(r"^([a-z_0-9]+/[^\s]+)", line)
    if m and "time:" not in line.split(m.group(1))[0]:
        name = m.group(1)
    t = re.search(r"time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]", line)
    if t and name:
        ns = float(t.group(1)) * UNIT[t.group(2)]
        group = "/".join(name.split("/")[:2]) if name.startswith("fk/") else name.split("/")[0]
        elems = ELEMS.get(group, 8192)
        print(f"{name:45s} {ns/1e3:12.2f} us  {ns/elems:8.3f} ns/element")
        name = None
