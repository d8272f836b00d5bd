#!/usr/bin/env bash
# Linear time on hostile input: build a one-clause spec whose clause text is S MB of text that mixes
# keywords, Markdown and HTML, for growing S, and print the median of 3 wall times per size.
# Usage: bench/hostile.sh   (after cargo build --release)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/target/release/kcontract
work=target/bench/hostile
for mb in 0.25 0.5 1 2 4; do
  rm -rf "$work" && mkdir -p "$work/spec/en"
  printf 'title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\nupstream: {title: t, url: u, license: l, attribution: a}\n' > "$work/spec/contract.yaml"
  python3 - "$mb" > "$work/spec/en/one.md" <<'PY'
import sys
size = int(float(sys.argv[1]) * 1024 * 1024)
unit = "the platform MUST <script>x</script> `code` [l](javascript:x) **b** _i_ <!-- c --> "
text = (unit * (size // len(unit) + 1))[:size]
print("# One\n\n" + "- a\n  - b\n" * 200 + "\n```clause\nid: one.big\nlevel: MUST\nactor: platform\ntext: >-\n  " + text + "\nverify: manual\n```")
PY
  times=()
  for _ in 1 2 3; do
    s=$(date +%s%N); (cd "$work" && "$bin" build > /dev/null); e=$(date +%s%N)
    times+=($(( (e - s) / 1000000 )))
  done
  med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
  echo "clause text ${mb} MB: median ${med} ms (runs: ${times[*]})"
done
