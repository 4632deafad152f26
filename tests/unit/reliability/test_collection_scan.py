# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Security rows that read the collection itself (docs/reliability.md, docs/contributing.md "Safety"):
no download piped into a shell, no code that edits NVIDIA's binaries, every file a role writes with
an explicit mode (root-owned on the targets), credentials never in module options without no_log.
The scans are tested against text that must be caught, so a scan that finds nothing means something.
"""
from __future__ import annotations

import ast
import glob
import os
import re
import subprocess

import pytest
import yaml

from playbook import ROOT

SELF = os.path.relpath(os.path.abspath(__file__), ROOT)
PIPE_TO_SHELL = re.compile(r"\b(curl|wget|fetch)\b[^|\n;]*\|\s*(sudo\s+(-\S+\s+)*)?(ba|z|da|k)?sh\b"
                           r"|\b(ba|z|da)?sh\s+(-c\s+)?[\"']?\$\(\s*(curl|wget)\b|\b(ba|z|da)?sh\s+<\(\s*(curl|wget)\b")
NVIDIA_BINARY = r"(\bnvidia[\w.-]*\.ko\b|\blibnvidia[\w.-]*\.so|\blibcuda[\w.-]*\.so|\bnvidia-smi\b|/lib/modules/|/usr/lib/firmware/nvidia)"
EDIT = r"(\bsed\s+(-\w+\s+)*-i|\bperl\s+-\w*i|\bxxd\b|\bbspatch\b|\bpatch\s|\bdd\s+\S*of=|\btruncate\b|[\"']r\+b[\"']|[\"']wb[\"'])"
EDITS_NVIDIA = re.compile(EDIT + r".*" + NVIDIA_BINARY + "|" + NVIDIA_BINARY + r".*" + EDIT
                          + r"|>>?\s*[\"']?[\w/.${}()-]*" + NVIDIA_BINARY)
WRITERS = ("ansible.builtin.copy", "ansible.builtin.template", "ansible.builtin.file", "ansible.builtin.get_url",
           "ansible.builtin.lineinfile", "ansible.builtin.blockinfile", "ansible.builtin.replace",
           "ansible.builtin.yum_repository", "blackwell.pytorch.result_files")
# result_files writes every file with an explicit mode (0644 unless its entry names one) and creates a
# directory 0755: a task of it needs no mode of its own.
EXPLICIT_MODES = ("blackwell.pytorch.result_files",)
EDITING_MODULES = ("ansible.builtin.lineinfile", "ansible.builtin.blockinfile", "ansible.builtin.replace",
                   "ansible.builtin.copy", "ansible.builtin.template")
CONTROLLER_ROLES = ("fleet_report",)  # writes on the controller, as the user who runs the play
CREDENTIAL_OPTION = re.compile(r"(password|passwd|secret|token|credential|auth|proxy|index_url)", re.I)


def tracked_files():
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [name for name in names if name != SELF and os.path.isfile(os.path.join(ROOT, name))]


def lines_matching(pattern, names):
    hits = []
    for name in names:
        try:
            with open(os.path.join(ROOT, name), encoding="utf-8") as handle:
                text = handle.read()
        except UnicodeDecodeError:
            continue
        hits += ["%s:%d: %s" % (name, number, line.strip()) for number, line in enumerate(text.splitlines(), 1)
                 if pattern.search(line)]
    return hits


@pytest.mark.parametrize("line", [
    "curl -fsSL https://example.invalid/install.sh | sh", "wget -qO- https://x.invalid/get | sudo -E bash",
    'sh -c "$(curl -fsSL https://x.invalid/i.sh)"', "bash <(curl -s https://x.invalid/i.sh)",
], ids=['curl-sh', 'wget-sudo-bash', 'sh-c-curl', 'bash-process-substitution'])
def test_the_download_into_shell_scan_catches(line):
    assert PIPE_TO_SHELL.search(line)


def test_no_download_is_piped_into_a_shell():
    assert lines_matching(PIPE_TO_SHELL, tracked_files()) == []


@pytest.mark.parametrize("line", [
    "sed -i 's/a/b/' /lib/modules/$(uname -r)/updates/dkms/nvidia.ko",
    "open('/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1', 'r+b')", "printf '\\x90' | dd of=/usr/bin/nvidia-smi",
    "echo x >> /lib/modules/6.1.0/updates/dkms/nvidia.ko",
], ids=['sed-ko', 'open-r+b-so', 'dd-nvidia-smi', 'append-ko'])
def test_the_nvidia_binary_edit_scan_catches(line):
    assert EDITS_NVIDIA.search(line)


def test_no_code_edits_nvidia_binaries():
    code = [name for name in tracked_files() if not name.endswith(".md") and not name.startswith("changelogs/")]
    assert lines_matching(EDITS_NVIDIA, code) == []


def _tasks(tasks):
    for task in tasks or []:
        if isinstance(task, dict):
            for key in ("block", "rescue", "always"):
                yield from _tasks(task.get(key))
            yield task


def role_tasks():
    for path in sorted(glob.glob(os.path.join(ROOT, "roles", "*", "tasks", "*.yml"))
                       + glob.glob(os.path.join(ROOT, "roles", "*", "handlers", "*.yml"))):
        with open(path) as handle:
            for task in _tasks(yaml.safe_load(handle)):
                yield os.path.relpath(path, ROOT), task


def writing_tasks():
    found = []
    for path, task in role_tasks():
        for module in WRITERS:
            args = task.get(module)
            if isinstance(args, dict) and not (module == "ansible.builtin.file" and args.get("state") in ("absent", "link")):
                found.append((path, task.get("name"), module, args))
    return found


def test_every_file_a_role_writes_has_an_explicit_mode():
    assert len(writing_tasks()) >= 10  # the scan sees the roles' writers (vendor_repo and result_files write the rest)
    assert [(path, name) for path, name, module, args in writing_tasks()
            if "mode" not in args and module not in EXPLICIT_MODES] == []


def test_files_on_the_targets_are_root_owned():
    # The pytorch role is listed in docs/reliability.md (its owner rows).
    target = [(path, name, args) for path, name, _module, args in writing_tasks()
              if path.split("/")[1] not in CONTROLLER_ROLES + ("pytorch",)]
    assert len(target) >= 6
    assert [(path, name) for path, name, args in target if (args.get("owner"), args.get("group")) != ("root", "root")] == []


def test_no_role_edits_an_nvidia_binary_through_a_module():
    binary = re.compile(NVIDIA_BINARY)
    assert [(path, task.get("name")) for path, task in role_tasks() for module in EDITING_MODULES
            if isinstance(task.get(module), dict)
            and binary.search(str(task[module].get("dest") or task[module].get("path") or ""))] == []


def _spec_call(node):
    """The dict(...) call of a module's `argument_spec=` or of a stage's `OPTIONS =` (the spec of its module)."""
    if isinstance(node, ast.keyword) and node.arg == "argument_spec" and isinstance(node.value, ast.Call):
        return node.value
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and [
            target.id for target in node.targets if isinstance(target, ast.Name)] == ["OPTIONS"]:
        return node.value
    return None


def module_options():
    for path in sorted(glob.glob(os.path.join(ROOT, "plugins", "modules", "*.py"))
                       + glob.glob(os.path.join(ROOT, "plugins", "module_utils", "stages", "*.py"))):
        with open(path) as handle:
            tree = ast.parse(handle.read())
        for node in ast.walk(tree):
            call = _spec_call(node)
            for option in call.keywords if call is not None else ():
                spec = dict((item.arg, getattr(item.value, "value", None)) for item in option.value.keywords)
                yield os.path.basename(path), option.arg, spec


def test_module_options_that_carry_credentials_are_no_log():
    options = list(module_options())
    assert len(options) >= 30
    # the stages' options are the specs of nvidia_driver_state, cuda_toolkit_state and pytorch_plan: scanned too
    assert ("pytorch.py", "proxy", {"type": "str", "default": "", "no_log": True}) in options
    assert [(module, name) for module, name, spec in options
            if CREDENTIAL_OPTION.search(name) and spec.get("no_log") is not True] == []


def module_call(task):
    """The module a task runs and its arguments; for job_follow, the module it starts (its module, args)."""
    follow = task.get("blackwell.pytorch.job_follow")
    if isinstance(follow, dict):
        return follow.get("module"), follow.get("args")
    return next(((key, value) for key, value in task.items() if key.startswith("blackwell.pytorch.")), (None, None))


def test_tasks_that_pass_index_urls_keep_their_arguments_out_of_the_hosts_log():
    # Ansible logs a module's arguments to the target's syslog before the module can mask anything:
    # the tasks whose arguments may hold user:password@ URLs turn that log off (row S13), job_follow's
    # too (its launch and its follow-up calls are the target's modules).
    def carries_index_urls(task):
        module, args = module_call(task)
        return isinstance(args, dict) and (
            module in ("blackwell.pytorch.pytorch_plan", "blackwell.pytorch.pytorch_source_build")
            or module == "blackwell.pytorch.pytorch_stack" and args.get("state") == "present")

    carriers = [(path, task) for path, task in role_tasks() if carries_index_urls(task)]
    assert len(carriers) == 4
    assert sum("blackwell.pytorch.job_follow" in task for path, task in carriers) == 2
    assert [(path, task.get("name")) for path, task in carriers
            if (task.get("vars") or {}).get("ansible_no_target_syslog") is not True] == []
