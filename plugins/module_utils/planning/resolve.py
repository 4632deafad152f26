# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which torch / torchvision / torchaudio / CUDA channel a host gets, decided before pip runs.

The pytorch role's plan (docs/domain.md section 4, docs/planning.md), from a catalog of builds
(planning.catalog: the version table of planning/matrix.py, or what a package index holds,
read by planning.index_catalog):
- the requested torch version ("2.9.1", "2.9" for the newest patch of a line, "2.9.1+cu128"
  with its channel), or by default ("" / "latest") the newest line whose channel has SASS for
  every GPU and whose CUDA the driver supports (planning.choose);
- always a channel for wheels: given, from a companion's label, or the version's build with
  native kernels for every GPU (choose.pick_channel), else a refusal naming builds that work;
- companions from the same line and channel; an explicit companion from another line is
  refused (pip would silently move torch to match it); one the index lacks makes the default choice
  pass that torch over (choose.default_version), and leaves a requested torch without it, each said
  in plan["warnings"];
- a channel without kernels for some GPU (cu126 on sm_120) is refused before anything is
  installed, or sends `auto` to a source build;
- pins for ONE pip call, and the stack name torch-<version>-<channel>.

Every function returns plain data; a refusal is raised as planning.errors.PlanError, its message
the one the role fails with, word for word. Versions are read with `parse` (the
target-side common.versions.parse by default; the torch_plan filter passes packaging's, see
docs/architecture.md). No Ansible import.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.labels import gpu_label
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import inputs
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.catalog import (
    TABLE, channels, companions_of, pin_label, table_catalog)
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.choose import (
    _native, channel_verdicts, cuda_text, default_version, has_capability, parse_cuda, pick_channel, resolve_version,
    working_builds)
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.install_check import expected_build
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.matrix import (
    COMPANIONS, channel_cuda, channel_sass, parse_version)

METHODS = ("wheel", "source", "auto")
SOURCE_LABEL = "src"


def stack_name(version, channel, parse=versions.parse):
    """"torch-2.9.1-cu128": the venv directory of a stack (version without its local label)."""
    parsed = parse_version(version, parse)
    public = parsed["public"] if parsed else str(version)
    return "torch-%s-%s" % (public, channel or "pypi")


def source_channel(version, toolkit_cuda, parse=versions.parse, catalog=None):
    """The channel whose companions go with a source build made with the toolkit's CUDA: the newest
    channel of the line with the toolkit's major and a CUDA no newer than the toolkit's."""
    toolkit = parse_cuda(toolkit_cuda, parse)
    fits = [channel for channel in channels(catalog or table_catalog(parse), parse_version(version, parse)["public"])
            if channel_cuda(channel) and toolkit and channel_cuda(channel)[0] == toolkit[0]
            and channel_cuda(channel) <= toolkit]
    return sorted(fits, key=channel_cuda)[-1] if fits else None


def _mismatch(name, given, version, channel, expected, parse):
    """Why an explicit companion does not go with torch (the text pip's silent replacement needs), or None."""
    have, torch = parse_version(given, parse), "%s+%s" % (version, channel) if channel else version
    if expected and (not have or have["release"] != parse_version(expected, parse)["release"]):
        return "%s %s does not belong to torch %s (expected %s)" % (name, given, torch, expected)
    if have and have["channel"] and channel and have["channel"] != channel:
        return "%s %s is from channel %s, torch %s from %s" % (name, given, have["channel"], torch, channel)
    return None


def _companions(version, channel, explicit, wanted, parse, catalog, plan):
    """Companion versions for torch `version`, checking explicit ones; ({name: version}, error). A companion
    the index lacks for the line (which the default choice passes over: choose.default_version) is left out with
    one warning naming them all, or refused when its version was given."""
    expected = companions_of(catalog, version)
    chosen, absent = {}, []
    for name in wanted:
        given = str(explicit.get(name) or "").strip()
        if given and expected.get(name) == "":
            return None, ("pytorch_%s_version %s: %s has no %s for torch %s. Leave %s out of pytorch_companions"
                          % (name, given, catalog["source"], name, version, name))
        if given:
            why = _mismatch(name, given, version, channel, expected.get(name), parse)
            if why:
                return None, ("pytorch_%s_version: %s; pip would silently replace torch to match it. Leave "
                              "pytorch_%s_version empty (it follows torch) or set %s"
                              % (name, why, name, expected.get(name)))
            parsed = parse_version(given, parse)
            chosen[name] = parsed["public"] if parsed else given
        elif expected.get(name):
            chosen[name] = expected[name]
        elif expected.get(name) == "":
            absent.append(name)
        else:
            return None, ("no %s version is known for torch %s: check the package index and set "
                          "pytorch_%s_version, or leave %s out of pytorch_companions" % (name, version, name, name))
    if absent:
        plan["warnings"].append("torch %s is installed without %s: %s has none for it. Leave pytorch_version empty for "
                                "the newest torch that has them, or set pytorch_companions: [] to install torch alone"
                                % (version, ", ".join(absent), catalog["source"]))
    return chosen, None


def _pin(name, version, label):
    return "%s==%s%s" % (name, version, "+" + label if label else "")


def read_inputs(version, channel, torchvision, torchaudio, companions, driver_cuda, toolkit_cuda, builds,
                local_label):
    """The plan's inputs in their types (planning.inputs), or raises ValueError naming the variable."""
    version = inputs.as_version(version, "pytorch_version")
    return {"version": "" if version.lower() == "latest" else version,
            "channel": inputs.as_version(channel, "pytorch_cuda_channel"),
            "torchvision": inputs.as_version(torchvision, "pytorch_torchvision_version"),
            "torchaudio": inputs.as_version(torchaudio, "pytorch_torchaudio_version"),
            "companions": inputs.as_list(companions, "pytorch_companions"),
            "driver_cuda": inputs.as_cuda(driver_cuda, "pytorch_driver_cuda_version") or None,
            "toolkit_cuda": inputs.as_cuda(toolkit_cuda, "the toolkit's CUDA version") or None,
            "builds": inputs.as_bool(builds, "builds"),
            "local_label": inputs.as_bool(local_label, "pytorch_pin_local_label")}


def _label_channel(*given):
    """The channel a pinned companion's local label names ("0.24.1+cu128" -> cu128), or ""."""
    found = [parse_version(text)["channel"] for text in given if text and parse_version(text)]
    return next((c for c in found if c), "")


def resolve_stack(version="", channel="", torchvision="", torchaudio="", companions=COMPANIONS, gpus=(),
                  driver_cuda=None, method="wheel", toolkit_cuda=None, builds=True, local_label=True,
                  cuda_home="/usr/local/cuda", parse=versions.parse, catalog=None):
    """The whole plan of one host, or PlanError with the refusal. Returns a dict with "error" None (a failed
    fallback plan carries its refusal there instead: plan_call), and: torch, channel, cuda, companions {name: version}, pins (one pip call),
    expected {name: installed version to find}, stack, method (wheel|source), verdicts (per GPU,
    predicted from the channel), reason, warnings, source (the catalog planned from), notes (what the index
    reading decided), build (install_check.expected_build: what pytorch_stack checks after pip). parse: the version
    parser (see the module docstring); catalog: planning.catalog (None: the version table). A wheel plan
    always has a channel, checked against every GPU before anything is installed.
    """
    try:
        given = read_inputs(version, channel, torchvision, torchaudio, companions, driver_cuda, toolkit_cuda,
                            builds, local_label)
    except ValueError as exc:
        raise PlanError(str(exc)) from exc
    catalog = catalog or table_catalog(parse)
    channel, companions, driver_cuda, toolkit_cuda = (given["channel"], given["companions"], given["driver_cuda"],
                                                      given["toolkit_cuda"])
    plan = {"error": None, "warnings": [], "verdicts": [], "source": catalog["source"],
            "notes": list(catalog.get("notes") or ())}
    unknown_gpus = [gpu for gpu in gpus or () if not has_capability(gpu)]
    if unknown_gpus:
        plan["warnings"].append("%s: compute capability unknown (run gpu_facts with NVML), not planned for" % (
            ", ".join(gpu_label(gpu) for gpu in unknown_gpus)))
    gpus = [gpu for gpu in gpus or () if has_capability(gpu)]
    if method not in METHODS:
        raise PlanError("pytorch_install_method %s is not one of %s" % (method, ", ".join(METHODS)))
    unknown = [name for name in companions if name not in COMPANIONS]
    if unknown:
        raise PlanError("pytorch_companions may hold %s, not %s" % (", ".join(COMPANIONS), ", ".join(unknown)))
    if given["version"]:
        found = resolve_version(given["version"], parse, catalog)
        if found["channel"] and channel and found["channel"] != channel:
            raise PlanError("pytorch_version %s names channel %s but pytorch_cuda_channel is %s: give one"
                            % (given["version"], found["channel"], channel))
        channel = channel or found["channel"] or ""
        plan["torch"] = found["version"]
        plan["reason"] = "torch %s as requested%s" % (
            found["version"], "" if catalog["source"] == TABLE else " (%s)" % catalog["source"])
    else:
        choice = default_version(gpus, driver_cuda, companions, parse, catalog)
        plan["torch"] = choice["version"]
        channel = channel or choice["channel"]
        plan["reason"] = choice["reason"]
        plan["warnings"].extend(choice.get("warnings") or ())
    torch_version = plan["torch"]
    line_channels = channels(catalog, torch_version)
    source = method == "source"
    channel = channel or _label_channel(given["torchvision"], given["torchaudio"])
    if source and not channel:
        if toolkit_cuda is None and given["builds"]:
            raise PlanError(_no_toolkit(cuda_home))
        channel = source_channel(torch_version, toolkit_cuda, parse, catalog) or ""
    elif not channel:
        pick = pick_channel(catalog, torch_version, gpus, driver_cuda, method, parse)
        channel = pick["channel"]
        plan["reason"] += "; %s" % pick["reason"] if pick["reason"] else ""
    if channel and channel not in line_channels:
        raise PlanError("torch %s has no %s wheels; its Linux CUDA channels are %s (%s)"
                        % (torch_version, channel, ", ".join(line_channels),
                           "docs/domain.md section 4" if catalog["source"] == TABLE else catalog["source"]))
    driver = parse_cuda(driver_cuda, parse)
    if channel and not source:
        cuda = channel_cuda(channel)
        if cuda is None:
            raise PlanError("torch %s+%s is not a CUDA build: it has no kernels for any GPU. Nothing was installed; "
                            "set pytorch_cuda_channel to a cuXYZ channel" % (torch_version, channel))
        if driver and cuda[0] > driver[0]:
            raise PlanError("channel %s needs a driver with CUDA %s; the driver supports CUDA %s: update the "
                            "driver (blackwell.pytorch.nvidia_driver) or choose a channel of CUDA %d"
                            % (channel, cuda_text(cuda), cuda_text(driver), driver[0]))
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
            better = [c for c in line_channels if _native(c, gpus)]
            raise PlanError("channel %s has no kernels for %s: torch %s+%s wheels carry %s. Nothing was installed. "
                            "Use %s, or pytorch_install_method: source" % (
                                channel, ", ".join(item["gpu"] for item in lacking), torch_version, channel,
                                " ".join(channel_sass(channel)) or "no known SASS",
                                " or ".join(better) if better else "another torch release (%s)" % (
                                    ", ".join(working_builds(catalog, gpus, driver, parse)) or "none fits")))
    if source and given["builds"] and toolkit_cuda is None:
        raise PlanError(_no_toolkit(cuda_home))
    chosen, error = _companions(torch_version, channel, given, companions, parse, catalog, plan)
    if error:
        raise PlanError(error)
    if source and chosen and not channel and given["builds"]:
        raise PlanError("no %s channel of torch %s matches the toolkit's CUDA %s for the companions (%s): set "
                        "pytorch_cuda_channel, or pytorch_companions: []" % (
                            "/".join(line_channels), torch_version, toolkit_cuda, ", ".join(chosen)))
    label = pin_label(catalog, torch_version, channel) if given["local_label"] and channel else ""
    plan.update(
        channel=channel or None, cuda=cuda_text(channel_cuda(channel)), companions=chosen,
        method="source" if source else "wheel",
        stack=stack_name(torch_version, SOURCE_LABEL if source else channel, parse),
        build_version="%s+%s" % (torch_version, SOURCE_LABEL) if source else None,
        pins=[_pin("torch", torch_version, SOURCE_LABEL if source else label)]
        + [_pin(n, v, label) for n, v in sorted(chosen.items())],
    )
    plan["expected"] = dict((pin.split("==")[0], pin.split("==")[1]) for pin in plan["pins"])
    plan["build"] = expected_build(plan, gpus)
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
