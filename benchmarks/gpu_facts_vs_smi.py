"""Compare blackwell.pytorch.gpu_facts (run through Ansible) with nvidia-smi, GPU by GPU.

Usage (on a GPU machine, Ansible and this collection on the path):
    python3 benchmarks/gpu_facts_vs_smi.py
Prints one row per field and GPU: what nvidia-smi says, what the facts say, match or not;
exits 1 on any mismatch.
"""
from __future__ import annotations

import json
import subprocess
import sys

SMI_FIELDS = ("index,name,compute_cap,driver_version,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,"
              "pcie.link.width.current,pcie.link.width.max,memory.total,clocks.max.sm,clocks.max.memory,"
              "power.limit,persistence_mode,mig.mode.current,ecc.mode.current")


def smi_rows():
    out = subprocess.run(["nvidia-smi", "--query-gpu=" + SMI_FIELDS, "--format=csv,noheader,nounits"],
                         check=True, capture_output=True, text=True).stdout
    keys = SMI_FIELDS.split(",")
    return [dict(zip(keys, (v.strip() for v in line.split(",")))) for line in out.strip().splitlines()]


def facts():
    out = subprocess.run(["ansible", "localhost", "-i", "localhost,", "-c", "local", "-o",
                          "-e", "ansible_python_interpreter=" + sys.executable,
                          "-m", "blackwell.pytorch.gpu_facts", "-a", "nvml=required"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.split("=>", 1)[1])["ansible_facts"]


def flag(value):
    return {"Enabled": True, "Disabled": False}.get(value, None)


def bus(value):
    return value.lower()[-12:]


def main():
    got = facts()
    driver = got["nvidia_driver"]
    rows, bad = [], 0
    proc = open("/proc/driver/nvidia/version").read().splitlines()[0]
    rows.append(("driver", "version", smi_rows()[0]["driver_version"], driver["version"]))
    rows.append(("driver", "flavor", "open" if "Open Kernel Module" in proc else "proprietary",
                 driver["kernel_module_flavor"]))
    rows.append(("driver", "cuda api", "(nvidia-smi banner)", driver["cuda_driver_version"]))
    for smi, fact in zip(smi_rows(), got["nvidia_gpus"]):
        i = smi["index"]
        for field, want, have in (
            ("name", smi["name"], fact["name"]),
            ("capability", smi["compute_cap"], fact["compute_capability"]),
            ("sm", "sm_" + smi["compute_cap"].replace(".", ""), fact["sm"]),
            ("bus id", bus(smi["pci.bus_id"]), bus(fact["pci_bus_id"])),
            ("pcie gen cur/max", "%s/%s" % (smi["pcie.link.gen.current"], smi["pcie.link.gen.max"]),
             "%s/%s" % (fact["pcie_gen_current"], fact["pcie_gen_max"])),
            ("pcie width cur/max", "%s/%s" % (smi["pcie.link.width.current"], smi["pcie.link.width.max"]),
             "%s/%s" % (fact["pcie_width_current"], fact["pcie_width_max"])),
            ("memory MiB", smi["memory.total"], str(fact["memory_total_mib"])),
            ("max sm clock", smi["clocks.max.sm"], str(fact["max_sm_clock_mhz"])),
            ("max mem clock", smi["clocks.max.memory"], str(fact["max_mem_clock_mhz"])),
            ("power limit W", "%.1f" % float(smi["power.limit"]), "%.1f" % fact["power_limit_w"]),
            ("persistence", flag(smi["persistence_mode"]), fact["persistence_mode"]),
            ("mig", flag(smi["mig.mode.current"]), fact["mig_mode"]),
            ("ecc", flag(smi["ecc.mode.current"]), fact["ecc_mode"]),
        ):
            rows.append(("gpu " + i, field, want, have))
    print("%-7s %-19s %-26s %-26s %s" % ("what", "field", "nvidia-smi", "gpu_facts", "match"))
    for what, field, want, have in rows:
        same = str(want) == str(have) or want == "(nvidia-smi banner)"
        bad += 0 if same else 1
        print("%-7s %-19s %-26s %-26s %s" % (what, field, want, have, "yes" if same else "NO"))
    print("arch family: %s; bus width: %s bits; source: %s" % (
        got["nvidia_gpus"][0]["arch_family"], got["nvidia_gpus"][0]["memory_bus_width_bits"],
        got["nvidia_gpus"][0]["source"]))
    print("mismatches: %d" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
