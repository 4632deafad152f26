"""The gpu_health module: NVML through a fake pynvml, the kernel log through a real journalctl stand-in
script on PATH and a file in place of /dev/kmsg."""
from __future__ import annotations

import pytest

import fake_nvml_health as fh
from ansible_collections.blackwell.pytorch.plugins.modules import gpu_health

XID79 = "NVRM: Xid (PCI:0000:18:00): 79, pid=1452, name=python3, GPU has fallen off the bus."


@pytest.fixture
def host(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    kmsg = tmp_path / "kmsg"
    monkeypatch.setattr(gpu_health, "KMSG", str(kmsg))

    class Host:
        def journal(self, text, rc=0):
            script = bin_dir / "journalctl"
            script.write_text("#!/bin/sh\n/bin/cat <<'END'\n%s\nEND\nexit %d\n" % (text, rc))
            script.chmod(0o755)

        def ring_buffer(self, *messages):
            kmsg.write_text("".join("6,%d,0,-;%s\n" % (seq, message) for seq, message in enumerate(messages)))

        def nvml(self, nvml):
            monkeypatch.setattr(gpu_health, "pynvml", nvml)

    return Host()


def test_reads_nvml_and_the_journal(host, run_module):
    host.nvml(fh.HealthNVML([fh.H100_HEALTHY]))
    host.journal("2026-11-26T10:00:01+0000 ws1 kernel: Linux version 6.1.0\n"
                 "2026-11-26T10:00:02+0000 ws1 kernel: " + XID79)
    status, result = run_module(gpu_health, {})
    assert status == "exit" and result["changed"] is False
    health = result["health"]
    assert health["nvml_error"] is None and health["hostname"]
    assert health["gpus"][0]["remapped_rows"]["pending"] is False
    assert health["kernel_log"]["source"] == "journal"
    assert [(x["pci"], x["xid"]) for x in health["kernel_log"]["xids"]] == [("0000:18:00", 79)]


def test_no_journalctl_reads_the_ring_buffer(host, run_module):
    host.nvml(fh.HealthNVML([fh.H100_HEALTHY]))
    host.ring_buffer("Linux version 6.1.0", XID79)
    log = run_module(gpu_health, {})[1]["health"]["kernel_log"]
    assert (log["source"], log["complete"], [x["xid"] for x in log["xids"]]) == ("/dev/kmsg", True, [79])
    # kernel_log: journal does not fall back
    log = run_module(gpu_health, {"kernel_log": "journal"})[1]["health"]["kernel_log"]
    assert log["source"] is None and log["error"].startswith("journalctl: not installed")


def test_a_container_knows_no_xid(host, run_module):
    """What a container without a GPU answers: no NVML, a journal without kernel messages, no /dev/kmsg."""
    host.nvml(None)
    host.journal("-- No entries --")
    health = run_module(gpu_health, {})[1]["health"]
    assert health["gpus"] == [] and health["nvml_error"] == "nvidia-ml-py is not installed for the module's Python"
    assert health["kernel_log"]["source"] is None
    assert health["kernel_log"]["error"] == ("journalctl -k -b: the journal holds no kernel message of this boot; "
                                             "/dev/kmsg: no such device")


def test_kmsg_only_and_never(host, run_module):
    host.nvml(fh.HealthNVML([fh.H100_HEALTHY]))
    host.journal(XID79)
    host.ring_buffer("Linux version 6.1.0")
    log = run_module(gpu_health, {"kernel_log": "kmsg"})[1]["health"]["kernel_log"]
    assert (log["source"], log["xids"]) == ("/dev/kmsg", [])
    log = run_module(gpu_health, {"kernel_log": "never"})[1]["health"]["kernel_log"]
    assert (log["source"], log["error"]) == (None, "not read (kernel_log=never)")
