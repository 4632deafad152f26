# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""cuda_toolkit_state over a host tree under tmp_path: stand-in nvcc, dpkg-query and update-alternatives
programs run for real (PATH), real links and files."""
from __future__ import annotations

import os

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.toolkit_state import profile_text
from ansible_collections.blackwell.pytorch.plugins.modules import cuda_toolkit_state

RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
NVCC = """#!/bin/sh
case "$1" in
  --version) echo "Cuda compilation tools, release {xy}, V{full}" ;;
  --list-gpu-arch) printf 'compute_%s\\n' {archs} ;;
esac
"""
QUERY = ("Name: cuda\nLink: /usr/local/cuda\nStatus: manual\nValue: /usr/local/cuda-12.8\n\n"
         "Alternative: /usr/local/cuda-12.8\nPriority: 128\n\nAlternative: /usr/local/cuda-13.0\nPriority: 130\n")


def _program(path, body, mode=0o755):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    path.chmod(mode)


@pytest.fixture
def host(tmp_path, monkeypatch):
    """A converged Debian host: 12.8 and 13.0 packaged, the cuda alternative on 12.8 (manual), profile.d written."""
    root = tmp_path / "host"
    bin_dir = tmp_path / "bin"
    for xy, full, archs in (("12.8", "12.8.93", "75 80 90 100 120"), ("13.0", "13.0.88", "75 80 90 100 110 120")):
        _program(root / "usr" / "local" / ("cuda-" + xy) / "bin" / "nvcc", NVCC.format(xy=xy, full=full, archs=archs))
    (root / "etc" / "alternatives").mkdir(parents=True)
    os.symlink(str(root / "usr" / "local" / "cuda-12.8"), str(root / "etc" / "alternatives" / "cuda"))
    os.symlink(str(root / "etc" / "alternatives" / "cuda"), str(root / "usr" / "local" / "cuda"))
    _program(root / "usr" / "bin" / "update-alternatives", "exit 0\n")
    _program(root / "etc" / "profile.d" / "cuda.sh", profile_text("/usr/local/cuda-12.8", "12.8"), 0o644)
    _program(bin_dir / "dpkg-query", "#!/bin/sh\nprintf 'cuda-toolkit-12-8\\t12.8.1-1\\tii \\n"
                                     "cuda-toolkit-13-0\\t13.0.2-1\\tii \\n'\n")
    _program(bin_dir / "update-alternatives", "#!/bin/sh\ncat <<'EOF'\n%sEOF\n" % QUERY)
    monkeypatch.setenv("PATH", "%s:%s" % (bin_dir, os.environ["PATH"]))
    monkeypatch.setattr(cuda_toolkit_state, "ROOT", str(root))
    return root, bin_dir


def _args(**changes):
    args = {"versions": ["12.8", "13.0"], "default_version": "12.8", "driver": "580.95.05", "gpus": [RTX5090],
            "manage": True, "user": {"uid": 0, "name": "root"}, "os_family": "Debian",
            "host": "ws-5090-02"}
    args.update(changes)
    return args


def _owned_by_this_user(status):
    """profile.d under tmp_path is this user's: the drift it shows when the tests do not run as root."""
    return os.getuid() == 0 or status["would"] == ["write /etc/profile.d/cuda.sh"]


def test_converged_host(host, run_module):
    status, result = run_module(cuda_toolkit_state, _args())
    assert status == "exit" and result["changed"] is False and result["ok"], result
    assert result["converged"] is (os.getuid() == 0) and _owned_by_this_user(result)
    assert result["action"] == "manage" and result["installed"] == [] and result["warnings"] == []
    assert result["nvcc"]["13.0"]["full"] == "13.0.88" and result["nvcc"]["12.8"]["archs"][-1] == "compute_120"
    assert result["msg"] == result["summary"] and result["configure"]["priority"] == 128


def test_auto_adopts_what_answers(host, run_module):
    status, result = run_module(cuda_toolkit_state, _args(manage="auto"))
    assert status == "exit" and result["action"] == "adopt" and result["converged"], result
    assert result["adopted"] == {"12.8": "/usr/local/cuda-12.8", "13.0": "/usr/local/cuda-13.0"}


def test_toolkit_to_install(host, run_module):
    status, result = run_module(cuda_toolkit_state, _args(manage="auto", versions=["12.8", "12.9"]))
    assert status == "exit" and not result["converged"] and result["action"] == "manage", result
    assert result["changes"]["packages"] == ["cuda-toolkit-12-9"] and "install cuda-toolkit-12-9" in result["would"]
    assert result["installed"] == ["12.9"] and result["nvcc"]["12.9"]["missing"] is True


def test_package_whose_nvcc_is_gone_is_refused(host, run_module):
    root, _bin = host
    os.unlink(str(root / "usr" / "local" / "cuda-13.0" / "bin" / "nvcc"))
    status, result = run_module(cuda_toolkit_state, _args(manage="auto"))
    assert status == "fail" and result["msg"] == "ws-5090-02: CUDA 13.0 at /usr/local/cuda-13.0/bin/nvcc: nvcc is missing."


def test_refusal_names_the_host(host, run_module):
    status, result = run_module(cuda_toolkit_state, _args(driver="575.57.08", versions=["13.0"], default_version=""))
    assert status == "fail"
    assert result["msg"] == "ws-5090-02: CUDA 13.0 needs driver >= 580.65.06; the driver is 575.57.08."
    status, result = run_module(cuda_toolkit_state, _args(versions="12.8"))
    assert status == "fail" and result["msg"].startswith(
        "ws-5090-02: cuda_toolkit_versions must be a list of versions such as ['12.8'], not the text '12.8'")


def test_broken_nvcc_of_an_installed_package_is_refused(host, run_module):
    root, _bin = host
    _program(root / "usr" / "local" / "cuda-13.0" / "bin" / "nvcc", NVCC.format(xy="13.0", full="13.0.88", archs="90"))
    status, result = run_module(cuda_toolkit_state, _args())
    assert status == "fail" and result["msg"] == (
        "ws-5090-02: CUDA 13.0 at /usr/local/cuda-13.0/bin/nvcc: nvcc --list-gpu-arch lacks compute_120 "
        "(the GPUs here need them).")


def test_warnings_only_on_the_first_call(host, run_module):
    _status, result = run_module(cuda_toolkit_state, _args(driver="", manage="auto"))
    assert result["warnings"] == ["ws-5090-02: no driver version known: CUDA 12.8 was not checked against the "
                                  "minimum driver 570.26", "ws-5090-02: no driver version known: CUDA 13.0 was not "
                                  "checked against the minimum driver 580.65.06"]
    _status, result = run_module(cuda_toolkit_state, _args(driver="", manage="auto", confirm=True))
    assert result["warnings"] == []


def test_confirm_refuses_what_the_run_left(host, run_module):
    root, _bin = host
    os.unlink(str(root / "usr" / "local" / "cuda-13.0" / "bin" / "nvcc"))
    status, result = run_module(cuda_toolkit_state, _args(confirm=True))
    assert status == "fail" and result["msg"].startswith(
        "ws-5090-02: CUDA 13.0 at /usr/local/cuda-13.0/bin/nvcc: nvcc is missing"), result["msg"]


def test_a_failing_package_query_fails_the_call(host, run_module):
    _root, bin_dir = host
    _program(bin_dir / "dpkg-query", "#!/bin/sh\necho 'dpkg-query: error: database locked' >&2\nexit 2\n")
    status, result = run_module(cuda_toolkit_state, _args())
    assert status == "fail" and result["msg"].startswith("ws-5090-02: dpkg-query -W") and "database locked" in result["msg"]


def test_without_the_preflight_fact_the_module_reads_the_os_and_the_user(host, run_module):
    args = _args(manage="auto")
    del args["user"], args["os_family"]
    status, result = run_module(cuda_toolkit_state, args)  # dpkg-query on PATH: Debian
    assert status == "exit" and result["action"] == "adopt" and result["converged"], result
    status, result = run_module(cuda_toolkit_state, dict(args, versions=["12.9"], default_version=""))
    if os.geteuid() == 0:  # the plan installs 12.9: root may
        assert status == "exit" and result["changes"]["packages"] == ["cuda-toolkit-12-9"], result
    else:
        assert status == "fail" and "the cuda_toolkit role changes the host and needs root" in result["msg"], result


def test_without_gpus_and_driver_the_module_reads_the_bus_and_the_loaded_driver(
        host, run_module, tmp_path, monkeypatch):
    from sysfs_tree import OPEN_LINE, add_pci
    sys_root = tmp_path / "sys"
    (sys_root / "bus" / "pci" / "devices").mkdir(parents=True)
    add_pci(sys_root, "0000:01:00.0", 0x10DE, 0x2B85, 0x030000)  # an RTX 5090
    proc = tmp_path / "proc_version"
    proc.write_text(OPEN_LINE)  # 580.159.04
    monkeypatch.setattr(cuda_toolkit_state, "SYS_ROOT", str(sys_root))
    monkeypatch.setattr(cuda_toolkit_state, "PROC_VERSION", str(proc))
    args = _args(versions=["12.6"], default_version="")
    del args["gpus"], args["driver"]
    status, result = run_module(cuda_toolkit_state, args)
    assert status == "fail" and result["msg"].startswith("ws-5090-02: CUDA 12.6 cannot target NVIDIA GeForce RTX 5090 "
                                                         "(sm_120): its nvcc has no compute_120"), result
    status, result = run_module(cuda_toolkit_state, dict(args, versions=[]))
    assert status == "exit" and result["versions"] == ["13.0"] and result["driver"] == "580.159.04", result
    proc.unlink()  # no driver loaded: a toolkit asked for by name is not gated on one
    status, result = run_module(cuda_toolkit_state, dict(args, versions=["12.8"], manage="auto"))
    assert status == "exit" and result["driver"] is None and result["converged"], result
