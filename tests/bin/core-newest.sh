#!/usr/bin/env bash
# tests/bin/core-newest.sh — the newest end of the ansible-core window (meta/runtime.yml requires_ansible).
# The rest of `make test` runs under the oldest end: requirements.txt's pin, in .venv-test. This job runs,
# under tests/requirements-core-newest.txt's ansible-core on the Python tests/bin/python-newest.sh builds:
#   1. the unit layer's tests that run real plays, ansible-doc, ansible-galaxy or ansible-pull (PLAY_TESTS);
#   2. one molecule scenario (CORE_SCENARIO, default `site`: site.yml on a fresh host, check, converge,
#      idempotence), its output in .build/molecule/<scenario>-core-newest.log.
# Prints the ansible-core version and the counts; exits non-zero when anything failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
venv=.venv-core-newest
# Test files and folders that run ansible-core's commands (tests/unit/test_layers/test_core_newest.py keeps
# the list whole: a new test file that runs a play is found there).
PLAY_TESTS=(
  tests/unit/reliability
  tests/unit/roles/test_readme_examples.py
  tests/unit/inventories/test_lab_inventory.py
  tests/unit/docs/test_front_page.py
  tests/unit/plugins/filter/test_filter_docs.py
  tests/unit/plugins/modules/test_module_docs.py
  tests/unit/plugins/module_utils/common/test_output_dirs.py
  tests/unit/plugins/module_utils/common/test_role_path_inputs.py
)
python=$(tests/bin/python-newest.sh)
PYTHON=$python scripts/venv.sh "$venv" tests/requirements-core-newest.txt
ansible=$(grep -E '^ansible==' requirements-test.txt)
if [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print("ansible==" + m.version("ansible"))' 2>/dev/null)" != "$ansible" ]; then
  "$venv/bin/uv" pip install -q --python "$venv/bin/python" --no-deps "$ansible"
fi
version=$("$venv/bin/python" -c 'import ansible.release as r; print(r.__version__)')
echo "core-newest: ansible-core $version on $("$venv/bin/python" -c 'import platform; print(platform.python_version())')"

tests/bin/torch-venv.sh
export BLACKWELL_TEST_TORCH_PYTHON="$root/.build/torch-cpu/bin/python"
workers=${BLACKWELL_TEST_UNIT_WORKERS:-$(nproc)}
parallel=()
[ "$workers" = 0 ] || parallel=(-n "$workers")
mkdir -p .build/counts
set +e
"$venv/bin/python" -m pytest -q -p no:cacheprovider "${parallel[@]}" "${PLAY_TESTS[@]}" | tee .build/core-newest.log
unit_rc=${PIPESTATUS[0]}
scenario=${CORE_SCENARIO:-site}
BLACKWELL_TEST_VENV=$venv tests/bin/molecule-scenario.sh "$scenario"
molecule_rc=$?
set -e
line="ansible-core $version: real plays $(tail -n 1 .build/core-newest.log); molecule $scenario: $([ "$molecule_rc" = 0 ] && echo passed || echo FAILED)"
echo "$line" > .build/counts/core-newest
echo "$line"
[ "$unit_rc" = 0 ] && [ "$molecule_rc" = 0 ]
