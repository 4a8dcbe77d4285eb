#!/usr/bin/env python3
"""Instruction mix of every loop (backward jump) in the functions of the
release binary whose names match a regex: FMA/mul, add/compare, loads and
stores, shuffles, and the rest. Used for the operation counts in PERF.md.
Usage: cargo build --release && python3 tools/loop_mix.py 'crowd::(fk_pass|blend_pass)'"""
import re,subprocess,sys,collections
out=subprocess.run(["objdump","-d","--no-show-raw-insn","-C","target/release/kineform"],capture_output=True,text=True).stdout
funcs={};cur=None
for line in out.splitlines():
    m=re.match(r'^([0-9a-f]+) <(.*)>:$',line)
    if m: cur=m.group(2); funcs[cur]=[]; continue
    m=re.match(r'^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$',line)
    if m and cur: funcs[cur].append((int(m.group(1),16),m.group(2),m.group(3)))
for name,ins in funcs.items():
    if not re.search(sys.argv[1],name): continue
    for i,(a,op,arg) in enumerate(ins):
        if op.startswith('j'):
            m=re.match(r'([0-9a-f]+)',arg)
            if m and ins[0][0]<=int(m.group(1),16)<a:
                body=[x for x in ins if int(m.group(1),16)<=x[0]<=a]
                c=collections.Counter()
                for _,o,g in body:
                    if re.match(r'vf(n?)m(add|sub)',o) or o in('vmulps',): k='fma/mul'
                    elif o in('vaddps','vsubps','vmaxps','vminps','vcmpps') or o.startswith('vcmp'): k='add/cmp'
                    elif o in ('vandps','vandnps','vorps','vxorps','vpand','vpxor','vpor','vblendvps'): k='logic/blend'
                    elif o.startswith('vunpck') or o.startswith('vperm') or o.startswith('vinsert') or o.startswith('vshuf') or o.startswith('vextract') or o.startswith('vbroadcast'): k='shuffle/bcast'
                    elif o in ('vmovaps','vmovups') : k='mov(load/store)'
                    elif o in ('vdivps','vsqrtps','vrsqrtps','vrcpps'): k='div/sqrt'
                    else: k='other:'+o
                    c[k]+=1
                print(name[:50], hex(int(m.group(1),16)), len(body), dict(c.most_common()))
