#!/usr/bin/env bash
# scripts/install-collection.sh VENV DEST [DIST] — build this collection's tarball into DIST (default
# .build/dist, emptied first) and install it into DEST (a collections path), replacing any older copy.
# Prints the tarball's path. Test layers that run at the same time give each its own DIST.
set -euo pipefail
venv=$1; dest=$2
root=$(cd "$(dirname "$0")/.." && pwd)
dist=${3:-$root/.build/dist}
rm -rf "$dist" && mkdir -p "$dist" "$dest"
(cd "$root" && "$venv/bin/ansible-galaxy" collection build --force --output-path "$dist" >/dev/null)
tarball=$(ls "$dist"/blackwell-pytorch-*.tar.gz)
ANSIBLE_COLLECTIONS_PATH="$dest" "$venv/bin/ansible-galaxy" collection install --force --offline -p "$dest" "$tarball" >/dev/null
echo "$tarball"
