#!/bin/sh
# Install what Strata needs from Debian's packages. As root it installs what is missing;
# otherwise it prints the exact command and stops.
set -eu
packages="cmake make gcc libc6-dev libcmocka-dev pkg-config gcc-arm-none-eabi libnewlib-arm-none-eabi python3 clang libclang-rt-14-dev llvm"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
    echo "bootstrap: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends $missing
else
    echo "bootstrap: missing Debian packages. Run:" >&2
    echo "  sudo apt-get install -y$missing" >&2
    exit 1
fi
