# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the torch pip installed is the build the plan chose, before the stack can become current.

The plan names a CUDA channel (cu130) and predicts native kernels for every GPU; pip may still
bring another build (an index that serves cu128 under the same version, a mirror's unlabelled
wheel, a cached wheel). What the stack's interpreter reports settles it, without a GPU:
torch.__version__'s local label, torch.version.cuda and torch._C._cuda_getArchFlags() (the SASS
and PTX the build carries). No Ansible import.
"""
from __future__ import annotations

import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability, sm_string
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.kernel_images import kernel_image_verdict

_CHANNEL = re.compile(r"^(cu\d+|cpu|rocm[\d.]+|xpu)$")


def expected_build(plan, gpus=()):
    """What install() checks, from a plan (resolve_stack, over the table or an index catalogue) and the GPUs it was made for:
    {"stack", "channel", "cuda", "sms": ["sm_120", ...], "source": bool}."""
    sms = []
    for gpu in gpus or ():
        value = gpu.get("compute_capability") or gpu.get("sm")
        if value:
            sms.append(sm_string(*parse_capability(value)))
    return {"stack": plan.get("stack"), "channel": plan.get("channel"), "cuda": plan.get("cuda"),
            "sms": sorted(set(sms)), "source": plan.get("method") == "source"}


def arch_entries(flags):
    """"sm_75 sm_80 compute_90" or "-gencode arch=compute_90,code=sm_90 ..." -> ["sm_75", "sm_80", "compute_90"]."""
    return re.findall(r"(?:sm|compute)_\d+[af]?", str(flags or ""))


def build_problems(expected, found):
    """The differences between the planned build and what the stack's torch reports, as text ([] when none).

    expected: expected_build(); found: the stack probe's "torch_build" ({"version", "cuda", "arch_flags"}).
    A source build (label +src) is judged by its kernels only; its channel is the companions'."""
    if not expected or not found:
        return []
    problems, stack = [], expected.get("stack") or "the stack"
    version = str(found.get("version") or "")
    label = version.partition("+")[2]
    channel, cuda = expected.get("channel"), expected.get("cuda")
    if not expected.get("source"):
        if channel and label and _CHANNEL.match(label) and label != channel:
            problems.append("torch %s is a %s build; the plan (%s) chose %s" % (version, label, stack, channel))
        have = _cuda_line(found.get("cuda"))
        if cuda and have != _cuda_line(cuda):
            problems.append("torch %s reports CUDA %s (torch.version.cuda); the plan (%s) chose %s, CUDA %s"
                            % (version, found.get("cuda") or "none (a CPU build)", stack, channel, cuda))
    images = arch_entries(found.get("arch_flags"))
    for sm in expected.get("sms") or ():
        verdict = kernel_image_verdict(images, parse_capability(sm))["verdict"]
        if verdict != "native":
            problems.append("torch %s carries %s (torch._C._cuda_getArchFlags()): no native kernels for %s, which "
                            "the plan (%s) predicted" % (version, " ".join(images) or "no CUDA kernels", sm, stack))
    return problems


def _cuda_line(text):
    match = re.match(r"^\s*(\d+)\.(\d+)", str(text or ""))
    return (int(match.group(1)), int(match.group(2))) if match else None
