#!/usr/bin/env python3
"""kcontract's ×100 fresh build against Hugo's two builds, without the other tools (after
`cargo run --release --example bench -- --copies 100`, which generates target/bench/x100 with its Hugo site).

usage: bench/pair_hugo.py RUNS [BIN] [WORK]   (BIN: an absolute path; default target/release/kcontract;
WORK: the folder holding the generated spec/ and hugo/, default target/bench/x100; a copy of them
elsewhere, e.g. on tmpfs or on another file system, shows what the file system costs each tool)

Three builds run in turn, each round in the next of their six orders: kcontract into a removed folder,
Hugo into a removed folder, and Hugo over its previous output (Hugo does not clear its folder, so that is
its usual rebuild, and the one the harness timed until Session 15). Each starts after its folder is
removed (untimed) and an untimed sync. The harness runs six builds per round, mdBook's 2.5 s among them;
here only these three alternate. Prints the medians, min–max, and for each Hugo build the ratio of the
medians and the median of the rounds' ratios (each round's runs are seconds apart, so the VM's drift
moves that one less). Nothing is asserted."""
import itertools, os, shutil, statistics, subprocess, sys, time

runs = int(sys.argv[1])
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
ours = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else os.path.join(root, 'target', 'release', 'kcontract')
work = sys.argv[3] if len(sys.argv) > 3 else os.path.join(root, 'target', 'bench', 'x100')
hugo = os.path.join(work, 'hugo')
if not os.path.isdir(hugo):
    sys.exit('generate target/bench/x100 first: cargo run --release --example bench -- --copies 100')
# name: (folder it runs in, command, folder removed before each run or None)
tools = {
    'kcontract build, fresh output': (work, [ours, 'build', '--out', 'out-pair'], os.path.join(work, 'out-pair')),
    'hugo (en), fresh output': (hugo, ['hugo', '--quiet', '-d', '../out-pair-hugo'], os.path.join(work, 'out-pair-hugo')),
    'hugo (en), over its output': (hugo, ['hugo', '--quiet', '-d', '../out-pair-hugo-over'], None),
}
orders = list(itertools.permutations(tools))
times = {name: [] for name in tools}
for i in range(runs):
    for name in orders[i % len(orders)]:
        cwd, cmd, clean = tools[name]
        if clean:
            shutil.rmtree(clean, ignore_errors=True)
        os.sync()
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[name].append((time.perf_counter() - start) * 1000)
for name, t in times.items():
    print(f"{name:32s} median {statistics.median(t):7.1f} ms  [{min(t):.1f}–{max(t):.1f}]")
k = times['kcontract build, fresh output']
for name in list(tools)[1:]:
    h = times[name]
    print(f"kcontract / {name}: {statistics.median(k) / statistics.median(h):.2f}; "
          f"median of the rounds' ratios {statistics.median(a / b for a, b in zip(k, h)):.2f} ({runs} runs each)")
