#!/usr/bin/env bash
# tests/bin/run-all.sh [LAYER...] — bootstrap the test tools, then run the layers (default: all) as jobs,
# several at a time (tests/bin/pool.py: one per CPU where memory allows, BLACKWELL_TEST_JOBS to set it),
# each with its own log under .build/logs/. The molecule layer is one job per scenario
# (MOLECULE_SCENARIOS="a b" runs a subset) after one job that makes what they share
# (tests/bin/molecule-prep.sh). Prints each job's time and result, the ten slowest unit tests and each
# scenario's steps (tests/bin/times.py); exits non-zero if any job failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
layers=("$@")
[ ${#layers[@]} -gt 0 ] || layers=(unit lint sanity release molecule core)
for layer in "${layers[@]}"; do
  case $layer in unit|lint|sanity|release|molecule|core) ;; *) echo "run-all.sh: unknown layer $layer" >&2; exit 2 ;; esac
done
want() { [[ " ${layers[*]} " == *" $1 "* ]]; }

start=$(date +%s)
if ! tests/bin/bootstrap.sh; then echo "bootstrap failed"; exit 1; fi
boot=$(( $(date +%s) - start ))

# Jobs start in this order as slots free up, the longest first (times of a full run on 2 cores); a
# scenario not named here starts after the named ones.
order=(targets-python molecule-prep core-newest unit molecule-rollout molecule-driver_toolkit molecule-pytorch sanity molecule-airgap
       molecule-pytorch_source molecule-container_toolkit molecule-verify lint molecule-site
       molecule-preflight release molecule-default)
declare -A line
mkdir -p .build
rm -rf .build/logs .build/molecule
# The CPU torch venv, once, before the layers that run it (unit, release).
if want unit || want release; then line[torch-cpu]=$'torch-cpu\t-\ttests/bin/torch-venv.sh'; fi
# The sanity layer is two jobs: ansible-test and the linters; the module side under the targets' oldest Python
# (Debian 11's 3.9), which records the tests that passed there: the unit layer of the same run leaves those out.
if want sanity; then
  line[sanity]=$'sanity\t-\ttests/bin/sanity.sh'
  line[targets-python]=$'targets-python\t-\ttests/bin/targets-python.sh'
fi
if want unit && want sanity; then
  line[unit]=$'unit\ttorch-cpu,targets-python\tBLACKWELL_TEST_UNIT_LEAVE=.build/targets-python.passed tests/bin/unit.sh'
elif want unit; then
  line[unit]=$'unit\ttorch-cpu\ttests/bin/unit.sh'
fi
# The collection from the checkout, installed once before the layers that load it (lint, molecule).
if want lint || want molecule; then line[collection]=$'collection\t-\tscripts/install-collection.sh .venv-test .build/collections'; fi
want lint && line[lint]=$'lint\tcollection\ttests/bin/lint.sh'
want release && line[release]=$'release\ttorch-cpu\ttests/bin/release.sh'
if want molecule; then
  line[molecule-prep]=$'molecule-prep\tcollection\ttests/bin/molecule-prep.sh'
  read -ra scenarios <<< "${MOLECULE_SCENARIOS:-$(find extensions/molecule -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | tr '\n' ' ')}"
  for s in "${scenarios[@]}"; do
    [ -d "extensions/molecule/$s" ] || { echo "run-all.sh: no scenario extensions/molecule/$s" >&2; exit 2; }
    line[molecule-$s]="molecule-$s"$'\tmolecule-prep\t'"tests/bin/molecule-scenario.sh $s"
  done
fi
# The ansible-core matrix: the layers above run under the window's oldest end (requirements.txt); this job runs
# the real plays and one scenario under its newest (tests/bin/core-newest.sh).
if want core; then
  line[core-newest]=$'core-newest\ttorch-cpu,molecule-prep\ttests/bin/core-newest.sh'
  line[torch-cpu]=$'torch-cpu\t-\ttests/bin/torch-venv.sh'
  line[collection]=$'collection\t-\tscripts/install-collection.sh .venv-test .build/collections'
  line[molecule-prep]=$'molecule-prep\tcollection\ttests/bin/molecule-prep.sh'
fi
jobs=.build/jobs.tsv
: > "$jobs"
for name in collection torch-cpu "${order[@]}" $(printf '%s\n' "${!line[@]}" | sort); do
  [ -z "${line[$name]:-}" ] || { echo "${line[$name]}" >> "$jobs"; unset "line[$name]"; }
done

.venv-test/bin/python tests/bin/pool.py "$jobs"
rc=$?
echo "=================== times ==================="
printf '%-28s %6ss\n' bootstrap "$boot"
.venv-test/bin/python tests/bin/times.py
printf '%-28s %6ss  %s\n' total "$(( $(date +%s) - start ))" "$([ "$rc" = 0 ] && echo 'all jobs passed' || echo 'FAILED')"
exit "$rc"
