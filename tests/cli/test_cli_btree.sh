#!/bin/sh
# strata btree format|put|get|range|stats IMAGE: round trips on each variant's natural device
# (NOR: vmtree, SD: inplace, raw NAND: vmtree through the NAND layer, DataFlash with --variant
# ow), range bounds below the minimum and above the maximum, replacement, a power-cut-free
# remount per command (each command mounts anew), and the errors: missing key, bad entries,
# unknown subcommand or variant, a variant the device cannot take, a region too small, a blank
# or damaged image.
. "$(dirname "$0")/lib.sh"

# roundtrip PROFILE UNITS [--variant V]: the same checks on one device
roundtrip() {
    profile=$1; units=$2; shift 2
    img="$dir/$profile.img"
    expect 0 "$strata" image create "$img" --profile "$profile" --units "$units"
    expect 0 "$strata" btree format "$img" "$@"
    expect 0 "$strata" btree put "$img" 30=thirty 10=ten 20=twenty "$@"
    expect 0 "$strata" btree put "$img" 40=forty 20=TWENTY "$@" # 20 replaced
    expect 0 "$strata" btree get "$img" 20 "$@"
    printf '20=TWENTY\n' > "$dir/want"; output_is "$dir/want" "$profile: get 20 after replacing it"
    expect 1 "$strata" btree get "$img" 25 "$@"
    expect 0 "$strata" btree range "$img" "$@"
    printf '10=ten\n20=TWENTY\n30=thirty\n40=forty\n' > "$dir/want"
    output_is "$dir/want" "$profile: range over everything"
    expect 0 "$strata" btree range "$img" 0 25 "$@" # from below the minimum
    printf '10=ten\n20=TWENTY\n' > "$dir/want"; output_is "$dir/want" "$profile: range 0..25"
    expect 0 "$strata" btree range "$img" 35 "$@" # to the end
    printf '40=forty\n' > "$dir/want"; output_is "$dir/want" "$profile: range from 35"
    expect 0 "$strata" btree range "$img" 41 1000 "$@" # above the maximum: nothing
    : > "$dir/want"; output_is "$dir/want" "$profile: range above the maximum"
    expect 0 "$strata" btree stats "$img" "$@"
}

roundtrip w25q128 64
output_has "^variant vmtree$" "w25q128: stats does not name vmtree"
roundtrip sd-spi 1024
output_has "^variant inplace$" "sd-spi: stats does not name inplace"
roundtrip k9f1g08 16
output_has "^variant vmtree (raw NAND" "k9f1g08: stats does not name the NAND layer"
roundtrip at45db161 64 --variant ow
output_has "^variant ow$" "at45db161: stats does not name ow"

# Many entries through one command: splits, then every one back in order.
expect 0 "$strata" image create "$dir/many.img" --profile w25q128 --units 64
expect 0 "$strata" btree format "$dir/many.img"
set --
i=1
while [ "$i" -le 300 ]; do set -- "$@" "$(( (i * 7919) % 1000 ))=v$(( (i * 7919) % 1000 ))"; i=$((i + 1)); done
expect 0 "$strata" btree put "$dir/many.img" "$@"
expect 0 "$strata" btree range "$dir/many.img"
i=1
while [ "$i" -le 300 ]; do k=$(( (i * 7919) % 1000 )); echo "$k=v$k"; i=$((i + 1)); done | sort -n > "$dir/want"
output_is "$dir/want" "300 entries: range is not every entry in key order"
expect 0 "$strata" btree stats "$dir/many.img"
output_has "^height [2-9]" "300 entries: the tree did not grow past one node"

# Errors: usage (2) and failures (1).
img="$dir/w25q128.img"
expect 2 "$strata" btree
expect 2 "$strata" btree no-such-subcommand "$img"
expect 2 "$strata" btree format "$img" --variant no-such-variant
expect 2 "$strata" btree put "$img" 5
expect 2 "$strata" btree put "$img" five=5
expect 2 "$strata" btree put "$img" 5=seventeen-bytes-x
expect 2 "$strata" btree get "$img"
expect 2 "$strata" btree get "$img" 1 2
expect 2 "$strata" btree range "$img" 1 2 3
expect 0 "$strata" btree --help
expect 1 "$strata" btree get "$dir/missing.img" 1
expect 1 "$strata" btree format "$dir/k9f1g08.img" --variant inplace # raw NAND: VMTREE only
expect 0 "$strata" image create "$dir/small.img" --profile w25q128 --units 8
expect 1 "$strata" btree format "$dir/small.img" # below the smallest region: refused, no crash
expect 0 "$strata" image create "$dir/blank.img" --profile w25q128 --units 64
expect 1 "$strata" btree get "$dir/blank.img" 1 # never formatted
head -c 100 "$img" > "$dir/truncated.img"
expect 1 "$strata" btree get "$dir/truncated.img" 10

[ "$failures" = 0 ] && echo "cli btree: all checks passed"
exit "$failures"
