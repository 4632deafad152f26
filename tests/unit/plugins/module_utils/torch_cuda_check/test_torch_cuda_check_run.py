"""run_check's assembly of child results: canned children, and real ones that time out or crash."""
from __future__ import annotations

import json
import os
import sys

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check import run as cuda_check_run
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import emit_result_source
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.child import companions_source
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.run import (
    facts_error, part_of, run_check, version_string)

TORCH_PYTHON = os.environ.get("BLACKWELL_TEST_TORCH_PYTHON")
needs_torch = pytest.mark.skipif(not TORCH_PYTHON, reason="needs a torch interpreter; make test sets "
                                 "BLACKWELL_TEST_TORCH_PYTHON")

# What the children reported on the H100 test machine (torch 2.11.0+cu130), trimmed.
H100 = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "capability": [9, 0],
        "uuid": "GPU-521d52b3-3302-8435-3857-401ad2fdbfa9", "pci_bus_id": "0000:00:06.0",
        "memory_total_mib": 81079, "multi_processor_count": 132}
RTX5090 = dict(H100, name="NVIDIA GeForce RTX 5090", capability=[12, 0], uuid=None, pci_bus_id="0000:01:00.0")
CU130 = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
CU126 = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
NO_KERNEL = "AcceleratorError: CUDA error: no kernel image is available for execution on the device"
OPS_OK = {"status": "ok", "failed_op": None, "seconds": 0.19, "error": None}
OPS_NO_KERNEL = {"status": "failed", "failed_op": "elementwise", "seconds": 0.004, "error": NO_KERNEL}
PROBES_OK = dict((name, {"status": "ok", "error": None, "seconds": 0.1}) for name in (
    "flash_attention", "efficient_attention", "cudnn_attention", "math_attention", "triton", "bf16", "fp8"))
SASS_OK = {"status": "ok", "error": None, "arch": "sm_90", "result": "exact: 1000 values of 3 * x + 0.5",
           "negative_control": {"status": "ok", "arch": "sm_121", "refused_with": "CUDA_ERROR_NO_BINARY_FOR_GPU (209)"}}


def child(result, status="ok", error=None, seconds=5.0):
    return {"status": status, "returncode": 0 if status == "ok" else 1, "seconds": seconds, "result": result,
            "stdout_tail": "", "stderr_tail": "" if status == "ok" else "Fatal Python error", "error": error}


def facts(devices, arch_list, version="2.11.0+cu130"):
    return {"torch_version": version, "git_version": "70d99e998b4955e0049d13a98d77ae1b14db1f45",
            "cuda": "13.0", "hip": None, "cudnn": 91900, "nccl": [2, 28, 9], "nccl_available": True,
            "cuda_available": True, "cuda_unavailable_reason": None, "devices": devices, "arch_list": arch_list,
            "phases": {"import_torch": 4.1, "build_and_devices": 0.9}}


def gpu_payload(**parts):
    return dict({"index": 0, "init": {"status": "ok", "error": None}, "phases": {"cuda_init": 0.5}}, **parts)


COMPANIONS = {"torchvision": {"version": "0.26.0+cu130", "import_error": None},
              "torchaudio": {"version": "2.11.0+cu130", "import_error": None}, "phases": {}}


class FakeChildren(object):
    """Stands in for run_child: answers by kind of child (facts, companions, GPU mode, compile)."""

    def __init__(self, facts_child, modes, companions_child=None):
        self.facts, self.modes = facts_child, modes
        self.companions = companions_child or child(COMPANIONS)
        self.calls = []

    def __call__(self, python, source, args=(), env=None, timeout=None):
        if not args:
            kind = "companions" if source == companions_source() else "facts"
        elif args[1] == "compile":
            kind = "compile"
        elif (env or {}).get("CUDA_DISABLE_PTX_JIT") == "1":
            kind = "disable_ptx_jit"
        elif (env or {}).get("CUDA_FORCE_PTX_JIT") == "1":
            kind = "force_ptx_jit"
        else:
            kind = "normal"
        self.calls.append((kind, tuple(args), env, timeout))
        return {"facts": self.facts, "companions": self.companions}.get(kind) or self.modes[kind]


def h100_modes():
    return {"normal": child(gpu_payload(ops=OPS_OK, probes=PROBES_OK)),
            "disable_ptx_jit": child(gpu_payload(ops=OPS_OK, sass=SASS_OK)),
            "force_ptx_jit": child(gpu_payload(ops=OPS_NO_KERNEL)),
            "compile": child(gpu_payload(compile={"status": "ok", "error": None, "seconds": 11.9}), seconds=26.1)}


@pytest.fixture
def fake(monkeypatch):
    def install(facts_child, modes, companions_child=None):
        children = FakeChildren(facts_child, modes, companions_child)
        monkeypatch.setattr(cuda_check_run, "run_child", children)
        monkeypatch.setattr(cuda_check_run, "guess_gpu_indices", lambda: [])  # the host's GPUs play no part
        return children
    return install


def test_h100_with_cu130(fake):
    children = fake(child(facts([H100], CU130)), h100_modes())
    report = run_check(sys.executable)
    assert report["error"] is None
    assert report["build"] == {
        "torch_version": "2.11.0+cu130", "git_version": "70d99e998b4955e0049d13a98d77ae1b14db1f45",
        "cuda_runtime": "13.0", "cudnn": "9.19.0", "nccl": {"available": True, "version": "2.28.9"},
        "arch_list": CU130, "sass": CU130, "ptx": [], "device_count": 1}
    assert report["cuda"] == {"available": True, "reason": None}
    assert report["companions"]["torchvision"] == {
        "installed": "0.26.0+cu130", "import_ok": True, "import_error": None, "expected": "0.26.0",
        "match": True, "reason": "torchvision 0.26.0+cu130 matches torch 2.11.0+cu130"}
    (gpu,) = report["gpus"]
    assert (gpu["name"], gpu["sm"], gpu["arch_family"], gpu["uuid"]) == (
        "NVIDIA H100 80GB HBM3", "sm_90", "Hopper", H100["uuid"])
    assert (gpu["kernel_image"]["verdict"], gpu["kernel_image"]["image"],
            gpu["kernel_image"]["forward_compatible"]) == ("native", "sm_90", False)
    runs = gpu["runs"]
    assert [(mode, run["status"], run["expected"], run["env"]) for mode, run in sorted(runs.items())] == [
        ("disable_ptx_jit", "ok", True, "CUDA_DISABLE_PTX_JIT=1"),
        ("force_ptx_jit", "failed", True, "CUDA_FORCE_PTX_JIT=1"),
        ("normal", "ok", True, None)]
    assert runs["force_ptx_jit"]["error"] == NO_KERNEL
    assert runs["force_ptx_jit"]["note"] == (
        "expected: the build has no PTX <= compute_90, so nothing can load when the driver must JIT-compile "
        "PTX: the build is not forward compatible, the install is not broken")
    assert runs["normal"]["child_seconds"] == 5.0 and runs["normal"]["seconds"] == 0.19
    assert gpu["native_sass_launch"] == SASS_OK
    assert gpu["probes"]["flash_attention"]["status"] == "ok"
    assert gpu["probes"]["torch_compile"] == {
        "status": "skipped", "reason": "torch_compile is false (it compiles for seconds to minutes)"}
    assert [(entry["name"], entry["gpu"], entry["status"]) for entry in report["children"]] == [
        ("facts", None, "ok"), ("companions", None, "ok"), ("normal", 0, "ok"),
        ("disable_ptx_jit", 0, "ok"), ("force_ptx_jit", 0, "ok")]
    assert report["children"][0]["phases"] == {"import_torch": 4.1, "build_and_devices": 0.9}
    envs = dict((kind, env) for kind, _args, env, _timeout in children.calls)
    assert envs["normal"] == {"CUDA_DISABLE_PTX_JIT": None, "CUDA_FORCE_PTX_JIT": None}
    assert envs["force_ptx_jit"] == {"CUDA_DISABLE_PTX_JIT": None, "CUDA_FORCE_PTX_JIT": "1"}
    assert dict((kind, args) for kind, args, _env, _timeout in children.calls)["disable_ptx_jit"] == (
        0, "ops,sass", "", "30")


def test_cu126_on_rtx_5090_fails_as_predicted(fake):
    skipped = dict((name, {"status": "skipped", "reason": "the basic op mix failed on this GPU: " + NO_KERNEL})
                   for name in PROBES_OK)
    fake(child(facts([RTX5090], CU126, "2.7.1+cu126")), {
        "normal": child(gpu_payload(ops=OPS_NO_KERNEL, probes=skipped)),
        "disable_ptx_jit": child(gpu_payload(ops=OPS_NO_KERNEL, sass=dict(SASS_OK, arch="sm_120"))),
        "force_ptx_jit": child(gpu_payload(ops=OPS_NO_KERNEL))})
    (gpu,) = run_check(sys.executable, torch_compile=True)["gpus"]
    assert gpu["kernel_image"]["verdict"] == "none"
    assert dict((mode, (run["status"], run["expected"])) for mode, run in gpu["runs"].items()) == {
        "normal": ("failed", True), "disable_ptx_jit": ("failed", True), "force_ptx_jit": ("failed", True)}
    assert gpu["runs"]["normal"]["note"] == "expected: the build has no kernel image for sm_120"
    assert gpu["probes"]["torch_compile"] == {"status": "skipped", "reason": "the basic op mix failed on this GPU"}
    assert gpu["native_sass_launch"]["status"] == "ok"


def test_unexpected_outcomes_say_what_was_predicted(fake):
    modes = h100_modes()
    modes["disable_ptx_jit"] = child(gpu_payload(ops=OPS_NO_KERNEL, sass=SASS_OK))
    fake(child(facts([H100], CU130)), modes)
    run = run_check(sys.executable)["gpus"][0]["runs"]["disable_ptx_jit"]
    assert (run["expected"], run["note"]) == (
        False, "unexpected: predicted to run because sm_90 SASS runs without JIT")


def test_timeout_after_the_op_mix_keeps_it_and_marks_the_probes(fake):
    modes = h100_modes()
    modes["normal"] = child(gpu_payload(ops=OPS_OK), status="timeout", error="timed out after 120 s")
    fake(child(facts([H100], CU130)), modes)
    report = run_check(sys.executable)
    gpu = report["gpus"][0]
    assert gpu["runs"]["normal"]["status"] == "ok"
    assert gpu["probes"]["flash_attention"] == {"status": "timeout", "error": "timed out after 120 s"}
    assert gpu["probes"]["fp8"] == {"status": "timeout", "error": "timed out after 120 s"}
    entry = report["children"][2]
    assert (entry["name"], entry["status"], entry["stderr_tail"]) == ("normal", "timeout", "Fatal Python error")


def test_crash_before_any_result(fake):
    modes = h100_modes()
    modes["disable_ptx_jit"] = child(None, status="crashed", error="killed by SIGSEGV")
    fake(child(facts([H100], CU130)), modes)
    gpu = run_check(sys.executable)["gpus"][0]
    assert dict((key, gpu["runs"]["disable_ptx_jit"][key]) for key in ("status", "error", "expected", "note")) == {
        "status": "crashed", "error": "killed by SIGSEGV", "expected": False,
        "note": "unexpected: the child ended with crashed"}
    assert gpu["native_sass_launch"] == {"status": "crashed", "error": "killed by SIGSEGV"}


def test_cuda_init_failure_in_a_child(fake):
    modes = h100_modes()
    modes["force_ptx_jit"] = child({"index": 0, "init": {"status": "failed", "error": "RuntimeError: CUDA error: "
                                                         "out of memory"}, "phases": {}})
    fake(child(facts([H100], CU130)), modes)
    run = run_check(sys.executable)["gpus"][0]["runs"]["force_ptx_jit"]
    assert (run["status"], run["error"]) == ("failed", "CUDA initialisation failed: RuntimeError: CUDA error: "
                                                       "out of memory")


def test_torch_compile_runs_in_its_own_child_with_its_own_timeout(fake):
    children = fake(child(facts([H100], CU130)), h100_modes())
    report = run_check(sys.executable, timeout=60, compile_timeout=900, torch_compile=True, parallel=1)
    assert report["gpus"][0]["probes"]["torch_compile"] == {"status": "ok", "error": None, "seconds": 11.9}
    assert [(kind, timeout) for kind, _args, _env, timeout in children.calls] == [
        ("facts", 60), ("companions", 60), ("normal", 60), ("disable_ptx_jit", 60), ("force_ptx_jit", 60),
        ("compile", 900)]


def test_two_gpus_each_get_three_children(fake):
    second = dict(H100, index=1, uuid="GPU-2")
    children = fake(child(facts([H100, second], CU130)), h100_modes())
    report = run_check(sys.executable)
    assert [gpu["index"] for gpu in report["gpus"]] == [0, 1]
    assert sorted(args[0] for kind, args, _env, _timeout in children.calls if args) == [0, 0, 0, 1, 1, 1]


def test_companion_import_crash(fake):
    fake(child(facts([H100], CU130)), h100_modes(),
         companions_child=child({"torchvision": COMPANIONS["torchvision"]}, status="crashed",
                                error="killed by SIGSEGV"))
    companions = run_check(sys.executable)["companions"]
    assert companions["torchvision"]["import_ok"] is True
    assert companions["torchaudio"]["import_error"] == (
        "the companions child ended (crashed) before importing torchaudio: killed by SIGSEGV")


def test_facts_error():
    assert facts_error("/v/bin/python", child({"torch_missing": True, "torch_import_error": "x"})) == (
        "torch is not installed in /v/bin/python")
    assert facts_error("/v/bin/python", child({"torch_missing": False, "torch_import_error": "OSError: libcudnn.so.9: "
                                               "cannot open shared object file"})) == (
        "torch cannot be imported in /v/bin/python: OSError: libcudnn.so.9: cannot open shared object file")
    assert facts_error("/v/bin/python", child(None, status="timeout", error="timed out after 120 s")) == (
        "could not read torch's build facts with /v/bin/python: the child timeout: timed out after 120 s")
    assert facts_error("/v/bin/python", child(facts([], []))) is None


def test_part_of_a_child_that_reported_nothing():
    assert part_of(child({"index": 0}), "ops") == {"status": "failed", "error": "the child reported no ops result"}


@pytest.mark.parametrize("code,text", [(91900, "9.19.0"), (90100, "9.1.0"), (8907, "8.9.7"),
                                       ((2, 28, 9), "2.28.9"), (21805, "2.18.5"), (2708, "2.7.8"),
                                       (None, None)])
def test_version_string(code, text):
    assert version_string(code) == text


def test_missing_interpreter(tmp_path):
    report = run_check(str(tmp_path / "python"))
    assert report["error"] == "Python interpreter %s does not exist" % (tmp_path / "python")
    assert report["children"] == []


def test_real_child_without_torch():
    report = run_check(sys.executable)  # the test runner's Python has no torch
    assert report["error"] == "torch is not installed in %s" % sys.executable
    assert report["build"] is None and report["gpus"] == []


def test_real_facts_child_timeout(monkeypatch):
    monkeypatch.setattr(cuda_check_run, "facts_source", lambda: "import time\ntime.sleep(30)\n")
    report = run_check(sys.executable, timeout=1)
    assert report["error"] == ("could not read torch's build facts with %s: the child timeout: "
                               "timed out after 1 s" % sys.executable)
    assert report["seconds"] < 20


def emitting(payload, then=""):
    """Child source that emits `payload`, then runs `then`."""
    return emit_result_source() + "import json\nemit(json.loads(%r))\n%s" % (json.dumps(payload), then)


def test_real_gpu_child_crash_keeps_what_it_emitted(monkeypatch):
    monkeypatch.setattr(cuda_check_run, "facts_source", lambda: emitting(facts([H100], CU130)))
    monkeypatch.setattr(cuda_check_run, "companions_source", lambda: emitting(COMPANIONS))
    monkeypatch.setattr(cuda_check_run, "gpu_source", lambda parts: emitting(
        gpu_payload(ops=OPS_OK), "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"))
    report = run_check(sys.executable)
    gpu = report["gpus"][0]
    assert gpu["runs"]["normal"]["status"] == "ok"
    assert gpu["native_sass_launch"] == {"status": "crashed", "error": "killed by SIGSEGV"}
    assert gpu["probes"]["triton"] == {"status": "crashed", "error": "killed by SIGSEGV"}
    assert [entry["status"] for entry in report["children"]] == ["ok", "ok", "crashed", "crashed", "crashed"]


@needs_torch
def test_real_cpu_torch_reports_cuda_unusable():
    report = run_check(TORCH_PYTHON)
    assert report["error"] is None and report["gpus"] == []
    version = report["build"]["torch_version"]
    assert report["cuda"] == {"available": False, "reason": "torch %s was built without CUDA" % version}
    assert report["build"]["cuda_runtime"] is None and report["build"]["device_count"] == 0
    assert [entry["status"] for entry in report["children"]] == ["ok", "ok"]


def test_gpu_children_of_the_guessed_gpus_start_beside_the_facts_child(fake):
    children = fake(child(facts([H100], CU130)), h100_modes())
    report = run_check(sys.executable, gpu_indices=[0], gpu_lock="/run/lock/gpu.lock", timeout=60)
    # submitted in this order: the GPU children before the companions, without waiting for the facts
    assert [(entry["name"], entry["gpu"]) for entry in report["children"]] == [
        ("facts", None), ("normal", 0), ("disable_ptx_jit", 0), ("force_ptx_jit", 0), ("companions", None)]
    assert dict((kind, args) for kind, args, _env, _timeout in children.calls)["normal"] == (
        0, "ops,probes", "/run/lock/gpu.lock", "15")
    assert report["gpus"][0]["runs"]["normal"]["status"] == "ok"


def test_children_of_a_wrongly_guessed_gpu_are_left_out_of_the_report(fake):
    children = fake(child(facts([H100], CU130)), h100_modes())
    report = run_check(sys.executable, gpu_indices=[0, 1])
    assert len([call for call in children.calls if call[1] and call[1][0] == 1]) == 3
    assert [(entry["name"], entry["gpu"]) for entry in report["children"]] == [
        ("facts", None), ("normal", 0), ("disable_ptx_jit", 0), ("force_ptx_jit", 0), ("companions", None)]
    assert [gpu["index"] for gpu in report["gpus"]] == [0]


@pytest.mark.parametrize("environ, gpus, expected", [
    ({"CUDA_VISIBLE_DEVICES": "0,1"}, 4, [0, 1]),
    ({"CUDA_VISIBLE_DEVICES": ""}, 4, []),
    ({"CUDA_VISIBLE_DEVICES": "GPU-0e2d"}, 4, [0]),
    ({}, 2, [0, 1]),
    ({}, 0, []),
])
def test_guess_gpu_indices(tmp_path, environ, gpus, expected):
    for number in range(gpus):
        (tmp_path / "proc/driver/nvidia/gpus" / ("0000:%02x:00.0" % number)).mkdir(parents=True)
    assert cuda_check_run.guess_gpu_indices(environ, str(tmp_path)) == expected
