#!/usr/bin/env bash
# What one task costs on this machine: a play of 20 stat tasks, 20 skipped tasks and 20 set_fact
# tasks, each timed by the task_times callback, plus the interpreter's own start-up. Explains where a
# converged site.yml run spends its seconds (module calls vs tasks that only skip). Needs
# ansible-playbook on PATH (benchmarks/gpu_layer.sh task_cost sets it up).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
py=$(command -v python3)
{
  printf -- '- name: Task cost\n  hosts: all\n  gather_facts: false\n  tasks:\n'
  for i in $(seq 1 20); do printf '    - name: stat %s\n      ansible.builtin.stat: {path: /etc/hostname}\n' "$i"; done
  for i in $(seq 1 20); do printf '    - name: skipped %s\n      ansible.builtin.debug: {msg: x}\n      when: false\n' "$i"; done
  for i in $(seq 1 20); do printf '    - name: set_fact %s\n      ansible.builtin.set_fact: {x%s: 1}\n' "$i" "$i"; done
} >"$work/cost.yml"
for pipelining in false true; do
  TASK_TIMES_JSON="$work/times-$pipelining.json" ANSIBLE_PIPELINING=$pipelining \
    ansible-playbook "$work/cost.yml" -i localhost, -c local -e ansible_python_interpreter="$py" >/dev/null
  "$py" - "$work/times-$pipelining.json" "$pipelining" <<'PY'
import json, statistics, sys
tasks = json.load(open(sys.argv[1]))["tasks"]
for kind in ("stat", "skipped", "set_fact"):
    s = [t["s"] for t in tasks if t["task"].startswith(kind + " ")]
    print("pipelining=%-5s %-9s median %.3f s  (n=%d, min %.3f, max %.3f)" % (
        sys.argv[2], kind, statistics.median(s), len(s), min(s), max(s)))
PY
done
t0=$(date +%s%N); for _ in 1 2 3 4 5; do "$py" -c pass; done
echo "python3 -c pass: $(( ($(date +%s%N) - t0) / 5000000 )) ms"
t0=$(date +%s%N); for _ in 1 2 3 4 5; do "$py" -c "import ansible.module_utils.basic"; done
echo "python3 -c 'import ansible.module_utils.basic': $(( ($(date +%s%N) - t0) / 5000000 )) ms"
