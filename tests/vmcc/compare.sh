#!/bin/sh
# compare.sh NATIVE VIRTUALIZED... : run each program, compare stdout and exit status with the
# native run's byte for byte, under three vm geometries (tiny cache of 32-B blocks: every access
# crosses into evictions; 8 blocks of 64 B under sector-shrink; the paper's 16 KiB of 512-B
# blocks). The environment may set VMCC_TEST_ARGS (the programs' arguments), VMCC_TEST_GEOS
# (geometries, "block:cache:scheme ...") and VMCC_TEST_SPACE (bytes of virtual space).
set -u
native=$1
shift
count=$#
tmp=${TMPDIR:-/tmp}/vmcc-compare.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
args=${VMCC_TEST_ARGS:-}
geos=${VMCC_TEST_GEOS:-"32:64:multi 64:512:shrink 512:16384:multi"}
space=${VMCC_TEST_SPACE:-1048576}
"$native" $args > "$tmp/want" 2> "$tmp/want.err"
want_rc=$?
fail=0
for prog in "$@"; do
  for geo in $geos; do
    IFS=:
    set -- $geo
    unset IFS
    VMCC_SPACE=$space VMCC_BLOCK=$1 VMCC_CACHE=$2 VMCC_SCHEME=$3 VMCC_STATS="$tmp/stats" \
      "$prog" $args > "$tmp/got" 2> "$tmp/got.err"
    rc=$?
    # the virtualized build must really have run on the vm: lookups and sector traffic
    if ! grep -q '"misses": [1-9]' "$tmp/stats" || ! grep -q '"sector_reads": [1-9]' "$tmp/stats"; then
      echo "NOT VIRTUAL: $prog (block $1, cache $2, $3) made no misses or sector reads"
      fail=1
    fi
    if [ $rc -ne $want_rc ] || ! cmp -s "$tmp/want" "$tmp/got"; then
      echo "DIFFERS: $prog (block $1, cache $2, $3): exit $rc vs $want_rc"
      diff "$tmp/want" "$tmp/got" | head -20
      cat "$tmp/got.err" | head -5
      fail=1
    fi
  done
done
[ $fail -eq 0 ] && echo "identical: $native and $count virtualized builds x geometries $geos"
exit $fail
