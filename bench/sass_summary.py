#!/usr/bin/env python3
"""Summarise an ncu per-SASS-line export of one kernel:
    ncu --import R.ncu-rep --page source --csv --print-source sass > K.csv
    bench/sass_summary.py K.csv
prints the instruction mix (share of executed warp instructions and of warp
stall samples per opcode) and the 25 instructions with the most stall samples,
which is where a kernel waits (a use right after a load, say)."""
import csv,sys,collections,re
rows=list(csv.reader(open(sys.argv[1])))
hdr=rows[1]; data=rows[2:]
ia=hdr.index("Instructions Executed"); ss=hdr.index("Warp Stall Sampling (All Samples)"); src=hdr.index("Source")
tot=0; op=collections.Counter(); st=collections.Counter(); totst=0
lines=[]
for r in data:
    try: n=int(r[ia]); s=int(r[ss])
    except: continue
    o=r[src].strip().split()
    if not o: continue
    k=o[0]
    if k.startswith('@'): k=o[1]
    k=k.split('.')[0]
    op[k]+=n; st[k]+=s; tot+=n; totst+=s
    lines.append((s,n,r[0][-5:],r[src].strip()))
print("total warp instrs",tot,"stall samples",totst)
for k,v in op.most_common(25): print(f"{k:10s} {v/tot*100:5.1f}% instr  {st[k]/totst*100:5.1f}% stall")
print("--- top stall instructions")
for s,n,a,t in sorted(lines,reverse=True)[:25]: print(s,n,a,t[:90])
