# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The text of each file the nvidia_driver role writes, byte for byte as the role writes it.

The state module compares these with the files on the host (a converged host has them all as
they are here) and returns them, so the role writes only the ones that differ. The proxy
configuration carries a password: its text is compared on the host and never returned
(proxy_conf is used by the module only). No Ansible import.
"""
from __future__ import annotations

try:
    from urllib.parse import urlsplit
except ImportError:  # pragma: no cover - Python 2 is no target of this collection
    from urlparse import urlsplit  # type: ignore

NOUVEAU_PATH = "/etc/modprobe.d/blacklist-nouveau.conf"
DKMS_MOK_PATH = "/etc/dkms/framework.conf.d/blackwell-mok.conf"


def nouveau_blacklist():
    """/etc/modprobe.d/blacklist-nouveau.conf."""
    return ("# Managed by blackwell.pytorch.nvidia_driver: the NVIDIA driver needs the GPU for itself.\n"
            "blacklist nouveau\n"
            "options nouveau modeset=0\n")


def dkms_mok_conf(key, cert):
    """/etc/dkms/framework.conf.d/blackwell-mok.conf: DKMS signs the modules it builds with this pair."""
    return ("# Managed by blackwell.pytorch.nvidia_driver: DKMS signs the modules it builds with this pair.\n"
            'mok_signing_key="%s"\n'
            'mok_certificate="%s"\n' % (key, cert))


def apt_source(url, keyring):
    """The signed-by apt source of the vendor repository."""
    return ("# Managed by blackwell.pytorch.nvidia_driver: NVIDIA's CUDA repository (or a mirror),\n"
            "# trusted only through the pinned key in %s.\n"
            "deb [signed-by=%s] %s /\n" % (keyring, keyring, url))


def proxy_conf(url, proxy):
    """apt's proxy for the repository's host only (root-only: the proxy may carry a password)."""
    host = urlsplit(url).hostname or ""
    return ("// Managed by blackwell.pytorch.nvidia_driver: the proxy for %s only.\n"
            'Acquire::http::Proxy::%s "%s";\n'
            'Acquire::https::Proxy::%s "%s";\n' % (host, host, proxy, host, proxy))


def apt_pin(branch, names):
    """apt's preferences that keep the driver on its branch (the fallback package depends on an unbounded driver)."""
    return ("# Managed by blackwell.pytorch.nvidia_driver: keeps apt on NVIDIA driver branch %s\n"
            "# (%s would otherwise pull in a newer branch).\n"
            "Package: *nvidia* cuda-drivers* libcuda* libxnvctrl*\n"
            "Pin: version %s.*\n"
            "Pin-Priority: 1000\n" % (branch, ", ".join(names), branch))


def uu_blacklist(names):
    """unattended-upgrades' blacklist of the driver packages (regular expressions)."""
    lines = ["// Managed by blackwell.pytorch.nvidia_driver: the NVIDIA driver moves only when the role is",
             "// asked to (nvidia_driver_upgrade), never under a running system. Regular expressions.",
             "Unattended-Upgrade::Package-Blacklist {"]
    lines += ['    "^%s$";' % name.replace(".", "\\.").replace("+", "\\+") for name in names]
    lines.append("};")
    return "\n".join(lines) + "\n"
