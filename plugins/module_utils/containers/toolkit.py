# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a NVIDIA Container Toolkit release does that the container_toolkit role must know.

Read from NVIDIA's source (github.com/NVIDIA/nvidia-container-toolkit, at the tags named; docs/roles/container_toolkit.md
has the details): where `nvidia-ctk runtime configure` puts containerd's settings (a drop-in file from 1.18.0,
cmd/nvidia-ctk/runtime/configure/configure.go), whether the package ships the nvidia-cdi-refresh units (1.18.0,
deployments/systemd/) and whether `cdi generate` can add device-node GIDs, a CDI 0.7.0 feature, and has the
feature flag that leaves them out (1.19.0, pkg/nvcdi/api.go). No Ansible import.
"""
from __future__ import annotations

import re
from typing import Any

# The toolkit's default drop-in for containerd (v1.18.0: config.d; v1.18.1 "Fix containerd drop-in config path": conf.d).
CONTAINERD_DROP_IN_1180 = "/etc/containerd/config.d/99-nvidia.toml"
CONTAINERD_DROP_IN = "/etc/containerd/conf.d/99-nvidia.toml"
# nvidia-cdi-refresh (deployments/systemd/nvidia-cdi-refresh.{path,service}, v1.18.0 on): the spec it writes.
CDI_REFRESH_UNITS = ("nvidia-cdi-refresh.path", "nvidia-cdi-refresh.service")
CDI_REFRESH_SPEC = "/var/run/cdi/nvidia.yaml"
# `cdi generate --feature-flag=` that leaves out the additional GIDs of device nodes (pkg/nvcdi/api.go, v1.19.0 on).
NO_GIDS_FLAG = "--feature-flag=no-additional-gids-for-device-nodes"
# The management spec (`--mode=management`; the vendor flag defaults to nvidia.com, so it is named explicitly).
MANAGEMENT_ARGS = ("--mode=management", "--vendor=management.nvidia.com", "--class=gpu")
MANAGEMENT_SPEC_NAME = "management.nvidia.com-gpu.yaml"

_VERSION = re.compile(r"^(?:\d+:)?(\d+)\.(\d+)\.(\d+)")


def release(version: str) -> tuple[int, int, int] | None:
    """(major, minor, patch) of a package version such as 1.20.0-1 (an epoch is skipped), None when unreadable."""
    match = _VERSION.match(str(version or "").strip())
    return tuple(int(part) for part in match.groups()) if match else None  # type: ignore[return-value]


def behaviour(version: str) -> dict[str, Any]:
    """The release's behaviours: {release, containerd_drop_in (path, "" before 1.18.0), cdi_refresh (ships the units),
    gids (may write CDI 0.7.0 device-node GIDs), no_gids_flag (has the feature flag), known (version readable)}."""
    found = release(version)
    rel = found or (0, 0, 0)
    if rel < (1, 18, 0):
        drop_in = ""
    elif rel == (1, 18, 0):
        drop_in = CONTAINERD_DROP_IN_1180
    else:
        drop_in = CONTAINERD_DROP_IN
    return {"release": ".".join(str(part) for part in rel) if found else "", "known": found is not None,
            "containerd_drop_in": drop_in, "cdi_refresh": rel >= (1, 18, 0),
            "gids": rel >= (1, 19, 0), "no_gids_flag": rel >= (1, 19, 0)}
