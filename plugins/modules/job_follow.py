#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: job_follow
short_description: Start a module in the background on the target and follow it, with a progress line every interval
version_added: 0.3.0
description:
  - An action that runs on the controller. It starts O(module) with O(args) in the background on the
    target, as C(async=<timeout>) and C(poll=0) would (the job survives a lost connection), then follows
    it. The module writes its output to O(log) and, at its end, C(<log>.rc) starting with O(run_id)
    (M(blackwell.pytorch.pytorch_source_build), M(blackwell.pytorch.pytorch_stack)).
  - A launch that does not answer with a job id fails the task with the launch's message.
  - Every round waits on the target at most O(interval) seconds for that end (M(ansible.builtin.wait_for)),
    reads the end of O(log) (C(tail)) and displays a line at normal verbosity, C(<what> on <host>
    H:MM:SS elapsed, running|finished; <news>), the news being the build's last log line, pip's progress
    (its downloads and megabytes) or the package manager's.
  - After the round that sees the end, or after O(timeout) seconds, M(ansible.builtin.async_status) gives
    the job's result, which becomes this task's result with RV(reports) added; a failed job fails here
    with its message, a job that has not ended fails with how long it was followed and where its log is.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
attributes:
  check_mode:
    support: full
    details:
      - In check mode O(module) runs once, synchronously (nothing in the background, nothing followed),
        and does its own check; its result is this task's, with RV(reports) empty.
  diff_mode:
    support: none
options:
  module:
    description: The module to start, by its full name (for example V(blackwell.pytorch.pytorch_stack)).
    type: str
    required: true
  args:
    description: The module's arguments.
    type: dict
    required: true
  log:
    description:
      - The job's log on the target. Empty for the started module's own C(log) option (a task that has neither fails
        before anything starts).
    type: str
    default: ""
  run_id:
    description:
      - What C(<log>.rc) starts with at this run's end (an earlier run's file does not count). Empty for the started
        module's own C(run_id) option, if it has one.
    type: str
    default: ""
  what:
    description:
      - C(torch build) (the news is the log's last line), C(pip install) (pip's progress), or C(driver install),
        C(toolkit install) or C(package install) (M(blackwell.pytorch.package_install)'s log read whole - apt's or
        dnf's progress, packages and MB fetched of the announced total with the percentage, apt's unpacked and
        set-up counts, the last step, the DKMS build included).
    type: str
    required: true
  interval:
    description: Seconds between two progress lines.
    type: int
    default: 15
  timeout:
    description: The job's C(async) limit, in seconds; after it the job is no longer followed.
    type: int
    required: true
notes:
  - Set C(ansible_no_target_syslog) on the task when O(args) may carry secrets (URLs with a password),
    so that the target's modules log no arguments.
"""

EXAMPLES = r"""
- name: Install a stack in the background (its log and <log>.rc go to /opt/pytorch/venvs/.pip.log), a line every 15 s
  blackwell.pytorch.job_follow:
    module: blackwell.pytorch.pytorch_stack
    args:
      root: /opt/pytorch
      state: present
      stack: torch-2.9.1-cu128
      python: /usr/bin/python3
      expected: {torch: 2.9.1+cu128}
      pip_args: [--index-url, "https://download.pytorch.org/whl/cu128", torch==2.9.1+cu128]
      log: /opt/pytorch/venvs/.pip.log
      run_id: "{{ run }}"
    what: pip install  # log and run_id: the module's own
    timeout: 3600
  register: install
"""

RETURN = r"""
reports:
  description: The progress lines, one a round, the last one saying C(finished) when the end was seen; empty in check mode.
  returned: always
  type: list
  elements: str
  sample: ["torch build on ws-01: 0:01:00 elapsed, running; last log line: [12/2400] Building CUDA object ..."]
finished:
  description: Whether the job has ended (from M(ansible.builtin.async_status)).
  returned: when the job was started (not in check mode)
  type: bool
ansible_job_id:
  description: The job's id.
  returned: when the job was started (not in check mode)
  type: str
"""
