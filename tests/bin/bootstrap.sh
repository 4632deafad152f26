#!/usr/bin/env bash
# Install what `make test` needs: system packages (as root, only those missing) and the pinned
# test venv. The CPU-only torch venv for the modules' real-interpreter tests is tests/bin/torch-venv.sh's
# (run by the layers that use it, or as a job of tests/bin/run-all.sh beside the others).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# The second line: what tests/bin/python-newest.sh builds the newest ansible-core's Python with (Debian's signed source).
pkgs=(podman runc debootstrap equivs apt-utils gnupg uidmap python3-venv shellcheck chromium
  curl xz-utils debian-archive-keyring gcc make libssl-dev libffi-dev zlib1g-dev libbz2-dev liblzma-dev libsqlite3-dev)
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  missing=()
  for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "bootstrap: apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
else
  for tool in podman runc debootstrap; do
    command -v "$tool" >/dev/null || { echo "bootstrap: $tool missing; run as root or install: ${pkgs[*]}" >&2; exit 1; }
  done
fi
scripts/venv.sh .venv-test requirements-test.txt
# The plays of the unit layer run their modules with this venv's Python: it keeps the code it compiles from
# the module archives when BLACKWELL_TEST_ZIP_CODE_CACHE is set (tests/bin/unit.sh; docs/testing.md).
site=$(.venv-test/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
install -m 0644 tests/fixtures/images/python/blackwell_test_zip_code_cache.py \
  tests/fixtures/images/python/blackwell-test-zip-code-cache.pth "$site/"
