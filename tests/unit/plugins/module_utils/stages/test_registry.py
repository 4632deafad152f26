# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""stages/registry.py (and the driver and toolkit stages): their questions answered in the preflight probe's call, with real
commands (a printer stands in for dpkg-query's package lines) and a toolkit root of the test's own."""
from __future__ import annotations

import shutil
import sys

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import os_layout, toolkit_call
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages import driver, pytorch, registry, toolkit
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.reading import Reading
from driver_fixture import PACKAGES, PREFLIGHT, RTX5090
from real_run import run

HOST = "ws-5090-02"
LOADED = {"loaded": True, "version": "580.95.05", "branch": "580", "cuda_driver_version": "13.0",
          "kernel_module_flavor": "open", "source": "nvml"}


def driver_options(**changes):
    options = dict((name, entry.get("default")) for name, entry in registry.probe_spec(driver).items())
    options.update({"probe_argv": [sys.executable, "-c", "import sys; sys.stdout.write(%r)" % PACKAGES],
                    "uu_exclude": False, "kernel_headers": False, "dkms_package": "blackwell-no-such-package",
                    "blacklist_nouveau": False, "persistenced": False})
    options.update(changes)
    return options


def toolkit_options(**changes):
    options = dict((name, entry.get("default")) for name, entry in registry.probe_spec(toolkit).items())
    options.update({"versions": ["12.8"], "manage": "false"})
    options.update(changes)
    return options


def reading(tmp_path, preflight=PREFLIGHT, has_program=lambda name: shutil.which(name) is not None):
    warned = []
    return Reading(host=HOST, user={"uid": 0, "name": "root"}, gpus=[RTX5090], loaded=LOADED, preflight=preflight,
                   run=run, has_program=has_program, warn=warned.append, machine="x86_64", toolkit_root=str(tmp_path))


def ask(driver_asked, toolkit_asked, tmp_path, **changes):
    return registry.ask_all({"driver": driver_asked, "toolkit": toolkit_asked}, reading(tmp_path, **changes))


def messages(found):
    return [message for name in ("driver", "toolkit", "pytorch") for _cause, message in found["refusals"][name]]


def test_nothing_asked_answers_nothing(tmp_path):
    found = ask(None, None, tmp_path)
    assert found == {"answers": {"driver": None, "toolkit": None, "pytorch": None},
                     "waits": {"driver": "", "toolkit": "", "pytorch": ""}, "facts": {},
                     "refusals": {"driver": [], "toolkit": [], "pytorch": []}}


def test_a_driver_to_change_leaves_the_toolkit_to_its_own_call(tmp_path):
    found = ask(driver_options(), toolkit_options(), tmp_path)
    answer = found["answers"]["driver"]
    assert answer["ok"] and not answer["converged"] and answer["changes"] == ["kernel headers and DKMS"]
    assert answer["status"]["action"] == "manage" and answer["commands"]["probe_argv"][0] == sys.executable
    assert found["answers"]["toolkit"] is None and messages(found) == [] and found["facts"] == {}
    assert found["waits"]["toolkit"] == "the driver stage changes the driver first"


def test_a_driver_left_in_place_answers_the_toolkit_against_it(tmp_path):
    found = ask(driver_options(manage="false"), toolkit_options(), tmp_path)
    assert found["answers"]["driver"]["converged"] and found["answers"]["driver"]["status"]["version"] == "580.95.05"
    answer = found["answers"]["toolkit"]
    assert answer is not None and answer["driver"] == "580.95.05" and answer["versions"] == ["12.8"]
    # manage false, no toolkit under the test's root: the toolkit's nvcc is missing, which the stage refuses
    assert not answer["ok"] and answer["msg"].startswith(HOST + ": ")
    assert messages(found) == [answer["msg"]]
    # each stage's facts under their own names: the driver's as the role publishes them, the toolkit's state
    assert found["facts"] == {"nvidia_driver_status": found["answers"]["driver"]["status"],
                              "nvidia_driver_reboot_required": False, "cuda_toolkit_status": answer}


def test_the_driver_inputs_refused_are_the_answer_and_the_toolkit_is_not_asked(tmp_path):
    found = ask(driver_options(branch="470"), toolkit_options(), tmp_path)
    assert not found["answers"]["driver"]["ok"] and found["answers"]["toolkit"] is None
    (message,) = messages(found)
    assert message.startswith("ws-5090-02: nvidia_driver_branch 470 cannot drive the GPUs here: NVIDIA GeForce RTX 5090")


def test_a_probe_command_that_fails_is_a_refusal_naming_the_host(tmp_path):
    broken = [sys.executable, "-c", "import sys; sys.stderr.write('dpkg: broken'); sys.exit(2)"]
    (message,) = messages(ask(driver_options(probe_argv=broken), None, tmp_path))
    assert message.startswith("could not read the driver state on ws-5090-02: ") and "dpkg: broken" in message


def test_no_package_manager_is_a_toolkit_refusal(tmp_path):
    found = ask(None, toolkit_options(), tmp_path, preflight=dict(PREFLIGHT, os={"family": ""}),
                has_program=lambda name: False)
    assert messages(found) == [
        "ws-5090-02: neither dpkg-query nor rpm is here: the cuda_toolkit role supports Debian, Ubuntu and RHEL-like systems"]


def test_the_toolkits_driver_is_the_override_then_the_driver_stage_then_the_loaded_one():
    assert toolkit_call.driver_inputs("575.57.08", {"version": "580.95.05"}, LOADED) == ("575.57.08", "")
    assert toolkit_call.driver_inputs("", {"version": "580.95.05"}, LOADED) == ("580.95.05", "13.0")
    assert toolkit_call.driver_inputs(None, {"version": "590.10.01"}, LOADED) == ("590.10.01", "")
    assert toolkit_call.driver_inputs("", None, LOADED) == ("580.95.05", "13.0")
    assert toolkit_call.driver_inputs("", {"version": None}, {"loaded": False, "version": None}) == ("", "")


def test_the_repository_options_left_empty_are_the_layout_of_the_os_the_probe_read():
    repo = {"configure": True, "name": "nvidia-cuda", "base_url": "https://mirror.lab/repos/", "url": "", "key_url": "",
            "keyring": "", "source_path": "", "proxy_path": "", "fingerprints": ["EB693B3035CD5710E231E123A4B469963BF863CC"]}
    filled = os_layout.repo_options(repo, PREFLIGHT["os"], "x86_64")
    assert filled == dict(repo, url="https://mirror.lab/repos/debian12/x86_64/",
                          key_url="https://mirror.lab/repos/debian12/x86_64/3bf863cc.pub",
                          keyring="/etc/apt/keyrings/nvidia-cuda.asc",
                          source_path="/etc/apt/sources.list.d/nvidia-cuda.list",
                          proxy_path="/etc/apt/apt.conf.d/90nvidia-cuda-proxy")
    # no base URL: NVIDIA's; aarch64 is NVIDIA's sbsa; a value set by hand is kept as it is
    ubuntu = {"distribution": "Ubuntu", "family": "Debian", "version": "24.04"}
    assert os_layout.repo_options({}, ubuntu, "aarch64")["url"] == \
        "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/sbsa/"
    kept = os_layout.repo_options({"url": "https://other.lab/x/", "keyring": "/srv/k.asc"}, ubuntu, "aarch64")
    assert (kept["url"], kept["key_url"], kept["keyring"]) == ("https://other.lab/x/", "https://other.lab/x/3bf863cc.pub",
                                                               "/srv/k.asc")


def test_every_stage_exports_the_same_names():
    for stage in registry.STAGES:
        assert isinstance(stage.NAME, str) and isinstance(stage.ROLE, str) and stage.ROLE_VARIABLES
        assert set(stage.PROBE_READS) | set(stage.PROBE_FILLS) <= set(stage.OPTIONS) and stage.FACTS
        assert not set(stage.PROBE_READS) & set(stage.PROBE_FILLS)
        assert all(callable(getattr(stage, name)) for name in ("secrets", "waits", "ask", "refusal_entries"))
    assert [stage.NAME for stage in registry.STAGES] == ["driver", "toolkit", "pytorch"]
    # the probe's spec: the stage's options but those it reads itself; those it fills are null unless given
    assert "host" not in registry.probe_spec(driver) and registry.probe_spec(driver)["branch"]["default"] == "580"
    assert registry.probe_spec(pytorch)["gpus"]["default"] is None and "user" not in registry.probe_spec(pytorch)


def test_the_secrets_of_a_stage_are_masked():
    assert driver.secrets({"repo": {"proxy": "http://lab:s3cret@proxy.lab:3128"}}) == ["s3cret"]
    assert driver.secrets({"repo": {"proxy": "http://proxy.lab:3128"}}) == [] and toolkit.secrets({}) == []
