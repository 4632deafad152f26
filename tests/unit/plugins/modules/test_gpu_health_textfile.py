# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpu_health judging its reading (option gates) and writing the health textfile in the same call: the verdict is
health_gates.evaluate's, the file is health_metrics.prometheus's, written through a rename only when
its content changes; check mode says so without writing. NVML is a fake pynvml; the kernel log is not read."""
from __future__ import annotations

import os

import pytest

import fake_nvml_health as fh
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import health_gates, health_metrics
from ansible_collections.blackwell.pytorch.plugins.modules import gpu_health

SICK = dict(fh.H100_HEALTHY, remap=(0, 1, 1, 0))


@pytest.fixture
def nvml(monkeypatch):
    def use(*gpus):
        monkeypatch.setattr(gpu_health, "pynvml", fh.HealthNVML(list(gpus)))
    return use


def args(directory=None, **more):
    base = {"kernel_log": "never", "gates": {}, "host": "ws1"}
    if directory is not None:
        base["textfile_dir"] = str(directory)
    base.update(more)
    return base


def test_the_verdict_is_the_filters(nvml, run_module):
    nvml(SICK)
    status, result = run_module(gpu_health, args())
    assert status == "exit" and result["changed"] is False
    assert result["textfile"] == {"path": "", "written": False}
    assert result["verdict"] == health_gates.evaluate(result["health"], {}, "ws1")
    assert result["verdict"]["passed"] is False
    assert result["verdict"]["failures"] == [
        "ws1: GPU 0 (NVIDIA H100 80GB HBM3, 0000:18:00.0): a row remap is pending (0 corrected, 1 uncorrected rows "
        "remapped), expected none: reset the GPU (nvidia-smi -r) or reboot to apply it"]


def test_gates_given_as_text_are_read_as_ansible_reads_them(nvml, run_module):
    nvml(SICK)
    gates = {"remapped_rows": "no", "xid_ignore": ["13", 79], "require_known": "false"}
    verdict = run_module(gpu_health, args(gates=gates))[1]["verdict"]
    assert verdict["passed"] is True and verdict["options"]["xid_ignore"] == [13, 79]
    assert verdict["gpus"][0]["gates"]["remapped_rows"]["status"] == "off"


def test_without_gates_nothing_is_judged(nvml, run_module):
    nvml(fh.H100_HEALTHY)
    result = run_module(gpu_health, {"kernel_log": "never"})[1]
    assert "verdict" not in result and result["changed"] is False


def test_the_stored_result_gives_the_link_under_load_and_its_date(nvml, run_module):
    idle = dict(fh.H100_HEALTHY, pstate=8, pcie=(1, 5, 16, 16))
    nvml(idle)
    stored = {"written": "2026-11-20T10:00:00Z", "benchmark": {"devices": [{
        "index": 0, "uuid": fh.H100_HEALTHY["uuid"],
        "figures": {"gemm_bf16": {"telemetry": {"pcie_gen": {"max": 5}, "pcie_width": {"max": 16}}}}}]}}
    verdict = run_module(gpu_health, args(stored_result=stored, benchmark={"devices": []}))[1]["verdict"]
    assert verdict["gpus"][0]["gates"]["pcie_gen"] == {
        "status": "passed", "text": "PCIe gen 5 of 5 under load (gemm_bf16, result of 2026-11-20T10:00:00Z)"}
    # this run's benchmark without telemetry: the idle link is no verdict
    verdict = run_module(gpu_health, args(benchmark={"devices": []}))[1]["verdict"]
    assert verdict["gpus"][0]["gates"]["pcie_gen"]["status"] == "unknown"


def test_the_textfile_is_written_once_then_left_alone(nvml, run_module, tmp_path):
    nvml(fh.H100_HEALTHY)
    directory = tmp_path / "textfile"
    status, first = run_module(gpu_health, args(directory))
    path = directory / "blackwell_pytorch_health.prom"
    assert status == "exit" and first["changed"] is True
    assert first["textfile"] == {"path": str(path), "written": True}
    assert path.read_text() == health_metrics.prometheus(first["health"], first["verdict"], "ws1")
    assert oct(os.stat(str(directory)).st_mode & 0o777) == "0o755" and oct(os.stat(str(path)).st_mode & 0o777) == "0o644"
    assert os.listdir(str(directory)) == ["blackwell_pytorch_health.prom"]  # no temporary left
    before = os.stat(str(path)).st_ino
    second = run_module(gpu_health, args(directory))[1]
    assert second["changed"] is False and second["textfile"]["written"] is False
    assert os.stat(str(path)).st_ino == before  # not replaced


def test_a_changed_reading_replaces_the_file(nvml, run_module, tmp_path):
    nvml(fh.H100_HEALTHY)
    run_module(gpu_health, args(tmp_path))
    nvml(SICK)
    result = run_module(gpu_health, args(tmp_path))[1]
    text = (tmp_path / "blackwell_pytorch_health.prom").read_text()
    assert result["changed"] is True and 'gate="remapped_rows"} 0' in text and "blackwell_pytorch_health_passed" in text


def test_check_mode_reports_without_writing(nvml, run_module, tmp_path):
    nvml(fh.H100_HEALTHY)
    directory = tmp_path / "textfile"
    result = run_module(gpu_health, args(directory, _ansible_check_mode=True, _ansible_diff=True))[1]
    assert result["changed"] is True and not directory.exists()
    assert result["diff"][0]["before"] == "" and "DCGM_FI_DEV_PCIE_LINK_GEN" in result["diff"][0]["after"]
    run_module(gpu_health, args(directory))
    again = run_module(gpu_health, args(directory, _ansible_check_mode=True))[1]
    assert again["changed"] is False


def test_a_textfile_dir_that_is_a_file_fails_naming_it(nvml, run_module, tmp_path):
    nvml(fh.H100_HEALTHY)
    (tmp_path / "file").write_text("x")
    status, result = run_module(gpu_health, args(tmp_path / "file"))
    assert status == "fail" and result["msg"] == "textfile_dir: path %s exists and is not a directory" % (tmp_path / "file")
    assert result["health"]["gpus"][0]["index"] == 0  # the reading comes back all the same
