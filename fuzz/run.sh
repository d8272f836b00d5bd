#!/usr/bin/env bash
# Fuzz the spec path, the trace reader, the results reader, the site manifest, the platform
# profile and Service readers and the readers of issue #50's boundaries (`inputs`: the careful
# reader, the URL judge, the run-report reader, the vendor-log reader) with libFuzzer (needs the nightly toolchain and `cargo install
# cargo-fuzz`). Seeds come from the shipped spec, the model's traces, the matrix fixture's results,
# the committed site's manifest and the shipped profile and Service.
# No sanitizer (-s none): the code is safe Rust and we hunt panics and hangs; that is ~10× faster.
# Usage: fuzz/run.sh [RUNS|SECONDSs] [JOBS] [TARGET...]   (default 1000000 runs per target, 1 job,
# all targets). A number ending in `s` is a time limit per target instead (-max_total_time):
# `fuzz/run.sh 600s 1 inputs` fuzzes the `inputs` target for ten minutes.
# Full libFuzzer output: target/fuzz-<target>.log; crashes land in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
# The manifest and load_check_build targets write their input to a file in a temporary folder:
# on tmpfs they run at thousands of inputs a second, on this VMs' disk at about 150.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
runs=${1:-1000000}
jobs=${2:-1}
limit=()
if [[ "$runs" == *s ]]; then
  limit=(-max_total_time="${runs%s}")
  runs=-1
fi
shift 2 2>/dev/null || shift $#
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(load_check_build replay results manifest platform_readers inputs)
seeds=target/fuzz-seeds
rm -rf "$seeds" && mkdir -p "$seeds/load_check_build" "$seeds/replay" "$seeds/results" "$seeds/manifest" "$seeds/platform_readers" "$seeds/inputs"
for f in spec/en/*.md; do
  name=$(basename "$f")
  cp "$f" "$seeds/load_check_build/en-$name"
  { cat "$f"; printf '\0\0'; cat "spec/zh/$name"; } > "$seeds/load_check_build/both-$name"
done
# Chapters the shipped spec does not have the forms of (clause blocks in list items, inline HTML).
cp tests/fixtures/fuzz/*.md "$seeds/load_check_build/"
cp tests/traces/*.json "$seeds/replay/"
cp tests/fixtures/matrix/results/* "$seeds/results/"
cp site/.kcontract-manifest "$seeds/manifest/site"
head -n 3 site/.kcontract-manifest > "$seeds/manifest/short"
cp platforms/*.yaml platforms/services/*.yaml "$seeds/platform_readers/"
cp platforms/results/*.json upstream/knative/conformance-logs/* "$seeds/inputs/"
cargo +nightly fuzz build -O -s none
for target in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$target"
  log=target/fuzz-$target.log
  echo "== $target: ${limit[*]:-$runs runs}, $jobs job(s); log in $log"
  start=$(date +%s)
  status=0
  if [ "$jobs" -gt 1 ]; then
    per=$runs
    [ "$runs" -lt 0 ] || per=$(( (runs + jobs - 1) / jobs ))
    cargo +nightly fuzz run -O -s none "$target" "fuzz/corpus/$target" "$seeds/$target" -- \
      -runs="$per" "${limit[@]}" -jobs="$jobs" -workers="$jobs" -timeout=10 -max_len=8192 -rss_limit_mb=2048 \
      -dict=fuzz/clause.dict -print_final_stats=1 > "$log" 2>&1 || status=$?
    cat fuzz-*.log >> "$log" 2>/dev/null && rm -f fuzz-*.log
  else
    cargo +nightly fuzz run -O -s none "$target" "fuzz/corpus/$target" "$seeds/$target" -- \
      -runs="$runs" "${limit[@]}" -timeout=10 -max_len=8192 -rss_limit_mb=2048 -dict=fuzz/clause.dict \
      -print_final_stats=1 > "$log" 2>&1 || status=$?
  fi
  echo "   exit $status after $(( $(date +%s) - start )) s"
  grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|DONE|ERROR|SUMMARY|panicked|Test unit written" "$log" | tail -n 8
  [ "$status" -eq 0 ] || exit "$status"
done
