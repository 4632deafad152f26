#!/usr/bin/env bash
# Lint layer: the collection is built from the checkout and installed into .build/collections
# first (ansible-lint resolves blackwell.pytorch.* there and nowhere else), then ansible-lint,
# production profile, over the whole tree but the molecule scenarios (yamllint included), and yamllint over those; then the built tarball must
# install into a fresh collections path and ansible-doc must render every module; last, from that
# copy, antsibull-docs lints the documentation and builds the docs site (tests/bin/docs-site.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export ANSIBLE_COLLECTIONS_PATH="$root/.build/collections" PATH="$root/.venv-test/bin:$PATH"
.venv-test/bin/python tests/bin/check-collection.py "$ANSIBLE_COLLECTIONS_PATH" "$root" >/dev/null 2>&1 \
  || scripts/install-collection.sh .venv-test "$ANSIBLE_COLLECTIONS_PATH" >/dev/null
.venv-test/bin/python tests/bin/check-collection.py "$ANSIBLE_COLLECTIONS_PATH" "$root"
ansible-lint --profile production --offline
# The molecule scenarios (left out of ansible-lint by .ansible-lint, run for real by the molecule layer): the YAML
# rules ansible-lint applies (yamllint's defaults, lines up to 160, no document start required, octal and truthy
# values as ansible-lint forbids them).
yamllint -s -d "{extends: default, rules: {line-length: {max: 160}, comments: {min-spaces-from-content: 1},
  comments-indentation: false, document-start: disable, braces: {max-spaces-inside: 1},
  octal-values: {forbid-implicit-octal: true, forbid-explicit-octal: true}, truthy: {allowed-values: ['true', 'false']}}}" \
  extensions/molecule
echo "yamllint: extensions/molecule passed"
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
tarball=$(scripts/install-collection.sh .venv-test "$fresh" "$fresh/dist")
echo "built $(basename "$tarball"); installed into a fresh collections path"
# every module's page in one ansible-doc call (one process: 2 s instead of 19 s for 19 modules on the 2-core
# machine), then each page's header and length
names=()
for module in plugins/modules/*.py; do names+=("blackwell.pytorch.$(basename "$module" .py)"); done
ANSIBLE_NOCOLOR=1 ANSIBLE_COLLECTIONS_PATH="$fresh" .venv-test/bin/ansible-doc "${names[@]}" > "$fresh/doc.txt"
for name in "${names[@]}"; do
  grep -q "^> MODULE $name " "$fresh/doc.txt" || { echo "ansible-doc $name did not render"; exit 1; }
  lines=$(awk -v head="> MODULE $name " 'index($0, "> MODULE ") == 1 { on = (index($0, head) == 1) } on { n++ } END { print n + 0 }' "$fresh/doc.txt")
  echo "ansible-doc $name: $lines lines"
done
tests/bin/docs-site.sh "$fresh"
