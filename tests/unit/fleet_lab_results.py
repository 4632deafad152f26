"""Verification results of a lab as the fleet report meets it, from figures measured on real GPUs.

A healthy NVIDIA H200 pair (driver 580.159.04, torch 2.11.0+cu130) measured gemm_bf16 0.816 of its
peak, memcpy 0.886, h2d 0.869, d2h 0.877, SDPA 0.355, softmax over 8192 columns 0.224, LayerNorm
0.498 and a 25 s sustained GEMM 0.680; an H100 80GB HBM3 SDPA 0.351 and softmax 0.304 (1019 of
3350 GB/s). Each figure carries the figure expected of its model (a per-SKU measurement, close to
those fractions). Beside another user's bf16 matmul loop the H200's gemm_bf16 fell to 260.5 TFLOP/s
(0.26 of peak) while memcpy held. P2P copies over the pair's NVLink 4.0 (18 links, 450 GB/s
nominal per direction) measured 388 GB/s each way, the NCCL all-reduce 295 GB/s bus bandwidth.
"""
from __future__ import annotations

import copy

from fleet_results import BASIS, figure, set_value, spread

H100, H200 = "NVIDIA H100 80GB HBM3", "NVIDIA H200"
RTX4090, PRO6000 = "NVIDIA GeForce RTX 4090", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"
# model -> peak per kind: TFLOP/s bf16 dense, memory GB/s, PCIe 5.0 x16 GB/s (the catalogue's, else derived)
PEAKS = {H100: (989.0, 3350.0, 63.008), H200: (989.0, 4800.0, 63.008), RTX4090: (165.2, 1008.0, 31.504),
         PRO6000: (503.8, 1792.0, 63.008)}
# test -> (size, unit, peak index)
TESTS = {"gemm_bf16": ("m=8192 n=8192 k=8192 bf16", "TFLOP/s", 0), "memcpy": ("mib=1024", "GB/s", 1),
         "h2d": ("mib=256", "GB/s", 2), "d2h": ("mib=256", "GB/s", 2),
         "sdpa": ("batch=8 heads=16 seq=2048 head_dim=128 bf16", "TFLOP/s", 0),
         "softmax": ("rows=16384 cols=8192 bf16", "GB/s", 1), "layernorm": ("rows=16384 cols=8192 bf16", "GB/s", 1),
         "sustained": ("m=8192 n=8192 k=8192 seconds=25 bf16", "TFLOP/s", 0)}
# model -> test -> (measured fraction of peak on a healthy GPU, expected fraction of the model's reference row;
# None: no reference for the model)
MEASURED = {
    H200: {"gemm_bf16": (0.816, 0.80), "memcpy": (0.886, 0.89), "h2d": (0.869, 0.87), "d2h": (0.877, 0.88),
           "sdpa": (0.355, 0.35), "softmax": (0.224, 0.22), "layernorm": (0.498, 0.50), "sustained": (0.680, 0.68)},
    H100: {"gemm_bf16": (0.804, 0.80), "memcpy": (0.874, 0.88), "h2d": (0.862, 0.87), "d2h": (0.866, 0.87),
           "sdpa": (0.351, 0.35), "softmax": (0.304, 0.30), "layernorm": (0.489, 0.50), "sustained": (0.700, 0.70)},
    RTX4090: {"gemm_bf16": (0.90, None), "memcpy": (0.83, None), "sustained": (0.82, None)},
    PRO6000: {"gemm_bf16": (0.79, 0.78), "memcpy": (0.86, 0.87), "sustained": (0.70, 0.70)},
}
PRODUCT_LINES = {H100: "datacenter", H200: "datacenter", RTX4090: "geforce", PRO6000: "workstation"}
GATES = {"datacenter": {"gemm_bf16": {"min_fraction_of_expected": 0.75}, "memcpy": {"min_fraction_of_expected": 0.75}},
         "geforce": {"gemm_bf16": {"min_tflops": 100}, "memcpy": {"min_gbps": 700}},
         "workstation": {"gemm_bf16": {"min_fraction_of_expected": 0.75}, "memcpy": {"min_fraction_of_expected": 0.75}}}
STACK = {"driver_version": "580.159.04", "cuda_toolkit": "13.0.2",
         "torch": {"version": "2.11.0+cu130", "cuda": "13.0"}, "packages": ["torch==2.11.0+cu130"],
         "collection_version": "0.5.0"}


def device(host, index, model):
    """A benchmarked device with every test its model has figures for, near what a healthy one measures."""
    figures = {}
    for test, (fraction, expected_fraction) in MEASURED[model].items():
        size, unit, which = TESTS[test]
        peak = PEAKS[model][which]
        value = round(peak * fraction * spread("%s-%d" % (host, index), test), 2)
        figures[test] = figure(test, value, unit, peak, ["sw_power_cap"] if unit == "TFLOP/s" else [], 1755.0,
                               ratio=0.98 if test == "sustained" else None, fraction=expected_fraction, size=size)
        if figures[test]["expected"]:
            figures[test]["expected"]["source"] = "measured on %s, driver 580.159.04, torch 2.11.0+cu130" % model
    line = PRODUCT_LINES[model]
    return {"index": index, "name": model, "uuid": "GPU-%s-%d" % (host, index), "product_line": line,
            "gates": GATES[line], "figures": figures}


def lab_result(host, models=(H200,), written="2026-11-28T05:00:00Z"):
    """A passed verification result of a host with one GPU per model of `models`."""
    return {"schema": "blackwell.pytorch.verify/1", "host": host, "passed": True, "message": "all gates passed",
            "written": written, "results": "/var/lib/blackwell-pytorch/verify.json", "fingerprint": dict(STACK),
            "failed_gates": [],
            "benchmark": {"devices": [device(host, index, model) for index, model in enumerate(models)],
                          "multi_gpu": None}}


def lab_fleet(count=32, written="2026-11-28T05:00:00Z"):
    """{host: result} of `count` healthy hosts, H100 and H200 in turn (lab-00 ...)."""
    return dict(("lab-%02d" % number, lab_result("lab-%02d" % number, (H100 if number % 2 == 0 else H200,), written))
                for number in range(count))


def with_value(document, test, value, gpu=0):
    """A copy of the result with `test` of GPU `gpu` at `value` (its fractions following)."""
    document = copy.deepcopy(document)
    set_value(document["benchmark"]["devices"][gpu]["figures"][test], value)
    return document


BUSY_PROCESS = {"gpu": 0, "gpu_name": H200, "pid": 4242, "user": "alice", "command": "python3", "memory_mib": 20582}
MATMUL_LOOP = {"gpu": 0, "gpu_name": H200, "pid": 1099, "user": "root", "command": "python3", "memory_mib": 874}


def busy_result(host, written="2026-11-28T05:00:00Z"):
    """A deferred result: another user's process held GPU 0 through the wait, nothing was measured."""
    text = "busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB)"
    return {"schema": "blackwell.pytorch.verify/1", "host": host, "passed": False, "status": "busy", "deferred": True,
            "message": text, "written": written, "results": "/var/lib/blackwell-pytorch/verify.json",
            "fingerprint": dict(STACK), "failed_gates": [],
            "busy": {"state": "busy", "mode": "wait", "waited_s": 60.2, "processes": [dict(BUSY_PROCESS)],
                     "text": text}}


def measured_busy_result(host, written="2026-11-28T05:00:00Z"):
    """Measured beside another user's bf16 matmul loop: gemm_bf16 fell to 260.5 TFLOP/s, memcpy held."""
    document = with_value(lab_result(host, (H200,), written), "gemm_bf16", 260.47)
    document["busy"] = {"state": "measured_busy", "mode": "measure", "waited_s": 0.0,
                        "processes": [dict(MATMUL_LOOP)], "text": "busy: GPU 0 pid 1099 (python3, user root, 874 MiB)"}
    return document


def mixed_gpu_result(host, written="2026-11-28T05:00:00Z"):
    """An RTX 4090 and an RTX PRO 6000 Blackwell in one host, each judged by its own gates: the 4090's memcpy
    (554 GB/s) fails its min_gbps 700 gate, the RTX PRO 6000 passes."""
    document = with_value(lab_result(host, (RTX4090, PRO6000), written), "memcpy", 554.4, gpu=0)
    failure = {"host": host, "test": "memcpy", "gpu_index": 0, "gpu_name": RTX4090, "gate": "min_gbps", "bound": 700,
               "measured": 554.4, "value": 554.4, "unit": "GB/s", "peak": 1008.0, "peak_source": "derived",
               "reason": "measured 554.4 < bound 700"}
    document.update(passed=False, failed_gates=[failure],
                    message="1 benchmark gate(s) failed on %s: memcpy on GPU 0 (%s): min_gbps 700: measured 554.4 < "
                            "bound 700, 554.4 GB/s, peak 1008.0 GB/s (derived)" % (host, RTX4090))
    return document


NVLINK = {"link": "nvlink", "nvlink_version": "4.0", "links": 18, "per_link_gbps": 25.0, "expected_gbps": 450.0}


def _multi_figure(test, value, expected_value, source, extra):
    fig = {"test": test, "size": "mib=256", "unit": "GB/s", "status": "ok", "error": None, "value": value,
           "peak": None, "fraction_of_peak": None, "peak_note": "no theoretical peak for this test",
           "expected": {"value": expected_value, "fraction_of_peak": None, "source": source, "basis": BASIS},
           "fraction_of_expected": round(value / expected_value, 4)}
    fig.update(extra)
    return fig


def h200_pair_result(host, p2p=(387.88, 388.01), allreduce=294.79, written="2026-11-28T05:00:00Z"):
    """Two H200 joined by NVLink 4.0 x18: the P2P copy of each ordered pair and the all-reduce, each with the
    figure expected of the link (450 GB/s nominal each way; 360 GB/s bus bandwidth for the all-reduce)."""
    document = lab_result(host, (H200, H200), written)
    link = "NVLink 4.0, 18 links at 25 GB/s per direction"
    document["benchmark"]["multi_gpu"] = {
        "gpus": [0, 1], "status": "ok", "error": None,
        "topology": {"pairs": {"0->1": dict(NVLINK), "1->0": dict(NVLINK)}},
        "figures": {
            "p2p": [_multi_figure("p2p", p2p[0], 450.0, link, {"src": 0, "dst": 1, "peer_access": True}),
                    _multi_figure("p2p", p2p[1], 450.0, link, {"src": 1, "dst": 0, "peer_access": True})],
            "allreduce": _multi_figure("allreduce", allreduce, 360.0, "0.8 of the pair's NVLink bandwidth (%s)" % link,
                                       {"ranks": 2, "backend": "nccl"})}}
    return document
