# Pooled over all rounds: each configuration's 10th, 25th and 50th
# percentiles of µs per enqueue (the clFinish and the reads included), and
# over the no-layer stream's same percentile. python3 pooled.py s1.txt
import collections, sys
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) < 9:
        continue
    d[(f[1], f[2])].append(float(f[6]) / 1000)
modes = []
for (m, _) in d:
    if m not in modes:
        modes.append(m)
q = lambda v, p: sorted(v)[int(p * (len(v) - 1))]
for ev in ('none', 'event'):
    for p in (0.1, 0.25, 0.5):
        base = q(d[('none', ev)], p)
        print(f"{ev:5} p{int(p*100):02} none {base:.2f} " + ' '.join(
            f"{m} +{q(d[(m, ev)], p) - base:.2f}" for m in modes if m != 'none'))
