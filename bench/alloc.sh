#!/usr/bin/env bash
# The binary's allocator, on the ×100 scaled spec: mimalloc as shipped (the default features: no
# transparent huge pages), mimalloc with huge pages (`--no-default-features --features mimalloc`),
# and the system allocator (`--no-default-features`). Each is timed rebuilding over its previous
# output, into a fresh folder, and rebuilding right after an (untimed) Hugo build of the same text —
# on the VMs here how fast a process gets its memory depends on what ran before it. Runs alternate.
# Prints the median, min and max wall time, the peak RSS and the median count of page faults of each.
# Usage: bench/alloc.sh [RUNS]   (after `cargo run --release --example bench -- --copies 100`, which
# generates target/bench/x100)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-9}
work=$PWD/target/bench/x100
[ -d "$work/spec" ] || { echo "generate target/bench/x100 first (see above)"; exit 2; }
cargo build --release -q
cargo build --release -q --no-default-features --features mimalloc --target-dir target/alloc-thp
cargo build --release -q --no-default-features --target-dir target/alloc-system
declare -A bin=(
  [mimalloc]=$PWD/target/release/kcontract
  [mimalloc-thp]=$PWD/target/alloc-thp/release/kcontract
  [system]=$PWD/target/alloc-system/release/kcontract
)
variants=(mimalloc mimalloc-thp system)
modes=(rebuild fresh)
command -v hugo >/dev/null && [ -d "$work/hugo" ] && modes+=(after-hugo)
declare -A out
for _ in $(seq "$runs"); do
  for a in "${variants[@]}"; do
    for mode in "${modes[@]}"; do
      dir="$work/out-alloc-$a-$mode"
      [ "$mode" = fresh ] && rm -rf "$dir"
      [ "$mode" = after-hugo ] && (cd "$work/hugo" && hugo --quiet -d ../out-hugo)
      sync  # untimed: no run pays for writing back the previous one's output
      line=$(cd "$work" && /usr/bin/time -f '%e %M %R' "${bin[$a]}" build --out "$dir" 2>&1 >/dev/null | tail -1)
      out[$a-$mode]+="$line"$'\n'
    done
  done
done
for mode in "${modes[@]}"; do
  for a in "${variants[@]}"; do
    key=$a-$mode
    faults=$(printf '%s' "${out[$key]}" | awk '{ print $3 }' | sort -n | awk '{ f[NR] = $1 } END { print f[int((NR + 1) / 2)] }')
    printf '%s' "${out[$key]}" | sort -n | awk -v k="$key" -v f="$faults" '
      { t[NR] = $1; if ($2 > rss) rss = $2 }
      END { printf "%-24s median %.2f s  [%.2f–%.2f]  peak RSS %.1f MB  page faults %d  (%d runs)\n", k, t[int((NR + 1) / 2)], t[1], t[NR], rss / 1024, f, NR }'
  done
done
