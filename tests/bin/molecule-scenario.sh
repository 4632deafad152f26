#!/usr/bin/env bash
# tests/bin/molecule-scenario.sh SCENARIO — one molecule scenario, after tests/bin/molecule-prep.sh.
# Its output goes to stdout and .build/molecule/SCENARIO.log, the time of each step to
# .build/molecule/SCENARIO.steps (tests/bin/molecule_steps.py). Fails when molecule fails, when the
# collection it would load is not the checkout's, when molecule printed a WARNING or CRITICAL line
# (a layout it would migrate, a glob that failed), or when ansible-core warned that a task's args are a template.
# BLACKWELL_TEST_VENV: the venv whose molecule and ansible-core run it (default .venv-test); another one's
# output goes to .build/molecule/SCENARIO-<name>.log for .venv-<name> (tests/bin/core-newest.sh: site-core-newest).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
s=$1
venv=${BLACKWELL_TEST_VENV:-.venv-test}
name=$s
[ "$venv" = .venv-test ] || name="$s-${venv#.venv-}"
export CONTAINERS_CONF="$root/tests/fixtures/images/containers.conf"
export PATH="$root/$venv/bin:$PATH"
export ANSIBLE_COLLECTIONS_PATH="$root/.build/collections"
out=.build/molecule
mkdir -p "$out"
.venv-test/bin/python tests/bin/check-collection.py "$ANSIBLE_COLLECTIONS_PATH" "$root" || exit 1
# One run of a scenario at a time on this machine: a scenario's containers have fixed names.
flock "/tmp/blackwell-pytorch-molecule-$s.lock" molecule test -s "$s" 2>&1 \
  | .venv-test/bin/python tests/bin/molecule_steps.py "$out/$name.steps" | tee "$out/$name.log"
rc=${PIPESTATUS[0]}
if grep -aE $'^(\e\\[[0-9;]*m)*(WARNING|CRITICAL)(\e\\[[0-9;]*m)* ' "$out/$name.log" > "$out/$name.warnings"; then
  echo "molecule printed warnings or critical lines for $name:"; cat "$out/$name.warnings"
  [ "$rc" != 0 ] || rc=1
fi
# ansible-core's warning for a task whose whole `args:` is a template: the roles pass their settings another way
if grep -a 'Using a template for task args is unsafe' "$out/$name.log" > "$out/$name.argsplat"; then
  echo "ansible-core warned of templated task args in $name (pass the settings as module_defaults, not args: \"{{ ... }}\"):"
  cat "$out/$name.argsplat"
  [ "$rc" != 0 ] || rc=1
fi
echo "molecule $name steps: $(awk '{printf "%s%s %ss", (NR > 1 ? ", " : ""), $1, $2}' "$out/$name.steps")"
exit "$rc"
