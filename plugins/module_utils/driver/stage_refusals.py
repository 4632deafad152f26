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

# The stages site.yml runs when blackwell_site_stages is not set (leaving the driver out of them).
DEFAULT_STAGES = ("driver", "toolkit", "pytorch", "verify")


def site_leave_out(stages, loaded=None, toolkit=None):
    """How site.yml runs without its driver stage, ending with the command line: the play's stages but driver; and,
    where the toolkit stage would then plan against no driver (none loaded; toolkit: the toolkit stage's options
    without versions or driver version), the driver version it needs, which the next run would refuse otherwise."""
    rest = [stage for stage in (stages or DEFAULT_STAGES) if stage != "driver"] or [
        stage for stage in DEFAULT_STAGES if stage != "driver"]
    args = "-e blackwell_site_stages=%s" % ",".join(rest)
    needs_version = "toolkit" in rest and not (loaded or {}).get("loaded") and toolkit is not None \
        and not toolkit.get("versions") and not str(toolkit.get("driver") or "").strip()
    if not needs_version:
        return 'install the driver yourself and leave the driver stage out: make site ARGS="%s"' % args
    return ("install the driver yourself and leave the driver stage out (while no driver is loaded, the toolkit stage "
            "needs the driver's version, VERSION below, e.g. 580.95.05): make site ARGS=\"%s "
            "-e cuda_toolkit_driver_version=VERSION\"" % args)


def query_package_manager(run, argv):
    """(rc, stdout) of the read-only package query, or None when there is none or its program is absent."""
    if not argv:
        return None
    rc, out, _err = run(argv)
    return None if rc == 127 else (rc, out)


def stage_refusals_by_cause(run, stages, user, os_family, headers, driver, toolkit=None):
    """What the stages of site.yml cannot do here, [(cause, message)]: ("root", privilege.stages_root_refusal) and
    ("headers", headers_check.headers_refusal with site_leave_out); toolkit: the toolkit stage's options (None when
    not asked)."""
    refusals = [("root", stages_root_refusal(stages, user))]
    headers_refused = headers_refusal(headers, True, site_leave_out(stages, driver, toolkit)) if "driver" in stages else ""
    if headers_refused and not driver.get("loaded"):  # the packages are asked for only then
        query = query_package_manager(run, driver_packages_query(os_family))
        if build_planned_before_plan(driver, query[1] if query else ""):
            refusals.append(("headers", headers_refused))
    return [(cause, message) for cause, message in refusals if message]


def stage_refusals(run, stages, user, os_family, headers, driver, toolkit=None):
    """The messages of stage_refusals_by_cause."""
    return [message for _cause, message in stage_refusals_by_cause(run, stages, user, os_family, headers, driver, toolkit)]
