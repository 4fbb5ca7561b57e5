#!/bin/sh
# refuse.sh VMCC_PY FILE.c : vmcc must refuse FILE.c with a non-zero exit and the message on
# the file's "expect:" line (its source location and reason).
set -u
want=$(sed -n 's/.*expect: \(.*\) \*\/.*/\1/p' "$2")
out=$(/usr/bin/python3 "$1" "$2" -o /dev/null 2>&1)
rc=$?
if [ $rc -eq 0 ]; then echo "vmcc accepted $2"; exit 1; fi
case "$out" in
  *"$want"*) echo "refused as expected: $out"; exit 0 ;;
esac
echo "refused differently: '$out' (expected '$want')"
exit 1
