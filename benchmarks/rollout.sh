#!/usr/bin/env bash
# playbooks/rollout.yml over N inventory hosts that are all this machine (local connections, forks = N), each
# with its own pytorch_root, profile and results directory, each adopting the same existing environment as its
# new stack; one host's verification gate is set to fail.
#
#   bash benchmarks/rollout.sh [-n 8] [-f 2] [-e ENV] [-d cuda|cpu] [-- ansible-playbook arguments for every run]
#
#   -n  hosts (h001 ... hNNN), default 8      -f  the host whose gate fails (its number), default 2
#   -e  the environment each host adopts, default /opt/torch/.venv (BENCH_TORCH_ENV)
#   -d  verify on cuda (default when nvidia-smi lists a GPU) or cpu
#
# 1. seed: every host's `current` points at an old stack (venvs/torch-0.0.0-seed, a link to the same
#    environment: what a rollback returns to); the collection's tools on the first host (the others then find
#    them in place: they all share this machine);
# 2. run 1: the canary h001, then the default batches [1, "10%", "100%"]; hNNN (-f) fails its gate, is rolled
#    back, the run stops there: the hosts after it are not reached;
# 3. run 2, the same with the gate passing: the canary is skipped (plan converged, verification stored),
#    the others are rolled out.
# Prints, per run: each batch's hosts, wall seconds and outcome, the hosts rolled back and not reached, the
# playbook's exit status and its wall time. Needs ansible-playbook on PATH and the collection reachable through
# ANSIBLE_COLLECTIONS_PATH (benchmarks/gpu_layer.sh rollout sets both up).
#
# Without a GPU (this runs anywhere): a CPU torch environment and -d cpu, e.g.
#   PYTHON=python3 scripts/venv.sh .build/torch-cpu tests/requirements-torch-cpu.txt
#   ANSIBLE_COLLECTIONS_PATH=.build/collections PATH=.venv-test/bin:$PATH \
#     bash benchmarks/rollout.sh -n 4 -e "$PWD/.build/torch-cpu" -d cpu -- -e blackwell_require_gpu=false \
#     -e blackwell_tools_venv=/tmp/bench-tools -e blackwell_tools_wheelhouse="$PWD/.build/wheelhouse"
# (the gate then checks the build only: there is no GPU in the facts; the verify role benchmarks gemm_fp32 on
# the CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=8
fail=2
env=${BENCH_TORCH_ENV:-/opt/torch/.venv}
device=cpu
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then device=cuda; fi
while [ $# -gt 0 ]; do
  case $1 in
    -n) hosts=$2; shift 2 ;;
    -f) fail=$2; shift 2 ;;
    -e) env=$2; shift 2 ;;
    -d) device=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [-n 8] [-f 2] [-e ENV] [-d cuda|cpu] [-- ansible-playbook arguments]" >&2; exit 2 ;;
  esac
done
[ -x "$env/bin/python3" ] || { echo "$env has no bin/python3: name an environment with torch (-e)" >&2; exit 2; }
work=$(mktemp -d)
# BENCH_KEEP=1 keeps the inventory, the logs and the fleet reports (the path is printed)
if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "work directory: $work"; else trap 'rm -rf "$work"' EXIT; fi
py=${BENCH_PYTHON:-$(command -v python3)}
export ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_HOST_KEY_CHECKING=false ANSIBLE_RETRY_FILES_ENABLED=false
# one JSON string per summary line (the yaml format may quote or fold them)
export ANSIBLE_CALLBACK_RESULT_FORMAT=json
if [ "$device" = cuda ]; then test=gemm_bf16; else test=gemm_fp32; fi
failing=$(printf 'h%03d' "$fail")

# The inventory: N local hosts, each with its own stacks, profile and results; the gates for all.
inv="$work/hosts.yml"
{
  echo "all:"
  echo "  vars:"
  echo "    ansible_connection: local"
  echo "    ansible_python_interpreter: $py"
  echo "    verify_device: $device"
  echo "    verify_tests: [$test]"
  echo "    verify_gates: {$test: {min_tflops: 0.0001}}"
  echo "    fleet_report_dir: $work/reports"
  echo "  hosts:"
  for i in $(seq 1 "$hosts"); do
    h=$(printf 'h%03d' "$i")
    echo "    $h:"
    echo "      pytorch_root: $work/$h/pytorch"
    echo "      pytorch_profile_path: $work/$h/pytorch.sh"
    echo "      verify_results_dir: $work/$h/results"
  done
} >"$inv"
# The forced failure: no GPU reaches an exaflop, no CPU a petaflop.
mkdir -p "$work/host_vars"
echo "verify_gates: {$test: {min_tflops: 1000000}}" >"$work/host_vars/$failing.yml"

echo "seed: $hosts hosts, current -> venvs/torch-0.0.0-seed (a link to $env); the tools once"
for i in $(seq 1 "$hosts"); do
  h=$(printf 'h%03d' "$i")
  mkdir -p "$work/$h/pytorch/venvs" "$work/$h/results"
  ln -s "$env" "$work/$h/pytorch/venvs/torch-0.0.0-seed"
  ln -s venvs/torch-0.0.0-seed "$work/$h/pytorch/current"
done
printf -- '- name: Seed\n  hosts: h001\n  gather_facts: true\n  roles: [blackwell.pytorch.preflight, blackwell.pytorch.tools]\n' >"$work/seed.yml"
ansible-playbook "$work/seed.yml" -i "$inv" -e pytorch_adopt_path="$env" "$@" >"$work/seed.log" 2>&1 \
  || { echo "seed failed; the end of its output:" >&2; tail -n 40 "$work/seed.log" >&2; exit 1; }

run() {  # run NAME [args...]: the rollout, its exit status, wall time and summary lines
  local name=$1 t0 rc=0
  shift
  t0=$(date +%s%N)
  ansible-playbook playbooks/rollout.yml -i "$inv" -f "$hosts" -e pytorch_adopt_path="$env" "$@" \
    >"$work/$name.log" 2>&1 || rc=$?
  echo "--- $name: exit $rc, wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  # the summary's lines (the debug task's list): batches, rolled back, not reached
  grep -oE '"(batch [0-9]+|rolled back:|failed, not rolled back:|not reached:)[^"]*"' "$work/$name.log" \
    | tail -n "$(( hosts + 3 ))" | sed 's/^"//; s/"$//' | awk '!seen[$0]++' || true
  grep -q '"batch 1 ' "$work/$name.log" \
    || { echo "$name printed no summary; the end of its output:"; tail -n 40 "$work/$name.log"; }
}

echo "=== run 1: canary h001, then batches; $failing's gate fails ==="
run run1 "$@"
echo "=== run 2: the same with $failing's gate passing (resume) ==="
run run2 "$@" -e "{\"verify_gates\": {\"$test\": {\"min_tflops\": 0.0001}}}"
