from __future__ import annotations

import json

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.results import fingerprint as vf

TORCH_VERSION_PY = '''from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']
__version__ = '2.11.0+cu130'
debug = False
cuda: Optional[str] = '13.0'
git_version = '5e1c1a8d8f0e0b5b9a3c4b8f2f4a2e0c9d7e6b5a'
hip: Optional[str] = None
xpu: Optional[str] = None
'''
PROC_VERSION = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
                "(dvs-builder@U22-I3-AF03-09-1)  Thu Oct 30 2025\nGCC version:  gcc version 13.3.0\n")


def info(uuid):
    return "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 160\nGPU UUID: \t GPU-%s\nVideo BIOS: \t 96.00.99.00.01\n" % uuid


@pytest.fixture
def host(tmp_path):
    """A host tree: driver in /sys and /proc, two GPUs, CUDA 13.0.2, a venv with torch."""
    root = tmp_path / "root"
    (root / "sys/module/nvidia").mkdir(parents=True)
    (root / "sys/module/nvidia/version").write_text("580.159.04\n")
    (root / "proc/driver/nvidia").mkdir(parents=True)
    (root / "proc/driver/nvidia/version").write_text(PROC_VERSION)
    for bus, uuid in (("0000:1b:00.0", "b1"), ("0000:01:00.0", "a0")):
        (root / "proc/driver/nvidia/gpus" / bus).mkdir(parents=True)
        (root / "proc/driver/nvidia/gpus" / bus / "information").write_text(info(uuid))
    cuda = tmp_path / "cuda"
    cuda.mkdir()
    (cuda / "version.json").write_text(json.dumps({"cuda": {"name": "CUDA SDK", "version": "13.0.2"}}))
    site = tmp_path / "venv/lib/python3.11/site-packages"
    for dist in ("torch-2.11.0+cu130", "numpy-2.3.4", "nvidia_cublas-13.0.2.14", "typing_extensions-4.15.0"):
        (site / (dist + ".dist-info")).mkdir(parents=True)
    (site / "torch").mkdir()
    (site / "torch/version.py").write_text(TORCH_VERSION_PY)
    (tmp_path / "venv/bin").mkdir()
    return {"root": str(root), "cuda": str(cuda), "python": str(tmp_path / "venv/bin/python"), "tmp": tmp_path,
            "site": site}


def take(host, version="0.2.0", code="c0de", settings=None):
    return vf.fingerprint(host["python"], host["cuda"], version, root=host["root"], code=code,
                          settings={"profile": "quick"} if settings is None else settings)


def test_fingerprint_reads_every_component(host):
    got = take(host)
    assert got["driver_version"] == "580.159.04"
    assert got["gpu_uuids"] == ["GPU-a0", "GPU-b1"]
    assert got["cuda_toolkit"] == "13.0.2"
    assert got["torch"] == {"version": "2.11.0+cu130", "cuda": "13.0",
                            "git_version": "5e1c1a8d8f0e0b5b9a3c4b8f2f4a2e0c9d7e6b5a"}
    assert got["packages"] == ["numpy==2.3.4", "nvidia-cublas==13.0.2.14", "torch==2.11.0+cu130",
                               "typing-extensions==4.15.0"]
    assert got["code"] == "c0de" and got["settings"] == {"profile": "quick"}
    assert got["collection_version"] == "0.2.0" and len(got["digest"]) == 64


def test_equal_hosts_give_equal_fingerprints(host):
    assert take(host) == take(host)
    assert vf.differences(take(host), take(host)) == []


def _driver(host):
    (host["tmp"] / "root/sys/module/nvidia/version").write_text("580.95.05\n")


def _toolkit(host):
    (host["tmp"] / "cuda/version.json").write_text(json.dumps({"cuda": {"version": "13.1.0"}}))


def _torch(host):
    (host["site"] / "torch-2.11.0+cu130.dist-info").rename(host["site"] / "torch-2.12.0+cu130.dist-info")


def _package(host):
    (host["site"] / "numpy-2.3.5.dist-info").mkdir()
    (host["site"] / "numpy-2.3.4.dist-info").rmdir()


def _gpu(host):
    bus = host["tmp"] / "root/proc/driver/nvidia/gpus/0000:1b:00.0/information"
    bus.write_text(info("c2"))


@pytest.mark.parametrize("change, components", [
    (_driver, ["driver_version"]),
    (_toolkit, ["cuda_toolkit"]),
    (_torch, ["torch", "packages"]),
    (_package, ["packages"]),
    (_gpu, ["gpu_uuids"]),
])
def test_each_component_change_changes_the_fingerprint(host, change, components):
    before = take(host)
    change(host)
    after = take(host)
    assert vf.differences(before, after) == components and before["digest"] != after["digest"]


def test_collection_version_is_recorded_but_not_compared(host):
    before, after = take(host, "0.2.0"), take(host, "0.2.1")
    assert vf.differences(before, after) == [] and before["digest"] == after["digest"]
    assert vf.decide(dict(stored(host), fingerprint=before), after)[0] is True


def test_a_changed_verification_code_or_settings_re_verifies(host):
    document = stored(host)
    assert vf.decide(document, take(host, code="c0de2")) == (False, "fingerprint changed: code", ["code"])
    assert vf.decide(document, take(host, settings={"profile": "standard"})) == (
        False, "fingerprint changed: settings", ["settings"])


def test_a_result_stored_before_the_code_digest_is_not_reused(host):
    old = dict(take(host))
    for key in ("code", "settings"):
        old.pop(key)
    old["collection_version"] = "0.2.0"
    assert vf.decide(stored(host, fingerprint=old), take(host))[:2] == (False, "fingerprint changed: code, settings")


def test_proc_version_when_sys_is_absent_and_nothing_without_a_driver(host):
    (host["tmp"] / "root/sys/module/nvidia/version").unlink()
    assert vf.driver_version(host["root"]) == "580.159.04"
    empty = str(host["tmp"] / "empty")
    assert vf.driver_version(empty) is None and vf.gpu_uuids(empty) == []
    assert vf.cuda_toolkit(empty) is None


def test_version_txt_of_old_toolkits(tmp_path):
    (tmp_path / "version.txt").write_text("CUDA Version 10.2.89\n")
    assert vf.cuda_toolkit(str(tmp_path)) == "10.2.89"


def test_no_torch_no_build(host):
    (host["site"] / "torch-2.11.0+cu130.dist-info").rmdir()
    assert take(host)["torch"] is None


def stored(host, passed=True, **changes):
    document = {"schema": vf.SCHEMA, "passed": passed, "fingerprint": take(host), "written": "2026-11-23T03:00:00Z"}
    document.update(changes)
    return document


def write(tmp_path, text):
    path = tmp_path / "verify.json"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("text", [
    "", "{", "[]", "null", "{\"schema\": \"blackwell.pytorch.verify/1\"}",
    json.dumps({"schema": "other/1", "passed": True, "fingerprint": {}}),
    json.dumps({"schema": vf.SCHEMA, "passed": "yes", "fingerprint": {}}),
    json.dumps({"schema": vf.SCHEMA, "passed": True, "fingerprint": "abc"}),
    "\xff\xfe garbage",
])
def test_corrupted_verify_json_is_treated_as_absent(tmp_path, text):
    assert vf.load(write(tmp_path, text)) is None


def test_missing_verify_json_is_absent(tmp_path):
    assert vf.load(str(tmp_path / "nothing.json")) is None
    reuse, reason, changed = vf.decide(None, {})
    assert not reuse and "no stored result" in reason and changed == list(vf.COMPONENTS)


def test_a_stored_pass_with_the_same_fingerprint_is_reused(host):
    document = vf.load(write(host["tmp"], json.dumps(stored(host))))
    assert vf.decide(document, take(host)) == (
        True, "fingerprint unchanged since 2026-11-23T03:00:00Z and the stored result passed", [])


def test_force_a_failure_or_a_change_runs_again(host):
    assert vf.decide(stored(host), take(host), force=True)[:2] == (False, "forced")
    assert vf.decide(stored(host, passed=False), take(host))[:2] == (False, "the stored result failed")
    before = stored(host)
    _driver(host)
    assert vf.decide(before, take(host)) == (False, "fingerprint changed: driver_version", ["driver_version"])


def test_gpu_models_name_every_gpu_in_bus_order(host, tmp_path):
    assert vf.gpu_models(host["root"]) == [
        {"pci_bus_id": "0000:01:00.0", "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-a0"},
        {"pci_bus_id": "0000:1b:00.0", "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-b1"}]
    (tmp_path / "root/proc/driver/nvidia/gpus/0000:1b:00.0/information").write_text("IRQ: 3\n")  # no model: left out
    assert [gpu["uuid"] for gpu in vf.gpu_models(host["root"])] == ["GPU-a0"]
    assert vf.gpu_models(str(tmp_path / "nothing")) == []
