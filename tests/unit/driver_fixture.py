# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Debian 12 host as the driver state question sees it: its published preflight, the driver packages dpkg-query
lists and an RTX 5090 (the nvidia_driver_state module's tests and the preflight probe's stage answers share them)."""
from __future__ import annotations

PREFLIGHT = {"os": {"family": "Debian", "distribution": "Debian", "version": "12"},
             "kernel": {"release": "6.1.0-28-amd64", "headers_installed": True,
                        "headers_package": "linux-headers-6.1.0-28-amd64", "headers_installable": True},
             "user": {"uid": 0, "name": "root"}, "connection": {"type": "ssh", "local": False},
             "secure_boot": {"state": "disabled"}, "nouveau_loaded": False}
PACKAGES = "nvidia-open\t580.95.05-1\thi \nnvidia-driver-pinning-580\t580.95.05-1\thi \n"
RTX5090 = {"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120", "index": 0}
