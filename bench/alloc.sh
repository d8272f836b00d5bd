#!/usr/bin/env bash
# The binary's allocator: mimalloc (the default feature) with huge pages as the binary sets them
# (allowed for a spec folder of 4 MiB or more, see src/memory.rs), mimalloc without huge pages
# (MIMALLOC_ALLOW_THP=0: mimalloc then neither asks for them nor lets the process have them), and the
# system allocator (`--no-default-features`), on the ×100 scaled spec, rebuilding over the previous
# output and into a fresh folder, runs alternating. Prints the median, min and max wall time and the
# peak RSS of each.
# Usage: bench/alloc.sh [RUNS]   (after `cargo run --release --example bench -- --copies 100`, which
# generates target/bench/x100)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-9}
work=$PWD/target/bench/x100
[ -d "$work/spec" ] || { echo "generate target/bench/x100 first (see above)"; exit 2; }
cargo build --release -q
cargo build --release -q --no-default-features --target-dir target/alloc-system
mi=$PWD/target/release/kcontract
declare -A cmd=(
  [mimalloc]="$mi"
  [mimalloc-no-huge-pages]="env MIMALLOC_ALLOW_THP=0 $mi"
  [system]="$PWD/target/alloc-system/release/kcontract"
)
variants=(mimalloc mimalloc-no-huge-pages system)
declare -A out
for _ in $(seq "$runs"); do
  for a in "${variants[@]}"; do
    for mode in rebuild fresh; do
      dir="$work/out-alloc-$a-$mode"
      [ "$mode" = fresh ] && rm -rf "$dir"
      sync  # untimed: no run pays for writing back the previous one's output
      # shellcheck disable=SC2086 # the command is words on purpose
      line=$(cd "$work" && /usr/bin/time -f '%e %M' ${cmd[$a]} build --out "$dir" 2>&1 >/dev/null | tail -1)
      out[$a-$mode]+="$line"$'\n'
    done
  done
done
for mode in rebuild fresh; do
  for a in "${variants[@]}"; do
    key=$a-$mode
    printf '%s' "${out[$key]}" | sort -n | awk -v k="$key" '
      { t[NR] = $1; if ($2 > rss) rss = $2 }
      END { printf "%-32s median %.2f s  [%.2f–%.2f]  peak RSS %.1f MB  (%d runs)\n", k, t[int((NR + 1) / 2)], t[1], t[NR], rss / 1024, NR }'
  done
done
