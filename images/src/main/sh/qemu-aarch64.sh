#!/bin/sh
# Debian's qemu-user-static, unpacked (not installed) into a cache, for the images suite's run of the arm64 agent
# image on this amd64 machine. Prints the path of qemu-aarch64-static. Nothing is registered here: the suite
# registers it with binfmt_misc for the run and removes it afterwards.
#
#   qemu-aarch64.sh [CACHE_DIR]      CACHE_DIR defaults to /var/cache/crifresh-images
set -eu

CACHE_DIR=${1:-/var/cache/crifresh-images}
PACKAGE=qemu-user-static
VERSION=$(apt-cache policy "$PACKAGE" | sed -n 's/^ *Candidate: *//p')
[ -n "$VERSION" ] && [ "$VERSION" != "(none)" ] || { echo "qemu-aarch64: apt knows no $PACKAGE (apt-get update?)" >&2; exit 2; }
target="$CACHE_DIR/qemu-user-static-$(echo "$VERSION" | tr ':~+' '___')"
if [ ! -x "$target/usr/bin/qemu-aarch64-static" ]; then
    mkdir -p "$CACHE_DIR"
    work=$(mktemp -d "$CACHE_DIR/.qemu.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    (cd "$work" && apt-get download -qq "$PACKAGE=$VERSION" >&2)
    dpkg-deb -x "$work"/${PACKAGE}_*.deb "$work/root"
    rm -rf "$target"
    mv "$work/root" "$target"
fi
echo "$target/usr/bin/qemu-aarch64-static"
