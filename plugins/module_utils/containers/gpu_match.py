# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a container sees the host's GPUs: `nvidia-smi -L` inside against outside.

Lines look like "GPU 0: NVIDIA GeForce RTX 5090 (UUID: GPU-5b1c...)"; GPUs are compared by UUID
(by name and index where a line has none). No Ansible import.
"""
from __future__ import annotations

import re
from typing import Any

_LINE = re.compile(r"^GPU (\d+): (.*?)(?: \(UUID: ([^)]+)\))?\s*$")


def gpu_lines(text: str) -> list[str]:
    """The GPUs in nvidia-smi -L output, as their UUIDs (or "index: name"); MIG lines are skipped."""
    gpus = []
    for line in (text or "").splitlines():
        match = _LINE.match(line.strip())
        if match:
            gpus.append(match.group(3) or "%s: %s" % (match.group(1), match.group(2)))
    return gpus


def gpu_match(host_text: str, container_text: str) -> dict[str, Any]:
    """{ok, host, container, missing, extra, msg}: the container must list exactly the host's GPUs."""
    host, container = gpu_lines(host_text), gpu_lines(container_text)
    missing = [g for g in host if g not in container]
    extra = [g for g in container if g not in host]
    ok = bool(host) and not missing and not extra
    if not host:
        msg = "nvidia-smi -L on the host lists no GPU: nothing to compare"
    elif ok:
        msg = "the container sees the host's %d GPU(s): %s" % (len(host), ", ".join(host))
    else:
        msg = "the container sees %d of the host's %d GPU(s)%s%s" % (
            len(host) - len(missing), len(host),
            "; missing: " + ", ".join(missing) if missing else "", "; not on the host: " + ", ".join(extra) if extra else "")
    return {"ok": ok, "host": host, "container": container, "missing": missing, "extra": extra, "msg": msg}
