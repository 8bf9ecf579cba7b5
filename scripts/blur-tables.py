#!/usr/bin/env python3
# Blur a psqt/full weights file's piece-square tables: each entry becomes (1 - a) * itself + a *
# the mean of its king-step neighbours in the same table (pawns' ranks 1 and 8 left alone).
# Usage: scripts/blur-tables.py IN.json OUT.json A   (the experiment in docs/results.md)
import json, sys
src, dst, alpha = sys.argv[1], sys.argv[2], float(sys.argv[3])
d = json.load(open(src)); p = d['params']
files='abcdefgh'
def key(pc,ph,f,r): return f"pst.{pc}.{ph}.{files[f]}{r+1}"
out = dict(p)
for pc in ['pawn','knight','bishop','rook','queen','king']:
    for ph in ['mg','eg']:
        for f in range(8):
            for r in range(8):
                if pc=='pawn' and r in (0,7): continue
                k=key(pc,ph,f,r)
                nb=[]
                for df,dr in [(-1,0),(1,0),(0,-1),(0,1),(-1,-1),(-1,1),(1,-1),(1,1)]:
                    ff,rr=f+df,r+dr
                    if 0<=ff<8 and 0<=rr<8 and not (pc=='pawn' and rr in (0,7)):
                        nb.append(p[key(pc,ph,ff,rr)])
                out[k]=(1-alpha)*p[k]+alpha*sum(nb)/len(nb)
d['params']=out
json.dump(d,open(dst,'w'),indent=1)
