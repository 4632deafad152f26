#!/usr/bin/env bash
# The airgap scenario's dependency step (runs before create): builds, on the controller, what the
# lab's server serves and the network the workstations live on.
#   .build/airgap/          mounted read-only into bw-airgap-mirror, which runs serve.py over mirror/
#     serve.py                  tests/fixtures/pypi_index/serve.py: files, listings, byte ranges (as nginx)
#   .build/airgap/mirror/
#     nvidia/debianNN/x86_64/   the lab's mirror of NVIDIA's repository (tests/fixtures/apt_repo)
#     debian/                   the lab's Debian mirror (the fixture's dkms and headers stand-ins)
#     keys/debian-mirror.asc    the key the lab's Debian mirror is signed with
#     pypi/simple/<project>/    the wheelhouse, one directory per project: a PEP 503 index as files
#   podman network blackwell-airgap, --internal: no route out of it (molecule's destroy removes it)
# The wheelhouse holds what `pip download` would have fetched on a connected machine: the
# stand-in torch 2.9.1+cu128 stack (tests/fixtures/pypi_index) and the real nvidia-ml-py and uv wheels
# that tests/bin/molecule-prep.sh downloads into .build/wheelhouse. docs/airgap.md lays it out the same way.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out="$root/.build/airgap"
network=blackwell-airgap

nvml=$(find "$root/.build/wheelhouse" -name 'nvidia_ml_py-*.whl' 2>/dev/null | head -n 1)
[ -n "$nvml" ] || { echo "mirror.sh: no nvidia-ml-py wheel in .build/wheelhouse (tests/bin/molecule-prep.sh downloads it)" >&2; exit 1; }
uv=$(find "$root/.build/wheelhouse" -name 'uv-*.whl' 2>/dev/null | head -n 1)
[ -n "$uv" ] || { echo "mirror.sh: no uv wheel in .build/wheelhouse (tests/bin/molecule-prep.sh downloads it)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/mirror/keys" "$out/wheelhouse"
bash "$root/tests/fixtures/apt_repo/build.sh" "$out/apt_repo" >/dev/null
python3 "$root/tests/fixtures/pypi_index/build.py" "$out/pypi_index" >/dev/null
cp "$root/tests/fixtures/pypi_index/serve.py" "$out/serve.py"
cp -a "$out/apt_repo/srv/nvidia" "$out/mirror/nvidia"
cp -a "$out/apt_repo/srv/os" "$out/mirror/debian"
cp "$out/apt_repo/srv/keys/fixture.asc" "$out/mirror/keys/debian-mirror.asc"
for stack in torch-2.9.1 torchvision-0.24.1 torchaudio-2.9.1; do
  cp "$out/pypi_index/files/$stack+cu128-py3-none-any.whl" "$out/wheelhouse/"
done
cp "$nvml" "$uv" "$out/wheelhouse/"

# The wheelhouse as a PEP 503 index: <project>/ per normalized name (docs/airgap.md, step 2).
cd "$out/mirror"
for whl in "$out"/wheelhouse/*.whl; do
  name=$(basename "$whl" | cut -d- -f1 | tr 'A-Z_.' 'a-z--')
  mkdir -p "pypi/simple/$name"
  cp "$whl" "pypi/simple/$name/"
done
find "$out/mirror/pypi" -name '*.whl' -printf '%f\n' | sort > "$out/served-wheels.txt"
echo "mirror.sh: $(wc -l < "$out/served-wheels.txt") wheels served: $(tr '\n' ' ' < "$out/served-wheels.txt")"

podman network exists "$network" || podman network create --internal "$network" >/dev/null
[ "$(podman network inspect "$network" --format '{{.Internal}}')" = true ] \
  || { echo "mirror.sh: podman network $network exists and is not --internal; remove it" >&2; exit 1; }
