# 10,000,000 traces from the side-by-side's 901,352 4ku training traces, repeated, each
# copy's game ids shifted apart (copy k: game + k * 1,000,000).
import re, sys
src = sys.argv[1]
lines = open(src).read().splitlines(keepends=True)
header, body = [l for l in lines if l.startswith('#')], [l for l in lines if not l.startswith('#')]
out = sys.stdout
out.writelines(header)
n, k, target = 0, 0, 10_000_000
game = re.compile(r'; game (\d+);')
while n < target:
    shift = k * 1_000_000
    for l in body:
        if n == target: break
        out.write(game.sub(lambda m: '; game %d;' % (int(m.group(1)) + shift), l, count=1))
        n += 1
    k += 1
