#!/usr/bin/env python3
"""Lines of Rust at a git revision: src/ production, src/ unit tests (#[cfg(test)] modules to the end
of the file), build script, integration tests (tests/ but tests/fixtures and the generated
tests/contract stubs), benches/examples under bench/."""
import subprocess, sys
rev = sys.argv[1] if len(sys.argv) > 1 else 'HEAD'
files = subprocess.run(['git', 'ls-tree', '-r', '--name-only', rev], capture_output=True, text=True).stdout.split()
def text(f): return subprocess.run(['git', 'show', f'{rev}:{f}'], capture_output=True, text=True).stdout
c = dict(prod=0, unit=0, build=0, tests=0, bench=0)
nfiles = 0
for f in files:
    if not f.endswith('.rs'): continue
    t = text(f); n = t.count('\n')
    if f.startswith('src/'):
        nfiles += 1
        lines = t.split('\n'); cut = None
        for i, l in enumerate(lines):
            if l.strip() == '#[cfg(test)]' and i + 1 < len(lines) and lines[i+1].startswith('mod tests'):
                cut = i; break
        if cut is None: c['prod'] += n
        else: c['prod'] += cut; c['unit'] += n - cut
    elif f == 'build.rs' or f.startswith('build/'): c['build'] += n
    elif f.startswith('tests/') and not f.startswith('tests/fixtures/') and not f.startswith('tests/contract/'): c['tests'] += n
    elif f.startswith('bench/'): c['bench'] += n
print(f"{rev}: src production {c['prod']}, src unit tests {c['unit']}, build script {c['build']}, integration tests {c['tests']}, bench {c['bench']}; src files {nfiles}")
