#!/usr/bin/env bash
# A/B of two commits on any kcontract command, run in the ×100 scaled spec (target/bench/x100):
# builds each commit's release binary (in a git worktree under target/ab/, as bench/ab.sh does),
# then runs the command with the two binaries in turn, RUNS times each, after an untimed `sync`,
# and prints the median wall time of each and the ratio B/A. Extra environment for one side only:
# A_ENV / B_ENV (e.g. B_ENV=RAYON_NUM_THREADS=1 to compare a commit with itself on one thread).
# Usage: bench/ab-cmd.sh REV_A REV_B RUNS COMMAND...   e.g. bench/ab-cmd.sh 23f637f HEAD 21 check
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 4 ] || { echo "usage: bench/ab-cmd.sh REV_A REV_B RUNS COMMAND..."; exit 2; }
rev_a=$1 rev_b=$2 runs=$3
shift 3
work=$PWD/target/bench/x100
[ -d "$work/spec" ] || { echo "generate target/bench/x100 first: cargo run --release --example bench -- --copies 100 --runs 1"; exit 2; }
declare -A bin
for side in A B; do
  rev=$([ "$side" = A ] && echo "$rev_a" || echo "$rev_b")
  sha=$(git rev-parse --short "$rev")
  tree=$PWD/target/ab/$sha
  if [ ! -x "$tree/target/release/kcontract" ]; then
    [ -d "$tree" ] || git worktree add --quiet --detach -f "$tree" "$sha"
    (cd "$tree" && cargo build --release -q)
  fi
  bin[$side]=$tree/target/release/kcontract
  echo "$side = $rev ($sha) $([ "$side" = A ] && echo "${A_ENV:-}" || echo "${B_ENV:-}")"
done
declare -A times
for _ in $(seq "$runs"); do
  for side in A B; do
    extra=$([ "$side" = A ] && echo "${A_ENV:-}" || echo "${B_ENV:-}")
    sync
    start=$(date +%s%N)
    (cd "$work" && env $extra "${bin[$side]}" "$@" >/dev/null 2>&1) || true
    end=$(date +%s%N)
    times[$side]="${times[$side]:-} $(( (end - start) / 1000 ))"
  done
done
python3 - "${times[A]}" "${times[B]}" "$runs" "$*" <<'PY'
import statistics, sys
a = [int(x) / 1000 for x in sys.argv[1].split()]
b = [int(x) / 1000 for x in sys.argv[2].split()]
ma, mb = statistics.median(a), statistics.median(b)
print(f"`kcontract {sys.argv[4]}`, medians of {sys.argv[3]} alternating runs each")
print(f"  A {ma:8.1f} ms  [{min(a):.1f}-{max(a):.1f}]")
print(f"  B {mb:8.1f} ms  [{min(b):.1f}-{max(b):.1f}]   B/A {mb / ma:.2f}")
PY
