"""The health gates on real-looking readings: each gate's message, the link under load, what is unknown or not
supported, and the verdict joined with a verification result."""
from __future__ import annotations

import copy

import pytest

import fake_nvml_health as fh
from verify_results import h100_result
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_health import nvml_health, parse_xids
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import health_gates

H100_UUID = fh.H100_HEALTHY["uuid"]
LABEL = "ws1: GPU 0 (NVIDIA H100 80GB HBM3, 0000:18:00.0): "
JOURNAL = {"source": "journal", "complete": True, "xids": [], "error": None}


def reading(*gpus, log=None):
    result = nvml_health(fh.HealthNVML(list(gpus)))
    result["hostname"] = "ws1"
    result["kernel_log"] = log or dict(JOURNAL)
    return result


def with_xids(*lines):
    return dict(JOURNAL, xids=parse_xids(lines))


def benchmark(gen, width=16, uuid=H100_UUID):
    """A torch_benchmark document whose telemetry saw the link at `gen` (gemm_bf16) and gen 2 (memcpy)."""
    return {"devices": [{"index": 0, "uuid": uuid, "figures": {
        "gemm_bf16": {"telemetry": {"pcie_gen": {"min": 1, "median": gen, "max": gen},
                                    "pcie_width": {"min": width, "median": width, "max": width}}},
        "memcpy": {"telemetry": {"pcie_gen": {"min": 1, "median": 2, "max": 2}}},
        "h2d": {"telemetry_error": "nvidia-ml-py is not installed"}}}]}


def gates(result, gpu=0):
    return dict((gate, verdict["status"]) for gate, verdict in result["gpus"][gpu]["gates"].items())


def test_a_healthy_h100_passes_every_gate():
    result = health_gates.evaluate(reading(fh.H100_HEALTHY), host="ws1")
    assert result["passed"] and result["failures"] == [] and result["unknown"] == []
    assert gates(result) == {"pcie_gen": "passed", "pcie_width": "passed", "xid": "passed", "remapped_rows": "passed",
                             "ecc_volatile": "passed", "ecc_aggregate": "off", "pcie_replay": "passed",
                             "nvlink": "passed"}
    assert result["summary"] == "health: passed on 1 GPU"
    assert result["gpus"][0]["gates"]["pcie_gen"]["text"] == "PCIe gen 5 of 5"
    assert result["gpus"][0]["gates"]["pcie_replay"]["text"] == "no PCIe replay since the driver loaded"
    assert result["gpus"][0]["gates"]["nvlink"]["text"] == "18 of 18 NVLink links active (NVLink 4.0)"


def test_link_generation_judged_under_load():
    idle = dict(fh.H100_HEALTHY, pcie=(1, 5, 16, 16), pstate=8)
    # idle, no telemetry: unknown, and said
    result = health_gates.evaluate(reading(idle), host="ws1")
    assert result["passed"] and gates(result)["pcie_gen"] == "unknown"
    assert result["unknown"] == [LABEL + "PCIe link generation 1 of 5 at idle (P8; a link slows down at idle) and no "
                                 "reading under load (the benchmark reads the link when nvidia-ml-py imports in the "
                                 "stack)"]
    assert "unknown: " + result["unknown"][0] in result["summary"]
    # the benchmark saw gen 5: passed, though the link idles at gen 1 now
    result = health_gates.evaluate(reading(idle), host="ws1", benchmark=benchmark(5))
    assert result["passed"] and result["gpus"][0]["gates"]["pcie_gen"]["text"] == "PCIe gen 5 of 5 under load (gemm_bf16)"
    # gen 3 at most under load: failed, naming the test, and the stored result's date when it is one
    result = health_gates.evaluate(reading(idle), host="ws1", benchmark=benchmark(3), stored="2026-11-20T08:00:00Z")
    assert not result["passed"]
    assert result["failures"] == [LABEL + "PCIe link generation 3 under load (gemm_bf16, result of 2026-11-20T08:00:00Z), "
                                  "expected 5 (the link's maximum): reseat the card, check its slot or riser and the "
                                  "firmware's PCIe settings"]
    # busy now (P0, 100 %) at gen 4 without telemetry: failed
    busy = dict(idle, pcie=(4, 5, 16, 16), pstate=0, utilization=100)
    result = health_gates.evaluate(reading(busy), host="ws1")
    assert result["failures"] == [LABEL + "PCIe link generation 4 while busy (P0, 100% utilisation), expected 5 (the "
                                  "link's maximum): reseat the card, check its slot or riser and the firmware's PCIe "
                                  "settings"]
    # telemetry of another GPU (UUID) does not count
    result = health_gates.evaluate(reading(idle), host="ws1", benchmark=benchmark(5, uuid="GPU-other"))
    assert gates(result)["pcie_gen"] == "unknown"


def test_link_width():
    narrow = dict(fh.H100_HEALTHY, pcie=(5, 5, 8, 16))
    result = health_gates.evaluate(reading(narrow), host="ws1")
    assert result["failures"] == [LABEL + "PCIe link width x8, expected x16 (the link's maximum): reseat the card, "
                                  "check its slot or riser and the firmware's PCIe settings"]
    # x16 under load counts (a board that narrows its link at idle)
    assert health_gates.evaluate(reading(narrow), host="ws1", benchmark=benchmark(5, 16))["passed"]


def test_xid_errors_since_boot():
    log = with_xids("NVRM: Xid (PCI:0000:18:00): 13, pid=4242, name=python3, Graphics SM Warp Exception",
                    "NVRM: Xid (PCI:0000:18:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit "
                    "error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.",
                    "NVRM: Xid (PCI:0000:18:00): 94, pid=9120, name=python3, Contained: SM (0x1). RST: No",
                    "NVRM: Xid (PCI:0000:18:00): 94, pid=9121, name=python3, Contained: SM (0x2). RST: No",
                    "NVRM: Xid (PCI:0000:41:00): 31, pid=1, name=x, MMU Fault")
    result = health_gates.evaluate(reading(fh.H100_HEALTHY, log=log), host="ws1")
    assert result["failures"] == [
        LABEL + "Xid 48 (1 time, last: An uncorrectable double bit error (DBE) has been detected on GPU in the "
        "framebuffer at partition 6, subpartition 0.), Xid 94 (2 times, last: Contained: SM (0x2). RST: No) since "
        "boot, expected none (ignored: Xid 13, 31, 43, 45): see the driver's Xid catalogue for each code"]
    # the ignored list is the user's
    result = health_gates.evaluate(reading(fh.H100_HEALTHY, log=log), {"xid_ignore": [13, 31, 43, 45, 48, 94]}, "ws1")
    assert result["passed"] and gates(result)["xid"] == "passed"
    assert health_gates.evaluate(reading(fh.H100_HEALTHY, log=log), {"xid": False}, "ws1")["passed"]


def test_a_gpu_that_fell_off_the_bus_is_no_longer_listed():
    log = with_xids("NVRM: Xid (PCI:0000:3b:00): 79, pid=1452, name=python3, GPU has fallen off the bus.")
    result = health_gates.evaluate(reading(fh.H100_HEALTHY, log=log), host="ws1")
    assert gates(result)["xid"] == "passed"
    assert result["failures"] == ["ws1: GPU at 0000:3b:00 (not listed by NVML): Xid 79 (1 time, last: GPU has fallen "
                                  "off the bus.) since boot, expected none (ignored: Xid 13, 31, 43, 45)"]


def test_an_unreadable_kernel_log_is_unknown_once_and_fails_only_when_required():
    log = {"source": None, "complete": False, "xids": [],
           "error": "journalctl: not installed; /dev/kmsg: permission denied"}
    result = health_gates.evaluate(reading(fh.H100_HEALTHY, log=log), host="ws1")
    assert result["passed"] and gates(result)["xid"] == "unknown"
    assert result["unknown"] == ["ws1: Xid errors unknown: the kernel log could not be read (journalctl: not "
                                 "installed; /dev/kmsg: permission denied)"]
    result = health_gates.evaluate(reading(fh.H100_HEALTHY, log=log), {"require_known": True}, "ws1")
    assert result["failures"] == [result["unknown"][0] + " (verify_health_require_known)"]
    # a ring buffer that wrapped is said
    partial = dict(JOURNAL, source="/dev/kmsg", complete=False)
    text = health_gates.evaluate(reading(fh.H100_HEALTHY, log=partial))["gpus"][0]["gates"]["xid"]["text"]
    assert text == "no Xid since boot in the /dev/kmsg (the kernel's ring buffer no longer reaches back to boot)"


def test_remapped_rows_and_retired_pages():
    pending = dict(fh.H100_HEALTHY, remap=(0, 1, 1, 0))
    assert health_gates.evaluate(reading(pending), host="ws1")["failures"] == [
        LABEL + "a row remap is pending (0 corrected, 1 uncorrected rows remapped), expected none: reset the GPU "
        "(nvidia-smi -r) or reboot to apply it"]
    failed = dict(fh.H100_HEALTHY, remap=(0, 8, 0, 1))
    assert health_gates.evaluate(reading(failed), host="ws1")["failures"] == [
        LABEL + "row remapping failed (8 uncorrected rows remapped), expected no failure: the GPU has no spare row "
        "left for the bank, which needs a replacement (RMA)"]
    # remapped rows that were applied are no failure
    applied = health_gates.evaluate(reading(dict(fh.H100_HEALTHY, remap=(2, 1, 0, 0))), host="ws1")
    assert applied["passed"] and applied["gpus"][0]["gates"]["remapped_rows"]["text"] == \
        "remapped rows 2 corrected, 1 uncorrected"
    volta = dict(fh.H100_HEALTHY, remap=fh.NS, retired_pending=1, retired={0: [0x1a2b000], 1: [0x3f00000]})
    assert health_gates.evaluate(reading(volta), host="ws1")["failures"] == [
        LABEL + "a page retirement is pending (1 pages retired for single-bit, 1 for double-bit errors), expected "
        "none: reset the GPU or reboot to apply it"]


def test_uncorrected_ecc():
    sick = dict(fh.H100_HEALTHY, ecc_errors={0: 2, 1: 7})
    assert health_gates.evaluate(reading(sick), host="ws1")["failures"] == [
        LABEL + "2 uncorrected ECC error(s) since the driver loaded, expected 0"]
    old = dict(fh.H100_HEALTHY, ecc_errors={0: 0, 1: 7})
    assert health_gates.evaluate(reading(old), host="ws1")["passed"]
    assert health_gates.evaluate(reading(old), {"ecc_aggregate": True}, "ws1")["failures"] == [
        LABEL + "7 uncorrected ECC error(s) over the GPU's life, expected 0"]


def test_geforce_without_ecc_or_remapped_rows_is_not_supported_never_failed():
    result = health_gates.evaluate(reading(fh.RTX_5090_IDLE), {"ecc_aggregate": True, "require_known": True}, "ws1",
                                   benchmark=benchmark(5, uuid=fh.RTX_5090_IDLE["uuid"]))
    assert result["passed"], result["failures"]
    assert gates(result) == {"pcie_gen": "passed", "pcie_width": "passed", "xid": "passed",
                             "remapped_rows": "not_supported", "ecc_volatile": "not_supported",
                             "ecc_aggregate": "not_supported", "pcie_replay": "passed", "nvlink": "not_supported"}
    assert result["not_supported"][-1] == "GPU 0 (NVIDIA GeForce RTX 5090, 0000:01:00.0) NVLink not supported"
    assert result["not_supported"][0] == ("GPU 0 (NVIDIA GeForce RTX 5090, 0000:01:00.0) remapped rows and retired "
                                          "pages not supported")


def test_an_nvml_error_is_unknown_with_its_text():
    lost = dict(fh.H100_HEALTHY, ecc_errors={0: fh.NVMLError_GpuIsLost, 1: 0})
    result = health_gates.evaluate(reading(lost), host="ws1")
    assert result["passed"] and result["unknown"] == [
        LABEL + "uncorrected ECC errors unknown (NVMLError_GpuIsLost: GPU is lost)"]


@pytest.mark.parametrize("device, where", [("cuda", "unknown"), ("cpu", "notes")])
def test_no_gpu_read(device, where):
    """A container without a GPU: NVML cannot be read, nor the kernel log."""
    empty = {"gpus": [], "nvml_error": "nvidia-ml-py is not installed for the module's Python", "hostname": "bw-a",
             "kernel_log": {"source": None, "complete": False, "xids": [],
                            "error": "journalctl -k -b: the journal holds no kernel message of this boot; "
                                     "/dev/kmsg: no such device"}}
    result = health_gates.evaluate(empty, host="bw-a", device=device)
    assert result["passed"] and result["gpus"] == []
    assert "bw-a: no NVIDIA GPU read (nvidia-ml-py is not installed for the module's Python)" in result[where]
    assert result["unknown"][0].startswith("bw-a: Xid errors unknown: the kernel log could not be read")


def test_options_are_checked():
    with pytest.raises(ValueError, match="verify_health_xid must be true or false .got 'yes'.; "
                                         "verify_health_xid_ignore must be a list of Xid numbers"):
        health_gates.evaluate({}, {"xid": "yes", "xid_ignore": ["13"]})
    with pytest.raises(ValueError, match="unknown health option.s.: pcie"):
        health_gates.evaluate({}, {"pcie": True})


def test_with_health_joins_the_verdict():
    document = h100_result()
    assert health_gates.with_health(document, {}) is document
    good = health_gates.evaluate(reading(fh.H100_HEALTHY), host="ws1")
    joined = health_gates.with_health(document, good)
    assert joined["passed"] and joined["message"] == document["message"] and joined["health"] == good
    assert joined["summary"][-1] == "health: passed on 1 GPU"
    bad = health_gates.evaluate(reading(dict(fh.H100_HEALTHY, remap=(0, 1, 1, 0))), host="ws1")
    joined = health_gates.with_health(joined, bad)
    assert not joined["passed"]
    assert joined["message"] == "1 health gate(s) failed: " + bad["failures"][0]
    assert [line for line in joined["summary"] if line.startswith("health: ")] == [bad["summary"]]
    # a failed benchmark keeps its message first
    failed = dict(copy.deepcopy(document), passed=False, message="1 benchmark gate(s) failed on vm: memcpy ...")
    assert health_gates.with_health(failed, bad)["message"] == (
        "1 benchmark gate(s) failed on vm: memcpy ...; 1 health gate(s) failed: " + bad["failures"][0])
