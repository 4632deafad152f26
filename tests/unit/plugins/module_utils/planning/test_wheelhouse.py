# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet's wheelhouse: its names, the refusal of a request with no wheels to fetch, the download command, the
hashes file, the report line and the steps of a host that installs from it."""
from __future__ import annotations

import hashlib

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import wheelhouse as wh

WHEEL = {"stack": "torch-2.9.1-cu128", "method": "wheel", "pins": ["torch==2.9.1+cu128"]}
CACHE = {"stack": "torch-2.9.1-cu128", "controller_dir": "/srv/wheels/torch-2.9.1-cu128",
         "host_dir": "/opt/pytorch/wheelhouses/torch-2.9.1-cu128", "hashes": "hashes.txt"}
REFUSAL = ("A fleet wheelhouse holds the wheels of a planned wheel install from an index; this request (%s) has none "
           "to fetch: run it without the cache (a source build is shared through pytorch_build_host; a wheelhouse is "
           "already local).")


def test_cache_names_the_stacks_wheelhouse_on_the_host_and_the_controller():
    assert wh.cache("torch-2.9.1-cu128", "/opt/pytorch", "/srv/wheels") == CACHE


@pytest.mark.parametrize("plan, adopt_path, wheelhouse, what", [
    (WHEEL, "", "", None),
    (None, "/srv/venv", "", "adopts /srv/venv"),
    (dict(WHEEL, method="source"), "", "", "method source"),
    (WHEEL, "", "/srv/wh", "method wheel, wheelhouse /srv/wh"),
], ids=["wheel", "adopting", "source", "local-wheelhouse"])
def test_refusal(plan, adopt_path, wheelhouse, what):
    assert wh.refusal(plan, adopt_path, wheelhouse) == ("" if what is None else REFUSAL % what)


def test_fetch_names_the_wheelhouse_of_the_decision_or_refuses():
    state = {"plan": WHEEL, "root": "/opt/pytorch", "adopt_path": "", "check_mode": True}
    assert wh.fetch(state, "/srv/wheels", "") == {
        "refusal": "", "cache": CACHE, "hashes_path": "/srv/wheels/torch-2.9.1-cu128/hashes.txt",
        "pins": ["torch==2.9.1+cu128"], "check_mode": True}
    assert wh.fetch(dict(state, plan=None, adopt_path="/srv/venv"), "/srv/wheels", "") == {
        "refusal": REFUSAL % "adopts /srv/venv", "cache": None, "hashes_path": "", "pins": [], "check_mode": True}
    assert wh.fetch(state, "/srv/wheels", "/srv/wh")["refusal"] == REFUSAL % "method wheel, wheelhouse /srv/wh"


def test_fetched_reports_a_skipped_download_as_complete_else_the_download():
    names = wh.fetch({"plan": WHEEL, "root": "/opt/pytorch"}, "/srv/wheels", "")
    files = ["/w/torch-2.9.1+cu128-py3-none-any.whl", "/w/hashes.txt"]
    assert wh.fetched(names, {"skipped": True, "changed": False}) == wh.report(CACHE, True, False, WHEEL["pins"], [])
    assert wh.fetched(names, {"files": files}) == wh.report(CACHE, False, False, WHEEL["pins"], files)
    assert wh.fetched(dict(names, check_mode=True), {"files": []}) == wh.report(CACHE, False, True, WHEEL["pins"], [])
    with pytest.raises(ValueError, match="^no fleet wheelhouse to report: nope$"):
        wh.fetched({"refusal": "nope", "cache": None}, {})


def test_report_says_whether_it_was_there_would_be_downloaded_or_was():
    head = "torch-2.9.1-cu128: wheelhouse /srv/wheels/torch-2.9.1-cu128 on the controller "
    assert wh.report(CACHE, True, False, [], []) == head + "(already complete, nothing downloaded)"
    assert wh.report(CACHE, False, True, ["torch==2.9.1+cu128", "torchvision==0.24.1+cu128"], []) == head + (
        "(check mode: not there yet; a run without --check downloads the planned wheels (torch==2.9.1+cu128, "
        "torchvision==0.24.1+cu128) and their dependencies from the index once)")
    files = ["/w/torch-2.9.1+cu128-py3-none-any.whl", "/w/numpy-2.3.4-cp312-cp312-linux_x86_64.whl", "/w/hashes.txt"]
    assert wh.report(CACHE, False, False, [], files) == head + "(2 wheels downloaded from the index once)"


def test_download_command_puts_only_binary_last():
    assert wh.download_command("/opt/blackwell/tools/bin/python", "/opt/pytorch/wheelhouses/s", "3.12",
                               ["--index-url", "https://download.pytorch.org/whl/cu128", "--only-binary",
                                "torch,torchvision,torchaudio", "torch==2.9.1+cu128"]) == [
        "/opt/blackwell/tools/bin/python", "-m", "pip", "download", "--disable-pip-version-check", "--no-input",
        "--dest", "/opt/pytorch/wheelhouses/s", "--python-version", "3.12", "--index-url",
        "https://download.pytorch.org/whl/cu128", "--only-binary", "torch,torchvision,torchaudio", "torch==2.9.1+cu128",
        "--only-binary=:all:"]


def test_hash_lines_pin_each_wheel_by_name_and_sha256(tmp_path):
    (tmp_path / "torchvision-0.24.1+cu128-py3-none-any.whl").write_bytes(b"vision")
    (tmp_path / "torch-2.9.1+cu128-py3-none-any.whl").write_bytes(b"torch")
    (tmp_path / "hashes.txt").write_text("old\n")
    assert wh.wheels(str(tmp_path)) == ["torch-2.9.1+cu128-py3-none-any.whl", "torchvision-0.24.1+cu128-py3-none-any.whl"]
    assert wh.hash_lines(str(tmp_path)) == (
        "torch==2.9.1+cu128 --hash=sha256:%s\ntorchvision==0.24.1+cu128 --hash=sha256:%s\n" % (
            hashlib.sha256(b"torch").hexdigest(), hashlib.sha256(b"vision").hexdigest()))


def test_others_are_the_other_stacks_wheelhouses(tmp_path):
    assert wh.others(str(tmp_path / "wheelhouses"), "s") == []
    for name in ("torch-2.8.0-cu128", "torch-2.9.1-cu128", ".tmp"):
        (tmp_path / name).mkdir()
    (tmp_path / "hashes.txt").write_text("")
    assert wh.others(str(tmp_path), "torch-2.9.1-cu128") == ["torch-2.8.0-cu128"]


def test_hash_lines_of_an_empty_wheelhouse(tmp_path):
    assert wh.hash_lines(str(tmp_path)) == "\n"


def test_use_copies_the_named_wheelhouse_or_previews_it_in_a_check_run(tmp_path):
    source = {"stack": "torch-2.9.1-cu128", "controller_dir": "/srv/wheels/torch-2.9.1-cu128", "hashes": "hashes.txt"}
    steps = wh.use(source, "/opt/pytorch", False)
    assert steps == {"refusal": "", "pending": False, "dir": "/opt/pytorch/wheelhouses/torch-2.9.1-cu128",
                     "hashes_file": "/opt/pytorch/wheelhouses/torch-2.9.1-cu128/hashes.txt",
                     "preview": steps["preview"]}
    assert steps["preview"] == {
        "stack": "torch-2.9.1-cu128", "python": "/opt/pytorch/current/bin/python", "torch": "", "channel": "",
        "method": "wheel", "converged": False, "check": None, "source": None, "warnings": [],
        "preview": "check mode: the fleet's wheelhouse /srv/wheels/torch-2.9.1-cu128 is not on the controller yet (the "
                   "cache host downloads it in a run without --check); a real run copies it here and installs "
                   "torch-2.9.1-cu128 from it, every wheel checked against its sha256"}
    assert wh.use(source, "/opt/pytorch", True)["pending"] is True  # a check run, not on the controller
    there = dict(source, controller_dir=str(tmp_path))
    assert wh.use(there, "/opt/pytorch", True)["pending"] is False  # a check run copies what the controller holds
    (tmp_path / "file").write_text("")
    assert wh.use(dict(source, controller_dir=str(tmp_path / "file")), "/opt/pytorch", True)["pending"] is True


@pytest.mark.parametrize("source, shown", [
    ({}, "{}"), ({"stack": "torch-2.9.1-cu128"}, "{'stack': 'torch-2.9.1-cu128'}"), ("cache-1", "cache-1")])
def test_use_refuses_what_names_no_fleet_wheelhouse(source, shown):
    assert wh.use(source, "/opt/pytorch", True) == {
        "refusal": "pytorch_wheelhouse_from names no fleet wheelhouse (%s): run the pytorch role's wheelhouse entry "
                   "point on the cache host first and pass its pytorch_wheelhouse_cache fact." % shown,
        "pending": False, "dir": "", "hashes_file": "", "preview": None}
