# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters for the nvidia_driver and cuda_toolkit roles: thin shells around module_utils.

Each filter is documented in the file of its name beside this one (openpgp_key_check.yml, ...).
The logic and its unit tests live in plugins/module_utils (openpgp, driver_policy, cuda_compat).
"""
from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import cuda_compat, openpgp, policy as driver_policy


def _text(value):
    return "" if value is None else str(value)


def _list(value, name):
    if value is None:
        return []
    if isinstance(value, (str, bytes, dict)):
        raise AnsibleFilterError("%s must be a list, got %s" % (name, type(value).__name__))
    return list(value)


def openpgp_key_check(text, pinned):
    """Whether an armored public key may be trusted: every primary key's fingerprint pinned."""
    return openpgp.check_key(_text(text), _list(pinned, "pinned"))


def nvidia_driver_plan(gpus, flavor="auto", branch="580", manage="auto", loaded=None, packages="",
                       upgrade=False, kernel="", os_family="Debian"):
    """Flavor, action on the existing driver, names to ask apt about, headers meta package."""
    gpus = _list(gpus, "gpus")
    try:
        chosen = driver_policy.choose_flavor(flavor, gpus)
    except ValueError as err:
        raise AnsibleFilterError("nvidia_driver_plan: %s" % err)
    plan = {"ok": False, "msg": chosen["msg"], "flavor": chosen["flavor"],
            "open_required": chosen["open_required"], "flavor_msg": chosen["msg"], "action": None,
            "action_msg": "", "installed": driver_policy.installed_driver(
                driver_policy.parse_package_lines(_text(packages))),
            "apt_query": [], "headers_meta": driver_policy.headers_meta_package(kernel, os_family)}
    if not chosen["ok"]:
        return plan
    action = driver_policy.driver_action(manage, branch, chosen["flavor"], dict(loaded or {}),
                                         driver_policy.parse_package_lines(_text(packages)), bool(upgrade))
    plan.update(ok=action["ok"], action=action["action"], action_msg=action["msg"],
                installed=action["installed"], apt_query=driver_policy.apt_query_names(branch, chosen["flavor"]))
    plan["msg"] = action["msg"] if not action["ok"] else "%s; %s" % (chosen["msg"], action["msg"])
    return plan


def nvidia_driver_apt_packages(policy_text, branch="580", flavor="open"):
    """Install method and package names from `apt-cache policy` output."""
    return driver_policy.apt_choose_packages(driver_policy.parse_apt_policy(_text(policy_text)), branch, flavor)


def nvidia_driver_load_state(gpus, nouveau_loaded=False, loaded=None, installed_version=None):
    """Whether the installed driver can be loaded now or needs a reboot."""
    return driver_policy.load_state(len(_list(gpus, "gpus")), bool(nouveau_loaded), dict(loaded or {}),
                                    installed_version or None)


def cuda_toolkit_plan(versions, default="", driver=None, driver_cuda=None, gpus=None, minor_compat=False,
                      manage="auto", installed=None, found=None, current=None):
    """Toolkits to install, adopt or check, their default, and every refusal, before any change."""
    if isinstance(installed, str):
        installed = cuda_compat.toolkits_from_packages(installed)
    if isinstance(found, str):
        current = current or cuda_compat.current_release(found)
        found = cuda_compat.parse_found(found)
    try:
        return cuda_compat.toolkit_plan(_list(versions, "versions"), _text(default), driver or None,
                                        driver_cuda or None, _list(gpus, "gpus"), bool(minor_compat),
                                        _text(manage), _list(installed, "installed"), dict(found or {}), current)
    except ValueError as err:
        raise AnsibleFilterError("cuda_toolkit_plan: %s" % err)


def cuda_nvcc_check(version_text, arch_text="", expected="", gpus=None):
    """Check one nvcc: its release and that it targets every GPU."""
    caps = [gpu.get("compute_capability") or gpu.get("sm") for gpu in _list(gpus, "gpus")]
    try:
        return cuda_compat.nvcc_check(_text(version_text), _text(arch_text), expected, caps)
    except ValueError as err:
        raise AnsibleFilterError("cuda_nvcc_check: %s" % err)


class FilterModule(object):
    """blackwell.pytorch driver and toolkit filters."""

    def filters(self):
        return {
            "openpgp_key_check": openpgp_key_check,
            "nvidia_driver_plan": nvidia_driver_plan,
            "nvidia_driver_apt_packages": nvidia_driver_apt_packages,
            "nvidia_driver_load_state": nvidia_driver_load_state,
            "cuda_toolkit_plan": cuda_toolkit_plan,
            "cuda_nvcc_check": cuda_nvcc_check,
        }
