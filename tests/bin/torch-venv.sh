#!/usr/bin/env bash
# The CPU-only torch venv (.build/torch-cpu) that the unit layer's child-process tests and the release layer's
# action-group play run: made when absent or when tests/requirements-torch-cpu.txt changed (scripts/venv.sh).
# torch 2.13.0 CPU: on the project's machines pip finds the CPU wheel locally; elsewhere point pip at a CPU
# wheel (PIP_FIND_LINKS) to avoid the multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/venv.sh .build/torch-cpu tests/requirements-torch-cpu.txt
