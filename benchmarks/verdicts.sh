#!/usr/bin/env bash
# Verdicts a lab can act on, on a GPU machine: a healthy fleet, a busy GPU measured and deferred, two GPUs, the
# power reached, verify's first-run time. N inventory hosts that are all this machine (local connections), each
# with its own results directory; one fleet report directory on the controller.
#   bash benchmarks/verdicts.sh [fleet] [busy_measure] [busy_defer] [rollout_busy] [first_run] [first_run_warm] [power] [multi]
# Steps run in the order given (default: first_run fleet busy_measure busy_defer power). Needs ansible-playbook
# on PATH and the collection on ANSIBLE_COLLECTIONS_PATH (benchmarks/gpu_layer.sh verdicts sets both up).
# Prints one row per step as it ends (rc, wall seconds, what the results say; also to $OUT/table.txt), then the
# fleet report's summary and key figures; the newest fleet.json and fleet.html go to $OUT, the logs to the work dir. VERDICT_WORK=DIR keeps the hosts' results and the reports there (kept after the
# run), so steps can be split over several calls: a later call's report still sees the earlier hosts.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
TORCH_PY=${TORCH_PY:-/opt/torch/.venv/bin/python3}
HOSTS=${VERDICT_HOSTS:-32}
OUT=${OUT:-$(mktemp -d)}
work=${VERDICT_WORK:-$(mktemp -d)}
mkdir -p "$work"
reports="$work/reports"
py=$(command -v python3)
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(first_run fleet busy_measure busy_defer power)
export ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_CALLBACK_PLUGINS="$PWD/benchmarks/callback_plugins"
export ANSIBLE_CALLBACKS_ENABLED=task_times
inv="$work/hosts.ini"
echo "[fleet]" >"$inv"
for i in $(seq 1 "$HOSTS"); do
  printf 'h%03d ansible_connection=local ansible_python_interpreter=%s verify_results_dir=%s/h%03d\n' \
    "$i" "$py" "$work/results" "$i" >>"$inv"
done
rows=()
shown=0
loop_pid=""

logs="$work/logs"
mkdir -p "$logs"

play() {  # play <name> <playbook> [args...]: run it, log to $work/logs/<name>.log, echo "rc seconds"
  local name=$1; shift
  local t0 rc stack=(-e pytorch_python="$TORCH_PY")  # rollout.yml: the interpreter that creates the venvs
  if [[ $1 == playbooks/verify.yml ]]; then
    stack=(-e verify_python="$TORCH_PY")  # the stack verify.yml verifies
  fi
  t0=$(date +%s%N)
  TASK_TIMES_JSON="$logs/$name.times.json" ansible-playbook "$@" -i "$inv" -f "$HOSTS" \
    "${stack[@]}" -e fleet_report_dir="$reports" >"$logs/$name.log" 2>&1
  rc=$?
  echo "$rc $(awk -v ns=$(( $(date +%s%N) - t0 )) 'BEGIN { printf "%.1f", ns / 1e9 }')"
}

gemm_loop() {  # another user's job: a bf16 matmul loop on GPU 0 for $1 seconds, in the background
  "$TORCH_PY" - "$1" <<'PY' &
import sys, time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
t = time.time()
while time.time() - t < float(sys.argv[1]):
    a @ a
torch.cuda.synchronize()
PY
  loop_pid=$!
  sleep 8  # torch imported and the loop running
}

stop_loop() { [ -n "$loop_pid" ] && kill "$loop_pid" 2>/dev/null; wait "$loop_pid" 2>/dev/null; loop_pid=""; }
trap 'stop_loop; [ -n "${VERDICT_WORK:-}" ] || rm -rf "$work"' EXIT

report() {  # what the newest fleet report says: counts, flags, busy hosts
  "$py" - "$reports/latest/fleet.json" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError) as exc:
    print("no fleet.json (%s)" % exc); sys.exit()
busy = doc.get("busy") or []
print("passed %d, failed %d, busy %d, flagged %d" % (len(doc["passed"]), len([h for h in doc["failed"] if h not in busy]),
                                                    len(busy), len(doc["flagged"])))
for host in doc["hosts"]:
    for item in host.get("flags") or []:
        print("  flag %s: %s" % (host["host"], item.get("detail") or item.get("text")))
    if host.get("status") == "busy" or host["host"] in busy:
        print("  busy %s: %s" % (host["host"], host.get("message")))
PY
}

unlocked() {  # how many benchmark children measured without the host's GPU lock, over every host's verify.json
  "$py" - "$work/results" <<'PY'
import glob, json, sys
held = free = 0
for path in glob.glob(sys.argv[1] + "/*/verify.json"):
    for device in (json.load(open(path)).get("benchmark") or {}).get("devices") or []:
        lock = device.get("gpu_lock") or {}
        held, free = held + bool(lock.get("held")), free + (not lock.get("held"))
print("GPU lock held by %d benchmark children, not by %d" % (held, free))
PY
}

result() {  # result <host>: verdict, busy and key figures of its verify.json
  "$py" - "$work/results/$1/verify.json" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError) as exc:
    print("no verify.json (%s)" % exc); sys.exit()
state = doc.get("status") or ("passed" if doc["passed"] else "failed")
print("%s | %s | %s" % (state, (doc.get("busy") or {}).get("text", "-"), " | ".join(doc.get("summary") or [])[:300]))
PY
}

figures() {  # figures <host>: every figure with fraction of peak and of expected; multi-GPU and power
  "$py" - "$work/results/$1/verify.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
bench = doc.get("benchmark") or {}
def line(where, fig):
    exp = fig.get("expected") or {}
    power = fig.get("power") or {}
    print("  %-7s %-12s %-9s %10s %-8s peak %-6s expected %-6s %s %s" % (
        where, fig["test"], fig.get("backend") or "", fig.get("value"), fig.get("unit"), fig.get("fraction_of_peak"),
        fig.get("fraction_of_expected"), ("(%s %s)" % (exp.get("value"), fig.get("unit"))) if exp else "",
        ("power %s/%s W = %s of limit" % (power.get("median_w"), power.get("limit_w"), power.get("fraction_of_limit"))
         if power else "")))
for device in bench.get("devices") or []:
    for fig in device["figures"].values():
        line("GPU %s" % device["index"], fig)
    if device.get("counters"):
        print("  GPU %s counters: %s" % (device["index"], json.dumps(device["counters"])))
multi = bench.get("multi_gpu") or {}
for name, figs in (multi.get("figures") or {}).items():
    for fig in figs if isinstance(figs, list) else [figs]:
        line("%s->%s" % (fig.get("src"), fig.get("dst")) if fig.get("src") is not None else "all", fig)
if multi.get("topology"):
    print("  topology: %s" % json.dumps(multi["topology"])[:1500])
print("  health: %s" % json.dumps((doc.get("health") or {}).get("gates") or doc.get("health"))[:1500])
PY
}

for step in "${steps[@]}"; do
  case $step in
    first_run)  # one host, a fresh results directory: verify's first run (quick), then the stored result
      read -r rc s < <(play first_run playbooks/verify.yml -l h001 -e verify_force=true)
      rows+=("first run, quick, one host|$rc|$s|$(result h001)")
      read -r rc s < <(play first_run_again playbooks/verify.yml -l h001)
      rows+=("the same host again (stored result)|$rc|$s|$(result h001)") ;;
    first_run_warm)  # another host, its results directory new, after first_run: verify's first run (quick) on a
      # machine whose page cache already holds torch (a workstation verified after a reboot-free upgrade)
      read -r rc s < <(play first_run_warm playbooks/verify.yml -l h007)
      rows+=("first run, quick, one host, warm machine|$rc|$s|$(result h007)") ;;
    fleet)  # every host verified on a healthy GPU. Here every inventory host shares one GPU, so their children take
      # turns through the host's GPU lock; a child waits for it at most a quarter of its timeout, so the timeouts
      # are raised to keep every figure measured alone (a lab host has its own GPU and needs no such setting).
      read -r rc s < <(play fleet playbooks/verify.yml -e verify_force=true -e verify_benchmark_timeout=1200 \
                         -e verify_check_timeout=1200)
      rows+=("$HOSTS hosts, healthy GPU|$rc|$s|$(report | head -n 1); $(unlocked)") ;;
    busy_measure)  # h002 measured while another process keeps a GEMM loop on the GPU; h004 (its stored result
      # stands) keeps the report's play alive when h002's gates fail, as any other healthy host of a lab run would
      gemm_loop 120
      rm -f "$work/results/h002/verify.json"  # h002 verifies again (h004 does not)
      read -r rc s < <(play busy_measure playbooks/verify.yml -l h002,h004 -e verify_busy=measure)
      stop_loop
      rows+=("h002 measured beside a GEMM loop (verify_busy=measure)|$rc|$s|$(result h002)")
      rows+=("  fleet report after it|-|-|$(report | head -n 1)") ;;
    busy_defer)  # default settings, a bounded wait: deferred, exit 0; then verified once the GPU is free
      gemm_loop 90
      read -r rc s < <(play busy_defer playbooks/verify.yml -l h003 -e verify_force=true -e verify_busy_wait=10)
      rows+=("h003 beside a GEMM loop, default verify_busy (wait 10 s)|$rc|$s|$(result h003)")
      rows+=("  fleet report after it|-|-|$(report | head -n 1)")
      stop_loop
      read -r rc s < <(play busy_after playbooks/verify.yml -l h003)
      rows+=("h003 again, the GPU free (not forced)|$rc|$s|$(result h003)") ;;
    rollout_busy)  # the rollout skips a busy host before any change
      gemm_loop 120
      root=$(mktemp -d)
      read -r rc s < <(play rollout_busy playbooks/rollout.yml -l h004 -e pytorch_adopt_path=/opt/torch/.venv \
                         -e pytorch_root="$root/pytorch" -e pytorch_profile_path="$root/pytorch.sh")
      stop_loop
      rows+=("rollout.yml on h004 beside a GEMM loop|$rc|$s|$(grep -o 'skipped: busy[^"]*' "$logs/rollout_busy.log" | head -n 1); stacks made: $(find "$root" -mindepth 1 -maxdepth 3 2>/dev/null | wc -l)") ;;
    power)  # the sustained test (profile standard) on one host: the power reached against the enforced limit
      read -r rc s < <(play power playbooks/verify.yml -l h005 -e verify_force=true -e verify_profile=standard)
      rows+=("h005 standard profile (sustained 25 s)|$rc|$s|$(result h005)") ;;
    multi)  # every GPU of this machine on one host: P2P pairs and all-reduce against the topology
      read -r rc s < <(play multi playbooks/verify.yml -l h006 -e verify_force=true)
      rows+=("h006, every GPU of this machine|$rc|$s|$(result h006)") ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
  for row in "${rows[@]:$shown}"; do  # each row as its step ends, here and in $OUT/table.txt
    IFS='|' read -r name rc s what <<<"$row"
    printf '%-58s %-3s %-7s %s\n' "$name" "$rc" "$s" "$what" | tee -a "$OUT/table.txt"
  done
  shown=${#rows[@]}
done
echo
echo "== fleet report =="
report
for host in h001 h002 h005 h006; do
  [ -f "$work/results/$host/verify.json" ] && { echo "== $host figures =="; figures "$host"; }
done
[ -d "$reports/latest" ] && cp "$reports/latest/fleet.json" "$reports/latest/fleet.html" "$OUT/"
for name in first_run fleet; do
  [ -f "$logs/$name.times.json" ] && echo "$name roles: $("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["roles_s"])' "$logs/$name.times.json")"
done
for run in first_run:h001 first_run_warm:h007; do  # where a first run's time went: tasks, the check's children
  [ -f "$logs/${run%%:*}.times.json" ] && { echo "== ${run%%:*} =="; "$py" benchmarks/first_run_profile.py "$logs/${run%%:*}.times.json" "$work/results/${run##*:}"; }
done
exit 0
