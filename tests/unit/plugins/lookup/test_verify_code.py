from __future__ import annotations

import json
import os

import pytest

from collection_copy import ROOT, change_one_byte, installed_copy

from ansible_collections.blackwell.pytorch.plugins.lookup import verify_code as lookup_plugin
from ansible_collections.blackwell.pytorch.plugins.plugin_utils import code_digest


@pytest.fixture
def copy(tmp_path):
    """An installed copy of the collection's plugins and galaxy.yml."""
    return installed_copy(tmp_path / "pytorch", names=("plugins",))


def test_verification_files_are_derived_from_the_modules_imports(copy):
    got = code_digest.verification_code(str(copy))
    # planning: torch_cuda_check/run.py imports planning.matrix (the torch version table); wheel_index:
    # planning.host_plan imports wheel_index.access (a whole package is hashed, and what it imports); results:
    # stack_fingerprint's; verify: an entry package (the judging, reached through the role's filters)
    assert got["packages"] == ["benchmark", "common", "hardware", "planning", "results", "torch_cuda_check", "verify",
                               "wheel_index"]
    assert "plugins/modules/torch_cuda_check.py" in got["files"]
    assert "plugins/module_utils/torch_cuda_check/child_gpu.py" in got["files"]  # imported by name at run time only
    assert not any("/driver/" in path or "/containers/" in path for path in got["files"])
    # a new import brings its package in: the set follows the code
    module = copy / "plugins/modules/stack_fingerprint.py"
    module.write_text(module.read_text().replace(
        "from ansible.module_utils.basic import AnsibleModule\n",
        "from ansible.module_utils.basic import AnsibleModule\n"
        "from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import policy  # noqa\n"))
    assert "driver" in code_digest.verification_code(str(copy))["packages"]


@pytest.mark.parametrize("changed", ["plugins/module_utils/torch_cuda_check/policy.py",
                                     "plugins/module_utils/benchmark/gates.py",
                                     "plugins/module_utils/verify/plan.py",
                                     "plugins/module_utils/results/fingerprint.py",
                                     "plugins/module_utils/common/child_run.py",
                                     "plugins/module_utils/hardware/gpu_arch.py",
                                     "plugins/modules/torch_benchmark.py"])
def test_fingerprint_changes_when_verification_code_changes(copy, changed):
    before = code_digest.verification_code(str(copy))
    change_one_byte(copy / changed)
    after = code_digest.verification_code(str(copy))
    assert before["digest"] != after["digest"] and before["files"] == after["files"]
    assert before["collection_version"] == after["collection_version"]  # the version did not move


def test_code_outside_the_verification_does_not_change_the_digest(copy):
    before = code_digest.verification_code(str(copy))
    change_one_byte(copy / "plugins/module_utils/driver/policy.py")
    change_one_byte(copy / "plugins/module_utils/containers/cdi.py")
    change_one_byte(copy / "plugins/modules/pytorch_stack.py")
    assert code_digest.verification_code(str(copy))["digest"] == before["digest"]


def test_collection_version_from_the_manifest_of_an_install_else_galaxy_yml(copy):
    assert code_digest.collection_version(str(copy)) == code_digest.collection_version(ROOT)
    (copy / "MANIFEST.json").write_text(json.dumps({"collection_info": {"version": "9.8.7"}}))
    assert code_digest.collection_version(str(copy)) == "9.8.7"
    (copy / "MANIFEST.json").unlink()
    (copy / "galaxy.yml").unlink()
    assert code_digest.collection_version(str(copy)) is None


def test_the_digest_is_computed_once_per_process(copy):
    first = code_digest.cached(str(copy))
    change_one_byte(copy / "plugins/module_utils/verify/plan.py")
    assert code_digest.cached(str(copy)) is first  # kept for the process, not read again
    assert code_digest.verification_code(str(copy))["digest"] != first["digest"]


def test_lookup_answers_for_its_own_collection():
    got = lookup_plugin.LookupModule().run([])
    assert got == [code_digest.cached(ROOT)] and len(got[0]["digest"]) == 64
    assert os.path.realpath(lookup_plugin.COLLECTION_ROOT) == os.path.realpath(ROOT)
    with pytest.raises(Exception, match="takes no terms"):
        lookup_plugin.LookupModule().run(["x"])
