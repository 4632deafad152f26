#!/usr/bin/env bash
# The GPU layer in one call on a GPU machine without Ansible installed and without network.
# Here (the controller), once, in the project root:
#   echo /.whl/ >> .git/info/exclude
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
#     -d .whl ansible-core==2.19.14 resolvelib==1.0.1 cryptography cffi pycparser jinja2 markupsafe pyyaml packaging
# There (carry .whl):  bash benchmarks/gpu_layer.sh [site] [facts] [cuda_check]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
site=$(mktemp -d)
python3 -m pip install -q --no-index --no-deps --target "$site" .whl/*.whl
export PYTHONPATH="$site" PATH="$site/bin:$PATH"
tree=$(mktemp -d)
mkdir -p "$tree/ansible_collections/blackwell"
ln -s "$PWD" "$tree/ansible_collections/blackwell/pytorch"
export ANSIBLE_COLLECTIONS_PATH="$tree" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(site facts cuda_check)
for part in "${parts[@]}"; do
  case $part in
    site)
      echo "=== ansible-playbook site.yml -i localhost, -c local ==="
      ansible-playbook site.yml -i localhost, -c local -e ansible_python_interpreter="$(command -v python3)" ;;
    facts)
      echo "=== gpu_facts vs nvidia-smi ==="
      python3 benchmarks/gpu_facts_vs_smi.py ;;
    cuda_check)
      echo "=== ansible localhost -m blackwell.pytorch.torch_cuda_check ==="
      t0=$(date +%s%N)
      ansible localhost -i localhost, -c local -e ansible_python_interpreter="$(command -v python3)" \
        -m blackwell.pytorch.torch_cuda_check \
        -a "python=$(command -v python3) min_verdict=native require=native,native_sass_launch,flash_attention,triton"
      echo "wall: $(( ($(date +%s%N) - t0) / 1000000 )) ms" ;;
    *) echo "unknown part $part" >&2; exit 2 ;;
  esac
done
