#!/usr/bin/env bash
# Instructions executed by a kcontract command, per binary (valgrind's callgrind, one thread): a
# count that does not move with the machine's load, for A/Bs on a busy 2-core VM where wall times
# do not hold still. Run it in a spec's folder (e.g. target/bench/x10 after the harness, or this
# repository's root for the real build with its tests scanned):
#   bench/instructions.sh [--rebuild] BIN_A BIN_B -- build --out /tmp/out
# A binary may carry environment for its run after an `@`: `BIN@KCONTRACT_NO_CACHE=1,X=1` (the
# same binary with and without a switch). Each binary runs once untimed first, so its caches are
# warm as in everyday use; `/tmp/out` is replaced by a folder of its own, emptied before the
# counted run, or with --rebuild kept from the untimed run (a rebuild over the previous site).
# Prints each binary's total.
set -euo pipefail
rebuild=0; [ "${1:-}" = "--rebuild" ] && { rebuild=1; shift; }
bins=(); while [ "$1" != "--" ]; do bins+=("$1"); shift; done; shift
for spec in "${bins[@]}"; do
  b=${spec%%@*}; envs=(); [ "$b" != "$spec" ] && IFS=, read -ra envs <<< "${spec#*@}"
  out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
  args=("$@"); for i in "${!args[@]}"; do [ "${args[$i]}" = "/tmp/out" ] && args[$i]="$out/site"; done
  env "${envs[@]}" "$b" "${args[@]}" >/dev/null 2>&1 || true
  [ "$rebuild" = 1 ] || rm -rf "$out/site"
  env "${envs[@]}" RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$b" "${args[@]}" >/dev/null 2>&1 || true
  total=$(callgrind_annotate "$out/cg" 2>/dev/null | awk '/PROGRAM TOTALS/{print $1}')
  echo "$total instructions  $spec ${args[*]}"
  rm -rf "$out"
done
