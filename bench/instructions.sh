#!/usr/bin/env bash
# Instructions executed by a kcontract command, per binary (valgrind's callgrind, one thread): a
# count that does not move with the machine's load, for A/Bs on a busy 2-core VM where wall times
# do not hold still. Run it in a spec's folder (e.g. target/bench/x10 after the harness):
#   bench/instructions.sh BIN_A BIN_B -- build --out /tmp/out
# Prints each binary's total; `build` writes into a fresh folder per run.
set -euo pipefail
bins=(); while [ "$1" != "--" ]; do bins+=("$1"); shift; done; shift
for b in "${bins[@]}"; do
  out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
  args=("$@"); for i in "${!args[@]}"; do [ "${args[$i]}" = "/tmp/out" ] && args[$i]="$out/site"; done
  RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$b" "${args[@]}" >/dev/null 2>&1 || true
  total=$(callgrind_annotate "$out/cg" 2>/dev/null | awk '/PROGRAM TOTALS/{print $1}')
  echo "$total instructions  $b ${args[*]}"
  rm -rf "$out"
done
