#!/usr/bin/env bash
# What a converged site.yml costs a fleet: N inventory hosts that are all this machine (local
# connections, forks = N), measured against Ansible's own floor in the same run.
#
#   bash benchmarks/fleet.sh [-n "1 8 32"] [-p PLAYBOOK] [-- ansible-playbook arguments for every run]
#
# 1. seed: PLAYBOOK on the first host only (installs, checks, stores what a converged run reuses);
# 2. for each N: PLAYBOOK on N hosts (converged: the hosts share this machine's state, which the seed
#    made), then the floor: a generated playbook with as many module tasks (ansible.builtin.stat) and
#    as many controller-only tasks (ansible.builtin.debug) per host as the converged run had; then the stat
#    floor: as many ansible.builtin.stat tasks as a host's median number of tasks (its ratio is the converged
#    run's wall time over the stat floor's).
# FLEET_PROFILE=1: the converged runs' controller process under cProfile, the last size's top functions
# printed; FLEET_TASKS=1: every task of the first converged run and how it ended; TASK_TIMES_TOP=N: its
# N slowest tasks (12); FLEET_PHASES=1: one more converged run on one host under ANSIBLE_DEBUG, each task's
# time split into its phases (benchmarks/task_phases.py: arguments, payload build, module, main process).
# Prints one row per run: hosts, tasks per host (ok/changed/skipped), module calls per host, wall
# seconds, ms per host, and the converged/floor ratio. Needs ansible-playbook on PATH and the collection
# installed or reachable through ANSIBLE_COLLECTIONS_PATH (benchmarks/gpu_layer.sh fleet sets both up).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes="1 8 32"
playbook=site.yml
while [ $# -gt 0 ]; do
  case $1 in
    -n) sizes=$2; shift 2 ;;
    -p) playbook=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [-n \"1 8 32\"] [-p PLAYBOOK] [-- ansible-playbook arguments]" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py=${BENCH_PYTHON:-$(command -v python3)}
export ANSIBLE_CALLBACK_PLUGINS="$PWD/benchmarks/callback_plugins" ANSIBLE_CALLBACKS_ENABLED=task_counts,task_times
export ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_HOST_KEY_CHECKING=false

inventory() {  # inventory of $1 hosts, all this machine
  local file="$work/hosts-$1.ini" i
  echo "[fleet]" >"$file"
  for i in $(seq 1 "$1"); do
    printf 'h%03d ansible_connection=local ansible_python_interpreter=%s\n' "$i" "$py" >>"$file"
  done
  echo "$file"
}

div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

run() {  # run NAME HOSTS PLAYBOOK [args...]: one ansible-playbook, its wall ms and task counts
  local name=$1 hosts=$2 book=$3; shift 3
  local inv t0 rc=0
  inv=$(inventory "$hosts")
  t0=$(now_ms)
  local launch=(ansible-playbook)
  if [ -n "${FLEET_PROFILE:-}" ] && [ "${name%%-*}" = converged ]; then  # the controller's own process, profiled
    launch=("$py" -m cProfile -o "$work/$name.prof" "$(command -v ansible-playbook)")
  fi
  TASK_COUNTS_JSON="$work/$name.json" "${launch[@]}" "$book" -i "$inv" -f "$hosts" "$@" >"$work/$name.log" 2>&1 || rc=$?
  echo "$(( $(now_ms) - t0 ))" >"$work/$name.ms"
  if [ "$rc" != 0 ]; then
    echo "$name failed (rc $rc); the end of its output:" >&2
    tail -n 40 "$work/$name.log" >&2
    exit "$rc"
  fi
}

floor() {  # floor playbook with $1 module tasks and $2 controller-only tasks per host
  local file="$work/floor-$1-$2.yml" i
  printf -- '- name: Floor\n  hosts: all\n  gather_facts: false\n  tasks:\n' >"$file"
  for i in $(seq 1 "$1"); do printf '    - name: module %s\n      ansible.builtin.stat: {path: /etc/hostname}\n' "$i" >>"$file"; done
  for i in $(seq 1 "$2"); do printf '    - name: controller %s\n      ansible.builtin.debug: {msg: x}\n      when: false\n' "$i" >>"$file"; done
  echo "$file"
}

median_tasks() {  # median_tasks NAME: the median number of tasks per host (the host that writes the fleet report has more)
  "$py" - "$work/$1.json" <<'PY'
import json, statistics, sys
hosts = json.load(open(sys.argv[1]))["hosts"]
print(int(statistics.median(h["tasks"] for h in hosts.values())))
PY
}

counts() {  # counts NAME: "tasks ok changed skipped modules" of the first host
  "$py" - "$work/$1.json" <<'PY'
import json, sys
hosts = json.load(open(sys.argv[1]))["hosts"]
h = hosts[sorted(hosts)[0]]
print(h["tasks"], h["ok"], h["changed"], h["skipped"], h["modules"])
PY
}

echo "seed: $playbook on one host"
run seed 1 "$playbook" "$@"
read -r tasks ok changed skipped modules < <(counts seed)
printf '%-10s %5s %7s %-22s %8s %9s %8s %7s\n' run hosts tasks "ok/changed/skipped" modules "wall s" "ms/host" ratio
printf '%-10s %5d %7d %-22s %8d %9s %8s %7s\n' seed 1 "$tasks" "$ok/$changed/$skipped" "$modules" \
  "$(div "$(cat "$work/seed.ms")" 1000)" - -
for n in $sizes; do
  run "converged-$n" "$n" "$playbook" "$@"
  read -r tasks ok changed skipped modules < <(counts "converged-$n")
  book=$(floor "$modules" "$((tasks - modules))")
  run "floor-$n" "$n" "$book"
  c_ms=$(cat "$work/converged-$n.ms"); f_ms=$(cat "$work/floor-$n.ms")
  printf '%-10s %5d %7d %-22s %8d %9s %8d %7s\n' converged "$n" "$tasks" "$ok/$changed/$skipped" "$modules" \
    "$(div "$c_ms" 1000)" "$((c_ms / n))" "$(div "$c_ms" "$f_ms")"
  read -r ftasks fok fchanged fskipped fmodules < <(counts "floor-$n")
  printf '%-10s %5d %7d %-22s %8d %9s %8d %7s\n' floor "$n" "$ftasks" "$fok/$fchanged/$fskipped" "$fmodules" \
    "$(div "$f_ms" 1000)" "$((f_ms / n))" 1.00
  # the floor of the same number of plain module tasks: as many ansible.builtin.stat tasks as a host's median
  median=$(median_tasks "converged-$n")
  run "stat-$n" "$n" "$(floor "$median" 0)"
  s_ms=$(cat "$work/stat-$n.ms")
  printf '%-10s %5d %7d %-22s %8d %9s %8d %7s\n' "stat-floor" "$n" "$median" "$median/0/0" "$median" \
    "$(div "$s_ms" 1000)" "$((s_ms / n))" "$(div "$c_ms" "$s_ms")"
  if [ "$changed" != 0 ]; then
    echo "converged-$n changed $changed task(s) on the first host: not converged" >&2
    grep -E '^changed:' "$work/converged-$n.log" | head -n 10 >&2
  fi
done
grep -h -E '^(TASK COUNTS|RESULT BYTES|RESULT KEYS)' "$work/converged-${sizes##* }.log" || true
for n in $(printf '%s\n' "${sizes%% *}" "${sizes##* }" | uniq); do
  echo "converged on $n host(s), where the time goes (task_times, the seconds of each task over all the hosts):"
  sed -n '/^TASK TIMES/,$p' "$work/converged-$n.log" | head -n "$(( ${TASK_TIMES_TOP:-12} + 2 ))"
done
if [ -n "${FLEET_PROFILE:-}" ]; then  # where the controller's main process spends a converged run of the last size
  echo "controller process, converged run of ${sizes##* } hosts (cProfile, by own time):"
  "$py" -c 'import pstats, sys; s = pstats.Stats(sys.argv[1]); s.sort_stats("tottime").print_stats(20); s.sort_stats("cumulative").print_stats(45)' \
    "$work/converged-${sizes##* }.prof" | grep -E '^ +[0-9]' | cut -c1-160
fi
if [ -n "${FLEET_PHASES:-}" ]; then  # one host's converged run, each task's phases (the debug log slows it a little)
  ANSIBLE_DEBUG=1 run phases-1 1 "$playbook" "$@"
  echo "converged on one host under ANSIBLE_DEBUG ($(div "$(cat "$work/phases-1.ms")" 1000) s), each task's phases:"
  "$py" benchmarks/task_phases.py --top "${TASK_TIMES_TOP:-12}" "$work/phases-1.log"
fi
if [ -n "${FLEET_TASKS:-}" ]; then  # every task of the first converged run and how it ended
  echo "converged on one host, task by task:"
  awk '/^TASK \[/ { sub(/^TASK \[/, ""); sub(/\] \**$/, ""); task = $0 }
       /^(ok|skipping|changed|included):/ && task != "" { split($1, s, ":"); print "  " s[1] "\t" task; task = "" }' \
    "$work/converged-${sizes%% *}.log"
fi
