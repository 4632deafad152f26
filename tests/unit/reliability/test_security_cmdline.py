# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Security row S14 (docs/reliability.md): a real install by pytorch_stack, with pip and with uv, from an index
whose URL carries a user name and password, through a proxy whose URL carries another, while every process's
command line (/proc/PID/cmdline) is read over and over: no password is on any of them (every local user reads
them in ps), and the install still authenticates (the fixture index and proxy see both credentials)."""
from __future__ import annotations

import base64
import os
import tempfile
import threading
import time

import pytest

import wheel_index_fixture
from conftest import INSTALLERS, STACK, stack_args
from proc_watch import ProcWatch

INDEX_PASSWORD, PROXY_PASSWORD = "1ndexPass", "k1llPass"
INDEX_AUTH = "Basic " + base64.b64encode(b"iuser:" + INDEX_PASSWORD.encode()).decode()
PROXY_AUTH = "Basic " + base64.b64encode(b"kuser:" + PROXY_PASSWORD.encode()).decode()


class _IndexBehindProxy(wheel_index_fixture._Handler):
    """The stand-in index as the host index.lab, reachable only through this proxy: a request asked as a proxy
    without the proxy's credentials gets 407, one without the index's 401; each answer takes a while, so the
    installer runs long enough to be seen."""

    def do_GET(self):
        self.server.proxy_auth.append(self.headers.get("Proxy-Authorization"))
        if not self.path.startswith("http://index.lab/") or self.headers.get("Proxy-Authorization") != PROXY_AUTH:
            return self._refuse(407, "Proxy-Authenticate")
        if self.headers.get("Authorization") != INDEX_AUTH:
            return self._refuse(401, "WWW-Authenticate")
        time.sleep(0.3)
        return super().do_GET()

    def _refuse(self, status, header):
        self.server.refused.append((self.path, status))
        self.send_response(status)
        self.send_header(header, 'Basic realm="lab"')
        self.send_header("Content-Length", "0")
        self.end_headers()


def _watcher():
    """A ProcWatch (tests/unit/proc_watch.py) and the command lines it keeps: the installers' and those holding a
    password ({line: pid})."""
    seen_lines = {}

    def seen(pid, line):
        if "pip" in line or "uv" in line or PROXY_PASSWORD in line or INDEX_PASSWORD in line:
            seen_lines.setdefault(line, pid)
    return ProcWatch(seen, pause=0.01), seen_lines


@pytest.fixture(scope="module")
def index_behind_proxy(stand_in_wheels):
    root = os.path.dirname(stand_in_wheels["files"])

    def handler(*args, **kwargs):
        return _IndexBehindProxy(*args, directory=root, **kwargs)
    server = wheel_index_fixture.http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.seen, server.proxied, server.json_pages, server.ranges = [], [], False, True
    server.auth, server.proxy_auth, server.refused = [], [], []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()


@pytest.mark.parametrize("installer", INSTALLERS)
def test_no_password_is_on_any_command_line_while_the_install_runs(installer, index_behind_proxy, tmp_path, monkeypatch):
    from ansible_collections.blackwell.pytorch.plugins.modules import pytorch_stack
    from module_run import run_module_once
    for name in ("no_proxy", "NO_PROXY", "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy",
                 "ALL_PROXY", "PIP_INDEX_URL", "PIP_PROXY"):
        monkeypatch.delenv(name, raising=False)
    server = index_behind_proxy
    del server.auth[:], server.proxy_auth[:], server.refused[:], server.proxied[:]
    proxy = "http://kuser:%s@127.0.0.1:%d" % (PROXY_PASSWORD, server.server_address[1])
    args = stack_args(tmp_path / "pytorch", "", installer, run_id="s14", pip_args=[
        "--index-url", "http://iuser:%s@index.lab/whl/cu128" % INDEX_PASSWORD, "--trusted-host", "index.lab",
        "--proxy", proxy, "--only-binary", "torch", "torch==2.9.1+cu128"])
    # the private directory of the index's credentials goes in a temporary directory of this test's own (other
    # test runs on the machine make theirs in /tmp at the same time)
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private_tmp))
    watch, seen_lines = _watcher()
    with watch:
        status, result = run_module_once(pytorch_stack, args)
    assert (status, result.get("msg")) == ("exit", None) and result["stack"] == STACK and result["installed"]
    installers = [line for line in seen_lines if (" pip install " in line or "uv pip install" in line)
                  and "torch==2.9.1+cu128" in line]
    assert installers, "the installer's command line was never read while it ran"  # the watch saw the install
    if installer == "pip":  # pip reads the index's URL from a private file (uv from its environment)
        assert all(" --requirement %s/blackwell-pytorch-" % private_tmp in line for line in installers)
    leaked = [line for line in seen_lines if INDEX_PASSWORD in line or PROXY_PASSWORD in line]
    assert leaked == []
    # it still authenticated: every request came through the proxy with its credentials; what was served was
    # asked with the index's (uv asks a file outside the index's path without them first, then again with them)
    assert set(server.proxy_auth) == {PROXY_AUTH} and set(server.auth) == {INDEX_AUTH}
    assert [status for _path, status in server.refused if status != 401] == []
    assert set(path for path, _status in server.refused) <= set(server.proxied)
    assert any(url.startswith("http://index.lab/files/torch-2.9.1") for url in server.proxied)
    assert os.listdir(str(private_tmp)) == []  # the private file went with its call, its directory too
