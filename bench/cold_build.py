#!/usr/bin/env python3
"""The README's first command from nothing: a cold `cargo build --release --locked` of a fresh `git archive`
of each REV (registry already downloaded, no target/ folder), one after the other, each timed with
/usr/bin/time and `--timings`.

usage: bench/cold_build.py [--prune PKG[,PKG…]]… REV [REV…]
Prints, per REV: wall and CPU time (user + sys), the crate `kcontract`'s own unit (frontend and codegen,
from Cargo's timing data), the ten longest units, and for each `--prune` group the crates only that group
brings into the build (`cargo tree --prune`) with the sum of their units' times, i.e. the CPU the build
would save without them. The archives are made under target/cold-build/ and removed afterwards.
Run it on an idle machine: the build keeps both cores busy, so its wall time is about its CPU time / 2."""
import json, os, re, shutil, subprocess, sys

args, prune, revs = sys.argv[1:], [], []
while args:
    a = args.pop(0)
    if a == '--prune':
        prune.append(args.pop(0).split(','))
    else:
        revs.append(a)
if not revs:
    sys.exit(__doc__)
root = subprocess.run(['git', 'rev-parse', '--show-toplevel'], capture_output=True, text=True, check=True).stdout.strip()
base = os.path.join(root, 'target', 'cold-build')


def crates(tree_dir, extra):
    """The packages `kcontract` builds with (normal and build dependencies), by name; None when cargo tree
    refuses (a `--prune` package this REV does not have)."""
    run = subprocess.run(['cargo', 'tree', '--locked', '-e', 'normal,build', '--prefix', 'none', '-f', '{p}',
                          '-p', 'kcontract'] + extra, capture_output=True, text=True, cwd=tree_dir)
    if run.returncode != 0:
        return None
    return {line.split()[0] for line in run.stdout.splitlines() if line.strip()}


for rev in revs:
    work = os.path.join(base, rev)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    archive = subprocess.run(['git', 'archive', rev], capture_output=True, check=True, cwd=root).stdout
    subprocess.run(['tar', '-x', '-C', work], input=archive, check=True)
    timed = subprocess.run(['/usr/bin/time', '-f', '%e %U %S', 'cargo', 'build', '--release', '--locked', '-q',
                            '--timings'], cwd=work, capture_output=True, text=True)
    if timed.returncode != 0:
        sys.exit(f'{rev}: cargo build failed:\n{timed.stderr}')
    wall, user, sys_ = map(float, timed.stderr.strip().splitlines()[-1].split())
    html = open(os.path.join(work, 'target', 'cargo-timings', 'cargo-timing.html')).read()
    units = json.loads(re.search(r'const UNIT_DATA = (\[.*?\]);', html, re.S).group(1))
    by_crate = {}
    for u in units:
        by_crate[u['name']] = by_crate.get(u['name'], 0) + u['duration']
    print(f'{rev}: {wall:.1f} s wall, {user + sys_:.1f} s CPU (user {user:.1f}, sys {sys_:.1f}); '
          f'{len(by_crate)} crates, units {sum(by_crate.values()):.1f} s')
    for u in units:
        if u['name'] == 'kcontract' and u['target'] == '' and u.get('sections'):
            parts = ', '.join(f"{name} {s['end'] - s['start']:.1f} s" for name, s in u['sections'])
            print(f"  kcontract (the library): {u['duration']:.1f} s from {u['start']:.1f} s ({parts})")
    for u in sorted(units, key=lambda u: -u['duration'])[:10]:
        print(f"  {u['duration']:6.1f} s  {u['name']}{u['target']}")
    everything = crates(work, [])
    for group in prune:
        rest = crates(work, [x for p in group for x in ('--prune', p)])
        if rest is None:
            print(f"  only through {','.join(group)}: not all of them are in this build")
            continue
        only = everything - rest
        print(f"  only through {','.join(group)}: {len(only)} crates, units {sum(by_crate.get(c, 0) for c in only):.1f} s")
    shutil.rmtree(work, ignore_errors=True)
