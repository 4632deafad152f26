#!/usr/bin/env bash
# The rollout scenario's dependency step (runs before create): builds, on the controller, the upstream
# index the fleet installs from and the network the hosts share.
#   .build/rollout/            mounted read-only into bw-rollout-index (serve.py over index/) and into the
#     serve.py                 workstations (prepare installs their old stack from index/ through file://)
#     index/                   tests/fixtures/pypi_index: the stand-in PyTorch index, one per channel (whl/<channel>/)
#   podman network blackwell-rollout, --internal: the hosts reach the index server and nothing else
# The server's access log (podman logs) is the proof that the fleet fetched each wheel once.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out="$root/.build/rollout"
network=blackwell-rollout
rm -rf "$out" "$root/.build/molecule-rollout"
mkdir -p "$out"
python3 "$root/tests/fixtures/pypi_index/build.py" "$out/index" >/dev/null
cp "$root/tests/fixtures/pypi_index/serve.py" "$out/serve.py"
podman network exists "$network" || podman network create --internal "$network" >/dev/null
[ "$(podman network inspect "$network" --format '{{.Internal}}')" = true ] \
  || { echo "index.sh: podman network $network exists and is not --internal; remove it" >&2; exit 1; }
echo "index.sh: index in $out/index, network $network"
