#!/usr/bin/env bash
# The GPU layer in one call on a GPU machine without Ansible installed and without network.
# Here (the controller), once, in the project root:
#   echo /.whl/ >> .git/info/exclude
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
#     -d .whl ansible-core==2.19.14 resolvelib==1.0.1 cryptography cffi pycparser jinja2 markupsafe pyyaml packaging
#   (fleet_tools also: python3 -m pip download --no-deps -d .whl/tools "$(grep '^nvidia-ml-py==' requirements.txt)")
# (WHEELS=.whl-mid runs it under another ansible-core of the window, downloaded the same way: 2.21.5 for the
# machine's Python 3.12; the newest end, 2.22, needs Python 3.13.)
# There (carry .whl):  bash benchmarks/gpu_layer.sh [site] [stages] [site_check] [site_full] [facts] [cuda_check] [pytorch_adopt] [driver_toolkit] [task_cost] [fleet] [fleet_tools] [module_cost] [rollout] [verdicts]
#   (default: site facts cuda_check)
set -euo pipefail
cd "$(dirname "$0")/.."
site=$(mktemp -d)
python3 -m pip install -q --no-index --no-deps --target "$site" "${WHEELS:-.whl}"/*.whl
export PYTHONPATH="$site" PATH="$site/bin:$PATH"
tree=$(mktemp -d)
mkdir -p "$tree/ansible_collections/blackwell"
ln -s "$PWD" "$tree/ansible_collections/blackwell/pytorch"
export ANSIBLE_COLLECTIONS_PATH="$tree" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
# Every play ends with the seconds per role and its slowest tasks.
export ANSIBLE_CALLBACK_PLUGINS="$PWD/benchmarks/callback_plugins" ANSIBLE_CALLBACKS_ENABLED=task_times
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(site facts cuda_check)
for part in "${parts[@]}"; do
  case $part in
    site)
      echo "=== ansible-playbook site.yml -i localhost, -c local ==="
      ansible-playbook site.yml -i localhost, -c local -e ansible_python_interpreter="$(command -v python3)" ;;
    stages)
      # shellcheck disable=SC1091 # the machine's os-release
      echo "=== $(. /etc/os-release; echo "$PRETTY_NAME"), $(ansible --version | head -n 1): preflight, tools, driver and toolkit in check mode; pytorch and verify for real ==="
      root=$(mktemp -d)
      # shellcheck disable=SC2054 # "localhost," is ansible's inline inventory
      common=(-i localhost, -c local -e ansible_python_interpreter="$(command -v python3)" -e pytorch_adopt_path=/opt/torch/.venv
              -e pytorch_root="$root/pytorch" -e pytorch_profile_path="$root/pytorch.sh" -e verify_results_dir="$root/results"
              -e fleet_report_dir="$root/reports")
      for run in "check --check --diff -e blackwell_site_stages=driver,toolkit" "real -e blackwell_site_stages=pytorch,verify" \
                 "again -e blackwell_site_stages=pytorch,verify"; do
        read -r name args <<< "$run"
        rc=0; t0=$(date +%s%N)
        # shellcheck disable=SC2086 # the run's options, split on purpose
        ansible-playbook site.yml "${common[@]}" $args > "$root/$name.log" 2>&1 || rc=$?
        echo "--- $name ($args): rc $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms; tasks that changed (would change in check mode):"
        grep -B1 '^changed:' "$root/$name.log" | grep '^TASK' | sed 's/ \*\**$//' || true
        sed -n '/Summary of this host/,/^$/p' "$root/$name.log"
        sed -n '/PLAY RECAP/,$p' "$root/$name.log" | head -n 3
        [ "$rc" = 0 ] || tail -n 40 "$root/$name.log"
      done ;;
    site_check)
      echo "=== site.yml --check --diff on this host, every default stage, no stack under the root (what a run would change) ==="
      root=$(mktemp -d)
      log="${OUT:-$root}/site_check.log"
      rc=0
      ansible-playbook site.yml -i localhost, -c local --check --diff -e ansible_python_interpreter="$(command -v python3)" \
        -e pytorch_adopt_path=/opt/torch/.venv -e pytorch_root="$root/pytorch" -e pytorch_profile_path="$root/pytorch.sh" \
        -e verify_results_dir="$root/results" -e fleet_report_dir="$root/reports" >"$log" 2>&1 || rc=$?
      echo "rc $rc; the tasks that would change (changed: in check mode), the summary, the recap:"
      grep -B1 '^changed:' "$log" | grep '^TASK' | sed 's/ \*\**$//'
      sed -n '/Summary of this host/,/^$/p' "$log"
      sed -n '/PLAY RECAP/,$p' "$log" | head -n 4
      echo "made under the root by the check run: $(find "$root" -mindepth 1 -maxdepth 1 ! -name site_check.log | wc -l) entries" ;;
    fleet)
      echo "=== site.yml over N local hosts, converged, against the floor (FLEET_SIZES, default 1 8 32) ==="
      root=$(mktemp -d)
      bash benchmarks/fleet.sh -n "${FLEET_SIZES:-1 8 32}" -- \
        -e pytorch_adopt_path=/opt/torch/.venv -e pytorch_root="$root/pytorch" -e pytorch_profile_path="$root/pytorch.sh" ;;
    fleet_tools)
      echo "=== the same, with the tools venv a lab host without nvidia-ml-py in its system Python has (FLEET_SIZES) ==="
      root=$(mktemp -d)
      # the venv as a converged lab host has it (built here: the role's own build needs the OS's python3-venv)
      python3 -m venv --without-pip "$root/tools"
      python3 -m pip install -q --no-index --no-deps --target "$("$root/tools/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" .whl/tools/*.whl
      bash benchmarks/fleet.sh -n "${FLEET_SIZES:-1 8 32}" -- \
        -e pytorch_adopt_path=/opt/torch/.venv -e pytorch_root="$root/pytorch" -e pytorch_profile_path="$root/pytorch.sh" \
        -e blackwell_tools_use_existing=false -e blackwell_tools_venv="$root/tools" -e blackwell_tools_wheelhouse="$PWD/.whl/tools" ;;
    rollout)
      echo "=== playbooks/rollout.yml over N local hosts adopting /opt/torch/.venv, one gate forced to fail, then resumed (ROLLOUT_HOSTS, default 8) ==="
      bash benchmarks/rollout.sh -n "${ROLLOUT_HOSTS:-8}" -e /opt/torch/.venv ;;
    module_cost)
      echo "=== site.yml converged on this host: each collection module's time and profile ==="
      root=$(mktemp -d)
      args=(-e pytorch_adopt_path=/opt/torch/.venv -e pytorch_root="$root/pytorch" -e pytorch_profile_path="$root/pytorch.sh")
      ansible-playbook site.yml -i localhost, -c local -e ansible_python_interpreter="$(command -v python3)" "${args[@]}" >/dev/null
      bash benchmarks/module_cost.sh ${MODULE_PROFILE:+-P} -- "${args[@]}" ;;
    task_cost)
      echo "=== what one task costs here ==="
      bash benchmarks/task_cost.sh ;;
    facts)
      echo "=== gpu_facts vs nvidia-smi ==="
      python3 benchmarks/gpu_facts_vs_smi.py ;;
    site_full)
      echo "=== site.yml, every stage: driver + toolkit (manage: auto), pytorch adopting /opt/torch/.venv ==="
      root=$(mktemp -d)
      t0=$(date +%s%N)
      ansible-playbook site.yml -i localhost, -c local -e ansible_python_interpreter="$(command -v python3)" \
        -e pytorch_adopt_path=/opt/torch/.venv -e pytorch_root="$root/pytorch" -e pytorch_profile_path="$root/pytorch.sh"
      echo "wall: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
      echo "--- second run (expect changed=0) ---"
      ansible-playbook site.yml -i localhost, -c local -e ansible_python_interpreter="$(command -v python3)" \
        -e pytorch_adopt_path=/opt/torch/.venv -e pytorch_root="$root/pytorch" -e pytorch_profile_path="$root/pytorch.sh" \
        | tail -n 18 ;;
    cuda_check)
      echo "=== ansible localhost -m blackwell.pytorch.torch_cuda_check ==="
      t0=$(date +%s%N)
      ansible localhost -i localhost, -c local -e ansible_python_interpreter="$(command -v python3)" \
        -m blackwell.pytorch.torch_cuda_check \
        -a "python=$(command -v python3) min_verdict=native require=native,native_sass_launch,flash_attention,triton"
      echo "wall: $(( ($(date +%s%N) - t0) / 1000000 )) ms" ;;
    pytorch_adopt)
      echo "=== pytorch role, adopt mode: /opt/torch/.venv registered as a stack, checked, activated ==="
      root=$(mktemp -d)
      t0=$(date +%s%N)
      ansible-playbook playbooks/adopt.yml -i localhost, -c local -e ansible_python_interpreter="$(command -v python3)" \
        -e pytorch_adopt_path=/opt/torch/.venv -e pytorch_root="$root/pytorch" -e pytorch_profile_path="$root/pytorch.sh"
      echo "wall: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
      echo "--- $root/pytorch after adopt ---"
      ls -l "$root/pytorch" "$root/pytorch/venvs"
      cat "$root/pytorch.sh" ;;
    driver_toolkit)
      echo "=== nvidia_driver + cuda_toolkit, manage: auto (adopt what the machine has; expect changed=0) ==="
      echo "--- what is there ---"
      head -n 1 /proc/driver/nvidia/version || true
      pkgs=$(dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\n' 'nvidia-*' 'libnvidia-*' 'cuda-toolkit-*' 'cuda-drivers*' 2>/dev/null || true)
      echo "${pkgs:-(no nvidia / cuda-toolkit package installed)}"
      ls -ld /usr/local/cuda* || true
      /usr/local/cuda/bin/nvcc --version | tail -n 2 || true
      echo "nvcc --list-gpu-arch: $(/usr/local/cuda/bin/nvcc --list-gpu-arch | tr '\n' ' ')"
      play=$(mktemp --suffix=.yml)
      cat > "$play" <<'YAML'
- name: Adopt the driver and the toolkit this machine has
  hosts: all
  gather_facts: true
  roles:
    - role: blackwell.pytorch.nvidia_driver
    - role: blackwell.pytorch.cuda_toolkit
  post_tasks:
    - name: Summary
      ansible.builtin.debug:
        msg: >-
          driver {{ nvidia_driver_status.action }} {{ nvidia_driver_status.version }} branch
          {{ nvidia_driver_status.branch }} {{ nvidia_driver_status.flavor }}; reboot required
          {{ nvidia_driver_status.reboot_required }}; CUDA {{ cuda_toolkit_status.versions | join(',') }}
          {{ cuda_toolkit_status.action }} at {{ cuda_toolkit_status.dirs | dict2items | map(attribute='value') | join(',') }}
          (nvcc {{ cuda_toolkit_status.nvcc | dict2items | map(attribute='value.full') | join(',') }})
YAML
      log=$(mktemp)
      t0=$(date +%s%N)
      set +e
      ANSIBLE_CALLBACK_RESULT_FORMAT=json ansible-playbook "$play" -i localhost, -c local \
        -e ansible_python_interpreter="$(command -v python3)" 2>&1 | tee "$log"
      rc=${PIPESTATUS[0]}
      set -e
      wall=$(( ($(date +%s%N) - t0) / 1000000 ))
      recap=$(grep -E '^localhost +:' "$log" | tr -s ' ')
      summary=$(grep -o '"msg": "driver [^"]*' "$log" | sed 's/"msg": "//')
      printf '\n%-16s %s\n' part result
      printf '%-16s rc=%s, %s ms\n' driver_toolkit "$rc" "$wall"
      printf '%-16s %s\n' recap "${recap:-none}" summary "${summary:-none}"
      [ "$rc" = 0 ] && echo "$recap" | grep -q 'changed=0 ' ;;
    verdicts)
      echo "=== verdicts: a healthy fleet, a busy GPU measured and deferred, power, two GPUs (benchmarks/verdicts.sh) ==="
      # shellcheck disable=SC2086 # VERDICT_STEPS is a list of step names
      bash benchmarks/verdicts.sh ${VERDICT_STEPS:-} ;;
    verify)
      echo "=== verify.yml / site.yml timing, sustained test and gates (benchmarks/verify_layer.sh) ==="
      # shellcheck disable=SC2086 # VERIFY_STEPS is a list of step names
      bash benchmarks/verify_layer.sh ${VERIFY_STEPS:-} ;;
    *) echo "unknown part $part" >&2; exit 2 ;;
  esac
done
