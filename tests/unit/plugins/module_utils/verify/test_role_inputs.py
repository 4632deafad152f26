# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verify role's options and facts, by name, as the arguments of its decision filters
(module_utils/verify/role_inputs.py): each option reaches the key it always did, the health gates come from the
verify_health_* options, a fact not set ({}) reads as it did with default()."""
from __future__ import annotations

import os

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import health_gates, plan, role_inputs

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "..")
PYTHON = "/opt/pytorch/current/bin/python"


# the role's defaults/main.yml (verify_python as its template renders without pytorch_root)
DEFAULTS = {
    "verify_python": PYTHON, "verify_device": "cuda", "verify_profile": "quick", "verify_tests": [], "verify_sizes": {},
    "verify_sustained_seconds": 25, "verify_gates": {}, "verify_gpu_gates": [], "verify_nvls": False,
    "verify_forbid_clock_reasons": ["hw_thermal_slowdown", "hw_slowdown", "hw_power_brake_slowdown"],
    "verify_benchmark_timeout": 0, "verify_check_min_verdict": "native", "verify_check_require": [],
    "verify_check_timeout": 120, "verify_results_dir": "/var/lib/blackwell-pytorch",
    "verify_bytecode_cache_dir": "/var/cache/blackwell-pytorch/bytecode", "verify_force": False, "verify_busy": "wait",
    "verify_busy_wait": 60, "verify_busy_fail": False, "verify_cuda_home": "/usr/local/cuda",
    "verify_prometheus_textfile_dir": "", "verify_health": True, "verify_health_pcie_gen": True,
    "verify_health_pcie_width": True, "verify_health_xid": True, "verify_health_xid_ignore": [13, 31, 43, 45],
    "verify_health_remapped_rows": True, "verify_health_ecc_volatile": True, "verify_health_ecc_aggregate": False,
    "verify_health_pcie_replay": True, "verify_health_pcie_replay_max": 8, "verify_health_nvlink": True,
    "verify_health_require_known": False, "verify_health_kernel_log": "auto", "verify_container_check": False,
    "verify_container_engine": "podman", "verify_container_device": "nvidia.com/gpu=all", "verify_container_image": ""}


def _load(*parts):
    yaml = pytest.importorskip("yaml")  # the role's files as Ansible reads them: on the controller
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def role_values(**changes):
    """The role's defaults, and the facts of a play that set none."""
    values = dict(DEFAULTS)
    values.update(dict((name, {}) for name in role_inputs.FACTS))
    values.update(ansible_check_mode=False, inventory_hostname="ws-h100-01")
    values.update(changes)
    return values


def test_the_role_reads_the_facts_this_module_names_and_declares_each_option_it_reads():
    assert tuple(_load("roles", "verify", "vars", "main.yml")["_verify_facts"]) == role_inputs.FACTS
    defaults = _load("roles", "verify", "defaults", "main.yml")
    assert dict(defaults, verify_python=PYTHON) == DEFAULTS
    declared = set(_load("roles", "verify", "meta", "argument_specs.yml")["argument_specs"]["main"]["options"])
    read = set(name for _key, name in role_inputs.PLAN_OPTIONS) | set(
        role_inputs.HEALTH_PREFIX + gate for gate in health_gates.DEFAULTS)
    assert sorted(read - declared) == []


def test_the_defaults_give_the_arguments_the_role_always_gave():
    gpus = [{"name": "NVIDIA H100 80GB HBM3", "index": 0}, {"index": 1}, "x"]
    got = role_inputs.inputs(role_values(), gpus)
    assert got["request"] == {
        "device": "cuda", "profile": "quick", "tests": [], "sizes": {}, "gates": {}, "sustained_seconds": 25,
        "forbid_clock_reasons": ["hw_thermal_slowdown", "hw_slowdown", "hw_power_brake_slowdown"], "python": PYTHON,
        "results_dir": "/var/lib/blackwell-pytorch", "textfile_dir": "", "cuda_home": "/usr/local/cuda",
        "gpu_gates": [], "nvls": False, "gpu_names": ["NVIDIA H100 80GB HBM3", None, None]}
    assert got["health_gates"] == health_gates.DEFAULTS
    assert got["decision"] == {"memo": {}, "run": {}, "published": {}, "options": {
        "python": PYTHON, "cuda_home": "/usr/local/cuda", "force": False, "check_mode": False, "pytorch": {}}}
    assert got["steps"] == {
        "probe": None,
        "request": {"device": "cuda", "kernel_log": "auto", "textfile_dir": "", "host": "ws-h100-01",
                    "gates": health_gates.DEFAULTS},
        "options": {"health": True, "container": False, "fingerprinted": False}}
    assert got["container_image"] == "localhost/blackwell-cdi-check:latest"
    assert plan.plan(got["request"])["product_lines"] == ["datacenter"]


def test_each_option_and_fact_reaches_its_argument():
    memo, run, published = {"fingerprint": {"a": 1}}, {"reuse": True}, {"written": "2026-11-29T08:00:00Z"}
    stage, health = {"converged": False, "python": PYTHON}, {"gpus": []}
    got = role_inputs.inputs(role_values(
        verify_device="cpu", verify_prometheus_textfile_dir="/var/lib/node_exporter", verify_health_xid=False,
        verify_health_xid_ignore=["13"], verify_health_kernel_log="kmsg", verify_force=True, verify_health=False,
        verify_container_check=True, verify_container_image="localhost/mine:1", verify_cuda_home="/usr/local/cuda-13.0",
        blackwell_cuda_check=memo, __verify_fingerprint_run=run, blackwell_verify=published, blackwell_pytorch=stage,
        blackwell_preflight={"health": health}, __verify_fingerprinted=True, ansible_check_mode=True))
    assert (got["request"]["device"], got["request"]["textfile_dir"]) == ("cpu", "/var/lib/node_exporter")
    # as given: verify_steps and gpu_health read "13" as a number
    assert got["health_gates"] == dict(health_gates.DEFAULTS, xid=False, xid_ignore=["13"])
    assert got["decision"] == {"memo": memo, "run": run, "published": published, "options": {
        "python": PYTHON, "cuda_home": "/usr/local/cuda-13.0", "force": True, "check_mode": True, "pytorch": stage}}
    assert got["steps"]["probe"] is health
    assert got["steps"]["request"] == {"device": "cpu", "kernel_log": "kmsg", "textfile_dir": "/var/lib/node_exporter",
                                       "host": "ws-h100-01", "gates": got["health_gates"]}
    assert got["steps"]["options"] == {"health": False, "container": True, "fingerprinted": True}
    assert got["container_image"] == "localhost/mine:1"


def test_a_preflight_fact_without_health_or_that_is_no_mapping_gives_no_probe():
    for preflight in ({}, {"gpus": []}, "x", None):
        assert role_inputs.inputs(role_values(blackwell_preflight=preflight))["steps"]["probe"] is None


def test_options_not_given_are_left_out():
    got = role_inputs.inputs({"verify_profile": "standard", "verify_health_nvlink": False})
    assert got["request"] == {"profile": "standard", "gpu_names": []}
    assert got["health_gates"] == {"nvlink": False}
    assert got["steps"]["request"] == {"host": None, "gates": {"nvlink": False}}
    assert got["decision"]["options"] == {"python": None, "cuda_home": None, "force": False, "check_mode": False,
                                          "pytorch": {}}
    assert got["steps"]["options"] == {"health": False, "container": False, "fingerprinted": False}
    assert plan.plan(got["request"])["refusals"] == []  # only the keys the request holds are judged
