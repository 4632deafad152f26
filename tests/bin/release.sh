#!/usr/bin/env bash
# Release layer: the tarball a user installs is what Galaxy accepts and an EE can be built from.
#   1. the tarball holds the license, the changelog and every role's README, and no dev-only file;
#      every relative link in every .md file it ships resolves to a file in it (check-links.py)
#   2. galaxy-importer (offline) accepts it (its ansible-lint pass is the lint layer's: tests/release/galaxy-importer.cfg)
#   3. the changelog fragments and changelogs/changelog.yaml are valid (antsibull-changelog)
#   4. ansible-builder: introspect finds the collection's EE requirements (ranges, no pins) and
#      `ansible-builder create` accepts the users' sample EE definition (examples/) with the collection, offline
#   5. a play uses the action group blackwell.pytorch.torch through module_defaults
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="$root/.venv-test/bin:$PATH"
tests/bin/torch-venv.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tarball=$(scripts/install-collection.sh .venv-test "$work/collections" "$work/dist")
echo "built $(basename "$tarball")"

# 1. contents
tar -tzf "$tarball" | sed 's|/$||' | sort > "$work/contents"
dev_only='^(tests|extensions/molecule|scripts|benchmarks|inventories|\.ci|\.build|changelogs/fragments)(/|$)|^(ansible\.cfg|Makefile|site\.yml|requirements(-test)?\.txt|docs/contributing\.md|docs/testing\.md|\.gitignore|\.yamllint|\.ansible-lint|changelogs/config\.yaml)$'
if grep -E "$dev_only" "$work/contents"; then echo "dev-only files in the tarball (above)"; exit 1; fi
for role in roles/*/; do wanted+=("${role}README.md"); done
for file in LICENSE LICENSES/GPL-3.0-or-later.txt CHANGELOG.md changelogs/changelog.yaml \
            meta/runtime.yml meta/execution-environment.yml docs/domain.md "${wanted[@]}"; do
  grep -qxF "$file" "$work/contents" || { echo "tarball lacks $file"; exit 1; }
done
echo "tarball: $(grep -c . "$work/contents") entries, no dev-only file"
python tests/bin/check-links.py "$tarball"

# 2. galaxy-importer
(cd "$work" && GALAXY_IMPORTER_CONFIG="$root/tests/release/galaxy-importer.cfg" \
  GALAXY_IMPORTER_ANSIBLE_LOCAL_TMP="$work/ansible-tmp" python -m galaxy_importer.main "$tarball") \
  > "$work/importer.log" 2>&1 || { cat "$work/importer.log"; exit 1; }
if ! grep -q '^Importer processing completed successfully' "$work/importer.log" || grep -q '^WARNING\|^ERROR' "$work/importer.log"; then
  cat "$work/importer.log"; echo "galaxy-importer did not accept the collection cleanly"; exit 1
fi
echo "galaxy-importer: $(grep -c '^Loading ' "$work/importer.log") plugins, roles and playbooks loaded; accepted"

# 3. changelog
antsibull-changelog lint
antsibull-changelog lint-changelog-yaml changelogs/changelog.yaml
echo "changelog: fragments and changelog.yaml valid"

# 4. execution environment
ansible-builder introspect --sanitize "$work/collections" > "$work/introspect.txt"
for line in 'nvidia-ml-py>=12.535' 'packaging>=21.0' 'openssh-client [platform:dpkg]'; do
  grep -qF -- "- '$line  # from collection blackwell.pytorch'" "$work/introspect.txt" \
    || { cat "$work/introspect.txt"; echo "introspect lacks $line"; exit 1; }
done
if grep 'blackwell.pytorch' "$work/introspect.txt" | grep -q '=='; then
  cat "$work/introspect.txt"; echo "a pin (==) reaches the EE"; exit 1
fi
mkdir -p "$work/ee"
cp examples/execution-environment.yml "$work/ee/"  # the users' sample; the collection from the tarball
printf -- '---\ncollections:\n  - name: %s\n    type: file\n' "$tarball" > "$work/ee/requirements.yml"
ansible-builder create -f "$work/ee/execution-environment.yml" -c "$work/ee/context" > "$work/ee/create.log" 2>&1 \
  || { cat "$work/ee/create.log"; exit 1; }
if [ ! -s "$work/ee/context/Containerfile" ] \
   || ! grep -q "$(basename "$tarball")" "$work/ee/context/_build/requirements.yml"; then
  cat "$work/ee/create.log"; echo "ansible-builder create wrote no usable context"; exit 1
fi
echo "ansible-builder: introspect and create accept the collection"

# 5. action group
ANSIBLE_COLLECTIONS_PATH="$work/collections" TORCH_PYTHON="$root/.build/torch-cpu/bin/python" \
  ansible-playbook -i localhost, tests/release/action_groups.yml > "$work/play.log" 2>&1 \
  || { cat "$work/play.log"; exit 1; }
grep -A2 '^PLAY RECAP' "$work/play.log" | sed -n 2p
