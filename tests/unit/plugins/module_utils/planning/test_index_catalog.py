# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Planning from an index (read_catalog, then resolve_stack on its catalog) against indexes built at test time
and served on loopback (wheel_index_fixture)."""
from __future__ import annotations

import os

import pytest

import wheel_index_fixture
from index_plan import plan_from_index
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.fetch import Fetcher
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.listing import list_project

RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0"}
H100 = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}


@pytest.fixture(autouse=True)
def no_proxy_from_outside(monkeypatch):
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return wheel_index_fixture.build(str(tmp_path_factory.mktemp("indexes")))


@pytest.fixture(scope="module", params=["json", "html"])
def pypi(request, tree):
    server, base = wheel_index_fixture.serve(tree, json_pages=request.param == "json")
    yield server, base + "/pypi"
    server.shutdown()


def _plan(index, **kwargs):
    args = dict(python_tag="cp311", platform="x86_64", gpus=[RTX5090], driver_cuda="13.0")
    args.update(kwargs)
    return plan_from_index(index, **args)


def test_listing_keeps_the_target_wheels_and_the_metadata_announcements(pypi):
    server, index = pypi
    entries = list_project(index, "torch", Fetcher(index, 5))
    assert sorted(e["public"] for e in entries if e["python"] == ["cp311"] and e["platform"][0].startswith("many")) == [
        "2.12.1", "2.14.1", "2.15.0", "2.7.1", "2.9.1"]
    assert sorted(set(e["public"] for e in entries if e["metadata_url"])) == ["2.9.1"]
    assert server.seen[-1][0] == "/pypi/torch/"


def test_version_line_without_channel_on_sm120_gets_the_build_with_its_kernels(pypi):
    server, index = pypi
    del server.seen[:]
    plan = _plan(index, version="2.9")
    assert plan["error"] is None
    assert (plan["torch"], plan["channel"], plan["stack"]) == ("2.9.1", "cu128", "torch-2.9.1-cu128")
    assert plan["pins"] == ["torch==2.9.1", "torchaudio==2.9.1", "torchvision==0.24.1"]  # PyPI: no labels
    assert plan["verdicts"][0]["verdict"] == "native" and plan["source"] == "index " + index
    assert plan["index"]["read"]["2.9.1"][0]["how"] == "PEP 658 metadata file"
    assert not [path for path, _range in server.seen if path.endswith(".whl")]  # no wheel touched


def test_unlabelled_wheel_is_read_through_range_requests_only(pypi):
    server, index = pypi
    del server.seen[:]
    plan = _plan(index, version="2.12.1", companions=["torchvision"])
    assert (plan["error"], plan["channel"], plan["pins"]) == (None, "cu130", ["torch==2.12.1", "torchvision==0.27.1"])
    read = plan["index"]["read"]["2.12.1"][0]
    assert (read["how"], read["evidence"]) == ("range requests", "cuda-toolkit[cublas,cudart,nvrtc]==13.0.2")
    wheel_requests = [(path, rng) for path, rng in server.seen if path.endswith(".whl")]
    assert wheel_requests and all(rng for _path, rng in wheel_requests)  # every wheel read is a range


def test_pypi_wheel_lacking_the_gpus_arch_is_refused_before_anything(pypi):
    _server, index = pypi
    plan = _plan(index, version="2.7.1")
    assert plan["error"].startswith("torch 2.7.1 has no build on index %s with native kernels for GPU 0 "
                                    "(NVIDIA GeForce RTX 5090, sm_120)" % index)
    assert "cu126 (sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90)" in plan["error"]
    assert "Nothing was installed" in plan["error"] and "pins" not in plan
    # the index read that version only: no build is offered, and the driver (CUDA 13.0) is not blamed
    assert ("Builds that would work: none among the versions read on index %s (leave pytorch_version empty for "
            "the newest release with native kernels for these GPUs)" % index) in plan["error"]


def test_same_version_on_sm90_is_fine(pypi):
    _server, index = pypi
    plan = _plan(index, version="2.7.1", gpus=[H100], driver_cuda="12.8")
    assert (plan["error"], plan["channel"], plan["stack"]) == (None, "cu126", "torch-2.7.1-cu126")


def test_version_newer_than_the_table_and_lower_bound_companion(pypi):
    _server, index = pypi
    plan = _plan(index, version="2.14.1")
    assert plan["error"] is None and plan["channel"] == "cu130"
    assert plan["pins"] == ["torch==2.14.1", "torchvision==0.29.1"]
    assert plan["notes"] == ["torchvision 0.29.1 declares only torch>=2.14.0 (no exact pin): taken as the "
                             "torchvision release for torch 2.14"]
    assert plan["warnings"] == ["torch 2.14.1 is installed without torchaudio: index %s has none for it. Leave "
                                "pytorch_version empty for the newest torch that has them, or set pytorch_companions: [] "
                                "to install torch alone" % index]


def test_torchaudio_required_but_absent_is_refused(pypi):
    _server, index = pypi
    plan = _plan(index, version="2.14.1", torchaudio="2.14.1")
    assert plan["error"].startswith("pytorch_torchaudio_version 2.14.1: index %s has no torchaudio for torch 2.14.1" % index)


def test_latest_skips_the_build_the_driver_cannot_run(pypi):
    _server, index = pypi
    plan = _plan(index, version="latest", companions=["torchvision"])  # 2.15.0 has none: the driver decides here
    assert (plan["torch"], plan["channel"]) == ("2.14.1", "cu130")
    assert "skipped 2.15 (no channel fits)" in plan["reason"] and plan["warnings"] == []
    assert _plan(index, version="", driver_cuda="13.2", companions=[])["torch"] == "2.15.0"


def test_unknown_version_names_what_the_index_has(pypi):
    _server, index = pypi
    error = _plan(index, version="2.10.0")["error"]
    assert error == "torch 2.10.0 is not on index %s for this Python and platform; it has 2.7.1, 2.9.1, 2.12.1, " \
                    "2.14.1, 2.15.0" % index


def test_channel_index_with_labels(tree):
    server, base = wheel_index_fixture.serve(tree)
    try:
        plan = _plan(base + "/whl/cu128", version="2.9.1")
        assert plan["pins"] == ["torch==2.9.1+cu128", "torchaudio==2.9.1+cu128", "torchvision==0.24.1+cu128"]
        assert plan["index"]["read"]["2.9.1"][0]["how"] == "local label"
        refused = _plan(base + "/whl/cu126", version="2.9.1")
        assert refused["error"].startswith("torch 2.9.1 has no build on index %s/whl/cu126 with native kernels" % base)
    finally:
        server.shutdown()


def test_server_without_ranges_is_not_downloaded_from(tree):
    server, base = wheel_index_fixture.serve(tree, ranges=False)
    try:
        plan = _plan(base + "/pypi", version="2.12.1")
        assert "answered a range request with HTTP 200 (the whole file); not downloading it" in plan["error"]
        assert "pytorch_index_url" in plan["error"]
    finally:
        server.shutdown()


def test_wheelhouse_directory(tree):
    house = os.path.join(tree, "wheelhouse")
    for where in (house, "file://" + house):
        plan = _plan(where, version="2.12", companions=["torchvision"])
        assert (plan["error"], plan["torch"], plan["channel"]) == (None, "2.12.1", "cu130")
        assert plan["index"]["read"]["2.12.1"][0]["how"] == "the wheel file"


def test_the_proxy_from_the_environment_is_used(tree, monkeypatch):
    server, base = wheel_index_fixture.serve(tree)
    try:
        monkeypatch.setenv("http_proxy", base)
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        plan = _plan("http://pypi.mirror.invalid/pypi", version="2.12.1", companions=["torchvision"])
        assert (plan["error"], plan["stack"]) == (None, "torch-2.12.1-cu130")
        assert server.proxied[0] == "http://pypi.mirror.invalid/pypi/torch/"
        assert any(url.endswith(".whl") for url in server.proxied)
    finally:
        server.shutdown()


def test_pytorch_proxy_and_credentials_in_the_urls(tree):
    server, base = wheel_index_fixture.serve(tree)
    proxy = base.replace("http://", "http://squid:Pr0xy@")
    try:
        plan = _plan("http://lab:S3cret@pypi.mirror.invalid/pypi", version="2.12.1", companions=["torchvision"],
                     proxy=proxy)
        assert (plan["error"], plan["stack"]) == (None, "torch-2.12.1-cu130")
        assert server.proxied[0] == "http://pypi.mirror.invalid/pypi/torch/"  # no user:password@ in the request
        assert set(server.auth) == {"Basic bGFiOlMzY3JldA=="}  # lab:S3cret
        assert plan["index"]["url"] == "http://lab:****@pypi.mirror.invalid/pypi" and "S3cret" not in str(plan)
    finally:
        server.shutdown()


def test_a_pep503_tree_on_disk(tree):
    plan = _plan("file://" + os.path.join(tree, "pypi"), version="2.12.1", companions=["torchvision"])
    assert (plan["error"], plan["channel"], plan["pins"]) == (None, "cu130", ["torch==2.12.1", "torchvision==0.27.1"])
    assert plan["index"]["read"]["2.12.1"][0]["how"] == "the wheel file"


def test_inputs_of_the_wrong_type_are_refused_before_any_request():
    assert _plan("wheels", version="2.9")["error"] == (
        "pytorch_wheelhouse must be an absolute path on the target, got 'wheels' (relative to what?)")
    assert _plan("http://127.0.0.1:9/simple", version=2.1)["error"].startswith("pytorch_version is the number 2.1")
    assert _plan("http://127.0.0.1:9/simple", version="2.9", timeout="soon")["error"] == (
        "timeout must be a whole number, got 'soon'")


def test_unreachable_index_is_a_clear_refusal():
    plan = _plan("http://127.0.0.1:9/simple", version="2.9", timeout=2)
    assert plan["error"].startswith("package index http://127.0.0.1:9/simple/torch/ (of index http://127.0.0.1:9/simple) "
                                    "could not be read: ")
    assert plan["error"].endswith("Nothing was installed; set pytorch_index_url to a reachable index or mirror "
                                  "(devpi, Artifactory, Nexus), pytorch_wheelhouse to a directory of wheels, or "
                                  "pytorch_proxy / https_proxy for a proxy")
    fallback = _plan("http://127.0.0.1:9/simple", version="2.9", timeout=2, offline_fallback=True)
    assert (fallback["error"], fallback["stack"], fallback["source"]) == (
        None, "torch-2.9.1-cu130", "version table (planning/matrix.py)")
    assert "planned from the version table instead" in fallback["warnings"][-1]


def test_no_index_plans_from_the_table_and_fixes_the_reported_case():
    plan = plan_from_index("", version="2.9", gpus=[{"index": 0, "name": "RTX 5090", "compute_capability": "12.0"}])
    assert (plan["channel"], plan["stack"]) == ("cu130", "torch-2.9.1-cu130")
    assert plan["verdicts"] == [{"gpu": "GPU 0 (RTX 5090, sm_120)", "sm": "sm_120", "verdict": "native",
                                 "image": "sm_120"}]
    assert "None" not in " ".join(plan["pins"]) and plan["source"] == "version table (planning/matrix.py)"
