# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""planning/git_source.py: the PyTorch tree fetched by real git from a repository served over HTTP with basic
authentication (git http-backend behind a small server of this test), with pytorch_source_git_url carrying the
user name and password. While it runs every process's command line (/proc/*/cmdline) is read: the password is on
none of them, nor in the tree's .git/config; the clone works, and a submodule on another host is not sent it."""
from __future__ import annotations

import base64
import http.server
import os
import subprocess
import threading
import time

import pytest

from proc_watch import ProcWatch
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import git_source

USER, PASSWORD = "build", "g1tS3cretPass"
BACKEND = os.path.join(subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True).stdout.strip(),
                       "git-http-backend")


def _git(*argv, cwd=None):
    subprocess.run(["git"] + list(argv), cwd=cwd, check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                            GIT_COMMITTER_EMAIL="t@t"))


class _Backend(http.server.BaseHTTPRequestHandler):
    """git http-backend as CGI, behind basic authentication; each request held a little (the processes live long
    enough to be seen)."""
    root, seen, delay = "", [], 0.2

    def log_message(self, *args):  # quiet
        pass

    def _serve(self):
        expected = "Basic " + base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode()
        self.seen.append(self.headers.get("Authorization") == expected)
        if self.headers.get("Authorization") != expected:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        time.sleep(self.delay)
        path, query = (self.path.split("?", 1) + [""])[:2]
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        env = dict(os.environ, GIT_PROJECT_ROOT=self.root, GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path,
                   QUERY_STRING=query, REQUEST_METHOD=self.command, REMOTE_USER=USER,
                   CONTENT_TYPE=self.headers.get("Content-Type", ""), CONTENT_LENGTH=str(len(body)),
                   GIT_PROTOCOL=self.headers.get("Git-Protocol", ""))
        out = subprocess.run([BACKEND], input=body, env=env, capture_output=True, check=False).stdout
        head, payload = (out.split(b"\r\n\r\n", 1) + [b""])[:2]
        status = 200
        headers = []
        for line in head.decode().split("\r\n"):
            name, value = (line.split(":", 1) + [""])[:2]
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = _serve


@pytest.fixture()
def served(tmp_path):
    """A repository with a tag v1.0 and a branch main, served at http://127.0.0.1:<port>/pytorch.git."""
    work = tmp_path / "work"
    work.mkdir()
    _git("init", "-q", "-b", "main", str(work))
    (work / "setup.py").write_text("print('torch')\n")
    _git("add", "setup.py", cwd=str(work))
    _git("commit", "-q", "-m", "one", cwd=str(work))
    _git("tag", "v1.0", cwd=str(work))
    _git("clone", "-q", "--bare", str(work), str(tmp_path / "srv" / "pytorch.git"))
    handler = type("Handler", (_Backend,), {"root": str(tmp_path / "srv"), "seen": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield {"url": "http://%s:%s@127.0.0.1:%d/pytorch.git" % (USER, PASSWORD, server.server_port),
           "host": "127.0.0.1:%d" % server.server_port, "work": work, "seen": handler.seen}
    server.shutdown()


def _watcher():
    """A ProcWatch (tests/unit/proc_watch.py) and what it keeps: git's command lines, and those holding the password."""
    found = {"git": set(), "leaked": []}

    def seen(_pid, line):
        if "git" in line:
            found["git"].add(line)
        if PASSWORD in line:
            found["leaked"].append(line)
    return ProcWatch(seen), found


def _run(argv, env):
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout, done.stderr


def test_a_password_in_the_git_url_is_on_no_command_line_and_the_clone_works(served, tmp_path):
    watch, found = _watcher()
    with watch:
        result = git_source.checkout(_run, "git", served["url"], str(tmp_path / "tree"), "v1.0", recursive=True)
    assert result["changed"] is True and len(result["after"]) == 40, result
    assert result["repo"] == "http://%s/pytorch.git" % served["host"]
    assert (tmp_path / "tree" / "setup.py").read_text() == "print('torch')\n"
    assert found["leaked"] == [], found["leaked"]
    # git was seen running (fetch, git-remote-http: the URL without credentials) and the server was asked with them
    assert any("remote-http" in line or " fetch " in line for line in found["git"]), found["git"]
    # each request without the credentials got a 401 (_serve); the clone's content came with them
    assert served["seen"].count(True) >= 1, served["seen"]
    assert PASSWORD not in (tmp_path / "tree" / ".git" / "config").read_text()


def test_a_rerun_updates_a_branch_and_leaves_a_tag_as_it_is(served, tmp_path):
    tree = str(tmp_path / "tree")
    first = git_source.checkout(_run, "git", served["url"], tree, "main")
    assert git_source.checkout(_run, "git", served["url"], tree, "main")["changed"] is False
    (served["work"] / "setup.py").write_text("print('torch 2')\n")
    _git("commit", "-q", "-am", "two", cwd=str(served["work"]))
    _git("push", "-q", str(tmp_path / "srv" / "pytorch.git"), "main", cwd=str(served["work"]))
    second = git_source.checkout(_run, "git", served["url"], tree, "main")
    assert second["changed"] is True and second["before"] == first["after"] != second["after"]
    assert (tmp_path / "tree" / "setup.py").read_text() == "print('torch 2')\n"


def test_a_wrong_password_fails_naming_the_url_without_it(served, tmp_path):
    url = served["url"].replace(PASSWORD, "wrong")
    with pytest.raises(RuntimeError) as raised:
        git_source.checkout(_run, "git", url, str(tmp_path / "tree"), "v1.0")
    assert str(raised.value).startswith("git fetch of http://%s/pytorch.git (v1.0) failed (rc 128): " % served["host"])
    assert "wrong" not in str(raised.value)


def test_the_credential_program_answers_only_for_the_mirrors_host():
    public, env = git_source.git_environment("https://build:p%40ss@git.lab:8443/pytorch.git", {"GIT_CONFIG_COUNT": "1"})
    assert public == "https://git.lab:8443/pytorch.git"
    assert (env["GIT_CONFIG_COUNT"], env["GIT_CONFIG_KEY_1"], env["BLACKWELL_GIT_HOST"], env["BLACKWELL_GIT_USERNAME"],
            env["BLACKWELL_GIT_PASSWORD"]) == ("2", "credential.helper", "git.lab:8443", "build", "p@ss")
    program = env["GIT_CONFIG_VALUE_1"][1:]
    ask = 'sh -c \'%s "$@"\' program get' % program.replace("'", "'\\''")
    for host, answer in (("git.lab:8443", "username=build\npassword=p@ss\n"), ("github.com", "")):
        done = subprocess.run(ask, shell=True, input="protocol=https\nhost=%s\n\n" % host, env=env,
                              capture_output=True, text=True, check=True)
        assert done.stdout == answer
    assert git_source.git_environment("https://github.com/pytorch/pytorch.git", {})[1] == {"GIT_TERMINAL_PROMPT": "0"}


def test_the_watch_sees_the_password_of_a_url_given_to_git_as_it_is(served, tmp_path):
    # what the role ran before (ansible.builtin.git: `git clone --depth 1 <url>`): the password on the command line
    # of git and git-remote-http for the whole clone, and in .git/config after it
    watch, found = _watcher()
    with watch:
        _git("clone", "-q", "--depth", "1", served["url"], str(tmp_path / "tree"))
    assert found["leaked"] and any("remote-http" in line for line in found["leaked"]), found
    assert PASSWORD in (tmp_path / "tree" / ".git" / "config").read_text()
