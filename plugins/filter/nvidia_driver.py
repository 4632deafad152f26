# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the nvidia_driver role: thin shells over module_utils/driver (plan, policy), each
documented in the file of its name beside this one (nvidia_driver_plan.yml, ...). Driver versions
are compared with packaging (plugin_utils/versions.py)."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import as_bool, as_dict, as_dicts, as_list, call, text
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.lazy_import import module_utils, plugin_utils

inputs = module_utils("driver.inputs")
os_layout = module_utils("driver.os_layout")
plan = module_utils("driver.plan")
policy = module_utils("driver.policy")
versions = plugin_utils("versions")


def nvidia_driver_plan(gpus, flavor="auto", branch="580", manage="auto", loaded=None, packages="",
                       upgrade=False, kernel="", os_family="Debian", headers=None, user=None):
    """Flavor, action on the existing driver, names to ask apt about, headers meta package."""
    name = "nvidia_driver_plan"
    return call(name, plan.driver_plan, as_dicts(gpus, "gpus", name), text(flavor), text(branch), text(manage),
                as_dict(loaded, "loaded", name), text(packages), as_bool(upgrade, "upgrade", name), text(kernel),
                text(os_family), versions.parse, as_dict(headers, "headers", name), as_dict(user, "user", name))


def nvidia_driver_repo_check(url, key_url="", key_content="", fingerprints=None, proxy=""):
    """Problems of the repository inputs (URLs, pinned fingerprints, proxy) before anything changes."""
    problems = inputs.repo_problems(text(url), text(key_url), text(key_content),
                                    fingerprints if isinstance(fingerprints, str) else as_list(
                                        fingerprints, "fingerprints", "nvidia_driver_repo_check"), text(proxy))
    return {"ok": not problems, "problems": problems}


def nvidia_driver_apt_packages(policy_text, branch="580", flavor="open"):
    """Install method and package names from `apt-cache policy` output."""
    return policy.apt_packages(text(policy_text), text(branch), text(flavor))


def nvidia_driver_load_state(gpus, nouveau_loaded=False, loaded=None, installed_version=None):
    """Whether the installed driver can be loaded now or needs a reboot."""
    name = "nvidia_driver_load_state"
    return policy.load_state(len(as_dicts(gpus, "gpus", name)), as_bool(nouveau_loaded, "nouveau_loaded", name),
                             as_dict(loaded, "loaded", name), text(installed_version) or None, versions.parse)


class FilterModule(object):
    """blackwell.pytorch driver filters."""

    def filters(self):
        return {
            "nvidia_driver_plan": nvidia_driver_plan,
            "nvidia_driver_apt_packages": nvidia_driver_apt_packages,
            "nvidia_driver_load_state": nvidia_driver_load_state,
            "nvidia_driver_repo_check": nvidia_driver_repo_check,
        }
