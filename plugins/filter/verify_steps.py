# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verify role's filter over its decision: the task files it includes, each with the decision and the health
judged from the preflight probe's reading. A thin shell over module_utils/verify/steps.py, which decides whether
the reading is judged (it calls the judging passed here only then), documented in verify_steps.yml beside this
file."""
from __future__ import annotations

from collections.abc import Mapping

from ansible_collections.blackwell.pytorch.plugins.filter.verify_health_probe import verify_health_probe
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import as_bool, as_dict, call, text
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.lazy_import import module_utils

steps = module_utils("verify.steps")


def verify_steps(decision, probe=None, driver=None, request=None, options=None):
    """[{file, decision, health}]: what the verify role includes after its decision (verify_decision's answer)."""
    decision = as_dict(decision, "decision", "verify_steps")
    options = as_dict(options, "options", "verify_steps")
    for key in ("health", "container", "fingerprinted"):
        options[key] = as_bool(options.get(key, False), key, "verify_steps")
    # the textfile directory: the request's (the health textfile's directory is the verification textfile's); a
    # request that is no mapping is the judging's to refuse, when it is called
    given = request.get("textfile_dir") if isinstance(request, Mapping) else ""
    options["textfile_dir"] = text(options.get("textfile_dir", given))
    return call("verify_steps", steps.steps, decision, lambda: verify_health_probe(probe, decision, driver, request),
                options)


class FilterModule(object):
    """blackwell.pytorch filter: the verify role's steps."""

    def filters(self):
        return {"verify_steps": verify_steps}
