# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""docs/runbook.md quotes what the collection really prints, so it cannot drift from the code.

Each message is made here by the function that makes it in a play, from real-looking inputs (an
RTX 5090's figures and telemetry, torch 2.7.1+cu126's arch list, driver 575.57.08, a real server
on 127.0.0.1 for the index messages), and must appear in the runbook word for word. The texts a
role task writes around them (the verify role's verdict, the pytorch role's gate, the reboot stop)
are checked against the task files, with the runbook's example values put in.
"""
from __future__ import annotations

import http.server
import os
import re
import socket
import threading
from functools import partial

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import gates
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.cuda_compat import driver_supports
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.policy import (
    choose_flavor, driver_action, load_state, parse_package_lines)
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.toolkit_plan import toolkit_plan
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check import policy
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.kernel_images import kernel_image_verdict
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import role_messages
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.resolve import resolve_stack
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.classify import read_metadata
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.fetch import Fetcher, IndexUnreachable
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
RUNBOOK = os.path.join(ROOT, "docs", "runbook.md")
HOST = "ws-5090-02"
RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
# torch 2.7.1+cu126's torch.cuda.get_arch_list() (docs/domain.md section 4)
CU126_ARCH_LIST = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
MIRROR = "http://mirror.lab:8080/pypi/simple/"
FORBID = ["hw_thermal_slowdown", "hw_slowdown", "hw_power_brake_slowdown"]


def _runbook():
    with open(RUNBOOK) as handle:
        return " ".join(handle.read().split())  # a quote may wrap across lines


def _telemetry(reasons, sm_min, sm_median, sm_max):
    return {"samples": 24, "reasons": reasons, "reasons_mask": 0,
            "sm_clock_mhz": {"min": sm_min, "median": sm_median, "max": sm_max},
            "power_w": {"min": 512.0, "median": 574.6, "max": 577.1}, "temperature_c": {"min": 71, "median": 86, "max": 90}}


def _benchmark(figures):
    return {"devices": [{"index": 0, "name": RTX5090["name"], "figures": dict((f["test"], f) for f in figures)}]}


def slow_message():
    fig = {"test": "gemm_bf16", "unit": "TFLOP/s", "status": "ok", "value": 80.1, "peak": 209.5, "peak_source": "table",
           "fraction_of_peak": 0.3823, "telemetry": _telemetry(["sw_power_cap"], 1702, 2287, 2407)}
    failures = gates.evaluate({"gemm_bf16": {"min_fraction_of_peak": 0.5}}, _benchmark([fig]), HOST)
    return gates.failure_message(failures, HOST)


def throttled_message():
    fig = {"test": "sustained", "unit": "TFLOP/s", "status": "ok", "value": 61.2, "peak": 209.5, "peak_source": "table",
           "fraction_of_peak": 0.2921, "sustained": {"first_rate": 118.4, "last_rate": 61.2, "ratio": 0.517},
           "telemetry": _telemetry(["sw_power_cap", "hw_thermal_slowdown"], 1080, 1410.0, 2407)}
    wanted = {"sustained": {"min_fraction_of_peak": 0.4, "min_sustained_ratio": 0.6, "forbid_clock_reasons": FORBID}}
    return gates.failure_message(gates.evaluate(wanted, _benchmark([fig]), HOST), HOST)


def _check_report(torch_version, arch_list):
    run = {"status": "ok", "env": None, "error": None}
    return {
        "python": "/opt/pytorch/venvs/torch-2.7.1-cu126/bin/python", "cuda": {"available": True, "reason": None},
        "build": {"torch_version": torch_version, "sass": arch_list, "ptx": [], "cuda_runtime": "12.6",
                  "nccl": {"available": True}},
        "companions": {"torchvision": {}, "torchaudio": {}},
        "gpus": [dict(RTX5090, kernel_image=kernel_image_verdict(arch_list, RTX5090["compute_capability"]),
                      runs={"normal": run, "disable_ptx_jit": run, "force_ptx_jit": run})],
    }


def no_kernel_messages():
    """(the check's message, the pytorch role's gate failure, the plan's refusal before installing)."""
    report = _check_report("2.7.1+cu126", CU126_ARCH_LIST)
    check = " | ".join(policy.unmet(report, min_verdict="native"))
    gate = role_messages.gate_failure({"msg": check, "gpus": report["gpus"]}, {"method": "wheel"}, None,
                                      "/opt/pytorch/venvs/torch-2.7.1-cu126", "/opt/pytorch/current")
    plan = refusal(resolve_stack, version="2.7.1", channel="cu126", gpus=[RTX5090], driver_cuda="13.0")
    return check, gate, plan


def driver_mismatch_messages():
    """(the toolkit's refusal, the wheel channel's refusal): driver 575.57.08 runs CUDA 12.9 at most."""
    toolkit = driver_supports("13.0", "575.57.08")[1]
    plan = toolkit_plan(["13.0"], driver="575.57.08", gpus=[RTX5090])
    wheel = refusal(resolve_stack, version="2.9.1", channel="cu130", gpus=[RTX5090], driver_cuda="12.9")
    return toolkit, plan, wheel


def minor_compat_message():
    return driver_supports("12.9", "570.195.03")[1]


def no_gpu_message():
    report = _check_report("2.9.1+cu128", ["sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"])
    report.update(gpus=[], cuda={"available": False, "reason": "torch.cuda.is_available() is False"},
                  python="/opt/pytorch/venvs/torch-2.9.1-cu128/bin/python")
    report["build"]["cuda_runtime"] = "12.8"
    return " | ".join(policy.unmet(report, min_verdict="native"))


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        return None


class _Server(object):
    """python3 -m http.server's handler on 127.0.0.1 (it answers a range request with the whole file)."""

    def __init__(self, directory):
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(directory)))
        self.base = "http://127.0.0.1:%d/pypi/simple/" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def index_messages(tmp_path):
    """(a server without byte ranges, nothing listening), both as the runbook shows them (the mirror's URL)."""
    wheel = "torchvision-0.24.1%2Bcu128-py3-none-any.whl"
    (tmp_path / "pypi" / "simple" / "torchvision").mkdir(parents=True)
    (tmp_path / "pypi" / "simple" / "torchvision" / "torchvision-0.24.1+cu128-py3-none-any.whl").write_bytes(b"PK" * 64)
    server = _Server(tmp_path)
    try:
        with pytest.raises(IndexUnreachable) as ranged:  # the plan reads a companion's METADATA
            read_metadata({"url": server.base + "torchvision/" + wheel, "local_path": None, "metadata_url": None},
                          Fetcher(server.base))
    finally:
        server.close()
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = "http://127.0.0.1:%d/pypi/simple/" % probe.getsockname()[1]
    with pytest.raises(IndexUnreachable) as refused:
        Fetcher(closed).get(closed + "torch/", {})
    return (str(ranged.value).replace(server.base, MIRROR),
            re.sub(r"\[Errno \d+\]", "[Errno 111]", str(refused.value).replace(closed, MIRROR)))


def health_messages():
    """The sick section's messages, made by the health gates from an RTX 5090 and an H100 reading."""
    import fake_nvml_health as fh
    from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_health import nvml_health, parse_xids
    from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import health_gates

    def reading(gpu, lines=()):
        result = nvml_health(fh.HealthNVML([gpu]))
        result["kernel_log"] = {"source": "journal", "complete": True, "error": None, "xids": parse_xids(lines)}
        return result

    rtx = dict(fh.RTX_5090_IDLE, minor=0)
    telemetry = {"devices": [{"uuid": rtx["uuid"], "figures": {"h2d": {"telemetry": {"pcie_gen": {"max": 3}}}}}]}
    sick = health_gates.evaluate(reading(rtx, ["NVRM: Xid (PCI:0000:01:00): 79, pid=1452, name=python3, GPU has "
                                               "fallen off the bus."]), host=HOST, benchmark=telemetry)
    joined = health_gates.with_health({"passed": True, "message": "all gates passed", "summary": []}, sick)
    h100 = health_gates.evaluate(reading(dict(fh.H100_HEALTHY, remap=(0, 1, 1, 0), ecc_errors={0: 1, 1: 1})),
                                 host="ws-h100-01")
    return [joined["message"]] + h100["failures"]


def refusal(function, *args, **kwargs):
    """The message of the PlanError `function` raises (it must raise one)."""
    with pytest.raises(PlanError) as refused:
        function(*args, **kwargs)
    return str(refused.value)


def test_runbook_quotes_the_health_gate_failures():
    messages = health_messages()
    assert messages[0].startswith("2 health gate(s) failed: ws-5090-02: GPU 0 (NVIDIA GeForce RTX 5090")
    assert len(messages) == 3
    for message in messages:
        assert message in _runbook()


def test_runbook_quotes_the_slow_gate_failure():
    message = slow_message()
    assert message.startswith("1 benchmark gate(s) failed on ws-5090-02: gemm_bf16 on GPU 0")
    assert message in _runbook()


def test_runbook_quotes_the_throttled_gate_failure():
    message = throttled_message()
    assert "clock-event reason(s) hw_thermal_slowdown seen" in message
    assert message in _runbook()


def test_runbook_quotes_the_no_kernel_image_messages():
    check, gate, plan = no_kernel_messages()
    assert "found none" in check and plan.startswith("channel cu126 has no kernels for GPU 0")
    for message in (check, gate, plan):
        assert message in _runbook()


def test_runbook_quotes_the_driver_mismatch_messages():
    toolkit, plan, wheel = driver_mismatch_messages()
    assert plan["problems"] == [toolkit]
    for message in (toolkit, wheel):
        assert message in _runbook()


def test_runbook_quotes_the_minor_version_compatibility_refusal():
    assert "cuda_toolkit_minor_version_compat: true" in minor_compat_message()
    assert minor_compat_message() in _runbook()


def test_runbook_quotes_the_cuda_not_usable_and_reboot_reasons():
    nouveau = load_state(1, True, {}, "580.95.05")["reason"]
    upgraded = load_state(1, False, {"loaded": True, "version": "575.57.08"}, "580.95.05")["reason"]
    assert load_state(1, True, {}, "580.95.05")["reboot_required"]
    for message in (no_gpu_message(), "ws-5090-02 needs a reboot: %s. nvidia_driver_reboot_ok is false" % nouveau,
                    upgraded):
        assert message in _runbook()


def test_runbook_quotes_the_other_refusals():
    untargetable = toolkit_plan(["12.6"], driver="580.95.05", gpus=[RTX5090])["problems"][0]
    flavor = choose_flavor("proprietary", [RTX5090])["msg"]
    packages = parse_package_lines("nvidia-open\t580.95.05-1\thi \nnvidia-driver-pinning-580\t580.95.05-1\tii \n")
    branch = driver_action("auto", "590", "open", packages=packages)["msg"]
    runbook = _runbook()
    assert untargetable in runbook
    assert flavor.split(" (with", maxsplit=1)[0] in runbook
    assert branch.split(": set nvidia_driver_upgrade", maxsplit=1)[0] in runbook


def test_runbook_quotes_the_index_messages(tmp_path):
    ranged, refused = index_messages(tmp_path)
    assert "answered a range request with HTTP 200" in ranged and "Connection refused" in refused
    for message in (ranged, refused):
        assert message in _runbook()


@pytest.mark.parametrize("task_file, template, example", [
    ("roles/verify/tasks/verdict.yml",
     "{{ inventory_hostname }}: verification failed ({{ _verify_results }}): {{ blackwell_verify.message }}",
     "ws-5090-02: verification failed (/var/lib/blackwell-pytorch/verify.json): 1 benchmark gate(s) failed"),
    ("plugins/module_utils/driver/repo_trust.py", '"The repository key from %s is not trusted on %s: %s. Nothing was written.',
     "is not trusted on ws-5090-02: key(s) not in the pinned list"),
    ("plugins/module_utils/driver/openpgp.py", "key(s) not in the pinned list %s: %s", "key(s) not in the pinned list"),
    ("plugins/module_utils/driver/refusals.py",
     '"Secure Boot is enabled on %s and no MOK key is configured: the kernel would refuse the "',
     "Secure Boot is enabled on ws-5090-02 and no MOK key is configured"),
    ("roles/nvidia_driver/tasks/verify.yml",
     "{{ inventory_hostname }} needs a reboot: {{ __nvidia_driver_reboot_reason }}. nvidia_driver_reboot_ok is "
     "false, so the role did not reboot (nvidia_driver_reboot_required is set). Reboot the host (or set "
     "nvidia_driver_reboot_ok: true), then run the play again to verify the driver.",
     "ws-5090-02 needs a reboot: "),
])
def test_runbook_quotes_the_role_wrappers(task_file, template, example):
    with open(os.path.join(ROOT, task_file)) as handle:
        assert template in " ".join(handle.read().split()), task_file
    assert example in _runbook()
