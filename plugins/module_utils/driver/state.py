# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nvidia_driver role's decision in one call: refusals, plan, and what a run would change.

decide(want, found) takes what the role is asked for (`want`: the role's variables, the GPU and
driver facts, blackwell_preflight) and what the host has (`found`: driver.host_probe's reading)
and returns the refusals that need the host (the role's messages; the inputs' own the module
checks before it reads the host), the plan (driver.plan.driver_plan), the named
changes a run would make, whether the host is converged, the files the role writes and the
nvidia_driver_status a converged run publishes. No Ansible import, nothing read here.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.preflight import numbered
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import managed_files, openpgp, plan as driver_plan
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import headers_check, os_layout, package_steps, policy, refusals

# The changes a run can make, in the order the role makes them (names in `changes`).
REPO_KEY = "repository key"
REPO_SOURCE = "repository source"
REPO_PROXY = "repository proxy"
SUPPORT = "kernel headers and DKMS"
BRANCH_LOCK = "driver branch versionlock"
PACKAGES = "driver packages"
HOLDS = "package holds"
UU = "unattended-upgrades blacklist"
NOUVEAU = "nouveau blacklist"
DKMS_MOK = "DKMS signing configuration"
PERSISTENCED_ENABLED = "nvidia-persistenced enabled"
PERSISTENCED_STARTED = "nvidia-persistenced started"
LOAD = "driver load"
LOADED_MISMATCH = "loaded driver branch or flavor"


def _preflight(want):
    return want.get("preflight") or {}


def plan_of(want, packages_text, parse=versions.parse):
    """driver_plan for these inputs and the installed packages' text. The branch is not checked again: decide()
    runs after nvidia_driver_state refused the inputs (input_refusals: inputs.branch_problems)."""
    pre = _preflight(want)
    return driver_plan.driver_plan(
        want.get("gpus") or [], want.get("flavor", "auto"), str(want.get("branch", "580")), want.get("manage", "auto"),
        want.get("loaded") or {}, packages_text or "", bool(want.get("upgrade")),
        (pre.get("kernel") or {}).get("release", ""), (pre.get("os") or {}).get("family", "Debian"), parse,
        pre.get("kernel") or {}, pre.get("user") or {}, branch_checked=True)


def refusals_of(want, found, plan):
    """The refusals that need the host, in the order the role has always checked them: the plan's (root, headers,
    flavor or driver there: one message each), Secure Boot, the MOK files, other sources of the repository. The inputs' own refusals
    (branch, repository inputs, a reboot over the local connection) are the module's, made before the host is
    read (plugins/modules/nvidia_driver_state.py)."""
    host = want.get("host") or "this host"
    pre = _preflight(want)
    repo = want.get("repo") or {}
    found_list = [message for _cause, message in refusals.plan_refusals(host, plan)]
    found_list.append(refusals.secure_boot_refusal(host, (pre.get("secure_boot") or {}).get("state"), plan.get("action"),
                                                   want.get("mok_key"), want.get("mok_cert")))
    found_list.append(refusals.mok_files_refusal(host, want.get("mok_key"), want.get("mok_cert"),
                                                 found.get("missing_mok") or []))
    if repo.get("configure") and plan.get("action") == "manage":
        found_list.append(refusals.other_sources_refusal(host, repo.get("url", ""), found.get("other_sources") or []))
    return [message for message in found_list if message]


def files_of(want, installed, family):
    """The files the role writes in this state: {name: {"dest", "content", "mode"}} (no proxy: it carries a password)."""
    files = {}
    if want.get("blacklist_nouveau"):
        files["nouveau"] = {"dest": want.get("nouveau_path") or managed_files.NOUVEAU_PATH,
                            "content": managed_files.nouveau_blacklist(), "mode": "0644"}
    if want.get("mok_key"):
        files["dkms_mok"] = {"dest": want.get("dkms_mok_path") or managed_files.DKMS_MOK_PATH,
                             "content": managed_files.dkms_mok_conf(want["mok_key"], want.get("mok_cert", "")),
                             "mode": "0644"}
    repo = want.get("repo") or {}
    if family == "Debian" and repo.get("configure"):
        files["repo_source"] = {"dest": repo.get("source_path"), "mode": "0644",
                                "content": managed_files.apt_source(repo.get("url", ""), repo.get("keyring", ""))}
    if family == "Debian" and want.get("uu_exclude") and installed.get("names"):
        files["uu_blacklist"] = {"dest": want.get("uu_path"), "content": managed_files.uu_blacklist(installed["names"]),
                                 "mode": "0644"}
    return files


def _key_change(repo, keyring_text):
    """'' when the key on the host is the one a run would place, else why not."""
    if keyring_text is None:
        return "the key %s is not on the host" % repo.get("keyring")
    if str(repo.get("key_content") or "").strip():
        return "" if keyring_text == repo["key_content"] else "the key on the host is not nvidia_driver_repo_key_content"
    check = openpgp.check_key(keyring_text, list(repo.get("fingerprints") or []))
    return "" if check.get("ok") else "the key on the host is not trusted: %s" % check.get("msg")


def _repo_changes(want, found, family):
    repo = want.get("repo") or {}
    current = found.get("files") or {}
    changes = []
    if _key_change(repo, found.get("keyring_text")):
        changes.append(REPO_KEY)
    if family == "Debian":
        if current.get(repo.get("source_path")) != managed_files.apt_source(repo.get("url", ""), repo.get("keyring", "")):
            changes.append(REPO_SOURCE)
        wanted_proxy = managed_files.proxy_conf(repo.get("url", ""), repo["proxy"]) if repo.get("proxy") else None
        if current.get(repo.get("proxy_path")) != wanted_proxy:
            changes.append(REPO_PROXY)
    elif current.get(repo.get("source_path")) is None:
        changes.append(REPO_SOURCE)
    return changes


def support_packages(want):
    """The kernel headers and DKMS packages the role installs (headers only with nvidia_driver_kernel_headers):
    the running kernel's headers when missing and offered, the package that brings later kernels' headers."""
    pre = _preflight(want)
    kernel = pre.get("kernel") or {}
    names = []
    if want.get("kernel_headers", True):
        running = headers_check.running_headers_to_install(kernel)
        meta = policy.headers_meta_package(kernel.get("release", ""), (pre.get("os") or {}).get("family", "Debian"))
        names += [running] if running else []
        names += [meta] if want.get("headers_track_kernel", True) and meta else []
    return names + [want.get("dkms_package") or "dkms"]


def _unheld(want, found, installed, family):
    if not want.get("hold"):
        return []
    if family == "RedHat":
        locks = found.get("locks_text") or ""
        return [name for name in installed["names"] if name not in locks]
    return list(installed.get("unheld") or [])


def _load_changes(want, plan, installed, parse):
    gpus = want.get("gpus") or []
    loaded = want.get("loaded") or {}
    load = policy.load_state(len(gpus), bool(_preflight(want).get("nouveau_loaded")), loaded,
                             installed.get("version"), parse)
    changes = [LOAD] if load["reboot_required"] or load["try_modprobe"] else []
    if loaded.get("loaded") and (str(loaded.get("branch")) != str(want.get("branch"))
                                 or loaded.get("kernel_module_flavor") != plan.get("flavor")):
        changes.append(LOADED_MISMATCH)
    return changes, load


def commands_of(want, plan, found):
    """os_layout.commands for the OS the preflight read (EL 10: no module stream, the branch's versionlock pattern)
    and `branch_locked`: whether `dnf versionlock list` (found's locks_text) already keeps dnf on the branch (True
    where there is no pattern to lock)."""
    pre = _preflight(want)
    family = (pre.get("os") or {}).get("family", "Debian")
    found_commands = os_layout.commands(family, str(want.get("branch", "580")), plan.get("flavor"), pre.get("os"))
    found_commands["branch_locked"] = package_steps.branch_locked(found.get("locks_text") or "",
                                                                  found_commands["branch_lock"])
    return found_commands


def changes_of(want, found, plan, commands, parse=versions.parse):
    """The named changes a run would make to a host the role manages the driver of (action manage); commands:
    commands_of's answer."""
    family = (_preflight(want).get("os") or {}).get("family", "Debian")
    installed = plan["installed"]
    current = found.get("files") or {}
    changes = _repo_changes(want, found, family) if (want.get("repo") or {}).get("configure") else []
    have = set(p["name"] for p in policy.parse_package_lines(found.get("support_text") or ""))
    if any(name not in have for name in support_packages(want)):
        changes.append(SUPPORT)
    if not commands["branch_locked"]:
        changes.append(BRANCH_LOCK)
    if not plan.get("in_place"):
        changes.append(PACKAGES)
    if _unheld(want, found, installed, family):
        changes.append(HOLDS)
    files = files_of(want, installed, family)
    for name, label in (("uu_blacklist", UU), ("nouveau", NOUVEAU), ("dkms_mok", DKMS_MOK)):
        if name in files and current.get(files[name]["dest"]) != files[name]["content"]:
            changes.append(label)
    load_changes, load = _load_changes(want, plan, installed, parse)
    service = found.get("persistenced") or {}
    if want.get("persistenced") and service.get("unit"):
        if not service.get("enabled"):
            changes.append(PERSISTENCED_ENABLED)
        if (want.get("loaded") or {}).get("loaded") and not load["reboot_required"] and not service.get("active"):
            changes.append(PERSISTENCED_STARTED)
    return changes + load_changes


def status_of(want, plan):
    """nvidia_driver_status as a run that changes nothing publishes it."""
    loaded = want.get("loaded") or {}
    installed = plan.get("installed") or {}
    manage = plan.get("action") == "manage"
    return {"action": plan.get("action"), "branch": str(want.get("branch")), "flavor": plan.get("flavor"),
            "version": loaded.get("version") if not manage and loaded.get("loaded") else installed.get("version"),
            "loaded": bool(loaded.get("loaded")), "packages": list(installed.get("names") or []),
            "method": "in place" if plan.get("in_place") else "none", "reboot_required": False,
            "msg": plan.get("msg")}


def decide(want, found, parse=versions.parse):
    """{"ok", "refusals", "msg", "plan", "installed", "changes", "converged", "files", "status", "support_packages",
    "commands"}.

    want: {"host", "branch", "flavor", "manage", "upgrade", "gpus", "loaded", "preflight", "repo": {"configure",
    "url", "key_url", "key_content", "fingerprints", "proxy", "keyring", "source_path", "proxy_path"}, "hold",
    "uu_exclude", "uu_path", "blacklist_nouveau", "mok_key", "mok_cert", "persistenced", "kernel_headers",
    "headers_track_kernel", "dkms_package"}, its inputs' own refusals already made (the module's input_refusals);
    found: host_probe.read_host's result.
    Converged: nothing would change and the loaded driver is the wanted one, or the role does not
    manage the driver (adopt, check). A refused host is never converged. support_packages: the kernel headers
    and DKMS packages the change path installs; commands: what it runs on this OS (commands_of: os_layout.commands
    for the OS the preflight read, with branch_locked).
    """
    plan = plan_of(want, found.get("packages_text"), parse)
    refused = refusals_of(want, found, plan)
    family = (_preflight(want).get("os") or {}).get("family", "Debian")
    installed = dict(plan["installed"], method="in place" if plan.get("in_place") else "none")
    commands = commands_of(want, plan, found)
    changes = changes_of(want, found, plan, commands, parse) if not refused and plan.get("action") == "manage" else []
    current = found.get("files") or {}
    files = files_of(want, installed, family)
    for entry in files.values():
        entry["differs"] = current.get(entry["dest"]) != entry["content"]
    return {"ok": not refused, "refusals": refused,
            "msg": numbered(want.get("host") or "this host", refused) if refused else plan.get("msg"),
            "plan": plan, "installed": installed, "changes": changes, "converged": not refused and not changes,
            "files": files, "status": status_of(want, plan), "support_packages": support_packages(want),
            "commands": commands}
