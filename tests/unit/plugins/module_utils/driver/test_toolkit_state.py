# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""toolkit_state(): a converged host, each kind of drift, each refusal, the confirmation after a change."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.toolkit_plan import probe_plan
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.toolkit_probe import parse_alternatives
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.toolkit_state import (
    alternatives_priority, found_lines, link_changes, nvcc_checks, profile_change, profile_text, refusal_message,
    toolkit_dirs, toolkit_state)

RTX5090 = {"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
ROOT_USER = {"uid": 0, "name": "root"}
PACKAGES = "cuda-toolkit-12-8\t12.8.1-1\tii \ncuda-toolkit-13-0\t13.0.2-1\tii \n"
# what nvcc prints (CUDA 12.8 update 1, 13.0 update 2), and --list-gpu-arch's lines
NVCC_128 = ("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
            "Built on Fri_Feb_21_20:23:50_PST_2025\nCuda compilation tools, release 12.8, V12.8.93\n"
            "Build cuda_12.8.r12.8/compiler.35583870_0\n")
NVCC_130 = ("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
            "Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler.36424714_0\n")
ARCHS_128 = "\n".join("compute_%d" % a for a in (50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 120))
ARCHS_130 = "\n".join("compute_%d" % a for a in (75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121))
ANSWERS = {"/usr/local/cuda-12.8": {"version": NVCC_128, "archs": ARCHS_128},
           "/usr/local/cuda-13.0": {"version": NVCC_130, "archs": ARCHS_130}}
FOUND = "/usr/local/cuda\t12.8\n/usr/local/cuda-12.8\t12.8\n/usr/local/cuda-13.0\t13.0"
# update-alternatives --query cuda on a converged Debian host (12.8 selected against 13.0's priority)
QUERY_MANUAL = ("Name: cuda\nLink: /usr/local/cuda\nStatus: manual\nBest: /usr/local/cuda-13.0\n"
                "Value: /usr/local/cuda-12.8\n\nAlternative: /usr/local/cuda-12.8\nPriority: 128\n\n"
                "Alternative: /usr/local/cuda-13.0\nPriority: 130\n")
LINK_OK = {"exists": True, "islink": True, "isdir": False, "readlink": "/etc/alternatives/cuda",
           "target": "/usr/local/cuda-12.8"}
NO_LINK = {"exists": False, "islink": False, "isdir": False, "readlink": None, "target": None}


def _plan(installed=PACKAGES, found=FOUND, **changes):
    args = dict(versions=["12.8", "13.0"], default="12.8", driver="580.95.05", gpus=[RTX5090], installed=installed,
                found=found, user=ROOT_USER, manage=True)
    args.update(changes)
    return probe_plan(**args)


def _profile(text=None, **changes):
    current = {"content": profile_text("/usr/local/cuda-12.8", "12.8") if text is None else text,
               "mode": 0o644, "uid": 0, "gid": 0, "regular": True}
    current.update(changes)
    return current


def _state(plan=None, answers=None, link=None, alternatives="debian", profile="same", **options):
    if alternatives == "debian":
        alternatives = parse_alternatives(QUERY_MANUAL, "Debian")
    return toolkit_state(plan or _plan(), ANSWERS if answers is None else answers, link or LINK_OK, alternatives,
                         _profile() if profile == "same" else profile, [RTX5090], **options)


class TestConverged(object):
    def test_converged_host_has_nothing_to_do(self):
        state = _state()
        assert state["ok"] and state["converged"] and state["problems"] == [] and state["would"] == []
        assert state["changes"] == {"install": [], "packages": [], "register": False, "select": False,
                                    "link": False, "profile": False}
        assert state["action"] == "manage" and state["versions"] == ["12.8", "13.0"] and state["default"] == "12.8"
        assert state["dirs"] == {"12.8": "/usr/local/cuda-12.8", "13.0": "/usr/local/cuda-13.0"}
        assert state["installed"] == [] and state["adopted"] == {}
        assert state["nvcc"]["12.8"]["full"] == "12.8.93" and state["nvcc"]["13.0"]["release"] == "13.0"
        assert state["nvcc"]["12.8"]["missing"] is False and state["nvcc"]["12.8"]["lacking"] == []
        assert state["nvcc"]["13.0"]["path"] == "/usr/local/cuda-13.0/bin/nvcc"
        assert state["summary"].startswith("CUDA 12.8, 13.0 (manage), default 12.8; /usr/local/cuda -> "
                                           "/usr/local/cuda-12.8; converged; /usr/local/cuda-12.8/bin/nvcc: nvcc "
                                           "12.8.93 targets compute_120")

    def test_adopted_toolkits_are_converged_without_a_link_or_profile(self):
        plan = _plan(installed="", found="/usr/local/cuda\t12.8\n/usr/local/cuda-12.8\t12.8\n/opt/cuda-13.0\t13.0",
                     manage="auto")
        answers = {"/usr/local/cuda-12.8": ANSWERS["/usr/local/cuda-12.8"],
                   "/opt/cuda-13.0": ANSWERS["/usr/local/cuda-13.0"]}
        state = _state(plan, answers, alternatives=None, profile=None)
        assert state["action"] == "adopt" and state["converged"]
        assert state["dirs"]["13.0"] == "/opt/cuda-13.0" and state["summary"].find("left as found") > 0

    def test_packaged_toolkits_answering_are_adopted_by_auto(self):
        # the second run of the role with manage auto: every toolkit answers, /usr/local/cuda the default
        state = _state(_plan(manage="auto"), profile=None, alternatives=None)
        assert state["action"] == "adopt" and state["converged"] and state["would"] == []
        assert state["adopted"] == {"12.8": "/usr/local/cuda-12.8", "13.0": "/usr/local/cuda-13.0"}

    def test_check_only_changes_nothing(self):
        state = _state(_plan(manage=False), profile=None, alternatives=None)
        assert state["action"] == "check" and state["converged"] and state["would"] == []

    def test_unmanaged_profile_is_left_as_it_is(self):
        state = _state(profile=None, manage_profile=False)
        assert state["converged"] and not state["changes"]["profile"]


class TestDrift(object):
    def test_fresh_host_installs_registers_selects_and_writes(self):
        nothing = {"/usr/local/cuda-12.8": None, "/usr/local/cuda-13.0": None}
        state = _state(_plan(installed="", found=""), answers=nothing,
                       link=NO_LINK, alternatives=parse_alternatives("", "Debian"), profile=None)
        assert state["ok"] and not state["converged"] and state["problems"] == []
        assert state["changes"] == {"install": ["12.8", "13.0"], "packages": ["cuda-toolkit-12-8", "cuda-toolkit-13-0"],
                                    "register": True, "select": True, "link": False, "profile": True}
        assert state["installed"] == ["12.8", "13.0"] and state["nvcc"]["12.8"]["missing"] is True
        assert state["would"] == ["install cuda-toolkit-12-8, cuda-toolkit-13-0",
                                  "register /usr/local/cuda-12.8 as a cuda alternative (priority 128)",
                                  "select /usr/local/cuda-12.8 for /usr/local/cuda (update-alternatives --set, "
                                  "manual mode)", "write /etc/profile.d/cuda.sh"]
        assert state["configure"] == {"dir": "/usr/local/cuda-12.8", "priority": 128,
                                      "profile": profile_text("/usr/local/cuda-12.8", "12.8"), "alternatives": [
                                          ["update-alternatives", "--install", "/usr/local/cuda", "cuda",
                                           "/usr/local/cuda-12.8", "128"],
                                          ["update-alternatives", "--set", "cuda", "/usr/local/cuda-12.8"]]}

    def test_one_toolkit_missing_installs_only_it(self):
        state = _state(_plan(installed=PACKAGES.splitlines()[0] + "\n", found=FOUND.rsplit("\n", 1)[0]),
                       answers={"/usr/local/cuda-12.8": ANSWERS["/usr/local/cuda-12.8"], "/usr/local/cuda-13.0": None})
        assert state["ok"] and state["changes"]["packages"] == ["cuda-toolkit-13-0"]
        assert state["would"] == ["install cuda-toolkit-13-0"]

    def test_auto_mode_alternative_is_set_manual(self):
        auto = QUERY_MANUAL.replace("Status: manual", "Status: auto")
        state = _state(alternatives=parse_alternatives(auto, "Debian"))
        assert not state["converged"] and state["changes"]["select"] and not state["changes"]["register"]
        assert state["configure"]["alternatives"] == [["update-alternatives", "--set", "cuda", "/usr/local/cuda-12.8"]]

    def test_alternative_on_another_toolkit_is_set_back(self):
        other = QUERY_MANUAL.replace("Value: /usr/local/cuda-12.8", "Value: /usr/local/cuda-13.0")
        state = _state(alternatives=parse_alternatives(other, "Debian"),
                       link=dict(LINK_OK, target="/usr/local/cuda-13.0"))
        assert state["would"] == ["select /usr/local/cuda-12.8 for /usr/local/cuda (update-alternatives --set, "
                                  "manual mode)"]

    def test_link_that_does_not_follow_the_alternative_is_repaired_by_set(self):
        state = _state(link=dict(LINK_OK, readlink="/usr/local/cuda-13.0", target="/usr/local/cuda-13.0"))
        assert state["changes"]["select"] and not state["converged"]

    def test_profile_with_other_text_or_mode_is_written(self):
        assert _state(profile=_profile("export PATH=/usr/local/cuda/bin:$PATH\n"))["would"] == [
            "write /etc/profile.d/cuda.sh"]
        assert _state(profile=_profile(mode=0o600))["changes"]["profile"]
        assert _state(profile=_profile(uid=1000))["changes"]["profile"]
        assert _state(profile=None)["changes"]["profile"]

    def test_ld_library_path_asked_for_changes_the_profile(self):
        state = _state(ld_library_path=True)
        assert state["changes"]["profile"] and "LD_LIBRARY_PATH" in state["configure"]["profile"]

    def test_plain_link_without_alternatives(self):
        assert _state(alternatives=None, link=dict(LINK_OK, readlink="/usr/local/cuda-12.8"))["converged"]
        state = _state(alternatives=None, link=dict(LINK_OK, readlink="/usr/local/cuda-13.0",
                                                    target="/usr/local/cuda-13.0"))
        assert state["would"] == ["link /usr/local/cuda to /usr/local/cuda-12.8"] and state["ok"]


class TestRefusals(object):
    def test_plan_refusal_is_the_message(self):
        state = _state(_plan(driver="575.57.08"))
        assert not state["ok"] and not state["converged"]
        assert state["problems"] == ["CUDA 13.0 needs driver >= 580.65.06; the driver is 575.57.08"]
        assert refusal_message("ws-5090-02", state["problems"]) == (
            "ws-5090-02: CUDA 13.0 needs driver >= 580.65.06; the driver is 575.57.08.")
        assert state["nvcc"] == {} and state["would"] == []

    def test_a_run_without_root_that_changes_is_refused(self):
        state = _state(_plan(user={"uid": 1000, "name": "alice"}))
        assert state["problems"][0].startswith("the cuda_toolkit role changes the host and needs root")

    def test_real_directory_at_usr_local_cuda(self):
        state = _state(link={"exists": True, "islink": False, "isdir": True, "readlink": None,
                             "target": "/usr/local/cuda"}, alternatives=None)
        assert state["problems"] == ["/usr/local/cuda is a directory, not a link (a runfile install?): the role "
                                     "does not replace it. Move it to /usr/local/cuda-X.Y or set cuda_toolkit_manage: auto"]

    def test_installed_toolkit_whose_nvcc_reports_another_release(self):
        answers = dict(ANSWERS, **{"/usr/local/cuda-12.8": {"version": NVCC_130, "archs": ARCHS_130}})
        state = _state(answers=answers)
        assert state["problems"] == ["CUDA 12.8 at /usr/local/cuda-12.8/bin/nvcc: nvcc --version reports 13.0, "
                                     "expected 12.8"]
        assert refusal_message("h", state["problems"]).endswith("expected 12.8.")

    def test_nvcc_that_cannot_target_the_gpu(self):
        answers = dict(ANSWERS, **{"/usr/local/cuda-12.8": {"version": NVCC_128, "archs": "compute_90\n"}})
        state = _state(answers=answers)
        assert state["problems"] == ["CUDA 12.8 at /usr/local/cuda-12.8/bin/nvcc: nvcc --list-gpu-arch lacks "
                                     "compute_120 (the GPUs here need them)"]
        assert state["nvcc"]["12.8"]["lacking"] == ["compute_120"]

    def test_installed_package_without_nvcc(self):
        state = _state(_plan(found=FOUND.rsplit("\n", 1)[0]), answers=dict(ANSWERS, **{"/usr/local/cuda-13.0": None}))
        assert state["problems"] == ["CUDA 13.0 at /usr/local/cuda-13.0/bin/nvcc: nvcc is missing"]


class TestConfirm(object):
    def test_confirmed_host_is_converged(self):
        assert _state(confirm=True)["converged"]

    def test_toolkit_still_missing_after_the_install(self):
        plan = _plan(installed=PACKAGES.splitlines()[0] + "\n", found=FOUND.rsplit("\n", 1)[0])
        state = _state(plan, answers=dict(ANSWERS, **{"/usr/local/cuda-13.0": None}), confirm=True)
        assert state["problems"][0] == "CUDA 13.0 at /usr/local/cuda-13.0/bin/nvcc: nvcc is missing"

    def test_link_leading_elsewhere_after_the_change(self):
        state = _state(alternatives=None, link=dict(LINK_OK, readlink="/usr/local/cuda-12.8",
                                                    target="/usr/local/cuda-13.0"), confirm=True)
        assert state["problems"] == ["/usr/local/cuda leads to /usr/local/cuda-13.0, not to /usr/local/cuda-12.8"]

    def test_anything_left_undone_is_named(self):
        state = _state(profile=_profile(mode=0o600), confirm=True)
        assert state["problems"] == ["the run left undone: write /etc/profile.d/cuda.sh"]


class TestParts(object):
    def test_dirs_priority_and_found_lines(self):
        assert toolkit_dirs({"versions": ["12.8", "12.9"], "adopted": {"12.9": "/opt/cuda"}}) == {
            "12.8": "/usr/local/cuda-12.8", "12.9": "/opt/cuda"}
        assert (alternatives_priority("12.8"), alternatives_priority("13.0")) == (128, 130)
        assert found_lines([("/usr/local/cuda", NVCC_128), ("/usr/local/cuda-13.0", NVCC_130),
                            ("/usr/local/cuda-x", "Segmentation fault")]) == (
            "/usr/local/cuda\t12.8\n/usr/local/cuda-13.0\t13.0")

    @pytest.mark.parametrize("family,text,expected", [
        ("Debian", QUERY_MANUAL, {"status": "manual", "value": "/usr/local/cuda-12.8",
                                  "alternatives": ["/usr/local/cuda-12.8", "/usr/local/cuda-13.0"]}),
        ("RedHat", "cuda - status is auto.\n link currently points to /usr/local/cuda-13.0\n"
                   "/usr/local/cuda-12.8 - priority 128\n/usr/local/cuda-13.0 - priority 130\n"
                   "Current `best' version is /usr/local/cuda-13.0.\n",
         {"status": "auto", "value": "/usr/local/cuda-13.0",
          "alternatives": ["/usr/local/cuda-12.8", "/usr/local/cuda-13.0"]}),
        ("Debian", "", {"status": None, "value": None, "alternatives": []}),
    ])
    def test_alternatives_answers(self, family, text, expected):
        assert parse_alternatives(text, family) == expected

    def test_link_changes_register_only_what_is_missing(self):
        registered = parse_alternatives(QUERY_MANUAL.replace("Alternative: /usr/local/cuda-12.8\nPriority: 128\n\n", "")
                                        .replace("Value: /usr/local/cuda-12.8", "Value: /usr/local/cuda-13.0"), "Debian")
        changes, refusal = link_changes("/usr/local/cuda-12.8", "/usr/local/cuda-12.8", LINK_OK, registered)
        assert refusal == "" and changes == {"register": True, "select": True, "link": False}

    def test_profile_text_and_change(self):
        text = profile_text("/usr/local/cuda-12.8", "12.8")
        assert text.splitlines()[0] == ("# Managed by blackwell.pytorch.cuda_toolkit: /usr/local/cuda -> "
                                        "/usr/local/cuda-12.8 (CUDA 12.8).")
        assert 'export PATH="/usr/local/cuda/bin${PATH:+:${PATH}}"' in text and "LD_LIBRARY_PATH" not in text
        assert text.endswith("esac\n") and text.count("esac\n") == 1
        assert profile_text("/usr/local/cuda-12.8", "12.8", True).count("esac\n") == 2
        assert not profile_change(text, _profile()) and profile_change(text, _profile(regular=False, content=None))

    def test_nvcc_checks_in_version_order(self):
        checks = nvcc_checks({"13.0": "/usr/local/cuda-13.0", "12.8": "/usr/local/cuda-12.8/"}, ANSWERS, [RTX5090])
        assert list(checks) == ["12.8", "13.0"]
        assert checks["12.8"]["path"] == "/usr/local/cuda-12.8/bin/nvcc" and checks["12.8"]["missing"] is True
        assert checks["13.0"]["ok"] and checks["13.0"]["msg"] == "nvcc 13.0.88 targets compute_120"
