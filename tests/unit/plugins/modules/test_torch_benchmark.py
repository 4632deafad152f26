from __future__ import annotations

import grp
import importlib.util
import json
import os
import pwd
import socket
import stat
import sys
import time

import pytest

import fake_pynvml as fake
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import run as bench_run
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.results import schema_errors
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import MIB, spec_of
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.nvml_gpus import nvml_snapshot
from ansible_collections.blackwell.pytorch.plugins.modules import torch_benchmark

HOST = socket.gethostname()
TORCH = {"version": "2.11.0+cu130", "cuda": "13.0", "cudnn": 91900, "python": "3.12.3"}
# What the canned children measure, per unit.
RATES = {"TFLOP/s": 700.0, "GB/s": 2900.0, "tokens/s": 1.5e6, "images/s": 1.1e4}
SCALE = {"TFLOP/s": 1e12, "GB/s": 1e9, "tokens/s": 1.0, "images/s": 1.0}
CHECK = {"ok": True, "rel_error": 1.6e-3, "bound": 1e-2}


def card(model, index, uuid=None, sm_count=132):
    """(torch's view, NVML's view) of a GPU, from the fake NVML's real values."""
    model = dict(model, uuid=uuid or model["uuid"])
    (nvml,) = nvml_snapshot(fake.FakeNVML([model]))["gpus"]
    torch = {"index": index, "name": nvml["name"], "capability": list(model["cc"]), "sm_count": sm_count,
             "l2_bytes": 50 * MIB, "memory_total_mib": nvml["memory_total_mib"], "uuid": nvml["uuid"]}
    return torch, nvml


def ok(result, seconds=1.0):
    return {"status": "ok", "returncode": 0, "seconds": seconds, "result": result, "stdout_tail": "",
            "stderr_tail": "", "error": None}


class Children:
    """Stands in for run_child: canned probe, device and multi-GPU results, calls recorded."""

    def __init__(self, cards=None, nvml=True, cuda_error=None, wrong=(), device_status=None, reported=None):
        self.cards = [card(fake.H100, 0)] if cards is None else cards
        self.nvml, self.cuda_error, self.wrong = nvml, cuda_error, wrong
        self.device_status, self.reported = device_status, reported
        self.calls, self.canceled = [], 0

    def __call__(self, python, source, args=(), env=None, timeout=60.0, cwd=None):
        return self.answer(python, json.loads(args[0]), env, timeout)

    def answer(self, python, plan, env, timeout, early=False):
        """The canned result of a child given `plan` (early: the staged child's second stage, its plan from stdin)."""
        self.calls.append({"plan": plan, "env": env, "timeout": timeout, "python": python, "early": early})
        return getattr(self, plan["mode"])(plan)

    def staged(self, python, source, args=(), env=None):
        """Stands in for common.staged_child.StagedChild: the probe (args[0]), then the plan finish() gives."""
        return StagedFake(self, python, args, env)

    def install(self, monkeypatch):
        """This fake in place of every child run.py starts."""
        monkeypatch.setattr(bench_run, "run_child", self)
        monkeypatch.setattr(bench_run, "StagedChild", self.staged)
        return self

    def probe(self, plan):
        available = self.cuda_error is None
        return ok({"torch": TORCH, "cpu": {"name": "x86_64", "threads": 16}, "cuda_available": available,
                   "cuda_error": self.cuda_error,
                   "devices": [torch for torch, dummy in self.cards] if available else [],
                   "nvml": [nvml for dummy, nvml in self.cards] if self.nvml else None,
                   "nvml_error": None if self.nvml else "nvidia-ml-py is not installed for /opt/torch/bin/python"})

    def raw(self, test):
        spec = spec_of(test["name"])
        if test["name"] == "compile_speedup":
            return {"times_s": [1e-3] * 10, "eager_times_s": [1.2e-3] * 10, "compile_s": 20.0, "check": CHECK}
        seconds = spec["work"](test["size"], 1) / (RATES[spec["unit"]] * SCALE[spec["unit"]])
        check = dict(CHECK, ok=False, rel_error=0.97) if test["name"] in self.wrong else CHECK
        return {"times_s": [seconds] * 10, "inner": 1, "sets": 1, "check": check}

    def device(self, plan):
        tests = [test for test in plan["tests"] if self.reported is None or test["name"] in self.reported]
        result = ok({"tests": dict((test["name"], self.raw(test)) for test in tests)})
        if self.device_status:
            result.update(status=self.device_status, error="timed out after %s s" % plan["settings"]["timeout"])
        return result

    def multi(self, plan):
        results = {}
        for test in plan["tests"]:
            if test["op"] == "allreduce":
                results["allreduce"] = {"world": len(plan["gpus"]), "backend": "nccl", "inner": 1, "sets": 1,
                                        "per_rank_times_s": [[2e-3] * 10 for dummy in plan["gpus"]],
                                        "check": {"ok": True, "detail": "SUM"}}
            else:
                pair = {"times_s": [1e-2] * 10, "check": {"ok": True, "detail": "equal"}, "peer_access": True}
                results["p2p"] = {"pairs": {"0->1": pair, "1->0": pair}}
        return ok({"tests": results})


class StagedFake(object):
    """The first device child of a fake run: its first stage is the probe, finish() hands it its device plan."""

    def __init__(self, children, python, args, env):
        assert args[1:] == ["-"], args
        self.children, self.python, self.args, self.env = children, python, args, env

    def first(self, timeout):
        return self.children(self.python, "", self.args[:1], env=self.env, timeout=timeout)

    def finish(self, text, timeout):
        return self.children.answer(self.python, json.loads(text), self.env, timeout, early=True)

    def cancel(self):
        self.children.canceled += 1


@pytest.fixture
def children(monkeypatch):
    def install(**kwargs):
        return Children(**kwargs).install(monkeypatch)
    return install


def test_h100_quick_profile_reports_every_figure_against_its_peak(children, run_module):
    fake_children = children()
    status, result = run_module(torch_benchmark, {"python": sys.executable})
    assert status == "exit" and result["changed"] is False and result["failed_gates"] == []
    assert result["warnings"] == [] and result["dest"] is None
    # the probe's child measured the device: its plan came through stdin
    assert [(call["plan"]["mode"], call["early"]) for call in fake_children.calls] == [
        ("probe", False), ("device", True)]
    assert fake_children.calls[1]["plan"]["gpu_lock"].endswith("/blackwell-pytorch-gpu.lock")
    assert fake_children.calls[1]["plan"]["gpu_lock_wait_s"] == 30.0
    doc = result["benchmark"]
    assert schema_errors(doc) == []
    (gpu,) = doc["devices"]
    assert (gpu["name"], gpu["sm"], gpu["product_line"], gpu["nvml"]["max_sm_clock_mhz"]) == (
        "NVIDIA H100 80GB HBM3", "sm_90", "datacenter", 1980)
    bf16 = gpu["figures"]["gemm_bf16"]
    assert (bf16["status"], bf16["value"], bf16["peak"], bf16["peak_source"], bf16["fraction_of_peak"]) == (
        "ok", 700.0, 989.0, "table", 0.7078)
    tf32 = gpu["figures"]["gemm_tf32"]
    assert (tf32["peak"], tf32["peak_source"]) == (535.27, "derived")
    assert gpu["figures"]["memcpy"]["fraction_of_peak"] == round(2900 / 3350.0, 4)
    assert gpu["figures"]["gemm_fp8"]["status"] == "ok"
    assert doc["multi_gpu"]["status"] == "skipped"
    assert doc["multi_gpu"]["figures"]["allreduce"]["error"] == "needs 2 or more GPUs"
    probe, device = fake_children.calls
    assert [test["name"] for test in device["plan"]["tests"]] == doc["tests"][:14]
    assert (device["plan"]["device"], device["timeout"], device["plan"]["settings"]["reps"]) == ("cuda:0", 120, 10)
    assert device["env"]["NCCL_NVLS_ENABLE"] == "0" and device["env"]["TORCH_SYMM_MEM_DISABLE_MULTICAST"] == "1"
    assert device["env"]["TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"] is None


def test_dest_is_written_0644_and_not_in_check_mode(children, run_module, tmp_path):
    children()
    dest = tmp_path / "bench.json"
    status, result = run_module(torch_benchmark, {"python": sys.executable, "dest": str(dest),
                                                  "_ansible_check_mode": True})
    assert status == "exit" and result["dest"] is None and not dest.exists()
    assert result["benchmark"]["devices"][0]["figures"]["gemm_bf16"]["value"] == 700.0
    assert result["changed"] is True and "diff" not in result
    status, result = run_module(torch_benchmark, {"python": sys.executable, "dest": str(dest)})
    assert status == "exit" and result["dest"] == str(dest) and result["changed"] is True
    assert stat.S_IMODE(dest.stat().st_mode) == 0o644
    assert json.loads(dest.read_text())["devices"][0]["figures"]["memcpy"]["value"] == 2900.0
    assert not [name for name in os.listdir(str(tmp_path)) if name != "bench.json"]  # no temporary left


def test_dest_mode_owner_group_and_diff(children, run_module, tmp_path):
    children()
    dest = tmp_path / "bench.json"
    dest.write_text("{}\n")
    dest.chmod(0o600)
    me = pwd.getpwuid(os.getuid()).pw_name
    group = grp.getgrgid(os.getgid()).gr_name
    status, result = run_module(torch_benchmark, {"python": sys.executable, "dest": str(dest), "mode": "0640",
                                                  "owner": me, "group": group, "_ansible_diff": True})
    assert status == "exit" and result["changed"] is True
    assert stat.S_IMODE(dest.stat().st_mode) == 0o640
    assert result["diff"]["before"] == "{}\n" and json.loads(result["diff"]["after"])["schema"].endswith("/1")
    assert result["diff"]["after"] == dest.read_text()


def test_dest_written_through_atomic_move(children, run_module, tmp_path, monkeypatch):
    from ansible.module_utils import basic
    moves = []
    real = basic.AnsibleModule.atomic_move

    def atomic_move(self, src, dest, *args, **kwargs):
        moves.append((os.path.dirname(src), dest))
        return real(self, src, dest, *args, **kwargs)

    monkeypatch.setattr(basic.AnsibleModule, "atomic_move", atomic_move)
    children()
    dest = tmp_path / "bench.json"
    status, result = run_module(torch_benchmark, {"python": sys.executable, "dest": str(dest)})
    assert status == "exit" and moves == [(str(tmp_path), str(dest))]


def test_failed_gates_fail_the_task_naming_host_gpu_value_bound_and_peak(children, run_module, tmp_path):
    children()
    dest = tmp_path / "bench.json"
    gates = {"gemm_bf16": {"min_fraction_of_peak": 0.75}, "memcpy": {"min_gbps": 2500}}
    status, result = run_module(torch_benchmark, {"python": sys.executable, "gates": gates, "dest": str(dest)})
    assert status == "fail"
    assert result["msg"] == (
        "1 benchmark gate(s) failed on %s: gemm_bf16 on GPU 0 (NVIDIA H100 80GB HBM3): min_fraction_of_peak 0.75: "
        "measured 0.7078 < bound 0.75, 700.0 TFLOP/s, peak 989.0 TFLOP/s (table)" % HOST)
    (failure,) = result["failed_gates"]
    assert (failure["host"], failure["gpu_index"], failure["measured"], failure["bound"], failure["peak"]) == (
        HOST, 0, 0.7078, 0.75, 989.0)
    assert result["benchmark"]["gates"]["failures"] == result["failed_gates"]
    assert json.loads(dest.read_text())["gates"]["failures"][0]["test"] == "gemm_bf16"  # results kept on disk


@pytest.mark.parametrize("args, message", [
    ({"tests": ["gemm_bf16", "gemm_bf17"]}, "unknown test(s): gemm_bf17; known tests: gemm_fp16, gemm_bf16"),
    ({"profile": "fast"}, "value of profile must be one of: quick, standard, full, got: fast"),
    ({"sizes": {"gemm_bf16": {"m": 0}}}, "size gemm_bf16.m must be a positive integer, got 0"),
    ({"sizes": {"memcpy": {"mib": -1024}}}, "size memcpy.mib must be a positive integer, got -1024"),
    ({"tests": ["memcpy"], "gates": {"gemm_bf16": {"min_tflops": 500}}},
     "gate on gemm_bf16, a test that does not run: not in tests"),
    ({"profile": "quick", "gates": {"resnet50": {"min_images_per_s": 1000}}},
     "gate on resnet50, a test that does not run: not in profile quick"),
    ({"device": "cpu", "gates": {"h2d": {"min_gbps": 10}}}, "gate on h2d, a test that does not run: needs device cuda"),
    ({"gates": {"gemm_bf16": {"min_tflops_per_watt": 1}}}, "unknown gate 'min_tflops_per_watt' for gemm_bf16"),
    ({"gates": {"matmul": {"min_tflops": 1}}}, "gates name an unknown test 'matmul'"),
    ({"reps": 5}, "reps must be at least 10 (the median of >= 10 repetitions), got 5"),
    ({"device": "cpu", "gpus": [0]}, "gpus applies to device cuda only"),
])
def test_bad_input_is_refused_before_any_child_runs(children, run_module, args, message):
    fake_children = children()
    status, result = run_module(torch_benchmark, dict(args, python=sys.executable))
    assert status == "fail" and message in result["msg"]
    assert fake_children.calls == []


def test_missing_interpreter(children, run_module):
    status, result = run_module(torch_benchmark, {"python": "/nonexistent/venv/bin/python"})
    assert (status, result["msg"]) == ("fail", "Python interpreter /nonexistent/venv/bin/python does not exist")


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="the test interpreter has torch")
def test_torch_not_installed(run_module):
    status, result = run_module(torch_benchmark, {"python": sys.executable})
    assert (status, result["msg"]) == ("fail", "torch is not installed in %s" % sys.executable)


def test_device_cuda_without_a_gpu(children, run_module):
    fake_children = children(cuda_error="Found no NVIDIA driver on your system.")
    status, result = run_module(torch_benchmark, {"python": sys.executable})
    assert status == "fail"
    assert result["msg"] == ("device cuda: torch 2.11.0+cu130 in %s sees no CUDA GPU (Found no NVIDIA driver on "
                             "your system.); use device cpu to run the benchmark without one" % sys.executable)
    assert len(fake_children.calls) == 1


def test_unknown_gpu_index(children, run_module):
    children()
    status, result = run_module(torch_benchmark, {"python": sys.executable, "gpus": [0, 3]})
    assert (status, result["msg"]) == ("fail", "gpus [3] not found: torch sees GPU(s) [0]")


def test_gate_on_a_test_the_gpu_cannot_run_is_refused_after_the_probe(children, run_module):
    ampere = dict(fake.H100, name="NVIDIA RTX A6000", cc=(8, 6))
    fake_children = children(cards=[card(ampere, 0, sm_count=84)])
    status, result = run_module(torch_benchmark, {"python": sys.executable,
                                                  "gates": {"gemm_fp8": {"min_tflops": 100}}})
    assert status == "fail"
    assert result["msg"] == "gate on gemm_fp8, a test that does not run: needs compute capability >= 8.9 on GPU(s) 0"
    assert [call["plan"]["mode"] for call in fake_children.calls] == ["probe"]
    assert fake_children.canceled == 1  # the probe's child measured nothing: killed unheard


def test_a_child_timeout_keeps_earlier_figures_and_fails_gates_on_the_rest(children, run_module):
    children(device_status="timeout", reported=["gemm_fp16", "gemm_bf16"])
    status, result = run_module(torch_benchmark, {"python": sys.executable})
    assert status == "exit"
    figures = result["benchmark"]["devices"][0]["figures"]
    assert figures["gemm_bf16"]["value"] == 700.0
    assert figures["memcpy"]["status"] == "not_run"
    assert ("cuda:0 (NVIDIA H100 80GB HBM3): benchmark child timeout: timed out after 120 s"
            in result["warnings"])
    status, result = run_module(torch_benchmark, {"python": sys.executable, "gates": {"memcpy": {"min_gbps": 1}}})
    assert status == "fail"
    assert result["failed_gates"][0]["reason"] == (
        "no figure: not_run (the benchmark child timeout before this test: timed out after 120 s)")


def test_a_wrong_result_is_reported_without_a_value(children, run_module):
    children(wrong=["gemm_bf16"])
    status, result = run_module(torch_benchmark, {"python": sys.executable})
    fig = result["benchmark"]["devices"][0]["figures"]["gemm_bf16"]
    assert (status, fig["status"], fig["value"]) == ("exit", "wrong_result", None)
    assert any(line.startswith("cuda:0 (NVIDIA H100 80GB HBM3): gemm_bf16 wrong_result: result check failed "
                               "(relative error 0.97 > bound 0.01 against float64)") for line in result["warnings"])


def test_two_gpus_get_p2p_and_allreduce_and_every_pair_is_gated(children, run_module):
    second = card(fake.H100, 1, uuid="GPU-11111111-2222-3333-4444-555555555555")
    fake_children = children(cards=[card(fake.H100, 0), second])
    status, result = run_module(torch_benchmark, {"python": sys.executable, "gates": {"p2p": {"min_gbps": 100}}})
    assert status == "fail"
    assert [(f["gpu_index"], f["measured"]) for f in result["failed_gates"]] == [("0->1", 26.8435), ("1->0", 26.8435)]
    multi = result["benchmark"]["multi_gpu"]
    assert (multi["gpus"], multi["status"]) == ([0, 1], "ok")
    assert multi["figures"]["allreduce"]["value"] == 134.218  # 256 MiB / 2 ms, bus factor 1 for 2 ranks
    assert [call["plan"]["mode"] for call in fake_children.calls] == ["probe", "device", "device", "multi"]
    multi_call = fake_children.calls[-1]
    assert multi_call["env"]["NCCL_NVLS_ENABLE"] == "0" and multi_call["plan"]["collective_timeout_s"] == 60.0


def test_each_gpu_is_judged_by_its_own_gates_and_carries_its_own_verdict(children, run_module):
    second = card(fake.H100, 1, uuid="GPU-11111111-2222-3333-4444-555555555555")
    children(cards=[card(fake.H100, 0), second])
    gpu_gates = [{"index": 1, "gates": {"gemm_bf16": {"min_fraction_of_peak": 0.75}}}]
    status, result = run_module(torch_benchmark, {"python": sys.executable, "tests": ["gemm_bf16"],
                                                  "gates": {"gemm_bf16": {"min_tflops": 100}}, "gpu_gates": gpu_gates})
    assert status == "fail"
    assert [(f["gpu_index"], f["gate"], f["bound"]) for f in result["failed_gates"]] == [
        (1, "min_fraction_of_peak", 0.75)]
    devices = result["benchmark"]["devices"]
    assert [(device["index"], device["passed"], device["gates"]) for device in devices] == [
        (0, True, {"gemm_bf16": {"min_tflops": 100}}), (1, False, {"gemm_bf16": {"min_fraction_of_peak": 0.75}})]
    assert result["benchmark"]["gates"]["gpu_bounds"] == gpu_gates


def test_bad_gpu_gates_are_refused_before_any_child_runs(children, run_module):
    fake_children = children()
    status, result = run_module(torch_benchmark, {"python": sys.executable, "gpu_gates": [{"index": 0}]})
    assert status == "fail" and fake_children.calls == []
    assert result["msg"] == "gpu_gates[0].gates must be a dict: test name -> {bound name: number}, got None"


def test_selected_gpu_only(children, run_module):
    fake_children = children(cards=[card(fake.H100, 0), card(fake.H100, 1, uuid="GPU-1")])
    status, result = run_module(torch_benchmark, {"python": sys.executable, "gpus": [1], "tests": ["memcpy", "p2p"]})
    assert status == "exit"
    assert [device["device"] for device in result["benchmark"]["devices"]] == ["cuda:1"]
    assert result["benchmark"]["multi_gpu"]["figures"]["p2p"][0]["error"] == "needs 2 or more GPUs"
    assert [call["plan"]["mode"] for call in fake_children.calls] == ["probe", "device"]


def test_without_nvml_only_table_peaks_remain(children, run_module):
    children(nvml=False)
    status, result = run_module(torch_benchmark, {"python": sys.executable, "tests": ["gemm_bf16", "gemm_tf32"]})
    figures = result["benchmark"]["devices"][0]["figures"]
    assert (figures["gemm_bf16"]["peak_source"], figures["gemm_tf32"]["peak"]) == ("table", None)
    assert figures["gemm_tf32"]["peak_note"] == "no max SM clock (NVML) known to derive a tf32 peak"
    assert result["warnings"] == ["NVML not read (nvidia-ml-py is not installed for /opt/torch/bin/python): peaks "
                                  "of GPUs not in the spec table cannot be derived"]


@pytest.mark.skipif(not os.environ.get("BLACKWELL_TEST_TORCH_PYTHON"),
                    reason="needs a torch interpreter; make test sets BLACKWELL_TEST_TORCH_PYTHON")
def test_cpu_mode_runs_the_same_code_with_real_torch(run_module, tmp_path):
    sizes = {"gemm_fp32": {"m": 64, "n": 64, "k": 64}, "gemm_bf16": {"m": 64, "n": 64, "k": 64},
             "softmax": {"rows": 64, "cols": 256}, "allreduce": {"mib": 1}}
    dest = tmp_path / "cpu.json"
    status, result = run_module(torch_benchmark, {
        "python": os.environ["BLACKWELL_TEST_TORCH_PYTHON"], "device": "cpu", "tests": sorted(sizes), "sizes": sizes,
        "gates": {"gemm_fp32": {"min_tflops": 1e-6}, "allreduce": {"min_gbps": 1e-6}}, "dest": str(dest)})
    assert status == "exit", result.get("msg")
    doc = result["benchmark"]
    (cpu,) = doc["devices"]
    assert (cpu["device"], cpu["status"], doc["torch"]["cuda"]) == ("cpu", "ok", None)
    for name in ("gemm_fp32", "gemm_bf16", "softmax"):
        fig = cpu["figures"][name]
        assert fig["status"] == "ok" and fig["value"] > 0 and fig["check"]["ok"], fig
        assert (fig["peak"], fig["peak_source"], fig["peak_note"]) == (None, None, "CPU mode: no peak")
        assert fig["reps"] == 10
    allreduce = doc["multi_gpu"]["figures"]["allreduce"]
    assert (allreduce["status"], allreduce["ranks"], allreduce["backend"]) == ("ok", 2, "gloo")
    assert allreduce["check"]["ok"] and allreduce["value"] > 0
    assert result["failed_gates"] == [] and json.loads(dest.read_text())["device"] == "cpu"


class HangingP2P(Children):
    """Two RTX PRO 6000 whose multi-GPU child hangs in P2P until NCCL_P2P_DISABLE=1."""

    def answer(self, python, plan, env, timeout, early=False):
        if plan["mode"] == "multi" and (env or {}).get("NCCL_P2P_DISABLE") != "1":
            self.calls.append({"plan": plan, "env": env, "timeout": timeout, "python": python, "early": early})
            return {"status": "timeout", "error": "timed out after %s s" % timeout, "seconds": timeout,
                    "result": None, "rc": -9, "stderr_tail": ""}
        return super(HangingP2P, self).answer(python, plan, env, timeout, early)


def test_a_multi_gpu_hang_is_reported_and_retried_without_p2p(monkeypatch, run_module):
    pro = dict(fake.H100, name="NVIDIA RTX PRO 6000 Blackwell Workstation Edition", cc=(12, 0))
    fake_children = HangingP2P(cards=[card(pro, 0, "GPU-a", 188), card(pro, 1, "GPU-b", 188)])
    fake_children.install(monkeypatch)
    status, result = run_module(torch_benchmark, {"python": sys.executable, "tests": ["allreduce", "p2p"]})
    assert status == "exit"
    multi = result["benchmark"]["multi_gpu"]
    assert [attempt["status"] for attempt in multi["attempts"]] == ["timeout", "ok"]
    assert multi["attempts"][0]["error"].startswith("hang: no result within 120")
    assert multi["attempts"][1]["env"] == {"NCCL_P2P_DISABLE": "1"}
    assert multi["working_env"] == {"NCCL_P2P_DISABLE": "1"} and multi["status"] == "ok"
    assert multi["figures"]["allreduce"]["status"] == "ok"
    multi_calls = [call for call in fake_children.calls if call["plan"]["mode"] == "multi"]
    assert [call["timeout"] for call in multi_calls] == [120, 120]


def test_a_hang_in_both_modes_fails_the_figures_and_ends(monkeypatch, run_module):
    class AlwaysHangs(HangingP2P):
        def multi(self, plan):
            return {"status": "timeout", "error": "timed out after 120 s", "seconds": 120, "result": None,
                    "rc": -9, "stderr_tail": ""}

    pro = dict(fake.H100, name="NVIDIA RTX PRO 6000 Blackwell Workstation Edition", cc=(12, 0))
    AlwaysHangs(cards=[card(pro, 0, "GPU-a", 188), card(pro, 1, "GPU-b", 188)]).install(monkeypatch)
    status, result = run_module(torch_benchmark, {"python": sys.executable, "tests": ["allreduce"],
                                                  "gates": {"allreduce": {"min_gbps": 10}}})
    assert status == "fail" and "allreduce" in result["msg"]
    multi = result["benchmark"]["multi_gpu"]
    assert [a["status"] for a in multi["attempts"]] == ["timeout", "timeout"] and multi["working_env"] is None
    assert multi["figures"]["allreduce"]["status"] == "not_run"


# An earlier run's benchmark, still running in the background (Ctrl-C stopped its play, not its job): a real
# process holding the run's job lock, as torch_benchmark holds it (common/job_lock.py).
HOLDER = ("import sys, time\n"
          "from ansible_collections.blackwell.pytorch.plugins.module_utils.common import job_lock\n"
          "with job_lock.held(sys.argv[1], 'GPU benchmark (torch_benchmark) of an earlier run', 5):\n"
          "    print('held', flush=True)\n"
          "    time.sleep(float(sys.argv[2]))\n")


def _holder(path, seconds):
    import subprocess  # pylint: disable=import-outside-toplevel
    process = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), str(seconds)], stdout=subprocess.PIPE,
                               text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert process.stdout.readline().strip() == "held"
    return process


def test_a_second_run_meets_the_earlier_runs_benchmark_and_is_refused_naming_its_pid(children, run_module, tmp_path):
    fake_children = children()
    lock = tmp_path / "verify" / ".benchmark.lock"
    lock.parent.mkdir()
    holder = _holder(lock, 60)
    try:
        status, result = run_module(torch_benchmark, {"python": sys.executable, "job_lock": str(lock), "lock_timeout": 1})
    finally:
        holder.kill()
        holder.wait()
    assert status == "fail", result
    head = ("another GPU benchmark (torch_benchmark) of %s is running on this host: process %d (%s -c import sys"
            % (lock.parent, holder.pid, sys.executable))
    tail = (") holds %s, most likely the background job of an earlier run that was interrupted (Ctrl-C stops the play, "
            "not its job). Waited 1 s (torch_benchmark option lock_timeout): let it finish, or stop it (kill %d), then "
            "run the play again. Nothing was changed." % (lock, holder.pid))
    assert result["msg"].startswith(head) and result["msg"].endswith(tail), result["msg"]
    assert fake_children.calls == []  # nothing was measured beside it


def test_a_second_run_waits_for_the_earlier_runs_benchmark_then_measures(children, run_module, tmp_path):
    fake_children = children()
    lock = tmp_path / "results" / ".benchmark.lock"  # its directory is made when missing
    lock.parent.mkdir()
    holder = _holder(lock, 1.5)
    try:
        began = time.monotonic()
        status, result = run_module(torch_benchmark, {"python": sys.executable, "job_lock": str(lock), "lock_timeout": 30})
        waited = time.monotonic() - began
        # the holder released the lock after its 1.5 s (its exit may come a moment later on a loaded machine): this run
        # waited for it, and the fake children measure at once
        assert waited >= 1.0, waited
        assert holder.wait(timeout=30) == 0
    finally:
        holder.kill()
        holder.wait()
    assert status == "exit" and result["failed_gates"] == [], result
    assert [call["plan"]["mode"] for call in fake_children.calls] == ["probe", "device"]


def test_the_job_lock_directory_is_made_when_missing(children, run_module, tmp_path):
    children()
    lock = tmp_path / "new" / "verify" / ".benchmark.lock"
    status, result = run_module(torch_benchmark, {"python": sys.executable, "job_lock": str(lock)})
    assert status == "exit" and lock.is_file() and stat.S_IMODE(lock.parent.stat().st_mode) == 0o755, result
