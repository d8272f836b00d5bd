#!/usr/bin/env bash
# Builds the contract's history (spec/history/) from every upstream version of the Knative Runtime
# Contract (upstream/knative/history/, listed in its index.tsv) with kcontract's own import, the
# workflow docs/following-upstream.md tells editors to use:
#
#   kcontract import VERSION.md --out NEW --keep-ids-from LATER --upstream-only
#
# from the newest version back to the oldest, the newest taking its ids from spec/ itself, so that a
# clause keeps one id through the whole history and the Changes page finds today's clauses in it.
# `--upstream-only` keeps ids and actors, nothing the project added: each folder is what upstream
# had. A version whose only change was the form of the text (`kcontract diff` says
# `"formatting_only": true`) is folded into the next step and named there (`formatting_only:`).
#
# Usage, from the repository's root: spec/history/build.sh [OUT]
#   OUT (default spec/history) receives one folder per version kept; the `history:` entries for
#   spec/contract.yaml are printed. KCONTRACT names the binary (default: kcontract).
# tests/suite/following.rs runs it and fails when its output differs from the committed files.
set -euo pipefail
kcontract=${KCONTRACT:-kcontract}
out=${1:-spec/history}
dir=upstream/knative/history
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Each version: its name (repository and date, `-2` for a second one that day), oldest first.
names=() files=() dates=() repos=() commits=() prs=() titles=() paths=()
declare -A seen=()
while IFS=$'\t' read -r date repo path commit pr title file; do
    name="${repo//\//-}-$date"
    n=${seen[$name]:-0}
    seen[$name]=$((n + 1))
    [ "$n" -gt 0 ] && name="$name-$((n + 1))"
    names+=("$name") files+=("$file") dates+=("$date") repos+=("$repo")
    commits+=("$commit") prs+=("$pr") titles+=("$title") paths+=("$path")
done < <(tail -n +2 "$dir/index.tsv")

# The current contract without its `history:` (the folders this script makes): the newest
# version's ids are its.
mkdir "$work/current"
cp -r spec/contract.yaml spec/en spec/zh "$work/current/"
awk '/^history:/ { skip = 1; next } skip && /^[^ #-]/ { skip = 0 } !skip' spec/contract.yaml \
    >"$work/current/contract.yaml"

# Newest first: each version keeps the ids of the one after it (the newest, spec/'s).
later="$work/current"
for ((i = ${#names[@]} - 1; i >= 0; i--)); do
    "$kcontract" import "$dir/${files[$i]}" --out "$work/${names[$i]}" \
        --keep-ids-from "$later" --upstream-only 2>/dev/null >/dev/null
    later="$work/${names[$i]}"
done

# Oldest first: a version that only reformatted the one before is folded into the next step.
kept=() folded=() pending=""
for ((i = 0; i < ${#names[@]}; i++)); do
    if [ ${#kept[@]} -gt 0 ] &&
        "$kcontract" diff "$work/${kept[-1]}" "$work/${names[$i]}" --format json |
        grep -q '"formatting_only": true'; then
        pending="$pending${pending:+, }${prs[$i]}"
        continue
    fi
    kept+=("${names[$i]}") folded+=("$i:$pending") pending=""
done

mkdir -p "$out"
echo "history:"
for entry in "${folded[@]}"; do
    i=${entry%%:*} also=${entry#*:} name=${names[$i]}
    rm -rf "${out:?}/$name"
    cp -r "$work/$name" "$out/$name"
    title=${titles[$i]//\'/\'\'}
    echo "  - name: $name"
    echo "    label:"
    echo "      en: ${repos[$i]} #${prs[$i]}, ${dates[$i]}"
    echo "      zh: ${repos[$i]} #${prs[$i]}，${dates[$i]}"
    echo "    path: history/$name"
    echo "    url: https://github.com/${repos[$i]}/blob/${commits[$i]}/${paths[$i]}"
    echo "    revision: ${commits[$i]}"
    echo "    date: ${dates[$i]}"
    echo "    pull_request: ${prs[$i]}"
    echo "    title: '$title'"
    if [ -n "$also" ]; then echo "    formatting_only: [$also]"; fi
done
