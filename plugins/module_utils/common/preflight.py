# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the preflight role publishes and refuses, from what preflight_facts read (no Ansible import).

One module call reads the host; these functions turn the reading into the `blackwell_preflight` fact,
the refusals (whole sentences naming the host, in the order the role used to assert them: OS, GPU,
stages, disk; each ending with the command line that fixes it) and the one-line report, so the role
needs no Jinja of its own. A refusal is said once per cause (one_per_cause), and several are numbered,
one a line (numbered).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def sentence(host: str, text: str) -> str:
    """"HOST: text", with a full stop unless the text ends with one or with a command's closing quote."""
    return "%s: %s%s" % (host, text, "" if text.endswith((".", '"')) else ".")


def one_per_cause(entries: Iterable[tuple[str | None, str]]) -> list[str]:
    """[(cause, message)] -> the messages, the first of each cause (a cause of None is never folded) and no message
    twice, in their order."""
    seen, out = set(), []
    for cause, message in entries:
        if not message or message in out or (cause is not None and cause in seen):
            continue
        seen.add(cause)
        out.append(message)
    return out


def numbered(host: str, refusals: Sequence[str]) -> str:
    """The failure message of several refusals: a line naming how many, then one numbered line each (a numbered
    line reads as one in Ansible's [ERROR] text and in its failed result alike); one refusal is itself."""
    refusals = [r for r in refusals if r]
    if len(refusals) < 2:
        return "".join(refusals)
    return "%s: %d refusals, each with its fix; nothing was changed.\n%s" % (
        host, len(refusals), "\n".join("%d. %s" % (index, text) for index, text in enumerate(refusals, 1)))


def os_label(distribution: str, version: str, major_version: str) -> str:
    """'Ubuntu 24.04', 'Debian 12', 'Rocky 9': Ubuntu by its full version, the others by the major one."""
    return "%s %s" % (distribution, version if distribution == "Ubuntu" else major_version)


def connection_is_local(connection: str, controller_machine_id: str, machine_id: str) -> bool:
    """Whether the play runs on the machine it provisions: a local connection, or the same machine id."""
    controller_machine_id = (controller_machine_id or "").strip()
    return connection == "local" or bool(controller_machine_id) and controller_machine_id == (machine_id or "").strip()


def disk_shortfalls(disk: Iterable[Mapping[str, Any]]) -> list[str]:
    """'/opt needs 20.0 GiB free and its mount / has 5.2 GiB', one per disk check that failed."""
    return ["%s needs %s GiB free and its mount %s has %s GiB" % (
        d["path"], float(d["min_free_gib"]), d["mount"], d["free_gib"]) for d in disk if not d.get("ok")]


def refusal_entries(host: str, label: str, supported_os: Sequence[str], allow_unsupported: bool, gpu_count: int,
                    require_gpu: bool, stage_refusals: Iterable[str | tuple[str | None, str]],
                    disk: Iterable[Mapping[str, Any]]) -> list[tuple[str | None, str]]:
    """Every reason to stop before a change, [(cause, message)] (empty when the host may go on): "os", "gpu", each
    stage refusal ([(cause, text)]: stage_refusals.stage_refusals_by_cause) with its own cause, "disk"."""
    out = []
    if label not in supported_os and not allow_unsupported:
        out.append(("os", "blackwell.pytorch supports %s; %s runs %s. To try anyway (untested): "
                          'make site ARGS="-e preflight_allow_unsupported_os=true"' % (", ".join(supported_os), host, label)))
    if gpu_count == 0 and require_gpu:
        out.append(("gpu", "No NVIDIA GPU found on the PCI bus of %s. To provision without one (image builds, tests): "
                           'make site ARGS="-e blackwell_require_gpu=false"' % host))
    out += [(cause, sentence(host, text)) for cause, text in stage_refusals]
    shortfalls = disk_shortfalls(disk)
    if shortfalls:
        out.append(("disk", "Not enough free disk on %s: %s." % (host, "; ".join(shortfalls))))
    return out


def refusals(host: str, label: str, supported_os: Sequence[str], allow_unsupported: bool, gpu_count: int,
             require_gpu: bool, stage_refusals: Iterable[str | tuple[str | None, str]],
             disk: Iterable[Mapping[str, Any]]) -> list[str]:
    """The messages of refusal_entries; stage_refusals: messages, or (cause, message) pairs."""
    stages = [entry if isinstance(entry, tuple) else (None, entry) for entry in stage_refusals]
    return [message for _cause, message in refusal_entries(
        host, label, supported_os, allow_unsupported, gpu_count, require_gpu, stages, disk)]


def published(os_facts: Mapping[str, str], supported_os: Sequence[str], gpus: Sequence[Mapping[str, Any]],
              driver: Mapping[str, Any], require_gpu: bool, secure_boot: Mapping[str, Any], headers: Mapping[str, Any],
              disk: Sequence[Mapping[str, Any]], nouveau: bool, python: Mapping[str, Any], user: Mapping[str, Any],
              connection: Mapping[str, Any]) -> dict[str, Any]:
    """The `blackwell_preflight` fact every role reads.

    os_facts: {"distribution", "version", "major_version", "family"}; gpus / driver: as gpu_facts returns
    them; connection: {"type", "local"}.
    """
    label = os_label(os_facts["distribution"], os_facts["version"], os_facts["major_version"])
    return {
        "os": {"label": label, "distribution": os_facts["distribution"], "version": os_facts["version"],
               "family": os_facts["family"], "supported": label in supported_os},
        "gpus": {"count": len(gpus), "required": bool(require_gpu),
                 "pci": [g.get("pci_bus_id") for g in gpus], "names": [g.get("name") for g in gpus],
                 "sm": [g.get("sm") for g in gpus]},
        "driver": {"loaded": driver.get("loaded"), "version": driver.get("version"),
                   "kernel_module_flavor": driver.get("kernel_module_flavor")},
        "secure_boot": secure_boot,
        "kernel": {"release": headers["release"], "headers_installed": headers["installed"],
                   "headers_package": headers["package"], "headers_installable": headers["installable"]},
        "disk": disk,
        "nouveau_loaded": nouveau,
        "python": python,
        "user": user,
        "connection": connection,
    }


def summary(preflight: Mapping[str, Any]) -> str:
    """The role's one report line."""
    p = preflight
    return ("%s; %d NVIDIA GPU(s) %s; driver %s (%s); Secure Boot %s; headers %s; nouveau %s; "
            "connection %s" % (
                p["os"]["label"], p["gpus"]["count"], " ".join(str(s) for s in p["gpus"]["sm"]),
                p["driver"]["version"] or "none", p["driver"]["kernel_module_flavor"],
                p["secure_boot"].get("state"),
                "installed" if p["kernel"]["headers_installed"]
                else "missing (installable: %s)" % p["kernel"]["headers_installable"],
                "loaded" if p["nouveau_loaded"] else "not loaded",
                "local" if p["connection"]["local"] else p["connection"]["type"]))
