#!/usr/bin/env bash
# Unit layer: pytest over tests/unit, with a real CPU torch interpreter for the child tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
mkdir -p .build
export BLACKWELL_TEST_TORCH_PYTHON="$root/.build/torch-cpu/bin/python"
set +e
.venv-test/bin/python -m pytest -q -p no:cacheprovider tests/unit | tee .build/unit.log
rc=${PIPESTATUS[0]}
set -e
echo "unit: $(tail -n 1 .build/unit.log)" > .build/test-counts
exit "$rc"
