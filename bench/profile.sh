#!/usr/bin/env bash
# Where a ×100 build spends its CPU: `perf record` (4 kHz, frame-pointer call graphs) over RUNS
# rebuilds with a release binary built with frame pointers (target/fp), then the share of samples by
# the innermost kcontract function on the stack (the time of the libraries and the kernel it calls
# counts for it; samples with no kcontract frame are shown by their leaf symbol). Needs perf.
# With `fresh` as the third argument, each build writes into a removed folder instead (as the harness's
# "fresh output"); only the kcontract process's samples count, not the `rm`'s.
# Usage: bench/profile.sh [RUNS] [LINES] [fresh]   (after `cargo run --release --example bench -- --copies 100`)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-8}
lines=${2:-30}
clear=""
[ "${3:-}" = fresh ] && clear="rm -rf out-profile; sync;"
work=$PWD/target/bench/x100
[ -d "$work/spec" ] || { echo "generate target/bench/x100 first (see above)"; exit 2; }
command -v perf >/dev/null || { echo "perf is not installed"; exit 2; }
RUSTFLAGS="-C force-frame-pointers=yes" cargo build --release -q --target-dir target/fp
bin=$PWD/target/fp/release/kcontract
data=$(mktemp)
(cd "$work" && "$bin" build --out out-profile >/dev/null 2>&1)  # warm the page cache, untimed
(cd "$work" && perf record -q -F 4000 -g -o "$data" -- sh -c \
  "for i in \$(seq $runs); do $clear '$bin' build --out out-profile >/dev/null 2>&1; done") 2>/dev/null
perf script -i "$data" -F comm,ip,sym 2>/dev/null | python3 -c '
import collections, sys
lines = int(sys.argv[1])
counts, total = collections.Counter(), 0
for sample in sys.stdin.read().split("\n\n"):
    lines_ = sample.strip().split("\n")
    if not lines_[0].startswith("kcontract"):  # the sample header: the command name
        continue
    frames = [l.strip().split(None, 1)[1] for l in lines_[1:] if len(l.strip().split(None, 1)) == 2]
    if not frames:
        continue
    total += 1
    ours = [f for f in frames if f.startswith("kcontract::") and "{{closure}}" not in f]
    counts[ours[0] if ours else "(no kcontract frame) " + frames[0][:60]] += 1
print(f"{total} samples; share by innermost kcontract function:")
for name, n in counts.most_common(lines):
    print(f"  {100 * n / total:5.1f}%  {name[:110]}")
' "$lines"
rm -f "$data"
