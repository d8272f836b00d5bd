#!/usr/bin/env python3
"""The run-report reader is linear in its input (issue #50): time `kcontract matrix --platform`
on a copy of platforms/results/runc.json with N clause ids the contract does not have, written
on one line (the worst case for positions: a one-line file's column counts from the file's start),
for each N given; print the seconds and the seconds per 10,000 ids.

    python3 bench/report_unknown.py [BINARY] [N ...]
    python3 bench/report_unknown.py target/release/kcontract 10000 20000 40000

Before the fix a report of 40,000 unknown ids took 15 s (release) and grew faster than linearly:
each id got its own diagnostic, a "did you mean" search over every clause and a position.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def report(n, path):
    with open(os.path.join(ROOT, "platforms/results/runc.json")) as f:
        v = json.load(f)
    base = v["clauses"][0]
    for i in range(n):
        c = dict(base)
        c["id"] = f"zz.unknown.clause{i}"
        v["clauses"].append(c)
    with open(path, "w") as f:
        json.dump(v, f)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/kcontract")
    sizes = [int(a) for a in sys.argv[2:]] or [10000, 20000, 40000]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = os.path.join(tmp, f"r{n}.json")
            report(n, path)
            start = time.monotonic()
            out = subprocess.run(
                [binary, "--spec", os.path.join(ROOT, "spec"), "matrix", "--platform", path],
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            took = time.monotonic() - start
            warned = out.stderr.count("K0612")
            print(f"{n:>7} unknown ids  {took:7.2f} s  {took / max(n, 1) * 10000:6.3f} s per 10,000  "
                  f"exit {out.returncode}  K0612 lines {warned}")


if __name__ == "__main__":
    main()
