# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which torch / torchvision / torchaudio / CUDA channel a host gets, decided before pip runs.

The pytorch role's plan (docs/domain.md section 4), from the version matrix in torch_matrix:
- the requested torch version ("2.9.1", "2.9" for the newest patch of a line, "2.9.1+cu128"
  with its channel), or by default the newest line whose channel has SASS for every GPU and
  whose CUDA the driver supports;
- companions from the same line and channel; an explicit companion from another line is
  refused (pip would silently move torch to match it);
- a channel without kernels for some GPU (cu126 on sm_120) is refused before anything is
  installed, or sends `auto` to a source build;
- pins for ONE pip call, and the stack name torch-<version>-<channel>.

Every function returns plain data; errors are returned as {"error": message}, never raised,
so a role can assert on them with the message as is. Versions are read with `parse` (the
target-side common.versions.parse by default; the torch_plan filter passes packaging's, see
docs/architecture.md). No Ansible import.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability, sm_string
from ansible_collections.blackwell.pytorch.plugins.module_utils.kernel_check.kernel_images import kernel_image_verdict
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.matrix import (
    COMPANION_LINES, COMPANIONS, PATCH_RELEASES, channel_cuda, channel_sass, companion_match,
    companion_versions, cuda_channels, known_versions, parse_version)

METHODS = ("wheel", "source", "auto")
SOURCE_LABEL = "src"


def stack_name(version, channel, parse=versions.parse):
    """"torch-2.9.1-cu128": the venv directory of a stack (version without its local label)."""
    parsed = parse_version(version, parse)
    public = parsed["public"] if parsed else str(version)
    return "torch-%s-%s" % (public, channel or "pypi")


def cuda_text(cuda):
    """(12, 8) -> "12.8"."""
    return "%d.%d" % cuda if cuda else None


def parse_cuda(text, parse=versions.parse):
    """"13.0", "12.8.93", 13000 (NVML's integer) -> (13, 0); None for empty or unknown."""
    if text in (None, ""):
        return None
    if isinstance(text, int) or str(text).isdigit():
        code = int(text)
        return (code // 1000, (code % 1000) // 10) if code >= 1000 else None
    fields = parse(str(text).strip())
    if not fields:
        return None
    release = tuple(fields["release"]) + (0,)
    return release[0], release[1]


def gpu_label(gpu):
    """"GPU 0 (NVIDIA GeForce RTX 5090, sm_120)" from a gpu_facts entry (or a test's short one)."""
    where = gpu.get("index") if gpu.get("index") is not None else gpu.get("pci_bus_id", "?")
    sm = sm_string(*gpu_capability(gpu)) if has_capability(gpu) else "capability unknown"
    return "GPU %s (%s, %s)" % (where, gpu.get("name") or "unknown GPU", sm)


def has_capability(gpu):
    """Whether a gpu_facts entry carries its compute capability (sysfs facts of an unknown PCI id do not)."""
    return bool(gpu.get("compute_capability") or gpu.get("sm"))


def gpu_capability(gpu):
    """(major, minor) of a gpu_facts entry: compute_capability "12.0", else its sm "sm_120"."""
    return parse_capability(gpu.get("compute_capability") or gpu.get("sm"))


def channel_verdicts(channel, gpus):
    """Per GPU the verdict a channel's wheels would get (from CHANNEL_SASS), before installing."""
    sass = channel_sass(channel)
    out = []
    for gpu in gpus or ():
        verdict = kernel_image_verdict(sass, gpu_capability(gpu))
        out.append({"gpu": gpu_label(gpu), "sm": sm_string(*gpu_capability(gpu)),
                    "verdict": verdict["verdict"], "image": verdict["image"]})
    return out


def _channels_with_kernels(line, gpus):
    return [channel for channel in COMPANION_LINES[line][2]
            if all(item["verdict"] == "native" for item in channel_verdicts(channel, gpus))]


def _driver_ok(channel, driver_cuda):
    cuda = channel_cuda(channel)
    return driver_cuda is None or (cuda is not None and cuda <= driver_cuda)


def default_version(gpus=(), driver_cuda=None, companions=COMPANIONS, parse=versions.parse):
    """The newest torch release whose channel has native SASS for every GPU and whose CUDA the driver
    supports, skipping lines where a wanted companion's version is unknown.

    Returns {"version", "channel", "reason"} or {"error"}. Without a known driver CUDA version the
    driver is not held against any channel (the reason says so).
    """
    driver = parse_cuda(driver_cuda, parse)
    skipped = []
    for line in sorted(COMPANION_LINES, reverse=True):
        version = "%d.%d.%d" % (line + (PATCH_RELEASES[line][-1],))
        missing = [name for name in companions if (companion_versions(version, parse) or {}).get(name) is None]
        if missing:
            skipped.append("%d.%d (no known %s)" % (line + (", ".join(missing),)))
            continue
        good = [channel for channel in _channels_with_kernels(line, gpus) if _driver_ok(channel, driver)]
        if good:
            channel = sorted(good, key=channel_cuda)[-1]
            reason = "torch %s+%s: the newest line whose channel has native kernels for %s" % (
                version, channel, ", ".join(sorted(set(sm_string(*gpu_capability(g)) for g in gpus))) or "any GPU (none in the facts)")
            reason += (" and whose CUDA %s the driver (CUDA %s) supports" % (cuda_text(channel_cuda(channel)), cuda_text(driver))
                       if driver else "; the driver's CUDA version is unknown, so it was not considered")
            if skipped:
                reason += "; skipped %s" % "; ".join(skipped)
            return {"version": version, "channel": channel, "reason": reason}
        skipped.append("%d.%d (no channel fits)" % line)
    return {"error": "no torch release in the matrix has a channel with native kernels for %s that driver CUDA %s "
                     "supports: update the NVIDIA driver or set pytorch_version and pytorch_cuda_channel"
                     % (", ".join(gpu_label(g) for g in gpus) or "these GPUs", cuda_text(driver) or "unknown")}


def resolve_version(requested, parse=versions.parse):
    """"2.9.1" / "2.9" (newest patch) / "2.9.1+cu128" -> {"version", "channel" or None} or {"error"}."""
    text = str(requested).strip()
    parsed = parse_version(text, parse)
    known = known_versions()
    if parsed and parsed["release"][:2] in PATCH_RELEASES and text.count(".") == 1 and "+" not in text:
        line = parsed["release"][:2]
        return {"version": "%d.%d.%d" % (line + (PATCH_RELEASES[line][-1],)), "channel": None}
    if not parsed or parsed["public"] not in known:
        return {"error": "torch %s is not in the version matrix; known versions: %s (set pytorch_version to one "
                         "of them, or extend plugins/module_utils/planning/matrix.py)" % (text, ", ".join(known))}
    local = text.partition("+")[2]
    if local and not parsed["channel"]:
        return {"error": "torch %s: the local label %s is not a wheel channel (cuXYZ); give the channel in "
                         "pytorch_cuda_channel" % (text, local)}
    return {"version": parsed["public"], "channel": parsed["channel"]}


def source_channel(version, toolkit_cuda, parse=versions.parse):
    """The channel whose companions go with a source build made with the toolkit's CUDA: the newest
    channel of the line with the toolkit's major and a CUDA no newer than the toolkit's."""
    toolkit = parse_cuda(toolkit_cuda, parse)
    fits = [channel for channel in cuda_channels(version, parse)
            if channel_cuda(channel) and toolkit and channel_cuda(channel)[0] == toolkit[0]
            and channel_cuda(channel) <= toolkit]
    return sorted(fits, key=channel_cuda)[-1] if fits else None


def _companions(version, channel, explicit, wanted, parse):
    """Companion versions for torch `version`, checking explicit ones; ({name: version}, error)."""
    expected = companion_versions(version, parse) or {}
    chosen = {}
    for name in wanted:
        given = str(explicit.get(name) or "").strip()
        if given:
            match = companion_match("%s+%s" % (version, channel) if channel else version, name, given, parse)
            if match["match"] is False:
                return None, ("pytorch_%s_version: %s; pip would silently replace torch to match it. Leave "
                              "pytorch_%s_version empty (it follows torch) or set %s"
                              % (name, match["reason"], name, match["expected"]))
            parsed = parse_version(given, parse)
            chosen[name] = parsed["public"] if parsed else given
        elif expected.get(name):
            chosen[name] = expected[name]
        else:
            return None, ("no %s version is known for torch %s: check the package index and set "
                          "pytorch_%s_version, or leave %s out of pytorch_companions" % (name, version, name, name))
    return chosen, None


def _pin(name, version, label):
    return "%s==%s%s" % (name, version, "+" + label if label else "")


def resolve_stack(version="", channel="", torchvision="", torchaudio="", companions=COMPANIONS, gpus=(),
                  driver_cuda=None, method="wheel", toolkit_cuda=None, builds=True, local_label=True,
                  cuda_home="/usr/local/cuda", parse=versions.parse):
    """The whole plan of one host. Returns a dict with "error" None or a message (nothing else is
    meaningful then), and: torch, channel, cuda, companions {name: version}, pins (one pip call),
    expected {name: installed version to find}, stack, method (wheel|source), verdicts (per GPU,
    predicted from the channel), reason, warnings. parse: the version parser (see the module docstring).
    """
    plan = {"error": None, "warnings": [], "verdicts": []}
    unknown_gpus = [gpu for gpu in gpus or () if not has_capability(gpu)]
    if unknown_gpus:
        plan["warnings"].append("%s: compute capability unknown (run gpu_facts with NVML), not planned for" % (
            ", ".join(gpu_label(gpu) for gpu in unknown_gpus)))
    gpus = [gpu for gpu in gpus or () if has_capability(gpu)]
    if method not in METHODS:
        return {"error": "pytorch_install_method %s is not one of %s" % (method, ", ".join(METHODS))}
    unknown = [name for name in companions or () if name not in COMPANIONS]
    if unknown:
        return {"error": "pytorch_companions may hold %s, not %s" % (", ".join(COMPANIONS), ", ".join(unknown))}
    channel = str(channel or "").strip()
    if str(version or "").strip():
        found = resolve_version(version, parse)
        if found.get("error"):
            return {"error": found["error"]}
        if found["channel"] and channel and found["channel"] != channel:
            return {"error": "pytorch_version %s names channel %s but pytorch_cuda_channel is %s: give one"
                             % (version, found["channel"], channel)}
        channel = channel or found["channel"] or ""
        plan["torch"] = found["version"]
        plan["reason"] = "torch %s as requested" % found["version"]
    else:
        choice = default_version(gpus, driver_cuda, companions or (), parse)
        if choice.get("error"):
            return {"error": choice["error"]}
        plan["torch"] = choice["version"]
        channel = channel or choice["channel"]
        plan["reason"] = choice["reason"]
    torch_version = plan["torch"]
    line_channels = cuda_channels(torch_version, parse)
    source = method == "source"
    if source and not channel:
        if toolkit_cuda is None and builds:
            return {"error": _no_toolkit(cuda_home)}
        channel = source_channel(torch_version, toolkit_cuda, parse) or ""
    if channel and channel not in line_channels:
        return {"error": "torch %s has no %s wheels; its Linux CUDA channels are %s (docs/domain.md section 4)"
                         % (torch_version, channel, ", ".join(line_channels))}
    driver = parse_cuda(driver_cuda, parse)
    if channel and not source:
        cuda = channel_cuda(channel)
        if driver and cuda[0] > driver[0]:
            return {"error": "channel %s needs a driver with CUDA %s; the driver supports CUDA %s: update the "
                             "driver (blackwell.pytorch.nvidia_driver) or choose a channel of CUDA %d"
                             % (channel, cuda_text(cuda), cuda_text(driver), driver[0])}
        if driver and cuda > driver:
            plan["warnings"].append("channel %s is newer than the driver's CUDA %s: it relies on CUDA minor-version "
                                    "compatibility (no PTX of the newer minor)" % (channel, cuda_text(driver)))
        plan["verdicts"] = channel_verdicts(channel, gpus)
        lacking = [item for item in plan["verdicts"] if item["verdict"] != "native"]
        if lacking and method == "auto":
            source = True
            plan["reason"] += "; %s wheels have no native kernels for %s, so auto builds from source" % (
                channel, ", ".join(item["gpu"] for item in lacking))
        elif lacking:
            better = [c for c in line_channels if all(i["verdict"] == "native" for i in channel_verdicts(c, gpus))]
            return {"error": "channel %s has no kernels for %s: torch %s+%s wheels carry %s. Nothing was installed. "
                             "Use %s, or pytorch_install_method: source" % (
                                 channel, ", ".join(item["gpu"] for item in lacking), torch_version, channel,
                                 " ".join(channel_sass(channel)) or "no known SASS",
                                 " or ".join(better) if better else "another torch release")}
    if source and builds and toolkit_cuda is None:
        return {"error": _no_toolkit(cuda_home)}
    chosen, error = _companions(torch_version, channel, {"torchvision": torchvision, "torchaudio": torchaudio},
                                list(companions or ()), parse)
    if error:
        return {"error": error}
    if source and chosen and not channel and builds:
        return {"error": "no %s channel of torch %s matches the toolkit's CUDA %s for the companions (%s): set "
                         "pytorch_cuda_channel, or pytorch_companions: []" % (
                             "/".join(line_channels), torch_version, toolkit_cuda, ", ".join(chosen))}
    torch_label = SOURCE_LABEL if source else (channel if local_label else "")
    comp_label = channel if local_label else ""
    plan.update(
        channel=channel or None, cuda=cuda_text(channel_cuda(channel)), companions=chosen,
        method="source" if source else "wheel",
        stack=stack_name(torch_version, SOURCE_LABEL if source else channel, parse),
        build_version="%s+%s" % (torch_version, SOURCE_LABEL) if source else None,
        pins=[_pin("torch", torch_version, torch_label)] + [_pin(n, v, comp_label) for n, v in sorted(chosen.items())],
    )
    plan["expected"] = dict((pin.split("==")[0], pin.split("==")[1]) for pin in plan["pins"])
    return plan


def _no_toolkit(cuda_home):
    return ("a source build needs a CUDA toolkit and there is none at %s (no bin/nvcc): install one "
            "(role blackwell.pytorch.cuda_toolkit), set pytorch_cuda_home, or use pytorch_install_method: wheel"
            % cuda_home)


def installed_mismatches(expected, installed):
    """Names whose installed version (from `pip list`) differs from the plan's; [] when all match.

    `installed` maps normalised names to versions, as pip list --format=json gives them.
    """
    have = dict((str(k).lower().replace("_", "-"), v) for k, v in (installed or {}).items())
    return ["%s %s (want %s)" % (name, have.get(name, "missing"), want)
            for name, want in sorted(expected.items()) if _same_version(have.get(name), want) is False]


def _same_version(have, want):
    if have is None:
        return False
    if "+" in want:
        return have == want
    return have.partition("+")[0] == want


def requirement_pins(text):
    """{name: version} for every `name==version` line of a requirements / hashes file (continuations,
    comments and options ignored)."""
    pins = {}
    for raw in str(text or "").replace("\\\n", " ").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        head = line.split(";", 1)[0].split()[0]
        if "==" in head:
            name, _sep, version = head.partition("==")
            pins[name.strip().lower().replace("_", "-")] = version.strip()
    return pins


def hashes_file_mismatches(text, pins):
    """Lines of the plan a hashes file does not pin exactly; [] when it pins all of them.

    Raises ValueError for a pin that is not "name==version".
    """
    found = requirement_pins(text)
    bad = [pin for pin in pins if str(pin).count("==") != 1]
    if bad:
        raise ValueError("pins must be name==version, not %s" % ", ".join(repr(pin) for pin in bad))
    wanted = dict(pin.split("==") for pin in pins)
    return ["%s==%s (file: %s)" % (name, version, found.get(name, "not pinned"))
            for name, version in sorted(wanted.items()) if found.get(name) != version]
