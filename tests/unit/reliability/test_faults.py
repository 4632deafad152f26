# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Faults (docs/reliability.md): the vendor repository unreachable (its fixture server stopped), apt
refusing it, a child that hangs. The plays are in conftest.py."""
from __future__ import annotations

import os
import re

from ansible_collections.blackwell.pytorch.plugins.modules import torch_cuda_check
from conftest import LOCK_TIMEOUT
from recap import files_under, recap

VARIABLES = ("nvidia_driver_repo_base_url", "nvidia_driver_repo_key_url", "nvidia_driver_repo_proxy",
             "nvidia_driver_repo_key_content")


def _key_url(run):
    return run["url"] + "cuda/debian12/x86_64/3bf863cc.pub"


def test_key_url_unreachable_stops_with_the_url_and_the_variables_before_anything_is_written(real_run):
    message = "The repository key %s cannot be fetched from key_down (" % _key_url(real_run)
    assert message in real_run["output"]
    line = real_run["output"][real_run["output"].index(message):].splitlines()[0]
    assert "Connection refused" in line and "Nothing was written." in line
    assert all(name in line for name in VARIABLES)
    assert recap(real_run["output"], "key_down")["failed"] == 1 and recap(real_run["output"], "key_down")["changed"] == 0
    assert files_under(real_run["hosts"]["key_down"]["rely_dir"]) == []


def test_key_url_unreachable_through_a_proxy_names_the_proxy_variable(real_run):
    assert "The repository key %s cannot be fetched from key_down_proxy" % _key_url(real_run) in real_run["output"]
    assert recap(real_run["output"], "key_down_proxy")["changed"] == 0
    assert files_under(real_run["hosts"]["key_down_proxy"]["rely_dir"]) == []


def test_key_url_unreachable_in_check_mode_reports_what_a_real_run_would_fetch(check_run):
    output = check_run["output"]
    assert "check mode: a real run fetches %s first and would stop here." % _key_url(check_run) in output
    assert recap(output, "key_down")["failed"] == 0 and recap(output, "key_down")["changed"] == 0
    published = output.split("Publish the repository's state")[1].splitlines()
    line = next(line for line in published if line.startswith("ok: [key_down] =>"))
    assert '"fingerprints": [], ' in line and '"usable": false' in line


def test_apt_refusing_the_repository_removes_the_source_and_says_why(real_run):
    output = real_run["output"]
    assert "apt refused %scuda/debian12/x86_64/ on secret_proxy: Err:1" % real_run["url"] in output
    assert "Check nvidia_driver_repo_url and nvidia_driver_repo_proxy. The source" in output
    source = os.path.join(real_run["hosts"]["secret_proxy"]["rely_dir"], "sources.list.d", "nvidia-cuda.list")
    assert not os.path.exists(source)


def test_a_hanging_torch_child_is_reported_as_a_timeout(run_module, tmp_path):
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\nexec sleep 60\n")
    python.chmod(0o755)
    status, result = run_module(torch_cuda_check, {"python": str(python), "timeout": 1, "parallel": 2})
    assert status == "fail"
    assert result["msg"] == "could not read torch's build facts with %s: the child timeout: timed out after 1 s" % python
    assert [(child["name"], child["status"]) for child in result["children"]] == [
        ("facts", "timeout"), ("companions", "timeout")]
    assert all(child["seconds"] < 10 for child in result["children"])


def test_apt_lock_held_by_another_process_waits_then_names_the_holder(real_run):
    output = real_run["output"]
    start = output.index("apt refused %scuda/debian12/x86_64/ on apt_locked:" % real_run["url"])
    message = output[start:].splitlines()[0]
    assert "Could not get lock " in message and "It is held by process %d" % real_run["lock_holder"] in message
    assert ("Another package manager run holds apt's lock (the process named above) and did not release it "
            "within %d s (nvidia_driver_apt_lock_timeout)" % LOCK_TIMEOUT) in message
    # apt-get update ran three times (two retries): ansible-core 2.22 names the role in the line and counts the
    # retries left after the one about to run (2.19: "(2 retries left)", "(1 retries left)"; 2.22: 1, then 0)
    retries = re.findall(r"FAILED - RETRYING: \[apt_locked\]: (?:blackwell\.pytorch\.nvidia_driver : )?"
                         r"Run apt-get update for this source only \((\d) retries left\)", output)
    assert retries in (["2", "1"], ["1", "0"])
    source = os.path.join(real_run["hosts"]["apt_locked"]["rely_dir"], "sources.list.d", "nvidia-cuda.list")
    assert not os.path.exists(source)  # removed; the next run writes it again
