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

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import managed_files
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


# The driver's steps around the install: programs that answer by their arguments (dpkg-query lists what the
# install left, held or not; dnf answers its module list, versionlock list and install).
DPKG_AFTER = ("nvidia-driver-pinning-580\t580.95.05-1\tii \nnvidia-open\t580.95.05-1\tii \n"
              "nvidia-container-toolkit\t1.17.8-1\tii \n")
STREAMS = "nvidia-driver  580-open [e]  default [d], fm, ks, src  Nvidia driver for 580-open branch\n"


@pytest.fixture
def scripts(tmp_path, monkeypatch):
    """script(name, body): a program on PATH running the shell `body` (its arguments in $*), each call recorded."""
    bin_dir = tmp_path / "sbin"
    bin_dir.mkdir()
    seen = tmp_path / "calls"

    def script(name, body):
        path = bin_dir / name
        path.write_text("#!/bin/sh\necho \"%s $*\" >> %s\n%s\n" % (name, seen, body))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return seen
    monkeypatch.setenv("PATH", "%s:%s" % (bin_dir, os.environ.get("PATH", "")))
    return script


def test_the_driver_install_pins_installs_the_pinning_package_first_then_holds_and_blacklists(
        run_module, programs, scripts, tmp_path):
    programs("apt-get", INSTALLED)
    scripts("dpkg-query", "printf '%s'" % DPKG_AFTER.replace("\t", "\\t").replace("\n", "\\n"))
    seen = scripts("apt-mark", 'echo "$2 set on hold."')
    log, pin, uu = str(tmp_path / "install.log"), str(tmp_path / "pin-580"), str(tmp_path / "51blackwell")
    choice = {"ok": True, "method": "pinning", "first": ["nvidia-driver-pinning-580"], "then": ["nvidia-open"],
              "pin": True, "msg": "nvidia-driver-pinning-580 first (keeps apt on branch 580), then nvidia-open"}
    kind, result = run_module(package_install, {
        "choice": choice, "pin": {"path": pin, "branch": "580"}, "hold": True, "unattended_upgrades_blacklist": uu,
        "log": log, "run_id": "8", "manager": "apt"})
    assert kind == "exit" and result["changed"] is True, result
    assert [argv[-1] for argv in result["commands"]] == ["nvidia-driver-pinning-580", "nvidia-open", "nvidia-open"]
    assert result["commands"][0][-2:] == ["--no-upgrade", "nvidia-driver-pinning-580"]
    assert result["commands"][2] == ["apt-mark", "hold", "nvidia-driver-pinning-580", "nvidia-open"]
    assert result["held"] == ["nvidia-driver-pinning-580", "nvidia-open"] and result["files"] == [pin, uu]
    assert result["installed"] == {"version": "580.95.05", "branch": "580", "flavor": "open", "method": "pinning",
                                   "names": ["nvidia-driver-pinning-580", "nvidia-open"], "held": [],
                                   "unheld": ["nvidia-driver-pinning-580", "nvidia-open"]}
    assert result["summary"]["installed"] == 2
    assert seen.read_text().splitlines()[-1] == "apt-mark hold nvidia-driver-pinning-580 nvidia-open"
    with open(pin) as handle:
        assert handle.read() == managed_files.apt_pin("580", ["nvidia-open"])
    with open(uu) as handle:
        assert handle.read() == managed_files.uu_blacklist(["nvidia-driver-pinning-580", "nvidia-open"])
    assert oct(os.stat(uu).st_mode & 0o777) == "0o644"
    with open(log) as handle:
        text = handle.read()
    assert text.startswith("$ apt-get install -y -o DPkg::Lock::Timeout=120 ")
    assert text.count("$ apt-get install ") == 2 and "$ apt-mark hold nvidia-driver-pinning-580 nvidia-open\n" in text
    with open(log + ".rc") as handle:
        assert handle.read() == "8 0\n"


def test_a_choice_without_the_pin_writes_none_and_a_refused_choice_fails_for_the_poller(run_module, programs, tmp_path):
    programs("apt-get", INSTALLED)
    pin, log = tmp_path / "pin-580", str(tmp_path / "l")
    choice = {"ok": True, "method": "branch-suffixed", "first": [], "then": ["nvidia-driver-580-open"], "pin": False}
    kind, result = run_module(package_install, {"choice": choice, "pin": {"path": str(pin), "branch": "580"},
                                                "log": log, "manager": "apt"})
    assert kind == "exit" and result["files"] == [] and not pin.exists(), result
    assert result["commands"] == [["apt-get", "install", "-y", "-o", "DPkg::Lock::Timeout=120", "-o",
                                   "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold",
                                   "--no-upgrade", "nvidia-driver-580-open"]]
    refused = {"ok": False, "msg": "the repository has no nvidia-open, nvidia-driver-580-open or cuda-drivers-580"}
    kind, result = run_module(package_install, {"choice": refused, "log": log, "run_id": "3", "manager": "apt"})
    assert kind == "fail" and result["rc"] == 2 and result["msg"] == refused["msg"] and result["commands"] == []
    with open(log + ".rc") as handle:
        assert handle.read() == "3 2\n"


def test_holds_alone_change_nothing_when_all_are_held(run_module, scripts, tmp_path):
    held = DPKG_AFTER.replace("\tii \n", "\thi \n")
    scripts("dpkg-query", "printf '%s'" % held.replace("\t", "\\t").replace("\n", "\\n"))
    seen = scripts("apt-mark", "exit 0")
    log, uu = tmp_path / "install.log", tmp_path / "51blackwell"
    log.write_text("$ apt-get install nvidia-open\n")
    uu.write_text(managed_files.uu_blacklist(["nvidia-driver-pinning-580", "nvidia-open"]))
    kind, result = run_module(package_install, {"hold": True, "unattended_upgrades_blacklist": str(uu),
                                                "log": str(log), "run_id": "2", "manager": "apt"})
    assert kind == "exit" and result["changed"] is False and result["held"] == [] and result["files"] == [], result
    assert result["commands"] == [] and result["summary"] is None and "apt-mark" not in seen.read_text()
    assert result["progress"] == "0 packages fetched, 0.0 MB; starting"
    assert log.read_text() == "" and (tmp_path / "install.log.rc").read_text() == "2 0\n"  # this run's log


def test_a_hold_is_the_runs_last_step_in_its_log(run_module, scripts, tmp_path):
    scripts("dpkg-query", "printf '%s'" % DPKG_AFTER.replace("\t", "\\t").replace("\n", "\\n"))
    scripts("apt-mark", 'echo "$2 set on hold."')
    log = tmp_path / "install.log"
    kind, result = run_module(package_install, {"hold": True, "log": str(log), "run_id": "5", "manager": "apt"})
    assert kind == "exit" and result["changed"] is True and result["held"] == ["nvidia-driver-pinning-580",
                                                                               "nvidia-open"], result
    assert log.read_text() == ("$ apt-mark hold nvidia-driver-pinning-580 nvidia-open\n"
                               "nvidia-driver-pinning-580 set on hold.\n")
    assert result["progress"] == "0 packages fetched, 0.0 MB; $ apt-mark hold nvidia-driver-pinning-580 nvidia-open"


def test_a_check_run_says_what_it_would_hold_and_write_and_does_neither(run_module, programs, scripts, tmp_path):
    programs("apt-get", INSTALLED)
    scripts("dpkg-query", "printf '%s'" % DPKG_AFTER.replace("\t", "\\t").replace("\n", "\\n"))
    seen = scripts("apt-mark", "exit 0")
    log, uu = str(tmp_path / "l"), str(tmp_path / "51blackwell")
    kind, result = run_module(package_install, {
        "names": ["nvidia-open"], "unhold": ["nvidia-open"], "hold": True, "unattended_upgrades_blacklist": uu,
        "state": "latest", "log": log, "manager": "apt", "_ansible_check_mode": True})
    assert kind == "exit" and result["changed"] is True, result
    assert result["unheld"] == ["nvidia-open"] and result["held"] == ["nvidia-driver-pinning-580", "nvidia-open"]
    assert result["files"] == [uu] and result["commands"][1][-2:] == ["-s", "nvidia-open"]
    assert "apt-mark" not in seen.read_text()
    assert not os.path.exists(uu) and not os.path.exists(log) and not os.path.exists(log + ".rc")


def test_dnf_lifts_the_locks_enables_the_stream_installs_and_versionlocks_what_is_not_locked(
        run_module, scripts, tmp_path):
    seen = scripts("dnf", 'case "$*" in\n'
                          '  "--quiet module list --enabled nvidia-driver") exit 1 ;;\n'
                          '  "--quiet versionlock list") echo "nvidia-open-3:580.95.05-1.el9.*" ;;\n'
                          '  "versionlock delete *nvidia*") exit 1 ;;\n'
                          '  "-y install nvidia-open") cat %s ;;\n'
                          'esac' % os.path.join(LOGS, "dnf_toolkit_install.log"))
    scripts("rpm", "printf 'nvidia-open\\t580.95.05-1.el9\\tii\\nkmod-nvidia-open-dkms\\t580.95.05-1.el9\\tii\\n'")
    log = str(tmp_path / "install.log")
    kind, result = run_module(package_install, {
        "names": ["nvidia-open"], "module_stream": "nvidia-driver:580-open", "unhold": ["*nvidia*"], "hold": True,
        "log": log, "run_id": "6", "manager": "dnf"})
    assert kind == "exit" and result["changed"] is True, result
    assert result["commands"] == [["dnf", "versionlock", "delete", "*nvidia*"],
                                  ["dnf", "-y", "module", "enable", "nvidia-driver:580-open"],
                                  ["dnf", "-y", "install", "nvidia-open"],
                                  ["dnf", "versionlock", "add", "kmod-nvidia-open-dkms"]]
    assert [line.split(" ", 1)[1] for line in seen.read_text().splitlines() if line.startswith("dnf ")] == [
        "versionlock delete *nvidia*", "--quiet module list --enabled nvidia-driver", "-y module enable "
        "nvidia-driver:580-open", "-y install nvidia-open", "--quiet versionlock list",
        "versionlock add kmod-nvidia-open-dkms"]
    assert result["held"] == ["kmod-nvidia-open-dkms"] and result["installed"]["flavor"] == "open"
    assert result["installed"]["method"] == "module-stream nvidia-driver:580-open"


def test_an_enabled_stream_is_left_and_a_failed_hold_fails_the_run_for_the_poller(run_module, scripts, tmp_path):
    scripts("dnf", 'case "$*" in\n  "--quiet module list --enabled nvidia-driver") printf "%s" ;;\n'
                   '  "--quiet versionlock list") ;;\n  "versionlock add"*) echo "no versionlock plugin"; exit 2 ;;\n'
                   '  *) echo "Nothing to do." ;;\nesac' % STREAMS)
    scripts("rpm", "printf 'nvidia-open\\t580.95.05-1.el9\\tii\\n'")
    log = str(tmp_path / "install.log")
    kind, result = run_module(package_install, {
        "names": ["nvidia-open"], "module_stream": "nvidia-driver:580-open", "hold": True, "log": log, "run_id": "4",
        "manager": "dnf"})
    assert kind == "fail" and result["rc"] == 2, result
    assert result["msg"] == "dnf versionlock add nvidia-open failed (rc 2); see %s" % log
    assert result["commands"] == [["dnf", "-y", "install", "nvidia-open"], ["dnf", "versionlock", "add", "nvidia-open"]]
    with open(log) as handle:
        assert handle.read().endswith("$ dnf versionlock add nvidia-open\nno versionlock plugin\n")
    with open(log + ".rc") as handle:
        assert handle.read() == "4 2\n"
