"""The health textfile: node_exporter's text format (HELP and TYPE once per metric, before its samples; one
sample per GPU and label set), dcgm-exporter's names and labels, nothing for what was not read."""
from __future__ import annotations

import re

import fake_nvml_health as fh
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_health import nvml_health, parse_xids
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import health_gates, health_metrics

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
SAMPLE = re.compile(r'^(%s)\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*",?)*)\} (-?[0-9.e+]+)$' % NAME)


def parse(text):
    """{metric: {"help", "type", "samples": [(labels dict, value)]}}, failing on anything node_exporter refuses."""
    assert text.endswith("\n")
    metrics, current = {}, None
    for line in text[:-1].split("\n"):
        if line.startswith("# HELP "):
            name, help_text = line[7:].split(" ", 1)
            assert name not in metrics and help_text, line
            metrics[name] = {"help": help_text, "type": None, "samples": []}
            current = name
        elif line.startswith("# TYPE "):
            name, kind = line[7:].split(" ")
            assert name == current and metrics[name]["type"] is None and kind in ("gauge", "counter"), line
            metrics[name]["type"] = kind
        else:
            match = SAMPLE.match(line)
            assert match and match.group(1) == current, line
            labels = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', match.group(2)))
            assert labels not in [seen for seen, value in metrics[current]["samples"]], "duplicate series: " + line
            metrics[current]["samples"].append((labels, float(match.group(3))))
    return metrics


def two_gpus(log=None):
    reading = nvml_health(fh.HealthNVML([fh.H100_HEALTHY, dict(fh.H100_HEALTHY, uuid="GPU-2", bus_id="00000000:2A:00.0",
                                                               minor=1, remap=(3, 1, 1, 0), ecc_errors={0: 2, 1: 9})]))
    reading["hostname"] = "ws1.lab"
    reading["kernel_log"] = log or {"source": "journal", "complete": True, "error": None, "xids": parse_xids([
        "NVRM: Xid (PCI:0000:2a:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row marked for remapping",
        "NVRM: Xid (PCI:0000:2a:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error"])}
    return reading


def test_dcgm_names_and_labels_one_sample_per_gpu():
    reading = two_gpus()
    health = health_gates.evaluate(reading, host="ws1")
    metrics = parse(health_metrics.prometheus(reading, health, "ws1"))
    for name in ("DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_PCIE_LINK_GEN", "DCGM_FI_DEV_PCIE_LINK_WIDTH",
                 "DCGM_FI_DEV_PCIE_MAX_LINK_GEN", "DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH",
                 "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
                 "DCGM_FI_DEV_ROW_REMAP_FAILURE", "DCGM_FI_DEV_ROW_REMAP_PENDING", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
                 "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL"):
        assert len(metrics[name]["samples"]) == 2, name
    first, second = (labels for labels, value in metrics["DCGM_FI_DEV_XID_ERRORS"]["samples"])
    assert first == {"gpu": "0", "UUID": fh.H100_HEALTHY["uuid"], "pci_bus_id": "00000000:18:00.0", "device": "nvidia0",
                     "modelName": "NVIDIA H100 80GB HBM3", "Hostname": "ws1.lab"}
    assert second["pci_bus_id"] == "00000000:2A:00.0" and second["device"] == "nvidia1"
    value = dict((labels["gpu"], v) for labels, v in metrics["DCGM_FI_DEV_XID_ERRORS"]["samples"])
    assert value == {"0": 0.0, "1": 48.0}  # the last Xid of each GPU, 0 for none
    pending = dict((labels["gpu"], v) for labels, v in metrics["DCGM_FI_DEV_ROW_REMAP_PENDING"]["samples"])
    assert pending == {"0": 0.0, "1": 1.0}
    assert metrics["DCGM_FI_DEV_ECC_DBE_AGG_TOTAL"]["type"] == "counter"
    assert metrics["DCGM_FI_DEV_ROW_REMAP_FAILURE"]["type"] == "gauge"
    # retired pages are not supported on an H100: no sample
    assert "DCGM_FI_DEV_RETIRED_PENDING" not in metrics
    events = metrics["blackwell_pytorch_health_xid_events"]["samples"]
    assert sorted((labels["gpu"], labels["xid"], v) for labels, v in events) == [("1", "48", 1.0), ("1", "63", 1.0)]
    gate = dict(((labels["gpu"], labels["gate"]), v) for labels, v in
                metrics["blackwell_pytorch_health_gate_passed"]["samples"])
    assert gate[("0", "xid")] == 1.0 and gate[("1", "xid")] == 0.0 and gate[("1", "remapped_rows")] == 0.0
    assert ("0", "ecc_aggregate") not in gate  # off: no sample
    assert metrics["blackwell_pytorch_health_passed"]["samples"] == [({"Hostname": "ws1.lab"}, 0.0)]
    assert metrics["blackwell_pytorch_health_kernel_log_readable"]["samples"] == [({"Hostname": "ws1.lab"}, 1.0)]


def test_no_xid_metric_without_a_kernel_log_and_nothing_per_gpu_without_nvml():
    reading = two_gpus({"source": None, "complete": False, "xids": [], "error": "/dev/kmsg: permission denied"})
    metrics = parse(health_metrics.prometheus(reading))
    assert "DCGM_FI_DEV_XID_ERRORS" not in metrics and "blackwell_pytorch_health_xid_events" not in metrics
    assert "blackwell_pytorch_health_passed" not in metrics  # no verdict given
    assert metrics["blackwell_pytorch_health_kernel_log_readable"]["samples"] == [({"Hostname": "ws1.lab"}, 0.0)]
    empty = {"gpus": [], "nvml_error": "nvidia-ml-py is not installed", "kernel_log": reading["kernel_log"]}
    text = health_metrics.prometheus(empty, health_gates.evaluate(empty, device="cpu"), "bw-verify-a")
    assert parse(text) and text == (
        "# HELP blackwell_pytorch_health_kernel_log_readable 1 when the kernel log could be read for Xid errors, "
        "else 0.\n# TYPE blackwell_pytorch_health_kernel_log_readable gauge\n"
        'blackwell_pytorch_health_kernel_log_readable{Hostname="bw-verify-a"} 0\n'
        "# HELP blackwell_pytorch_health_passed 1 when every health gate passed on this host, else 0.\n"
        "# TYPE blackwell_pytorch_health_passed gauge\n"
        'blackwell_pytorch_health_passed{Hostname="bw-verify-a"} 1\n')


def test_label_values_are_escaped():
    reading = two_gpus()
    reading["gpus"][0]["name"] = 'odd "name"\\x'
    metrics = parse(health_metrics.prometheus(reading))
    assert metrics["DCGM_FI_DEV_PCIE_LINK_GEN"]["samples"][0][0]["modelName"] == 'odd \\"name\\"\\\\x'


def test_pcie_replays_and_nvlink_links_per_gpu():
    links = [(1, 6, "FFFFFFFF:FF:FF.0")] * 18
    links[5] = (0, 6, "FFFFFFFF:FF:FF.0")
    reading = nvml_health(fh.HealthNVML([dict(fh.H100_HEALTHY, pcie_replay=37, nvlink=links), fh.RTX_5090_IDLE]))
    reading["hostname"] = "ws1.lab"
    reading["kernel_log"] = {"source": "journal", "complete": True, "error": None, "xids": []}
    health = health_gates.evaluate(reading, host="ws1")
    metrics = parse(health_metrics.prometheus(reading, health, "ws1"))
    replay = metrics["DCGM_FI_DEV_PCIE_REPLAY_COUNTER"]
    assert (replay["type"], replay["help"]) == ("counter", "Total number of PCIe retries.")
    assert [(labels["gpu"], value) for labels, value in replay["samples"]] == [("0", 37.0), ("1", 0.0)]
    assert [(labels["gpu"], value) for labels, value in metrics[health_metrics.PREFIX + "nvlink_links"]["samples"]] == [
        ("0", 18.0)]
    active = metrics[health_metrics.PREFIX + "nvlink_links_active"]["samples"]
    assert [(labels["gpu"], value) for labels, value in active] == [("0", 17.0)]
    gate = [(labels["gpu"], value) for labels, value in metrics[health_metrics.PREFIX + "gate_passed"]["samples"]
            if labels["gate"] == "nvlink"]
    assert gate == [("0", 0.0)]
