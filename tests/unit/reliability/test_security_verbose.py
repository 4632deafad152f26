# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Security row S15 (docs/reliability.md): the repository proxy's password at -vvvv. The key fetch used to pass
the proxy through the task's `environment:`, which Ansible writes in front of the module's command line
(`http_proxy=http://lab:PASSWORD@... python AnsiballZ_uri.py`): shown at -vvv, and to every local user in ps.
A check run of the nvidia_driver `repo` entry point at -vvvv (one key fetched through a proxy that wants its
credentials, one through a proxy that is down), and a scan: no task of any role passes a credential-bearing
variable through `environment:`."""
from __future__ import annotations

import base64
import http.server
import os
import re
import threading

import pytest
import yaml

from conftest import SECRET, stopped_server_url
from keys import RSA_FPR, RSA_KEY
from playbook import PREFLIGHT, ROOT, facts, run

PROXY_AUTH = "Basic " + base64.b64encode(("lab:%s" % SECRET).encode()).decode()


class _KeyProxy(http.server.BaseHTTPRequestHandler):
    """A proxy that serves the key for http://keys.lab/... to a client that gives its credentials (407 else)."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.asked.append((self.path, self.headers.get("Proxy-Authorization")))
        if not self.path.startswith("http://keys.lab/") or self.headers.get("Proxy-Authorization") != PROXY_AUTH:
            self.send_response(407)
            self.send_header("Proxy-Authenticate", 'Basic realm="lab"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = RSA_KEY.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/pgp-keys")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def verbose_run(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("verbose")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _KeyProxy)
    server.asked = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    down = stopped_server_url()
    repo = {"blackwell_preflight": PREFLIGHT, "rely_facts": facts(), "nvidia_driver_repo_url": down + "cuda/debian12/x86_64/",
            "nvidia_driver_repo_key_fingerprints": [RSA_FPR], "nvidia_driver_repo_key_url": "http://keys.lab/3bf863cc.pub"}
    proxies = {"proxied_key": "http://lab:%s@127.0.0.1:%d" % (SECRET, server.server_address[1]),
               "proxy_down": "http://lab:%s@%s" % (SECRET, down[len("http://"):])}
    hosts = dict((name, dict(repo, nvidia_driver_repo_proxy=proxy)) for name, proxy in proxies.items())
    for name, values in hosts.items():
        values["rely_dir"] = str(tmp_path / "hosts" / name)
        os.makedirs(values["rely_dir"])
    tasks = [{"name": "Configure the vendor repository", "ansible.builtin.include_role": {
        "name": "blackwell.pytorch.nvidia_driver", "tasks_from": "repo"}, "vars": {"ansible_facts": "{{ rely_facts }}"}}]
    paths = {"nvidia_driver_repo_keyring": "{{ rely_dir }}/keyrings/nvidia-cuda.asc",
             "_nvidia_driver_source_path": "{{ rely_dir }}/sources.list.d/nvidia-cuda.list",
             "_nvidia_driver_proxy_path": "{{ rely_dir }}/apt.conf.d/90nvidia-cuda-proxy"}
    try:
        rc, stdout, stderr = run(tmp_path, tasks, hosts, extra_vars=paths, check=True, diff=True, verbose=4,
                                 callback="ansible.builtin.default")
    finally:
        server.shutdown()
    return {"rc": rc, "output": stdout + stderr, "asked": list(server.asked)}


def test_the_repository_proxy_password_is_not_shown_at_vvvv(verbose_run):
    output = verbose_run["output"]
    assert "<127.0.0.1> EXEC" in output or "EXEC /bin/sh -c" in output  # the command lines were shown
    assert [line for line in output.splitlines() if SECRET in line] == []
    assert "AnsiballZ_vendor_repo.py" in output
    # the proxy was used, with its credentials: the key came through it and passed the pinned fingerprint
    assert ("http://keys.lab/3bf863cc.pub", PROXY_AUTH) in verbose_run["asked"]
    assert "The repository key http://keys.lab/3bf863cc.pub cannot be fetched from proxy_down" in output
    assert "cannot be fetched from proxied_key" not in output and "is not trusted on proxied_key" not in output


# variables whose value may carry a password: proxies, URLs, tokens, passwords, netrc, pip's extra arguments
CREDENTIAL_VARIABLE = re.compile(r"\b\w*(proxy|password|passwd|token|secret|netrc|_url|_urls|extra_args)\b")


def _tasks(node):
    if isinstance(node, list):
        for item in node:
            yield from _tasks(item)
    elif isinstance(node, dict):
        for key in ("block", "rescue", "always", "tasks", "pre_tasks", "post_tasks", "handlers"):
            yield from _tasks(node.get(key) or [])
        yield node


def test_no_task_passes_a_credential_through_its_environment():
    found, checked = [], 0
    for folder in ("roles", "playbooks"):
        for top, _dirs, names in os.walk(os.path.join(ROOT, folder)):
            for name in names:
                if not name.endswith((".yml", ".yaml")) or "/molecule" in top:
                    continue
                path = os.path.join(top, name)
                with open(path) as handle:
                    document = yaml.safe_load(handle)
                for task in _tasks(document if isinstance(document, list) else []):
                    if "environment" in task:
                        checked += 1
                        if CREDENTIAL_VARIABLE.search(str(task["environment"])):
                            found.append((os.path.relpath(path, ROOT), task.get("name")))
    assert found == []
    assert CREDENTIAL_VARIABLE.search("{'http_proxy': nvidia_driver_repo_proxy}")  # the scan catches the old form
