#!/bin/sh
# runtime_refuse.sh PROGRAM FILE.c : the virtualized PROGRAM must fail, printing FILE.c's
# "expect:" text and FILE.c's name (the location of the refused call).
set -u
want=$(sed -n 's/.*expect: \(.*\) \*\/$/\1/p' "$2")
err=$("$1" 2>&1 >/dev/null)
rc=$?
case "$err" in
  *"$want"*"$(basename "$2")"*) [ $rc -ne 0 ] && { echo "stopped as expected: $err"; exit 0; } ;;
esac
echo "exit $rc, stderr: $err (expected '$want')"
exit 1
