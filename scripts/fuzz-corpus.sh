#!/bin/sh
# Rewrite every fuzz target's seed corpus (fuzz/corpus/<target>/) with the seed generator of a
# build (fuzz_seeds, from fuzz/seeds*.c), then replay each corpus through its regression
# driver so that a seed the targets reject shows at once. Run after a format changes:
# make fuzz-corpus.
# usage: scripts/fuzz-corpus.sh BUILD
set -eu
build=$1
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/fuzz/fuzz_seeds" "$out"
for dir in "$out"/*; do
    name=$(basename "$dir")
    rm -rf "$root/fuzz/corpus/$name"
    mkdir -p "$root/fuzz/corpus/$name"
    cp "$dir"/* "$root/fuzz/corpus/$name/"
    echo "fuzz/corpus/$name: $(ls "$dir" | wc -l) seeds, $(du -sk "$dir" | cut -f1) KiB"
done
for dir in "$out"/*; do
    name=$(basename "$dir")
    cmake --build "$build" --target "fuzzreg_$name" >/dev/null
    "$build/fuzz/fuzzreg_$name" "$root/fuzz/corpus/$name"
done
