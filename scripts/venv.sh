#!/usr/bin/env bash
# scripts/venv.sh DIR REQUIREMENTS...  — create (or refresh) a venv from pinned requirements.
# Rebuilds only when the requirements files change (their hash is kept in DIR/.requirements).
# On a fresh Debian/Ubuntu run as root, installs python3-venv when the interpreter lacks it.
set -euo pipefail
dir=$1; shift
py=${PYTHON:-python3}
want=$(cat "$@" | sha256sum | cut -d' ' -f1)
if [ -x "$dir/bin/python" ] && [ "$(cat "$dir/.requirements" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
if ! "$py" -c 'import ensurepip, venv' 2>/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "venv: installing python3-venv"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  else
    echo "venv: $py cannot create venvs; install python3-venv (Debian/Ubuntu) and run again" >&2
    exit 1
  fi
fi
echo "venv: $dir from $*"
"$py" -m venv "$dir"
"$dir/bin/python" -m pip install -q --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
args=()
for req in "$@"; do args+=(-r "$req"); done
"$dir/bin/python" -m pip install -q "${args[@]}" 2>&1 | grep -v '^WARNING: Location' || true
"$dir/bin/python" -m pip check >/dev/null
echo "$want" > "$dir/.requirements"
