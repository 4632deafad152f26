# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verify role's options and the facts it reads, by name, as the arguments of its decisions.

The role hands one dict over: every option its meta/argument_specs.yml declares (verify_*) and the facts named in
its vars/main.yml (FACTS), a fact not set in this play as {} (the vars lookup's default). inputs() gives
verify_plan its request, verify_decision and verify_steps their keyword arguments, and gpu_health its `gates`
(the verify_health_* options but the kernel log). An option the dict does not hold is left out, as the filters
leave out a key their caller did not give. Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.health_gates import DEFAULTS as HEALTH_DEFAULTS

# verify_plan's request key -> the role's option
PLAN_OPTIONS = (("device", "verify_device"), ("profile", "verify_profile"), ("tests", "verify_tests"),
                ("sizes", "verify_sizes"), ("gates", "verify_gates"), ("sustained_seconds", "verify_sustained_seconds"),
                ("forbid_clock_reasons", "verify_forbid_clock_reasons"), ("python", "verify_python"),
                ("results_dir", "verify_results_dir"), ("textfile_dir", "verify_prometheus_textfile_dir"),
                ("cuda_home", "verify_cuda_home"), ("gpu_gates", "verify_gpu_gates"), ("nvls", "verify_nvls"))
HEALTH_PREFIX = "verify_health_"
# the container check's image without verify_container_image: imported once from the host's own files
CHECK_IMAGE = "localhost/blackwell-cdi-check:latest"
# The facts the decisions read: the check's memo, the role's own stack_fingerprint result, the verdict published in
# this play, the pytorch stage's fact, the preflight probe's, whether the role made its fingerprint call, the host.
FACTS = ("blackwell_cuda_check", "__verify_fingerprint_run", "blackwell_verify", "blackwell_pytorch",
         "blackwell_preflight", "__verify_fingerprinted", "ansible_check_mode", "inventory_hostname")


def _given(values: Mapping[str, Any], pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """{key: values[name]} for each (key, name) whose name `values` holds."""
    return dict((key, values[name]) for key, name in pairs if name in values)


def gpu_names(gpus: Sequence[Any] | None) -> list[Any]:
    """Each GPU fact's name (None for an entry without one: the plan leaves it out)."""
    return [gpu.get("name") if isinstance(gpu, Mapping) else None for gpu in gpus or []]


def plan_request(values: Mapping[str, Any], gpus: Sequence[Any] | None = None) -> dict[str, Any]:
    """verify_plan's request: the role's options under the plan's keys, and the GPUs' names."""
    return dict(_given(values, PLAN_OPTIONS), gpu_names=gpu_names(gpus))


def health_gates(values: Mapping[str, Any]) -> dict[str, Any]:
    """gpu_health's `gates`: each verify_health_<gate> option the values hold, under the gate's name."""
    return _given(values, [(gate, HEALTH_PREFIX + gate) for gate in HEALTH_DEFAULTS])


def _probe_health(preflight: Any) -> Any:
    """blackwell_preflight's health reading; None without one."""
    return preflight.get("health") if isinstance(preflight, Mapping) else None


def inputs(values: Mapping[str, Any], gpus: Sequence[Any] | None = None) -> dict[str, Any]:
    """{request, decision, health_gates, steps, container_image}: verify_plan's request (plan_request()),
    verify_decision's and verify_steps' keyword arguments but their input (steps without `driver`), gpu_health's
    gates (health_gates()) and the container check's image."""
    gates = health_gates(values)
    decision = {"python": values.get("verify_python"), "cuda_home": values.get("verify_cuda_home"),
                "force": values.get("verify_force", False), "check_mode": values.get("ansible_check_mode", False),
                "pytorch": values.get("blackwell_pytorch", {})}
    request = dict(_given(values, (("device", "verify_device"), ("kernel_log", "verify_health_kernel_log"),
                                   ("textfile_dir", "verify_prometheus_textfile_dir"))),
                   host=values.get("inventory_hostname"), gates=gates)
    switches = {"health": values.get("verify_health", False),
                "container": values.get("verify_container_check", False),
                "fingerprinted": values.get("__verify_fingerprinted") or False}  # {}: not set
    return {"request": plan_request(values, gpus),
            "decision": {"memo": values.get("blackwell_cuda_check", {}),
                         "run": values.get("__verify_fingerprint_run", {}),
                         "published": values.get("blackwell_verify", {}), "options": decision},
            "health_gates": gates,
            "steps": {"probe": _probe_health(values.get("blackwell_preflight")), "request": request,
                      "options": switches},
            "container_image": values.get("verify_container_image") or CHECK_IMAGE}
