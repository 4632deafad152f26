#!/usr/bin/env bash
# Where a converged run's module calls spend their time: runs PLAYBOOK once more on this machine
# (local connection) keeping the modules' payloads (ANSIBLE_KEEP_REMOTE_FILES), then runs each
# collection module's payload again by itself: its wall time (median of 3), that is the module's own
# cost (interpreter start, imports, its reads and commands) without Ansible's share of the task.
#
#   bash benchmarks/module_cost.sh [-p PLAYBOOK] [-P] [-- ansible-playbook arguments]
#
# -P: also each payload's profile (benchmarks/payload_profile.py): its imports, its commands, its slowest functions.
#
# Run it after a seeded run (benchmarks/fleet.sh seeds), so the replayed calls are a converged run's.
# Needs ansible-playbook on PATH and the collection reachable (benchmarks/gpu_layer.sh module_cost).
set -euo pipefail
cd "$(dirname "$0")/.."
playbook=site.yml
profile=0
while [ $# -gt 0 ]; do
  case $1 in
    -p) playbook=$2; shift 2 ;;
    -P) profile=1; shift ;;
    --) shift; break ;;
    *) echo "usage: $0 [-p PLAYBOOK] [-P] [-- ansible-playbook arguments]" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py=${BENCH_PYTHON:-$(command -v python3)}
ANSIBLE_KEEP_REMOTE_FILES=1 ANSIBLE_REMOTE_TMP="$work/remote" ANSIBLE_NOCOLOR=1 \
  ansible-playbook "$playbook" -i localhost, -c local -e ansible_python_interpreter="$py" "$@" >"$work/run.log" 2>&1 \
  || { tail -n 30 "$work/run.log"; exit 1; }
printf '%-34s %8s\n' module "median s"
for payload in $(find "$work/remote" -name 'AnsiballZ_*.py' | sort); do
  name=$(basename "$payload" .py); name=${name#AnsiballZ_}
  grep -q 'blackwell' "$payload" || name="$name (builtin)"  # Ansible's own: the floor of a module call
  times=()
  for _ in 1 2 3; do
    t0=$(date +%s%N)
    "$py" "$payload" >/dev/null 2>&1 || true
    times+=($(( ($(date +%s%N) - t0) / 1000000 )))
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
  printf '%-34s %8s\n' "$name" "$(awk -v m="$median" 'BEGIN { printf "%.3f", m / 1000 }')"
  if [ "$profile" = 1 ]; then
    "$py" benchmarks/payload_profile.py --top "${PAYLOAD_TOP:-12}" --imports "${PAYLOAD_IMPORTS:-0}" "$payload" || true
  fi
done
