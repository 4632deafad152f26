#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: pytorch_stack
short_description: The life of PyTorch stacks under a root (install, adopt, switch, roll back, prune)
version_added: 0.2.0
description:
  - Stacks live in O(root)/venvs/<stack>; O(root)/current points to the active one and O(root)/previous to
    the one a rollback returns to. Links move through a new link renamed over the old one (atomic).
  - V(present) creates the venv (C(python -m venv)), runs the one install call with exact pins - C(uv pip install)
    or C(pip install), O(installer) - (only when the installed versions differ from O(expected)), then
    C(pip check), an import of every package in the stack's own
    interpreter and the check of the installed torch against O(build), and writes the marker file. A venv
    this run created is removed again when a step fails; an existing one is kept for inspection.
  - V(adopted) links an existing environment in as a stack named from its torch version.
  - V(current) points current at O(stack) (previous at the stack current left).
  - V(rolled_back) swaps current and previous; in check mode it returns the interpreter to check first.
  - V(pruned) deletes stacks beyond O(keep), never current, then previous kept first.
  - V(wheelhouse) is O(stack)'s wheelhouse, O(root)/wheelhouses/<stack>. With O(prune_wheelhouses) it removes the
    other stacks' wheelhouses there. With O(python) it makes the directory (mode 0755), downloads the wheels
    O(pip_args) name and their dependencies into it (C(<python> -m pip download), binary only, for
    O(python_version)) and writes its C(hashes.txt) (C(<dist>==<version> --hash=sha256:<digest>) per wheel, for
    C(--require-hashes)). In check mode nothing is made, removed or downloaded.
  - The planning (versions, pins, pip arguments) is the caller's; the pytorch role passes its plan.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
options:
  root:
    description: Directory that holds venvs/, current and previous.
    type: path
    required: true
  state:
    description: What to do (see the description).
    type: str
    choices: [present, adopted, current, rolled_back, pruned, wheelhouse]
    required: true
  stack:
    description: Stack name (torch-<version>-<channel>), for V(present) and V(current).
    type: str
  python:
    description: Interpreter that creates the venv (V(present)); whose pip downloads (V(wheelhouse)).
    type: path
  python_version:
    description: The version of the interpreter the wheels are for (V(wheelhouse) with O(python)), for example V(3.12).
    type: str
    default: ""
    version_added: 0.5.0
  prune_wheelhouses:
    description: Remove the wheelhouses of other stacks under O(root)/wheelhouses first (V(wheelhouse)).
    type: bool
    default: false
    version_added: 0.5.0
  expected:
    description: Package name to version the stack must hold (V(present)).
    type: dict
    default: {}
  installer:
    description:
      - V(uv) runs C(<uv> pip install --python <venv python>) with O(pip_args) translated - the same pins, hashes
        file, constraints, index, extra indexes and find-links; C(--proxy), C(--cert), C(--client-cert),
        C(--retries) and C(--timeout) through the environment uv reads (C(HTTPS_PROXY), C(SSL_CERT_FILE),
        C(SSL_CLIENT_CERT), C(UV_HTTP_RETRIES), C(UV_HTTP_TIMEOUT)); C(--link-mode hardlink) from the cache
        O(uv_cache_dir); C(--no-config) and no C(UV_*) variable of the module's environment; C(--offline)
        when O(pip_args) hold C(--no-index); C(--index-strategy unsafe-best-match) with an extra index (pip's
        choice over all indexes).
      - V(pip) runs the venv's own C(pip install) with O(pip_args) as they are.
      - The check after the install (C(pip check), imports, the build, the marker) is the same for both.
    type: str
    choices: [uv, pip]
    default: pip
    version_added: 0.4.0
  uv:
    description: The uv executable (O(installer=uv)); the tools role installs it as C(<blackwell_tools_venv>/bin/uv).
    type: path
    version_added: 0.4.0
  uv_cache_dir:
    description:
      - uv's cache (O(installer=uv)). Empty - C(<root>/.cache/uv), on the filesystem of the venvs, so that a new
        stack hard-links the files it shares with the kept ones.
    type: path
    default: ""
    version_added: 0.4.0
  pip_args:
    description:
      - Arguments after C(pip install) (index or wheelhouse, options, pins or the hashes file); O(installer=uv)
        gets them translated.
      - The secret part of a URL among them (C(https://user:password@host/simple), a proxy's) never appears in
        the result, a message or the log the module returns.
      - Nor on the installer's command line, which every local user sees in C(ps). An index or find-links URL with
        credentials goes to pip through a requirements file (mode 0600, in a private directory, removed after the
        call) and to uv through C(UV_INDEX_URL), C(UV_EXTRA_INDEX_URL), C(UV_FIND_LINKS); a proxy with credentials
        through the proxy variables (C(https_proxy), C(http_proxy) and their capitals).
      - The pytorch role passes its index's CA bundle and client certificate here as C(--cert) and
        C(--client-cert) (C(pytorch_index_ca_path), C(pytorch_index_client_cert)), the files
        M(blackwell.pytorch.pytorch_plan) read the index with; pip reads netrc itself.
    type: list
    elements: str
    default: []
  record:
    description: What the marker file records (V(present)).
    type: dict
    default: {}
  build:
    description:
      - The build the plan chose (V(present)), as the plan's C(build) field holds it - C(stack), C(channel),
        C(cuda), C(sms) (the GPUs' C(sm_XY)), C(source).
      - After pip, the stack's torch must report that channel in its local label (when it has one), that CUDA
        in C(torch.version.cuda) and native kernels for every C(sms) entry in C(torch._C._cuda_getArchFlags());
        otherwise the module fails naming both builds, before the marker is written (such a stack never
        becomes current).
      - Empty - not checked.
    type: dict
    default: {}
  log:
    description:
      - File that receives the installer's output while it installs, for progress reports (V(present)); mode
        0600 (pip names the index URLs it reads).
      - When the module ends, C(<log>.rc) holds O(run_id) and the outcome (V(0) done, V(1) failed).
    type: path
  run_id:
    description: What C(<log>.rc) starts with, so that a poller tells this run's end from an earlier one's.
    type: str
    default: ""
  path:
    description: The environment to adopt (V(adopted)); it must hold bin/python3.
    type: path
  keep:
    description: How many stacks V(pruned) keeps (at least 1).
    type: int
    default: 2
  timeout:
    description: Seconds the stack's interpreter may take to import the packages.
    type: int
    default: 300
  lock_timeout:
    description:
      - Seconds to wait for another run's job under O(root) to end (a play interrupted during the install leaves its
        job running in the background). Every state but a check takes O(root)/.lock (an fcntl lock) for as long
        as it runs; when another process still holds it after this wait, the module fails naming that process
        and what to do, before it changes anything. Two runs never share a venv.
      - The pytorch role leaves it at its default; set it through C(module_defaults) to change it.
    type: int
    default: 600
    version_added: 0.4.0
  min_free_gib:
    description:
      - Free space (GiB, for unprivileged users) the filesystem of a venv to be made must have first
        (V(present)); with less, the module fails before anything is created, naming the path, the free
        and the needed space. V(0) does not check.
      - A step that runs out of disk all the same fails with a message that says the disk is full; the venv
        this run made is removed.
      - The pytorch role leaves it at its default; set it through C(module_defaults) to change it.
    type: float
    default: 8.0
    version_added: 0.3.0
"""

EXAMPLES = r"""
- name: Install the planned stack
  blackwell.pytorch.pytorch_stack:
    root: /opt/pytorch
    state: present
    stack: torch-2.9.1-cu128
    python: /usr/bin/python3
    expected: {torch: 2.9.1+cu128, torchvision: 0.24.1+cu128}
    pip_args: [--index-url, "https://download.pytorch.org/whl/cu128", torch==2.9.1+cu128, torchvision==0.24.1+cu128]
    build: {stack: torch-2.9.1-cu128, channel: cu128, cuda: "12.8", sms: [sm_120], source: false}

- name: Activate it
  blackwell.pytorch.pytorch_stack:
    root: /opt/pytorch
    state: current
    stack: torch-2.9.1-cu128
"""

RETURN = r"""
stack: {description: The stack acted on., returned: when a stack is named or found, type: str, sample: torch-2.9.1-cu128}
python: {description: Its interpreter., returned: when a stack is named or found, type: str}
missing: {description: What differed from O(expected) before the pip call., returned: state present, type: list}
versions: {description: What the imports report., returned: state present, type: dict}
links: {description: Where current and previous point after the change (or would)., returned: always, type: dict}
removed:
  description: "Stacks deleted (or that would be); with state wheelhouse, the other stacks' wheelhouses."
  returned: state pruned and wheelhouse
  type: list
wheelhouse: {description: The wheelhouse directory., returned: state wheelhouse, type: str, version_added: 0.5.0}
files:
  description: "Downloaded: the wheels by name, then the hashes file last (paths; empty in check mode)."
  returned: state wheelhouse
  type: list
  elements: str
  version_added: 0.5.0
stacks: {description: "The stacks under O(root) afterwards (in check mode: now), by name.", returned: always, type: list, elements: str, version_added: 0.3.0}
"""

import contextlib
import os
import shutil

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import job_lock
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.url_secrets import url_secrets
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import lifecycle, wheelhouse
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.stack_install import (
    StackError, install, stack_paths)
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.stack_space import space_refusal
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.stack_runner import Runner


def switch(module, root, plan, result):
    links = lifecycle.read_links(root)
    after = dict(links, **plan)
    result.update(changed=bool(plan), links=after, diff={"before": links, "after": after})
    if plan and not module.check_mode:
        lifecycle.apply_switch(root, plan)


def write_end(log, run_id, done):
    """<log>.rc: the run's id and its outcome, for the poller that follows the install."""
    if not os.path.isdir(os.path.dirname(log)):
        os.makedirs(os.path.dirname(log), mode=0o755)
    with open(log + ".rc", "w") as handle:
        handle.write("%s %d\n" % (run_id, 0 if done else 1))
    os.chmod(log + ".rc", 0o644)


LOCK = ".lock"


def root_lock(params, check_mode):
    """The root's job lock for a run that changes something: a second run's job waits for the first one's
    (lock_timeout), then fails naming it; nothing to hold in check mode or where there is no root yet to change
    (present makes it). A wait is noted in the install log, which the play's progress lines read."""
    root = params["root"]
    if check_mode or params["state"] == "wheelhouse":
        return contextlib.nullcontext()
    if params["state"] == "present":
        if not os.path.isdir(root):  # a root to be made is checked for room first, as the venv is
            refusal = params["min_free_gib"] and space_refusal(stack_paths(root, params["stack"])[0], params["stack"],
                                                               params["min_free_gib"])
            if refusal:
                raise StackError(refusal)
            os.makedirs(root, mode=0o755)
    elif not os.path.isdir(root):
        return contextlib.nullcontext()

    def note(holders):
        if params["log"] and os.path.isdir(os.path.dirname(params["log"])):
            with open(params["log"], "a") as handle:
                handle.write("waiting for %s, which holds %s (an earlier run's job)\n" % (
                    ", ".join("process %d (%s)" % (item["pid"], item["command"]) for item in holders),
                    os.path.join(root, LOCK)))
    return job_lock.held(os.path.join(root, LOCK), "PyTorch stack job under %s" % root, params["lock_timeout"],
                         "pytorch_stack option lock_timeout", on_wait=note)


def installer(params, root):
    """stack_install.install()'s installer: uv with its cache under the root, or pip."""
    if params["installer"] != "uv":
        return None
    return {"name": "uv", "uv": params["uv"], "cache_dir": params["uv_cache_dir"] or os.path.join(root, ".cache", "uv"),
            "environ": dict(os.environ)}


def make_wheelhouse(module, params, result):
    """State wheelhouse: the other stacks' wheelhouses removed (prune_wheelhouses); with python, <root>/wheelhouses/<stack>
    made and the plan's wheels downloaded into it (pip download) with their hashes file."""
    top = os.path.join(params["root"], "wheelhouses")
    dest = os.path.join(top, params["stack"])
    others = wheelhouse.others(top, params["stack"]) if params["prune_wheelhouses"] else []
    result.update(wheelhouse=dest, files=[], removed=others, changed=bool(others))
    if params["python"] and not params["python_version"]:
        module.fail_json(msg="state wheelhouse with python downloads for python_version, which is empty")
    if params["python"]:
        result["changed"] = True  # a check run cannot know what pip would download
    if module.check_mode:
        return
    for name in others:
        shutil.rmtree(os.path.join(top, name))
    if not params["python"]:
        return
    for path in (top, dest):
        if not os.path.isdir(path):
            os.makedirs(path, mode=0o755)
        os.chmod(path, 0o755)
    argv = wheelhouse.download_command(params["python"], dest, params["python_version"], params["pip_args"])
    rc, out, err = module.run_command(argv)
    if rc != 0:
        module.fail_json(msg="pip download failed (rc %d): %s" % (rc, (err or out).strip()), rc=rc, stdout=out,
                         stderr=err, cmd=argv)
    path = os.path.join(dest, wheelhouse.HASHES)
    hashes, before = wheelhouse.hash_lines(dest), None
    if os.path.exists(path):
        with open(path) as handle:
            before = handle.read()
    if before != hashes:
        with open(path, "w") as handle:
            handle.write(hashes)
    os.chmod(path, 0o644)
    result.update(changed=bool(others) or "Saved " in out or before != hashes,
                  files=[os.path.join(dest, name) for name in wheelhouse.wheels(dest)] + [path])


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", required=True),
            state=dict(type="str", required=True,
                       choices=["present", "adopted", "current", "rolled_back", "pruned", "wheelhouse"]),
            stack=dict(type="str"), python=dict(type="path"), python_version=dict(type="str", default=""),
            expected=dict(type="dict", default={}), prune_wheelhouses=dict(type="bool", default=False),
            pip_args=dict(type="list", elements="str", default=[]), record=dict(type="dict", default={}),
            build=dict(type="dict", default={}),
            log=dict(type="path"), path=dict(type="path"), keep=dict(type="int", default=2),
            timeout=dict(type="int", default=300), run_id=dict(type="str", default=""),
            min_free_gib=dict(type="float", default=8.0), lock_timeout=dict(type="int", default=600),
            installer=dict(type="str", choices=["uv", "pip"], default="pip"), uv=dict(type="path"),
            uv_cache_dir=dict(type="path", default="")),
        required_if=[("state", "present", ("stack", "python")), ("state", "current", ("stack",)),
                     ("state", "wheelhouse", ("stack",)),
                     ("installer", "uv", ("uv",)),
                     ("state", "adopted", ("path",))],
        supports_check_mode=True)
    params, root = module.params, module.params["root"]
    os.umask(0o022)  # venvs, pip's files, links and logs get explicit modes, whatever the caller's umask
    module.no_log_values.update(url_secrets(params["pip_args"]))  # user:password@ of an index or proxy URL
    runner = Runner(module, params["timeout"])
    result = {"changed": False}
    try:
        try:
            with root_lock(params, module.check_mode):
                dispatch(module, params, runner, result)
        finally:  # also when another run's job held the lock: the poller sees this run's end at once
            if params["state"] == "present" and params["log"] and not module.check_mode:
                write_end(params["log"], params["run_id"], "stack" in result)
    except (StackError, ValueError, OSError, job_lock.JobBusy) as exc:
        module.fail_json(msg=str(exc), **result)
    result.setdefault("links", lifecycle.read_links(root) if os.path.isdir(root) else {})
    result["stacks"] = [entry["name"] for entry in lifecycle.list_stacks(root)]
    module.exit_json(**result)


def dispatch(module, params, runner, result):
    """The state's work (under the root's lock where it changes something: root_lock)."""
    root = params["root"]
    if params["state"] == "present":
        result.update(install(runner, root, params["stack"], params["python"], params["expected"],
                              params["pip_args"], params["record"], module.check_mode, params["log"],
                              params["build"], params["min_free_gib"], installer(params, root)))
    elif params["state"] == "wheelhouse":
        make_wheelhouse(module, params, result)
    elif params["state"] == "adopted":
        result.update(runner.adopt(root, params["path"], module.check_mode))
    elif params["state"] == "current":
        switch(module, root, lifecycle.switch_plan(lifecycle.read_links(root),
                                                   lifecycle.stack_target(params["stack"])), result)
    elif params["state"] == "rolled_back":
        plan, error = lifecycle.rollback_plan(root, lifecycle.read_links(root))
        if error:
            module.fail_json(msg=error)
        result["python"] = lifecycle.stack_python(root, plan["current"])
        result["stack"] = os.path.basename(plan["current"])
        switch(module, root, plan, result)
    else:
        result["removed"] = lifecycle.prune_plan(root, params["keep"])
        result["changed"] = bool(result["removed"])
        if not module.check_mode:
            for name in result["removed"]:
                lifecycle.remove_stack(root, name)


if __name__ == "__main__":
    main()
