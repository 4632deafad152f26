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
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.privilege import root_refusal
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import headers_check, inputs, policy

# How a play that runs the nvidia_driver role leaves the driver alone (ending with site.yml's command line).
ROLE_LEAVE_OUT = ("install the driver yourself and leave the nvidia_driver role out on this host; in site.yml: "
                  'make site ARGS="-e blackwell_site_stages=toolkit,pytorch,verify"')


def driver_plan(gpus=(), flavor="auto", branch="580", manage="auto", loaded=None, packages_text="",
                upgrade=False, kernel="", os_family="Debian", parse=versions.parse, headers=None, user=None,
                branch_checked=False):
    """{"ok", "msg", "flavor", "open_required", "flavor_msg", "action", "action_msg", "installed",
    "apt_query", "headers_meta", "in_place", "headers_running", "refused"}.

    The refusals before the plan's own: managing the driver without root (user: {"uid", "name"} as
    preflight reads them; privilege.root_refusal), and installing packages, whose DKMS build needs
    the running kernel's headers, where those are missing and not offered (headers:
    blackwell_preflight.kernel; headers_check.headers_refusal). in_place: the packages of the
    branch and flavor are installed and no upgrade is asked; headers_running: the running kernel's
    headers package to install ('' when the lists do not offer it); refused: each refusal on its own,
    [{"cause": "root" | "headers" | "plan", "msg"}] ([] when ok; msg joins them), so that a caller that refused a
    cause already (site.yml's preflight probe) says it once.

    gpus: ansible_facts.nvidia_gpus; loaded: ansible_facts.nvidia_driver; packages_text: the
    installed packages as "name<TAB>version<TAB>status" lines. A refused flavor leaves action
    None and apt_query empty, msg says why (so does a branch that is no branch or too old for
    the GPUs, inputs.branch_problems, unless branch_checked: the caller refused a bad branch already, as
    nvidia_driver_state does before it reads the host); a refused action keeps its own msg. Raises
    ValueError for a GPU whose compute capability is not one.
    """
    plan = _plan(gpus, flavor, branch, manage, loaded, packages_text, upgrade, kernel, os_family, parse, branch_checked)
    installed = plan["installed"]
    plan["in_place"] = bool(installed["names"]) and installed["branch"] == str(branch) \
        and installed["flavor"] == plan["flavor"] and not upgrade
    plan["headers_running"] = headers_check.running_headers_to_install(headers)
    root = root_refusal("the nvidia_driver role", user) if plan["action"] == "manage" else ""
    headers_refused = headers_check.headers_refusal(
        headers, headers_check.build_planned(plan["action"], plan["in_place"]), ROLE_LEAVE_OUT) if plan["ok"] else ""
    plan["refused"] = [{"cause": cause, "msg": text} for cause, text in (
        ("root", root), ("headers", headers_refused), ("plan", "" if plan["ok"] else plan["msg"])) if text]
    if plan["refused"]:
        plan.update(ok=False, msg="; ".join(entry["msg"] for entry in plan["refused"]))
    return plan


def _plan(gpus, flavor, branch, manage, loaded, packages_text, upgrade, kernel, os_family, parse, branch_checked):
    chosen = policy.choose_flavor(flavor, list(gpus or ()))
    packages = policy.parse_package_lines(packages_text)
    plan = {"ok": False, "msg": chosen["msg"], "flavor": chosen["flavor"], "open_required": chosen["open_required"],
            "flavor_msg": chosen["msg"], "action": None, "action_msg": "",
            "installed": policy.installed_driver(packages, parse), "apt_query": [],
            "headers_meta": policy.headers_meta_package(kernel, os_family)}
    if not chosen["ok"]:
        return plan
    refused = [] if branch_checked else inputs.branch_problems(branch, list(gpus or ()))
    if refused:
        plan["msg"] = "; ".join(refused)
        return plan
    action = policy.driver_action(manage, branch, chosen["flavor"], loaded or {}, packages, upgrade, parse)
    plan.update(ok=action["ok"], action=action["action"], action_msg=action["msg"], installed=action["installed"],
                apt_query=policy.apt_query_names(branch, chosen["flavor"]),
                msg="%s; %s" % (chosen["msg"], action["msg"]) if action["ok"] else action["msg"])
    return plan
