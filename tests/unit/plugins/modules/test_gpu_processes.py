"""The gpu_processes module: NVML through a fake pynvml (the lab's H200 pair), /proc through a fake tree, the
wait through a fake clock (5 s between readings, as on a host, without the seconds)."""
from __future__ import annotations

import pytest

import fake_nvml_processes as fp
import fake_pynvml as fake
from proc_tree import add_process
from ansible_collections.blackwell.pytorch.plugins.modules import gpu_processes


class Clock(object):
    """time.monotonic and time.sleep over simulated seconds."""

    def __init__(self):
        self.now, self.sleeps = 1000.0, []

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def host(tmp_path, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(gpu_processes, "time", clock)
    monkeypatch.setattr(gpu_processes, "PROC", str(tmp_path))
    add_process(tmp_path, 4242, ppid=4100, uid=0, cmdline=("/home/alice/.venv/bin/python3", "train.py"))
    add_process(tmp_path, 5100, ppid=5000, cmdline=("/opt/pytorch/current/bin/python", "-c", "..."),
                environ={"PATH": "/usr/bin:/bin", "BLACKWELL_PYTORCH_CHILD": "5000"})

    class Host:
        def nvml(self, nvml):
            monkeypatch.setattr(gpu_processes, "pynvml", nvml)
            return nvml

    host = Host()
    host.clock = clock
    return host


def busy_pair(**kwargs):
    """GPU 0: a foreign python3 (pid 4242, 20582 MiB, root) beside the collection's own child (5100)."""
    gpu0 = dict(fp.H200, processes=[(4242, 20582), (5100, 2310)], utilization=100)
    return fp.ProcessNVML([gpu0, fp.H200_B], **kwargs)


def test_a_busy_gpu_is_reported_with_its_foreign_process(host, run_module):
    nvml = host.nvml(busy_pair())
    status, result = run_module(gpu_processes, {})
    assert status == "exit" and result["changed"] is False
    assert result["busy"] is True and result["ours"] == 1 and result["waited_s"] == 0.0
    assert result["processes"] == [{"gpu": 0, "gpu_name": "NVIDIA H200", "pid": 4242, "user": "root",
                                    "command": "python3", "memory_mib": 20582}]
    assert result["text"] == "busy: GPU 0 pid 4242 (python3, user root, 20.1 GiB)"
    assert result["utilization"] == [{"gpu": 0, "gpu_name": "NVIDIA H200", "percent": 100},
                                     {"gpu": 1, "gpu_name": "NVIDIA H200", "percent": 0}]
    assert (result["source"], result["note"], result["ended"]) == ("nvml", None, [])
    assert nvml.shutdown_calls == 1 and host.clock.sleeps == []


def test_the_wait_reads_every_five_seconds_until_the_process_ends(host, run_module):
    nvml = host.nvml(busy_pair(after={3: {0: [(5100, 2310)]}}))  # the third reading finds 4242 gone
    result = run_module(gpu_processes, {"wait": 60})[1]
    assert (result["busy"], result["waited_s"], result["ended"], result["text"]) == (False, 10.0, [4242], "")
    assert host.clock.sleeps == [5.0, 5.0] and nvml.readings == 3 and nvml.shutdown_calls == 1


def test_the_wait_ends_at_its_bound_with_the_processes_that_remain(host, run_module):
    host.nvml(busy_pair())
    result = run_module(gpu_processes, {"wait": 12})[1]
    assert (result["busy"], result["waited_s"]) == (True, 12.0)
    assert host.clock.sleeps == [5.0, 5.0, 2.0]
    assert result["text"] == "busy: GPU 0 pid 4242 (python3, user root, 20.1 GiB)"


def test_check_mode_reads_once(host, run_module):
    nvml = host.nvml(busy_pair())
    result = run_module(gpu_processes, {"wait": 60, "_ansible_check_mode": True})[1]
    assert result["busy"] is True and nvml.readings == 1 and host.clock.sleeps == []


def test_only_the_asked_gpus(host, run_module):
    host.nvml(busy_pair())
    result = run_module(gpu_processes, {"gpus": [1]})[1]
    assert (result["busy"], result["processes"], result["ours"]) == (False, [], 0)
    assert [u["gpu"] for u in result["utilization"]] == [1]


@pytest.mark.parametrize("nvml, why", [
    (None, "nvidia-ml-py is not installed for the module's Python"),
    (fp.ProcessNVML([], init_error=fake.NVMLError_DriverNotLoaded), "NVMLError_DriverNotLoaded: Driver Not Loaded"),
])
def test_without_nvml_it_is_not_busy_and_says_why(host, run_module, nvml, why):
    host.nvml(nvml)
    status, result = run_module(gpu_processes, {"wait": 60})
    assert status == "exit" and result["busy"] is False and result["processes"] == []
    assert (result["utilization"], result["source"], result["waited_s"]) == ([], "devices", 0.0)
    assert result["note"] == "NVML not read (%s); the processes holding /dev/nvidia-uvm open were read instead" % why
