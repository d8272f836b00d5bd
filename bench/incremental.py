#!/usr/bin/env python3
"""The edit-compile loop of a contributor: the incremental `cargo build` (debug) after editing one file.

usage: bench/incremental.py [--runs N] REV FILE [FILE…]
A `git archive` of REV is unpacked under target/incremental/REV and built once (debug, `--locked`).
Then, for each run and each FILE in turn (alternating, so a noisy minute falls on all of them), a line
is appended to FILE (`/* … */` for .css and .js, `// …` for .rs, `<!-- … -->` for the rest:
.html and .md) and `cargo build` timed; the line is taken out again before the next
edit of that file, which is timed too (both are real changes). Prints per FILE the median wall time
and the packages Cargo compiled (its `Compiling` lines), so the figure says what an edit recompiles.
Run it on an idle machine."""
import os, re, shutil, statistics, subprocess, sys, time

args = sys.argv[1:]
runs = 3
if args[:1] == ['--runs']:
    runs = int(args[1])
    args = args[2:]
if len(args) < 2:
    sys.exit(__doc__)
rev, files = args[0], args[1:]
root = subprocess.run(['git', 'rev-parse', '--show-toplevel'], capture_output=True, text=True, check=True).stdout.strip()
work = os.path.join(root, 'target', 'incremental', rev)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
archive = subprocess.run(['git', 'archive', rev], capture_output=True, check=True, cwd=root).stdout
subprocess.run(['tar', '-x', '-C', work], input=archive, check=True)
subprocess.run(['cargo', 'build', '--locked', '-q'], cwd=work, check=True)


def marker(path, n):
    ext = os.path.splitext(path)[1]
    if ext in ('.css', '.js'):
        return f'\n/* incremental {n} */\n'
    if ext == '.rs':
        return f'\n// incremental {n}\n'
    return f'\n<!-- incremental {n} -->\n'


def timed_build():
    start = time.monotonic()
    run = subprocess.run(['cargo', 'build', '--locked', '--color', 'never'], cwd=work, capture_output=True,
                         text=True)
    wall = time.monotonic() - start
    if run.returncode != 0:
        sys.exit(f'cargo build failed:\n{run.stderr}')
    return wall, sorted(set(re.findall(r'^\s*Compiling (\S+)', run.stderr, re.M)))


times = {f: [] for f in files}
rebuilt = {f: set() for f in files}
for n in range(runs):
    for f in files:
        path = os.path.join(work, f)
        original = open(path).read()
        for text in (original + marker(f, n), original):
            open(path, 'w').write(text)
            wall, units = timed_build()
            times[f].append(wall)
            rebuilt[f].update(units)
print(f'{rev}: incremental debug build, {runs * 2} edits per file')
for f in files:
    print(f'  {f}: median {statistics.median(times[f]):.1f} s (of {", ".join(f"{t:.1f}" for t in times[f])}); '
          f'compiled: {", ".join(sorted(rebuilt[f]))}')
shutil.rmtree(work, ignore_errors=True)
