# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""site.yml's per-host summary filter: a thin shell over module_utils/stages/summary.py (documented in the sidecar
YAML file of its name)."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import as_dicts, call
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.lazy_import import module_utils

summary = module_utils("stages.summary")


def _fact(value):
    """A published fact as a dict, None when not published (null or undefined-turned-null)."""
    return None if value is None else dict(value)


def site_summary(gpus, driver=None, driver_status=None, toolkit_status=None, pytorch=None, verify=None):
    """The summary's lines of one host: its GPUs, the loaded driver and each stage's published fact."""
    name = "site_summary"
    return call(name, summary.site_summary, as_dicts(gpus, "gpus", name), _fact(driver), _fact(driver_status),
                _fact(toolkit_status), _fact(pytorch), _fact(verify))


class FilterModule(object):
    """blackwell.pytorch site filters."""

    def filters(self):
        return {"site_summary": site_summary}
