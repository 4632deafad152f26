from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.filter.cuda_toolkit import FilterModule
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.toolkit_plan import toolkit_plan
from shells import assert_each_argument_matters, changed

F = FilterModule().filters()
RTX5090 = {"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
V100 = {"name": "Tesla V100-SXM2-32GB", "compute_capability": "7.0", "sm": "sm_70"}

PLAN_BASE = {"versions": ["12.8", "12.9"], "default": "12.8", "driver": "575.51.03", "driver_cuda": "12.9",
             "gpus": [RTX5090], "minor_compat": False, "manage": "auto",
             "installed": "cuda-toolkit-12-9\t12.9.86-1\tii \n", "found": "/usr/local/cuda-12.9\t12.9\n",
             "current": None}


def test_toolkit_plan_passes_every_argument():
    changes = {"versions": ["12.9"], "default": "12.9", "driver": "570.133.07", "driver_cuda": "12.8",
               "gpus": [V100, {"name": "NVIDIA B300", "compute_capability": "10.3"}], "manage": "false", "installed": "", "found": "/usr/local/cuda\t12.8\n",
               "current": "12.8"}
    result = assert_each_argument_matters(F["cuda_toolkit_plan"], PLAN_BASE, changes)
    assert result == toolkit_plan(["12.8", "12.9"], "12.8", "575.51.03", "12.9", [RTX5090], False, "auto", ["12.9"],
                                  {"12.9": "/usr/local/cuda-12.9"}, None)
    assert result["ok"] and result["install"] == ["12.8"] and result["managed"] == ["12.9"]
    # minor_compat matters where the driver is older than a toolkit's minimum
    older = changed(PLAN_BASE, driver="570.133.07")
    assert not F["cuda_toolkit_plan"](**older)["ok"] and F["cuda_toolkit_plan"](**changed(older, minor_compat="yes"))["ok"]


def test_toolkit_plan_takes_lists_and_mappings_too():
    result = F["cuda_toolkit_plan"](["13.0"], driver="580.95.05", installed=["13.0"],
                                    found={"13.0": "/usr/local/cuda-13.0"}, current="13.0")
    assert result["action"] == "adopt" and result["managed"] == ["13.0"]
    assert F["cuda_toolkit_plan"](None, driver="580.95.05")["chosen_from_driver"] is True


def test_toolkit_plan_compares_driver_versions_with_packaging():
    # 580.65.6 is 580.65.06, the minimum of CUDA 13.0
    assert F["cuda_toolkit_plan"](["13.0"], driver="580.65.6")["ok"] is True
    assert F["cuda_toolkit_plan"](["13.0"], driver="580.65.5")["ok"] is False


@pytest.mark.parametrize("kwargs,message", [
    ({"versions": {"12.8": True}}, "cuda_toolkit_plan: versions must be a list, got dict"),
    ({"versions": [], "gpus": RTX5090}, "cuda_toolkit_plan: gpus must be a list, got dict"),
    ({"versions": [], "installed": {"12.8": True}}, "cuda_toolkit_plan: installed must be a list, got dict"),
    ({"versions": [], "found": ["12.8"]}, "cuda_toolkit_plan: found must be a mapping, got list"),
    ({"versions": [], "minor_compat": None}, "cuda_toolkit_plan: minor_compat must be true or false, not empty$"),
    ({"versions": [], "installed": ["twelve"]}, "cuda_toolkit_plan: not a CUDA version"),
])
def test_toolkit_plan_errors(kwargs, message):
    with pytest.raises(AnsibleFilterError, match="^" + message):
        F["cuda_toolkit_plan"](**kwargs)


def test_toolkit_versions_as_text_are_refused_by_the_plan_naming_the_variable():
    plan = F["cuda_toolkit_plan"]("12.8", driver="580.95.05")
    assert not plan["ok"] and plan["problems"] == [
        "cuda_toolkit_versions must be a list of versions such as ['12.8'], not the text '12.8' "
        "(on the command line: -e '{\"cuda_toolkit_versions\": [\"12.8\"]}')"]


def test_toolkit_plan_refusals_stay_in_the_plan():
    assert F["cuda_toolkit_plan"](["12.8"], driver="none")["problems"] == ["not a driver version: 'none'"]


LOADED = {"loaded": True, "version": "580.95.05", "cuda_driver_version": "13.0", "source": "nvml"}


def test_the_toolkits_driver_is_the_probes_rule():
    from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.toolkit_call import driver_inputs

    for override, status in (("575.57.08", {"version": "580.95.05"}), ("", {"version": "580.95.05"}),
                             (None, None), ("", {"skipped": True}), (580.95, None)):
        driver, driver_cuda = driver_inputs("" if override is None else str(override), status, LOADED)
        assert F["cuda_toolkit_driver"](override, status, LOADED) == {"driver": driver, "driver_cuda": driver_cuda,
                                                                      "known": True}
    # the user's word, the driver stage's version, the loaded one; its CUDA version only when it is the loaded one
    assert F["cuda_toolkit_driver"]("575.57.08", {"version": "580.95.05"}, LOADED) == {
        "driver": "575.57.08", "driver_cuda": "", "known": True}
    assert F["cuda_toolkit_driver"]("", None, LOADED) == {"driver": "580.95.05", "driver_cuda": "13.0", "known": True}
    assert F["cuda_toolkit_driver"]("", None, {"loaded": False}) == {"driver": "", "driver_cuda": "", "known": True}
    with pytest.raises(AnsibleFilterError, match="cuda_toolkit_driver: loaded must be a mapping"):
        F["cuda_toolkit_driver"]("", None, "580")


@pytest.mark.parametrize("override,status,loaded,known", [
    ("", None, None, False), (None, None, None, False), ("580.95.05", None, None, True),
    ("", {"version": "580.95.05"}, None, True), ("", {}, None, True), ("", None, {}, True)])
def test_the_driver_is_known_when_anything_names_it(override, status, loaded, known):
    """Not known (nothing given, the role alone before the collection's preflight): cuda_toolkit_state reads the
    loaded driver itself."""
    assert F["cuda_toolkit_driver"](override, status, loaded) == {
        "driver": override or (status or {}).get("version", ""), "driver_cuda": "", "known": known}
