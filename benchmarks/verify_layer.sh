#!/usr/bin/env bash
# GPU layer of the verify stage: runs playbooks/verify.yml (and site.yml) on this machine with the
# torch at $TORCH_PY and prints one table: step, exit status, wall time, and what the result says.
# Steps (default all, in this order): quick reuse site forbid standard; upgrade (after quick: a copy of the
# collection with one byte of module_utils/torch_cuda_check changed must verify again, then reuse). Rows also go to $OUT/table.txt
# as each step ends. benchmarks/callback_plugins/task_times.py times every role and task: the table
# shows the verify role's own seconds, and each log ends with the slowest tasks. Needs ansible-playbook on PATH and the
# collection on ANSIBLE_COLLECTIONS_PATH (benchmarks/gpu_layer.sh verify sets both up).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
TORCH_PY=${TORCH_PY:-/opt/torch/.venv/bin/python3}
OUT=${OUT:-$(mktemp -d)}
DEVICE=${DEVICE:-cuda}  # cpu: exercise this script without a GPU
mkdir -p "$OUT"
work=$(mktemp -d)
results="$work/results"
reports="$work/reports"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(quick reuse site forbid standard)
rows=()
py=$(command -v python3)
export ANSIBLE_CALLBACK_PLUGINS="$PWD/benchmarks/callback_plugins" ANSIBLE_CALLBACKS_ENABLED=task_times

play() {  # play <log> <playbook> [args...]: run, print rc and wall ms
  local log=$1; shift
  local t0 rc
  t0=$(date +%s%N)
  TASK_TIMES_JSON="$log.times.json" ansible-playbook "$@" -i localhost, -c local -e ansible_python_interpreter="$py" \
    -e verify_results_dir="$results" -e fleet_report_dir="$reports" -e verify_device="$DEVICE" >"$log" 2>&1
  rc=$?
  echo "$rc $(( ($(date +%s%N) - t0) / 1000000 ))"
}

describe() {  # what verify.json says: verdict, reused, key figures
  "$py" - "$results/verify.json" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError) as exc:
    print("no verify.json (%s)" % exc); sys.exit()
print("%s%s | %s" % ("PASSED" if doc["passed"] else "FAILED", " (stored)" if doc.get("reused") else "",
                      " | ".join(doc.get("summary") or [])))
PY
}

recap() { grep -E '^localhost +:' "$1" | tr -s ' ' | cut -d: -f2- ; }

role_s() {  # role_s <log>: seconds the verify role took in that run
  "$py" -c 'import json, sys
try:
    print(json.load(open(sys.argv[1]))["roles_s"].get("blackwell.pytorch.verify", "-"))
except (OSError, ValueError):
    print("-")' "$1.times.json"
}

for step in "${steps[@]}"; do
  log="$OUT/verify-$step.log"
  before=${#rows[@]}
  case $step in
    quick)
      read -r rc ms < <(play "$log" playbooks/verify.yml -e verify_python="$TORCH_PY")
      rows+=("quick (facts + check + benchmark)|$rc|$ms|$(role_s "$log")|$(recap "$log")|$(describe)") ;;
    reuse)
      read -r rc ms < <(play "$log" playbooks/verify.yml -e verify_python="$TORCH_PY")
      rows+=("quick again (fingerprint unchanged)|$rc|$ms|$(role_s "$log")|$(recap "$log")|$(describe)")
      printf -- '- name: Baseline\n  hosts: all\n  gather_facts: false\n  tasks:\n    - name: Nothing\n      ansible.builtin.ping:\n' >"$work/empty.yml"
      read -r rc ms < <(play "$OUT/verify-empty.log" "$work/empty.yml")
      rows+=("baseline: a play with one ping (ansible start-up)|$rc|$ms|-|$(recap "$OUT/verify-empty.log")|-") ;;
    upgrade)  # an installed copy with one byte of the kernel check's code changed, version unchanged
      copy="$work/upgraded/ansible_collections/blackwell/pytorch"
      mkdir -p "$copy"
      cp -r plugins roles meta playbooks galaxy.yml "$copy/"
      sed -i '0,/contributors/s//Contributors/' "$copy/plugins/module_utils/torch_cuda_check/policy.py"
      read -r rc ms < <(ANSIBLE_COLLECTIONS_PATH="$work/upgraded" play "$log" "$copy/playbooks/verify.yml" \
                          -e verify_python="$TORCH_PY")
      rows+=("quick after an upgrade of the check's code, same version|$rc|$ms|$(role_s "$log")|$(recap "$log")|$(describe)")
      read -r rc ms < <(ANSIBLE_COLLECTIONS_PATH="$work/upgraded" play "$OUT/verify-upgrade2.log" \
                          "$copy/playbooks/verify.yml" -e verify_python="$TORCH_PY")
      rows+=("the upgraded copy again (fingerprint unchanged)|$rc|$ms|$(role_s "$OUT/verify-upgrade2.log")|$(recap "$OUT/verify-upgrade2.log")|$(describe)") ;;
    standard)
      read -r rc ms < <(play "$log" playbooks/verify.yml -e verify_python="$TORCH_PY" -e verify_profile=standard \
                          -e verify_force=true)
      rows+=("standard (sustained 25 s), default gates|$rc|$ms|$(role_s "$log")|$(recap "$log")|$(describe)")
      cp "$results/verify.json" "$OUT/verify-standard.json" 2>/dev/null
      cp "$reports"/*/fleet.html "$OUT/fleet-standard.html" 2>/dev/null ;;
    forbid)
      read -r rc ms < <(play "$log" playbooks/verify.yml -e verify_python="$TORCH_PY" -e verify_force=true \
                          -e verify_sustained_seconds=10 \
                          -e '{"verify_tests": ["sustained"], "verify_gates": {"sustained": {"forbid_clock_reasons": ["sw_power_cap"]}}}')
      rows+=("sustained 10 s, gate forbids sw_power_cap (expect rc 2)|$rc|$ms|$(role_s "$log")|$(recap "$log")|$(grep -o 'verification failed[^"]*' "$log" | head -n 1 | cut -c1-400)") ;;
    site)
      root="$work/site"
      results="$work/site-results"  # its own: the first run verifies again
      args=(-e pytorch_adopt_path="${TORCH_PY%/bin/*}" -e pytorch_root="$root/pytorch" -e pytorch_profile_path="$root/pytorch.sh")
      read -r rc ms < <(play "$log" site.yml "${args[@]}")
      rows+=("site.yml adopt, first run|$rc|$ms|$(role_s "$log")|$(recap "$log")|$(describe)")
      read -r rc ms < <(play "$OUT/verify-site2.log" site.yml "${args[@]}")
      rows+=("site.yml adopt, second run|$rc|$ms|$(role_s "$OUT/verify-site2.log")|$(recap "$OUT/verify-site2.log")|$(describe)")
      read -r rc ms < <(ANSIBLE_PIPELINING=true play "$OUT/verify-site3.log" site.yml "${args[@]}")
      rows+=("site.yml adopt, third run, pipelining on|$rc|$ms|$(role_s "$OUT/verify-site3.log")|$(recap "$OUT/verify-site3.log")|$(describe)") ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
  printf '%s\n' "${rows[@]:$before}" >>"$OUT/table.txt"
done
cp "$reports"/*/fleet.html "$OUT/fleet.html" 2>/dev/null
cp "$results/verify.json" "$OUT/verify.json" 2>/dev/null
cp "$results/cuda_check.json" "$OUT/cuda_check.json" 2>/dev/null
printf '\n%s\n' "step | rc | wall ms | verify role s | recap | result"
printf '%s\n' "${rows[@]}"
