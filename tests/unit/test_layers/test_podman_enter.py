"""tests/fixtures/molecule/podman_enter.py: how the molecule connection enters a container without `podman exec`,
and tests/fixtures/molecule/platforms.py: the `podman run` of a platform."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "tests", "fixtures", "molecule", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


enter = load("podman_enter")
platforms = load("platforms")


def test_the_bounding_set_of_podmans_default_capabilities():
    # CapBnd of a container's first process under podman's defaults
    assert enter.bounding_set("00000000a80425fb") == (
        "-all,+chown,+dac_override,+fowner,+fsetid,+kill,+setgid,+setuid,+setpcap,+net_bind_service,+net_raw,"
        "+sys_chroot,+mknod,+audit_write,+setfcap")
    assert enter.bounding_set("0") == "-all"


def test_the_start_time_of_this_process_and_of_none():
    assert enter.start_time(os.getpid()).isdigit()
    assert enter.start_time(2 ** 22 + 7) is None


def fake_inspect(pid, calls):
    def run(argv, **_kwargs):
        calls.append(argv)
        env = ["PATH=/usr/bin:/bin", "HOSTNAME=abc", "container=podman", "container_uuid=123", "HOME=/root"]
        document = [{"State": {"Pid": pid}, "Config": {"Env": env}}]
        return subprocess.CompletedProcess(argv, 0, json.dumps(document).encode(), b"")
    return run


def test_the_target_is_read_once_while_its_first_process_lives(tmp_path):
    calls = []

    def read(name, podman):
        return enter.read_target(name, podman, run=fake_inspect(os.getpid(), calls))
    first = enter.target("bw-a", cache_dir=str(tmp_path), read=read)
    again = enter.target("bw-a", cache_dir=str(tmp_path), read=read)
    assert first == again and len(calls) == 1
    assert first["env"] == ["PATH=/usr/bin:/bin", "container=podman", "HOME=/root"]  # as podman exec gives it
    assert first["pid"] == os.getpid() and first["bounding"].startswith("-all")


def test_a_kept_target_whose_process_ended_is_read_again(tmp_path):
    calls = []
    (tmp_path / "bw-a.json").write_text(json.dumps({"pid": 2 ** 22 + 7, "start": "1", "env": [], "bounding": "-all"}))
    found = enter.target("bw-a", cache_dir=str(tmp_path),
                         read=lambda name, podman: enter.read_target(name, podman, run=fake_inspect(os.getpid(), calls)))
    assert len(calls) == 1 and found["pid"] == os.getpid()
    assert json.loads((tmp_path / "bw-a.json").read_text()) == found


def test_podman_exec_is_kept_when_asked_or_not_root(monkeypatch):
    assert enter.enter_argv("bw-a", environ={"BLACKWELL_TEST_NSENTER": "0"}) is None
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert enter.enter_argv("bw-a", environ={}) is None


@pytest.mark.skipif(os.geteuid() != 0 or not __import__("shutil").which("nsenter"), reason="needs root and nsenter")
def test_the_argv_enters_every_namespace_with_the_containers_capabilities(tmp_path, monkeypatch):
    monkeypatch.setattr(enter, "target", lambda name, podman: {"pid": 42, "start": "9", "env": ["PATH=/bin", "A=b=c"],
                                                               "bounding": "-all,+chown"})
    argv, env = enter.enter_argv("bw-a", environ={})
    assert argv[1:] == ["--target", "42", "--mount", "--uts", "--ipc", "--net", "--pid", "--cgroup", "--root", "--wd",
                        "--", "setpriv", "--bounding-set", "-all,+chown", "--inh-caps", "-all", "--"]
    assert env == {"PATH": "/bin", "A": "b=c"}


def test_a_platforms_podman_run_carries_what_molecule_yml_says():
    assert platforms.run_argv({
        "name": "bw-x", "image": "localhost/img", "command": "python3 -u /srv/serve.py 8080", "systemd": "always",
        "network": "net", "volumes": ["/a:/b:ro"], "extra_opts": ["--stop-signal=SIGINT"], "env": {"K": "v"}}) == [
        "podman", "run", "--detach", "--name", "bw-x", "--hostname", "bw-x", "--label", "owner=molecule",
        "--network", "net", "--systemd", "always", "--volume", "/a:/b:ro", "--env", "K=v", "--stop-signal=SIGINT",
        "localhost/img", "python3", "-u", "/srv/serve.py", "8080"]
    assert platforms.networks([{"network": "n1"}, {}, {"network": "n1"}, {"network": "n2"}]) == ["n1", "n2"]
