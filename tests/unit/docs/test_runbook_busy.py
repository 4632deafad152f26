# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""docs/runbook.md's busy section quotes what the collection prints: the processes' text made by gpu_processes
from the example process, inside the texts the verify role's verdict and the nvidia_driver role's reboot stop
write around it (checked against the task files with the runbook's values put in)."""
from __future__ import annotations

import os

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_processes import busy_text

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ALICE = {"gpu": 0, "gpu_name": "NVIDIA H200", "pid": 4242, "user": "alice", "command": "python3", "memory_mib": 20582}
TEXT = "busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB)"


def words(*path):
    with open(os.path.join(ROOT, *path)) as handle:
        return " ".join(handle.read().split())


def test_the_processes_text_is_the_module_s():
    assert busy_text([ALICE]) == TEXT
    assert TEXT in words("docs", "runbook.md")


@pytest.mark.parametrize("task_file, template, values", [
    (("roles", "verify", "tasks", "verdict.yml"),
     "{{ inventory_hostname }}: {{ blackwell_verify.message if __verify_previewed else __verify_verdict_text }}|"
     "{{ __verify_deferred_text if __verify_deferred else __verify_passed_text }}|"
     "verification deferred ({{ _verify_results }}): {{ blackwell_verify.message }}; the GPUs "
     "were not measured, the next run verifies",
     {"{{ inventory_hostname }}: {{ blackwell_verify.message if __verify_previewed else __verify_verdict_text }}|":
      "ws-h200-01: ", "{{ __verify_deferred_text if __verify_deferred else __verify_passed_text }}|": "",
      "{{ _verify_results }}": "/var/lib/blackwell-pytorch/verify.json", "{{ blackwell_verify.message }}": TEXT}),
    (("roles", "nvidia_driver", "tasks", "verify.yml"),
     "{{ inventory_hostname }} needs a reboot to load the driver ({{ __nvidia_driver_reboot_reason }}), but other "
     "users' processes compute on its GPUs and would be killed: {{ __nvidia_driver_gpu_processes.text }}. The role "
     "did not reboot. Wait until they end and run the play again, or set nvidia_driver_reboot_busy: true to reboot "
     "anyway.",
     {"{{ inventory_hostname }}": "ws-h200-01", "{{ __nvidia_driver_reboot_reason }}":
      "the loaded module is 575.57.08, the installed packages 580.95.05",
      "{{ __nvidia_driver_gpu_processes.text }}": TEXT}),
])
def test_the_runbook_quotes_the_role_texts(task_file, template, values):
    text = words(*task_file)
    for part in template.split("|"):
        assert part in text, task_file
    example = template
    for placeholder, value in values.items():
        example = example.replace(placeholder, value)
    assert example in words("docs", "runbook.md")
