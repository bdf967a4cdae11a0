#!/bin/sh
# Assembles a JRE root filesystem from Debian's own packages (debootstrap --variant=minbase plus
# openjdk-17-jre-headless) laid out like the eclipse-temurin JRE image (JAVA_HOME=/opt/java/openjdk,
# a real lib/security/cacerts file), so the Dockerfiles' runtime stages build without a registry.
#
#   jre-base-rootfs.sh [CACHE_DIR [ARCH]]      prints the path of the cached rootfs tarball
#
# ARCH is a Debian architecture (default: this machine's). A foreign one (arm64 on amd64) is assembled
# without emulation: debootstrap --foreign downloads the packages for ARCH and unpacks the required
# ones, and every other downloaded package (the JRE and its dependencies) is unpacked with dpkg-deb -x.
# Nothing runs inside it (no maintainer scripts): enough for an image's files, whose programs run only
# where the machine can execute ARCH.
#
# debootstrap costs minutes, so the tarball is cached under CACHE_DIR (default
# /var/cache/crifresh-images), keyed by suite, mirror and the JRE package version the mirror offers:
# a new openjdk upload makes a new key, an unchanged mirror reuses the tarball.
set -eu

CACHE_DIR=${1:-/var/cache/crifresh-images}
NATIVE=$(dpkg --print-architecture)
ARCH=${2:-$NATIVE}
PACKAGE=openjdk-17-jre-headless

# The suite and mirror this machine's apt uses (deb822 .sources or one-line .list), main archive only:
# debootstrap takes one mirror, and security updates live in a separate archive.
sources=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
MIRROR=${CRIFRESH_DEBIAN_MIRROR:-$(printf '%s\n' "$sources" | sed -n \
    -e 's|^URIs:[[:space:]]*\(http[^[:space:]]*/debian\)/*[[:space:]]*$|\1|p' \
    -e 's|^deb[[:space:]]\{1,\}\(http[^[:space:]]*/debian\)/*[[:space:]].*|\1|p' | head -n 1)}
SUITE=${CRIFRESH_DEBIAN_SUITE:-$(. /etc/os-release && echo "$VERSION_CODENAME")}
[ -n "$MIRROR" ] || { echo "jre-base-rootfs: no Debian mirror found in /etc/apt/sources.list*" >&2; exit 2; }
[ -n "$SUITE" ] || { echo "jre-base-rootfs: no suite (VERSION_CODENAME) in /etc/os-release" >&2; exit 2; }

# The version debootstrap will install: the one apt's lists show for $MIRROR's $SUITE/main.
VERSION=$(apt-cache madison "$PACKAGE" | awk -F'|' -v m="$MIRROR" -v s="$SUITE/main" \
    'index($3, m " " s " ") { gsub(/ /, "", $2); print $2; exit }')
[ -n "$VERSION" ] || { echo "jre-base-rootfs: apt knows no $PACKAGE in $MIRROR $SUITE/main (apt-get update?)" >&2; exit 2; }

if [ "$ARCH" = "$NATIVE" ]; then
    KEY=$(printf '%s\n' "$SUITE" "$MIRROR" "$PACKAGE=$VERSION" minbase layout-1 | sha256sum | cut -c1-16)
    TARBALL="$CACHE_DIR/jre-$SUITE-$KEY.tar"
else
    # the version apt lists for this machine's architecture: the same source upload builds every one
    KEY=$(printf '%s\n' "$SUITE" "$MIRROR" "$PACKAGE=$VERSION" minbase layout-1 "$ARCH" foreign-1 | sha256sum | cut -c1-16)
    TARBALL="$CACHE_DIR/jre-$SUITE-$ARCH-$KEY.tar"
fi
if [ -s "$TARBALL" ]; then
    echo "$TARBALL"
    exit 0
fi

mkdir -p "$CACHE_DIR"
work=$(mktemp -d "$CACHE_DIR/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
echo "jre-base-rootfs: debootstrap $SUITE ($ARCH) from $MIRROR with $PACKAGE=$VERSION (minutes)" >&2
if [ "$ARCH" = "$NATIVE" ]; then
    debootstrap --variant=minbase --include="$PACKAGE" "$SUITE" "$root" "$MIRROR" >&2 \
        || { tail -n 30 "$root/debootstrap/debootstrap.log" >&2 2>/dev/null; exit 1; }
    installed=$(chroot "$root" dpkg-query -W -f='${Version}' "$PACKAGE")
else
    debootstrap --foreign --arch="$ARCH" --variant=minbase --include="$PACKAGE" "$SUITE" "$root" "$MIRROR" >&2 \
        || { tail -n 30 "$root/debootstrap/debootstrap.log" >&2 2>/dev/null; exit 1; }
    for deb in "$root"/var/cache/apt/archives/*.deb; do
        dpkg-deb -x "$deb" "$root"
    done
    installed=$(dpkg-deb -f "$root"/var/cache/apt/archives/"${PACKAGE}"_*.deb Version)
    # ca-certificates-java writes the JRE's cacerts in a maintainer script, which cannot run here: the
    # same PKCS12 file from this machine's Debian (the same CA list; a keystore is platform-independent)
    mkdir -p "$root/etc/ssl/certs/java"
    cp /etc/ssl/certs/java/cacerts "$root/etc/ssl/certs/java/cacerts"
fi
[ "$installed" = "$VERSION" ] || echo "jre-base-rootfs: note: installed $PACKAGE $installed, apt lists said $VERSION" >&2

# Temurin's layout: JAVA_HOME=/opt/java/openjdk, and cacerts a real file there (Debian's is a
# symlink into /etc/ssl/certs/java), so a Dockerfile that replaces it replaces what the JVM reads.
jhome=$(cd "$root" && ls -d usr/lib/jvm/java-17-openjdk-* | head -n 1)
mkdir -p "$root/opt/java"
ln -s "/$jhome" "$root/opt/java/openjdk"
cacerts="$root/$jhome/lib/security/cacerts"
if [ -L "$cacerts" ]; then
    target=$(readlink -f "$cacerts" | sed "s|^$root||")
    rm "$cacerts"
    cp "$root$target" "$cacerts"
fi
# No package caches or lists in an image.
rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"* "$root/debootstrap"
printf '%s\n' "$PACKAGE=$installed" "$SUITE" "$MIRROR" > "$root/etc/crifresh-jre-base"
[ "$ARCH" = "$NATIVE" ] || echo "$ARCH" >> "$root/etc/crifresh-jre-base"

tar --numeric-owner --xattrs -C "$root" -cf "$work/rootfs.tar" .
mv "$work/rootfs.tar" "$TARBALL"
echo "$TARBALL"
