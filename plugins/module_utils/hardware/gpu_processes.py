# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Who else computes on the GPUs: the compute processes NVML lists, each named by /proc, ours told from foreign.

A benchmark beside another user's job measures the sharing, not the GPU: a bf16 matmul loop of another
process took an H200's quick gemm_bf16 from 807 to 260 TFLOP/s. So before the collection measures (or
reboots), it looks. NVML lists each GPU's compute processes (pid, GPU memory); /proc names them (the
user from `Status`'s Uid, the command from `cmdline`, else `comm`). A process is ours when it is the
reading process or one of its ancestors, or when its environment holds common.child_run's CHILD_MARKER
(every child the collection starts carries it, and so do the processes those start); a process whose
environment cannot be read is foreign. Without NVML (no nvidia-ml-py, or NVML refusing: a driver
library that no longer matches the loaded module), the processes holding /dev/nvidia-uvm open, CUDA's
unified memory device, stand in (read_devices()): display servers and nvidia-persistenced do not open it.

Every reader takes what it reads through as an argument (the pynvml module, the /proc root, a uid to
name function), so unit tests pass fakes. decide() turns readings over time into the verdict.
Python 3.9, no Ansible import.
"""
from __future__ import annotations

import os
import pwd
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import CHILD_MARKER

MIB = 1024 * 1024
# The plain name maps to the newest struct version in nvidia-ml-py; older releases have only the versioned ones.
LIST_CALLS = ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetComputeRunningProcesses_v3",
              "nvmlDeviceGetComputeRunningProcesses_v2")
NOT_AVAILABLE = 2 ** 64 - 1  # NVML_VALUE_NOT_AVAILABLE for an unsigned long long
UVM = "/dev/nvidia-uvm"
MODES = ("wait", "defer", "measure")


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _read(path):
    """The bytes of `path`, or None when it cannot be read (gone, no permission)."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def status(proc_root: str, pid: int) -> dict[str, str]:
    """{field: value} of /proc/<pid>/status ("Uid": "1000\\t1000\\t1000\\t1000"), {} when it cannot be read."""
    data = _read(os.path.join(proc_root, str(pid), "status"))
    fields = {}
    for line in _text(data or b"").splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    return fields


def ancestors(proc_root: str, pid: int, limit: int = 4096) -> list[int]:
    """[pid, its parent, ..., 1]: the process and its ancestors through /proc's PPid, as far as they can be read."""
    chain = []
    while pid and pid not in chain and len(chain) < limit:
        chain.append(pid)
        try:
            pid = int(status(proc_root, pid).get("PPid", "0"))
        except ValueError:
            break
    return chain


def default_user_name(uid: int) -> str | None:
    """The account name of `uid` (pwd), None when it has none."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return None


def user(proc_root: str, pid: int, user_name: Callable[[int], str | None] = default_user_name) -> str | None:
    """The name of the process's real user, its uid as text when the name is unknown, None when unreadable."""
    uids = status(proc_root, pid).get("Uid", "").split()
    if not uids or not uids[0].isdigit():
        return None
    return user_name(int(uids[0])) or uids[0]


def command(proc_root: str, pid: int) -> str | None:
    """The basename of the first word of /proc/<pid>/cmdline ("python3"), else its `comm`, else None."""
    first = (_read(os.path.join(proc_root, str(pid), "cmdline")) or b"").split(b"\0")[0]
    if first:
        return os.path.basename(_text(first)) or _text(first)
    comm = _text(_read(os.path.join(proc_root, str(pid), "comm")) or b"").strip()
    return comm or None


def marked(proc_root: str, pid: int) -> bool | None:
    """Whether /proc/<pid>/environ holds CHILD_MARKER; None when it cannot be read."""
    data = _read(os.path.join(proc_root, str(pid), "environ"))
    if data is None:
        return None
    prefix = (CHILD_MARKER + "=").encode("ascii")
    return any(entry.startswith(prefix) for entry in data.split(b"\0"))


def is_ours(proc_root: str, pid: int, own: Collection[int]) -> bool:
    """Whether `pid` is the collection's own: in `own` (the reading process and its ancestors) or marked."""
    return pid in own or marked(proc_root, pid) is True


def memory_mib(used: int | None) -> int | None:
    """usedGpuMemory (bytes; None or NVML's not-available value when unknown) in whole MiB, or None."""
    if used is None or used >= NOT_AVAILABLE:
        return None
    return int(used // MIB)


def compute_processes(nvml: Any, handle: object) -> list[tuple[int, int | None]]:
    """[(pid, usedGpuMemory)] of one GPU, through the first of LIST_CALLS this nvidia-ml-py has."""
    for name in LIST_CALLS:
        call = getattr(nvml, name, None)
        if call is not None:
            return [(int(entry.pid), getattr(entry, "usedGpuMemory", None)) for entry in call(handle)]
    raise AttributeError("nvidia-ml-py has none of %s" % ", ".join(LIST_CALLS))


def utilization(nvml: Any, handle: object) -> int | None:
    """The GPU's utilisation in percent, None when NVML does not give it."""
    try:
        return nvml.nvmlDeviceGetUtilizationRates(handle).gpu
    except (AttributeError, nvml.NVMLError):
        return None


def read_nvml(nvml: Any, gpus: Collection[int] | None = None) -> list[dict[str, Any]]:
    """[{gpu, gpu_name, utilization, entries: [(pid, usedGpuMemory)]}] per GPU of an initialised NVML (only the
    indices in `gpus` when given)."""
    found = []
    for index in range(nvml.nvmlDeviceGetCount()):
        if gpus and index not in gpus:
            continue
        handle = nvml.nvmlDeviceGetHandleByIndex(index)
        found.append({"gpu": index, "gpu_name": _text(nvml.nvmlDeviceGetName(handle)),
                      "utilization": utilization(nvml, handle), "entries": compute_processes(nvml, handle)})
    return found


def _pids(proc_root):
    try:
        return sorted(int(name) for name in os.listdir(proc_root) if name.isdigit())
    except OSError:
        return []


def read_devices(proc_root: str, gpus: Collection[int] | None = None) -> tuple[list[dict[str, Any]], int]:
    """(gpus, unreadable): the processes holding UVM open, as read_nvml() gives them, one entry per GPU device
    they hold (`gpu` None and `device` "/dev/nvidia0": a minor number is no NVML index; `gpus` filters minors),
    and how many processes' open files could not be read (another user's, without root)."""
    by_device, unreadable = {}, 0
    for pid in _pids(proc_root):
        fd_dir = os.path.join(proc_root, str(pid), "fd")
        try:
            targets = [os.readlink(os.path.join(fd_dir, fd)) for fd in os.listdir(fd_dir)]
        except OSError:
            unreadable += 1
            continue
        if UVM not in targets:
            continue
        minors = sorted(set(int(target[len("/dev/nvidia"):]) for target in targets
                            if target.startswith("/dev/nvidia") and target[len("/dev/nvidia"):].isdigit()))
        for minor in minors or [None]:
            if gpus and minor not in gpus:
                continue
            device = "/dev/nvidia%s" % minor if minor is not None else UVM
            by_device.setdefault(device, []).append((pid, None))
    return ([{"gpu": None, "device": device, "gpu_name": None, "utilization": None, "entries": entries}
             for device, entries in sorted(by_device.items())], unreadable)


def describe(per_gpu: Sequence[Mapping[str, Any]], proc_root: str, self_pid: int,
             user_name: Callable[[int], str | None] = default_user_name) -> dict[str, Any]:
    """{processes: the foreign ones [{gpu, gpu_name, pid, user, command, memory_mib}], ours: how many listed
    entries are the collection's own, utilization: [{gpu, gpu_name, percent}]} of read_nvml()'s (or
    read_devices()') answer, read as process `self_pid` (its ancestors are ours)."""
    own = set(ancestors(proc_root, self_pid))
    foreign, ours = [], 0
    for gpu in per_gpu:
        for pid, used in gpu["entries"]:
            if is_ours(proc_root, pid, own):
                ours += 1
                continue
            entry = {"gpu": gpu["gpu"], "gpu_name": gpu["gpu_name"], "pid": pid,
                     "user": user(proc_root, pid, user_name), "command": command(proc_root, pid),
                     "memory_mib": memory_mib(used)}
            if gpu.get("device"):
                entry["device"] = gpu["device"]
            foreign.append(entry)
    return {"processes": foreign, "ours": ours,
            "utilization": [{"gpu": gpu["gpu"], "gpu_name": gpu["gpu_name"], "percent": gpu["utilization"]}
                            for gpu in per_gpu if gpu["gpu"] is not None]}


def start(nvml: Any) -> str | None:
    """Initialise NVML: None when it can be read, else why not (nvidia-ml-py missing, NVML's error)."""
    if nvml is None:
        return "nvidia-ml-py is not installed for the module's Python"
    try:
        nvml.nvmlInit()
    except nvml.NVMLError as err:
        return "%s: %s" % (type(err).__name__, err)
    return None


def take_reading(nvml: Any, why_not: str | None, proc_root: str, self_pid: int, gpus: Collection[int] | None = None,
                 user_name: Callable[[int], str | None] = default_user_name) -> dict[str, Any]:
    """describe()'s answer with `source` and `note`: from NVML (`source` nvml, `note` None) when `why_not` (start()'s
    answer) is None and the read succeeds, else from the processes holding UVM open (`source` devices, `note` why,
    and how many processes' open files could not be read)."""
    if why_not is None:
        try:
            return dict(describe(read_nvml(nvml, gpus), proc_root, self_pid, user_name), source="nvml", note=None)
        except (AttributeError, nvml.NVMLError) as err:
            why_not = "%s: %s" % (type(err).__name__, err)
    per_gpu, unreadable = read_devices(proc_root, gpus)
    note = "NVML not read (%s); the processes holding %s open were read instead" % (why_not, UVM)
    if unreadable:
        note += "; the open files of %d process(es) could not be read (not root)" % unreadable
    return dict(describe(per_gpu, proc_root, self_pid, user_name), source="devices", note=note)


def memory_text(mib: int | None) -> str:
    """"20.1 GiB", "874 MiB", or "memory unknown"."""
    if mib is None:
        return "memory unknown"
    return "%d MiB" % mib if mib < 1024 else "%.1f GiB" % (mib / 1024.0)


def process_text(entry: Mapping[str, Any]) -> str:
    """"GPU 0 pid 4242 (python3, user alice, 20.1 GiB)"."""
    where = "GPU %s" % entry["gpu"] if entry.get("gpu") is not None else entry.get("device") or "a GPU"
    return "%s pid %s (%s, user %s, %s)" % (where, entry["pid"], entry.get("command") or "command unknown",
                                            entry.get("user") or "unknown", memory_text(entry.get("memory_mib")))


def busy_text(processes: Sequence[Mapping[str, Any]]) -> str:
    """"busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB); GPU 1 pid ..." for the foreign processes, "" for none."""
    return "busy: %s" % "; ".join(process_text(entry) for entry in processes) if processes else ""


def decide(mode: str, readings: Sequence[tuple[float, Mapping[str, Any]]], wait_s: float) -> dict[str, Any]:
    """The verdict after `readings` ([(seconds since the first reading, describe()'s answer)], in time order).

    {action, busy, waited_s, processes, ended, text}: `action` is `run` when the last reading lists no foreign
    process; else `poll` while `mode` is wait and less than `wait_s` seconds went by (read again), else `mode`'s
    own: `defer` (wait and defer: neither check nor benchmark) or `measure` (measure beside them). `ended`: the
    pids an earlier reading listed that the last one does not."""
    if mode not in MODES:
        raise ValueError("mode must be one of %s, got %r" % (", ".join(MODES), mode))
    if not readings:
        raise ValueError("decide() needs at least one reading")
    elapsed, last = readings[-1]
    processes = last.get("processes") or []
    now = set(entry["pid"] for entry in processes)
    ended = sorted(set(entry["pid"] for _at, reading in readings[:-1] for entry in reading.get("processes") or [])
                   - now)
    if not processes:
        action = "run"
    elif mode == "wait" and elapsed < float(wait_s or 0):
        action = "poll"
    else:
        action = "measure" if mode == "measure" else "defer"
    return {"action": action, "busy": bool(processes), "waited_s": round(float(elapsed), 1),
            "processes": processes, "ended": ended, "text": busy_text(processes)}
