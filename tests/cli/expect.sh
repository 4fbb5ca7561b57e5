# Shared by the CLI tests (sourced): a scratch directory $dir removed on exit, a failure count,
# and the checks. Each test ends with: [ "$failures" = 0 ] && echo "...passed"; exit "$failures"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0

expect() { # expect CODE command...: the command exits CODE; its output is left in $dir/out
    want=$1; shift
    "$@" >"$dir/out" 2>&1
    got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: '$*' exited $got, expected $want"; sed 's/^/    /' "$dir/out"
        failures=$((failures + 1))
    fi
}

output_is() { # output_is EXPECTED-FILE WHAT: the last command printed exactly that file
    if ! cmp -s "$1" "$dir/out"; then
        echo "FAIL: $2: output differs"; diff "$1" "$dir/out" | sed 's/^/    /'
        failures=$((failures + 1))
    fi
}

output_has() { # output_has REGEX WHAT: a line of the last command's output matches
    grep -q -- "$1" "$dir/out" || { echo "FAIL: $2"; sed 's/^/    /' "$dir/out"; failures=$((failures + 1)); }
}
