#!/usr/bin/env bash
# tests/bin/python-newest.sh — the controller Python for the newest ansible-core of the tested window
# (ansible-core 2.20 and later need Python 3.12+; Debian 12 ships 3.11). CPython 3.13 is built from the
# source Debian 13 (trixie) ships, into .build/python-newest, and reused while that source is unchanged.
# The source is trusted the way apt trusts it: trixie's InRelease checked by gpgv against the Debian archive
# keyring, the Sources index by the hash InRelease gives, the upstream tarball by the hash the index gives.
# Prints the interpreter's path. MIRROR overrides the Debian mirror (as tests/fixtures/images/build.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mirror="${MIRROR:-http://deb.debian.org/debian}"
suite=trixie package=python3.13
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
prefix="$root/.build/python-newest"
work="$root/.build/python-newest.src"

fail() { echo "python-newest: $*" >&2; exit 1; }
[ -r "$keyring" ] || fail "no $keyring (Debian's debian-archive-keyring package)"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
curl -fsS -o InRelease "$mirror/dists/$suite/InRelease" || fail "cannot read $mirror/dists/$suite/InRelease"
gpgv --keyring "$keyring" --output Release InRelease 2>gpgv.log || { cat gpgv.log >&2; fail "InRelease of $suite: bad signature"; }
sources_sha=$(awk '$3 == "main/source/Sources.xz" && length($1) == 64 {print $1; exit}' Release)
[ -n "$sources_sha" ] || fail "InRelease of $suite names no main/source/Sources.xz"
curl -fsS -o Sources.xz "$mirror/dists/$suite/main/source/Sources.xz"
echo "$sources_sha  Sources.xz" | sha256sum -c --quiet - || fail "Sources.xz does not match InRelease"
# The package's stanza: its directory and the sha256 of its upstream (orig) tarball.
read -r directory orig_sha orig < <(xz -dc Sources.xz | awk -v p="$package" '
  /^Package: / {inpkg = ($2 == p); dir = ""; sha = ""} inpkg && /^Directory: / {dir = $2}
  inpkg && /^Checksums-Sha256:/ {sums = 1; next} /^[^ ]/ {sums = 0}
  inpkg && sums && $3 ~ /\.orig\.tar\.xz$/ {sha = $1; name = $3}
  inpkg && /^$/ && dir != "" && sha != "" {print dir, sha, name; exit}')
[ -n "${orig:-}" ] || fail "no $package source with an .orig.tar.xz in $suite"

if [ "$(cat "$prefix/.source" 2>/dev/null)" = "$orig_sha" ] && [ -x "$prefix/bin/python3.13" ]; then
  rm -rf "$work"; echo "$prefix/bin/python3.13"; exit 0
fi
curl -fsS -o "$orig" "$mirror/$directory/$orig"
echo "$orig_sha  $orig" | sha256sum -c --quiet - || fail "$orig does not match the Sources index"
tar -xJf "$orig"
cd "$(tar -tJf "$orig" | head -n 1 | cut -d/ -f1)"
echo "python-newest: building $orig (a few minutes)" >&2
rm -rf "$prefix"
./configure --prefix="$prefix" --with-ensurepip=install --disable-test-modules >"$work/configure.log" 2>&1 \
  || { tail -n 30 "$work/configure.log" >&2; fail "configure failed"; }
make -j "$(nproc)" -s >"$work/make.log" 2>&1 || { tail -n 30 "$work/make.log" >&2; fail "make failed"; }
make -s install >"$work/install.log" 2>&1 || { tail -n 30 "$work/install.log" >&2; fail "make install failed"; }
"$prefix/bin/python3.13" -c 'import ssl, ctypes, sqlite3, lzma, bz2, zlib, venv, ensurepip' \
  || fail "the built Python lacks a module the test tools need (the -dev packages of tests/bin/bootstrap.sh)"
echo "$orig_sha" > "$prefix/.source"
rm -rf "$work"
echo "$prefix/bin/python3.13"
