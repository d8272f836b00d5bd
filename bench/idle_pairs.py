#!/usr/bin/env python3
"""Commands timed in rounds, each round run only when the machine was idle just before it: for A/Bs on a
VM shared with other work (a compiler on the other core makes a 20 ms build take 30), where waiting for
quiet moments is steadier than measuring through the load.

usage: bench/idle_pairs.py ROUNDS "DIR@@COMMAND" "DIR@@COMMAND" [...]

Each argument is a working folder and a command (split like a shell would, no shell features), joined by
`@@`. A round runs every command once, in an order rotated each round, each after an untimed `sync`; it
starts only when the machine's CPUs were at least 90 % idle over the 0.3 s before (from /proc/stat), and
the rounds stop after 15 minutes however many were run. Prints each command's median wall time and, for
each command after the first, the ratio of the first's median to its median and the median of the rounds'
ratios (first / it). A failing command stops the run with its stderr.

Example, the real build of two binaries against mdBook (target/bench/x1/mdbook is the harness's ×1 book,
made by any run of `cargo run --release --example bench`):
  bench/idle_pairs.py 31 ".@@/tmp/new build --out target/ab-new" \\
      "target/bench/x1/mdbook@@mdbook build -d /tmp/mdb-out" ".@@/tmp/old build --out target/ab-old"
"""
import os
import shlex
import statistics
import subprocess
import sys
import time


def cpu():
    fields = list(map(int, open('/proc/stat').readline().split()[1:]))
    return sum(fields), fields[3] + fields[4]


def idle_share(window=0.3):
    total0, idle0 = cpu()
    time.sleep(window)
    total1, idle1 = cpu()
    return (idle1 - idle0) / max(1, total1 - total0)


def run(cmd, cwd):
    os.sync()
    start = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, capture_output=True)
    took = time.perf_counter() - start
    if r.returncode != 0:
        print(f"command failed: {' '.join(cmd)}\n{r.stderr.decode()[-600:]}")
        sys.exit(1)
    return took * 1000


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        print(__doc__)
        sys.exit(2)
    rounds = int(sys.argv[1])
    cmds = []
    for arg in sys.argv[2:]:
        if '@@' not in arg:
            print(f"not DIR@@COMMAND: {arg}")
            sys.exit(2)
        cwd, cmd = arg.split('@@', 1)
        cmds.append((cwd, shlex.split(cmd)))
    times = [[] for _ in cmds]
    busy = 0
    deadline = time.time() + 900
    k = 0
    while len(times[0]) < rounds and time.time() < deadline:
        if idle_share() < 0.9:
            busy += 1
            continue
        order = list(range(len(cmds)))
        order = order[k % len(order):] + order[:k % len(order)]
        k += 1
        for i in order:
            times[i].append(run(cmds[i][1], cmds[i][0]))
    med = statistics.median
    print(f"rounds {len(times[0])} (a round was put off {busy} times: the machine was busy)")
    for (cwd, cmd), t in zip(cmds, times):
        print(f"  {med(t):8.1f} ms  [{min(t):.1f}-{max(t):.1f}]  {' '.join(cmd)}  (in {cwd})")
    for i in range(1, len(cmds)):
        paired = med([a / b for a, b in zip(times[0], times[i])])
        print(f"  first / command {i + 1}: {med(times[0]) / med(times[i]):.3f}; median of the rounds' ratios {paired:.3f}")


if __name__ == '__main__':
    main()
