# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The driver and toolkit stages' questions ("is this stage already as asked?"), answered by the preflight probe in
its own call from its own reading of the host, so that a converged site.yml host asks no module of those stages.

The driver's answer is nvidia_driver_state's result (driver/state_call.py); the toolkit's, cuda_toolkit_state's
(driver/toolkit_call.py), planned against the driver the driver stage leaves in place: it is answered only when the
driver stage is not asked or stays as it is (converged), since a driver that changes changes the toolkits' inputs;
the toolkit stage then asks its own question after the driver's change. An input or a host that cannot be asked
becomes a refusal in the answer (ok false, msg), as the stage's own call would fail with it.

`run(argv)` runs a read-only command ((rc, stdout, stderr), rc 127 when the program is absent), `has_program(name)`,
`warn(text)`. No Ansible import: the options are validated by the module against the two modules' own specs.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.preflight import sentence
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.privilege import root_refusal
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import os_layout, state_call, toolkit_call
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import refusals as driver_refusals
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.toolkit_state import refusal_message

# The repository's layout on the host (os_layout.repo_layout) is known only once the probe has read the OS, after
# site.yml templated the driver stage's options: it renders them with these tokens for the layout's values (the
# nvidia_driver role's _nvidia_driver_repo), and the probe puts in its own layout's. A value set by hand has none.
LAYOUT_KEYS = ("distro", "arch", "key_file", "keyring", "source_path", "proxy_path")
LAYOUT_TOKEN = "@@%s@@"


def with_layout(repo, preflight, machine):
    """The repository options with each layout token replaced by the value of the OS the probe read (repo's `name`,
    the nvidia_driver_repo_name, names the keyring and the source file)."""
    layout = os_layout.repo_layout(os_layout.os_of(preflight, {}), machine, str(repo.get("name") or "nvidia-cuda"))
    filled = {}
    for key, value in repo.items():
        if isinstance(value, str):
            for name in LAYOUT_KEYS:
                value = value.replace(LAYOUT_TOKEN % name, str(layout[name]))
        filled[key] = value
    return filled


def driver_answer(options, host, gpus, loaded, preflight, run, machine=""):
    """nvidia_driver_state's result for the driver stage's validated options, with the probe's own host, GPUs, loaded
    driver and published preflight (and the repository's layout of its OS: with_layout); a question that cannot be
    asked is a refusal (ok false)."""
    repo = with_layout(options.get("repo") or {}, preflight, machine)
    want = state_call.want_of(dict(options, repo=repo, host=host, gpus=gpus, loaded=loaded, preflight=preflight))
    try:
        return state_call.answer(want, run)
    except state_call.StateCallError as exc:
        return state_call.refused([str(exc)])


def toolkit_answer(options, host, gpus, loaded, preflight, driver_status, run, has_program, warn, root=""):
    """cuda_toolkit_state's result for the toolkit stage's validated options against the driver left in place
    (toolkit_call.driver_inputs: options' `driver` is cuda_toolkit_driver_version, '' when not set); a question that
    cannot be asked is a refusal (ok false)."""
    driver, driver_cuda = toolkit_call.driver_inputs(options.get("driver"), driver_status, loaded)
    params = dict(options, host=host, gpus=gpus, driver=driver, driver_cuda=driver_cuda,
                  user=preflight.get("user") or {}, os_family=(preflight.get("os") or {}).get("family") or "")
    try:
        return toolkit_call.answer(params, run, has_program, warn, root)
    except toolkit_call.ToolkitCallError as exc:
        return {"ok": False, "converged": False, "problems": [str(exc)], "msg": str(exc)}


def answers(driver_options, toolkit_options, host, gpus, loaded, preflight, run, has_program, warn, root="", machine=""):
    """{"driver": answer or None, "toolkit": answer or None}: each stage's answer when its options are given; the
    toolkit's only when the driver is not asked or is answered converged."""
    driver = None
    if driver_options is not None:
        driver = driver_answer(driver_options, host, gpus, loaded, preflight, run, machine)
    toolkit = None
    if toolkit_options is not None and (driver is None or driver.get("converged")):
        toolkit = toolkit_answer(toolkit_options, host, gpus, loaded, preflight,
                                 driver.get("status") if driver else None, run, has_program, warn, root)
    return {"driver": driver, "toolkit": toolkit}


def refusal_entries(answered, host, user):
    """The answers' refusals as [(cause, message)], each on its own: the driver's plan's by their causes ("root",
    "headers", "plan": refusals.plan_refusals), the toolkit's and the PyTorch stage's run without root as "root" (the
    rest of each stage's refusal keeps no cause), so that the preflight says a cause it refused already once.
    user: {"uid", "name"} as the probe read it. pytorch: the PyTorch stage's answer, when asked (answered's key)."""
    entries = []
    driver = answered.get("driver")
    if driver is not None and not driver["ok"]:
        causes = dict((message, cause) for cause, message in driver_refusals.plan_refusals(host, driver.get("plan") or {}))
        entries += [(causes.get(message), message) for message in driver.get("refusals") or [driver["msg"]]]
    toolkit = answered.get("toolkit")
    if toolkit is not None and not toolkit["ok"]:
        root = root_refusal("the cuda_toolkit role", user)
        problems = toolkit.get("problems") or []
        if root and root in problems:
            rest = [problem for problem in problems if problem != root]
            entries += [("root", sentence(host, root))] + ([(None, refusal_message(host, rest))] if rest else [])
        else:
            entries.append((None, toolkit["msg"]))
    pytorch = answered.get("pytorch")
    if pytorch is not None and not pytorch["ok"]:
        root = sentence(host, root_refusal("the pytorch role", user)) if root_refusal("the pytorch role", user) else ""
        entries += [("root" if message == root else None, message)
                    for message in pytorch.get("refusals") or [pytorch["msg"]]]
    return entries


def refusals(answered):
    """The answers' refusals as the stages' own calls would fail with them (each answer's msg)."""
    return [stage["msg"] for stage in (answered["driver"], answered["toolkit"]) if stage is not None and not stage["ok"]]
