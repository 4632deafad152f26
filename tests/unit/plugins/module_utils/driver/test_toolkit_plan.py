from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.toolkit_plan import (
    probe_plan, targeting_toolkits, toolkit_plan)
from ansible_collections.blackwell.pytorch.plugins.plugin_utils import versions as controller_versions

RTX5090 = {"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
H100 = {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm": "sm_90"}
V100 = {"name": "Tesla V100-SXM2-32GB", "compute_capability": "7.0", "sm": "sm_70"}


class TestPlan(object):
    def test_default_from_the_driver(self):
        plan = toolkit_plan([], driver="580.95.05", gpus=[RTX5090])
        assert plan["ok"] and plan["versions"] == ["13.0"] and plan["default"] == "13.0"
        assert plan["chosen_from_driver"] and plan["driver_cuda"] == "13.0"
        assert plan["install"] == ["13.0"] and plan["packages"] == ["cuda-toolkit-13-0"] and plan["action"] == "manage"

    def test_side_by_side_with_a_default(self):
        plan = toolkit_plan(["13.0", "12.8"], default="12.8", driver="580.95.05", gpus=[RTX5090], installed=["13.0"])
        assert plan["ok"] and plan["versions"] == ["12.8", "13.0"] and plan["default"] == "12.8"
        assert plan["install"] == ["12.8"] and plan["managed"] == ["13.0"]

    def test_too_new_for_the_driver_is_refused(self):
        plan = toolkit_plan(["13.0"], driver="575.57.08", gpus=[RTX5090])
        assert not plan["ok"]
        assert plan["problems"] == ["CUDA 13.0 needs driver >= 580.65.06; the driver is 575.57.08"]

    def test_cannot_target_sm_120(self):
        plan = toolkit_plan(["12.6"], driver="580.95.05", gpus=[RTX5090, H100])
        assert plan["problems"] == ["CUDA 12.6 cannot target NVIDIA GeForce RTX 5090 (sm_120): its nvcc has no "
                                    "compute_120 (Blackwell needs 12.8 or newer)"]

    def test_cannot_target_volta_with_13(self):
        plan = toolkit_plan(["13.0"], driver="580.95.05", gpus=[V100])
        assert plan["problems"] == ["CUDA 13.0 cannot target Tesla V100-SXM2-32GB (sm_70): its nvcc has no compute_70 "
                                    "(12.9 is the last toolkit that targets it)"]

    def test_unknown_toolkit_and_bad_default(self):
        assert toolkit_plan(["11.8"], driver="580.95.05")["problems"][0].startswith(
            "CUDA 11.8 is not in the toolkit table (known: 12.0, 12.1")
        plan = toolkit_plan(["12.8"], default="13.0", driver="580.95.05")
        assert plan["problems"] == ["cuda_toolkit_default_version 13.0 is not one of cuda_toolkit_versions 12.8"]

    def test_no_driver_known(self):
        plan = toolkit_plan([], gpus=[RTX5090])
        assert not plan["ok"] and plan["problems"][0].startswith("cuda_toolkit_versions is empty and no driver version")
        plan = toolkit_plan(["12.8"])
        assert plan["ok"] and plan["warnings"] == [
            "no driver version known: CUDA 12.8 was not checked against the minimum driver 570.26"]

    def test_minor_compat_warns(self):
        plan = toolkit_plan(["12.9"], driver="570.133.07", minor_compat=True)
        assert plan["ok"] and plan["warnings"] == [
            "CUDA 12.9 runs on driver 570.133.07 only through minor-version compatibility (needs 575.51.03 for "
            "all its features)"]

    def test_adopt_a_toolkit_no_package_owns(self):
        # the GPU test machine: driver 580.159.04 from a mount, CUDA 13.0 at /usr/local/cuda
        plan = toolkit_plan([], driver="580.159.04", gpus=[H100], found={"13.0": "/usr/local/cuda"}, current="13.0")
        assert plan["ok"] and plan["action"] == "adopt" and plan["adopted"] == {"13.0": "/usr/local/cuda"}
        assert plan["install"] == [] and plan["packages"] == []

    def test_adopt_a_converged_host(self):
        found = {"12.8": "/usr/local/cuda-12.8", "13.0": "/usr/local/cuda-13.0"}
        plan = toolkit_plan(["12.8", "13.0"], default="12.8", driver="580.95.05", installed=["12.8", "13.0"],
                            found=found, current="12.8")
        assert plan["action"] == "adopt" and plan["managed"] == ["12.8", "13.0"] and plan["adopted"] == found

    def test_default_elsewhere_is_managed_without_installing(self):
        found = {"12.8": "/usr/local/cuda-12.8", "13.0": "/usr/local/cuda-13.0"}
        plan = toolkit_plan(["12.8", "13.0"], default="12.8", driver="580.95.05", found=found, current="13.0")
        assert plan["action"] == "manage" and plan["install"] == [] and plan["adopted"] == found

    def test_manage_true_installs_over_a_found_toolkit(self):
        plan = toolkit_plan(["13.0"], driver="580.159.04", manage=True, found={"13.0": "/usr/local/cuda"})
        assert plan["action"] == "manage" and plan["install"] == ["13.0"]
        assert plan["warnings"] == ["CUDA 13.0 already answers at /usr/local/cuda outside the package manager; "
                                    "cuda_toolkit_manage is true, so the package is installed as well"]

    def test_manage_false_only_checks(self):
        plan = toolkit_plan(["13.0"], driver="580.95.05", manage="false", installed=["13.0"])
        assert plan["ok"] and plan["action"] == "check"
        plan = toolkit_plan(["13.0"], driver="580.95.05", manage=False)
        assert plan["problems"] == ["CUDA 13.0 is not installed and cuda_toolkit_manage is false (check only)"]

    def test_bad_manage_value(self):
        assert toolkit_plan(["13.0"], manage="sometimes")["problems"] == [
            "cuda_toolkit_manage must be auto, true or false, not 'sometimes'"]


class TestProbePlan(object):
    PACKAGES = "cuda-toolkit-13-0\t13.0.88-1\tii \ncuda-toolkit-12-9\t12.9.86-1\trc \n"
    FOUND = "/usr/local/cuda\t13.0\n/usr/local/cuda-13.0\t13.0\n/usr/local/cuda-12.8\t12.8\n"

    def test_reads_the_probe_text(self):
        plan = probe_plan(["12.8", "13.0"], default="13.0", driver="580.95.05", installed=self.PACKAGES,
                          found=self.FOUND)
        assert plan["managed"] == ["13.0"] and plan["current"] == "13.0" and plan["action"] == "adopt"
        assert plan["adopted"] == {"12.8": "/usr/local/cuda-12.8", "13.0": "/usr/local/cuda-13.0"}

    def test_given_current_wins_over_the_probe(self):
        plan = probe_plan(["13.0"], driver="580.95.05", found=self.FOUND, current="12.8")
        assert plan["current"] == "12.8" and plan["action"] == "manage"

    def test_lists_and_mappings_pass_as_they_are(self):
        assert probe_plan(["13.0"], driver="580.95.05", installed=["13.0"], found={}) == toolkit_plan(
            ["13.0"], driver="580.95.05", installed=["13.0"], found={})

    def test_empty_driver_texts_mean_unknown(self):
        plan = probe_plan(["12.8"], driver="", driver_cuda="")
        assert plan["driver"] is None and plan["driver_cuda"] is None and plan["warnings"]

    def test_packaging_parser_gives_the_same_plan(self):
        args = (["12.9"], "", "570.133.07", None, [RTX5090], True, "auto", self.PACKAGES, self.FOUND)
        assert probe_plan(*args, parse=controller_versions.parse) == probe_plan(*args)


def test_toolkit_role_without_root_refused_naming_become():
    plan = probe_plan(["12.8"], driver="580.95.05", installed=[], found={}, user={"uid": 1000, "name": "alice"})
    assert plan["ok"] is False and plan["action"] == "manage"
    assert plan["problems"][0].startswith("the cuda_toolkit role changes the host and needs root; this play runs "
                                          "as uid 1000 (alice). Set become: true on the play")
    # adopting toolkits that answer already changes nothing: any user may
    adopt = probe_plan(["12.8"], driver="580.95.05", found={"12.8": "/usr/local/cuda-12.8"}, current="12.8",
                       user={"uid": 1000, "name": "alice"})
    assert adopt["ok"] and adopt["action"] == "adopt"
    assert probe_plan(["12.8"], driver="580.95.05", user={"uid": 0, "name": "root"})["ok"]


def test_targeting_toolkits_reads_the_catalogue():
    assert targeting_toolkits("12.0", (12, 6)) == "Blackwell needs 12.8 or newer"
    assert targeting_toolkits("sm_100", (12, 0)) == "Blackwell needs 12.8 or newer"
    # a Blackwell capability that came after the family's first toolkit is named by its compute name
    assert targeting_toolkits("10.3", (12, 8)) == "compute_103 needs 12.9 or newer"
    assert targeting_toolkits("12.1", (12, 8)) == "compute_121 needs 12.9 or newer"
    assert targeting_toolkits("8.8", (12, 9)) == "compute_88 needs 13.0 or newer"
    assert targeting_toolkits("7.0", (13, 0)) == "12.9 is the last toolkit that targets it"
    assert targeting_toolkits("10.1", (13, 0)) == "12.9 is the last toolkit that targets it"
    assert targeting_toolkits("12.3", (13, 0)) == "no CUDA toolkit the collection knows targets it"


def test_a_toolkit_too_new_for_thor_says_its_last_toolkit():
    thor = {"name": "NVIDIA Thor", "compute_capability": "10.1", "sm": "sm_101"}
    plan = toolkit_plan(["13.0"], driver="580.95.05", gpus=[thor])
    assert plan["problems"] == ["CUDA 13.0 cannot target NVIDIA Thor (sm_101): its nvcc has no compute_101 "
                                "(12.9 is the last toolkit that targets it)"]
