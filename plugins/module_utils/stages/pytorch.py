# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PyTorch stage (the pytorch role): its options, the single source of the pytorch_plan module's argument spec
and of the preflight probe's `pytorch` question; its answer (planning/plan_call.py), asked only when nothing before
the stage changes its inputs, and what the role publishes on a host found as asked. The planning code is imported
only when the question is asked (a play without the stage pays no import for it). The names every stage exports:
stages/driver.py. No Ansible import."""
from __future__ import annotations

from typing import Any, Optional

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.preflight import sentence
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.privilege import root_refusal
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.reading import Answer, Reading

NAME = "pytorch"
ROLE = "pytorch"
ROLE_VARIABLES = dict(
    python="pytorch_python",
    version="pytorch_version",
    channel="pytorch_cuda_channel",
    torchvision="pytorch_torchvision_version",
    torchaudio="pytorch_torchaudio_version",
    companions="pytorch_companions",
    gpus="pytorch_gpus",
    driver_cuda="pytorch_driver_cuda_version",
    method="pytorch_install_method",
    local_label="pytorch_pin_local_label",
    cuda_home="pytorch_cuda_home",
    wheelhouse="pytorch_wheelhouse",
    constraints_file="pytorch_constraints_file",
    hashes_file="pytorch_hashes_file",
    index="pytorch_index_url",
    channel_base="pytorch_channel_base_url",
    extra_indexes="pytorch_extra_index_urls",
    proxy="pytorch_proxy",
    ca_path="pytorch_index_ca_path",
    client_cert="pytorch_index_client_cert",
    trusted_hosts="pytorch_trusted_hosts",
    pip_extra_args="pytorch_pip_extra_args",
    offline_fallback="pytorch_index_offline_fallback",
    built_wheelhouse="_pytorch_build_wheelhouse",
    build_host="pytorch_build_host",
    play_hosts="ansible_play_hosts",
    installer="pytorch_installer",
    uv="pytorch_uv",
    root="pytorch_root",
    keep="pytorch_keep_stacks",
    adopt_path="pytorch_adopt_path",
    profile_path="pytorch_profile_path",
    cuda_module_loading="pytorch_cuda_module_loading",  # the profile's settings (planning/role_steps.profile_text)
    cuda_alloc_conf="pytorch_cuda_alloc_conf",
    allow_tf32="pytorch_allow_tf32",
    uv_pending="blackwell_tools_uv_pending",  # the tools role's, in a play that runs it
    check_results="_pytorch_check_results",
    check_code="_pytorch_check_code.digest",
    check_collection_version="_pytorch_check_code.collection_version",
    check_force="verify_force",  # the verify role's: the CUDA check's stored result is verify's
    check_cuda_home="verify_cuda_home",
    check_output_dirs=dict(verify_results_dir="verify_results_dir",
                           verify_prometheus_textfile_dir="verify_prometheus_textfile_dir"),
    paths=dict(pytorch_uv_cache_dir="pytorch_uv_cache_dir", pytorch_pip_cache_dir="pytorch_pip_cache_dir",
               pytorch_source_dir="pytorch_source_dir", pytorch_wheelhouse_pip_python="pytorch_wheelhouse_pip_python",
               pytorch_build_fetch_dir="pytorch_build_fetch_dir",
               pytorch_wheelhouse_fetch_dir="pytorch_wheelhouse_fetch_dir"),
)
PROBE_READS = ("host", "user")
# left out or null in the probe's question: the probe's GPUs and its loaded driver's CUDA version
PROBE_FILLS = ("gpus", "driver_cuda")
FACTS = ("blackwell_pytorch", "blackwell_cuda_check")

OPTIONS = dict(
    # raw: a version YAML read as a number (2.10 as 2.1) is refused (host_plan.input_refusals), not made text
    python=dict(type="path", required=True),
    version=dict(type="raw", default=""),
    channel=dict(type="raw", default=""),
    torchvision=dict(type="raw", default=""),
    torchaudio=dict(type="raw", default=""),
    companions=dict(type="list", elements="str", choices=["torchvision", "torchaudio"],
                    default=["torchvision", "torchaudio"]),
    gpus=dict(type="list", elements="dict", default=[]),
    driver_cuda=dict(type="str", default=""),
    method=dict(type="str", choices=["wheel", "source", "auto"], default="wheel"),
    local_label=dict(type="bool", default=True),
    cuda_home=dict(type="path", default="/usr/local/cuda"),
    wheelhouse=dict(type="path", default=""),
    constraints_file=dict(type="path", default=""),
    hashes_file=dict(type="path", default=""),
    host=dict(type="str", required=True),
    build_host=dict(type="str", default=""),
    play_hosts=dict(type="list", elements="str", default=[]),
    index=dict(type="str", default=""),
    channel_base=dict(type="str", default=""),
    extra_indexes=dict(type="list", elements="str", default=[]),
    proxy=dict(type="str", default="", no_log=True),
    offline_fallback=dict(type="bool", default=False),
    index_timeout=dict(type="int", default=30),
    built_wheelhouse=dict(type="path", default=""),
    ca_path=dict(type="path", default=""),
    client_cert=dict(type="path", default=""),
    trusted_hosts=dict(type="list", elements="str", default=[]),
    pip_extra_args=dict(type="list", elements="str", default=[], no_log=False),
    installer=dict(type="str", choices=["uv", "pip"], default="pip"),
    uv=dict(type="path", default=""),
    # in a check run, the uv the play's tools role would install before this stage: its absence is no refusal
    uv_pending=dict(type="path", default=""),
    root=dict(type="path", default=""),
    keep=dict(type="int", default=2),
    user=dict(type="dict", default={}),
    adopt_path=dict(type="path", default=""),
    profile_path=dict(type="path", default=""),
    cuda_module_loading=dict(type="str", default="LAZY"),
    cuda_alloc_conf=dict(type="str", default=""),
    allow_tf32=dict(type="bool", default=False),
    check_results=dict(type="path", default=""),
    check_code=dict(type="str", default=""),
    check_cuda_home=dict(type="path", default="/usr/local/cuda"),
    check_force=dict(type="bool", default=False),
    check_alias=dict(type="path", default=""),
    check_output_dirs=dict(type="dict", default={}),
    check_collection_version=dict(type="str", default=""),
    paths=dict(type="dict", default={}),
)


def secrets(options: dict[str, Any]) -> list[str]:
    """The credentials in the index URLs, the proxy and pip's arguments: every output masks them."""
    # pylint: disable-next=import-outside-toplevel
    from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import plan_call
    return list(plan_call.secrets(options))


def waits(options: dict[str, Any], earlier: dict[str, Optional[dict]], reading: Reading) -> str:
    """Why the question waits for the stage's own call ('' when the probe can ask it now): a driver or toolkit
    stage that changes first, a tools venv (uv) completed first, GPU facts that are read again through NVML."""
    driver, toolkit, tools, loaded = earlier.get("driver"), earlier.get("toolkit"), reading.tools, reading.loaded
    if driver is not None and not driver.get("converged"):
        return "the driver stage changes the driver first"
    if toolkit is not None and not toolkit.get("converged"):
        return "the toolkit stage changes the toolkits first"
    if tools is not None and not tools.get("ready") and options.get("installer") == "uv" and not options.get("adopt_path"):
        return "the tools venv (uv) is completed first"
    from_facts = options.get("gpus") is None or options.get("driver_cuda") is None
    if from_facts and (loaded or {}).get("loaded") and (loaded or {}).get("source") != "nvml":
        return "the GPU facts are read again through NVML first"
    return ""


def settled(result: dict[str, Any], params: dict[str, Any]) -> Optional[dict[str, Any]]:
    """What the role publishes on a host found as asked whose plan is its own (role_steps.role_state without a
    build host's plan): {"blackwell_pytorch": ..., "blackwell_cuda_check": ... (when a check is stored)}
    (role_steps.settled_facts); None otherwise (the role then decides, reading the build host's plan)."""
    if not result.get("ok") or not result.get("converged"):
        return None
    # pylint: disable-next=import-outside-toplevel
    from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import role_steps
    if not params.get("adopt_path") and not role_steps.builds_here(params["host"], params.get("build_host")):
        return None
    settings = {"root": params["root"], "python": params["python"], "host": params["host"],
                "build_host": params.get("build_host") or "", "adopt_path": params.get("adopt_path") or ""}
    state = role_steps.role_state(result, None, settings)  # converged: its own plan, no build host's to compare
    facts = role_steps.settled_facts(state, result, "%s/current" % params["root"])
    if not facts:
        return None
    published = {"blackwell_pytorch": facts["published"]}
    if facts["cuda_check"] is not None:  # none stored yet: the role leaves blackwell_cuda_check unset
        published["blackwell_cuda_check"] = facts["cuda_check"]
    return published


def ask(options: dict[str, Any], reading: Reading, _earlier: dict[str, Optional[dict]]) -> Answer:
    """(answer, facts): pytorch_plan's result for the validated options (ok false with msg: the refusal the stage's
    own call fails with) with `settled` true or false; facts: on a settled host what the role publishes (settled()),
    else {}. The check's fact moves out of the answer there: every copy of a result is carried to the controller and
    kept per host, and on a GPU host it is the largest part of the answer."""
    # pylint: disable-next=import-outside-toplevel
    from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import errors, plan_call
    params = dict(options, host=reading.host, user=reading.user or {})
    if params.get("gpus") is None:
        params["gpus"] = list(reading.gpus or [])
    if params.get("driver_cuda") is None:
        params["driver_cuda"] = str((reading.loaded or {}).get("cuda_driver_version") or "")
    try:
        result = plan_call.answer(params, reading.run, reading.warn, reading.check_mode)
        result["ok"] = not result["refusals"]
    except errors.PlanError as exc:
        result = dict(exc.result or {}, ok=False, msg=str(exc))
    facts = settled(result, params)
    if facts is not None:
        result.pop("cuda_check", None)  # published once, as blackwell_cuda_check
    result["settled"] = facts is not None
    return result, facts or {}


def refusal_entries(answer: dict[str, Any], reading: Reading) -> list[tuple[Optional[str], str]]:
    """The answer's refusals as [(cause, message)]: a run without root as "root", the rest without a cause."""
    if answer["ok"]:
        return []
    root = root_refusal("the pytorch role", reading.user)
    root = sentence(reading.host, root) if root else ""
    return [("root" if message == root else None, message) for message in answer.get("refusals") or [answer["msg"]]]
