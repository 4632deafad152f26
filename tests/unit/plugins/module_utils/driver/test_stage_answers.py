# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""stage_answers: the driver and toolkit stages' questions answered in the preflight probe's call, with real
commands (a printer stands in for dpkg-query's package lines) and a toolkit root of the test's own."""
from __future__ import annotations

import shutil
import sys

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import stage_answers
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import state_call, toolkit_call
from driver_fixture import PACKAGES, PREFLIGHT, RTX5090
from real_run import run

HOST = "ws-5090-02"
LOADED = {"loaded": True, "version": "580.95.05", "branch": "580", "cuda_driver_version": "13.0",
          "kernel_module_flavor": "open", "source": "nvml"}


def driver_options(**changes):
    spec = state_call.argument_spec()
    options = dict((name, entry.get("default")) for name, entry in spec.items() if name not in state_call.PROBE_SUPPLIED)
    options.update({"probe_argv": [sys.executable, "-c", "import sys; sys.stdout.write(%r)" % PACKAGES],
                    "uu_exclude": False, "kernel_headers": False, "dkms_package": "blackwell-no-such-package",
                    "blacklist_nouveau": False, "persistenced": False})
    options.update(changes)
    return options


def toolkit_options(**changes):
    spec = toolkit_call.argument_spec()
    options = dict((name, entry.get("default")) for name, entry in spec.items() if name not in toolkit_call.PROBE_SUPPLIED)
    options.update({"versions": ["12.8"], "manage": "false"})
    options.update(changes)
    return options


def ask(driver, toolkit, tmp_path):
    warned = []
    return stage_answers.answers(driver, toolkit, HOST, [RTX5090], LOADED, PREFLIGHT, run,
                                 lambda name: shutil.which(name) is not None, warned.append, str(tmp_path))


def test_nothing_asked_answers_nothing(tmp_path):
    answered = ask(None, None, tmp_path)
    assert answered == {"driver": None, "toolkit": None} and stage_answers.refusals(answered) == []


def test_a_driver_to_change_leaves_the_toolkit_to_its_own_call(tmp_path):
    answered = ask(driver_options(), toolkit_options(), tmp_path)
    driver = answered["driver"]
    assert driver["ok"] and not driver["converged"] and driver["changes"] == ["kernel headers and DKMS"]
    assert driver["status"]["action"] == "manage" and driver["commands"]["probe_argv"][0] == sys.executable
    assert answered["toolkit"] is None and stage_answers.refusals(answered) == []


def test_a_driver_left_in_place_answers_the_toolkit_against_it(tmp_path):
    answered = ask(driver_options(manage="false"), toolkit_options(), tmp_path)
    assert answered["driver"]["converged"] and answered["driver"]["status"]["version"] == "580.95.05"
    toolkit = answered["toolkit"]
    assert toolkit is not None and toolkit["driver"] == "580.95.05" and toolkit["versions"] == ["12.8"]
    # manage false, no toolkit under the test's root: the toolkit's nvcc is missing, which the stage refuses
    assert not toolkit["ok"] and toolkit["msg"].startswith(HOST + ": ")
    assert stage_answers.refusals(answered) == [toolkit["msg"]]


def test_the_driver_inputs_refused_are_the_answer_and_the_toolkit_is_not_asked(tmp_path):
    answered = ask(driver_options(branch="470"), toolkit_options(), tmp_path)
    assert not answered["driver"]["ok"] and answered["toolkit"] is None
    (message,) = stage_answers.refusals(answered)
    assert message.startswith("ws-5090-02: nvidia_driver_branch 470 cannot drive the GPUs here: NVIDIA GeForce RTX 5090")


def test_a_probe_command_that_fails_is_a_refusal_naming_the_host(tmp_path):
    broken = [sys.executable, "-c", "import sys; sys.stderr.write('dpkg: broken'); sys.exit(2)"]
    answered = ask(driver_options(probe_argv=broken), None, tmp_path)
    (message,) = stage_answers.refusals(answered)
    assert message.startswith("could not read the driver state on ws-5090-02: ") and "dpkg: broken" in message


def test_no_package_manager_is_a_toolkit_refusal(tmp_path):
    preflight = dict(PREFLIGHT, os={"family": ""})
    answered = stage_answers.answers(None, toolkit_options(), HOST, [RTX5090], LOADED, preflight, run,
                                     lambda name: False, [].append, str(tmp_path))
    assert stage_answers.refusals(answered) == [
        "ws-5090-02: neither dpkg-query nor rpm is here: the cuda_toolkit role supports Debian, Ubuntu and RHEL-like systems"]


def test_the_toolkits_driver_is_the_override_then_the_driver_stage_then_the_loaded_one():
    assert toolkit_call.driver_inputs("575.57.08", {"version": "580.95.05"}, LOADED) == ("575.57.08", "")
    assert toolkit_call.driver_inputs("", {"version": "580.95.05"}, LOADED) == ("580.95.05", "13.0")
    assert toolkit_call.driver_inputs(None, {"version": "590.10.01"}, LOADED) == ("590.10.01", "")
    assert toolkit_call.driver_inputs("", None, LOADED) == ("580.95.05", "13.0")
    assert toolkit_call.driver_inputs("", {"version": None}, {"loaded": False, "version": None}) == ("", "")


def test_the_repository_layout_tokens_take_the_probed_os_values():
    token = dict((name, stage_answers.LAYOUT_TOKEN % name) for name in stage_answers.LAYOUT_KEYS)
    repo = {"configure": True, "name": "nvidia-cuda",
            "url": "https://mirror.lab/repos/%s/%s/" % (token["distro"], token["arch"]),
            "key_url": "https://mirror.lab/repos/%s/%s/%s" % (token["distro"], token["arch"], token["key_file"]),
            "keyring": token["keyring"], "source_path": token["source_path"], "proxy_path": token["proxy_path"],
            "fingerprints": ["EB693B3035CD5710E231E123A4B469963BF863CC"]}
    filled = stage_answers.with_layout(repo, PREFLIGHT, "x86_64")
    assert filled["url"] == "https://mirror.lab/repos/debian12/x86_64/"
    assert filled["key_url"] == "https://mirror.lab/repos/debian12/x86_64/3bf863cc.pub"
    assert "@@" not in "".join(str(value) for value in filled.values())
    assert filled["fingerprints"] == repo["fingerprints"] and filled["configure"] is True
    # a value set by hand is kept as it is
    assert stage_answers.with_layout({"url": "https://other.lab/x/"}, PREFLIGHT, "aarch64") == {"url": "https://other.lab/x/"}
    assert stage_answers.with_layout({"url": token["arch"]}, PREFLIGHT, "aarch64") == {"url": "sbsa"}
