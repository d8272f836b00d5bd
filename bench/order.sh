#!/usr/bin/env bash
# What ran just before a build changes how long it takes, on the VMs here: the ×100 rebuild timed right
# after another kcontract build, right after Hugo, right after mdBook, and after 2 s of idling. Each
# timed run follows an untimed `sync`; the situations alternate. Prints median, min and max wall time.
# Usage: bench/order.sh [RUNS]   (after `cargo run --release --example bench -- --copies 100`)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
work=$PWD/target/bench/x100
[ -d "$work/spec" ] || { echo "generate target/bench/x100 first (see above)"; exit 2; }
cargo build --release -q
bin=$PWD/target/release/kcontract
build() { (cd "$work" && "$bin" build --out out-order >/dev/null); }
before_self() { build; }
before_hugo() { (cd "$work/hugo" && hugo --quiet -d ../out-hugo); }
before_mdbook() { (cd "$work/mdbook" && mdbook build -d ../out-mdbook >/dev/null 2>&1); }
before_idle() { sleep 2; }
situations=(self idle)
command -v hugo >/dev/null && situations+=(hugo)
command -v mdbook >/dev/null && situations+=(mdbook)
declare -A out
build
for _ in $(seq "$runs"); do
  for s in "${situations[@]}"; do
    "before_$s"
    sync
    start=$(date +%s%N)
    build
    out[$s]+="$(( ($(date +%s%N) - start) / 1000000 ))"$'\n'
  done
done
for s in "${situations[@]}"; do
  printf '%s' "${out[$s]}" | sort -n | awk -v k="$s" '
    { t[NR] = $1 }
    END { printf "after %-8s median %4d ms  [%d–%d]  (%d runs)\n", k, t[int((NR + 1) / 2)], t[1], t[NR], NR }'
done
