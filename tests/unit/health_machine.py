# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A machine for preflight_facts and gpu_health side by side: NVML a fake pynvml shared by both modules, the journal a
journalctl stand-in script on PATH, sysfs and procfs files under a temporary directory: Machine(tmp_path, monkeypatch)."""
from __future__ import annotations

import fake_nvml_health as fh
from sysfs_tree import OPEN_LINE, add_pci

from ansible_collections.blackwell.pytorch.plugins.modules import gpu_health, preflight_facts


class CountingNVML(fh.HealthNVML):
    """HealthNVML that counts its sessions."""

    inits = 0

    def nvmlInit(self):
        super().nvmlInit()
        self.inits += 1


class Machine(object):
    """The machine under tmp_path; gpus() hands both modules the same fake pynvml."""

    def __init__(self, tmp_path, monkeypatch):
        self.tmp_path, self.monkeypatch = tmp_path, monkeypatch
        self.sys_root = tmp_path / "sys"
        (self.sys_root / "bus" / "pci" / "devices").mkdir(parents=True)
        (self.sys_root / "firmware").mkdir()
        (tmp_path / "lib_modules").mkdir()
        self.proc = tmp_path / "proc_version"
        self.bin_dir = tmp_path / "bin"
        self.bin_dir.mkdir()
        self.textfile_dir = tmp_path / "textfile"
        monkeypatch.setenv("PATH", str(self.bin_dir))
        for name, value in (("SYS_ROOT", self.sys_root), ("PROC_VERSION", self.proc),
                            ("FIRMWARE_DIR", self.sys_root / "firmware"), ("MODULES_ROOT", tmp_path / "lib_modules"),
                            ("APT_LISTS", tmp_path / "apt"), ("DNF_CACHE", tmp_path / "dnf"),
                            ("KMSG", tmp_path / "kmsg")):
            monkeypatch.setattr(preflight_facts, name, str(value))
        monkeypatch.setattr(gpu_health, "KMSG", str(tmp_path / "kmsg"))

    def gpus(self, *gpus, **kwargs):
        nvml = CountingNVML(list(gpus), **kwargs)
        for gpu in gpus:
            add_pci(self.sys_root, gpu["bus_id"][4:].lower(), 0x10DE, gpu["pci_device_id"] >> 16, 0x030200)
        self.proc.write_text(OPEN_LINE)
        (self.sys_root / "module" / "nvidia").mkdir(parents=True, exist_ok=True)
        self.monkeypatch.setattr(preflight_facts, "pynvml", nvml)
        self.monkeypatch.setattr(gpu_health, "pynvml", nvml)
        return nvml

    def journal(self, *messages):
        script = self.bin_dir / "journalctl"
        text = "\n".join("2026-11-26T10:00:0%d+0000 ws1 kernel: %s" % (n, m) for n, m in enumerate(messages))
        script.write_text("#!/bin/sh\n/bin/cat <<'END'\n%s\nEND\n" % text)
        script.chmod(0o755)

    def textfile(self):
        path = self.textfile_dir / "blackwell_pytorch_health.prom"
        return path.read_text() if path.exists() else None


def probe(run_module, health):
    """preflight_facts' answer on the machine, with the health option `health` (None: not given)."""
    status, result = run_module(preflight_facts, {"health": health} if health is not None else {})
    assert status == "exit" and result["changed"] is False, result
    return result
