# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import os
import sys

import converged_stack
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import plan_call
from ansible_collections.blackwell.pytorch.plugins.modules import pytorch_plan

RTX_5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
NVCC = "#!/bin/sh\nprintf 'nvcc: NVIDIA (R) Cuda compiler driver\\nCuda compilation tools, release 12.8, V12.8.93\\n'\n"


def args(**changes):
    base = {"python": sys.executable, "version": "2.9.1", "channel": "cu128", "gpus": [RTX_5090],
            "driver_cuda": "13.0", "host": "ws-1"}
    base.update(changes)
    return base


def toolkit(tmp_path):
    nvcc = tmp_path / "cuda" / "bin" / "nvcc"
    nvcc.parent.mkdir(parents=True)
    nvcc.write_text(NVCC)
    nvcc.chmod(0o755)
    return str(tmp_path / "cuda")


def test_plans_with_this_interpreter_and_changes_nothing(run_module):
    status, result = run_module(pytorch_plan, args(_ansible_check_mode=True))
    assert status == "exit" and not result["changed"] and result["check_mode"]
    assert result["plan"]["stack"] == "torch-2.9.1-cu128" and result["plan"]["error"] is None
    assert result["python_version"] == "%d.%d" % sys.version_info[:2]
    assert result["summary"].startswith("torch-2.9.1-cu128 (wheel): torch==2.9.1+cu128 ")
    assert result["toolkit_cuda"] is None and result["fallback"] is None and result["hashes_text"] == ""
    status, result = run_module(pytorch_plan, args())
    assert status == "exit" and not result["check_mode"]


def test_refuses_an_old_interpreter(tmp_path, run_module):
    old = tmp_path / "python3.9"
    old.write_text("#!/bin/sh\necho 'Python 3.9.2' >&2\n")
    old.chmod(0o755)
    status, result = run_module(pytorch_plan, args(python=str(old)))
    assert status == "fail" and result["msg"] == (
        "%s is Python 3.9; PyTorch stacks need 3.10 or newer: set pytorch_python to a newer interpreter." % old)
    status, result = run_module(pytorch_plan, args(python=str(tmp_path / "none")))
    assert status == "fail" and result["msg"].startswith("pytorch_python %s is not there on ws-1" % (tmp_path / "none"))


def test_refuses_missing_paths_and_a_hashes_file_that_does_not_pin_the_plan(tmp_path, run_module):
    status, result = run_module(pytorch_plan, args(wheelhouse=str(tmp_path / "wheels"), constraints_file=str(tmp_path)))
    assert status == "fail" and result["msg"] == "pytorch_wheelhouse %s is not a directory on ws-1. " \
        "pytorch_constraints_file %s is not a file on ws-1." % (tmp_path / "wheels", tmp_path)
    (tmp_path / "wheels").mkdir()
    os.symlink(str(tmp_path / "wheels"), str(tmp_path / "link"))
    hashes = tmp_path / "hashes.txt"
    hashes.write_text("torch==2.9.1+cu128 --hash=sha256:00\ntorchvision==0.24.0+cu128 --hash=sha256:01\n")
    status, result = run_module(pytorch_plan, args(hashes_file=str(hashes)))
    assert status == "fail" and result["msg"] == (
        "pytorch_hashes_file %s must pin exactly what the plan installs; it lacks torchaudio==2.9.1+cu128 "
        "(file: not pinned), torchvision==0.24.1+cu128 (file: 0.24.0+cu128)." % hashes)
    pinned = "".join("%s --hash=sha256:0%d\n" % (pin, n) for n, pin in enumerate(
        ["torch==2.9.1+cu128", "torchaudio==2.9.1+cu128", "torchvision==0.24.1+cu128"]))
    hashes.write_text(pinned)
    status, result = run_module(pytorch_plan, args(hashes_file=str(hashes)))
    assert status == "exit" and result["hashes_text"] == pinned
    status, result = run_module(pytorch_plan, args(wheelhouse=str(tmp_path / "link")))  # there: pip's only source
    assert status == "fail" and result["msg"].startswith(
        "package index %s could not be read: it lists no torch wheel for cp%d%d on Linux " % (
            tmp_path / "link", sys.version_info[0], sys.version_info[1]))


def test_reads_the_toolkit_for_source_and_auto_only(tmp_path, run_module):
    cuda = toolkit(tmp_path)
    status, result = run_module(pytorch_plan, args(method="source", channel="", cuda_home=cuda))
    assert status == "exit" and result["toolkit_cuda"] == "12.8" and result["plan"]["stack"] == "torch-2.9.1-src"
    status, result = run_module(pytorch_plan, args(method="auto", cuda_home=cuda))
    assert result["plan"]["method"] == "wheel" and result["fallback"]["stack"] == "torch-2.9.1-src"
    status, result = run_module(pytorch_plan, args(cuda_home=cuda))
    assert result["toolkit_cuda"] is None
    status, result = run_module(pytorch_plan, args(method="source", channel="", cuda_home=str(tmp_path / "no")))
    assert status == "fail" and result["msg"].startswith(
        "a source build needs a CUDA toolkit and there is none at %s (no bin/nvcc)" % (tmp_path / "no"))


def test_build_host(tmp_path, run_module):
    status, result = run_module(pytorch_plan, args(method="source", channel="", build_host="ws-2",
                                                   play_hosts=["ws-1", "ws-2"]))
    assert status == "exit" and not result["builds"]
    status, result = run_module(pytorch_plan, args(method="source", channel="", build_host="ws-9", play_hosts=["ws-1"]))
    assert status == "fail" and result["msg"].startswith("pytorch_build_host ws-9 is not among this play's hosts (ws-1)")


def test_argument_spec_refuses_bad_choices(run_module):
    status, result = run_module(pytorch_plan, args(method="conda"))
    assert status == "fail" and "method" in result["msg"] and "wheel, source, auto" in result["msg"]
    status, result = run_module(pytorch_plan, args(companions=["torchtext"]))
    assert status == "fail" and "companions" in result["msg"]


def _python311(tmp_path):
    """An interpreter that says it is 3.11: the fixture indexes hold cp311 wheels."""
    python = tmp_path / "python3.11"
    python.write_text("#!/bin/sh\necho 'Python 3.11.9'\n")
    python.chmod(0o755)
    return str(python)


def test_plans_from_the_index_pip_reads(tmp_path, run_module, monkeypatch):
    import wheel_index_fixture
    tree = wheel_index_fixture.build(str(tmp_path / "indexes"))
    monkeypatch.setattr(plan_call.platform, "machine", lambda: "x86_64")
    python = _python311(tmp_path)
    status, result = run_module(pytorch_plan, args(python=python, channel="", index="file://%s/pypi" % tree))
    assert status == "exit" and result["plan"]["pins"] == ["torch==2.9.1", "torchaudio==2.9.1", "torchvision==0.24.1"]
    assert result["plan"]["channel"] == "cu128" and result["plan"]["index"]["url"] == "file://%s/pypi" % tree
    assert "; planned from index file://%s/pypi (" % tree in result["summary"] and result["warnings"] == []
    status, result = run_module(pytorch_plan, args(python=python, channel="", version="2.7.1",
                                                   index="file://%s/pypi" % tree))
    assert status == "fail" and result["msg"].startswith(
        "torch 2.7.1 has no build on index file://%s/pypi with native kernels for GPU 0 " % tree)
    status, result = run_module(pytorch_plan, args(python=python, channel_base="file://%s/whl/" % tree))
    assert status == "exit" and result["plan"]["source"] == "index file://%s/whl/cu128" % tree
    assert result["plan"]["pins"][0] == "torch==2.9.1+cu128"


def test_an_unreachable_index_is_refused_unless_the_table_may_stand_in(tmp_path, run_module, monkeypatch):
    monkeypatch.setattr(plan_call.platform, "machine", lambda: "x86_64")
    down = "http://lab:S3cret@127.0.0.1:9/whl"  # the discard port: nothing listens
    status, result = run_module(pytorch_plan, args(channel_base=down, index_timeout=2))
    assert status == "fail" and result["msg"].startswith(
        "package index http://lab:****@127.0.0.1:9/whl/cu128/torch/ (of index http://lab:****@127.0.0.1:9/whl/cu128)"
        " could not be read: ")
    status, result = run_module(pytorch_plan, args(channel_base=down, index_timeout=2, offline_fallback=True))
    assert status == "exit" and result["plan"]["stack"] == "torch-2.9.1-cu128" and "index" not in result["plan"]
    assert result["summary"].endswith("; planned from the version table (planning/matrix.py)")
    assert len(result["warnings"]) == 1 and result["warnings"][0].endswith("planned from the version table instead")


def test_secrets_of_the_urls_are_no_log_values(tmp_path, run_module, no_log_values):
    status, result = run_module(pytorch_plan, args(extra_indexes=["https://ci:Tok3n@idx.lab/simple"],
                                                   proxy="http://u:pw@proxy.lab:3128"))
    assert status == "exit" and {"Tok3n", "pw", "http://u:pw@proxy.lab:3128"} <= no_log_values


def test_refuses_a_missing_ca_bundle_or_client_certificate_before_reading_the_index(tmp_path, run_module):
    index = {"index": "https://lab:Sup3rS3cret@127.0.0.1:9/simple"}  # nothing listens: refused before any request
    status, result = run_module(pytorch_plan, args(ca_path=str(tmp_path / "ca.pem"),
                                                   client_cert=str(tmp_path / "client.pem"), **index))
    assert status == "fail" and result["msg"] == (
        "pytorch_index_ca_path %s is not a file on ws-1. pytorch_index_client_cert %s is not a file on ws-1."
        % (tmp_path / "ca.pem", tmp_path / "client.pem"))
    status, result = run_module(pytorch_plan, args(pip_extra_args=["--cert=%s" % tmp_path], **index))
    assert status == "fail" and result["msg"] == (
        "pytorch_pip_extra_args --cert %s is not a file on ws-1." % tmp_path)


def test_refuses_a_client_certificate_without_its_key_and_never_shows_the_file(tmp_path, run_module):
    pem = tmp_path / "client.pem"
    pem.write_text("-----BEGIN CERTIFICATE-----\nTUlJQ2VydGlmaWNhdGVCb2R5\n-----END CERTIFICATE-----\n")
    status, result = run_module(pytorch_plan, args(client_cert=str(pem), index="https://127.0.0.1:9/simple"))
    assert status == "fail" and result["msg"] == (
        "pytorch_index_client_cert %s holds no private key: pip's --client-cert takes the certificate and its "
        "private key in one PEM file (cat client.crt client.key > client.pem; mode 0600)." % pem)
    assert "TUlJ" not in str(result)


def test_refuses_pip_extra_args_that_send_pip_to_another_index(run_module):
    status, result = run_module(pytorch_plan, args(pip_extra_args=["--extra-index-url", "https://u:Pw@other/simple",
                                                                   "--no-index"]))
    assert status == "fail" and result["msg"] == (
        "pytorch_pip_extra_args sets --extra-index-url, --no-index: pip would install from another place than the "
        "one the plan reads. Use pytorch_index_url, pytorch_extra_index_urls or pytorch_wheelhouse instead.")


def test_refusals_come_back_in_one_field_before_any_plan(tmp_path, run_module):
    status, result = run_module(pytorch_plan, args(python=str(tmp_path / "none"), keep=0,
                                                   user={"uid": 1000, "name": "alice"}))
    assert status == "exit" and not result["converged"] and "plan" not in result
    assert [message.split(":")[0] for message in result["refusals"]] == ["pytorch_keep_stacks is 0", "ws-1"]
    assert result["msg"] == " ".join(result["refusals"])  # the role fails the call with this message


def test_answers_whether_the_stage_is_already_as_asked(tmp_path, run_module):
    status, result = run_module(pytorch_plan, args())
    assert status == "exit" and result["refusals"] == [] and not result["converged"] and "msg" not in result
    assert result["standing"] == "to change: no root given" and result["check"] is None
    status, result = run_module(pytorch_plan, args(root=str(tmp_path / "pytorch")))
    assert status == "exit" and not result["converged"]
    assert result["standing"] == "to change: current is not there, not venvs/torch-2.9.1-cu128"


def test_adopting_plans_nothing(tmp_path, run_module):
    status, result = run_module(pytorch_plan, args(python=str(tmp_path / "none"), root=str(tmp_path / "pytorch"),
                                                   adopt_path=str(tmp_path / "env")))
    assert status == "exit" and "plan" not in result and result["summary"] == "adopting %s" % (tmp_path / "env")
    assert not result["converged"] and result["standing"] == "to change: no stack to compare"


def test_a_host_already_as_asked_returns_the_check_fact_the_verify_role_takes(tmp_path, run_module):
    _status, first = run_module(pytorch_plan, args(root=str(tmp_path / "pytorch")))
    check, python, current = converged_stack.make(tmp_path, first["plan"])
    root, results = tmp_path / "pytorch", tmp_path / "results"
    status, result = run_module(pytorch_plan, args(**check))
    assert status == "exit" and result["converged"], result["standing"]
    fact = result["cuda_check"]
    assert fact["reused"] and fact["result"] == {"build": {}, "reused": True}
    assert fact["pythons"] == [python, str(root / "current" / "bin" / "python")]
    assert fact["fingerprint"]["digest"] == current["digest"] and fact["fingerprint"]["collection_version"] == "0.5.0"
    assert fact["verify"]["results"] == str(results / "verify.json") and fact["verify"]["stored"] is None
    # an output directory that cannot take results: no fact (the verify role's own call refuses it)
    (tmp_path / "file").write_text("x")
    check["check_output_dirs"] = {"verify_results_dir": str(results), "verify_prometheus_textfile_dir": str(tmp_path / "file")}
    status, result = run_module(pytorch_plan, args(**check))
    assert status == "exit" and result["converged"] and result["cuda_check"] is None
