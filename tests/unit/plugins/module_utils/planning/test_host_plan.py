# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import host_plan, resolve, role_messages
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.catalog import table_catalog
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.plan_call import plan_stack

RTX_5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
NVCC = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.8, V12.8.93\n"
PARAMS = {"python": "/usr/bin/python3", "version": "2.9.1", "channel": "cu128", "torchvision": "", "torchaudio": "",
          "companions": ["torchvision", "torchaudio"], "gpus": [RTX_5090], "driver_cuda": "13.0", "method": "wheel",
          "local_label": True, "cuda_home": "/usr/local/cuda", "wheelhouse": "", "constraints_file": "",
          "hashes_file": "", "host": "ws-1", "build_host": "", "play_hosts": ["ws-1", "ws-2"]}


def planned(params, python="Python 3.12.3\n", stats=(), nvcc=None, hashes_text="", read=None, uv_found=True):
    """check_host, then the plan as the pytorch_plan module makes it (plan_stack: resolve_stack, after_plan), with
    "error": None; a refusal (PlanError) as {"error": its message}, the message the module fails with."""
    try:
        checked = host_plan.check_host(params, python, list(stats), nvcc, uv_found=uv_found)
        return dict(plan_stack(params, checked, read, hashes_text), error=None)
    except PlanError as refused:
        return {"error": str(refused)}


def plan_host(python="Python 3.12.3\n", stats=(), nvcc=None, hashes_text="", **changes):
    return planned(dict(PARAMS, **changes), python, stats, nvcc, hashes_text)


@pytest.mark.parametrize("output,release", [("Python 3.12.3", "3.12"), ("Python 3.10.0rc1", "3.10"),
                                            ("  Python 2.7.18", "2.7"), ("", "0.0"), ("not python", "0.0")])
def test_python_release(output, release):
    assert host_plan.python_release(output) == release


def test_old_python_is_refused_with_the_role_message():
    assert plan_host(python=" Python 3.9.2\n") == {"error": (
        "/usr/bin/python3 is Python 3.9; PyTorch stacks need 3.10 or newer: set pytorch_python to a newer "
        "interpreter.")}
    assert plan_host(python="")["error"].startswith("/usr/bin/python3 is Python 0.0;")
    assert host_plan.python_refusal("/p", "3.10") is None and host_plan.python_refusal("/p", "4.0") is None


def test_source_paths_only_the_given_ones():
    params = dict(PARAMS, wheelhouse="/srv/wheels", hashes_file="/etc/h.txt")
    assert host_plan.source_paths(params) == [
        {"var": "pytorch_wheelhouse", "path": "/srv/wheels", "dir": True},
        {"var": "pytorch_hashes_file", "path": "/etc/h.txt", "dir": False}]
    assert host_plan.source_paths(PARAMS) == []


def test_missing_paths_are_refused_together():
    stats = [{"item": {"var": "pytorch_wheelhouse", "path": "/w", "dir": True}, "stat": {"exists": False}},
             {"item": {"var": "pytorch_hashes_file", "path": "/h", "dir": False},
              "stat": {"exists": True, "isdir": True, "isreg": False}}]
    assert plan_host(stats=stats) == {"error": "pytorch_wheelhouse /w is not a directory on ws-1. "
                                               "pytorch_hashes_file /h is not a file on ws-1."}
    good = [{"item": stats[0]["item"], "stat": {"exists": True, "isdir": True, "isreg": False}}]
    assert plan_host(stats=good)["error"] is None


def test_a_wheel_plan_is_resolve_stack_with_its_summary():
    planned = plan_host()
    expected = resolve.resolve_stack("2.9.1", "cu128", gpus=[RTX_5090], driver_cuda="13.0")
    summary = role_messages.plan_summary(expected) + "; planned from the version table (planning/matrix.py)"
    assert planned == {"error": None, "plan": expected, "summary": summary,
                       "fallback": None, "builds": True, "toolkit_cuda": None, "python_version": "3.12"}
    assert planned["summary"].startswith("torch-2.9.1-cu128 (wheel): torch==2.9.1+cu128 ")


def test_plan_refusals_come_through_as_they_are():
    assert plan_host(version="2.5.1")["error"].startswith("torch 2.5.1 is not in the version matrix")
    assert plan_host(channel="cu126")["error"].startswith("channel cu126 has no kernels for GPU 0")
    assert plan_host(method="source")["error"].startswith(
        "a source build needs a CUDA toolkit and there is none at /usr/local/cuda (no bin/nvcc)")


def test_a_source_plan_reads_the_toolkit():
    planned = plan_host(method="source", channel="", nvcc=NVCC)
    assert planned["toolkit_cuda"] == "12.8" and planned["plan"]["stack"] == "torch-2.9.1-src"
    assert planned["plan"]["pins"] == ["torch==2.9.1+src", "torchaudio==2.9.1+cu128", "torchvision==0.24.1+cu128"]
    assert planned["fallback"] is None


def test_a_host_that_does_not_build_plans_without_a_toolkit():
    planned = plan_host(method="source", channel="", build_host="ws-2")
    assert planned["error"] is None and not planned["builds"] and planned["plan"]["method"] == "source"
    assert plan_host(method="source", channel="", build_host="ws-1", nvcc=NVCC)["builds"]


def test_a_build_host_outside_the_play_is_refused_for_source_plans_only():
    assert plan_host(method="source", channel="", build_host="ws-9")["error"] == (
        "pytorch_build_host ws-9 is not among this play's hosts (ws-1, ws-2): the others would wait for a wheel "
        "nobody builds.")
    assert plan_host(build_host="ws-9")["error"] is None


def test_auto_carries_the_source_plan_of_the_same_release():
    planned = plan_host(method="auto", nvcc=NVCC)
    assert planned["plan"]["method"] == "wheel"
    source = resolve.resolve_stack("2.9.1", "cu128", gpus=[RTX_5090], driver_cuda="13.0", method="source",
                                   toolkit_cuda="12.8")
    assert planned["fallback"] == source
    assert planned["fallback"]["stack"] == "torch-2.9.1-src"
    no_toolkit = plan_host(method="auto")["fallback"]
    assert no_toolkit["error"].startswith("a source build needs a CUDA toolkit")
    # the table already says cu126 has no kernel for sm_120: auto plans the source build itself
    assert plan_host(method="auto", channel="cu126", nvcc=NVCC)["plan"]["method"] == "source"
    assert plan_host(method="auto", channel="cu126", nvcc=NVCC)["fallback"] is None


def test_index_source_is_what_pip_reads():
    table = {"error": None, "method": "wheel", "channel": "cu128"}
    both = dict(PARAMS, wheelhouse="/w", index="https://pypi.org/simple", channel_base="https://m.lab/whl/")
    assert host_plan.index_source(both, table) == ("/w", False)  # pip gets --no-index
    assert host_plan.index_source(dict(both, wheelhouse=""), table) == ("https://pypi.org/simple", False)
    assert host_plan.index_source(dict(both, wheelhouse="", index=""), table) == ("https://m.lab/whl/cu128", True)
    assert host_plan.index_source(dict(both, method="source"), table) == ("", False)
    assert host_plan.index_source(dict(both, method="auto"), dict(table, method="source")) == ("", False)
    refused = {"error": "channel cu126 has no kernels ..."}
    assert host_plan.index_source(dict(both, wheelhouse="", index=""), refused) == ("", False)
    assert host_plan.index_source(dict(PARAMS), table) == ("", False)


def test_a_channel_index_confirms_the_tables_version_and_channel():
    calls = []

    def read(url, version):
        calls.append((url, version))
        return {"catalog": table_catalog(), "warnings": [],
                "index": {"url": url, "requests": 3, "seconds": 0.2}}

    params = dict(PARAMS, version="2.9", channel="", channel_base="https://m.lab/whl")
    checked = host_plan.check_host(params, "Python 3.12.3\n", [], None)
    assert checked["python_version"] == "3.12"  # the module reads the index for this CPython
    result = planned(params, read=read)
    assert calls == [("https://m.lab/whl/cu130", "2.9.1")]
    assert (result["plan"]["torch"], result["plan"]["channel"]) == ("2.9.1", "cu130")
    assert result["summary"].endswith("; planned from index https://m.lab/whl/cu130 (3 requests, 0.2 s)")
    assert host_plan.index_args(checked["args"], result["plan"], True)["channel"] == "cu130"
    del calls[:]
    planned(dict(PARAMS, version="2.14", channel="", index="https://pypi.org/simple"), read=read)
    assert calls == [("https://pypi.org/simple", "2.14")]


def test_an_index_refusal_is_the_hosts_refusal():
    def read(url, version):
        raise PlanError("package index %s could not be read: HTTP 503 Service Unavailable." % url)

    result = planned(dict(PARAMS, channel_base="https://m.lab/whl"), read=read)
    assert result == {"error": "package index https://m.lab/whl/cu128 could not be read: HTTP 503 Service Unavailable."}


def test_a_wheel_an_earlier_run_built_is_named_in_the_source_plan():
    names = ["torch-2.9.1+src-cp312-cp312-linux_x86_64.whl", "torch-2.8.0+src-cp312-cp312-linux_x86_64.whl",
             "torchvision-0.24.1-cp312-cp312-linux_x86_64.whl", "torch-2.9.1+src-cp312-cp312-linux_x86_64.whl.part"]
    planned = host_plan.mark_built_wheels(plan_host(method="source", channel="", nvcc=NVCC), names)
    assert planned["plan"]["built_wheel"] == "torch-2.9.1+src-cp312-cp312-linux_x86_64.whl"
    assert planned["summary"].endswith(
        "; torch-2.9.1+src-cp312-cp312-linux_x86_64.whl, built by an earlier run, is reused (no build)")
    fresh = host_plan.mark_built_wheels(plan_host(method="source", channel="", nvcc=NVCC), names[1:])
    assert fresh["plan"]["built_wheel"] == "" and "reused" not in fresh["summary"]


def test_the_source_fallback_gets_its_built_wheel_and_a_wheel_plan_none():
    names = ["torch-2.9.1+src-cp312-cp312-linux_x86_64.whl"]
    planned = host_plan.mark_built_wheels(plan_host(method="auto", nvcc=NVCC), names)
    assert "built_wheel" not in planned["plan"] and "reused" not in planned["summary"]
    assert planned["fallback"]["built_wheel"] == names[0]
    assert "built_wheel" not in host_plan.mark_built_wheels(plan_host(), names)["plan"]


def test_a_hashes_file_must_pin_exactly_the_planned_versions():
    pins = "torch==2.9.1+cu128 --hash=sha256:0\ntorchvision==0.24.1+cu128 \\\n    --hash=sha256:1\n"
    planned = plan_host(hashes_file="/etc/h.txt", hashes_text=pins)
    assert planned["error"] == ("pytorch_hashes_file /etc/h.txt must pin exactly what the plan installs; it lacks "
                                "torchaudio==2.9.1+cu128 (file: not pinned).")
    assert plan_host(hashes_file="/etc/h.txt", hashes_text=pins + "torchaudio==2.9.1+cu128 --hash=sha256:2\n")[
        "error"] is None
    assert plan_host(hashes_text="anything")["error"] is None  # no hashes file: nothing to pin
    assert host_plan.hashes_refusal("", "", ["torch==2.9.1"]) is None


def test_installer_uv_without_its_executable_is_refused_naming_pip():
    refused = planned(dict(PARAMS, installer="uv", uv="/opt/blackwell/tools/bin/uv"), uv_found=False)
    assert refused == {"error": (
        "pytorch_installer is uv and pytorch_uv /opt/blackwell/tools/bin/uv is not an executable file on ws-1: run the "
        "blackwell.pytorch.tools role first (it installs uv into blackwell_tools_venv when blackwell_tools_uv is true), "
        "set pytorch_uv to a uv executable, or set pytorch_installer: pip.")}
    found = planned(dict(PARAMS, installer="uv", uv="/u"), uv_found=True)
    assert found["error"] is None and found["plan"]["stack"] == "torch-2.9.1-cu128"
    assert planned(dict(PARAMS, installer="pip", uv=""), uv_found=False)["error"] is None


def test_a_check_run_whose_tools_role_installs_that_uv_first_is_not_refused():
    """site.yml --check on a fresh host: the tools role of the same play would install uv before the stage."""
    pending = planned(dict(PARAMS, installer="uv", uv="/opt/blackwell/tools/bin/uv",
                           uv_pending="/opt/blackwell/tools/bin/uv"), uv_found=False)
    assert pending["error"] is None and pending["plan"]["stack"] == "torch-2.9.1-cu128"
    other = planned(dict(PARAMS, installer="uv", uv="/usr/local/bin/uv", uv_pending="/opt/blackwell/tools/bin/uv"),
                    uv_found=False)
    assert other["error"].startswith("pytorch_installer is uv and pytorch_uv /usr/local/bin/uv is not an executable file")
    nothing = planned(dict(PARAMS, installer="uv", uv="", uv_pending=""), uv_found=False)
    assert nothing["error"].startswith("pytorch_installer is uv and pytorch_uv (empty) is not an executable file")
