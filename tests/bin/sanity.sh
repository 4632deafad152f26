#!/usr/bin/env bash
# Sanity layer: ansible-test sanity from a temporary ansible_collections/blackwell/pytorch
# tree that is a git checkout, offline apart from PyPI (see tests/fixtures/get_pip_standin.py), pylint over
# the code outside tests/ and pyflakes over tests/. The sanity layer's other job, tests/bin/targets-python.sh
# (the module side compiled, imported and unit-tested under the targets' oldest Python), is its own job in
# tests/bin/run-all.sh: it starts early, and the unit layer leaves out the tests that passed there.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
pip_version=$(.venv-test/bin/python - <<'PY'
import ansible_test._internal.python_requirements as r, inspect, re
print(re.search(r"pip='([0-9.]+)'", inspect.getsource(r)).group(1))
PY
)
cache="$HOME/.ansible/test/cache"
mkdir -p "$cache"
[ -f "$cache/pip-$pip_version-py3-none-any.whl" ] || \
  .venv-test/bin/python -m pip download -q --no-deps "pip==$pip_version" -d "$cache" 2>&1 | grep -v '^WARNING: Location' || true
install -m 0644 tests/fixtures/get_pip_standin.py "$cache/get_pip_${pip_version//./_}.py"

tree="$root/.build/sanity/ansible_collections/blackwell/pytorch"
rm -rf "$root/.build/sanity" && mkdir -p "$tree"
git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c 'test -e "{}" && echo "{}"' \
  | tar -cf - -T - | tar -xf - -C "$tree"
cd "$tree"
git init -q && git add -A
py=$("$root/.venv-test/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
# pylint over the code outside tests/ only (what the collection ships and runs: plugins, roles' files, scripts,
# benchmarks, the molecule scenarios' Python files); the test code gets pyflakes (undefined and unused names) and every other sanity
# test. Over tests/ pylint took 71 of its 136 s on the 2-core machine; pyflakes takes 3 s there (docs/testing.md).
mapfile -t shipped < <(git ls-files '*.py' | grep -v '^tests/' | cut -d/ -f1 | sort -u | sed 's|$|/|')  # directories: plugins/ ...
set +e
PATH="$root/.venv-test/bin:$PATH" ansible-test sanity --color no --python "$py" --requirements --skip-test pylint
sanity_rc=$?
PATH="$root/.venv-test/bin:$PATH" ansible-test sanity --color no --python "$py" --requirements --test pylint "${shipped[@]}"
pylint_rc=$?
git ls-files -z 'tests/*.py' | xargs -0 "$root/.venv-test/bin/python" -m pyflakes
pyflakes_rc=$?
set -e
[ "$sanity_rc" = 0 ] || echo "sanity: ansible-test sanity FAILED (rc $sanity_rc)"
[ "$pylint_rc" = 0 ] || echo "sanity: ansible-test sanity --test pylint FAILED (rc $pylint_rc)"
[ "$pyflakes_rc" = 0 ] || echo "sanity: pyflakes over tests/ FAILED (rc $pyflakes_rc)"
[ "$sanity_rc" = 0 ] && [ "$pylint_rc" = 0 ] && [ "$pyflakes_rc" = 0 ]
