# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""site.yml's own messages (docs/reliability.md): a stage list that names no stage, a target Python the modules
cannot run under, and the per-host summary under one stage's preflight tag.

Check-mode runs of playbooks/site.yml against this machine under other names (playbook.py), each host with its own
variables.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
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
        "blackwell_site_stages is %s: it names no stage, so nothing but the preflight would run. Leave "
        "blackwell_site_stages unset for the default (driver, toolkit, pytorch, verify), or name the stages to run "
        '(known: %s): make site ARGS="-e blackwell_site_stages=driver,toolkit,pytorch,verify"' % (shown, KNOWN)), result
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


# The first contact of the issue this answers: a fresh Debian 12 host without a GPU, the play without root, the running
# kernel's headers neither installed nor in the package lists. The kernel is the facts' (the fact cache, filled by a
# play before), so the probe asks apt for linux-headers-6.1.0-99-amd64, which no list has.
FRESH_FACTS = {"ansible_distribution": "Debian", "ansible_distribution_version": "12.7",
               "ansible_distribution_major_version": "12", "ansible_os_family": "Debian", "ansible_kernel": "6.1.0-99-amd64"}
NOBODY = 65534


def _nvidia_on_the_bus():
    for vendor in glob.glob("/sys/bus/pci/devices/*/vendor"):
        with open(vendor) as handle:
            if handle.read().strip() == "0x10de":
                return True
    return False


def _as_a_user(tmp_path):
    """(interpreter, uid, name): the play's Python as this user, or, run as root, as nobody (setpriv drops root for
    the module's process: the probe reads the uid it really runs as)."""
    if os.geteuid() != 0:
        return sys.executable, os.geteuid(), pwd.getpwuid(os.geteuid()).pw_name
    if not shutil.which("setpriv"):
        pytest.fail("setpriv (util-linux) is needed to run the play's modules without root")
    wrapper = tmp_path / "python-as-nobody"
    wrapper.write_text("#!/bin/sh\nexec setpriv --reuid=%d --regid=%d --clear-groups %s \"$@\"\n" % (
        NOBODY, NOBODY, sys.executable))
    wrapper.chmod(0o755)
    os.chmod(str(tmp_path), 0o755)  # nobody's process starts there
    return str(wrapper), NOBODY, pwd.getpwuid(NOBODY).pw_name


def test_a_fresh_host_gets_each_refusal_once_numbered_each_ending_with_its_command(tmp_path):
    # was: the headers refusal twice in two wordings, the root refusal twice, glued without a separator ("...sudo
    # asks for a password). the driver stage builds..."), 1,682 characters, no command line to run
    if not glob.glob("/var/lib/apt/lists/*_Packages*"):
        pytest.fail("no apt package lists on this machine (/var/lib/apt/lists): the probe cannot tell that the headers "
                    "are not offered; run apt-get update (make test as root does it when it installs its tools)")
    (tmp_path / "ansible.cfg").write_text("[defaults]\nfact_caching = jsonfile\nfact_caching_connection = %s\n"
                                          % (tmp_path / "facts"))
    rc, stdout, stderr = run(tmp_path, [{"ansible.builtin.set_fact": dict(FRESH_FACTS, cacheable=True)}], {"fresh": {}},
                             check=False)
    assert rc == 0, stdout + stderr
    python, uid, name = _as_a_user(tmp_path)
    (tmp_path / "host_vars").mkdir()  # host_vars/ beat the inventory's interpreter (playbook.run() sets it there)
    (tmp_path / "host_vars" / "fresh.yml").write_text("ansible_python_interpreter: %s\nansible_pipelining: true\n" % python)
    host = {"preflight_disk_checks": [], "pytorch_python": sys.executable}
    rc, stdout, stderr = run(tmp_path, [], {"fresh": host}, playbook=SITE)
    assert "plays" in stdout, stderr
    result = outcome(stdout, "fresh")
    assert rc != 0 and result["failed_task"] == STAGES_REFUSAL, result
    refusals = ([] if _nvidia_on_the_bus() else [
        'No NVIDIA GPU found on the PCI bus of fresh. To provision without one (image builds, tests): make site '
        'ARGS="-e blackwell_require_gpu=false"']) + [
        "fresh: the driver, toolkit and pytorch stages change the host and need root; this play runs as uid %d (%s). "
        "Run the play with become (become: true on the play), -K where sudo asks for a password: make site "
        'ARGS="-b -K"' % (uid, name),
        "fresh: the driver stage builds the NVIDIA kernel module with DKMS for the running kernel 6.1.0-99-amd64, "
        "whose headers are not installed and not in the package lists (no linux-headers-6.1.0-99-amd64). Install "
        "that kernel's headers from where the kernel came, or boot a kernel whose headers the repositories have (the "
        "distribution's current one) and run again, or install the driver yourself and leave the driver stage out "
        "(while no driver is loaded, the toolkit stage needs the driver's version, VERSION below, e.g. 580.95.05): "
        'make site ARGS="-e blackwell_site_stages=toolkit,pytorch,verify -e cuda_toolkit_driver_version=VERSION"']
    assert result["msg"].split("\n") == ["fresh: %d refusals, each with its fix; nothing was changed." % len(refusals)] \
        + ["%d. %s" % (index, text) for index, text in enumerate(refusals, 1)], result["msg"]
    assert result["changed_before"] == [], result
