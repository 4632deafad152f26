# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The torch_cuda_check child modules imported here: their parts that need no torch and no GPU.

`import torch` is made to fail (None in sys.modules) where a test needs it missing, whatever
this interpreter holds; the programs themselves run in test_torch_cuda_check_child.py.
"""
from __future__ import annotations

import json
import sys
from types import SimpleNamespace

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check import (
    child_base, child_companions, child_facts, child_gpu, native_sass, probes)

NO_TORCH = "ModuleNotFoundError: import of torch halted; None in sys.modules"


@pytest.fixture
def no_torch(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)


@pytest.fixture
def emitted():
    """An emit() that keeps a copy of every result."""
    results = []

    def emit(obj):
        results.append(json_copy(obj))
    emit.results = results
    return emit


def json_copy(obj):
    return json.loads(json.dumps(obj, default=str))


def test_attempt():
    assert child_base.attempt(lambda: 91002) == 91002
    assert child_base.attempt(lambda: 1 // 0) is None
    assert child_base.attempt(divmod, 91002, 10000) == (9, 1002)


@pytest.mark.parametrize("exc, text, missing", [
    (ModuleNotFoundError("No module named 'torch'", name="torch"), "ModuleNotFoundError: No module named 'torch'",
     True),
    (ModuleNotFoundError("No module named 'numpy'", name="numpy"), "ModuleNotFoundError: No module named 'numpy'",
     False),
    (OSError("libcudnn.so.9: cannot open shared object file"), "OSError: libcudnn.so.9: cannot open shared object file",
     False),
])
def test_import_error_result(exc, text, missing):
    assert child_base.import_error_result(exc, 0.25) == {
        "torch_import_error": text, "phases": {"import_torch": 0.25}, "torch_missing": missing}


def test_import_torch_emits_why_it_failed(no_torch, emitted):
    assert child_base.import_torch(emitted) == (None, None)
    (result,) = emitted.results
    assert result["torch_import_error"] == NO_TORCH and result["torch_missing"] is True
    assert 0 <= result["phases"]["import_torch"] < 5


@pytest.mark.parametrize("main", [child_facts.main, child_companions.main], ids=["facts", "companions"])
def test_facts_and_companions_without_torch_emit_once(no_torch, emitted, main, monkeypatch):
    monkeypatch.setattr(child_companions, "present", lambda name: name == "torchvision")  # a companion to import
    main([], emitted)
    assert [sorted(result) for result in emitted.results] == [["phases", "torch_import_error", "torch_missing"]]


def test_companions_without_any_companion_never_import_torch(no_torch, emitted, monkeypatch):
    monkeypatch.setattr(child_companions, "present", lambda name: False)
    monkeypatch.setattr(child_companions, "companion", lambda name: {"version": None, "import_error": "not " + name})
    child_companions.main([], emitted)
    last = emitted.results[-1]
    assert "torch_import_error" not in last and sorted(last["phases"]) == ["import_torchaudio", "import_torchvision"]
    assert last["torchvision"] == {"version": None, "import_error": "not torchvision"}
    assert last["torchaudio"] == {"version": None, "import_error": "not torchaudio"}


def test_present_finds_without_importing(tmp_path, monkeypatch):
    (tmp_path / "bw_companion_probe").mkdir()
    (tmp_path / "bw_companion_probe" / "__init__.py").write_text("raise RuntimeError('imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert child_companions.present("bw_companion_probe") is True
    assert "bw_companion_probe" not in sys.modules
    assert child_companions.present("bw_no_such_companion") is False


def props(**extra):
    fields = dict(name="NVIDIA H100 80GB HBM3", major=9, minor=0, total_memory=85045510144, multi_processor_count=132,
                  uuid="7f1c2e3a-0b4d-4e5f-8a9b-0c1d2e3f4a5b", pci_domain_id=0, pci_bus_id=0x1b, pci_device_id=0)
    fields.update(extra)
    return SimpleNamespace(**fields)


def test_device_facts():
    assert child_facts.device_facts(3, props()) == {
        "index": 3, "name": "NVIDIA H100 80GB HBM3", "capability": [9, 0],
        "uuid": "GPU-7f1c2e3a-0b4d-4e5f-8a9b-0c1d2e3f4a5b", "pci_bus_id": "0000:1b:00.0",
        "memory_total_mib": 81105, "multi_processor_count": 132}


def test_device_facts_of_an_older_torch():
    """A uuid already prefixed is kept; an empty one, and a torch without PCI fields, give None."""
    old = props(uuid="GPU-7f1c2e3a")
    del old.pci_bus_id
    facts = child_facts.device_facts(0, old)
    assert (facts["uuid"], facts["pci_bus_id"]) == ("GPU-7f1c2e3a", None)
    assert child_facts.device_facts(0, props(uuid=""))["uuid"] is None


def test_no_cuda_reason():
    assert child_facts.no_cuda_reason("2.13.0+cpu", None) == "torch 2.13.0+cpu was built without CUDA"
    assert child_facts.no_cuda_reason("2.9.1+rocm6.4", "6.4.4") == "torch 2.9.1+rocm6.4 was built without CUDA (a ROCm build)"


def fake_torch(cuda_available, init_error=None):
    """The parts of torch's API build_facts reads, for a CUDA build."""
    def init():
        if init_error:
            raise init_error

    cuda = SimpleNamespace(
        is_available=lambda: cuda_available, init=init, device_count=lambda: 1,
        get_device_properties=lambda index: props(), get_arch_list=lambda: ["sm_80", "sm_90", "sm_100"],
        nccl=SimpleNamespace(version=lambda: (2, 27, 5)))
    return SimpleNamespace(
        __version__="2.11.0+cu130", version=SimpleNamespace(cuda="13.0", git_version="70d99e9", hip=None),
        backends=SimpleNamespace(cudnn=SimpleNamespace(version=lambda: 91002)), cuda=cuda,
        distributed=SimpleNamespace(is_available=lambda: True, is_nccl_available=lambda: True),
        _C=SimpleNamespace(_cuda_getArchFlags=lambda: "sm_80 sm_90 sm_100"))


def test_build_facts_with_a_usable_gpu():
    phases = {"import_torch": 4.2}
    facts = child_facts.build_facts(fake_torch(True), phases)
    assert facts["phases"] is phases
    assert (facts["cuda"], facts["cudnn"], facts["nccl"], facts["nccl_available"]) == ("13.0", 91002, (2, 27, 5), True)
    assert facts["cuda_available"] is True and facts["cuda_unavailable_reason"] is None
    assert [device["pci_bus_id"] for device in facts["devices"]] == ["0000:1b:00.0"]
    assert facts["arch_list"] == ["sm_80", "sm_90", "sm_100"]


def test_build_facts_of_a_torch_without_nccl():
    torch = fake_torch(True)
    del torch.cuda.nccl
    torch.distributed.is_nccl_available = lambda: False
    facts = child_facts.build_facts(torch, {})
    assert (facts["nccl"], facts["nccl_available"]) == (None, False)


def test_build_facts_when_cuda_does_not_start():
    """The reason is the first line of torch.cuda.init()'s error; the arch list comes from the build flags."""
    facts = child_facts.build_facts(fake_torch(False, RuntimeError(
        "Found no NVIDIA driver on your system. Please check that you\nhave an NVIDIA GPU")), {})
    assert facts["cuda_available"] is False and facts["devices"] == []
    assert facts["cuda_unavailable_reason"] == "RuntimeError: Found no NVIDIA driver on your system. Please check that you"
    assert facts["arch_list"] == ["sm_80", "sm_90", "sm_100"]
    facts = child_facts.build_facts(fake_torch(False), {})
    assert facts["cuda_unavailable_reason"] == "torch.cuda.is_available() is False"


def test_companion_versions_and_import_errors():
    assert child_companions.companion("pytest") == {"version": pytest.__version__, "import_error": None}
    assert child_companions.companion("no_such_companion") == {
        "version": None, "import_error": "ModuleNotFoundError: No module named 'no_such_companion'"}


@pytest.mark.parametrize("text, parts", [("ops,probes", ["ops", "probes"]), ("ops,,sass,", ["ops", "sass"]), ("", [])])
def test_parse_parts(text, parts):
    assert child_gpu.parse_parts(text) == parts


def test_every_part_has_its_function():
    functions = dict((part, child_gpu.part_function(part)) for part in child_gpu.PARTS)
    assert functions == {"ops": child_gpu.part_ops, "probes": probes.part_probes, "sass": native_sass.part_sass,
                         "compile": probes.part_compile}
    with pytest.raises(KeyError):
        child_gpu.part_function("fly")


def test_gpu_child_without_torch_stops_after_the_import_before_the_lock(no_torch, emitted):
    child_gpu.main(["1", "ops,probes", "/run/lock/blackwell-pytorch-gpu.lock", "30"], emitted)
    (result,) = emitted.results
    assert result["index"] == 1 and result["init"] == {"status": "failed", "error": NO_TORCH}
    assert sorted(result["phases"]) == ["import_torch"] and "gpu_lock" not in result


def test_judged():
    assert probes.judged(0.004, 2e-2) == {"status": "ok", "error": None, "relative_error": 0.004}
    assert probes.judged(0.25, 2e-2) == {"status": "failed", "error": "wrong result: relative error 0.25 > 0.02",
                                         "relative_error": 0.25}
    assert probes.judged(0.0, 0.0)["status"] == "ok"


def test_timed_turns_an_exception_into_a_failed_probe():
    result = probes.timed(lambda dev: {"status": "ok", "error": None, "dev": dev}, "cuda:0")
    assert result["status"] == "ok" and result["dev"] == "cuda:0" and result["seconds"] >= 0
    result = probes.timed(lambda: 1 // 0)
    assert (result["status"], result["error"]) == ("failed", "ZeroDivisionError: integer division or modulo by zero")


def test_fp8_is_skipped_below_compute_capability_8_9(no_torch):
    assert probes.probe_fp8("cuda:0", (8, 6)) == {
        "status": "skipped", "reason": "compute capability 8.6 < 8.9: no FP8 tensor cores"}


@pytest.mark.parametrize("out, why", [({"ops": {"status": "failed", "error": "boom"}}, "boom"), ({}, "None")])
def test_probes_are_skipped_when_the_op_mix_failed(no_torch, out, why):
    skipped = probes.part_probes(0, (9, 0), out)
    assert sorted(skipped) == sorted(["flash_attention", "efficient_attention", "cudnn_attention", "math_attention",
                                      "triton", "bf16", "fp8"])
    assert set(map(str, skipped.values())) == {str({"status": "skipped",
                                                   "reason": "the basic op mix failed on this GPU: %s" % why})}
    assert set(skipped) | {"torch_compile"} == set(probes.PROBES)


def test_native_sass_without_nvrtc_is_unavailable(monkeypatch):
    monkeypatch.setattr(native_sass, "nvrtc_candidates", lambda: ["/nonexistent/libnvrtc.so.13"])
    monkeypatch.delenv("CUDA_DISABLE_PTX_JIT", raising=False)
    result = native_sass.part_sass(0, (12, 0), {})
    assert (result["status"], result["arch"], result["nvrtc"], result["ptx_jit_disabled"]) == (
        "unavailable", "sm_120", None, False)
    assert result["error"].startswith("no loadable libnvrtc (torch's nvidia wheels, CUDA_HOME, /usr/local/cuda, "
                                      "ldconfig); tried /nonexistent/libnvrtc.so.13 (")
    monkeypatch.setattr(native_sass, "nvrtc_candidates", lambda: [])
    assert native_sass.part_sass(0, (12, 0), {})["error"] == (
        "no loadable libnvrtc (torch's nvidia wheels, CUDA_HOME, /usr/local/cuda, ldconfig)")


def test_native_sass_with_an_nvrtc_too_old_for_the_gpu(monkeypatch):
    monkeypatch.setattr(native_sass, "load_nvrtc", lambda: (None, "/cuda/lib64/libnvrtc.so.12", "12.6", [75, 80, 90]))
    monkeypatch.setenv("CUDA_DISABLE_PTX_JIT", "1")
    result = native_sass.part_sass(0, (12, 0), {})
    assert result == {
        "arch": "sm_120", "ptx_jit_disabled": True, "nvrtc": "/cuda/lib64/libnvrtc.so.12", "nvrtc_version": "12.6",
        "cubin_bytes": None, "negative_control": None, "status": "unavailable",
        "error": "NVRTC 12.6 cannot build sm_120 (it knows sm_75 to sm_90)", "seconds": result["seconds"]}


def test_a_gpu_child_takes_the_gpu_lock_after_importing_torch_and_before_cuda_starts(monkeypatch, emitted):
    """Making a CUDA context is GPU work a benchmark's measurement must not see: the shared lock comes first; the
    import (seconds) comes before the lock, so it runs beside a measurement."""
    calls = []
    cuda = SimpleNamespace(init=lambda: calls.append("cuda.init"), set_device=lambda index: calls.append("set_device"),
                           get_device_capability=lambda index: (9, 0))
    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(cuda=cuda))
    monkeypatch.setattr(child_gpu, "acquire", lambda path, shared, wait: calls.append(("acquire", path, shared, wait))
                        or {"path": path, "mode": "shared", "held": True, "waited_s": 0.5, "error": None})
    child_gpu.main(["0", "", "/run/lock/blackwell-pytorch-gpu.lock", "30"], emitted)
    assert calls == [("acquire", "/run/lock/blackwell-pytorch-gpu.lock", True, 30.0), "cuda.init", "set_device"]
    assert emitted.results[-1]["init"] == {"status": "ok", "error": None}
    assert emitted.results[-1]["phases"]["gpu_lock_wait"] == 0.5
