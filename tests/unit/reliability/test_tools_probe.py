# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""site.yml's preflight probe reads the tools venv (preflight_tools, set from the tools role's settings) and the tools
role trusts it: a converged venv costs the role one skipped task, a venv that lacks a pin runs the role's check and
its build. The hosts' Python is a bare venv without nvidia-ml-py, as a lab host's system Python: the probe then reads
NVML through the tools venv's pynvml (the real nvidia-ml-py module, which finds no NVIDIA library here).

One check-mode run of playbooks/site.yml with the verify stage left out by its tag (the preflight runs; the tools where they
have work; an empty stage list is refused) over two names of this machine, each with its own tools venv built with
`python -m venv` and filled by pip from small wheels."""
from __future__ import annotations

import os
import sys

import pynvml  # the test venv's nvidia-ml-py (requirements.txt): its module goes into the venvs' wheel
import pytest
import yaml

import tools_venv_fixture as tv
from playbook import ROOT, outcome, results, run

TOOLS_CHECK = "blackwell.pytorch.tools : Check what the tools venv holds (the pins, uv; pynvml imports)"
STAGES = "The stages with work on this host (tools, GPU facts, driver, toolkit, containers, PyTorch)"
TOOLS_ENTRY = "Check the tools venv and build what it lacks (skipped when the preflight probe found it holding the pins)"


@pytest.fixture(scope="module")
def site_run(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("tools_probe")
    with open(pynvml.__file__) as handle:
        real = handle.read()
    nvml, uv, uv_old = (tv.nvml_wheel(tmp_path, pynvml=real), tv.uv_wheel(tmp_path), tv.uv_wheel(tmp_path, "0.12.0"))
    venvs = {"converged": tv.venv(tmp_path / "converged"), "lacking": tv.venv(tmp_path / "lacking")}
    tv.pip_install(venvs["converged"], nvml, uv)
    tv.pip_install(venvs["lacking"], nvml, uv_old)
    bare = tv.venv(tmp_path / "system")  # the hosts' Python: no nvidia-ml-py
    hosts = dict((name, {"blackwell_tools_venv": venv["path"], "blackwell_site_stages": ["verify"], "blackwell_require_gpu": False,
                         "preflight_disk_checks": [], "preflight_supported_os": []}) for name, venv in venvs.items())
    # host_vars/ beat the inventory file's host variables (playbook.run() sets the interpreter there); task vars beat both
    (tmp_path / "host_vars").mkdir()
    for name in hosts:
        (tmp_path / "host_vars" / ("%s.yml" % name)).write_text(yaml.safe_dump({"ansible_python_interpreter": bare["python"]}))
    _rc, stdout, stderr = run(tmp_path, [], hosts, playbook=os.path.join(ROOT, "playbooks", "site.yml"), skip_tags=["verify"])
    assert "plays" in stdout, stderr
    return {"stdout": stdout, "venvs": venvs, "bare": bare}


def _result(stdout, task_end, host):
    found = [by_host[host] for name, by_host in results(stdout) if name.endswith(task_end) and host in by_host]
    assert len(found) == 1, (task_end, [task[0] for task in results(stdout)])
    return found[0]


def test_a_converged_venv_costs_the_tools_role_one_skipped_task(site_run):
    stdout, venv = site_run["stdout"], site_run["venvs"]["converged"]
    result = outcome(stdout, "converged")
    assert result["failed_task"] is None and result["changed_before"] == [], result
    assert not any(name.startswith("blackwell.pytorch.tools") for name in result["tasks"]), result["tasks"]
    # no stage has work here (none asked, the venv holds its pins, no driver loaded): one skipped task for them all
    assert _result(stdout, STAGES, "converged").get("skipped") is True
    assert not [name for name, by_host in results(stdout) if name.endswith(TOOLS_ENTRY) and "converged" in by_host]
    probe = _result(stdout, "Probe the OS, GPUs, driver, Secure Boot, kernel headers, disk and connection "
                            "(one read-only call)", "converged")
    assert probe["tools"] == {"venv": venv["path"], "requirements": [tv.NVML, tv.UV], "ready": True, "reason": "",
                              "missing": [], "python": venv["python"], "pynvml_site": venv["site"]}
    # the probe's own Python has no nvidia-ml-py: it read NVML through the venv's (no NVIDIA library on this machine)
    assert probe["python"] == {"executable": site_run["bare"]["python"], "pynvml": False, "nvml_from": "tools"}
    assert "not installed" not in (probe["ansible_facts"]["nvidia_driver"]["nvml_error"] or "")
    # no driver is loaded, so the probe's facts are final: gpu_facts (with blackwell_tools_python) is not asked again
    assert probe["ansible_facts"]["nvidia_driver"]["loaded"] is False
    assert [host for name, by_host in results(stdout) if name.startswith("Read GPU and driver facts")
            for host, result in by_host.items() if not result.get("skipped")] == []


def test_a_venv_that_lacks_a_pin_runs_the_check_and_the_build(site_run):
    stdout, venv = site_run["stdout"], site_run["venvs"]["lacking"]
    result = outcome(stdout, "lacking")
    assert result["failed_task"] is None and result["changed_before"] == [], result
    probe = _result(stdout, "(one read-only call)", "lacking")
    assert (probe["tools"]["venv"], probe["tools"]["ready"], probe["tools"]["missing"]) == (venv["path"], False, [tv.UV])
    assert probe["python"]["nvml_from"] == "tools"  # its nvidia-ml-py is at its pin
    assert TOOLS_CHECK in result["tasks"], result["tasks"]
    check = _result(stdout, TOOLS_CHECK, "lacking")
    assert (check["rc"], check["stdout"]) == (1, tv.UV)
    assert any(name.startswith("blackwell.pytorch.tools : Install the missing packages") for name, by_host
               in results(stdout) if "lacking" in by_host), "the build was not included"


@pytest.mark.parametrize("ready", [True, False], ids=["venv_ready", "venv_lacking"])
def test_a_task_run_with_blackwell_tools_python_names_it_without_asking_for_itself(site_run, tmp_path, ready):
    # rollout.yml and adopt.yml run gpu_facts with ansible_python_interpreter set to blackwell_tools_python: the
    # interpreter is the venv's when it is ready, else the play's own, named without a loop through itself
    venv = site_run["venvs"]["converged" if ready else "lacking"]
    tasks = [{"name": "The tools role (public: blackwell_tools_python is the play's)", "ansible.builtin.include_role": {
        "name": "blackwell.pytorch.tools", "public": True}},
        {"name": "Run with the tools' interpreter", "ansible.builtin.command": {"argv": ["true"]},
         "vars": {"ansible_python_interpreter": "{{ blackwell_tools_python }}"}, "register": "ran", "check_mode": False},
        {"name": "Say it", "ansible.builtin.debug": {"msg": "{{ blackwell_tools_python }}"}}]
    host = {"blackwell_tools_venv": venv["path"]}
    rc, stdout, stderr = run(tmp_path, tasks, {"ws": host})
    said = [by_host["ws"]["msg"] for name, by_host in results(stdout) if name == "Say it"]
    assert rc == 0 and "Recursive loop" not in stdout + stderr, stdout + stderr
    # ready: the venv's; lacking (a check run builds nothing): the play's own interpreter
    assert said == [venv["path"] + "/bin/python" if ready else sys.executable], said
