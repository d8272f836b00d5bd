#!/usr/bin/env bash
# Fuzz the spec path and the trace reader with libFuzzer (needs the nightly toolchain and
# `cargo install cargo-fuzz`). Seeds come from the shipped spec and the model's traces.
# Usage: fuzz/run.sh [RUNS]   (default 1000000 per target)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
seeds=target/fuzz-seeds
rm -rf "$seeds" && mkdir -p "$seeds/load_check_build" "$seeds/replay"
for f in spec/en/*.md; do
  name=$(basename "$f")
  cp "$f" "$seeds/load_check_build/en-$name"
  { cat "$f"; printf '\0\0'; cat "spec/zh/$name"; } > "$seeds/load_check_build/both-$name"
done
cp tests/traces/*.json "$seeds/replay/" 2>/dev/null || true
for target in load_check_build replay; do
  mkdir -p "fuzz/corpus/$target"
  echo "== $target: $runs runs"
  cargo +nightly fuzz run "$target" "fuzz/corpus/$target" "$seeds/$target" -- \
    -runs="$runs" -timeout=10 -rss_limit_mb=2048 -dict=fuzz/clause.dict -print_final_stats=1 2>&1 \
    | grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::average_exec_per_sec|==[0-9]+==|SUMMARY|Done)" || true
done
