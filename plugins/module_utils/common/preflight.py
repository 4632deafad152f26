# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the preflight role publishes and refuses, from what preflight_facts read (no Ansible import).

One module call reads the host; these functions turn the reading into the `blackwell_preflight` fact,
the refusals (whole sentences naming the host, in the order the role used to assert them: OS, GPU,
stages, disk) and the one-line report, so the role needs no Jinja of its own.
"""
from __future__ import annotations


def os_label(distribution, version, major_version):
    """'Ubuntu 24.04', 'Debian 12', 'Rocky 9': Ubuntu by its full version, the others by the major one."""
    return "%s %s" % (distribution, version if distribution == "Ubuntu" else major_version)


def connection_is_local(connection, controller_machine_id, machine_id):
    """Whether the play runs on the machine it provisions: a local connection, or the same machine id."""
    controller_machine_id = (controller_machine_id or "").strip()
    return connection == "local" or bool(controller_machine_id) and controller_machine_id == (machine_id or "").strip()


def disk_shortfalls(disk):
    """'/opt needs 20.0 GiB free and its mount / has 5.2 GiB', one per disk check that failed."""
    return ["%s needs %s GiB free and its mount %s has %s GiB" % (
        d["path"], float(d["min_free_gib"]), d["mount"], d["free_gib"]) for d in disk if not d.get("ok")]


def refusals(host, label, supported_os, allow_unsupported, gpu_count, require_gpu, stage_refusals, disk):
    """Every reason to stop before a change, one message each (empty when the host may go on)."""
    out = []
    if label not in supported_os and not allow_unsupported:
        out.append("blackwell.pytorch supports %s; %s runs %s. Set preflight_allow_unsupported_os: true to try "
                   "anyway (untested)." % (", ".join(supported_os), host, label))
    if gpu_count == 0 and require_gpu:
        out.append("No NVIDIA GPU found on the PCI bus of %s. Set blackwell_require_gpu: false to provision "
                   "without one (image builds, tests)." % host)
    if stage_refusals:
        out.append("%s: %s." % (host, ". ".join(stage_refusals)))
    shortfalls = disk_shortfalls(disk)
    if shortfalls:
        out.append("Not enough free disk on %s: %s." % (host, "; ".join(shortfalls)))
    return out


def published(os_facts, supported_os, gpus, driver, require_gpu, secure_boot, headers, disk, nouveau, python, user,
              connection):
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


def summary(preflight):
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
