# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which torch release and CUDA channel fit the GPUs and the driver, from a catalog (planning.catalog:
the version table, or what a package index holds).

- a channel's predicted verdict per GPU (CHANNEL_SASS and the binary-compatibility rule);
- the default release: the newest line with a channel that has native kernels for every GPU and a
  CUDA the driver supports, and every companion asked for on the index (a newer torch without one is
  passed over, and a warning says so);
- a requested version ("2.9.1", "2.9" for the newest patch, "2.9.1+cu128");
- the channel of a version given without one, or a refusal naming builds that would work.

Results are plain data, errors {"error": message}. resolve.py re-exports these functions for its
callers. No Ansible import.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability, sm_string
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.kernel_images import kernel_image_verdict
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.labels import gpu_label
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.catalog import (
    TABLE, catalog_versions, channels, companions_of, line_of, newest_of_line, table_catalog)
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.matrix import (
    COMPANIONS, channel_cuda, channel_sass, parse_version)


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


def _native(channel, gpus):
    return all(item["verdict"] == "native" for item in channel_verdicts(channel, gpus))


def _driver_ok(channel, driver_cuda):
    cuda = channel_cuda(channel)
    return driver_cuda is None or (cuda is not None and cuda <= driver_cuda)


def _where(catalog):
    return "in the matrix" if catalog["source"] == TABLE else "on %s" % catalog["source"]


def _sms(gpus):
    return ", ".join(sorted(set(sm_string(*gpu_capability(g)) for g in gpus))) or "any GPU (none in the facts)"


def working_builds(catalog, gpus, driver, parse=versions.parse, limit=4):
    """["2.11.0+cu130", ...]: builds of the catalog, newest first, with native kernels for every GPU and a
    CUDA the driver supports."""
    found = []
    for version in reversed(catalog_versions(catalog, parse)):
        fits = [c for c in channels(catalog, version) if _native(c, gpus) and _driver_ok(c, driver)]
        found += ["%s+%s" % (version, c) for c in sorted(fits, key=channel_cuda, reverse=True)]
        if len(found) >= limit:
            break
    return found[:limit]


def pick_channel(catalog, version, gpus, driver_cuda, method="wheel", parse=versions.parse):
    """The channel of `version` a plan takes when none was given: the newest CUDA with native kernels for
    every GPU that the driver supports. {"channel", "reason"}, or PlanError naming builds that would work;
    method auto falls back to the newest channel the driver supports (the plan then builds from source)."""
    driver = parse_cuda(driver_cuda, parse)
    offered = [c for c in channels(catalog, version) if channel_cuda(c)]
    good = [c for c in offered if _native(c, gpus) and _driver_ok(c, driver)]
    if good:
        channel = sorted(good, key=channel_cuda)[-1]
        why = "channel %s: the newest build of torch %s %s with native kernels for %s" % (
            channel, version, _where(catalog), _sms(gpus))
        why += (" that driver CUDA %s supports" % cuda_text(driver) if driver
                else "; the driver's CUDA version is unknown, so it was not considered")
        return {"channel": channel, "reason": why}
    runnable = [c for c in offered if _driver_ok(c, driver)]
    if method == "auto" and runnable:
        return {"channel": sorted(runnable, key=channel_cuda)[-1], "reason": ""}
    raise PlanError("torch %s has no build %s with native kernels for %s that driver CUDA %s supports (its builds: "
                    "%s). Nothing was installed. Builds that would work: %s; or pytorch_install_method: source"
                    % (version, _where(catalog), ", ".join(gpu_label(g) for g in gpus) or "these GPUs",
                       cuda_text(driver) or "unknown",
                       ", ".join("%s (%s)" % (c, " ".join(channel_sass(c)) or "no known SASS")
                                 for c in channels(catalog, version)) or "none",
                       _would_work(catalog, gpus, driver, parse)))


def _would_work(catalog, gpus, driver, parse):
    """The builds a refusal offers instead; where none has the GPUs' kernels, the driver is not blamed."""
    builds = working_builds(catalog, gpus, driver, parse)
    if builds:
        return ", ".join(builds)
    if driver is not None and working_builds(catalog, gpus, None, parse):
        return "none that driver CUDA %s supports (update the NVIDIA driver for %s)" % (
            cuda_text(driver), ", ".join(working_builds(catalog, gpus, None, parse)))
    if catalog.get("index"):
        return ("none among the versions read %s (leave pytorch_version empty for the newest release with "
                "native kernels for these GPUs)" % _where(catalog))
    return "none %s" % _where(catalog)


def default_version(gpus=(), driver_cuda=None, companions=COMPANIONS, parse=versions.parse, catalog=None):
    """The newest torch release whose channel has native SASS for every GPU and whose CUDA the driver
    supports, skipping lines where a wanted companion's version is unknown and passing over those where the
    index has none of it (a torch without a companion is only planned when pytorch_version names it).

    Returns {"version", "channel", "reason", "warnings"} or raises PlanError: warnings names the newer torch releases
    passed over for a missing companion (one sentence, none when nothing was). Without a known driver CUDA
    version the driver is not held against any channel (the reason says so). catalog: planning.catalog (the
    version table when None).
    """
    catalog = catalog or table_catalog(parse)
    driver = parse_cuda(driver_cuda, parse)
    skipped, bare = [], []
    for line in sorted(set(line_of(v, parse) for v in catalog["torch"]), reverse=True):
        version = newest_of_line(catalog, line, parse)
        if not version:
            continue
        known = companions_of(catalog, version)
        missing = [name for name in companions if known.get(name) is None]
        if missing:
            skipped.append("%d.%d (no known %s)" % (line + (", ".join(missing),)))
            continue
        good = [c for c in channels(catalog, version) if channel_cuda(c) and _native(c, gpus) and _driver_ok(c, driver)]
        if not good:
            skipped.append("%d.%d (no channel fits)" % line)
            continue
        absent = [name for name in companions if known.get(name) == ""]
        if absent:
            bare.append((version, absent))
            continue
        channel = sorted(good, key=channel_cuda)[-1]
        reason = "torch %s+%s: the newest line %s whose channel has native kernels for %s" % (
            version, channel, _where(catalog), _sms(gpus))
        reason += (" and whose CUDA %s the driver (CUDA %s) supports" % (cuda_text(channel_cuda(channel)), cuda_text(driver))
                   if driver else "; the driver's CUDA version is unknown, so it was not considered")
        if skipped:
            reason += "; skipped %s" % "; ".join(skipped)
        return {"version": version, "channel": channel, "reason": reason, "warnings": [_passed_over(bare, version, catalog)]
                if bare else []}
    if bare:
        raise PlanError("no torch release %s has every companion of pytorch_companions (%s) with a build for %s that "
                        "driver CUDA %s supports: torch %s. Nothing was installed. Leave what is missing out of "
                        "pytorch_companions, or install the newest torch without it: %s"
                        % (_where(catalog), ", ".join(companions), ", ".join(gpu_label(g) for g in gpus) or "these GPUs",
                           cuda_text(driver) or "unknown", _lacking(bare), _pin_command(bare[0][0])))
    raise PlanError("no torch release %s has a channel with native kernels for %s that driver CUDA %s "
                    "supports: update the NVIDIA driver or set pytorch_version and pytorch_cuda_channel"
                    % (_where(catalog), ", ".join(gpu_label(g) for g in gpus) or "these GPUs", cuda_text(driver) or "unknown"))


def _lacking(bare):
    """"2.15.0 (no torchvision, torchaudio), 2.14.1 (no torchaudio)": torch releases and the companions they lack."""
    return ", ".join("%s (no %s)" % (version, ", ".join(names)) for version, names in bare)


def _pin_command(version):
    return 'make site ARGS="-e pytorch_version=%s"' % version


def _passed_over(bare, chosen, catalog):
    """The warning of a default choice that passed over newer torch releases for a companion the index lacks."""
    return ("passed over torch %s %s: planned torch %s, the newest with every companion of pytorch_companions. To "
            "install %s without them: %s" % (_lacking(bare), _where(catalog), chosen, bare[0][0], _pin_command(bare[0][0])))


def resolve_version(requested, parse=versions.parse, catalog=None):
    """"2.9.1" / "2.9" (newest patch) / "2.9.1+cu128" -> {"version", "channel" or None}; PlanError for a version not there."""
    catalog = catalog or table_catalog(parse)
    text = str(requested).strip()
    parsed = parse_version(text, parse)
    if parsed and text.count(".") == 1 and "+" not in text and newest_of_line(catalog, parsed["release"][:2], parse):
        return {"version": newest_of_line(catalog, parsed["release"][:2], parse), "channel": None}
    if not parsed or parsed["public"] not in catalog["torch"]:
        known = ", ".join(catalog_versions(catalog, parse))
        if catalog["source"] == TABLE:
            raise PlanError("torch %s is not in the version matrix; known versions: %s (set pytorch_version to one "
                            "of them, or extend plugins/module_utils/planning/matrix.py)" % (text, known))
        raise PlanError("torch %s is not %s for this Python and platform; it has %s" % (
            text, _where(catalog), ", ".join(catalog.get("listed") or ()) or known or "no torch wheels"))
    local = text.partition("+")[2]
    if local and not parsed["channel"]:
        raise PlanError("torch %s: the local label %s is not a wheel channel (cuXYZ); give the channel in "
                        "pytorch_cuda_channel" % (text, local))
    return {"version": parsed["public"], "channel": parsed["channel"]}
