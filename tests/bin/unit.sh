#!/usr/bin/env bash
# Unit layer: pytest over tests/unit on every CPU (pytest-xdist; BLACKWELL_TEST_UNIT_WORKERS sets the
# number of workers, 0 runs in one process), with a real CPU torch interpreter for the child tests.
# A test file's tests share a worker, and so do the reliability rows that share a session fixture
# (tests/unit/conftest.py, pytest_xdist_make_scheduler): each expensive fixture is built once. Prints the ten
# slowest tests; the counts go to .build/counts/unit. Test paths as arguments run
# only those (tests/bin/changed.py --run); the default is tests/unit.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
mkdir -p .build/counts
tests/bin/torch-venv.sh
export BLACKWELL_TEST_TORCH_PYTHON="$root/.build/torch-cpu/bin/python"
# The plays' modules keep the code compiled from their archives here (tests/bin/bootstrap.sh installs the hook).
export BLACKWELL_TEST_ZIP_CODE_CACHE="$root/.build/zip-code"
workers=${BLACKWELL_TEST_UNIT_WORKERS:-$(nproc)}
parallel=()
[ "$workers" = 0 ] || parallel=(-n "$workers")
paths=("$@")
[ ${#paths[@]} -gt 0 ] || paths=(tests/unit)
set +e
.venv-test/bin/python -m pytest -q -p no:cacheprovider "${parallel[@]}" --durations=10 "${paths[@]}" | tee .build/unit.log
rc=${PIPESTATUS[0]}
set -e
tail -n 1 .build/unit.log > .build/counts/unit
exit "$rc"
