# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""torch -> torchvision / torchaudio companion versions and Linux CUDA channels (docs/domain.md section 4).

torch, torchvision and torchaudio must come from one release line and one channel: torch
2.11.0 goes with torchvision 0.26.0 and torchaudio 2.11.0 (the patch level follows torch's:
2.7.1 -> 0.22.1 / 2.7.1). The table is a fallback for what the package index says; extend
it when a release line appears.

No Ansible import: torch_cuda_check and the pytorch role's filters use it.
"""
from __future__ import annotations

import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import wheel_sass

# torch line -> (torchvision line, torchaudio line, Linux CUDA channels on download.pytorch.org). A companion
# line is None where the table does not know it (read the index), or "" where none is published for that torch
# line: a plan leaves it out as it does when an index lacks it (the default choice passes that torch over, a
# requested one is installed without it, each with a warning). torchaudio ends with its 2.11 line; no torchvision
# for torch 2.15 is published yet (docs/domain.md section 4).
COMPANION_LINES = {
    (2, 6): ("0.21", "2.6", ("cu118", "cu124", "cu126")),
    (2, 7): ("0.22", "2.7", ("cu118", "cu126", "cu128")),
    (2, 8): ("0.23", "2.8", ("cu126", "cu128", "cu129")),
    (2, 9): ("0.24", "2.9", ("cu126", "cu128", "cu130")),
    (2, 10): ("0.25", "2.10", ("cu126", "cu128", "cu130")),
    (2, 11): ("0.26", "2.11", ("cu126", "cu128", "cu129", "cu130")),
    (2, 12): ("0.27", "", ("cu126", "cu130", "cu132")),
    (2, 13): ("0.28", "", ("cu126", "cu130", "cu132")),
    (2, 14): ("0.29", "", ("cu126", "cu130", "cu132")),
    (2, 15): ("", "", ("cu130", "cu132")),
}
COMPANIONS = ("torchvision", "torchaudio")
# Patch releases of each line (docs/domain.md section 4); the newest is last.
PATCH_RELEASES = {
    (2, 6): (0,), (2, 7): (0, 1), (2, 8): (0,), (2, 9): (0, 1), (2, 10): (0,), (2, 11): (0,), (2, 12): (0, 1),
    (2, 13): (0,), (2, 14): (0, 1), (2, 15): (0,),
}
# The Linux CUDA channels of download.pytorch.org the table knows. The SASS each one's wheels carry is
# the GPU catalogue's (hardware.catalogue, each capability's `wheel_sass`: measured on 2.7.1+cu126,
# 2.9.1+cu128 and 2.11.0+cu130, docs/domain.md section 4; the other channels follow their toolkit's
# limits and PyTorch's published arch lists: no Blackwell before CUDA 12.8, no sm_50..sm_70 from CUDA 13 on;
# cu132 and cu134 build the arch list of cu130). cu134 carries prereleases only (no release line lists it):
# it is here so that a build an index labels cu134 is judged rather than refused. A plan made before anything
# is installed; the installed wheel's real torch.cuda.get_arch_list() is what torch_cuda_check judges.
WHEEL_CHANNELS = ("cu118", "cu124", "cu126", "cu128", "cu129", "cu130", "cu132", "cu134")

_CHANNEL = re.compile(r"^(cu\d+|cpu|rocm[\d.]+|xpu)$")


def parse_version(text, parse=versions.parse):
    """"2.11.0+cu130" -> {"release": (2, 11, 0), "public": "2.11.0", "channel": "cu130"}.

    parse: the PEP 440 parser, common.versions.parse (no `packaging` on a stack's Python) or, on
    the controller, packaging's (plugins/plugin_utils/versions.py). An epoch stays in public
    ("2!2.11.0"), pre/dev/post releases too ("2.11.0rc1", "2.11.0.dev20250101", "2.11.0.post1");
    release and public have at least three parts ("2.6" -> (2, 6, 0), "2.6.0").

    channel is the local version label when it names a wheel channel (cuXYZ, cpu, rocmX.Y,
    xpu), else None (PyPI wheels without a label, source builds' +git labels). None for
    text that is not a version (or has no minor part).
    """
    fields = parse(str(text or "").strip())
    if not fields or len(fields["release"]) < 2:
        return None
    release = tuple(fields["release"][:3]) + (0,) * (3 - len(fields["release"][:3]))
    local = fields["local"]
    channel = local if local and _CHANNEL.match(local) else None
    return {"release": release, "public": versions.public(fields, width=3), "channel": channel}


def companion_versions(torch_version, parse=versions.parse):
    """{"torchvision": "0.26.0", "torchaudio": "2.11.0"} for torch "2.11.0+cu130".

    A value is None where the table does not know it, "" where none is published for torch's line
    ({"torchvision": "0.29.1", "torchaudio": ""} for 2.14.1); None when torch's line is unknown.
    """
    parsed = parse_version(torch_version, parse)
    line = parsed and COMPANION_LINES.get(parsed["release"][:2])
    if not line:
        return None
    patch = parsed["release"][2]
    vision, audio, _channels = line
    return {
        "torchvision": _companion_of_line(vision, patch),
        "torchaudio": _companion_of_line(audio, patch),
    }


def _companion_of_line(line, patch):
    """"0.26", 1 -> "0.26.1"; "" (none published) and None (unknown) stay as they are."""
    return "%s.%d" % (line, patch) if line else line


def cuda_channels(torch_version, parse=versions.parse):
    """The Linux CUDA channels that carry torch's release line, () when unknown."""
    parsed = parse_version(torch_version, parse)
    line = parsed and COMPANION_LINES.get(parsed["release"][:2])
    return line[2] if line else ()


def companion_match(torch_version, package, installed_version, parse=versions.parse):
    """Whether `package` (torchvision|torchaudio) at `installed_version` fits torch.

    Returns {"expected": version or None, "match": True|False|None (not installed, or a torch
    line the table does not know, or a companion none of which is published for torch's line), "reason": str}.
    """
    expected = (companion_versions(torch_version, parse) or {}).get(package)
    installed = parse_version(installed_version, parse)
    torch_parsed = parse_version(torch_version, parse)
    if installed is None:
        return {"expected": expected, "match": None, "reason": "%s is not installed" % package}
    if expected is None:
        return {"expected": None, "match": None,
                "reason": "no %s version known for torch %s: check the package index" % (package, torch_version)}
    if expected == "":
        return {"expected": "", "match": None,
                "reason": "no %s release of torch %d.%d's line is published: %s %s not judged"
                          % ((package,) + torch_parsed["release"][:2] + (package, installed_version))}
    if installed["release"] != parse_version(expected, parse)["release"]:
        return {"expected": expected, "match": False,
                "reason": "%s %s does not belong to torch %s (expected %s)"
                          % (package, installed_version, torch_version, expected)}
    if installed["channel"] and torch_parsed["channel"] and installed["channel"] != torch_parsed["channel"]:
        return {"expected": expected, "match": False,
                "reason": "%s %s is from channel %s, torch %s from %s"
                          % (package, installed_version, installed["channel"], torch_version, torch_parsed["channel"])}
    return {"expected": expected, "match": True,
            "reason": "%s %s matches torch %s" % (package, installed_version, torch_version)}


def known_versions():
    """Every torch release the table knows, oldest first: ["2.6.0", "2.7.0", "2.7.1", ...]."""
    return ["%d.%d.%d" % (line + (patch,)) for line in sorted(PATCH_RELEASES) for patch in PATCH_RELEASES[line]]


def channel_cuda(channel):
    """"cu128" -> (12, 8), "cu130" -> (13, 0); None for cpu, rocm and anything else."""
    match = re.match(r"^cu(\d+)(\d)$", str(channel or ""))
    return (int(match.group(1)), int(match.group(2))) if match else None


def channel_sass(channel):
    """The SASS a channel's Linux wheels carry (the catalogue's), () for a channel not in WHEEL_CHANNELS."""
    return tuple(wheel_sass(channel_cuda(channel))) if channel in WHEEL_CHANNELS else ()
