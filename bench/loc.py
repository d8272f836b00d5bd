#!/usr/bin/env python3
"""Lines of Rust at a git revision, per crate of the workspace: production lines (a file's lines before its
`#[cfg(test)] mod tests`), unit-test lines (that module to the end of the file), the build script,
integration tests (tests/ but tests/fixtures and the generated tests/contract stubs), benches and
examples under bench/. A crate is `src/` (the binary; before the split, the one crate) or `crates/NAME/src/`.

usage: bench/loc.py [REV]   (default HEAD)"""
import subprocess, sys
from collections import defaultdict
rev = sys.argv[1] if len(sys.argv) > 1 else 'HEAD'
files = subprocess.run(['git', 'ls-tree', '-r', '--name-only', rev], capture_output=True, text=True).stdout.split()
def text(f): return subprocess.run(['git', 'show', f'{rev}:{f}'], capture_output=True, text=True).stdout
crates = defaultdict(lambda: dict(prod=0, unit=0, files=0))
c = dict(build=0, tests=0, bench=0)
for f in files:
    if not f.endswith('.rs'): continue
    if f.startswith('src/'):
        crate = 'kcontract (src/)'
    elif f.startswith('crates/') and f.split('/')[2:3] == ['src']:
        crate = 'kcontract-' + f.split('/')[1]
    else:
        crate = None
    t = text(f); n = t.count('\n')
    if crate:
        k = crates[crate]; k['files'] += 1
        lines = t.split('\n'); cut = None
        for i, l in enumerate(lines):
            if l.strip() == '#[cfg(test)]' and i + 1 < len(lines) and lines[i+1].startswith('mod tests'):
                cut = i; break
        if cut is None: k['prod'] += n
        else: k['prod'] += cut; k['unit'] += n - cut
    elif f == 'build.rs' or f.startswith('build/'): c['build'] += n
    elif f.startswith('tests/') and not f.startswith('tests/fixtures/') and not f.startswith('tests/contract/'): c['tests'] += n
    elif f.startswith('bench/'): c['bench'] += n
prod = sum(k['prod'] for k in crates.values()); unit = sum(k['unit'] for k in crates.values())
nfiles = sum(k['files'] for k in crates.values())
print(f"{rev}: production {prod}, unit tests {unit}, build script {c['build']}, integration tests {c['tests']}, "
      f"bench {c['bench']}; {nfiles} files")
for name, k in sorted(crates.items(), key=lambda kv: -kv[1]['prod']):
    print(f"  {name}: production {k['prod']}, unit tests {k['unit']}, {k['files']} files")
