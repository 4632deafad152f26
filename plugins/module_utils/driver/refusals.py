# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nvidia_driver role's own refusals, refused before anything changes (docs/runbook.md quotes them).

Each function returns '' (fine) or the message; `host` is the inventory host name. The plan's
and the repository inputs' problems come from driver.plan and driver.inputs. The nvidia_driver_state
module makes the refusals of the inputs alone (repo_inputs_refusal, local_reboot_refusal, with
inputs.branch_problems) before it reads the host; driver.state the others, which need the host.
No Ansible import.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.preflight import sentence
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import inputs


def plan_refusal(host, plan):
    """The plan's refusals (flavor, branch, existing driver, root, kernel headers) in one message."""
    return "" if plan.get("ok") else "%s: %s." % (host, plan.get("msg"))


def plan_refusals(host, plan):
    """The plan's refusals one by one, [(cause, message)]: root, headers, the plan's own (flavor, branch, existing
    driver), each naming the host (driver.plan's `refused`)."""
    if plan.get("ok"):
        return []
    entries = plan.get("refused") or [{"cause": "plan", "msg": plan.get("msg")}]
    return [(entry["cause"], sentence(host, entry["msg"])) for entry in entries]


def repo_inputs_refusal(host, url, key_url, key_content, fingerprints, proxy):
    """URLs, pinned fingerprints and proxy that cannot work (never showing a password)."""
    problems = inputs.repo_problems(url, key_url, key_content, fingerprints, proxy)
    return "%s: %s." % (host, "; ".join(problems)) if problems else ""


def local_reboot_refusal(host, reboot_ok, local):
    """nvidia_driver_reboot_ok over a local connection: the role never reboots the machine running the play."""
    if not (reboot_ok and local):
        return ""
    return ("nvidia_driver_reboot_ok is true but the play runs on %s itself (local connection): this role "
            "never reboots the machine that runs the play. Set nvidia_driver_reboot_ok: false (a needed "
            "reboot is then reported in nvidia_driver_reboot_required) or run the play from another "
            "controller." % host)


def secure_boot_refusal(host, secure_boot_state, action, mok_key, mok_cert):
    """Secure Boot enabled, packages to manage and no MOK key pair to sign the module with."""
    if secure_boot_state != "enabled" or action != "manage" or (mok_key and mok_cert):
        return ""
    return ("Secure Boot is enabled on %s and no MOK key is configured: the kernel would refuse the "
            "unsigned nvidia module. Create a key pair on the host (openssl req -new -x509 -newkey rsa:2048 "
            "-nodes -days 36500 -subj '/CN=DKMS module signing/' -outform DER -keyout /var/lib/dkms/mok.key "
            "-out /var/lib/dkms/mok.der), set nvidia_driver_mok_key and nvidia_driver_mok_cert to those "
            "paths, and enroll the certificate once (mokutil --import /var/lib/dkms/mok.der, reboot, confirm "
            "at the console); or turn Secure Boot off in the firmware." % host)


def mok_files_refusal(host, mok_key, mok_cert, missing):
    """The MOK pair: both variables or neither, and both files on the host (missing: paths not there)."""
    if bool(mok_key) != bool(mok_cert):
        what = "one of the two variables"
    elif missing:
        what = ", ".join(missing)
    else:
        return ""
    return ("nvidia_driver_mok_key and nvidia_driver_mok_cert go together and must be files on %s; "
            "missing: %s." % (host, what))


def other_sources_refusal(host, url, others):
    """Another apt source of the same repository (apt rejects two Signed-By values for one URL)."""
    if not others:
        return ""
    return ("%s already configure(s) %s on %s (cuda-keyring installs one): remove it (apt-get purge "
            "cuda-keyring), or set nvidia_driver_repo_configure: false to use it as it is." % (
                ", ".join(others), url, host))
