#!/usr/bin/env bash
# What every molecule scenario reads, made once before they run (tests/bin/molecule.sh, tests/bin/run-all.sh):
# the local images (tests/fixtures/images/build.sh, when absent), the collection from the checkout in
# .build/collections (when not current), the offline wheelhouses and the shared fixtures
# (tests/fixtures/ensure.sh, when their inputs changed). Scenarios started at the same time share them.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export CONTAINERS_CONF="$root/tests/fixtures/images/containers.conf"
export ANSIBLE_COLLECTIONS_PATH="$root/.build/collections"
tests/fixtures/images/build.sh
.venv-test/bin/python tests/bin/check-collection.py "$ANSIBLE_COLLECTIONS_PATH" "$root" >/dev/null 2>&1 \
  || scripts/install-collection.sh .venv-test "$ANSIBLE_COLLECTIONS_PATH" >/dev/null
# The scenarios see the checkout's collection and no other copy (molecule's prerun is off).
.venv-test/bin/python tests/bin/check-collection.py "$ANSIBLE_COLLECTIONS_PATH" "$root"
# Offline wheelhouse for the tools role (the containers reach no index): nvidia-ml-py and uv, the pytorch
# role's installer (the pin the tools role installs).
.venv-test/bin/python -m pip download -q --no-deps -d .build/wheelhouse \
  "$(grep -h '^nvidia-ml-py==' requirements.txt)" \
  "$(sed -n 's/^blackwell_tools_uv_package: *\([^ #]*\).*/\1/p' roles/tools/defaults/main.yml)" 2>&1 | grep -v '^WARNING: Location' || true
# The real CPU torch wheel and its dependencies for the scenarios that run real torch (mounted read-only).
.venv-test/bin/python -m pip download -q --only-binary=:all: -d .build/wheelhouse-torch \
  -r tests/requirements-torch-cpu.txt 2>&1 | grep -v '^WARNING: Location' || true
tests/fixtures/ensure.sh apt_repo pypi_index torch_source real_torch
