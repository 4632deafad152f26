# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The toolkit stage (the cuda_toolkit role): its options, the single source of the cuda_toolkit_state module's
argument spec and of the preflight probe's `toolkit` question; its answer (driver/toolkit_call.py), planned against
the driver the driver stage leaves in place, and the fact the role publishes. The names every stage exports:
stages/driver.py. No Ansible import."""
from __future__ import annotations

from typing import Any, Optional

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.preflight import sentence
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.privilege import root_refusal
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import toolkit_call
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.toolkit_state import refusal_message
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.reading import Answer, Reading

NAME = "toolkit"
ROLE = "cuda_toolkit"
# `driver`: the user's word (the probe applies the role's rule to it, toolkit_call.driver_inputs; the role's own calls
# give the driver that rule found, or none: the loaded one)
ROLE_VARIABLES = dict(
    versions="cuda_toolkit_versions",
    default_version="cuda_toolkit_default_version",
    driver="cuda_toolkit_driver_version",
    manage="cuda_toolkit_manage",
    minor_version_compat="cuda_toolkit_minor_version_compat",
    profile="cuda_toolkit_profile",
    profile_ld_library_path="cuda_toolkit_profile_ld_library_path",
    paths=dict(cuda_toolkit_install_log="cuda_toolkit_install_log"),
)
# the probe's own reading
PROBE_READS = ("host", "gpus", "user", "os_family", "driver_cuda")
PROBE_FILLS = ()
FACTS = ("cuda_toolkit_status",)

OPTIONS = dict(
    versions=dict(type="raw", default=[]),
    default_version=dict(type="raw", default=""),  # raw: a number (YAML's 12.10 is 12.1) is refused, not made text
    driver=dict(type="str"),
    driver_cuda=dict(type="str", default=""),
    gpus=dict(type="list", elements="dict"),
    minor_version_compat=dict(type="bool", default=False),
    manage=dict(type="raw", default="auto"),
    user=dict(type="dict", default={}),
    os_family=dict(type="str", choices=["", "Debian", "RedHat"], default=""),
    profile=dict(type="bool", default=True),
    profile_ld_library_path=dict(type="bool", default=False),
    confirm=dict(type="bool", default=False),
    host=dict(type="str", required=True),
    paths=dict(type="dict", default={}),
)


def secrets(_options: dict[str, Any]) -> list[str]:
    """None of the toolkit's options is secret."""
    return []


def waits(_options: dict[str, Any], earlier: dict[str, Optional[dict]], _reading: Reading) -> str:
    """A driver that changes changes the toolkits' inputs: the stage then asks its own question after it."""
    driver = earlier.get("driver")
    return "the driver stage changes the driver first" if driver is not None and not driver.get("converged") else ""


def ask(options: dict[str, Any], reading: Reading, earlier: dict[str, Optional[dict]]) -> Answer:
    """(answer, facts): cuda_toolkit_state's result for the validated options against the driver left in place
    (toolkit_call.driver_inputs: options' `driver` is cuda_toolkit_driver_version, '' when not set), a question that
    cannot be asked a refusal (ok false); facts: the role's cuda_toolkit_status, the answer itself, converged or not
    (the change path starts from it)."""
    driver_answer = earlier.get("driver")
    driver, driver_cuda = toolkit_call.driver_inputs(options.get("driver"),
                                                     driver_answer.get("status") if driver_answer else None,
                                                     reading.loaded)
    params = dict(options, host=reading.host, gpus=reading.gpus, driver=driver, driver_cuda=driver_cuda,
                  user=reading.user, os_family=reading.os_family())
    try:
        answer = toolkit_call.answer(params, reading.run, reading.has_program, reading.warn, reading.toolkit_root)
    except toolkit_call.ToolkitCallError as exc:
        answer = {"ok": False, "converged": False, "problems": [str(exc)], "msg": str(exc)}
    return answer, {"cuda_toolkit_status": answer}


def refusal_entries(answer: dict[str, Any], reading: Reading) -> list[tuple[Optional[str], str]]:
    """The answer's refusal as [(cause, message)]: a run without root as "root", the rest without a cause."""
    if answer["ok"]:
        return []
    root = root_refusal("the cuda_toolkit role", reading.user)
    problems = answer.get("problems") or []
    if root and root in problems:
        rest = [problem for problem in problems if problem != root]
        return [("root", sentence(reading.host, root))] + ([(None, refusal_message(reading.host, rest))] if rest else [])
    return [(None, answer["msg"])]
