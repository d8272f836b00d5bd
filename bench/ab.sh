#!/usr/bin/env bash
# A/B of two commits on the ×100 scaled spec: builds each commit's release binary (in a git worktree
# under target/ab/), then runs `build --timings` with the two binaries in turn, RUNS times each, each
# rebuilding over its own previous output after an untimed `sync`, and prints the median wall time
# and the median of every step and part `--timings` reports (a step or part a binary does not report
# shows 0), with the ratio B/A.
# Usage: bench/ab.sh REV_A REV_B [RUNS]   e.g. bench/ab.sh 0055cf6 HEAD 15
# (after `cargo run --release --example bench -- --copies 100`, which generates target/bench/x100)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/ab.sh REV_A REV_B [RUNS]"; exit 2; }
runs=${3:-11}
work=$PWD/target/bench/x100
[ -d "$work/spec" ] || { echo "generate target/bench/x100 first (see above)"; exit 2; }
declare -A bin
for side in A B; do
  rev=$([ "$side" = A ] && echo "$1" || echo "$2")
  sha=$(git rev-parse --short "$rev")
  tree=$PWD/target/ab/$sha
  if [ ! -x "$tree/target/release/kcontract" ]; then
    [ -d "$tree" ] || git worktree add --quiet --detach -f "$tree" "$sha"
    (cd "$tree" && cargo build --release -q)
  fi
  bin[$side]=$tree/target/release/kcontract
  echo "$side = $rev ($sha)"
done
results=$(mktemp)
for _ in $(seq "$runs"); do
  for side in A B; do
    sync
    start=$(date +%s%N)
    (cd "$work" && "${bin[$side]}" build --out "out-ab-$side" --timings 2>"$results.err" >/dev/null)
    end=$(date +%s%N)
    echo "$side wall $(( (end - start) / 1000000 )) ms" >>"$results"
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
rm -f "$results" "$results.err"
