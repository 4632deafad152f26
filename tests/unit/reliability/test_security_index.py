# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Security row S13 (docs/reliability.md): a package index, extra index or proxy URL with user:password@
given to the pytorch role's modules (pytorch_plan reads the index, pytorch_stack runs pip with it) at
-v --diff, real run: the password is in no output, successes and refusals alike, and the index still
got the credentials (Basic authorization)."""
from __future__ import annotations

import base64
import sys

import pytest

import wheel_index_fixture
from conftest import SECRET, stopped_server_url, uv_executable
from playbook import run
from recap import recap

RTX_5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}


def secret_url(url):
    return url.replace("http://", "http://lab:%s@" % SECRET)


@pytest.fixture(scope="module")
def index_run(tmp_path_factory):
    tree = wheel_index_fixture.build(str(tmp_path_factory.mktemp("indexes")))
    server, base = wheel_index_fixture.serve(tree)
    down = stopped_server_url()
    tmp_path = tmp_path_factory.mktemp("index_secret")
    python311 = tmp_path / "python3.11"  # the fixture index holds cp311 wheels: plan for that interpreter
    python311.write_text("#!/bin/sh\necho 'Python 3.11.9'\n")
    python311.chmod(0o755)
    plan = {"python": str(python311), "version": "2.9.1", "gpus": [RTX_5090], "driver_cuda": "13.0",
            "host": "{{ inventory_hostname }}", "index": "{{ rely_index }}", "channel_base": "{{ rely_base }}",
            "extra_indexes": ["{{ rely_extra }}"], "proxy": "{{ rely_proxy }}", "index_timeout": 5,
            "offline_fallback": "{{ inventory_hostname == 'channel_down_proxy' }}"}
    hosts = {
        "index_plan": {"rely_index": secret_url(base) + "/pypi", "rely_base": "", "rely_extra": "", "rely_proxy": ""},
        "index_down": {"rely_index": secret_url(down) + "simple", "rely_base": "", "rely_extra": "", "rely_proxy": ""},
        "channel_down_proxy": {"rely_index": "", "rely_base": secret_url(down) + "whl",
                               "rely_extra": secret_url(down) + "extra", "rely_proxy": secret_url(down)},
        "stack_pip": {"rely_index": "", "rely_base": "", "rely_extra": "", "rely_proxy": "",
                      "rely_root": str(tmp_path / "pytorch"), "rely_down": secret_url(down)},
        "stack_uv": {"rely_index": "", "rely_base": "", "rely_extra": "", "rely_proxy": "",
                     "rely_root": str(tmp_path / "pytorch-uv"), "rely_down": secret_url(down)},
        "source_pip": {"rely_index": "", "rely_base": "", "rely_extra": "", "rely_proxy": "",
                       "rely_down": secret_url(down)},
    }
    tasks = [
        {"name": "Plan from the index", "blackwell.pytorch.pytorch_plan": plan, "register": "planned",
         "when": "not inventory_hostname.startswith('stack_')"},
        {"name": "Report the plan", "ansible.builtin.debug": {"msg": "{{ planned.summary }}"},
         "when": "not inventory_hostname.startswith('stack_')"},
        {"name": "Install through an index with credentials", "blackwell.pytorch.pytorch_stack": {
            "root": "{{ rely_root }}", "state": "present", "stack": "torch-2.9.1-cu128", "python": sys.executable,
            "expected": {"torch": "2.9.1+cu128"}, "timeout": 60,
            "installer": "{{ 'uv' if inventory_hostname == 'stack_uv' else 'pip' }}", "uv": uv_executable(),
            "log": "{{ rely_root }}/install.log",
            "pip_args": ["--isolated", "--index-url", "{{ rely_down }}simple", "--extra-index-url={{ rely_down }}extra",
                         "--proxy", "{{ rely_down }}", "--retries", "0", "--timeout", "2", "torch==2.9.1+cu128"]},
         "when": "inventory_hostname.startswith('stack_')"},
        {"name": "Build from a tree that is not there, with an index with credentials",
         "blackwell.pytorch.pytorch_source_build": {
             "tree": str(tmp_path / "no-tree"), "version": "2.9.1", "python": sys.executable,
             "venv": str(tmp_path / "build-venv"), "wheelhouse": str(tmp_path / "wheels"),
             "log": str(tmp_path / "build.log"), "pip_args": ["--index-url", "{{ rely_down }}simple"]},
         "when": "inventory_hostname == 'source_pip'"},
    ]
    try:
        rc, stdout, stderr = run(tmp_path, tasks, hosts, check=False, diff=True, verbose=True,
                                 callback="ansible.builtin.default")
    finally:
        server.shutdown()
    logs = [(tmp_path / name / "install.log").read_text() for name in ("pytorch", "pytorch-uv")]
    return {"output": stdout + stderr, "auth": list(server.auth), "base": base, "down": down, "logs": logs}


def test_index_credentials_are_never_shown_and_still_sent(index_run):
    output = index_run["output"]
    assert SECRET not in output
    # the installers' logs (pip's, uv's) name the index without its password
    assert all(log and SECRET not in log for log in index_run["logs"]), index_run["logs"]
    assert recap(output, "index_plan") == dict(recap(output, "index_plan"), ok=2, failed=0)
    assert "planned from index %s/pypi (" % index_run["base"].replace("http://", "http://lab:****@") in output
    expected = "Basic " + base64.b64encode(("lab:%s" % SECRET).encode()).decode()
    assert index_run["auth"] and set(index_run["auth"]) == {expected}


def test_refusals_name_the_index_without_its_password(index_run):
    output, down = index_run["output"], index_run["down"]
    assert recap(output, "index_down")["failed"] == 1 and recap(output, "channel_down_proxy")["failed"] == 0
    masked = down.replace("http://", "http://lab:****@")
    assert "package index %ssimple/torch/ (of index %ssimple) could not be read" % (masked, masked) in output
    assert "planned from the version table instead" in output  # channel_down_proxy: offline_fallback, warned
    assert recap(output, "stack_pip")["failed"] == 1 and "pip install failed" in output
    assert recap(output, "stack_uv")["failed"] == 1 and "uv pip install failed" in output
    assert "Failed to fetch" in output or "error:" in output  # uv's own reason, its URL masked
    assert recap(output, "source_pip")["failed"] == 1 and "is it a PyTorch source tree?" in output
