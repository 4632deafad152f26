# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The package_install module: the log, <log>.rc, changed and the failure, with an apt-get, dnf and rpm of the
test's own first on PATH (real processes that print what apt and dnf print; the machine's packages are never
touched)."""
from __future__ import annotations

import os
import shutil
import stat

import pytest

from ansible_collections.blackwell.pytorch.plugins.modules import package_install

CAT = shutil.which("cat")  # by its path: a test may leave only its own programs on PATH
LOGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "module_utils", "driver", "package_logs")
INSTALLED = "The following NEW packages will be installed:\n  nvidia-open\n0 upgraded, 1 newly installed, 0 to remove.\n" \
            "Get:1 http://mirror.lab/cuda nvidia-open 580.95.05-1 [2048 kB]\nSetting up nvidia-open (580.95.05-1) ...\n"


def dnf_output(name):
    """A dnf log of package_logs/ without the command line the module writes."""
    with open(os.path.join(LOGS, name)) as handle:
        return "".join(line for line in handle if not line.startswith("$ "))


@pytest.fixture
def programs(tmp_path, monkeypatch):
    """program(name, output, rc): a program on PATH that records its argv and environment (one line a call),
    prints `output` (for dnf: the output of its install, or of its upgrade) and exits with `rc`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    seen = tmp_path / "argv"

    def program(name, output, rc=0, upgrade=None):
        script = bin_dir / name
        body = "%s <<'OUT'\n%sOUT\n" % (CAT, output)
        if upgrade is not None:
            body = "if [ \"$2\" = upgrade ]; then %s <<'OUT'\n%sOUT\nelse\n%sfi\n" % (CAT, upgrade, body)
        script.write_text("#!/bin/sh\nprintf '%%s\\n' \"%s $* DEBIAN_FRONTEND=$DEBIAN_FRONTEND LC_ALL=$LC_ALL\" >> %s\n%s"
                          "echo 'W: a warning' >&2\nexit %d\n" % (name, seen, body, rc))
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
        return seen
    monkeypatch.setenv("PATH", "%s:%s" % (bin_dir, os.environ.get("PATH", "")))
    return program


def test_the_install_goes_to_the_log_and_ends_with_the_rc_file(run_module, programs, tmp_path):
    seen = programs("apt-get", INSTALLED)
    log = str(tmp_path / "logs" / "install.log")
    kind, result = run_module(package_install, {"names": ["nvidia-open"], "log": log, "run_id": "7.5",
                                                "lock_timeout": 9, "manager": "apt"})
    assert kind == "exit" and result["changed"] is True and result["rc"] == 0, result
    assert result["summary"] == {"upgraded": 0, "installed": 1, "removed": 0} and result["manager"] == "apt"
    assert result["progress"] == ("1/1 packages fetched, 2.0 MB, 1/1 set up; Setting up nvidia-open (580.95.05-1) ...")
    with open(log) as handle:
        text = handle.read()
    assert text.startswith("$ apt-get install -y -o DPkg::Lock::Timeout=9 ") and "W: a warning" in text
    with open(log + ".rc") as handle:
        assert handle.read() == "7.5 0\n"
    assert seen.read_text().strip().endswith("--no-upgrade nvidia-open DEBIAN_FRONTEND=noninteractive LC_ALL=C")
    assert result["commands"] == [text.splitlines()[0][2:].split()]


def test_nothing_to_do_is_not_a_change(run_module, programs, tmp_path):
    programs("apt-get", "nvidia-open is already the newest version.\n0 upgraded, 0 newly installed, 0 to remove.\n")
    kind, result = run_module(package_install, {"names": ["nvidia-open"], "log": str(tmp_path / "l"),
                                                "state": "latest", "manager": "apt"})
    assert kind == "exit" and result["changed"] is False


def test_a_failed_install_names_apts_error_and_the_log(run_module, programs, tmp_path):
    programs("apt-get", "E: Unable to locate package nvidia-open\n", rc=100)
    log = str(tmp_path / "l")
    kind, result = run_module(package_install, {"names": ["nvidia-open"], "log": log, "run_id": "1",
                                                "manager": "apt"})
    assert kind == "fail" and result["rc"] == 100
    assert result["msg"] == ("apt-get install of nvidia-open failed (rc 100): E: Unable to locate package "
                             "nvidia-open; see %s" % log)
    with open(log + ".rc") as handle:
        assert handle.read() == "1 100\n"


def test_check_mode_simulates_and_writes_nothing(run_module, programs, tmp_path):
    seen = programs("apt-get", INSTALLED)
    log = str(tmp_path / "l")
    kind, result = run_module(package_install, {"names": ["nvidia-open"], "log": log, "_ansible_check_mode": True,
                                                "manager": "apt"})
    assert kind == "exit" and result["changed"] is True
    assert " -s nvidia-open " in seen.read_text() and not os.path.exists(log) and not os.path.exists(log + ".rc")


def test_dnf_installs_into_the_log(run_module, programs, tmp_path):
    seen = programs("dnf", dnf_output("dnf_toolkit_install.log"))
    log = str(tmp_path / "cuda-toolkit-install.log")
    kind, result = run_module(package_install, {"names": ["cuda-toolkit-12-8"], "log": log, "run_id": "3",
                                                "manager": "dnf"})
    assert kind == "exit" and result["changed"] is True and result["manager"] == "dnf", result
    assert result["summary"] == {"installed": 24, "upgraded": 0, "removed": 0, "downgraded": 0}
    assert result["progress"] == "24/24 packages fetched, 2480.3 of 2457.6 MB (100%); Complete!"
    assert result["commands"] == [["dnf", "-y", "install", "cuda-toolkit-12-8"]]
    assert seen.read_text() == "dnf -y install cuda-toolkit-12-8 DEBIAN_FRONTEND=noninteractive LC_ALL=C\n"
    with open(log) as handle:
        assert handle.read().startswith("$ dnf -y install cuda-toolkit-12-8\nLast metadata expiration check")
    with open(log + ".rc") as handle:
        assert handle.read() == "3 0\n"


def test_dnf_check_mode_reads_the_aborted_transaction(run_module, programs, tmp_path):
    seen = programs("dnf", dnf_output("dnf_toolkit_check.log"), rc=1)
    log = str(tmp_path / "l")
    kind, result = run_module(package_install, {"names": ["cuda-toolkit-12-8"], "log": log, "manager": "dnf",
                                                "_ansible_check_mode": True})
    assert kind == "exit" and result["changed"] is True and result["rc"] == 1, result
    assert result["summary"]["installed"] == 24
    assert seen.read_text().startswith("dnf --assumeno install cuda-toolkit-12-8 ")
    assert not os.path.exists(log) and not os.path.exists(log + ".rc")


def test_dnf_nothing_to_do_is_not_a_change(run_module, programs, tmp_path):
    programs("dnf", dnf_output("dnf_nothing_to_do.log"))
    kind, result = run_module(package_install, {"names": ["cuda-toolkit-12-8"], "log": str(tmp_path / "l"),
                                                "manager": "dnf"})
    assert kind == "exit" and result["changed"] is False and result["rc"] == 0


def test_dnf_latest_installs_the_missing_and_upgrades_the_installed(run_module, programs, tmp_path):
    latest = dnf_output("dnf_latest.log")
    first, second = latest.split("Complete!\n", 1)
    seen = programs("dnf", first + "Complete!\n", upgrade=second)
    programs("rpm", "cuda-toolkit-12-8\npackage cuda-toolkit-13-0 is not installed\n", rc=1)
    log = str(tmp_path / "l")
    kind, result = run_module(package_install, {"names": ["cuda-toolkit-12-8", "cuda-toolkit-13-0"], "log": log,
                                                "state": "latest", "manager": "dnf", "run_id": "9"})
    assert kind == "exit" and result["changed"] is True, result
    assert result["summary"] == {"installed": 3, "upgraded": 2, "removed": 0, "downgraded": 0}
    assert result["commands"] == [["dnf", "-y", "install", "cuda-toolkit-13-0"],
                                  ["dnf", "-y", "upgrade", "cuda-toolkit-12-8"]]
    calls = seen.read_text().splitlines()
    assert [call.split(" DEBIAN")[0] for call in calls] == [
        "rpm -q --queryformat %{NAME}\\n cuda-toolkit-12-8 cuda-toolkit-13-0", "dnf -y install cuda-toolkit-13-0",
        "dnf -y upgrade cuda-toolkit-12-8"]
    with open(log) as handle:
        text = handle.read()
    assert text.count("$ dnf -y ") == 2 and "$ dnf -y upgrade cuda-toolkit-12-8\n" in text


def test_a_failed_dnf_install_names_dnfs_error(run_module, programs, tmp_path):
    programs("dnf", dnf_output("dnf_missing.log"), rc=1)
    log = str(tmp_path / "l")
    kind, result = run_module(package_install, {"names": ["cuda-toolkit-12-7"], "log": log, "manager": "dnf",
                                                "run_id": "4"})
    assert kind == "fail" and result["rc"] == 1
    assert result["msg"] == ("dnf -y install of cuda-toolkit-12-7 failed (rc 1): No match for argument: "
                             "cuda-toolkit-12-7 | Error: Unable to find a match: cuda-toolkit-12-7; see %s" % log)
    with open(log + ".rc") as handle:
        assert handle.read() == "4 1\n"


def test_auto_takes_the_manager_the_host_has(run_module, programs, tmp_path, monkeypatch):
    programs("dnf", dnf_output("dnf_nothing_to_do.log"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # this machine's own apt-get out of sight
    kind, result = run_module(package_install, {"names": ["cuda-toolkit-12-8"], "log": str(tmp_path / "l")})
    assert kind == "exit" and result["manager"] == "dnf"
    (tmp_path / "bin" / "dnf").unlink()
    kind, result = run_module(package_install, {"names": ["cuda-toolkit-12-8"], "log": str(tmp_path / "l")})
    assert kind == "fail" and result["msg"] == "package_install: neither apt-get nor dnf is found on this host"


def test_a_refused_argument_still_ends_the_run_for_the_poller(run_module, tmp_path):
    log = str(tmp_path / "l")
    kind, result = run_module(package_install, {"names": [""], "log": log, "run_id": "5", "manager": "apt"})
    assert kind == "fail" and result["msg"] == "no package to install" and result["rc"] == 2
    with open(log) as handle:
        assert handle.read() == "no package to install\n"
    with open(log + ".rc") as handle:
        assert handle.read() == "5 2\n"
