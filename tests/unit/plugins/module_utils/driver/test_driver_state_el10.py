# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The driver decision planned for RHEL, Rocky and AlmaLinux 10 end to end: the repository layout, the commands (no
module stream, the branch's versionlock), the versionlocks read without holds, the change the missing branch lock
makes; EL 9 unchanged; the branch warnings of the answer (driver/state.py, driver/state_call.py)."""
from __future__ import annotations

import copy

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import managed_files, state, state_call
from test_driver_state import MOK, PREFLIGHT, SOURCE, converged_host, want

EL10 = [("RedHat", "10.0"), ("Rocky", "10.0"), ("AlmaLinux", "10.1")]
EL10_PACKAGES = "nvidia-open\t580.95.05-1.el10\tii\nkmod-nvidia-open-dkms\t580.95.05-1.el10\tii\n"
EL10_SUPPORT = "kernel-devel-6.12.0-55.el10.x86_64\t6.12.0\tii\nkernel-devel\t6.12.0\tii\ndkms\t3.1\tii\n"
# `dnf versionlock list` after the role's run: the branch's pattern as dnf 4 lists what it matched, then the holds
EL10_LOCKS = "nvidia-open-3:580.95.05-1.el10.*\nkmod-nvidia-open-dkms-3:580.95.05-1.el10.*\n"


def el_preflight(distribution, version):
    pre = copy.deepcopy(PREFLIGHT)
    pre.update(os={"family": "RedHat", "distribution": distribution, "version": version},
               kernel={"release": "6.12.0-55.el10.x86_64", "headers_installed": True})
    return pre


def el_want(distribution="Rocky", version="10.0", **changes):
    return want(preflight=el_preflight(distribution, version), uu_exclude=False, **changes)


def el_host(**changes):
    found = converged_host(packages_text=EL10_PACKAGES, support_text=EL10_SUPPORT, locks_text=EL10_LOCKS,
                           files={SOURCE: "[nvidia-cuda]\n",
                                  managed_files.NOUVEAU_PATH: managed_files.nouveau_blacklist(),
                                  managed_files.DKMS_MOK_PATH: managed_files.dkms_mok_conf(*MOK)})
    found.update(changes)
    return found


@pytest.mark.parametrize("distribution, version", EL10)
def test_a_fresh_el10_host_is_planned_with_the_branch_lock_and_no_module_stream(distribution, version):
    found = el_host(packages_text="", locks_text="", support_text="")
    result = state.decide(el_want(distribution, version, repo={"configure": False}), found)
    assert result["ok"] and not result["converged"]
    assert result["commands"] == {
        "probe_argv": ["rpm", "-qa", "--qf", "%{NAME}\t%{VERSION}-%{RELEASE}\tii\n", "nvidia-*", "kmod-nvidia*",
                       "libnvidia-*", "cuda-drivers*"],
        "initramfs_tool": "/usr/bin/dracut", "initramfs_argv": ["dracut", "--force", "--regenerate-all"],
        "module_stream": "", "branch_lock": "*nvidia*580*", "branch_locked": False, "rpm_package": "nvidia-open"}
    assert result["changes"] == [state.SUPPORT, state.BRANCH_LOCK, state.PACKAGES]
    assert result["support_packages"] == ["kernel-devel", "dkms"]  # the running kernel's headers are there
    assert result["plan"]["action"] == "manage" and result["plan"]["flavor"] == "open"


@pytest.mark.parametrize("distribution, version", EL10)
def test_an_el10_host_the_role_converged_changes_nothing(distribution, version):
    result = state.decide(el_want(distribution, version), el_host())
    assert result["converged"] and result["changes"] == []
    assert result["commands"]["branch_lock"] == "*nvidia*580*" and result["commands"]["branch_locked"] is True
    assert result["status"]["version"] == "580.95.05" and result["status"]["branch"] == "580"


def test_an_el10_host_without_the_branch_lock_gets_it_and_only_it():
    # holds off: the packages are there, nothing keeps dnf on the branch
    result = state.decide(el_want(hold=False), el_host(locks_text=""))
    assert result["changes"] == [state.BRANCH_LOCK]
    assert not result["converged"] and result["commands"]["branch_locked"] is False
    # the pattern as written by `dnf versionlock add` counts as the lock too
    assert state.decide(el_want(hold=False), el_host(locks_text="*nvidia*580*\n"))["converged"]


def test_an_el10_move_is_planned_with_the_new_branch_lock():
    result = state.decide(el_want(branch="595", upgrade=True), el_host())
    assert result["commands"]["branch_lock"] == "*nvidia*595*" and result["commands"]["branch_locked"] is False
    assert result["changes"] == [state.BRANCH_LOCK, state.PACKAGES]


def test_el9_keeps_its_module_stream_and_needs_no_branch_lock():
    result = state.decide(el_want("Rocky", "9.4", hold=False), el_host(locks_text=""))
    assert (result["commands"]["module_stream"], result["commands"]["branch_lock"]) == ("nvidia-driver:580-open", "")
    assert result["commands"]["branch_locked"] is True and result["converged"]


def runner(calls, locks=EL10_LOCKS):
    def run(argv):
        calls.append(list(argv))
        if argv[:1] == ["rpm"]:
            return 0, EL10_PACKAGES if "nvidia-*" in argv else EL10_SUPPORT, ""
        if argv[:4] == ["dnf", "--quiet", "versionlock", "list"]:
            return 0, locks, ""
        return 1, "", "no such command here"
    return run


def answer_of(preflight, **changes):
    params = dict(want(preflight=preflight, repo={"configure": False}, hold=False, uu_exclude=False, uu_path="",
                       mok_key="", mok_cert="", persistenced=False, blacklist_nouveau=False, probe_argv=[]),
                  **changes)
    return state_call.want_of(params, "x86_64")


def test_the_answer_reads_el10s_versionlocks_without_holds_and_el9_does_not():
    calls = []
    result = state_call.answer(answer_of(el_preflight("AlmaLinux", "10.0")), runner(calls))
    assert ["dnf", "--quiet", "versionlock", "list"] in calls
    assert result["ok"] and result["converged"] and result["commands"]["branch_locked"] is True
    calls = []
    result = state_call.answer(answer_of(el_preflight("AlmaLinux", "9.4")), runner(calls))
    assert ["dnf", "--quiet", "versionlock", "list"] not in calls and result["commands"]["branch_lock"] == ""


def test_the_answer_carries_the_branch_warnings():
    assert state_call.answer(answer_of(el_preflight("Rocky", "10.0")), runner([]))["branch_warnings"] == []
    warned = state_call.answer(answer_of(el_preflight("Rocky", "10.0"), branch="600"), runner([]))["branch_warnings"]
    assert warned == [
        "nvidia_driver_branch 600 is not in the collection's branch catalogue (580, 595, 610, 620): its kind, support "
        "window and CUDA version are unknown here, and it installs only if NVIDIA's repository has it; the long-term "
        "choice is 580 (long-term support branch, supported to June 2028, CUDA 13.0)"]
