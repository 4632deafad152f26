# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The preflight probe's GPU facts and health reading in one NVML session (fake pynvml, real-looking values)."""
from __future__ import annotations

import fake_nvml_health as fh
import fake_pynvml as fake
from sysfs_tree import OPEN_LINE

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.bus_facts import nvml_or_bus_facts
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_health import nvml_health
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.health_probe import (
    facts_and_health, probe, published)

WITHOUT = "NVML not used (nvidia-ml-py is not installed for python3)"


def test_the_facts_are_nvml_or_bus_facts_and_the_reading_gpu_healths():
    gpus, driver, reading = facts_and_health([], OPEN_LINE, True, fh.HealthNVML([fh.H100_HEALTHY]), WITHOUT, True)
    assert (gpus, driver) == nvml_or_bus_facts([], OPEN_LINE, True, fh.HealthNVML([fh.H100_HEALTHY]), WITHOUT)
    assert reading == nvml_health(fh.HealthNVML([fh.H100_HEALTHY]))
    assert facts_and_health([], OPEN_LINE, True, fh.HealthNVML([fh.H100_HEALTHY]), WITHOUT, False)[2] is None
    assert facts_and_health([], OPEN_LINE, True, None, WITHOUT, True)[2] is None


class LostAfterStart(fh.HealthNVML):
    """NVML that starts and gives the GPU's facts, then loses the GPU when its health is read."""

    def nvmlDeviceGetHandleByIndex(self, index):
        if self.facts_read:
            raise fh.NVMLError_GpuIsLost()
        return super().nvmlDeviceGetHandleByIndex(index)

    def nvmlDeviceGetMemoryBusWidth(self, h):
        self.facts_read = True
        return super().nvmlDeviceGetMemoryBusWidth(h)


def test_nvml_failing_after_it_started_leaves_the_health_to_gpu_health():
    nvml = LostAfterStart([fh.H100_HEALTHY])
    nvml.facts_read = False
    gpus, driver, reading = facts_and_health([], OPEN_LINE, True, nvml, WITHOUT, True)
    assert reading is None and driver["source"] == "nvml" and nvml.shutdown_calls == 1
    # NVML that does not start: the facts from procfs, the reading as gpu_health gives it
    broken = fh.HealthNVML([fh.H100_HEALTHY], init_error=fake.NVMLError_DriverNotLoaded)
    gpus, driver, reading = facts_and_health([], OPEN_LINE, True, broken, WITHOUT, True)
    assert driver["source"] == "procfs" and reading == nvml_health(broken)


def test_probe_publishes_the_reading_with_what_it_answers():
    logs = []

    def read_log(mode):
        logs.append(mode)
        return {"source": None, "complete": False, "xids": [], "error": "not read (kernel_log=never)"}
    gpus, driver, health = probe(([], OPEN_LINE, True), fh.HealthNVML([fh.H100_HEALTHY]), WITHOUT,
                                 {"kernel_log": "never", "textfile_dir": ""}, read_log)
    assert logs == ["never"] and health["driver_version"] == driver["version"] == "580.159.04"
    assert set(health["reading"]) == {"gpus", "nvml_error", "hostname", "kernel_log"}
    assert (health["kernel_log"], health["textfile_dir"], health["textfile"]) == ("never", "", None)
    assert probe(([], OPEN_LINE, True), fh.HealthNVML([fh.H100_HEALTHY]), WITHOUT, None, read_log)[2] is None
    assert logs == ["never"] and published(None, {}, {}, {}, "ws1", None) is None
