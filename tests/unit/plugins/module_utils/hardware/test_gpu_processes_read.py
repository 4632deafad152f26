"""gpu_processes' pure readers and verdict: a fake pynvml answering the compute process list as nvidia-ml-py
does (the lab's H200 reading: pid 1099, 874 MiB, utilisation 100), a fake /proc written in the kernel's layout."""
from __future__ import annotations

import os
import pwd

import pytest

import fake_nvml_health as fh
import fake_nvml_processes as fp
import fake_pynvml as fake
from proc_tree import add_process
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import gpu_processes as gp

NAMES = {0: "root", 1000: "alice"}.get  # uid 1001 has no account name here
LAB_CMDLINE = ("/opt/torch/.venv/bin/python3", "-c", "\nimport time, torch\na = torch.randn(8192, 8192, "
               "device='cuda', dtype=torch.bfloat16)\nwhile True:\n    a @ a\n")


def lab(tmp_path):
    """The 2x H200 machine with another process's bf16 matmul loop on GPU 0 (pid 1099, root, 874 MiB)."""
    add_process(tmp_path, 1099, ppid=1012, uid=0, cmdline=LAB_CMDLINE)
    nvml = fp.ProcessNVML([dict(fp.H200, processes=[(1099, 874)], utilization=100), fp.H200_B])
    nvml.nvmlInit()
    return nvml


def office(tmp_path):
    """The reading process (pid 5000, under sh 4990 under sshd 4980) and on two GPUs: its own benchmark child
    (5100, marked), alice's training (4242, 20582 MiB), bob's notebook kernel whose environment the reader may
    not read (6000, uid 1001), and a process whose memory NVML does not give (7000)."""
    add_process(tmp_path, 4980, ppid=1, cmdline=("sshd: ansible [priv]",), comm="sshd")
    add_process(tmp_path, 4990, ppid=4980, cmdline=("/bin/sh", "-c", "/usr/bin/python3 AnsiballZ_gpu_processes.py"))
    add_process(tmp_path, 5000, ppid=4990, cmdline=("/usr/bin/python3", "AnsiballZ_gpu_processes.py"))
    add_process(tmp_path, 5100, ppid=5000, cmdline=("/opt/pytorch/current/bin/python", "-c", "..."),
                environ={"PATH": "/usr/bin:/bin", "BLACKWELL_PYTORCH_CHILD": "5000"})
    add_process(tmp_path, 4242, ppid=4100, uid=1000, cmdline=("/home/alice/.venv/bin/python3", "train.py"))
    add_process(tmp_path, 6000, ppid=5990, uid=1001, cmdline=("/usr/bin/python3", "-m", "ipykernel_launcher"),
                environ=None)
    add_process(tmp_path, 7000, ppid=1, uid=1000, cmdline=(), comm="pt_main_thread")
    nvml = fp.ProcessNVML([dict(fp.H200, processes=[(5100, 2310), (4242, 20582), (6000, 1536)], utilization=97),
                           dict(fp.H200_B, processes=[(4990, 600), (7000, None)], utilization=None)])
    nvml.nvmlInit()
    return nvml


def test_the_lab_reading_names_the_foreign_matmul_loop(tmp_path):
    reading = gp.take_reading(lab(tmp_path), None, str(tmp_path), 2001, user_name=NAMES)
    assert reading == {
        "processes": [{"gpu": 0, "gpu_name": "NVIDIA H200", "pid": 1099, "user": "root", "command": "python3",
                       "memory_mib": 874}],
        "ours": 0, "source": "nvml", "note": None,
        "utilization": [{"gpu": 0, "gpu_name": "NVIDIA H200", "percent": 100},
                        {"gpu": 1, "gpu_name": "NVIDIA H200", "percent": 0}]}
    assert gp.busy_text(reading["processes"]) == "busy: GPU 0 pid 1099 (python3, user root, 874 MiB)"


def test_ours_are_the_reader_its_ancestors_and_marked_children(tmp_path):
    reading = gp.describe(gp.read_nvml(office(tmp_path)), str(tmp_path), 5000, NAMES)
    assert reading["ours"] == 2  # the marked benchmark child on GPU 0, the reader's shell on GPU 1
    assert [(p["gpu"], p["pid"], p["user"], p["command"], p["memory_mib"]) for p in reading["processes"]] == [
        (0, 4242, "alice", "python3", 20582),
        (0, 6000, "1001", "python3", 1536),  # environment unreadable: foreign; no account name: the uid
        (1, 7000, "alice", "pt_main_thread", None)]  # no cmdline: comm; memory not given
    assert reading["utilization"] == [{"gpu": 0, "gpu_name": "NVIDIA H200", "percent": 97},
                                      {"gpu": 1, "gpu_name": "NVIDIA H200", "percent": None}]
    assert gp.busy_text(reading["processes"]) == (
        "busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB); GPU 0 pid 6000 (python3, user 1001, 1.5 GiB); "
        "GPU 1 pid 7000 (pt_main_thread, user alice, memory unknown)")


def test_only_the_asked_gpus_are_read(tmp_path):
    reading = gp.describe(gp.read_nvml(office(tmp_path), gpus=[1]), str(tmp_path), 5000, NAMES)
    assert [p["pid"] for p in reading["processes"]] == [7000] and reading["ours"] == 1
    assert [u["gpu"] for u in reading["utilization"]] == [1]


@pytest.mark.parametrize("calls", [("plain",), ("v3",), ("v2",), ("v3", "v2")])
def test_each_nvidia_ml_py_spelling_of_the_list_call_is_used(tmp_path, calls):
    add_process(tmp_path, 4242, uid=1000, cmdline=("python3", "train.py"))
    nvml = fp.ProcessNVML([dict(fp.H200, processes=[(4242, 20582)])], calls=calls)
    assert gp.compute_processes(nvml, nvml.nvmlDeviceGetHandleByIndex(0)) == [(4242, 20582 * fake.MIB)]


def test_without_a_list_call_the_devices_are_read_instead(tmp_path):
    add_process(tmp_path, 4242, uid=1000, cmdline=("python3", "train.py"),
                fds=("/dev/null", "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia0"))
    nvml = fp.ProcessNVML([fp.H200], calls=())
    nvml.nvmlInit()
    reading = gp.take_reading(nvml, None, str(tmp_path), 2001, user_name=NAMES)
    assert reading["source"] == "devices"
    assert reading["note"] == ("NVML not read (AttributeError: nvidia-ml-py has none of "
                               "nvmlDeviceGetComputeRunningProcesses, nvmlDeviceGetComputeRunningProcesses_v3, "
                               "nvmlDeviceGetComputeRunningProcesses_v2); the processes holding /dev/nvidia-uvm open "
                               "were read instead")
    assert reading["processes"] == [{"gpu": None, "gpu_name": None, "pid": 4242, "user": "alice", "command": "python3",
                                     "memory_mib": None, "device": "/dev/nvidia0"}]
    assert gp.busy_text(reading["processes"]) == "busy: /dev/nvidia0 pid 4242 (python3, user alice, memory unknown)"


def test_the_devices_list_cuda_processes_only(tmp_path):
    """A CUDA process holds nvidia-uvm; Xorg and nvidia-persistenced hold the GPU's node and nvidiactl only."""
    add_process(tmp_path, 1500, cmdline=("/usr/lib/xorg/Xorg", "vt1", "-displayfd", "3"),
                fds=("/dev/tty1", "/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-modeset"))
    add_process(tmp_path, 1201, uid=0, cmdline=("/usr/bin/nvidia-persistenced", "--user", "nvidia-persistenced"),
                fds=("/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia1"))
    add_process(tmp_path, 4242, uid=1000, cmdline=("python3", "train.py"),
                fds=("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia0", "/dev/nvidia1"))
    add_process(tmp_path, 6000, uid=1001, cmdline=("python3",), fds=None)  # another user's: unreadable
    per_gpu, unreadable = gp.read_devices(str(tmp_path))
    assert [(g["device"], g["entries"]) for g in per_gpu] == [("/dev/nvidia0", [(4242, None)]),
                                                              ("/dev/nvidia1", [(4242, None)])]
    assert unreadable == 1
    per_gpu, dummy = gp.read_devices(str(tmp_path), gpus=[1])
    assert [g["device"] for g in per_gpu] == ["/dev/nvidia1"]


def test_no_nvidia_ml_py_and_no_driver_is_not_busy(tmp_path):
    add_process(tmp_path, 4242, uid=1000, cmdline=("python3",), fds=("/dev/null",))
    assert gp.start(None) == "nvidia-ml-py is not installed for the module's Python"
    why = gp.start(fp.ProcessNVML([], init_error=fake.NVMLError_DriverNotLoaded))
    assert why == "NVMLError_DriverNotLoaded: Driver Not Loaded"
    reading = gp.take_reading(None, why, str(tmp_path), 2001, user_name=NAMES)
    assert (reading["processes"], reading["ours"], reading["utilization"], reading["source"]) == ([], 0, [], "devices")
    assert reading["note"] == ("NVML not read (NVMLError_DriverNotLoaded: Driver Not Loaded); the processes holding "
                               "/dev/nvidia-uvm open were read instead")


def test_an_nvml_error_while_reading_falls_back_to_the_devices(tmp_path):
    nvml = fp.ProcessNVML([fp.H200])
    nvml.nvmlInit()

    def lost(h):
        raise fh.NVMLError_GpuIsLost()
    nvml.nvmlDeviceGetComputeRunningProcesses = lost
    reading = gp.take_reading(nvml, None, str(tmp_path), 2001)
    assert reading["source"] == "devices"
    assert reading["note"].startswith("NVML not read (NVMLError_GpuIsLost: GPU is lost); the processes holding")


def test_a_vanished_process_is_foreign_and_said_unknown(tmp_path):
    per_gpu = [{"gpu": 0, "gpu_name": "NVIDIA H200", "utilization": 12, "entries": [(3131, 512 * fake.MIB)]}]
    reading = gp.describe(per_gpu, str(tmp_path), 2001)
    assert reading["processes"] == [{"gpu": 0, "gpu_name": "NVIDIA H200", "pid": 3131, "user": None, "command": None,
                                     "memory_mib": 512}]
    assert gp.process_text(reading["processes"][0]) == "GPU 0 pid 3131 (command unknown, user unknown, 512 MiB)"


def test_the_not_available_memory_value_is_unknown():
    assert gp.memory_mib(2 ** 64 - 1) is None and gp.memory_mib(None) is None
    assert gp.memory_mib(874 * fake.MIB) == 874
    assert [gp.memory_text(m) for m in (874, 1024, 20582, None)] == ["874 MiB", "1.0 GiB", "20.1 GiB", "memory unknown"]


def test_ancestors_follow_ppid_and_stop_at_a_loop(tmp_path):
    add_process(tmp_path, 30, ppid=20)
    add_process(tmp_path, 20, ppid=10)
    add_process(tmp_path, 10, ppid=30)  # not on a real system; the walk must end anyway
    assert gp.ancestors(str(tmp_path), 30) == [30, 20, 10]
    assert gp.ancestors(str(tmp_path), 99) == [99]


ALICE = {"gpu": 0, "gpu_name": "NVIDIA H200", "pid": 4242, "user": "alice", "command": "python3", "memory_mib": 20582}
BOB = dict(ALICE, pid=4300, user="bob", memory_mib=8192)
IDLE = {"processes": [], "ours": 0, "utilization": []}


def at(*pairs):
    return [(seconds, {"processes": list(processes), "ours": 0, "utilization": []}) for seconds, processes in pairs]


def test_decide_runs_on_free_gpus_whatever_the_mode():
    for mode in ("wait", "defer", "measure"):
        verdict = gp.decide(mode, [(0.0, IDLE)], 60)
        assert verdict == {"action": "run", "busy": False, "waited_s": 0.0, "processes": [], "ended": [], "text": ""}


def test_decide_polls_while_the_wait_lasts_then_defers():
    assert gp.decide("wait", at((0.0, [ALICE])), 60)["action"] == "poll"
    assert gp.decide("wait", at((0.0, [ALICE]), (55.0, [ALICE])), 60)["action"] == "poll"
    verdict = gp.decide("wait", at((0.0, [ALICE, BOB]), (5.0, [ALICE, BOB]), (60.0, [ALICE])), 60)
    assert verdict == {"action": "defer", "busy": True, "waited_s": 60.0, "processes": [ALICE], "ended": [4300],
                       "text": "busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB)"}


def test_decide_runs_once_the_foreign_process_ended_during_the_wait():
    verdict = gp.decide("wait", at((0.0, [ALICE]), (5.0, [ALICE]), (10.0, [])), 60)
    assert (verdict["action"], verdict["busy"], verdict["waited_s"], verdict["ended"]) == ("run", False, 10.0, [4242])


def test_decide_defers_or_measures_at_once_without_a_wait():
    assert gp.decide("defer", at((0.0, [ALICE])), 60)["action"] == "defer"
    assert gp.decide("wait", at((0.0, [ALICE])), 0)["action"] == "defer"
    measured = gp.decide("measure", at((0.0, [ALICE])), 60)
    assert (measured["action"], measured["busy"]) == ("measure", True)


def test_decide_refuses_an_unknown_mode_and_no_reading():
    with pytest.raises(ValueError, match="mode must be one of wait, defer, measure, got 'skip'"):
        gp.decide("skip", [(0.0, IDLE)], 0)
    with pytest.raises(ValueError, match="at least one reading"):
        gp.decide("wait", [], 0)


def test_account_names_come_from_the_password_database():
    assert gp.default_user_name(os.getuid()) == pwd.getpwuid(os.getuid()).pw_name
    assert gp.default_user_name(2 ** 31 - 3) is None  # no account: the text then shows the uid
