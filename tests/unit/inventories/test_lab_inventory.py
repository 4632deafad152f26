# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The example lab inventory (inventories/lab) is one a lab can copy as it is.

ansible-inventory reads it as Ansible will; every host sits in exactly one GPU-model group
(the children of gpu_workstations); every variable it sets is a documented role variable (a
role's meta/argument_specs.yml), a collection-wide site.yml variable or a connection variable,
and passes its argument spec (type, choices, elements); the gates are ones torch_benchmark
accepts for the group's profile, each group's PyTorch version and channel make a plan the
collection accepts for that GPU model, and site.yml passes --syntax-check against it.
"""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import gates as benchmark_gates
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import PROFILE_TESTS
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.resolve import resolve_stack

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
LAB = os.path.join(ROOT, "inventories", "lab")
BIN = os.path.dirname(sys.executable)
PARENT = "gpu_workstations"
# Connection and privilege variables the example may set, with the type Ansible reads them as.
CONNECTION_VARS = {"ansible_host": "str", "ansible_port": "int", "ansible_user": "str", "ansible_become": "bool",
                   "ansible_become_user": "str", "ansible_become_method": "str", "ansible_python_interpreter": "str",
                   "ansible_ssh_private_key_file": "path", "ansible_ssh_common_args": "str"}
# The GPU each GPU-model group stands for, as gpu_facts reports it; the driver branch 580 runs CUDA 13.0.
GROUP_GPUS = {
    "rtx5090": {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"},
    "rtx_pro_6000": {"index": 0, "name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
                     "compute_capability": "12.0", "sm": "sm_120"},
    "rtx4090": {"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9", "sm": "sm_89"},
    "h100": {"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm": "sm_90"},
}
DRIVER_CUDA = "13.0"


def _env():
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith("ANSIBLE_"))
    env.update(ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".build", "unit"), ANSIBLE_NOCOLOR="1")
    return env


def _inventory():
    done = subprocess.run([os.path.join(BIN, "ansible-inventory"), "-i", LAB, "--list"], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def inventory():
    return _inventory()


def role_specs():
    """{variable: [(role:entry point, its spec)]} over every role's meta/argument_specs.yml; an option an entry point
    shares with the role's main (the `site` and `report` entry points take main's options) is main's alone."""
    out = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "roles", "*", "meta", "argument_specs.yml"))):
        role = path.split(os.sep)[-3]
        with open(path) as handle:
            entries = yaml.safe_load(handle)["argument_specs"]
        main = (entries.get("main") or {}).get("options") or {}
        for entry, spec in entries.items():
            for name, option in (spec.get("options") or {}).items():
                if entry != "main" and main.get(name) == option:
                    continue
                out.setdefault(name, []).append(("%s:%s" % (role, entry), option))
    return out


def site_stages():
    """The stages playbooks/site.yml knows (its __site_stages_known)."""
    with open(os.path.join(ROOT, "playbooks", "site.yml")) as handle:
        return yaml.safe_load(handle)[0]["vars"]["__site_stages_known"]


def _site_var_errors(name, value):
    """blackwell_site_stages and blackwell_hosts: site.yml's collection-wide variables (README)."""
    if name == "blackwell_hosts":
        return [] if isinstance(value, str) else ["blackwell_hosts must be a host pattern (str), got %r" % (value,)]
    stages = value.split(",") if isinstance(value, str) else value
    unknown = [stage for stage in stages if str(stage).strip() not in site_stages()]
    return ["blackwell_site_stages names unknown stage(s) %s" % unknown] if unknown else []


def variable_errors(name, value, specs):
    """Why `name: value` is not a documented variable with a valid value ([] when it is)."""
    if name in CONNECTION_VARS:
        spec = {name: {"type": CONNECTION_VARS[name]}}
        return ["%s: %s" % (name, error) for error in ArgumentSpecValidator(spec).validate({name: value}).error_messages]
    if name in ("blackwell_site_stages", "blackwell_hosts"):
        return _site_var_errors(name, value)
    if name not in specs:
        return ["%s is not a variable of any role's meta/argument_specs.yml nor a collection-wide one" % name]
    errors = []
    for where, option in specs[name]:
        if option.get("type") in ("list", "dict") and not isinstance(value, (list if option["type"] == "list" else dict)):
            # the spec would wrap a string into a list of one; the roles' preflight refuses it (docs/reliability.md)
            errors.append("%s (%s): must be a YAML %s, got %r" % (name, where, option["type"], value))
            continue
        result = ArgumentSpecValidator({name: option}).validate({name: value})
        errors += ["%s (%s): %s" % (name, where, error) for error in result.error_messages]
    return errors


def gate_errors(hostvars):
    """What torch_benchmark would refuse in the host's verify_gates, for its profile (verify role defaults)."""
    gates = hostvars.get("verify_gates")
    profile = hostvars.get("verify_profile", "quick")
    if not gates or profile not in PROFILE_TESTS:  # an unknown profile is the spec check's finding
        return []
    runs = set(PROFILE_TESTS[profile])
    # The verify role drops gates on `sustained` when the profile does not run it; any other test must run.
    not_run = dict((test, "not in profile %s" % profile) for test in gates if test not in runs and test != "sustained")
    return benchmark_gates.validate(gates, not_run, hostvars.get("verify_device", "cuda"))


def inventory_errors(document):
    """Every problem of an `ansible-inventory --list` document, as lines naming host and variable."""
    errors, specs = [], role_specs()
    hostvars = document["_meta"]["hostvars"]
    model_groups = document.get(PARENT, {}).get("children", [])
    hosts = set(hostvars) | set(document.get("ungrouped", {}).get("hosts", []))
    for host in sorted(hosts):
        groups = [group for group in model_groups if host in document.get(group, {}).get("hosts", [])]
        if len(groups) != 1:
            errors.append("%s is in %d GPU-model groups %s (expected exactly one)" % (host, len(groups), groups))
        for name, value in sorted(hostvars.get(host, {}).items()):
            errors += ["%s: %s" % (host, error) for error in variable_errors(name, value, specs)]
        errors += ["%s: verify_gates: %s" % (host, error) for error in gate_errors(hostvars.get(host, {}))]
    return errors


def test_lab_inventory_has_about_ten_hosts_in_gpu_model_groups(inventory):
    groups = inventory[PARENT]["children"]
    assert sorted(groups) == sorted(GROUP_GPUS)
    assert len(inventory["_meta"]["hostvars"]) == 10
    for group in groups:
        assert inventory[group]["hosts"], group


def test_lab_inventory_variables_are_documented_and_pass_their_specs(inventory):
    assert inventory_errors(inventory) == []


def test_lab_inventory_sets_connection_user_and_become_for_every_host(inventory):
    for host, values in inventory["_meta"]["hostvars"].items():
        assert values["ansible_become"] is True, host
        assert values["ansible_user"], host
    assert inventory["_meta"]["hostvars"]["srv-h100-01"]["ansible_user"] == "gpuops"  # the group's own account


def test_lab_inventory_check_refuses_bad_variables(inventory):
    """The check above is not vacuous: each kind of mistake a copy of the inventory could make is named."""
    document = json.loads(json.dumps(inventory))
    hostvars = document["_meta"]["hostvars"]
    hostvars["ws-5090-01"].update(verify_profle="standard", verify_profile="fast", pytorch_keep_stacks="two",
                                  cuda_toolkit_versions="12.8", ansible_become="maybe")
    hostvars["ws-5090-02"]["verify_gates"] = {"gemm_bf16": {"min_fraction_of_peak": 70}}
    document["rtx4090"]["hosts"].append("ws-5090-03")
    errors = "\n".join(inventory_errors(document))
    assert "ws-5090-01: verify_profle is not a variable of any role" in errors
    assert "ws-5090-01: verify_profile (verify:main): value of verify_profile must be one of: quick, standard, full" in errors
    assert "ws-5090-01: pytorch_keep_stacks (pytorch:main):" in errors and "'two'" in errors
    assert "ws-5090-01: ansible_become:" in errors
    assert "ws-5090-02: verify_gates: gate gemm_bf16.min_fraction_of_peak is a fraction from 0 to 1" in errors
    assert "ws-5090-03 is in 2 GPU-model groups" in errors
    assert "ws-5090-01: cuda_toolkit_versions (cuda_toolkit:main): must be a YAML list, got '12.8'" in errors
    assert len(inventory_errors(document)) == 7


@pytest.mark.parametrize("group", sorted(GROUP_GPUS))
def test_lab_inventory_pytorch_plan_fits_each_gpu_model(inventory, group):
    host = inventory[group]["hosts"][0]
    values = inventory["_meta"]["hostvars"][host]
    plan = resolve_stack(version=values["pytorch_version"], channel=values["pytorch_cuda_channel"],
                         gpus=[GROUP_GPUS[group]], driver_cuda=DRIVER_CUDA)
    assert plan["error"] is None, plan["error"]
    assert plan["channel"] == values["pytorch_cuda_channel"]


def test_lab_inventory_site_syntax_check_passes():
    done = subprocess.run([os.path.join(BIN, "ansible-playbook"), "--syntax-check", "site.yml", "-i", LAB],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "playbook: site.yml" in done.stdout
