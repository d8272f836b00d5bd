#!/usr/bin/env python3
"""A/B of two kcontract binaries on a scaled spec (after `cargo run --release --example bench -- --copies N`):
the ×100 one, or the one `AB_SPEC` names (`AB_SPEC=x10`, `x1`).

usage: bench/ab_bins.py RUNS MODE BIN_A BIN_B ["ENV_A"] ["ENV_B"]
Runs the two binaries in turn (the order swapped every run, each after an untimed sync). MODE fresh: `build`
into a removed folder; rebuild: `build` over its own previous output; repo: `build` over its own previous
output in this repository (the real build, its tests scanned) instead of the ×100 spec; copies: the same,
but each binary in its own copy of the repository's spec/, src/, tests/ and Cargo.toml (made first under
target/ab-bins-copy-A and -B, each with a target/ folder so the scan cache is on; for two binaries whose
scan caches differ in format, which in one folder would rewrite each other's every run); anything else is
the command to run,
e.g. "check" or "matrix --format json". Prints the median wall time and
the median CPU time (user + sys from wait4, steadier than wall time on a shared VM) and the median and largest peak RSS
(ru_maxrss; the harness reports the largest), then the median and quartiles of the ratio within each run
(steadier than the ratio of the medians when the VM drifts; run the same binary as A and B to see the noise). ENV_x: extra
environment, e.g. "RAYON_NUM_THREADS=1". Binary paths must be absolute."""
import os, sys, time, shutil, subprocess, statistics
runs, mode, A, B = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
envs = {'A': sys.argv[5] if len(sys.argv) > 5 else '', 'B': sys.argv[6] if len(sys.argv) > 6 else ''}
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
os.chdir(root if mode in ('repo', 'copies') else os.path.join(root, 'target', 'bench', os.environ.get('AB_SPEC', 'x100')))
cwd = {'A': None, 'B': None}
if mode == 'copies':
    for side in 'AB':
        copy = os.path.join(root, 'target', f'ab-bins-copy-{side}')
        shutil.rmtree(copy, ignore_errors=True)
        os.makedirs(os.path.join(copy, 'target'))
        for d in ('spec', 'src', 'tests'):
            shutil.copytree(os.path.join(root, d), os.path.join(copy, d))
        shutil.copy(os.path.join(root, 'Cargo.toml'), copy)
        cwd[side] = copy
    time.sleep(4)  # the copies' files settle (the scan cache keeps no stamp of a file changed in the last 3 s)
res = {'A': ([], [], []), 'B': ([], [], [])}
for i in range(runs):
    for side, binp in (('A', A), ('B', B)) if i % 2 == 0 else (('B', B), ('A', A)):
        out = f'target/ab-bins-{side}' if mode in ('repo', 'copies') else f'out-ab-bins-{side}'
        if mode == 'fresh':
            shutil.rmtree(out, ignore_errors=True)
        os.sync()
        env = dict(os.environ)
        for kv in envs[side].split():
            k, v = kv.split('='); env[k] = v
        args = ['build', '--out', out] if mode in ('fresh', 'rebuild', 'repo', 'copies') else mode.split()
        t = time.perf_counter()
        p = subprocess.Popen([binp] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd[side])
        _, status, ru = os.wait4(p.pid, 0)
        wall = (time.perf_counter() - t) * 1000
        assert status == 0
        res[side][0].append(wall); res[side][1].append((ru.ru_utime + ru.ru_stime) * 1000); res[side][2].append(ru.ru_maxrss / 1024)
for s in 'AB':
    print(f"{s}: wall median {statistics.median(res[s][0]):.1f} ms (min {min(res[s][0]):.1f}), cpu median {statistics.median(res[s][1]):.1f} ms, peak RSS median {statistics.median(res[s][2]):.1f} MB (max {max(res[s][2]):.1f})")
print(f"B/A wall {statistics.median(res['B'][0])/statistics.median(res['A'][0]):.3f}, cpu {statistics.median(res['B'][1])/statistics.median(res['A'][1]):.3f}")
# The ratio within each run (A and B back to back): this VM's speed drifts over minutes, which moves
# both medians above but cancels here. Quartiles show the spread; an A/A run shows the noise floor.
for k, name in ((0, 'wall'), (1, 'cpu')):
    paired = sorted(b / a for a, b in zip(res['A'][k], res['B'][k]))
    q = statistics.quantiles(paired, n=4) if len(paired) > 1 else paired * 3
    print(f"paired B/A {name}: median {statistics.median(paired):.3f} (quartiles {q[0]:.3f}–{q[2]:.3f}, {len(paired)} runs)")
