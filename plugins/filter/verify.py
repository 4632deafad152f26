# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters the verify and fleet_report roles render with: the logic lives in module_utils
(verify_report, fleet_report); each filter is documented in a sidecar YAML file of its name."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import fleet_report, report as verify_report


def verify_summary(document):
    return verify_report.summary(document)


def verify_check_gpu(gpu):
    return verify_report.check_gpu(gpu)


def verify_prometheus(document):
    return verify_report.prometheus(document)


def fleet_report_data(documents):
    return fleet_report.fleet(dict(documents))


def fleet_report_markdown(report):
    return fleet_report.markdown(report)


def fleet_report_html(report):
    return fleet_report.html(report)


class FilterModule(object):
    def filters(self):
        return {"verify_summary": verify_summary, "verify_check_gpu": verify_check_gpu,
                "verify_prometheus": verify_prometheus, "fleet_report_data": fleet_report_data,
                "fleet_report_markdown": fleet_report_markdown, "fleet_report_html": fleet_report_html}
