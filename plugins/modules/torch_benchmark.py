#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: torch_benchmark
short_description: Measure a PyTorch stack per GPU against the GPU's theoretical peak, and gate on it
version_added: 0.1.0
description:
  - Runs a benchmark suite with the Python interpreter of a PyTorch environment (O(python)), one child
    process per GPU, one after the other, each with a timeout, and one child between GPUs when several
    are benchmarked. Every figure carries its size, what it counts, the median with min, max and spread
    of at least 10 repetitions, the reference peak and its source (V(table), or V(derived) from SM count, NVML
    clocks and bus width) and the fraction of peak.
  - "Suite: dense GEMM (fp16, bf16, TF32, fp32, fp64, FP8), batched GEMM, copies, SDPA, conv2d, LayerNorm and
    softmax; with several GPUs P2P copy per ordered pair and NCCL all-reduce; the low-precision recipes (FP8 with
    row-wise scales, MXFP8, NVFP4, grouped FP8: what this GPU, torch or cuBLAS does not offer is V(skipped) with
    the reason, and fails nothing unless a gate names it); C(sustained) load with power against the enforced limit;
    profile V(full) adds model throughput and the torch.compile speedup. The suite table, the method (CUDA events,
    random rotated inputs, each result checked against float64), the peaks, NVML telemetry, link expectations and
    PCIe counters: docs/modules/torch_benchmark.md in the collection."
  - O(gates) turn figures into a verdict; any failed gate fails the task with a message naming host, GPU
    index and name, measured value, bound and peak. A gate whose figure is missing (test failed, wrong
    result, no peak known) fails too.
  - With O(device=cpu) the same code paths run on a CPU-only torch with small sizes (real figures, no
    peak), so roles and molecule scenarios can exercise the plumbing without a GPU.
  - Never changes any GPU setting. Child processes run with C(CUDA_DEVICE_ORDER=PCI_BUS_ID),
    C(NCCL_NVLS_ENABLE=0), C(TORCH_SYMM_MEM_DISABLE_MULTICAST=1) and C(NVSHMEM_DISABLE_NVLS=1) (NVLink
    multicast off unless O(nvls)), and without C(TORCH_ALLOW_TF32_CUBLAS_OVERRIDE).
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - ansible.builtin.files
  - blackwell.pytorch.attributes
  - blackwell.pytorch.torch_children
  - blackwell.pytorch.attributes.ACTIONGROUP_TORCH
attributes:
  check_mode:
    support: full
    details:
      - A benchmark only reads, so it also runs in check mode and returns its figures and gate verdict;
        O(dest) is not written in check mode (C(changed) says whether it would be).
  diff_mode:
    support: full
    details:
      - With O(dest), the diff shows the file's JSON before and after.
options:
  python:
    description: The Python interpreter that has torch (the venv's C(bin/python)), the children's; default the module's.
    type: path
  device: {description: "V(cuda) benchmarks GPUs (none seen fails); V(cpu) runs the same code on the CPU.", type: str, choices: [cuda, cpu], default: cuda}
  gpus:
    description: Indices of the GPUs to benchmark (torch's, in PCI bus order as nvidia-smi numbers them), default every
      GPU torch sees. P2P and all-reduce run over the selected GPUs when there are two or more.
    type: list
    elements: int
  profile:
    description: V(quick) takes about 15 seconds per H100, V(standard) up to about a minute per GPU with larger sizes
      and more repetitions, V(full) adds the model-level tests and torch.compile.
    type: str
    choices: [quick, standard, full]
    default: quick
  tests:
    description:
      - Run only these tests instead of the profile's list. Names are C(gemm_fp16), C(gemm_bf16),
        C(gemm_tf32), C(gemm_fp32), C(gemm_fp64), C(gemm_fp8), C(gemm_fp8_rowwise), C(gemm_mxfp8),
        C(gemm_mxfp8_nn), C(gemm_nvfp4), C(gemm_grouped_fp8), C(gemm_batched), C(memcpy), C(h2d),
        C(d2h), C(sdpa), C(conv2d), C(layernorm), C(softmax), C(sustained), C(sustained_fp16), C(p2p), C(allreduce),
        C(transformer_encoder), C(resnet50), C(compile_speedup).
      - The profile still sets the default sizes, repetitions and timeout.
    type: list
    elements: str
  sizes:
    description:
      - "Size overrides per test, e.g. C({gemm_bf16: {m: 4096, n: 4096, k: 4096}, memcpy: {mib: 2048}}).
        Keys per test are listed in the collection's docs/modules/torch_benchmark.md; values are positive
        integers (FP8 GEMM dimensions multiples of 16)."
    type: dict
    default: {}
  reps: {description: "Timed repetitions per figure (at least 10). Default from the profile (10, 20, 30).", type: int}
  timeout:
    description: Seconds each child (one per GPU, one between GPUs) may run before it is killed (figures reported
      before are kept). Default from the profile (120, 300, 900).
    type: float
  gpu_lock:
    description:
      - File of the host's GPU lock, taken exclusively by each child before its first measurement (at most a quarter of
        O(timeout), then it measures anyway and warns), so that GPU work of M(blackwell.pytorch.torch_cuda_check),
        which takes it shared, never runs beside a figure being taken. C(devices[].gpu_lock) says how it went.
      - Default C(/run/lock/blackwell-pytorch-gpu.lock) (the temporary directory where C(/run/lock) is missing); an
        empty string takes none; a symbolic link is refused.
    type: str
  gates:
    description:
      - "Lower bounds per test: C(min_fraction_of_peak), C(min_fraction_of_expected) (over the figure's
        C(expected); a figure without one fails it), by unit C(min_tflops), C(min_gbps), C(min_tokens_per_s),
        C(min_images_per_s), C(min_speedup); for the sustained tests C(min_sustained_ratio) and C(min_power_fraction);
        C(forbid_clock_reasons) (reason names). Each bound: docs/modules/torch_benchmark.md. Example:
        C({gemm_bf16: {min_fraction_of_peak: 0.6}, sustained: {forbid_clock_reasons: [hw_thermal_slowdown]}})."
      - These apply to every GPU that no O(gpu_gates) entry names, and to the figures between GPUs.
      - Unknown test or bound names, and gates on tests that do not run, are refused before anything runs.
    type: dict
    default: {}
  gpu_gates:
    description:
      - Gates for one GPU model, index or product line, so that each GPU of a mixed host is judged as itself. Each
        entry names C(model) (as NVML and torch report it), C(index), C(line) (V(geforce), V(workstation),
        V(datacenter)) or several (all must match), and C(gates) as in O(gates) (tests of one GPU only). A GPU takes
        the first entry that names it, else O(gates); its result's C(gates) says which.
    type: list
    elements: dict
    default: []
    version_added: 0.6.0
  nvls:
    description:
      - Measure the multi-GPU tests with NVLink multicast (NVLS) on - off by default (see the description), since on a
        shared host a program using it can put every GPU out of service when it fails. With V(true) the multi-GPU
        child runs without the three variables and the all-reduce figure says C(nvls=true); the per-GPU children keep
        it off.
    type: bool
    default: false
  job_lock:
    description:
      - File of the whole run's lock (the verify role's C(<verify_results_dir>/.benchmark.lock)), held from the first
        child to the result, so that a run started again (Ctrl-C stops the play, not a background job) waits at most
        O(lock_timeout) seconds for the earlier one, then fails naming its process. Its directory is created (0755);
        a symbolic link is refused. Omitted, none is taken; a check run takes it only where the file is there.
    type: path
    version_added: 0.6.0
  lock_timeout: {description: "Seconds to wait for another run's benchmark holding O(job_lock).", type: int, default: 600, version_added: 0.6.0}
  dest:
    description:
      - Also write the result document as JSON to this file, atomically (a temporary file in the same directory,
        then a rename). Its directory must exist. O(mode) defaults to V(0644); O(owner) and O(group) apply too.
    type: path
requirements:
  - torch (2.3 or later) in the interpreter given as O(python); nvidia-ml-py there for derived peaks and
    PCIe peaks of GPUs without datasheet figures in the GPU catalogue; torchvision for the ResNet-50 test.
notes:
  - The result reports C(changed=true) when O(dest) is written (its content or attributes differ), else
    C(changed=false).
  - Peaks are theoretical; how each is found, and where a derived one sits above the datasheet, is in
    docs/modules/torch_benchmark.md.
"""

EXAMPLES = r"""
- name: Benchmark every GPU with the venv's interpreter and gate the play
  blackwell.pytorch.torch_benchmark:
    python: /opt/pytorch/current/bin/python
    profile: quick
    gates:
      gemm_bf16: {min_fraction_of_peak: 0.6}
      memcpy: {min_gbps: 2500}
    dest: /var/lib/blackwell_pytorch/benchmark.json
  register: bench

- name: Show bf16 GEMM per GPU
  ansible.builtin.debug:
    msg: >-
      {{ item.name }}: {{ item.figures.gemm_bf16.value }} TFLOP/s
      ({{ item.figures.gemm_bf16.fraction_of_peak }} of peak)
  loop: "{{ bench.benchmark.devices }}"

- name: Exercise the benchmark plumbing without a GPU
  blackwell.pytorch.torch_benchmark:
    python: /opt/pytorch/current/bin/python
    device: cpu
    tests: [gemm_fp32, memcpy, softmax]
    sizes:
      gemm_fp32: {m: 128, n: 128, k: 128}
"""

RETURN = r"""
bytecode:
  description: The finding when the stack holds no bytecode and Python may not write it (see O(bytecode_cache_dir)); null otherwise.
  returned: always
  type: str
  sample: "torch in /opt/torch/.venv has no bytecode and PYTHONDONTWRITEBYTECODE is set: the checks keep theirs in ..."
benchmark:
  description: The result document, also what O(dest) receives. Also returned when a gate fails.
  returned: success or gate failure
  type: dict
  contains:
    schema: {description: Document schema name and version., type: str, sample: blackwell.pytorch.torch_benchmark/1}
    host: {description: Host name of the target., type: str}
    device: {description: V(cuda) or V(cpu)., type: str}
    profile: {description: The profile., type: str, sample: quick}
    tests: {description: "The tests selected, in suite order.", type: list, elements: str}
    started: {description: "Start time, UTC, ISO 8601.", type: str, sample: "2026-11-20T10:00:00Z"}
    seconds: {description: Wall time of the whole run., type: float}
    python: {description: The interpreter that ran the children., type: str}
    torch: {description: "torch C(version), C(cuda), C(cudnn) and the C(python) version.", type: dict}
    settings:
      description: "C(reps), C(warmup_s), C(min_rep_s) (shortest repetition), C(timeout) and C(nvls) (NVLink multicast
        on in the multi-GPU child) used."
      type: dict
    nvml_error: {description: "Why NVML facts (clocks, bus width, PCIe) were not read; null when they were.", type: str}
    devices:
      description: One entry per benchmarked GPU (one entry for the CPU in CPU mode).
      type: list
      elements: dict
      contains:
        index: {description: GPU index (null on the CPU)., type: int}
        device: {description: "C(cuda:N) or C(cpu).", type: str}
        name: {description: Model name., type: str, sample: NVIDIA H100 80GB HBM3}
        uuid: {description: GPU UUID., type: str}
        compute_capability: {description: Compute capability., type: str, sample: "9.0"}
        sm: {description: SASS architecture., type: str, sample: sm_90}
        arch_family: {description: Architecture family., type: str, sample: Hopper}
        product_line: {description: "V(geforce), V(workstation) or V(datacenter) (the GPU catalogue's, as gpu_facts reports).", type: str}
        sm_count: {description: Streaming multiprocessors., type: int}
        l2_bytes: {description: L2 cache size (input rotation is sized from it)., type: int}
        memory_total_mib: {description: GPU memory., type: int}
        nvml:
          description: "NVML max clocks, bus width, PCIe link, power limits, bus id and NVLink links (C(nvlink),
            C(nvlink_p2p), C(nvlink_remote_gpus)); null without NVML."
          type: dict
        counters:
          description: "PCIe replay and AER counters before the GPU's first test and after its last (C(pcie_replay),
            C(aer): C(before), C(after), C(delta)); null in CPU mode or without NVML. docs/modules/torch_benchmark.md."
          type: dict
        gates: {description: "The gates this device was judged by: its O(gpu_gates) entry's, else O(gates).", type: dict, version_added: 0.6.0}
        passed: {description: "This GPU's own verdict: none of its figures failed a gate.", type: bool, version_added: 0.6.0}
        status: {description: "The child's status: V(ok), V(failed), V(timeout) or V(crashed).", type: str}
        error: {description: The child's error (null when ok)., type: str}
        seconds: {description: Wall time of the child., type: float}
        gpu_lock:
          description: "The host's GPU lock (O(gpu_lock)) as the child took it: C(path), C(mode), C(held),
            C(waited_s) and C(error) (why it measured without it). Null in CPU mode."
          type: dict
        figures:
          description: One figure per per-device test, keyed by test name.
          type: dict
          contains:
            test: {description: Test name., type: str}
            size: {description: The size measured., type: str, sample: m=8192 n=8192 k=8192 bf16}
            counts: {description: What the figure counts., type: str}
            unit: {description: "V(TFLOP/s), V(GB/s) (1e9 bytes/s), V(tokens/s), V(images/s) or V(x).", type: str}
            status: {description: "V(ok), V(skipped), V(failed), V(wrong_result) or V(not_run).", type: str}
            value: {description: Median rate (null unless ok)., type: float}
            min: {description: Lowest rate of the repetitions., type: float}
            max: {description: Highest rate of the repetitions., type: float}
            spread: {description: (max - min) / median of the repetition times., type: float}
            reps: {description: Timed repetitions., type: int}
            seconds: {description: "Median, min and max seconds per call.", type: dict}
            peak: {description: Theoretical peak in the figure's unit (null when unknown)., type: float}
            peak_source: {description: "V(table), V(derived) or null.", type: str}
            peak_note: {description: "How the peak was found, or why there is none.", type: str}
            fraction_of_peak: {description: value / peak., type: float}
            expected:
              description: "What a healthy GPU of this model reaches here (C(value), C(fraction_of_peak), C(source),
                C(basis)); null where none was measured (the figure is compared with its peers only)."
              type: dict
              version_added: 0.6.0
            fraction_of_expected: {description: value / expected value (null without an expectation)., type: float, version_added: 0.6.0}
            backend: {description: "C(sdpa): the backend torch picked (V(CUDNN_ATTENTION), V(FLASH_ATTENTION), ...).", type: str, version_added: 0.6.0}
            check:
              description: "The correctness check: C(ok) with C(rel_error) and C(bound), or C(detail)."
              type: dict
            error: {description: "Why there is no value (skip reason, error, failed check).", type: str}
            telemetry:
              description: "NVML samples while the test ran: C(samples), C(sm_clock_mhz), C(mem_clock_mhz), C(power_w),
                C(temperature_c) ({min, median, max}), C(reasons), C(reasons_mask); C(tail) for the sustained tests.
                Absent in CPU mode or without NVML (then C(telemetry_error))."
              type: dict
            sustained:
              description: "Sustained tests: C(first_rate), C(last_rate), C(ratio), C(duration_s), C(chunks)."
              type: dict
            power:
              description: "Sustained tests: the last 5 seconds' power against the enforced power limit (C(median_w),
                C(max_w), C(limit_w), C(limit), C(fraction_of_limit)); null without telemetry."
              type: dict
    multi_gpu:
      description:
        - "Figures between devices: C(figures.allreduce) (one figure, with C(ranks), C(backend), C(nvls)) and
          C(figures.p2p) (one figure per ordered pair, C(src), C(dst), C(peer_access)), each with C(expected) from the
          links and C(fraction_of_expected); C(topology) (each pair's link and nominal bandwidth, every NVLink link);
          C(gpus), C(status) (V(skipped) with fewer than two GPUs), C(error), C(seconds); C(attempts) and
          C(working_env) (a hang, and the run again with C(NCCL_P2P_DISABLE=1)). Null when no multi-GPU test was
          selected. Every key: docs/modules/torch_benchmark.md in the collection."
      type: dict
    gates:
      description: "C(bounds) (the gates given), C(gpu_bounds) (O(gpu_gates)) and C(failures) (the same list as
        RV(failed_gates))."
      type: dict
failed_gates:
  description: Every failed gate.
  returned: always
  type: list
  elements: dict
  contains:
    host: {description: Host name., type: str}
    test: {description: Test name., type: str}
    gpu_index: {description: "GPU index; C(src->dst) for P2P, the list of GPUs for all-reduce.", type: raw}
    gpu_name: {description: GPU name (or names)., type: raw}
    gate: {description: The bound's name., type: str, sample: min_fraction_of_peak}
    bound: {description: The bound., type: float}
    measured: {description: What was compared (fraction of peak or value; null when missing)., type: float}
    value: {description: The figure's value., type: float}
    unit: {description: The figure's unit., type: str}
    peak: {description: The figure's peak., type: float}
    peak_source: {description: The peak's source., type: str}
    reason: {description: Why the gate failed., type: str}
dest:
  description: The file written, or null (no O(dest), or check mode).
  returned: always
  type: str
"""

import contextlib
import os
import socket
import sys

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.gates import failure_message
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.results import problems, schema_errors
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.run import BenchmarkError, run
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import PROFILES
from ansible_collections.blackwell.pytorch.plugins.module_utils.common import bytecode, job_lock
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.gpu_lock import default_path as default_lock_path
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.result_files import write_result


def whole_run_lock(path, max_wait, check_mode=False):
    """The run's job lock (common/job_lock.py) on `path`, its directory made when missing; nothing without a path,
    nor in check mode where the lock file is not there yet (a check run stores nothing and creates no file)."""
    if not path or (check_mode and not os.path.isfile(path)):
        return contextlib.nullcontext()
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        os.makedirs(directory, mode=0o755)
    return job_lock.held(path, "GPU benchmark (torch_benchmark) of %s" % directory, max_wait,
                         "torch_benchmark option lock_timeout")


def main():
    module = AnsibleModule(
        argument_spec=dict(
            python=dict(type="path"),
            device=dict(type="str", default="cuda", choices=["cuda", "cpu"]),
            gpus=dict(type="list", elements="int"),
            profile=dict(type="str", default="quick", choices=list(PROFILES)),
            tests=dict(type="list", elements="str"),
            sizes=dict(type="dict", default={}),
            reps=dict(type="int"),
            timeout=dict(type="float"),
            gpu_lock=dict(type="str"),
            bytecode_cache_dir=dict(type="path"),
            gates=dict(type="dict", default={}),
            gpu_gates=dict(type="list", elements="dict", default=[]),
            nvls=dict(type="bool", default=False),
            dest=dict(type="path"),
            job_lock=dict(type="path"),
            lock_timeout=dict(type="int", default=600),
        ),
        supports_check_mode=True,
        add_file_common_args=True,
    )
    dest = module.params["dest"]
    if dest and not os.path.isdir(os.path.dirname(os.path.abspath(dest))):
        module.fail_json(msg="the directory of dest %s does not exist" % dest)
    host = socket.gethostname()
    lock = default_lock_path() if module.params["gpu_lock"] is None else module.params["gpu_lock"]
    python = module.params["python"] or sys.executable
    # the children inherit this process's environment: a cache for a stack without bytecode (common/bytecode.py)
    finding = bytecode.apply(os.environ, python, module.params["bytecode_cache_dir"])
    try:
        with whole_run_lock(module.params["job_lock"], module.params["lock_timeout"], module.check_mode):
            document = run(dict(module.params, python=python, gpu_lock=lock), host)
    except (BenchmarkError, job_lock.JobBusy) as err:
        module.fail_json(msg=str(err))
    errors = schema_errors(document)
    if errors:
        module.fail_json(msg="internal error: the result does not match its schema: %s" % "; ".join(errors),
                         benchmark=document)
    for line in problems(document):
        module.warn(line)
    if document["device"] == "cuda" and document["nvml_error"]:
        module.warn("NVML not read (%s): peaks of GPUs not in the spec table cannot be derived"
                    % document["nvml_error"])
    written, changed, extra = None, False, {}
    if dest:
        changed, diff = write_result(module, dest, document)
        written = None if module.check_mode else dest
        if module._diff:
            extra["diff"] = diff
    failures = document["gates"]["failures"]
    if failures:
        module.fail_json(msg=failure_message(failures, host), failed_gates=failures, benchmark=document, bytecode=finding,
                         dest=written, changed=changed, **extra)
    module.exit_json(changed=changed, benchmark=document, failed_gates=[], dest=written, bytecode=finding, **extra)


if __name__ == "__main__":
    main()
