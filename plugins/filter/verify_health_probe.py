# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verify role's filter over the preflight probe's health reading: a thin shell over
module_utils/verify/probe_health_verdict.py, documented in verify_health_probe.yml beside this file."""
from __future__ import annotations

from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import as_dict, call, text
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.lazy_import import module_utils

health_gates = module_utils("verify.health_gates")
probe_health_verdict = module_utils("verify.probe_health_verdict")


def gate_options(gates):
    """(options, error): the gates' booleans and Xid numbers read as gpu_health's argument spec reads them
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


def verify_health_probe(probe, decision=None, driver=None, request=None):
    """What gpu_health would answer the verify role, from blackwell_preflight.health when it serves."""
    request = as_dict(request, "request", "verify_health_probe")
    request["gates"], request["gates_error"] = gate_options(as_dict(request.get("gates"), "gates",
                                                                    "verify_health_probe"))
    for key in ("host", "device", "kernel_log", "textfile_dir"):
        request[key] = text(request.get(key))
    return call("verify_health_probe", probe_health_verdict.judged, None if probe is None else as_dict(
        probe, "probe", "verify_health_probe"), as_dict(decision, "decision", "verify_health_probe"),
        as_dict(driver, "driver", "verify_health_probe"), request)


class FilterModule(object):
    """blackwell.pytorch health filter over the preflight probe's reading."""

    def filters(self):
        return {"verify_health_probe": verify_health_probe}
