# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nvidia_driver role's plan, composed from driver.policy before anything changes.

driver_plan() is what the nvidia_driver_plan filter returns: the flavor (choose_flavor), what to
do with the driver already there (driver_action), the names to ask apt about and the headers
meta package. `parse` is the version parser (common.versions.parse on targets and in tests,
packaging's on the controller). No Ansible import.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import inputs, policy


def driver_plan(gpus=(), flavor="auto", branch="580", manage="auto", loaded=None, packages_text="",
                upgrade=False, kernel="", os_family="Debian", parse=versions.parse):
    """{"ok", "msg", "flavor", "open_required", "flavor_msg", "action", "action_msg", "installed",
    "apt_query", "headers_meta"}.

    gpus: ansible_facts.nvidia_gpus; loaded: ansible_facts.nvidia_driver; packages_text: the
    installed packages as "name<TAB>version<TAB>status" lines. A refused flavor leaves action
    None and apt_query empty, msg says why (so does a branch that is no branch or too old for
    the GPUs, inputs.branch_problems); a refused action keeps its own msg. Raises
    ValueError for a GPU whose compute capability is not one.
    """
    chosen = policy.choose_flavor(flavor, list(gpus or ()))
    packages = policy.parse_package_lines(packages_text)
    plan = {"ok": False, "msg": chosen["msg"], "flavor": chosen["flavor"], "open_required": chosen["open_required"],
            "flavor_msg": chosen["msg"], "action": None, "action_msg": "",
            "installed": policy.installed_driver(packages, parse), "apt_query": [],
            "headers_meta": policy.headers_meta_package(kernel, os_family)}
    if not chosen["ok"]:
        return plan
    refused = inputs.branch_problems(branch, list(gpus or ()))
    if refused:
        plan["msg"] = "; ".join(refused)
        return plan
    action = policy.driver_action(manage, branch, chosen["flavor"], loaded or {}, packages, upgrade, parse)
    plan.update(ok=action["ok"], action=action["action"], action_msg=action["msg"], installed=action["installed"],
                apt_query=policy.apt_query_names(branch, chosen["flavor"]),
                msg="%s; %s" % (chosen["msg"], action["msg"]) if action["ok"] else action["msg"])
    return plan
