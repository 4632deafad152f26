# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nvidia_driver_state question as one function (its options: plugins/module_utils/stages/): the refusals of the
inputs alone, the host read and the decision. The nvidia_driver_state module and the preflight probe
(preflight_facts' `driver` option, which answers the driver stage of site.yml in its own call) both ask it here.

`run(argv)` runs a read-only command and returns (rc, stdout, stderr), rc 127 when the program is absent. No Ansible
import.
"""
from __future__ import annotations

import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.path_inputs import FILE, path_problems
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.preflight import numbered
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import host_probe, inputs, os_layout, refusals, state

REPO_KEYS = ("configure", "base_url", "url", "key_url", "key_content", "fingerprints", "proxy", "keyring", "source_path", "proxy_path")


class StateCallError(Exception):
    """The question cannot be answered (an input that is no input, a probe command that failed): the call fails."""


def want_of(params, machine):
    """The module's parameters as driver.state's `want` (repo: only the known keys, configure a bool, the options
    left empty set to the layout of the OS the preflight read, on this machine's architecture)."""
    want = dict(params)
    repo = dict((key, value) for key, value in (params.get("repo") or {}).items() if key in REPO_KEYS)
    repo["configure"] = str(repo.get("configure", False)).lower() in ("true", "yes", "on", "1")
    want["repo"] = os_layout.repo_options(repo, os_layout.os_of(params.get("preflight"), {}), machine)
    return want


def proxy_password(proxy):
    """The password in a proxy URL (user:password@host), '' when none: masked in everything returned."""
    match = re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://[^/@:\s]*:([^/@\s]+)@", str(proxy or ""))
    return match.group(1) if match else ""


def input_refusals(want):
    """The refusals of the inputs alone, all at once, before the host is read: the branch (a branch at all, new
    enough for every GPU: inputs.branch_problems), the repository inputs, a reboot over the local connection, and the
    path options (the keyring, the MOK key and certificate: common.path_inputs) relative, a directory or below a file."""
    host = want["host"]
    branch = inputs.branch_problems(want["branch"], want.get("gpus") or [])
    found = ["%s: %s." % (host, "; ".join(branch)) if branch else ""]
    repo = want["repo"]
    if repo.get("configure"):
        found.append(refusals.repo_inputs_refusal(host, repo.get("url", ""), repo.get("key_url", ""),
                                                  repo.get("key_content", ""), repo.get("fingerprints"),
                                                  repo.get("proxy", "")))
    local = bool(((want.get("preflight") or {}).get("connection") or {}).get("local"))
    found.append(refusals.local_reboot_refusal(host, bool(want.get("reboot_ok")), local))
    paths = path_problems([("nvidia_driver_repo_keyring", repo.get("keyring") if repo.get("configure") else "", FILE,
                            "/etc/apt/keyrings/nvidia-cuda.asc"),
                           ("nvidia_driver_mok_key", want.get("mok_key"), FILE, "/var/lib/dkms/mok.key"),
                           ("nvidia_driver_mok_cert", want.get("mok_cert"), FILE, "/var/lib/dkms/mok.pub")])
    found.append("%s: %s" % (host, " ".join(paths)) if paths else "")
    return [message for message in found if message]


def refused(messages, host="this host"):
    """The result of inputs refused before the host was read: nothing decided, nothing to change (msg: the refusals
    numbered, one a line, when there are several)."""
    return {"ok": False, "refusals": messages, "msg": numbered(host, messages), "changes": [], "converged": False}


def answer(want, run):
    """driver.state.decide's result for `want` (want_of of the validated options), commands.probe_argv and
    branch_warnings (inputs.branch_warnings: a branch not in the catalogue, one past its end of support) added; the
    inputs' own refusals (refused()) without reading the host. Raises StateCallError with the host named."""
    try:
        messages = input_refusals(want)
    except ValueError as exc:
        raise StateCallError("%s: %s" % (want["host"], exc))
    if messages:
        return refused(messages, want["host"])
    os_info = want["preflight"].get("os") or {}
    family = os_info.get("family") or "Debian"  # the versionlocks are read for the holds and EL 10's branch lock
    repo = want["repo"]
    probe = want["probe_argv"] or os_layout.probe_argv(family)
    managed = state.files_of(want, {"names": []}, family)
    paths = {"keyring": repo.get("keyring") if repo["configure"] else None,
             "source": repo.get("source_path") if repo["configure"] else None,
             "proxy": repo.get("proxy_path") if repo["configure"] else None,
             "files": [entry["dest"] for entry in managed.values()] + ([want["uu_path"]] if want.get("uu_path") else [])}
    try:
        found = host_probe.read_host(run, family, probe, state.support_packages(want), paths,
                                     [want["mok_key"], want["mok_cert"]], repo.get("url", "") if repo["configure"] else "",
                                     want["hold"] or not os_layout.has_module_streams(dict(os_info, family=family)),
                                     read_units=bool(want["persistenced"]))
    except (host_probe.ProbeError, OSError) as exc:
        raise StateCallError("could not read the driver state on %s: %s" % (want["host"], exc))
    try:
        result = state.decide(want, found)
    except ValueError as exc:
        raise StateCallError("%s: %s" % (want["host"], exc))
    result["commands"]["probe_argv"] = probe
    result["branch_warnings"] = inputs.branch_warnings(want["branch"])
    return result
