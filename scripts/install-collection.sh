#!/usr/bin/env bash
# scripts/install-collection.sh VENV DEST — build this collection's tarball and install it
# into DEST (a collections path), replacing any older copy. Prints the tarball's path.
set -euo pipefail
venv=$1; dest=$2
root=$(cd "$(dirname "$0")/.." && pwd)
dist="$root/.build/dist"
rm -rf "$dist" && mkdir -p "$dist" "$dest"
(cd "$root" && "$venv/bin/ansible-galaxy" collection build --force --output-path "$dist" >/dev/null)
tarball=$(ls "$dist"/blackwell-pytorch-*.tar.gz)
ANSIBLE_COLLECTIONS_PATH="$dest" "$venv/bin/ansible-galaxy" collection install --force --offline -p "$dest" "$tarball" >/dev/null
echo "$tarball"
