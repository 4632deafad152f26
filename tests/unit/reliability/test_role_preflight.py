# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bad input refused by the roles' preflight, before any change (docs/reliability.md).

One check-mode play per role over many inventory hosts (this machine under other names, each
with its own variables): each bad host must fail in a preflight task with a message naming the
variable, no task before it changed (or would change) anything, and the good host must pass
the whole preflight without a change. The nvidia_driver role runs its main entry point limited to
its preflight by the tag nvidia_driver_preflight (the other roles of the play are tagged always).
"""
from __future__ import annotations

import os

import pytest
import yaml

from playbook import PREFLIGHT, ROOT, RTX5090, facts, outcome, results, run

NVIDIA_KEY = "EB693B3035CD5710E231E123A4B469963BF863CC"
# The one task of the driver's preflight (blackwell.pytorch.nvidia_driver_state) that refuses.
DRIVER_REFUSAL = "Read the driver state and refuse what cannot work"
# A running kernel whose headers are missing and that the package lists do not offer; a play without root.
HEADERS_GONE = dict(PREFLIGHT, kernel={"release": "6.1.0-99-amd64", "headers_installed": False,
                                       "headers_package": "linux-headers-6.1.0-99-amd64", "headers_installable": False})
NOT_ROOT = dict(PREFLIGHT, user={"uid": 1000, "name": "alice"})
# Each kind of refusal once through the real preflight; the variants of each kind go through the
# same filter calls in test_bad_input_filters.py (fast).
DRIVER_HOSTS = {
    "driver_ok": {},
    "driver_branch_as_number": {"nvidia_driver_branch": 580},
    "branch_abc": {"nvidia_driver_branch": "abc"},
    "branch_470_blackwell": {"nvidia_driver_branch": "470"},
    "flavor_proprietary_blackwell": {"nvidia_driver_flavor": "proprietary"},
    "repo_url_credentials": {"nvidia_driver_repo_url": "https://lab:Sup3rS3cret@mirror.lab/cuda/debian12/x86_64/"},
    "fingerprint_short_id": {"nvidia_driver_repo_key_fingerprints": ["3BF863CC"]},
    "fingerprints_as_text": {"nvidia_driver_repo_key_fingerprints": NVIDIA_KEY},
    "proxy_no_scheme": {"nvidia_driver_repo_proxy": "proxy.lab:3128"},
    "reboot_ok_local": {"nvidia_driver_reboot_ok": True},
    "headers_gone": {"blackwell_preflight": HEADERS_GONE},
    "driver_not_root": {"blackwell_preflight": NOT_ROOT},
}
TOOLKIT_HOSTS = {
    "toolkit_ok": {},
    "versions_as_text": {"cuda_toolkit_versions": "12.8"},
    "versions_too_old_for_blackwell": {"cuda_toolkit_versions": ["12.6"]},
    "versions_newer_than_driver": {"cuda_toolkit_versions": ["13.0"], "cuda_toolkit_driver_version": "570.195.03"},
    "default_not_requested": {"cuda_toolkit_default_version": "12.9"},
    "toolkit_not_root": {"blackwell_preflight": NOT_ROOT},
}


@pytest.fixture(scope="module")
def play(tmp_path_factory):
    """One check-mode play: the driver hosts run nvidia_driver's preflight, the toolkit hosts cuda_toolkit's."""
    inventory = {}
    for role, hosts, base in (("nvidia_driver", DRIVER_HOSTS, {}),
                              ("cuda_toolkit", TOOLKIT_HOSTS, {"cuda_toolkit_versions": ["12.8"],
                                                               "cuda_toolkit_driver_version": "580.95.05"})):
        for name, values in hosts.items():
            inventory[name] = dict(dict(base, rely_role=role, blackwell_preflight=PREFLIGHT, rely_facts=facts([RTX5090])),
                                   **values)
    tmp_path = tmp_path_factory.mktemp("preflight")
    # the fleet report of two hosts without results, the host list from -e as text
    inventory["fleet"] = {"rely_role": "fleet_report", "fleet_report_hosts": "driver_ok, toolkit_ok,not_in_inventory",
                          "fleet_report_dir": str(tmp_path / "reports")}
    # the driver's and the toolkit's main entry points, limited to their preflight by the tags; the other roles run
    # whole (always)
    tasks = [{"name": "Run the preflight of nvidia_driver", "ansible.builtin.include_role": {
        "name": "blackwell.pytorch.nvidia_driver"}, "tags": ["nvidia_driver_preflight"],
        "vars": {"ansible_facts": "{{ rely_facts }}"}, "when": "rely_role == 'nvidia_driver'"},
        {"name": "Run the preflight of cuda_toolkit", "ansible.builtin.include_role": {
            "name": "blackwell.pytorch.cuda_toolkit"}, "tags": ["cuda_toolkit_preflight"],
         "vars": {"ansible_facts": "{{ rely_facts }}"}, "when": "rely_role == 'cuda_toolkit'"}]
    # impossible gates: the verify role stops before the kernel-image check or any benchmark runs
    inventory["verify_gate_above_one"] = {"rely_role": "verify", "rely_facts": facts([RTX5090]),
                                          "verify_python": "/usr/bin/python3",
                                          "verify_results_dir": str(tmp_path / "verify"),
                                          "verify_gates": {"gemm_bf16": {"min_fraction_of_peak": 1.5}}}
    # a gate that can never fire: the quick profile runs no sustained test
    inventory["verify_gate_never_fires"] = {"rely_role": "verify", "rely_facts": facts([RTX5090]),
                                            "verify_python": "/usr/bin/python3", "verify_profile": "quick",
                                            "verify_results_dir": str(tmp_path / "verify"),
                                            "verify_gates": {"sustained": {"min_sustained_ratio": 0.7}}}
    # a request that cannot run: every problem in one refusal, before the gates are looked at
    inventory["verify_request_bad"] = {"rely_role": "verify", "rely_facts": facts([RTX5090]),
                                       "verify_python": "/usr/bin/python3", "verify_results_dir": "results",
                                       "verify_sustained_seconds": 3,
                                       "verify_gates": {"gemm_bf16": {"min_fraction_of_peak": 1.5}}}
    # a Prometheus textfile directory that is a file: refused by the fingerprint call, before the check
    (tmp_path / "textfile").write_text("not a directory\n")
    inventory["verify_textfile_dir_is_a_file"] = {"rely_role": "verify", "rely_facts": facts([RTX5090]),
                                                  "verify_python": "/usr/bin/python3",
                                                  "verify_results_dir": str(tmp_path / "verify"),
                                                  "verify_prometheus_textfile_dir": str(tmp_path / "textfile")}
    tasks.append({"name": "Run verify", "ansible.builtin.include_role": {
        "name": "blackwell.pytorch.verify", "apply": {"tags": ["always"]}}, "tags": ["always"],
        "vars": {"ansible_facts": "{{ rely_facts }}"}, "when": "rely_role == 'verify'"})
    tasks.append({"name": "Write the fleet report", "ansible.builtin.include_role": {
        "name": "blackwell.pytorch.fleet_report", "apply": {"tags": ["always"]}}, "tags": ["always"],
        "when": "rely_role == 'fleet_report'"})
    _rc, stdout, stderr = run(tmp_path, tasks, inventory, tags=["nvidia_driver_preflight", "cuda_toolkit_preflight"])
    assert "plays" in stdout, stderr
    return stdout


def _refused(stdout, host, task_part, *message_parts):
    result = outcome(stdout, host)
    assert result["failed_task"], "%s was not refused; tasks run: %s" % (host, result["tasks"])
    assert task_part in result["failed_task"], result
    for part in message_parts:
        assert part in result["msg"], (part, result["msg"])
    assert result["changed_before"] == [], result
    return result


@pytest.mark.parametrize("host", ["driver_ok", "driver_branch_as_number"], ids=["ok", "branch-as-number"])
def test_driver_preflight_accepts_good_input_without_a_change(play, host):
    result = outcome(play, host)
    assert result["failed_task"] is None and result["changed_before"] == [], result
    assert any("Read the driver state and refuse what cannot work" in name for name in result["tasks"])


def _manage_task_names():
    """The names of the tasks of the driver's change path (tasks/manage.yml)."""
    with open(os.path.join(ROOT, "roles", "nvidia_driver", "tasks", "manage.yml")) as handle:
        return [task["name"] for task in yaml.safe_load(handle)]


def test_the_preflight_tag_stops_the_driver_hosts_before_the_change_path(play):
    states = [by_host["driver_ok"] for name, by_host in results(play) if DRIVER_REFUSAL in name and "driver_ok" in by_host]
    # the host has no driver: the decision is to change it, and only the tag keeps the change path out
    assert len(states) == 1 and states[0]["ok"] and not states[0]["converged"] and states[0]["changes"], states
    manage = _manage_task_names()
    assert manage and "Install the driver from the vendor repository" in manage
    for host in DRIVER_HOSTS:
        ran = outcome(play, host)["tasks"]
        assert ran and DRIVER_REFUSAL in ran[-1], (host, ran)  # the decision is the last task each driver host ran
        assert not any(name.endswith(task) for name in ran for task in manage), (host, ran)
        assert not any("Change what differs" in name or "Publish the driver's state" in name for name in ran), (host, ran)


@pytest.mark.parametrize("host,parts", [
    ("branch_abc", ["nvidia_driver_branch must be a driver branch of three digits", "'abc'"]),
    ("branch_470_blackwell", ["nvidia_driver_branch 470 cannot drive", "RTX 5090 (sm_120) needs branch 570"]),
    ("flavor_proprietary_blackwell", ["nvidia_driver_flavor proprietary refused", "Set nvidia_driver_flavor: open"]),
], ids=['branch-abc', 'branch-470-blackwell', 'proprietary-blackwell'])
def test_driver_plan_input_is_refused_in_preflight(play, host, parts):
    _refused(play, host, DRIVER_REFUSAL, *parts)


@pytest.mark.parametrize("host,parts", [
    ("repo_url_credentials", ["nvidia_driver_repo_url carries a user name or password", "/etc/apt/auth.conf.d/"]),
    ("fingerprint_short_id", ["'3BF863CC' is not a full fingerprint", "short key id"]),
    ("fingerprints_as_text", ["nvidia_driver_repo_key_fingerprints must be a list", "not the text"]),
    ("proxy_no_scheme", ["nvidia_driver_repo_proxy must be a URL of scheme http, https, socks5h", "proxy.lab:3128"]),
], ids=['repo-url-credentials', 'fingerprint-short-id', 'fingerprints-as-text', 'proxy-no-scheme'])
def test_driver_repo_input_is_refused_in_preflight(play, host, parts):
    result = _refused(play, host, DRIVER_REFUSAL, *parts)
    assert "Sup3rS3cret" not in result["msg"]


def test_a_reboot_over_the_local_connection_is_refused_in_preflight(play):
    _refused(play, "reboot_ok_local", DRIVER_REFUSAL,
             "this role never reboots the machine that runs the play", "nvidia_driver_reboot_ok: false")


def test_missing_uninstallable_headers_refused_in_driver_preflight(play):
    result = _refused(play, "headers_gone", DRIVER_REFUSAL,
                      "the driver stage builds the NVIDIA kernel module with DKMS for the running kernel 6.1.0-99-amd64",
                      "not in the package lists (no linux-headers-6.1.0-99-amd64)", "Install that kernel's headers",
                      "boot a kernel whose headers the repositories have",
                      "leave the nvidia_driver role out on this host")
    assert result["msg"].endswith('make site ARGS="-e blackwell_site_stages=toolkit,pytorch,verify"'), result["msg"]


@pytest.mark.parametrize("host,role,task", [
    ("driver_not_root", "nvidia_driver", DRIVER_REFUSAL), ("toolkit_not_root", "cuda_toolkit", "Refuse")])
def test_non_root_refused_in_preflight_naming_become(play, host, role, task):
    _refused(play, host, task, "the %s role changes the host and needs root; this play runs as uid 1000 "
             "(alice). Set become: true on the play (or -b / --become" % role)


def test_toolkit_preflight_accepts_good_input_without_a_change(play):
    result = outcome(play, "toolkit_ok")
    assert result["failed_task"] is None and result["changed_before"] == [], result
    states = [by_host["toolkit_ok"] for name, by_host in results(play)
              if name.endswith("read what is in place") and "toolkit_ok" in by_host]
    assert len(states) == 1 and states[0]["versions"] == ["12.8"] and states[0]["changed"] is False, states


@pytest.mark.parametrize("host,parts", [
    ("versions_as_text", ["cuda_toolkit_versions must be a list of versions such as ['12.8'], not the text '12.8'"]),
    ("versions_too_old_for_blackwell", ["CUDA 12.6 cannot target NVIDIA GeForce RTX 5090 (sm_120)",
                                        "Blackwell needs 12.8 or newer"]),
    ("versions_newer_than_driver", ["CUDA 13.0 needs driver >= 580.65.06; the driver is 570.195.03"]),
    ("default_not_requested", ["cuda_toolkit_default_version 12.9 is not one of cuda_toolkit_versions 12.8"]),
], ids=['versions-as-text', '12.6-blackwell', '13.0-driver-570', 'default-not-requested'])
def test_toolkit_input_is_refused_in_preflight(play, host, parts):
    _refused(play, host, "Refuse toolkits the driver cannot run", *parts)


def test_fleet_report_hosts_given_as_text_are_read_as_names_and_hosts_without_a_result_listed_missing(play):
    assert outcome(play, "fleet")["failed_task"] is None  # (hosts without a result: no crash on the missing fact)
    messages = [by_host["fleet"].get("msg", "") for name, by_host in results(play)
                if name.endswith("Where the report is") and "fleet" in by_host]
    assert len(messages) == 1 and messages[0].endswith(
        "(0 passed, 3 failed or missing: driver_ok, not_in_inventory, toolkit_ok)"), messages


def test_verify_refuses_impossible_gates_before_the_check(play):
    result = _refused(play, "verify_gate_above_one", "Refuse gates torch_benchmark could never evaluate",
                      "verify_gates: gate gemm_bf16.min_fraction_of_peak is a fraction from 0 to 1")
    assert not any("Run torch_cuda_check" in name or "Start torch_benchmark" in name for name in result["tasks"]), \
        result["tasks"]


def test_gate_on_test_the_profile_does_not_run_is_refused_before_work(play):
    result = _refused(play, "verify_gate_never_fires", "Refuse gates torch_benchmark could never evaluate",
                      "verify_gates: gate on sustained can never fire: profile quick does not run sustained "
                      "(profiles that run it: standard, full; or list it in verify_tests)")
    assert not any("Run torch_cuda_check" in name or "Start torch_benchmark" in name for name in result["tasks"]), \
        result["tasks"]


def test_a_request_that_cannot_run_is_refused_in_one_message_before_work(play):
    result = _refused(play, "verify_request_bad", "Refuse gates torch_benchmark could never evaluate",
                      "verify_results_dir must be an absolute path (got results); verify_sustained_seconds must be "
                      "at least 6: the last 5 seconds are compared with the first (got 3)")
    assert "gemm_bf16" not in result["msg"]  # the gates are judged once the request itself can run
    assert not any("Run torch_cuda_check" in name or "Start torch_benchmark" in name for name in result["tasks"]), \
        result["tasks"]


def test_textfile_dir_that_is_a_file_is_refused_before_work(play):
    result = _refused(play, "verify_textfile_dir_is_a_file", "Fingerprint the stack",
                      "verify_prometheus_textfile_dir: ", "textfile is a file, not a directory")
    assert not any("Run torch_cuda_check" in name or "Start torch_benchmark" in name for name in result["tasks"]), \
        result["tasks"]


@pytest.mark.parametrize("playbook", ["verify.yml", "site.yml"])
def test_fleet_report_dir_that_is_a_file_is_refused_before_the_hosts_work(tmp_path, playbook):
    (tmp_path / "reports").write_text("not a directory\n")
    hosts = {"ws": {"fleet_report_dir": str(tmp_path / "reports"), "pytorch_python": "/usr/bin/python3",
                    "verify_results_dir": str(tmp_path / "verify")}}
    _rc, stdout, stderr = run(tmp_path, [], hosts, playbook=os.path.join(ROOT, "playbooks", playbook))
    assert "plays" in stdout, stderr
    result = outcome(stdout, "ws")
    assert "fleet report's directory" in (result["failed_task"] or ""), result
    assert result["msg"] == "fleet_report_dir: %s is a file, not a directory" % (tmp_path / "reports"), result
    # nothing of the hosts' work ran: no task of the preflight, tools or verify roles
    assert not any(name.startswith(("blackwell.pytorch.verify", "blackwell.pytorch.preflight", "blackwell.pytorch.tools"))
                   for name in result["tasks"]), result["tasks"]


@pytest.mark.parametrize("stages", ["pytorch,verfiy", ["driver", "gpu"]])
def test_an_unknown_site_stage_is_refused_by_the_first_task(tmp_path, stages):
    hosts = {"ws": {"blackwell_site_stages": stages, "pytorch_python": "/usr/bin/python3"}}
    _rc, stdout, stderr = run(tmp_path, [], hosts, playbook=os.path.join(ROOT, "playbooks", "site.yml"))
    assert "plays" in stdout, stderr
    result = outcome(stdout, "ws")
    assert result["failed_task"].startswith("Validate the stages"), result
    unknown = "verfiy" if isinstance(stages, str) else "gpu"
    assert ("value of blackwell_site_stages must be one or more of: driver, toolkit, containers, pytorch, verify. "
            "Got no match for: %s" % unknown) in result["msg"], result
    assert result["tasks"] == [result["failed_task"]], result["tasks"]  # nothing ran before it
