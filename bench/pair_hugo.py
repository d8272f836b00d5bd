#!/usr/bin/env python3
"""kcontract's ×100 fresh build against Hugo's, the two alone and in turn (after
`cargo run --release --example bench -- --copies 100`, which generates target/bench/x100 with its Hugo site).

usage: bench/pair_hugo.py RUNS [BIN]   (BIN: an absolute path; default target/release/kcontract)

The harness runs five builds per round, each round in another order, and on these VMs a process's time
depends on what ran just before it (BENCHMARKS.md, "Order effects"): there Hugo often follows mdBook's
2.5 s build. Here only the two alternate (A B, then B A), each into a removed folder after an untimed
sync, so the ratio is measured without the other tools. Prints the medians, min–max and the ratio of the
medians. Nothing is asserted."""
import os, shutil, statistics, subprocess, sys, time

runs = int(sys.argv[1])
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
ours = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, 'target', 'release', 'kcontract')
work = os.path.join(root, 'target', 'bench', 'x100')
if not os.path.isdir(os.path.join(work, 'hugo')):
    sys.exit('generate target/bench/x100 first: cargo run --release --example bench -- --copies 100')
tools = {
    'kcontract build, fresh output': (work, [ours, 'build', '--out', 'out-pair'], os.path.join(work, 'out-pair')),
    'hugo (en)': (os.path.join(work, 'hugo'), ['hugo', '--quiet', '-d', '../out-pair-hugo'], os.path.join(work, 'out-pair-hugo')),
}
times = {name: [] for name in tools}
names = list(tools)
for i in range(runs):
    for name in names if i % 2 == 0 else names[::-1]:
        cwd, cmd, out = tools[name]
        shutil.rmtree(out, ignore_errors=True)
        os.sync()
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[name].append((time.perf_counter() - start) * 1000)
for name, t in times.items():
    print(f"{name:32s} median {statistics.median(t):7.1f} ms  [{min(t):.1f}–{max(t):.1f}]")
ours_median, hugo_median = (statistics.median(times[n]) for n in names)
print(f"ratio kcontract / hugo: {ours_median / hugo_median:.2f} ({runs} runs each)")
