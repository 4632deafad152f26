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
args=()
for req in "$@"; do args+=(-r "$req"); done
uv=$(sed -n 's/^\(uv==[0-9.]*\).*/\1/p' "$@" | head -n 1)
if [ -n "$uv" ]; then
  # Requirements that pin uv are installed by that uv: it fetches and compiles in parallel (the test venv: 157 s
  # against 429 s with pip on the same 2-core machine and load; the same packages). It reads PyPI, or
  # UV_DEFAULT_INDEX / UV_INDEX, not pip's settings. --compile-bytecode: see PYTHONDONTWRITEBYTECODE in docs/testing.md.
  "$dir/bin/python" -m pip install -q "$uv" 2>&1 | grep -v '^WARNING: Location' || true
  "$dir/bin/uv" pip install -q --python "$dir/bin/python" --compile-bytecode "${args[@]}"
  "$dir/bin/uv" pip check --python "$dir/bin/python" >"$dir/.check" 2>&1 || { cat "$dir/.check" >&2; exit 1; }
else
  "$dir/bin/python" -m pip install -q --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
  "$dir/bin/python" -m pip install -q "${args[@]}" 2>&1 | grep -v '^WARNING: Location' || true
  "$dir/bin/python" -m pip check >/dev/null
fi
echo "$want" > "$dir/.requirements"
