# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a healthy, a busy and a multi-GPU host look like, read on a GPU machine (no Ansible needed).

Prints short tables, and writes everything as JSON to $OUT/lab_readings.json:
- suite: the quick profile through torch_benchmark's own code (module_utils run()), every figure with its
  fraction of peak: what a healthy GPU of this model reaches (the expected-figure table's source);
- refs: independent measurements of the same work in one child: SDPA per backend and the backend torch
  picks by default (torch._fused_sdp_choice), softmax and LayerNorm at two shapes, a plain copy;
- nvml: per GPU the enforced power limit, PCIe replay counter, AER counters in sysfs, NVLink links
  (state, version, remote bus id), P2P status between pairs, compute processes;
- busy: a bf16 GEMM loop started in another process on GPU 0, the compute processes NVML lists then
  (pid, memory; user and command from /proc), and the quick GEMM/copy figures measured beside it;
- power: a 10 s sustained GEMM's power reached against the enforced limit.

    python3 benchmarks/lab_readings.py [--python /opt/torch/.venv/bin/python3] [--skip busy power]
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time

from collection_path import import_collection

REFS = r'''
import json, math, sys, time
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
F = torch.nn.functional
out = {"torch": torch.__version__, "gpus": []}

def timed(call, reps=20):
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(); call(); end.record(); end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return sorted(times)[len(times) // 2]

for index in range(torch.cuda.device_count()):
    torch.cuda.set_device(index)
    row = {"index": index, "name": torch.cuda.get_device_name(index)}
    q, k, v = (torch.randn(8, 16, 2048, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    flops = 4.0 * 8 * 16 * 2048 ** 2 * 128
    row["sdpa_default_backend"] = SDPBackend(torch._fused_sdp_choice(q, k, v)).name
    row["sdpa_default"] = flops / timed(lambda: F.scaled_dot_product_attention(q, k, v)) / 1e12
    for name in ("FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION"):
        try:
            with sdpa_kernel(getattr(SDPBackend, name)):
                row["sdpa_" + name.lower()] = flops / timed(lambda: F.scaled_dot_product_attention(q, k, v)) / 1e12
        except Exception as exc:
            row["sdpa_" + name.lower()] = str(exc)[:80]
    for rows, cols in ((16384, 8192), (8192, 32768), (32768, 8192)):
        x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
        nbytes = 2.0 * 2 * rows * cols
        row["softmax_%dx%d" % (rows, cols)] = nbytes / timed(lambda: torch.softmax(x, dim=-1)) / 1e9
        w, b = torch.randn(cols, device="cuda", dtype=torch.bfloat16), torch.randn(cols, device="cuda", dtype=torch.bfloat16)
        row["layernorm_%dx%d" % (rows, cols)] = nbytes / timed(lambda: F.layer_norm(x, (cols,), w, b)) / 1e9
        y = torch.empty_like(x)
        row["copy_%dx%d" % (rows, cols)] = nbytes / timed(lambda: y.copy_(x)) / 1e9
        del x, y
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    row["gemm_bf16_8192"] = 2.0 * 8192 ** 3 / timed(lambda: a @ a) / 1e12
    out["gpus"].append(row)
    torch.cuda.empty_cache()
print(json.dumps(out))
'''

LOOP = r'''
import time, torch
a = torch.randn(8192, 8192, device="cuda:0", dtype=torch.bfloat16)
t = time.time()
while time.time() - t < %d:
    a @ a
torch.cuda.synchronize()
'''


def print_table(header, rows):
    widths = [max(len(str(row[i])) for row in [header] + rows) for i in range(len(header))]
    for row in [header, ["-" * width for width in widths]] + rows:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())


def _try(func, *args):
    try:
        return func(*args)
    except Exception as exc:  # NVMLError, an old nvidia-ml-py
        return "%s" % type(exc).__name__


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _aer(bus):
    found = {}
    base = "/sys/bus/pci/devices/%s" % bus.lower()
    for name in ("aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal"):
        try:
            with open(os.path.join(base, name)) as handle:
                found[name] = dict(line.split() for line in handle if line.strip())
        except OSError as exc:
            found[name] = exc.strerror
    return found


def nvml_readings():
    import pynvml as n
    n.nvmlInit()
    gpus = []
    count = n.nvmlDeviceGetCount()
    handles = [n.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
    for index, h in enumerate(handles):
        bus = _text(n.nvmlDeviceGetPciInfo(h).busId)
        links = []
        for link in range(getattr(n, "NVML_NVLINK_MAX_LINKS", 18)):
            state = _try(n.nvmlDeviceGetNvLinkState, h, link)
            if not isinstance(state, int):
                continue
            links.append({"link": link, "state": state, "version": _try(n.nvmlDeviceGetNvLinkVersion, h, link),
                          "remote": _text(_try(lambda: n.nvmlDeviceGetNvLinkRemotePciInfo(h, link).busId)),
                          "replay": _try(n.nvmlDeviceGetNvLinkErrorCounter, h, link, 1)})
        procs = _try(n.nvmlDeviceGetComputeRunningProcesses, h)
        gpus.append({
            "index": index, "name": _text(n.nvmlDeviceGetName(h)), "bus": bus,
            "enforced_power_limit_w": _try(lambda: n.nvmlDeviceGetEnforcedPowerLimit(h) / 1000.0),
            "power_management_limit_w": _try(lambda: n.nvmlDeviceGetPowerManagementLimit(h) / 1000.0),
            "pcie_replay": _try(n.nvmlDeviceGetPcieReplayCounter, h),
            "pcie_max": [_try(n.nvmlDeviceGetMaxPcieLinkGeneration, h), _try(n.nvmlDeviceGetMaxPcieLinkWidth, h)],
            "aer": _aer(bus), "nvlink": links,
            "processes": [{"pid": p.pid, "mib": (p.usedGpuMemory or 0) // 1048576} for p in procs]
            if isinstance(procs, list) else procs,
            "utilization": _try(lambda: n.nvmlDeviceGetUtilizationRates(h).gpu),
        })
    pairs = {}
    for a in range(count):
        for b in range(count):
            if a != b:
                pairs["%d->%d" % (a, b)] = {
                    "p2p_read": _try(n.nvmlDeviceGetP2PStatus, handles[a], handles[b], 0),
                    "p2p_nvlink": _try(n.nvmlDeviceGetP2PStatus, handles[a], handles[b], 3),
                    "topology": _try(n.nvmlDeviceGetTopologyCommonAncestor, handles[a], handles[b])}
    return {"driver": _text(n.nvmlSystemGetDriverVersion()), "gpus": gpus, "pairs": pairs}


def _proc(pid):
    info = {"pid": pid}
    try:
        with open("/proc/%d/status" % pid) as handle:
            uid = [line.split()[1] for line in handle if line.startswith("Uid:")][0]
        import pwd
        info["user"] = pwd.getpwuid(int(uid)).pw_name
        with open("/proc/%d/cmdline" % pid, "rb") as handle:
            info["cmd"] = handle.read().replace(b"\0", b" ").decode()[:60]
    except (OSError, KeyError, IndexError) as exc:
        info["error"] = str(exc)
    return info


def suite(run, python, tests=None, sizes=None, gpus=None):
    params = {"python": python, "device": "cuda", "gpus": gpus, "profile": "quick", "tests": tests,
              "sizes": sizes or {}, "reps": None, "timeout": None, "gates": {}, "dest": None}
    return run(params, socket.gethostname())


def figure_rows(document):
    for device in document["devices"]:
        for fig in device["figures"].values():
            tel = fig.get("telemetry") or {}
            yield ["cuda:%s" % device["index"], fig["test"], fig["size"], fig["status"],
                   "" if fig["value"] is None else "%.1f %s" % (fig["value"], fig["unit"]),
                   "" if fig["fraction_of_peak"] is None else "%.3f" % fig["fraction_of_peak"],
                   "" if not tel.get("power_w") else "%s/%s W" % (tel["power_w"]["median"], tel["power_w"]["max"])]
    for name, figures in ((document.get("multi_gpu") or {}).get("figures") or {}).items():
        for fig in figures if isinstance(figures, list) else [figures]:
            where = "%s->%s" % (fig["src"], fig["dst"]) if fig.get("src") is not None else "all"
            yield [where, fig["test"], fig["size"], fig["status"],
                   "" if fig["value"] is None else "%.1f %s" % (fig["value"], fig["unit"]), "", ""]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--skip", nargs="*", default=[])
    args = parser.parse_args()
    import_collection()
    from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.run import run
    found = {"host": socket.gethostname()}
    found["nvml"] = nvml_readings()
    print("== NVML ==")
    print_table(["gpu", "name", "bus", "limit W", "replay", "pcie max", "nvlink up/links", "versions"],
                [[g["index"], g["name"], g["bus"], g["enforced_power_limit_w"], g["pcie_replay"], g["pcie_max"],
                  "%d/%d" % (sum(1 for l in g["nvlink"] if l["state"] == 1), len(g["nvlink"])),
                  sorted(set(str(l["version"]) for l in g["nvlink"]))] for g in found["nvml"]["gpus"]])
    print(json.dumps(found["nvml"]["pairs"]))
    print(json.dumps([g["aer"] for g in found["nvml"]["gpus"]])[:600])
    start = time.monotonic()
    found["suite"] = suite(run, args.python)
    print("\n== quick suite (%.1f s) ==" % (time.monotonic() - start))
    print_table(["where", "test", "size", "status", "value", "fraction", "power"], list(figure_rows(found["suite"])))
    refs = subprocess.run([args.python, "-c", REFS], capture_output=True, text=True, timeout=300, check=False)
    found["refs"] = json.loads(refs.stdout.strip().splitlines()[-1]) if refs.returncode == 0 else refs.stderr[-2000:]
    print("\n== independent references ==")
    print(json.dumps(found["refs"], indent=1) if isinstance(found["refs"], dict) else found["refs"])
    if "power" not in args.skip:
        doc = suite(run, args.python, tests=["sustained"], sizes={"sustained": {"seconds": 10}}, gpus=[0])
        fig = doc["devices"][0]["figures"]["sustained"]
        found["power"] = {"figure": fig, "limit": found["nvml"]["gpus"][0]["enforced_power_limit_w"]}
        tel = fig.get("telemetry") or {}
        print("\n== sustained 10 s on GPU 0: %s %s, power %s (tail %s), limit %s W, reasons %s ==" % (
            fig["value"], fig["unit"], tel.get("power_w"), (tel.get("tail") or {}).get("power_w"),
            found["power"]["limit"], tel.get("reasons")))
    if "busy" not in args.skip:
        loop = subprocess.Popen([args.python, "-c", LOOP % 60])
        time.sleep(12)
        readings = nvml_readings()
        procs = [dict(p, **_proc(p["pid"])) for g in readings["gpus"] for p in g["processes"]
                 if isinstance(g["processes"], list)]
        doc = suite(run, args.python, tests=["gemm_bf16", "memcpy"], gpus=[0])
        loop.kill()
        loop.wait()
        found["busy"] = {"processes": procs, "utilization": [g["utilization"] for g in readings["gpus"]],
                         "suite": doc, "loop_pid": loop.pid}
        print("\n== busy: loop pid %d; NVML lists %s; utilization %s ==" % (loop.pid, procs, found["busy"]["utilization"]))
        print_table(["where", "test", "size", "status", "value", "fraction", "power"], list(figure_rows(doc)))
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "lab_readings.json"), "w") as handle:
            json.dump(found, handle, indent=1, sort_keys=True, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
