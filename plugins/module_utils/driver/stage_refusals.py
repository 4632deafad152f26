# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the stages of site.yml cannot do on the host the preflight probe reads (root for the stages that change it,
a driver build without headers), and the read-only package manager queries it asks. `run(argv)` runs a read-only
command and returns (rc, stdout, stderr), rc 127 when the program is absent; no Ansible import.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.privilege import stages_root_refusal
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.headers_check import (
    build_planned_before_plan, driver_packages_query, headers_refusal)

# How a play leaves the driver stage out of site.yml.
SITE_LEAVE_OUT = ("run without the driver stage (blackwell_site_stages: toolkit,pytorch,verify), "
                  "installing the driver yourself")


def query_package_manager(run, argv):
    """(rc, stdout) of the read-only package query, or None when there is none or its program is absent."""
    if not argv:
        return None
    rc, out, _err = run(argv)
    return None if rc == 127 else (rc, out)


def stage_refusals(run, stages, user, os_family, headers, driver):
    """What the stages of site.yml cannot do here (privilege.stages_root_refusal, headers_check)."""
    refusals = [stages_root_refusal(stages, user)]
    headers_refused = headers_refusal(headers, True, SITE_LEAVE_OUT) if "driver" in stages else ""
    if headers_refused and not driver.get("loaded"):  # the packages are asked for only then
        query = query_package_manager(run, driver_packages_query(os_family))
        if build_planned_before_plan(driver, query[1] if query else ""):
            refusals.append(headers_refused)
    return [r for r in refusals if r]
