#!/usr/bin/env python3
"""Opcode census of the crowd frame, per pass and per pack step (PERF.md, "Issue 16's 50x").

Usage: valgrind --tool=callgrind --dump-instr=yes --collect-atstart=no \
    --toggle-collect='*step_pack*' --callgrind-out-file=/tmp/cg.out \
    target/release/kineform crowd --characters 1000 --frames 60 --warmup 60 --threads 1 --json
  python3 tools/census.py /tmp/cg.out target/release/kineform PACKS

PACKS is the number of pack steps run: (warmup + frames + 1) * ceil(characters / 8).
Each executed instruction is classed by its opcode (objdump) and summed per pass.
"""
import re, subprocess, collections, sys
cg, binary, packs = sys.argv[1], sys.argv[2], int(sys.argv[3])
names={}; counts=collections.defaultdict(collections.Counter)
fn=None; skip=False; last=0
for line in open(cg):
    line=line.rstrip('\n')
    m=re.match(r'c?fn=\((\d+)\)(?: (.*))?',line)
    if m:
        if m.group(2): names[m.group(1)]=m.group(2)
        if line.startswith('fn='): fn=m.group(1)
        continue
    if line.startswith('calls='): skip=True; continue
    if not line or line[0] not in '0+-*': continue
    p=line.split(); a=p[0]
    if a.startswith('0x'): addr=int(a,16)
    elif a[0]=='+': addr=last+int(a[1:])
    elif a[0]=='-': addr=last-int(a[1:])
    else: addr=last
    last=addr
    if skip: skip=False; continue
    if len(p)>=3: counts[fn][addr]+=int(p[2])
dis=subprocess.run(['objdump','-d','--no-show-raw-insn',binary],capture_output=True,text=True).stdout
ops={}
for l in dis.splitlines():
    m=re.match(r'\s+([0-9a-f]+):\s+(\S+)',l)
    if m: ops[int(m.group(1),16)]=m.group(2)
tot=collections.Counter(); per={}
for f,c in counts.items():
    h=collections.Counter()
    for a,v in c.items(): h[ops.get(a,'?')]+=v
    n=names.get(f,'?')
    key=[k for k in ['sample_blend','Sampler::sample','fk_pass','inertialize_pass','step_pack'] if k in n]
    key=key[0] if key else 'other'
    per.setdefault(key,collections.Counter()).update(h)
    tot.update(h)
def cls(h):
    t=sum(h.values())
    fma=sum(v for k,v in h.items() if re.match(r'vf(n?)m(add|sub)|vmulps|vdivps|vsqrtps',k))
    add=sum(v for k,v in h.items() if k in ('vaddps','vsubps','vmaxps','vminps','vandps','vxorps','vorps','vandnps','vblendvps') or k.startswith('vcmp'))
    shuf=sum(v for k,v in h.items() if re.match(r'vunpck|vperm|vinsert|vshuf|vextract',k))
    mem=sum(v for k,v in h.items() if k.startswith('vmov') or k.startswith('vbroadcast'))
    return t,fma,add,shuf,mem,t-fma-add-shuf-mem
print('| pass | instructions | multiply / FMA / divide / sqrt | add, compare, logic, blend | shuffles | vector loads, stores, broadcasts | scalar |')
print('| --- | --- | --- | --- | --- | --- | --- |')
for k,h in sorted(per.items(), key=lambda kv:-sum(kv[1].values()))+[('**all**',tot)]:
    t,fma,add,shuf,mem,sc=cls(h)
    print(f'| {k} | {t/packs:.0f} | {fma/packs:.0f} | {add/packs:.0f} | {shuf/packs:.0f} | {mem/packs:.0f} | {sc/packs:.0f} |')
