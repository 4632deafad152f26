# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The health gates: a gpu_health reading judged against the verify role's options.

Gates: `pcie_gen` and `pcie_width` (the link below its maximum), `xid` (Xid errors since boot,
codes in `xid_ignore` excepted), `remapped_rows` (a row remap or a page retirement pending, a
remap failed), `ecc_volatile` and `ecc_aggregate` (uncorrected ECC errors since the driver loaded,
over the GPU's life), `pcie_replay` (more than `pcie_replay_max` PCIe replays, or a new AER nonfatal or
fatal error, while the benchmark ran: its device entry's `counters`), `nvlink` (a link NVML lists that
is down while other links of the GPU are up). Each gate's verdict per GPU is passed, failed, unknown
(could not be read: the reason is said), not_supported (never a failure) or off. A link slows down at idle, so the
generation is judged from a reading under load: the benchmark's telemetry (every figure records
the link while its test runs), else the reading itself when the GPU is at P0 and busy; a link at
its maximum now passes whatever the load. With `require_known`, unknown fails too.
with_health() joins the verdict with a verification result. Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.labels import slot_label

GATES = ("pcie_gen", "pcie_width", "xid", "remapped_rows", "ecc_volatile", "ecc_aggregate", "pcie_replay", "nvlink")
# pcie_replay_max: a healthy link replays no packet at all; DCGM's health watch allows 8 replays a minute
# (DCGM_LIMIT_MAX_PCIREPLAY_RATE, the driver team's figure), and a GPU's benchmark run lasts about a minute
# or less in the quick and standard profiles, so more than 8 in one run is above that rate.
DEFAULTS = {"pcie_gen": True, "pcie_width": True, "xid": True, "xid_ignore": [13, 31, 43, 45],
            "remapped_rows": True, "ecc_volatile": True, "ecc_aggregate": False, "pcie_replay": True,
            "pcie_replay_max": 8, "nvlink": True, "require_known": False}
BUSY_UTILIZATION = 50
LINK_ADVICE = "reseat the card, check its slot or riser and the firmware's PCIe settings"


def xid_numbers(values: Iterable[object]) -> list[object]:
    """Xid codes given as text ("13", from -e or a template) read as numbers; anything else is left as given."""
    return [int(x) if isinstance(x, str) and x.strip().isdigit() else x for x in values]


def replay_bound(value: object) -> object:
    """pcie_replay_max given as text ("16", from -e or a template) read as a number; anything else as given."""
    return int(value) if isinstance(value, str) and value.strip().isdigit() else value


def options_errors(options: Mapping[str, Any]) -> list[str]:
    """Messages for options that are not what the gates read."""
    errors = ["verify_health_%s must be true or false (got %r)" % (key, options[key])
              for key in GATES + ("require_known",) if key in options and not isinstance(options[key], bool)]
    bound = options.get("pcie_replay_max", 0)
    if isinstance(bound, bool) or not isinstance(bound, int) or bound < 0:
        errors.append("verify_health_pcie_replay_max must be a whole number of replays, 0 or more (got %r)" % (bound,))
    ignore = options.get("xid_ignore", [])
    if not isinstance(ignore, list) or [x for x in ignore if isinstance(x, bool) or not isinstance(x, int)]:
        errors.append("verify_health_xid_ignore must be a list of Xid numbers (got %r)" % (ignore,))
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        errors.append("unknown health option(s): %s" % ", ".join(unknown))
    return errors


def _same_gpu(device, gpu):
    if device.get("uuid") and gpu.get("uuid"):
        return device.get("uuid") == gpu.get("uuid")
    return device.get("index") is not None and device.get("index") == gpu.get("index")


def load_counters(benchmark: Mapping[str, Any] | None,
                  gpu: Mapping[str, Any]) -> tuple[dict[str, Any] | None, float | None]:
    """(counters, seconds) of the benchmark's device entry for this GPU (matched by UUID, else index), or (None,
    None): the link counters before and after its tests (hardware/link_counters.py) and how long it ran."""
    for device in (benchmark or {}).get("devices") or []:
        if _same_gpu(device, gpu) and device.get("counters"):
            return device["counters"], device.get("seconds")
    return None, None


def load_link(benchmark: Mapping[str, Any] | None, gpu: Mapping[str, Any]) -> dict[str, Any]:
    """{gen, width, test}: the highest link generation and width the benchmark's telemetry saw on this GPU
    (matched by UUID, else index), or Nones."""
    best = {"gen": None, "width": None, "test": None}
    for device in (benchmark or {}).get("devices") or []:
        if not _same_gpu(device, gpu):
            continue
        for test, fig in sorted((device.get("figures") or {}).items()):
            telemetry = fig.get("telemetry") or {}
            gen, width = (telemetry.get("pcie_gen") or {}).get("max"), (telemetry.get("pcie_width") or {}).get("max")
            if gen is not None and (best["gen"] is None or gen > best["gen"]):
                best["gen"], best["test"] = gen, test
            if width is not None and (best["width"] is None or width > best["width"]):
                best["width"] = width
    return best


def _verdict(status, text):
    return {"status": status, "text": text}


def _unreadable(gpu, fields, what):
    """not_supported / unknown verdict when one of `fields` was not read, else None."""
    for field in fields:
        if field in (gpu.get("unsupported") or []):
            return _verdict("not_supported", "%s not supported" % what)
        if field in (gpu.get("errors") or {}):
            return _verdict("unknown", "%s unknown (%s)" % (what, gpu["errors"][field]))
    return None


def pcie_gen(gpu: Mapping[str, Any], load: Mapping[str, Any], stored: str | None) -> dict[str, Any]:
    maximum, current = gpu.get("pcie_gen_max"), gpu.get("pcie_gen_current")
    missing = _unreadable(gpu, ("pcie_gen_max", "pcie_gen_current"), "PCIe link generation")
    if missing or maximum is None or current is None:
        return missing or _verdict("unknown", "PCIe link generation unknown")
    if current >= maximum:
        return _verdict("passed", "PCIe gen %s of %s" % (current, maximum))
    if load["gen"] is not None:
        where = "under load (%s%s)" % (load["test"], ", result of %s" % stored if stored else "")
        if load["gen"] >= maximum:
            return _verdict("passed", "PCIe gen %s of %s %s" % (load["gen"], maximum, where))
        return _verdict("failed", "PCIe link generation %s %s, expected %s (the link's maximum): %s"
                        % (load["gen"], where, maximum, LINK_ADVICE))
    if gpu.get("pstate") == 0 and (gpu.get("utilization_gpu") or 0) >= BUSY_UTILIZATION:
        return _verdict("failed", "PCIe link generation %s while busy (P0, %s%% utilisation), expected %s (the link's "
                        "maximum): %s" % (current, gpu.get("utilization_gpu"), maximum, LINK_ADVICE))
    return _verdict("unknown", "PCIe link generation %s of %s at idle (P%s; a link slows down at idle) and no reading "
                    "under load (the benchmark reads the link when nvidia-ml-py imports in the stack)"
                    % (current, maximum, gpu.get("pstate") if gpu.get("pstate") is not None else "?"))


def pcie_width(gpu: Mapping[str, Any], load: Mapping[str, Any]) -> dict[str, Any]:
    maximum, current = gpu.get("pcie_width_max"), gpu.get("pcie_width_current")
    missing = _unreadable(gpu, ("pcie_width_max", "pcie_width_current"), "PCIe link width")
    if missing or maximum is None or current is None:
        return missing or _verdict("unknown", "PCIe link width unknown")
    width = max(current, load["width"] or 0)
    if width >= maximum:
        return _verdict("passed", "PCIe x%s of x%s" % (width, maximum))
    return _verdict("failed", "PCIe link width x%s, expected x%s (the link's maximum): %s" % (width, maximum, LINK_ADVICE))


def remapped_rows(gpu: Mapping[str, Any]) -> dict[str, Any]:
    rows, pages = gpu.get("remapped_rows"), gpu.get("retired_pages")
    problems, seen = [], []
    if rows is not None:
        seen.append("remapped rows %s corrected, %s uncorrected" % (rows["corrected"], rows["uncorrected"]))
        if rows["failure"]:
            problems.append("row remapping failed (%s uncorrected rows remapped), expected no failure: the GPU has no "
                            "spare row left for the bank, which needs a replacement (RMA)" % rows["uncorrected"])
        if rows["pending"]:
            problems.append("a row remap is pending (%s corrected, %s uncorrected rows remapped), expected none: "
                            "reset the GPU (nvidia-smi -r) or reboot to apply it" % (rows["corrected"], rows["uncorrected"]))
    if pages is not None:
        seen.append("retired pages %s sbe, %s dbe" % (pages.get("sbe"), pages.get("dbe")))
        if pages["pending"]:
            problems.append("a page retirement is pending (%s pages retired for single-bit, %s for double-bit errors), "
                            "expected none: reset the GPU or reboot to apply it" % (pages.get("sbe"), pages.get("dbe")))
    if problems:
        return _verdict("failed", "; ".join(problems))
    if seen:
        return _verdict("passed", ", ".join(seen))
    missing = _unreadable(gpu, ("remapped_rows", "retired_pages_pending"), "remapped rows and retired pages")
    return missing or _verdict("unknown", "remapped rows and retired pages unknown")


def ecc(gpu: Mapping[str, Any], field: str, what: str) -> dict[str, Any]:
    value = gpu.get(field)
    if value is None:
        return _unreadable(gpu, (field,), "uncorrected ECC errors") or _verdict("unknown", "uncorrected ECC unknown")
    if value > 0:
        return _verdict("failed", "%s uncorrected ECC error(s) %s, expected 0" % (value, what))
    return _verdict("passed", "0 uncorrected ECC errors %s" % what)


def _xid_text(records, ignore):
    counts = {}
    for record in records:
        counts.setdefault(record["xid"], []).append(record)
    parts = []
    for xid in sorted(counts):
        last = counts[xid][-1]
        parts.append("Xid %s (%d time%s, last: %s)" % (xid, len(counts[xid]), "" if len(counts[xid]) == 1 else "s",
                                                       last["text"] or "no text"))
    ignored = " (ignored: Xid %s)" % ", ".join(str(x) for x in ignore) if ignore else ""
    return "%s since boot, expected none%s" % (", ".join(parts), ignored)


def xid(gpu: Mapping[str, Any], log: Mapping[str, Any], ignore: Collection[int]) -> dict[str, Any]:
    if not log.get("source"):
        return _verdict("unknown", "Xid errors unknown: the kernel log could not be read (%s)" % log.get("error"))
    bus = (gpu.get("pci_bus_id") or "").rsplit(".", 1)[0]
    records = [r for r in log.get("xids") or [] if r["pci"] == bus and r["xid"] not in ignore]
    if records:
        return _verdict("failed", _xid_text(records, ignore) + ": see the driver's Xid catalogue for each code")
    partial = "" if log.get("complete") else " (the kernel's ring buffer no longer reaches back to boot)"
    return _verdict("passed", "no Xid since boot in the %s%s" % (log["source"], partial))


def _aer_text(aer):
    if aer is None:
        return "AER counters not in sysfs"
    return "AER " + ", ".join("%s +%s" % (kind, "?" if aer[kind]["delta"] is None else aer[kind]["delta"])
                              for kind in ("correctable", "nonfatal", "fatal"))


def pcie_replay(gpu: Mapping[str, Any], counters: Mapping[str, Any] | None, seconds: float | None, bound: int,
                stored: str | None) -> dict[str, Any]:
    """The PCIe replays and AER errors of the benchmark's run on this GPU; without its counters, the replays
    since the driver loaded (none: passed)."""
    if counters is None:
        total = gpu.get("pcie_replay")
        if total is None:
            return _unreadable(gpu, ("pcie_replay",), "PCIe replay counter") or _verdict(
                "unknown", "PCIe replay counter unknown")
        if total == 0:
            return _verdict("passed", "no PCIe replay since the driver loaded")
        return _verdict("unknown", "%s PCIe replay(s) since the driver loaded, and no benchmark reading to tell "
                        "whether they came under load (the benchmark reads the counters before and after its tests "
                        "when nvidia-ml-py imports in the stack)" % total)
    span, of = "%.0f s" % seconds if seconds else "its run", ", result of %s" % stored if stored else ""
    where = "during the benchmark (%s%s)" % (span, of)
    replay, aer = counters.get("pcie_replay") or {}, counters.get("aer")
    problems = []
    if replay.get("delta") is not None and replay["delta"] > bound:
        rate = ", %.0f a minute" % (replay["delta"] * 60.0 / seconds) if seconds else ""
        problems.append("PCIe replay counter rose by %s during the benchmark (%s%s%s), expected at most %s: the link "
                        "resends packets it lost; %s" % (replay["delta"], span, rate, of, bound, LINK_ADVICE))
    for kind in ("nonfatal", "fatal"):
        delta = ((aer or {}).get(kind) or {}).get("delta")
        if delta:
            problems.append("%s new AER %s error(s) %s (bus %s), expected none: see the kernel log's AER lines; %s"
                            % (delta, kind, where, counters.get("bus_id"), LINK_ADVICE))
    if problems:
        return _verdict("failed", "; ".join(problems))
    if replay.get("delta") is None:
        return _verdict("unknown", "PCIe replay counter unknown %s; %s" % (where, _aer_text(aer)))
    return _verdict("passed", "PCIe replays +%s %s; %s" % (replay["delta"], where, _aer_text(aer)))


def nvlink(gpu: Mapping[str, Any]) -> dict[str, Any]:
    """A link NVML lists but reports down while other links of the GPU are up fails, naming the links."""
    links = gpu.get("nvlink")
    if not links:
        return _unreadable(gpu, ("nvlink",), "NVLink") or _verdict("unknown", "NVLink links unknown")
    up = [link for link in links if link.get("state") == 1]
    down = [link["link"] for link in links if link.get("state") != 1]
    if not up:
        return _verdict("passed", "no NVLink link active (%d listed: no bridge or switch connected)" % len(links))
    if down:
        return _verdict("failed", "NVLink %s %s down: %d of %d links active (nvidia-smi nvlink --status -i %s shows "
                        "each link; a link down on a bridge or baseboard needs the card reseated or the board "
                        "serviced)" % (", ".join(str(link) for link in down), "is" if len(down) == 1 else "are",
                                       len(up), len(links), gpu.get("index")))
    versions = sorted(set(link.get("version") or "?" for link in up))
    return _verdict("passed", "%d of %d NVLink links active (NVLink %s)" % (len(up), len(links), ", ".join(versions)))


def _gpu_gates(gpu, options, log, benchmark, stored):
    load = load_link(benchmark, gpu)
    counters, seconds = load_counters(benchmark, gpu)
    judges = {
        "pcie_gen": lambda: pcie_gen(gpu, load, stored),
        "pcie_width": lambda: pcie_width(gpu, load),
        "xid": lambda: xid(gpu, log, options["xid_ignore"]),
        "remapped_rows": lambda: remapped_rows(gpu),
        "ecc_volatile": lambda: ecc(gpu, "ecc_uncorrected_volatile", "since the driver loaded"),
        "ecc_aggregate": lambda: ecc(gpu, "ecc_uncorrected_aggregate", "over the GPU's life"),
        "pcie_replay": lambda: pcie_replay(gpu, counters, seconds, options["pcie_replay_max"], stored),
        "nvlink": lambda: nvlink(gpu),
    }
    return dict((gate, judges[gate]() if options[gate] else _verdict("off", "not checked")) for gate in GATES)


def _orphans(log, gpus, ignore):
    """Xid records of a bus no listed GPU is on (a GPU that fell off the bus is no longer listed), by bus."""
    listed = set((gpu.get("pci_bus_id") or "").rsplit(".", 1)[0] for gpu in gpus)
    found = {}
    for record in log.get("xids") or []:
        if record["pci"] not in listed and record["xid"] not in ignore:
            found.setdefault(record["pci"], []).append(record)
    return found


def evaluate(reading: Mapping[str, Any], options: Mapping[str, Any] | None = None, host: str = "",
             benchmark: Mapping[str, Any] | None = None, stored: str | None = None,
             device: str = "cuda") -> dict[str, Any]:
    """{passed, failures, unknown, not_supported, notes, gpus, kernel_log, summary}: the health gates of a
    gpu_health reading. `benchmark` is the torch_benchmark document whose telemetry holds the link under load,
    `stored` the date of the result it comes from when that result is not this run's."""
    options = dict(DEFAULTS, **(options or {}))
    options["pcie_replay_max"] = replay_bound(options["pcie_replay_max"])
    errors = options_errors(options)
    if errors:
        raise ValueError("; ".join(errors))
    reading = reading or {}
    log = reading.get("kernel_log") or {"source": None, "error": "not read"}
    ignore = list(options["xid_ignore"])
    failures, unknown, not_supported, notes, gpus = [], [], [], [], []
    prefix = "%s: " % host if host else ""
    for gpu in reading.get("gpus") or []:
        gates = _gpu_gates(gpu, options, log, benchmark, stored)
        gpus.append({"index": gpu.get("index"), "name": gpu.get("name"), "uuid": gpu.get("uuid"),
                     "pci_bus_id": gpu.get("pci_bus_id"), "gates": gates})
        for gate in GATES:
            verdict = gates[gate]
            line = "%s%s: %s" % (prefix, slot_label(gpu), verdict["text"])
            if verdict["status"] == "failed":
                failures.append(line)
            elif verdict["status"] == "unknown" and gate != "xid":
                unknown.append(line)
            elif verdict["status"] == "not_supported":
                not_supported.append("%s %s" % (slot_label(gpu), verdict["text"]))
    if options["xid"]:
        for bus, records in sorted(_orphans(log, reading.get("gpus") or [], ignore).items()):
            failures.append("%sGPU at %s (not listed by NVML): %s" % (prefix, bus, _xid_text(records, ignore)))
        if not log.get("source"):
            unknown.append("%sXid errors unknown: the kernel log could not be read (%s)" % (prefix, log.get("error")))
    if not reading.get("gpus"):
        why = "no NVIDIA GPU read (%s)" % (reading.get("nvml_error") or "NVML lists none")
        (unknown if device == "cuda" else notes).append(prefix + why)
    if options["require_known"]:
        failures += ["%s (verify_health_require_known)" % text for text in unknown]
    passed = not failures
    return {"passed": passed, "failures": failures, "unknown": unknown, "not_supported": not_supported,
            "notes": notes, "gpus": gpus, "options": options,
            "kernel_log": {"source": log.get("source"), "complete": log.get("complete"), "error": log.get("error"),
                           "xids": len(log.get("xids") or [])},
            "summary": summary(passed, failures, unknown, gpus)}


def summary(passed: bool, failures: Sequence[str], unknown: Sequence[str], gpus: Sequence[Mapping[str, Any]]) -> str:
    """"health: passed on 2 GPUs; unknown: ..." in one line."""
    if failures:
        text = "health: %d gate failure(s): %s" % (len(failures), "; ".join(failures))
    else:
        text = "health: passed on %d GPU%s" % (len(gpus), "" if len(gpus) == 1 else "s")
    return text + ("; unknown: %s" % "; ".join(unknown) if unknown else "")


def with_health(document: Mapping[str, Any], health: Mapping[str, Any]) -> dict[str, Any]:
    """The verification result with the health verdict joined: `health` added, `passed` false and the message
    naming the failures when a health gate failed, the health line added to `summary`. An empty `health`
    (the gates are off) leaves the document as it is."""
    if not health:
        return document
    joined = dict(document, health=health)
    joined["summary"] = [line for line in document.get("summary") or [] if not str(line).startswith("health: ")] + [
        health["summary"]]
    if not health["passed"]:
        text = "%d health gate(s) failed: %s" % (len(health["failures"]), "; ".join(health["failures"]))
        joined["passed"] = False
        joined["message"] = text if document.get("passed") else "%s; %s" % (document.get("message"), text)
    return joined
