# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PyTorch stage's question ("is this stage already as asked?"), answered by the preflight probe in its own call
from its own reading of the host, so that a converged site.yml host makes no module call of that stage.

The answer is pytorch_plan's result (planning/plan_call.py) for the pytorch role's settings, with the GPUs and the
driver's CUDA version of the probe's reading where the settings leave them out. It is asked only when nothing the
play runs before the stage changes its inputs (asked_after): the driver and toolkit stages answered as they are, the
tools venv ready when the stack's installer is its uv, the GPU facts final (read through NVML, or no driver loaded). On a host found as asked
whose plan is its own (no other host builds it), the probe also returns what the role would publish there
(blackwell_pytorch, blackwell_cuda_check), and the stage runs nothing.

No Ansible import: the probe validates the options against pytorch_plan's own spec.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import plan_call, role_steps


def asked_after(driver, toolkit, tools, loaded, options):
    """Why the question waits for the stage's own call ('' when the probe can ask it now): driver, toolkit: the
    stages' answers (None when not asked); tools: the tools venv's reading (None when not wanted); loaded: the probe's
    driver facts; options: the stage's settings (a None gpus or driver_cuda is filled from the facts)."""
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


def settled(result, params):
    """What the role publishes on a host found as asked whose plan is its own (role_steps.role_state without a
    build host's plan): {"published": blackwell_pytorch, "cuda_check": blackwell_cuda_check}
    (role_steps.settled_facts); None otherwise (the role then decides, reading the build host's plan)."""
    if not result.get("ok") or not result.get("converged"):
        return None
    adopting = bool(params.get("adopt_path"))
    if not adopting and not role_steps.builds_here(params["host"], params.get("build_host")):
        return None
    settings = {"root": params["root"], "python": params["python"], "host": params["host"],
                "build_host": params.get("build_host") or "", "adopt_path": params.get("adopt_path") or ""}
    state = role_steps.role_state(result, None, settings)  # converged: its own plan, no build host's to compare
    facts = role_steps.settled_facts(state, result, "%s/current" % params["root"])
    return {"published": facts["published"], "cuda_check": facts["cuda_check"]} if facts else None


def answer(options, host, user, gpus, loaded, run, warn, check_mode=False):
    """(answer, settled): pytorch_plan's result for the stage's validated options (ok false with msg: the refusal the
    stage's own call fails with) with `settled` true or false, and on a settled host what the role would publish,
    {"published": blackwell_pytorch, "cuda_check": blackwell_cuda_check} (else None). The check's fact moves out
    of the answer there: every copy of a result is carried to the controller and kept per host, and on a GPU host it
    is the largest part of the answer. gpus, loaded: the probe's reading (ansible_facts.nvidia_gpus, nvidia_driver)."""
    params = dict(options, host=host, user=user or {})
    if params.get("gpus") is None:
        params["gpus"] = list(gpus or [])
    if params.get("driver_cuda") is None:
        params["driver_cuda"] = str((loaded or {}).get("cuda_driver_version") or "")
    try:
        result = plan_call.answer(params, run, warn, check_mode)
        result["ok"] = not result["refusals"]
    except plan_call.PlanCallError as exc:
        result = dict(exc.result, ok=False, msg=str(exc))
    facts = settled(result, params)
    if facts is not None:
        result.pop("cuda_check", None)  # returned once, in `facts`
    result["settled"] = facts is not None
    return result, facts
