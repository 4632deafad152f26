# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters the verify and fleet_report roles render with: thin shells over module_utils/verify
(report, fleet_report, fleet_html, plan, decision, health_gates, role_inputs) and module_utils/common/output_dirs;
each filter is documented in a sidecar YAML file of its name."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import (
    as_bool, as_dict, as_list, call, text)
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.lazy_import import module_utils

output_dirs = module_utils("common.output_dirs")
decision = module_utils("verify.decision")
fleet_html = module_utils("verify.fleet_html")
fleet_report = module_utils("verify.fleet_report")
health_gates = module_utils("verify.health_gates")
plan = module_utils("verify.plan")
role_inputs = module_utils("verify.role_inputs")
verify_report = module_utils("verify.report")


def verify_summary(document):
    """One line per benchmarked device of a verification result."""
    return call("verify_summary", verify_report.summary, as_dict(document, "document", "verify_summary"))


def verify_plan(request):
    """Product line, tests, sizes, effective gates, settings and refusals of a verify request."""
    return call("verify_plan", plan.plan, as_dict(request, "request", "verify_plan"))


def verify_inputs(values: Any, names: Any = None, gpus: Any = None) -> dict[str, Any]:
    """The verify role's options and facts as the arguments of verify_plan, verify_decision and verify_steps, and
    gpu_health's gates: `values` name -> value, or (with `names`) the values of `names` in their order."""
    if names is not None:
        names = [text(name) for name in as_list(names, "names", "verify_inputs")]
        values = as_list(values, "values", "verify_inputs")
        if len(values) != len(names):
            raise AnsibleFilterError("verify_inputs: %d values for %d names" % (len(values), len(names)))
        values = dict(zip(names, values))
    return call("verify_inputs", role_inputs.inputs, as_dict(values, "values", "verify_inputs"),
                as_list(gpus, "gpus", "verify_inputs"))


def verify_decision(verify_plan_answer, memo=None, run=None, published=None, options=None):
    """Whether the stored verification stands (the blackwell_cuda_check memo, else the role's stack_fingerprint
    call)."""
    options = as_dict(options, "options", "verify_decision")
    for key in ("force", "check_mode"):
        options[key] = as_bool(options.get(key, False), key, "verify_decision")
    return call("verify_decision", decision.decision, as_dict(verify_plan_answer, "plan", "verify_decision"),
                as_dict(memo, "memo", "verify_decision"), as_dict(run, "run", "verify_decision"),
                as_dict(published, "published", "verify_decision"), options)


def output_dir_errors(dirs):
    """One message per output directory (variable name -> path) that cannot take results."""
    return call("output_dir_errors", output_dirs.problems, as_dict(dirs, "dirs", "output_dir_errors"))


def verify_check_gpu(gpu):
    """The few facts of a torch_cuda_check GPU entry the result keeps."""
    return verify_report.check_gpu(as_dict(gpu, "gpu", "verify_check_gpu", allow_none=False))


def verify_prometheus(document):
    """The node_exporter textfile of a verification result."""
    return call("verify_prometheus", verify_report.prometheus, as_dict(document, "document", "verify_prometheus"))


def fleet_report_data(documents, previous=None, play_hosts=None, outlier_ratio=None, drop_ratio=None,
                      expected_floor=None, peak_floor=None):
    """The fleet document from {host: verification result or None}, the previous report's fleet.json (text or
    document) and the hosts of this play (None: every host is in it); peak_floor is deprecated and ignored (the
    document's settings say so)."""
    if previous is not None and not isinstance(previous, (str, Mapping)):
        raise AnsibleFilterError("fleet_report_data: previous must be the previous fleet.json (text or a mapping), "
                                 "got %s" % type(previous).__name__)
    return call("fleet_report_data", fleet_report.fleet, as_dict(documents, "documents", "fleet_report_data"),
                previous if isinstance(previous, str) or previous is None else dict(previous),
                None if play_hosts is None else [text(host) for host in as_list(play_hosts, "play_hosts",
                                                                                "fleet_report_data")],
                {"outlier_ratio": outlier_ratio, "drop_ratio": drop_ratio, "expected_floor": expected_floor,
                 "peak_floor": peak_floor})


def fleet_report_markdown(report):
    """The fleet document as Markdown."""
    return call("fleet_report_markdown", fleet_report.markdown, as_dict(report, "report", "fleet_report_markdown"))


def fleet_report_html(report):
    """The fleet document as one HTML page."""
    return call("fleet_report_html", fleet_html.html, as_dict(report, "report", "fleet_report_html"))


def verify_with_health(document, health=None):
    """A verification result with the health verdict joined (passed, message, summary, health)."""
    return call("verify_with_health", health_gates.with_health, as_dict(document, "document", "verify_with_health"),
                as_dict(health, "health", "verify_with_health"))


class FilterModule(object):
    """blackwell.pytorch verification report filters."""

    def filters(self):
        return {"verify_summary": verify_summary, "verify_check_gpu": verify_check_gpu,
                "verify_plan": verify_plan, "verify_decision": verify_decision, "verify_inputs": verify_inputs,
                "output_dir_errors": output_dir_errors,
                "verify_prometheus": verify_prometheus, "fleet_report_data": fleet_report_data,
                "fleet_report_markdown": fleet_report_markdown, "fleet_report_html": fleet_report_html,
                "verify_with_health": verify_with_health}
