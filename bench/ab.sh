#!/usr/bin/env bash
# A/B of two commits: builds each commit's release binary (in a git worktree under target/ab/, all
# sharing one target dir, target/ab/target, so dependencies compile once), then runs
# `build --timings` with the two binaries in turn, RUNS times each, each rebuilding over its own
# previous output (in a temporary folder) after an untimed `sync`, and prints the median wall time
# and the median of every step and part `--timings` reports (a step or part a binary does not report
# shows 0), with the ratio B/A.
# DIR is the project to build in: the ×100 scaled spec by default (after
# `cargo run --release --example bench -- --copies 100`, which generates target/bench/x100), or `.`
# for the real build of this repository (its spec and its tests scanned), as `cargo run --release
# -- build` does.
# Usage: bench/ab.sh REV_A REV_B [RUNS] [DIR]   e.g. bench/ab.sh 0055cf6 HEAD 15 .
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/ab.sh REV_A REV_B [RUNS] [DIR]"; exit 2; }
runs=${3:-11}
work=$(cd "${4:-target/bench/x100}" 2>/dev/null && pwd) || { echo "no folder ${4:-target/bench/x100}"; exit 2; }
[ -d "$work/spec" ] || { echo "$work has no spec/ (for the default, generate target/bench/x100 first, see above)"; exit 2; }
shared=$PWD/target/ab/target
declare -A bin
for side in A B; do
  rev=$([ "$side" = A ] && echo "$1" || echo "$2")
  sha=$(git rev-parse --short "$rev")
  tree=$PWD/target/ab/$sha
  bin[$side]=$PWD/target/ab/bin/$sha
  if [ ! -x "${bin[$side]}" ]; then
    [ -d "$tree" ] || git worktree add --quiet --detach -f "$tree" "$sha"
    (cd "$tree" && CARGO_TARGET_DIR=$shared cargo build --release -q)
    mkdir -p "$PWD/target/ab/bin"
    cp "$shared/release/kcontract" "${bin[$side]}"
  fi
  echo "$side = $rev ($sha)"
done
results=$(mktemp)
out=$(mktemp -d)
for _ in $(seq "$runs"); do
  for side in A B; do
    sync
    start=$(date +%s%N)
    (cd "$work" && "${bin[$side]}" build --out "$out/$side" --timings 2>"$results.err" >/dev/null)
    end=$(date +%s%N)
    ns=$((end - start))
    echo "$side wall $((ns / 1000000)).$(( (ns / 100000) % 10 )) ms" >>"$results"
    grep ' ms' "$results.err" | sed "s/^/$side /" >>"$results"
  done
done
python3 - "$results" "$runs" <<'PY'
import collections, re, statistics, sys
values, order = collections.defaultdict(list), []
for line in open(sys.argv[1]):
    m = re.match(r'(\S) \s*(?:· )?(.*?)\s+([\d.]+) ms', line.rstrip())
    if not m:
        continue
    side, name, ms = m.group(1), m.group(2).strip(), float(m.group(3))
    if name not in order:
        order.append(name)
    values[(name, side)].append(ms)
print(f"medians of {sys.argv[2]} runs each (ms; parts are thread time)")
for name in order:
    a = statistics.median(values.get((name, 'A'), [0]))
    b = statistics.median(values.get((name, 'B'), [0]))
    ratio = f"{b / a:.2f}" if a else "-"
    print(f"  {name:<16} A {a:8.1f}   B {b:8.1f}   B/A {ratio}")
PY
rm -rf "$results" "$results.err" "$out"
