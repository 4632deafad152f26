# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The package_install module: the log, <log>.rc, changed and the failure, with an apt-get of the test's
own first on PATH (a real process that prints what apt prints; the machine's packages are never touched)."""
from __future__ import annotations

import os
import stat

import pytest

from ansible_collections.blackwell.pytorch.plugins.modules import package_install

INSTALLED = "The following NEW packages will be installed:\n  nvidia-open\n0 upgraded, 1 newly installed, 0 to remove.\n" \
            "Get:1 http://mirror.lab/cuda nvidia-open 580.95.05-1 [2,048 kB]\nSetting up nvidia-open (580.95.05-1) ...\n"


@pytest.fixture
def apt_get(tmp_path, monkeypatch):
    """apt-get that records its argv and environment, prints `output` and exits with `rc`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    seen = tmp_path / "argv"

    def install(output, rc=0):
        script = bin_dir / "apt-get"
        script.write_text("#!/bin/sh\necho \"$@ DEBIAN_FRONTEND=$DEBIAN_FRONTEND\" > %s\ncat <<'OUT'\n%sOUT\n"
                          "echo 'W: a warning' >&2\nexit %d\n" % (seen, output, rc))
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
        return seen
    monkeypatch.setenv("PATH", "%s:%s" % (bin_dir, os.environ.get("PATH", "")))
    return install


def test_the_install_goes_to_the_log_and_ends_with_the_rc_file(run_module, apt_get, tmp_path):
    seen = apt_get(INSTALLED)
    log = str(tmp_path / "logs" / "install.log")
    kind, result = run_module(package_install, {"names": ["nvidia-open"], "log": log, "run_id": "7.5",
                                                "lock_timeout": 9})
    assert kind == "exit" and result["changed"] is True and result["rc"] == 0, result
    assert result["summary"] == {"upgraded": 0, "installed": 1, "removed": 0}
    assert result["progress"] == "1/1 packages fetched, 2.0 MB; Setting up nvidia-open (580.95.05-1) ..."
    with open(log) as handle:
        text = handle.read()
    assert text.startswith("$ apt-get install -y -o DPkg::Lock::Timeout=9 ") and "W: a warning" in text
    with open(log + ".rc") as handle:
        assert handle.read() == "7.5 0\n"
    assert seen.read_text().strip().endswith("--no-upgrade nvidia-open DEBIAN_FRONTEND=noninteractive")


def test_nothing_to_do_is_not_a_change(run_module, apt_get, tmp_path):
    apt_get("nvidia-open is already the newest version.\n0 upgraded, 0 newly installed, 0 to remove.\n")
    kind, result = run_module(package_install, {"names": ["nvidia-open"], "log": str(tmp_path / "l"),
                                                "state": "latest"})
    assert kind == "exit" and result["changed"] is False


def test_a_failed_install_names_apts_error_and_the_log(run_module, apt_get, tmp_path):
    apt_get("E: Unable to locate package nvidia-open\n", rc=100)
    log = str(tmp_path / "l")
    kind, result = run_module(package_install, {"names": ["nvidia-open"], "log": log, "run_id": "1"})
    assert kind == "fail" and result["rc"] == 100
    assert result["msg"] == ("apt-get install nvidia-open failed (rc 100): E: Unable to locate package nvidia-open; "
                             "see %s" % log)
    with open(log + ".rc") as handle:
        assert handle.read() == "1 100\n"


def test_check_mode_simulates_and_writes_nothing(run_module, apt_get, tmp_path):
    seen = apt_get(INSTALLED)
    log = str(tmp_path / "l")
    kind, result = run_module(package_install, {"names": ["nvidia-open"], "log": log, "_ansible_check_mode": True})
    assert kind == "exit" and result["changed"] is True
    assert " -s nvidia-open " in seen.read_text() and not os.path.exists(log) and not os.path.exists(log + ".rc")
