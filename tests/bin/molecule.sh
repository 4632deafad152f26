#!/usr/bin/env bash
# Molecule layer: every scenario under extensions/molecule/ (molecule's layout for collections) on podman with local images, offline.
# MOLECULE_SCENARIOS="a b" runs a subset.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export CONTAINERS_CONF="$root/tests/fixtures/images/containers.conf"
export PATH="$root/.venv-test/bin:$PATH"
export ANSIBLE_COLLECTIONS_PATH="$root/.build/collections"
tests/fixtures/images/build.sh || exit 1
scripts/install-collection.sh .venv-test "$ANSIBLE_COLLECTIONS_PATH" >/dev/null || exit 1
# The scenarios see the checkout's collection and no other copy (molecule's prerun is off).
.venv-test/bin/python tests/bin/check-collection.py "$ANSIBLE_COLLECTIONS_PATH" "$root" || exit 1
# Offline wheelhouse for the tools role (the containers reach no index): nvidia-ml-py and uv, the pytorch
# role's installer (the pin the tools role installs).
.venv-test/bin/python -m pip download -q --no-deps -d .build/wheelhouse \
  "$(grep -h '^nvidia-ml-py==' requirements.txt)" \
  "$(sed -n 's/^blackwell_tools_uv_package: *\([^ #]*\).*/\1/p' roles/tools/defaults/main.yml)" 2>&1 | grep -v '^WARNING: Location' || true
# The real CPU torch wheel and its dependencies for extensions/molecule/pytorch_real (mounted read-only).
.venv-test/bin/python -m pip download -q --only-binary=:all: -d .build/wheelhouse-torch \
  -r tests/requirements-torch-cpu.txt 2>&1 | grep -v '^WARNING: Location' || true
scenarios=${MOLECULE_SCENARIOS:-$(find extensions/molecule -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | tr '\n' ' ')}
declare -A took rc
for s in $scenarios; do
  echo "------------------- molecule scenario: $s -------------------"
  t0=$(date +%s)
  # One run of a scenario at a time on this machine: scenarios use fixed container names.
  if .venv-test/bin/python tests/bin/check-collection.py "$ANSIBLE_COLLECTIONS_PATH" "$root" >/dev/null; then
    flock "/tmp/blackwell-pytorch-molecule-$s.lock" molecule test -s "$s" 2>&1 | tee ".build/molecule-$s.log"
    rc[$s]=${PIPESTATUS[0]}
    # Molecule's own warnings and critical lines (a layout it would migrate, a glob that failed) fail
    # the scenario: its output must carry none.
    if grep -aE $'^(\e\\[[0-9;]*m)*(WARNING|CRITICAL)(\e\\[[0-9;]*m)* ' ".build/molecule-$s.log" > ".build/molecule-$s.warnings"; then
      echo "molecule printed warnings or critical lines for $s:"; cat ".build/molecule-$s.warnings"
      [ "${rc[$s]}" != 0 ] || rc[$s]=1
    fi
  else
    .venv-test/bin/python tests/bin/check-collection.py "$ANSIBLE_COLLECTIONS_PATH" "$root"
    rc[$s]=1
  fi
  took[$s]=$(( $(date +%s) - t0 ))
done
failed=0; passed=0
for s in $scenarios; do
  if [ "${rc[$s]}" = 0 ]; then passed=$((passed + 1)); st=ok; else failed=$((failed + 1)); st=FAILED; fi
  printf 'molecule %-20s %5ss  %s\n' "$s" "${took[$s]}" "$st" | tee -a .build/test-counts
done
echo "molecule scenarios: $passed passed, $failed failed" | tee -a .build/test-counts
[ "$failed" = 0 ]
