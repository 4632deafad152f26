# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cuda_toolkit role's plan (docs/domain.md section 3), decided before anything changes.

toolkit_plan() weighs the requested toolkits against the driver and the GPUs with the tables
of driver.cuda_compat; probe_plan() first reads the role's probe text (installed packages,
the nvcc binaries that answered). No Ansible import: the cuda_toolkit_plan filter and the
unit tests use these functions.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions as version_parser
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.cuda_compat import (
    INSTALLABLE, TOOLKITS, compute_name, cuda_string, current_release, default_toolkit, driver_cuda_version,
    driver_key, driver_supports, minimum_driver, package_name, parse_cuda_version, parse_found,
    toolkits_from_packages, untargetable)
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.privilege import root_refusal
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import catalogue
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.labels import model_label


def targeting_toolkits(capability, version):
    """Which toolkits target `capability`, by the GPU catalogue, said for a `version` (major, minor)
    that does not: "Blackwell needs 12.8 or newer" (the family's name where its first toolkit is the
    family's first, else compute_XY), "12.9 is the last toolkit that targets it", or that no known
    toolkit does."""
    capability = parse_capability(capability)
    row = catalogue.architecture(capability) or {"family": None, "first_toolkit": None, "last_toolkit": None}
    first, last = row["first_toolkit"], row["last_toolkit"]
    if first is not None and tuple(version) < first:
        firsts = [other["first_toolkit"] for other in catalogue.ARCHITECTURES.values()
                  if row["family"] and other["family"] == row["family"]]
        name = row["family"] if row["family"] and first == min(firsts) else compute_name(capability)
        return "%s needs %s or newer" % (name, cuda_string(first))
    if last is not None and tuple(version) > last:
        return "%s is the last toolkit that targets it" % cuda_string(last)
    return "no CUDA toolkit the collection knows targets it"


def probe_plan(versions, default="", driver=None, driver_cuda=None, gpus=(), minor_compat=False, manage="auto",
               installed=(), found=None, current=None, parse=version_parser.parse, user=None):
    """toolkit_plan() where installed and found may also be the role's probe text, and a plan that
    manages the toolkits (installs, points /usr/local/cuda) without root is refused first (user:
    {"uid", "name"} as preflight reads them; privilege.root_refusal).

    installed: "name<TAB>version<TAB>status" package lines (toolkits_from_packages) or a list of
    versions; found: "path<TAB>release" lines of each nvcc that answered (parse_found; current,
    when not given, is the release /usr/local/cuda answers with there) or a mapping.
    """
    if isinstance(installed, str):
        installed = toolkits_from_packages(installed)
    if isinstance(found, str):
        current = current or current_release(found)
        found = parse_found(found)
    plan = toolkit_plan(versions, default, driver or None, driver_cuda or None, gpus, minor_compat, manage,
                        installed, found, current, parse)
    root = root_refusal("the cuda_toolkit role", user) if plan["action"] == "manage" else ""
    if root:
        plan["problems"].insert(0, root)
        plan["ok"] = False
    return plan


def toolkit_plan(versions, default="", driver=None, driver_cuda=None, gpus=(), minor_compat=False,
                 manage="auto", installed=(), found=None, current=None, parse=version_parser.parse):
    """Decide what the cuda_toolkit role does, before it changes anything.

    versions: requested toolkits ([] = choose one from the driver; text is refused); default: the one
    /usr/local/cuda points at ("" = the newest requested); driver: the driver version the
    toolkits will run on (None when unknown); driver_cuda: NVML's CUDA driver version; gpus:
    ansible_facts.nvidia_gpus; manage: auto | true | false; installed: toolkit versions
    installed as packages ("12.8"); found: {"12.8": "/usr/local/cuda-12.8", ...} toolkits whose
    nvcc answers with that release, wherever they live (packages included); current: the
    release /usr/local/cuda/bin/nvcc answers with (None when none); parse: the version parser
    driver versions compare with.

    manage auto leaves the toolkits alone (action adopt) when every requested release answers
    already and /usr/local/cuda answers with the default; otherwise it installs what is missing
    and points /usr/local/cuda at the default (action manage). true always manages; false checks.

    Returns {"ok", "problems", "warnings", "versions", "default", "install" (versions to
    install), "packages", "adopted" ({version: path} found answering, left as they are),
    "managed" (versions whose package is installed), "current",
    "action": manage | adopt | check, "driver", "driver_cuda", "chosen_from_driver"}.
    """
    found = dict(found or {})
    installed = [cuda_string(parse_cuda_version(v)) for v in (installed or [])]
    gpus = list(gpus or [])
    caps = [gpu.get("compute_capability") or gpu.get("sm") for gpu in gpus]
    plan = {"ok": False, "problems": [], "warnings": [], "versions": [], "default": None,
            "install": [], "packages": [], "adopted": {}, "managed": [], "action": "manage",
            "driver": driver or None, "driver_cuda": driver_cuda or None, "chosen_from_driver": False,
            "current": current or None}
    problems, warnings = plan["problems"], plan["warnings"]
    manage = str(manage).lower()
    if manage in ("yes", "on", "1"):
        manage = "true"
    elif manage in ("no", "off", "0"):
        manage = "false"
    if manage not in ("auto", "true", "false"):
        problems.append("cuda_toolkit_manage must be auto, true or false, not %r" % manage)
        return plan

    if driver:
        try:
            driver_key(driver, parse)
        except ValueError as err:
            problems.append(str(err))
            return plan
        if not driver_cuda:
            plan["driver_cuda"] = driver_cuda_version(driver, parse)

    if isinstance(versions, (str, bytes)):
        problems.append("cuda_toolkit_versions must be a list of versions such as ['12.8'], not the text %r "
                        "(on the command line: -e '{\"cuda_toolkit_versions\": [\"12.8\"]}')" % (versions,))
        return plan
    try:
        wanted = [parse_cuda_version(v) for v in (versions or [])]
    except ValueError as err:
        problems.append("cuda_toolkit_versions: %s" % err)
        return plan
    if not wanted:
        if not driver:
            problems.append("cuda_toolkit_versions is empty and no driver version is known to choose "
                            "from: run the nvidia_driver role first, or set cuda_toolkit_versions "
                            "(or cuda_toolkit_driver_version)")
            return plan
        chosen = default_toolkit(driver, caps, plan["driver_cuda"], parse=parse)
        if not chosen:
            problems.append("no toolkit of %s runs on driver %s and targets %s" % (
                ", ".join(cuda_string(v) for v in INSTALLABLE), driver,
                ", ".join(model_label(g) for g in gpus) or "the GPUs"))
            return plan
        wanted = [parse_cuda_version(chosen)]
        plan["chosen_from_driver"] = True
    wanted = sorted(set(wanted))
    plan["versions"] = [cuda_string(v) for v in wanted]

    for version in wanted:
        label = cuda_string(version)
        if version not in TOOLKITS:
            problems.append("CUDA %s is not in the toolkit table (known: %s)" % (
                label, ", ".join(cuda_string(v) for v in sorted(TOOLKITS))))
            continue
        for gpu in gpus:
            cap = gpu.get("compute_capability") or gpu.get("sm")
            if untargetable(version, [cap]):
                problems.append("CUDA %s cannot target %s: its nvcc has no %s (%s)" % (
                    label, model_label(gpu), compute_name(cap), targeting_toolkits(cap, version)))
        if driver:
            ok, how = driver_supports(version, driver, minor_compat, parse)
            if not ok:
                problems.append(how)
            elif how == "minor_compat":
                warnings.append("CUDA %s runs on driver %s only through minor-version compatibility "
                                "(needs %s for all its features)" % (label, driver, minimum_driver(version)))
        else:
            warnings.append("no driver version known: CUDA %s was not checked against the minimum "
                            "driver %s" % (label, minimum_driver(version)))

    if default:
        try:
            chosen_default = parse_cuda_version(default)
        except ValueError as err:
            problems.append("cuda_toolkit_default_version: %s" % err)
            return plan
        if chosen_default not in wanted:
            problems.append("cuda_toolkit_default_version %s is not one of cuda_toolkit_versions %s" % (
                cuda_string(chosen_default), ", ".join(plan["versions"])))
    else:
        chosen_default = wanted[-1]
    plan["default"] = cuda_string(chosen_default)
    if problems:
        return plan

    for version in wanted:
        label = cuda_string(version)
        if label in installed:
            plan["managed"].append(label)
        if manage == "true":
            if label not in installed:
                plan["install"].append(label)
                if label in found:
                    warnings.append("CUDA %s already answers at %s outside the package manager; "
                                    "cuda_toolkit_manage is true, so the package is installed as well" % (
                                        label, found[label]))
        elif label in found:
            plan["adopted"][label] = found[label]
        elif label in installed:
            pass  # the package is there; verify.yml asks its nvcc
        elif manage == "false":
            problems.append("CUDA %s is not installed and cuda_toolkit_manage is false (check only)" % label)
        else:
            plan["install"].append(label)
    plan["packages"] = [package_name(v) for v in plan["install"]]
    if manage == "false":
        plan["action"] = "check"
    elif manage == "auto" and not plan["install"] and current == plan["default"]:
        plan["action"] = "adopt"
    plan["ok"] = not problems
    return plan
