# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the verify role runs and judges: tests, sizes, gates, product line, and what it refuses.

The request is the role's variables (device, profile, tests, sizes, sustained_seconds, gates, gpu_gates,
forbid_clock_reasons) and the GPUs' names. Each GPU is judged as itself: without user gates, every GPU
takes its own product line's default gates (torch_benchmark's `gpu_gates`, one entry per line, matched
on each device's own line); the user's `gpu_gates` (verify_gpu_gates: model, index or line, and gates)
come first and override both. A gate the user gives must name a test the
profile (or `tests`) runs on the device: a gate that can never fire is refused, naming the
profiles that run its test. The default gates of a product line are applied only to the tests
that run (a quick profile has no sustained test; that is no user error). The product line is
the GPU catalogue's (hardware.catalogue.product_line), the one classifier of the collection:
gpu_facts and torch_benchmark's per-device results give the same answer. `settings()` is what a stored
result depends on besides the stack and the code (stack_fingerprint's `settings`): the default
gate table lives here, in the hashed code, so the effective gates follow from settings, code
and GPUs. request_refusals() refuses a request that cannot run at all (each message names its
variable); the gates are judged only once the request itself can run. Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import gates as benchmark_gates
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import (
    PROFILE_TESTS, TESTS, select_tests, skip_reason)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import product_line as gpu_line

# Default gates per product line: a healthy card passes them at its power limit (power capping is
# normal); a card slowed by heat or a hardware slowdown fails the sustained test.
DEFAULT_GATES = {
    "datacenter": {"gemm_bf16": {"min_fraction_of_peak": 0.6}, "memcpy": {"min_fraction_of_peak": 0.6},
                   "sustained": {"min_fraction_of_peak": 0.5, "min_sustained_ratio": 0.7}},
    "workstation": {"gemm_bf16": {"min_fraction_of_peak": 0.5}, "memcpy": {"min_fraction_of_peak": 0.6},
                    "sustained": {"min_fraction_of_peak": 0.4, "min_sustained_ratio": 0.7}},
    "geforce": {"gemm_bf16": {"min_fraction_of_peak": 0.5}, "memcpy": {"min_fraction_of_peak": 0.6},
                "sustained": {"min_fraction_of_peak": 0.4, "min_sustained_ratio": 0.6}},
    "cpu": {},
}
PROFILES = ("quick", "standard", "full")
MIN_SUSTAINED_SECONDS = 6
_DEFAULTS = {"device": "cuda", "profile": "quick", "tests": [], "sizes": {}, "sustained_seconds": 25, "gates": {},
             "gpu_gates": [], "forbid_clock_reasons": [], "gpu_name": "", "gpu_names": [], "nvls": False}
LINES = ("datacenter", "workstation", "geforce")


def _request(request):
    merged = dict(_DEFAULTS)
    merged.update(dict((key, value) for key, value in (request or {}).items() if value is not None))
    return merged


def as_int(value: object) -> int:
    """An integer as Jinja's `int` filter reads it: 0 for what does not convert."""
    try:
        return int(value)
    except (TypeError, ValueError):
        try:
            return int(float(value))
        except (TypeError, ValueError):
            return 0


def _absolute(value):
    return isinstance(value, str) and value.startswith("/")


def request_refusals(request: Mapping[str, Any] | None) -> list[str]:
    """Why a request cannot run at all, one message per variable (only the keys the request holds are judged):
    the profile and device, the interpreter and results directory as absolute paths, the sustained test's
    length and gates that are not a dict."""
    request = request or {}
    refusals = []
    if "profile" in request and request["profile"] not in PROFILES:
        refusals.append("verify_profile must be one of %s (got %s)" % (", ".join(PROFILES), request["profile"]))
    if "device" in request and request["device"] not in ("cuda", "cpu"):
        refusals.append("verify_device must be cuda or cpu (got %s)" % request["device"])
    for key, name in (("python", "verify_python"), ("results_dir", "verify_results_dir")):
        if key in request and not _absolute(request[key]):
            refusals.append("%s must be an absolute path (got %s)" % (name, request[key]))
    if "sustained_seconds" in request and as_int(request["sustained_seconds"]) < MIN_SUSTAINED_SECONDS:
        refusals.append("verify_sustained_seconds must be at least %d: the last 5 seconds are compared with the first "
                        "(got %s)" % (MIN_SUSTAINED_SECONDS, request["sustained_seconds"]))
    if "gates" in request and not isinstance(request["gates"], dict):
        refusals.append("verify_gates must be a dict")
    if "gpu_gates" in request and request["gpu_gates"] is not None and not isinstance(request["gpu_gates"], list):
        refusals.append("verify_gpu_gates must be a list of {model | index | line, gates}")
    return refusals


def output_dirs(request: Mapping[str, Any]) -> dict[str, Any]:
    """Where results go, variable name -> path, checked before any work (an empty path is not checked)."""
    return {"verify_results_dir": request.get("results_dir", ""),
            "verify_prometheus_textfile_dir": request.get("textfile_dir", "")}


def input_paths(request: Mapping[str, Any]) -> dict[str, Any]:
    """The path inputs stack_fingerprint checks before anything is read (relative, of the wrong kind), variable name
    -> path: the interpreter and the toolkit (an empty path is not checked)."""
    return {"verify_python": request.get("python", ""), "verify_cuda_home": request.get("cuda_home", "")}


def product_line(device: str, gpu_name: str) -> str:
    """"cpu" in CPU mode, else the catalogue's product line of the GPU's name."""
    return "cpu" if device == "cpu" else gpu_line(gpu_name)


def tests_run(profile: str, tests: Sequence[str] | None) -> list[str]:
    """The tests a run executes: `tests` when given, else the profile's (unknown names are left out)."""
    return select_tests(profile, tests)[0] if tests else list(PROFILE_TESTS.get(profile, []))


def _runs_nowhere_reason(name, profile, tests, device):
    """Why a gate on test `name` can never fire in this request, or None."""
    profiles = [candidate for candidate in PROFILE_TESTS if name in PROFILE_TESTS[candidate]]
    where = "profiles that run it: %s" % ", ".join(profiles) if profiles else "no profile runs it"
    if tests and name not in tests:
        return "verify_tests (%s) does not list %s (%s; or add it to verify_tests)" % (", ".join(tests), name, where)
    if not tests and name not in PROFILE_TESTS.get(profile, []):
        return "profile %s does not run %s (%s; or list it in verify_tests)" % (profile, name, where)
    reason = skip_reason(name, device)
    if reason:
        return "device %s cannot run %s (%s)" % (device, name, reason)
    return None


def gate_errors(gates: Mapping[str, Any], device: str = "cuda", profile: str | None = None,
                tests: Sequence[str] | None = None) -> list[str]:
    """What is wrong with user-given gates: names, bounds, values (benchmark.gates.validate) and, when
    `profile` is given, gates on a test the profile (or `tests`) does not run on the device."""
    if not isinstance(gates, dict):
        return ["gates must be a dict: test name -> {bound name: number}"]
    never, errors = {}, []
    if profile is not None:
        for name in sorted(gates):
            reason = _runs_nowhere_reason(name, profile, list(tests or []), device) if name in TESTS else None
            if reason:
                never[name] = reason
                errors.append("gate on %s can never fire: %s" % (name, reason))
    checked = dict((name, bounds) for name, bounds in gates.items() if name not in never)
    return errors + benchmark_gates.validate(checked, {}, device)


def default_gates(line: str, names: Sequence[str], device: str, forbid_clock_reasons: Sequence[str]) -> dict[str, Any]:
    """The product line's gates on the tests that run, the forbidden clock reasons added to `sustained`."""
    gates = dict((name, dict(bounds)) for name, bounds in DEFAULT_GATES[line].items())
    if device == "cuda" and forbid_clock_reasons:
        gates.setdefault("sustained", {})[benchmark_gates.FORBID] = list(forbid_clock_reasons)
    return dict((name, bounds) for name, bounds in gates.items()
                if name in names and not skip_reason(name, device))


def gpu_gate_errors(gpu_gates: Any, device: str = "cuda", profile: str | None = None,
                    tests: Sequence[str] | None = None) -> list[str]:
    """What is wrong with the user's per-GPU gates: their shape (benchmark.gates.validate_gpu_gates) and, per
    entry, what gate_errors() finds in its gates."""
    if device == "cpu" and gpu_gates:
        return ["gpu_gates apply to device cuda only"]
    errors = [error for position, entry in enumerate(gpu_gates or [])
              for error in benchmark_gates.entry_errors(position, entry)]
    for position, entry in enumerate(gpu_gates or []):
        if isinstance(entry, dict) and entry.get("gates") is not None:
            errors.extend("gpu_gates[%d]: %s" % (position, error)
                          for error in gate_errors(entry["gates"], device, profile, tests))
    return errors


def line_gates(names: Sequence[str], device: str, forbid_clock_reasons: Sequence[str]) -> list[dict[str, Any]]:
    """[{line, gates}]: each product line's default gates on the tests that run, for torch_benchmark's
    gpu_gates (every GPU matched on its own line)."""
    return [{"line": line, "gates": default_gates(line, names, device, forbid_clock_reasons)} for line in LINES]


def gpu_names(request: Mapping[str, Any]) -> list[str]:
    """The GPUs' names: `gpu_names`, else the one `gpu_name`."""
    names = [name for name in request.get("gpu_names") or [] if name]
    return names or ([request["gpu_name"]] if request.get("gpu_name") else [])


def sizes(names: Sequence[str], request: Mapping[str, Any]) -> dict[str, Any]:
    """verify_sizes, with the sustained test's length when it runs."""
    if not isinstance(request["sizes"], dict):
        return request["sizes"]  # torch_benchmark refuses it, naming the option
    result = dict((name, dict(size) if isinstance(size, dict) else size) for name, size in request["sizes"].items())
    if "sustained" in names:
        sustained = result.get("sustained") if isinstance(result.get("sustained"), dict) else {}
        result["sustained"] = dict(sustained, seconds=as_int(request["sustained_seconds"]))
    return result


def settings(request: Mapping[str, Any]) -> dict[str, Any]:
    """What a stored result depends on besides stack, GPUs and code: device, profile, tests run, sizes, the
    user's gates and per-GPU gates (empty: the product lines' defaults, which are code), the forbidden clock
    reasons, and whether NVLink multicast was on (only when it was: results stored before it stand)."""
    request = _request(request)
    names = tests_run(request["profile"], request["tests"])
    found = {"device": request["device"], "profile": request["profile"], "tests": names,
             "sizes": sizes(names, request), "gates": request["gates"], "gpu_gates": request["gpu_gates"] or [],
             "forbid_clock_reasons": sorted(request["forbid_clock_reasons"]) if not request["gates"] else []}
    if request["nvls"] is True:
        found["nvls"] = True
    return found


def plan(request: Mapping[str, Any]) -> dict[str, Any]:
    """{"product_line", "product_lines", "tests", "sizes", "gates" (common), "gpu_gates" (per GPU), "settings",
    "errors", "refusals", "output_dirs", "input_paths"} of a verify request.

    gates: the user's verify_gates, applied to every GPU no gpu_gates entry names, and to the figures between
    GPUs; empty without them. gpu_gates: the user's verify_gpu_gates, then (without user gates) one entry per
    product line with that line's defaults. product_lines: each GPU's line; product_line: the first's.
    errors: the user's gates that are wrong or can never fire ("verify_gates: ...", "verify_gpu_gates: ..."),
    and default gates torch_benchmark would refuse ("verify_forbid_clock_reasons: ..."); empty when the
    request can run. refusals: request_refusals() when there are any (nothing else is planned then: empty
    tests, sizes, gates and settings), else the errors.
    """
    refused = request_refusals(request)
    if refused:
        return {"product_line": "", "product_lines": [], "tests": [], "sizes": {}, "gates": {}, "gpu_gates": [],
                "settings": {}, "errors": [], "refusals": refused, "output_dirs": output_dirs(request or {}),
                "input_paths": input_paths(request or {})}
    request = _request(request)
    device, profile, user, user_gpu = request["device"], request["profile"], request["gates"], request["gpu_gates"]
    names = tests_run(profile, request["tests"])
    lines = [product_line(device, name) for name in gpu_names(request)] or [product_line(device, "")]
    errors = ["verify_gpu_gates: %s" % error
              for error in gpu_gate_errors(user_gpu, device, profile, request["tests"])] if user_gpu else []
    gpu_gates = list(user_gpu or [])
    if user:
        errors = ["verify_gates: %s" % error for error in gate_errors(user, device, profile, request["tests"])] + errors
        gates = dict(user)
    elif device == "cuda":
        gates, defaults = {}, line_gates(names, device, request["forbid_clock_reasons"])
        gpu_gates += defaults
        found = [error for entry in defaults for error in benchmark_gates.validate(entry["gates"], {}, device)]
        errors += ["verify_forbid_clock_reasons: %s" % error for error in sorted(set(found), key=found.index)]
    else:
        gates = {}
    return {"product_line": lines[0], "product_lines": lines, "tests": names, "sizes": sizes(names, request),
            "gates": gates, "gpu_gates": gpu_gates, "settings": settings(request), "errors": errors,
            "refusals": errors, "output_dirs": output_dirs(request), "input_paths": input_paths(request)}
