# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ansible-core window: what meta/runtime.yml claims is what `make test` runs at both ends.

The oldest end is requirements.txt's pin (every layer runs under it); the newest is
tests/requirements-core-newest.txt's (tests/bin/core-newest.sh runs the real plays and one scenario under it).
"""
from __future__ import annotations

import os
import re

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# A test file that runs one of ansible-core's commands, or a play through tests/unit/reliability/playbook.py.
RUNS_ANSIBLE = re.compile(r"from playbook import|import playbook|PLAYBOOK_BIN|[\"']ansible-(playbook|pull|galaxy|doc)\b")


def pins(path):
    """{name: version} of a requirements file's name==version lines (comments and -r lines left out)."""
    found = {}
    with open(os.path.join(ROOT, path)) as handle:
        for line in handle:
            match = re.match(r"^([A-Za-z0-9_.\[\]-]+)==([^\s#]+)", line)
            if match:
                found[match.group(1)] = match.group(2)
    return found


def play_tests():
    """PLAY_TESTS of tests/bin/core-newest.sh."""
    with open(os.path.join(ROOT, "tests", "bin", "core-newest.sh")) as handle:
        text = handle.read()
    body = re.search(r"^PLAY_TESTS=\(\n(.*?)^\)", text, re.S | re.M).group(1)
    return [line.strip() for line in body.splitlines() if line.strip()]


def test_every_test_file_that_runs_ansible_core_runs_under_the_newest_too():
    listed = play_tests()
    assert listed[0] == "tests/unit/reliability"
    for path in listed:
        assert os.path.exists(os.path.join(ROOT, path)), path
    missing = []
    for top, dirs, files in os.walk(os.path.join(ROOT, "tests", "unit")):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(top, name), ROOT)
            if not (name.startswith("test_") and name.endswith(".py")) or rel == "tests/unit/test_layers/test_core_newest.py":
                continue
            with open(os.path.join(top, name)) as handle:
                if RUNS_ANSIBLE.search(handle.read()) and not any(rel == p or rel.startswith(p + "/") for p in listed):
                    missing.append(rel)
    assert missing == []


def test_the_newest_venv_pins_what_the_test_venv_pins_but_ansible_core():
    oldest = dict(pins("requirements.txt"), **pins("requirements-test.txt"))
    newest = pins("tests/requirements-core-newest.txt")
    assert set(newest) - set(oldest) == set()
    assert dict((k, v) for k, v in newest.items() if k != "ansible-core") == \
        dict((k, oldest[k]) for k in newest if k != "ansible-core")
    assert oldest["ansible-core"] != newest["ansible-core"]


def test_requires_ansible_is_the_tested_window():
    with open(os.path.join(ROOT, "meta", "runtime.yml")) as handle:
        claim = yaml.safe_load(handle)["requires_ansible"]
    oldest = pins("requirements.txt")["ansible-core"]
    newest = pins("tests/requirements-core-newest.txt")["ansible-core"]
    major, minor = re.match(r"^(\d+)\.(\d+)\.", newest).groups()
    assert claim == ">=%s,<%s.%d.0" % (oldest, major, int(minor) + 1)
    assert (oldest, newest) == ("2.19.14", "2.22.0rc1")
