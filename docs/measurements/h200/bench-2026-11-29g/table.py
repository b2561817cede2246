import collections,sys,statistics as st
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    f=l.split()
    if len(f)<9: continue
    d[(int(f[0]),f[1],f[2])].append(float(f[6])/1000)
rounds=sorted({k[0] for k in d}); modes=[]
for k in d:
    if k[1] not in modes: modes.append(k[1])
for stat,fn in (('floor',min),('median',st.median),('q25',lambda v: sorted(v)[len(v)//4])):
  print(stat)
  for ev in ('none','event'):
    for r in rounds:
        base=fn(d[(r,'none',ev)])
        print(ev,r,f"none {base:.2f}",' '.join(f"{m} +{fn(d[(r,m,ev)])-base:.2f}" for m in modes if m!='none'))
