# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verify role's filter over its decision: the task files it includes, each with the decision and the health
judged from the preflight probe's reading. A thin shell over module_utils/verify/steps.py, which decides whether
the reading is judged (it calls the judging passed here only then: module_utils/verify/probe_health_verdict.py),
documented in verify_steps.yml beside this file."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import as_bool, as_dict, call, text
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.lazy_import import module_utils

health_gates = module_utils("verify.health_gates")
probe_health_verdict = module_utils("verify.probe_health_verdict")
steps = module_utils("verify.steps")

NAME = "verify_steps"


def health_gate_options(gates: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """(options, error): the health gates' booleans and Xid numbers read as gpu_health's argument spec reads them
    (true / yes / 1, "13"); error says why they cannot be (gpu_health then refuses them itself)."""
    options = dict(gates)
    for key in health_gates.GATES + ("require_known",):
        if options.get(key) is not None:
            try:
                options[key] = boolean(options[key], strict=True)
            except TypeError as err:
                return options, "%s: %s" % (key, err)
    if isinstance(options.get("xid_ignore"), (list, tuple)):
        options["xid_ignore"] = health_gates.xid_numbers(list(options["xid_ignore"]))
    return options, ""


def judged_health(probe: Any, decision: Any = None, driver: Any = None, request: Any = None) -> dict[str, Any]:
    """What gpu_health would answer the verify role, from blackwell_preflight.health when it serves
    (probe_health_verdict.judged): use, reason, and when it serves health, verdict and textfile."""
    request = as_dict(request, "request", NAME)
    request["gates"], request["gates_error"] = health_gate_options(as_dict(request.get("gates"), "gates", NAME))
    for key in ("host", "device", "kernel_log", "textfile_dir"):
        request[key] = text(request.get(key))
    return call(NAME, probe_health_verdict.judged, None if probe is None else as_dict(probe, "probe", NAME),
                as_dict(decision, "decision", NAME), as_dict(driver, "driver", NAME), request)


def verify_steps(decision: Any, probe: Any = None, driver: Any = None, request: Any = None,
                 options: Any = None) -> list[dict[str, Any]]:
    """[{file, decision, health}]: what the verify role includes after its decision (verify_decision's answer)."""
    decision = as_dict(decision, "decision", NAME)
    options = as_dict(options, "options", NAME)
    for key in ("health", "container", "fingerprinted"):
        options[key] = as_bool(options.get(key, False), key, NAME)
    # the textfile directory: the request's (the health textfile's directory is the verification textfile's); a
    # request that is no mapping is the judging's to refuse, when it is called
    given = request.get("textfile_dir") if isinstance(request, Mapping) else ""
    options["textfile_dir"] = text(options.get("textfile_dir", given))
    return call(NAME, steps.steps, decision, lambda: judged_health(probe, decision, driver, request), options)


class FilterModule(object):
    """blackwell.pytorch filter: the verify role's steps."""

    def filters(self):
        return {"verify_steps": verify_steps}
