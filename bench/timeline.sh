#!/usr/bin/env bash
# When a ×100 build leaves a core idle: one build into a removed folder under `perf record` (5 kHz
# cpu-clock, call graphs), its samples read in 10 ms buckets: per bucket the cores in use (2.0 = both
# busy on this 2-core VM), then the busiest two (thread, innermost kcontract function). A run of buckets
# near 1.0 is work only one thread can do, and names it. Without BIN it builds and uses the
# frame-pointer binary of bench/profile.sh (target/fp). perf slows the build down; read the shape, not the
# milliseconds.
# Usage: bench/timeline.sh [BIN]   (after `cargo run --release --example bench -- --copies 100`)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$PWD/target/bench/x100
[ -d "$work/spec" ] || { echo "generate target/bench/x100 first (see above)"; exit 2; }
command -v perf >/dev/null || { echo "perf is not installed"; exit 2; }
bin=${1:-}
if [ -z "$bin" ]; then
  RUSTFLAGS="-C force-frame-pointers=yes" cargo build --release -q --target-dir target/fp
  bin=$PWD/target/fp/release/kcontract
fi
bin=$(realpath "$bin")
data=$(mktemp)
cd "$work"
rm -rf out-timeline
"$bin" build --out out-timeline >/dev/null 2>&1 # warm the page cache, untimed
rm -rf out-timeline
sync
perf record -q -F 5000 -g -e cpu-clock -o "$data" -- "$bin" build --out out-timeline >/dev/null 2>&1
perf script -i "$data" -F tid,time,ip,sym 2>/dev/null | python3 -c '
import collections, sys
samples = []
for block in sys.stdin.read().split("\n\n"):
    lines = block.strip().split("\n")
    if not lines or not lines[0].strip():
        continue
    head = lines[0].split()
    frames = [l.strip().split(None, 1)[1] for l in lines[1:] if len(l.strip().split(None, 1)) == 2]
    ours = [f for f in frames if f.startswith("kcontract::") and "{{closure}}" not in f]
    where = ours[0] if ours else (frames[0] if frames else "?")
    samples.append((float(head[1].rstrip(":")), int(head[0]), where))
t0 = min(s[0] for s in samples)
buckets = collections.defaultdict(collections.Counter)
for t, tid, where in samples:
    buckets[int((t - t0) * 100)][(tid, where[:60])] += 1
last = max(buckets)
print(f"{(max(s[0] for s in samples) - t0) * 1e3:.0f} ms, {len(samples) / 5:.0f} ms of CPU; per 10 ms: cores in use, then the busiest (thread, function)")
for k in range(last + 1):
    c = buckets[k]
    top = "; ".join(f"{tid % 1000}:{w} {n}" for (tid, w), n in c.most_common(2))
    print(f"{k * 10:5d} ms  {sum(c.values()) / 50:.1f}  {top}")
'
rm -f "$data"
