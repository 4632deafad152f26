# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The driver stage (the nvidia_driver role): its options, the single source of the nvidia_driver_state module's
argument spec and of the preflight probe's `driver` question; its answer (driver/state_call.py reads the host and
driver/state.py decides) and the facts the role publishes on a host the answer finds as asked.

Every stage file exports the same names (stages/registry.py lists them): NAME, ROLE, ROLE_VARIABLES (the role
variable each option is read from: the stage_question lookup asks the question as the role would, for the role's own
call and for the probe), OPTIONS, PROBE_READS (options the probe reads itself), PROBE_FILLS (options it fills from its
reading when left out), FACTS, secrets(), waits(), ask(), refusal_entries(). No Ansible import.
"""
from __future__ import annotations

from typing import Any, Optional

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.preflight import sentence
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import state_call
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.headers_check import headers_refusal
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import refusals as driver_refusals
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.reading import Answer, Reading

NAME = "driver"
ROLE = "nvidia_driver"
ROLE_VARIABLES = dict(
    branch="nvidia_driver_branch",
    flavor="nvidia_driver_flavor",
    manage="nvidia_driver_manage",
    upgrade="nvidia_driver_upgrade",
    hold="nvidia_driver_hold",
    uu_exclude="nvidia_driver_unattended_upgrades_exclude",
    uu_path="_nvidia_driver_uu_path",
    kernel_headers="nvidia_driver_kernel_headers",
    headers_track_kernel="nvidia_driver_headers_track_kernel",
    blacklist_nouveau="nvidia_driver_blacklist_nouveau",
    mok_key="nvidia_driver_mok_key",
    mok_cert="nvidia_driver_mok_cert",
    persistenced="nvidia_driver_persistenced",
    reboot_ok="nvidia_driver_reboot_ok",
    repo=dict(
        configure="nvidia_driver_repo_configure",
        base_url="nvidia_driver_repo_base_url",
        url="nvidia_driver_repo_url",  # these five empty: the OS's layout (driver/os_layout.repo_options)
        key_url="nvidia_driver_repo_key_url",
        keyring="nvidia_driver_repo_keyring",
        source_path="_nvidia_driver_source_path",
        proxy_path="_nvidia_driver_proxy_path",
        key_content="nvidia_driver_repo_key_content",
        fingerprints="nvidia_driver_repo_key_fingerprints",
        proxy="nvidia_driver_repo_proxy",
        name="nvidia_driver_repo_name",
    ),
)
PROBE_READS = ("host", "gpus", "loaded", "preflight")
PROBE_FILLS = ()
FACTS = ("nvidia_driver_status", "nvidia_driver_reboot_required")

OPTIONS = dict(
    host=dict(type="str", required=True),
    branch=dict(type="str", default="580"),
    flavor=dict(type="str", default="auto"),
    manage=dict(type="str", default="auto"),
    upgrade=dict(type="bool", default=False),
    gpus=dict(type="list", elements="dict", default=[]),
    loaded=dict(type="dict", default={}),
    preflight=dict(type="dict", required=True),
    probe_argv=dict(type="list", elements="str", default=[]),
    repo=dict(type="dict", default={"configure": False}),
    hold=dict(type="bool", default=True),
    uu_exclude=dict(type="bool", default=True),
    uu_path=dict(type="path"),
    kernel_headers=dict(type="bool", default=True),
    headers_track_kernel=dict(type="bool", default=True),
    dkms_package=dict(type="str", default="dkms"),
    blacklist_nouveau=dict(type="bool", default=True),
    mok_key=dict(type="str", default="", no_log=False),
    mok_cert=dict(type="str", default=""),
    persistenced=dict(type="bool", default=True),
    reboot_ok=dict(type="bool", default=False),
)


def secrets(options: dict[str, Any]) -> list[str]:
    """The values every output masks: the password of the repository's proxy URL."""
    secret = state_call.proxy_password((options.get("repo") or {}).get("proxy"))
    return [secret] if secret else []


def waits(_options: dict[str, Any], _earlier: dict[str, Optional[dict]], _reading: Reading) -> str:
    """The first stage waits for none."""
    return ""


def ask(options: dict[str, Any], reading: Reading, _earlier: dict[str, Optional[dict]]) -> Answer:
    """(answer, facts): nvidia_driver_state's result for the validated options, with the probe's host, GPUs, loaded
    driver and published preflight (the repository options left empty: its OS's layout), a question that cannot be
    asked a refusal (ok false); facts: what the role publishes on a host the answer finds as asked ({} otherwise)."""
    want = state_call.want_of(dict(options, host=reading.host, gpus=reading.gpus, loaded=reading.loaded,
                                   preflight=reading.preflight), reading.machine)
    try:
        answer = state_call.answer(want, reading.run)
    except state_call.StateCallError as exc:
        return state_call.refused([str(exc)]), {}
    if not answer.get("converged"):
        return answer, {}
    return answer, {"nvidia_driver_status": answer["status"], "nvidia_driver_reboot_required": False}


def refusal_entries(answer: dict[str, Any], reading: Reading) -> list[tuple[Optional[str], str]]:
    """The answer's refusals as [(cause, message)], by the plan's causes ("root", "headers", "plan"), so that the
    preflight says a cause it refused already once."""
    if answer["ok"]:
        return []
    plan = answer.get("plan")  # none when the inputs alone were refused, before the host was read
    causes = dict((message, cause) for cause, message in driver_refusals.plan_refusals(reading.host, plan)) if plan else {}
    return [(causes.get(message), message) for message in answer.get("refusals") or [answer["msg"]]]


def site_words(entries: list[tuple[Optional[str], str]], host: str, headers: dict[str, Any],
               leave_out: str) -> list[tuple[Optional[str], str]]:
    """Refusal entries with the driver stage's headers refusal in site.yml's words (how to run without the driver
    stage: leave_out), as the probe's own says it."""
    site = headers_refusal(headers, True, leave_out)
    return [(cause, sentence(host, site) if cause == "headers" and site else message) for cause, message in entries]
