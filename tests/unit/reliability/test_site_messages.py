# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""site.yml's own messages (docs/reliability.md): a stage list that names no stage, a target Python the modules
cannot run under, and the per-host summary under one stage's preflight tag.

Check-mode runs of playbooks/site.yml against this machine under other names (playbook.py), each host with its own
variables.
"""
from __future__ import annotations

import os
import sys

import pytest

from playbook import ROOT, outcome, results, run

SITE = os.path.join(ROOT, "playbooks", "site.yml")
STAGES_REFUSAL = ("blackwell.pytorch.preflight : Refuse what cannot work here (OS, GPU, root for the stages, a driver "
                  "build without headers, disk), or report the host")
KNOWN = "driver, toolkit, containers, pytorch, verify"
# a host the preflight passes (no GPU asked for, any OS, no disk check): what it refuses is the test's own
HOST = {"blackwell_require_gpu": False, "preflight_supported_os": [], "preflight_allow_unsupported_os": True,
        "preflight_disk_checks": [], "pytorch_python": sys.executable}


@pytest.mark.parametrize("given, shown", [([], "[]"), ("", '""'), (" , ", '" , "')], ids=["empty-list", "empty-text", "commas"])
def test_an_empty_stage_list_is_refused_naming_the_variable_and_the_stages(tmp_path, given, shown):
    # -e blackwell_site_stages= (an unset shell variable in a wrapper) ran the preflight alone and ended rc 0
    hosts = {"ws": dict(HOST, blackwell_site_stages=given)}
    rc, stdout, stderr = run(tmp_path, [], hosts, playbook=SITE)
    assert "plays" in stdout, stderr
    result = outcome(stdout, "ws")
    assert rc != 0 and result["failed_task"] == STAGES_REFUSAL, result
    assert result["msg"] == (
        "blackwell_site_stages is %s: it names no stage, so nothing but the preflight would run. Name the stages to "
        "run (known: %s), e.g. -e blackwell_site_stages=driver,toolkit,pytorch,verify, or leave "
        "blackwell_site_stages unset for the default (driver, toolkit, pytorch, verify)." % (shown, KNOWN)), result
    # refused by the preflight's assert: before the tools or any stage ran (only the validation and the read-only probe)
    assert all(name.startswith(("Validate the stages", "blackwell.pytorch.preflight : ")) for name in result["tasks"]), \
        result["tasks"]
    assert result["changed_before"] == [], result


TORCH_PYTHON = os.path.join(ROOT, ".build", "torch-cpu", "bin", "python")
SUMMARY = "Summary of this host (GPUs, driver, stages)"


@pytest.mark.parametrize("tag", ["pytorch_preflight", "nvidia_driver_preflight", "cuda_toolkit_preflight",
                                 "container_toolkit_preflight"])
def test_the_summary_under_one_stages_preflight_tag_says_the_facts_were_not_read(tmp_path, tag):
    # --tags pytorch_preflight: a good plan, then "'dict' object has no attribute 'nvidia_gpus'" in the summary
    if not os.path.exists(TORCH_PYTHON):
        pytest.fail("the CPU torch venv of the unit layer is missing: %s (make test builds it)" % TORCH_PYTHON)
    host = dict(HOST, blackwell_site_stages=["pytorch"], pytorch_adopt_path=os.path.dirname(os.path.dirname(TORCH_PYTHON)),
                pytorch_root=str(tmp_path / "pytorch"), pytorch_profile_path="")
    rc, stdout, stderr = run(tmp_path, [], {"ws": host}, playbook=SITE, tags=[tag])
    assert "plays" in stdout, stderr
    result = outcome(stdout, "ws")
    assert rc == 0 and result["failed_task"] is None, result
    summary = [by_host["ws"]["msg"] for name, by_host in results(stdout) if name == SUMMARY]
    assert len(summary) == 1, result["tasks"]
    assert "GPUs and driver: not read in this run (the preflight did not run: --tags left it out)" in str(summary[0])
    assert "driver: stage not run" in str(summary[0]) and "verify: stage not run" in str(summary[0])
    if tag == "pytorch_preflight":  # the stage's own preflight ran: its plan call
        assert any(name.startswith("blackwell.pytorch.pytorch : Check the request") for name in result["tasks"]), \
            result["tasks"]


# A stand-in for a target whose Python is 3.6 (no such interpreter can be installed here): it answers the version
# question as 3.6 does and fails every module as 3.6 fails on the modules' first line.
PYTHON36 = """#!/bin/sh
case "$*" in *version_info*) echo 3.6.15; exit 0;; esac
cat >&2 <<'END'
  File "<stdin>", line 5
SyntaxError: future feature annotations is not defined
END
exit 1
"""


def test_a_target_python_older_than_the_modules_need_is_named_with_the_fix(tmp_path):
    # was: MODULE FAILURE ... SyntaxError: future feature annotations is not defined
    python = tmp_path / "python3.6"
    python.write_text(PYTHON36)
    python.chmod(0o755)
    (tmp_path / "host_vars").mkdir()  # host_vars/ beat the inventory's interpreter (playbook.run() sets it there)
    (tmp_path / "host_vars" / "old_python.yml").write_text("ansible_python_interpreter: %s\n" % python)
    rc, stdout, stderr = run(tmp_path, [], {"old_python": dict(HOST, blackwell_site_stages=["pytorch"])}, playbook=SITE)
    assert "plays" in stdout, stderr
    result = outcome(stdout, "old_python")
    assert rc != 0, result
    failed = [(name, by_host["old_python"]) for name, by_host in results(stdout)
              if by_host.get("old_python", {}).get("failed") and not by_host["old_python"].get("rescued")]
    assert failed[-1][0] == "blackwell.pytorch.preflight : Say which Python the collection's modules need", failed
    assert failed[-1][1]["msg"] == (
        "old_python: the collection's modules need Python 3.9 or newer on the target, and %s is Python 3.6.15 (the "
        "probe failed: SyntaxError: future feature annotations is not defined). Point Ansible at a newer Python on "
        "the host: set ansible_python_interpreter in the inventory or on the command line (-e "
        "ansible_python_interpreter=/usr/bin/python3.11), after installing one where there is none." % python), failed
    # nothing ran after the probe: no stage, no tools
    assert all(name.startswith(("Validate the stages", "blackwell.pytorch.preflight : ")) for name in result["tasks"]), \
        result["tasks"]


def test_a_target_python_that_is_not_there_is_named_with_the_fix(tmp_path):
    python = tmp_path / "no" / "python3"
    (tmp_path / "host_vars").mkdir()
    (tmp_path / "host_vars" / "no_python.yml").write_text("ansible_python_interpreter: %s\n" % python)
    rc, stdout, stderr = run(tmp_path, [], {"no_python": dict(HOST, blackwell_site_stages=["pytorch"])}, playbook=SITE)
    assert "plays" in stdout, stderr
    failed = [(name, by_host["no_python"]) for name, by_host in results(stdout) if by_host.get("no_python", {}).get("failed")]
    assert rc != 0 and failed[-1][0] == "blackwell.pytorch.preflight : Say which Python the collection's modules need", failed
    message = failed[-1][1]["msg"]
    assert message.startswith("no_python: the collection's modules need Python 3.9 or newer on the target, and %s does "
                              "not run there (" % python), message
    assert "not found" in message and message.endswith(
        "). Point Ansible at a newer Python on the host: set ansible_python_interpreter in the inventory or on the "
        "command line (-e ansible_python_interpreter=/usr/bin/python3.11), after installing one where there is none."), message
