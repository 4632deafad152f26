"""The child programs, built from the real child modules and run for real: without torch, and with a
CPU-only torch (no GPU needed). The modules' pure parts are tested in test_torch_cuda_check_child_code.py."""
from __future__ import annotations

import os
import re
import sys

import pytest

import cpu_probes_child
from ansible_collections.blackwell.pytorch.plugins.module_utils.common import error_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_program import (
    MAX_ARG_BYTES, child_program, module_source)
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import run_child
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check import (
    child_base, child_companions, child_facts, child_gpu, native_sass, probes)
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.child import (
    GPU_PARTS, companions_source, facts_source, gpu_modules, gpu_source)

TORCH_PYTHON = os.environ.get("BLACKWELL_TEST_TORCH_PYTHON")
needs_torch = pytest.mark.skipif(not TORCH_PYTHON, reason="needs a torch interpreter; make test sets "
                                 "BLACKWELL_TEST_TORCH_PYTHON")


def run(source, *args, **kwargs):
    result = run_child(kwargs.pop("python", TORCH_PYTHON), source, args=args, timeout=120, **kwargs)
    assert result["status"] == "ok", result
    return result["result"]


CHILD_MODULES = (error_text, child_base, child_facts, child_companions, probes, native_sass, child_gpu)
PROGRAMS = [("facts", facts_source), ("companions", companions_source)] + [
    ("gpu " + ",".join(parts), lambda parts=parts: gpu_source(parts))
    for parts in (GPU_PARTS, ("ops", "probes"), ("ops", "sass"), ("ops",), ("compile",))]


@pytest.mark.parametrize("name, build", PROGRAMS, ids=[name for name, _build in PROGRAMS])
def test_programs_compile_and_fit_in_one_argument(name, build):
    program = build()
    compile(program, "<%s child>" % name, "exec")
    assert len(program.encode("utf-8")) < MAX_ARG_BYTES


@pytest.mark.parametrize("parts, names", [
    (("ops",), ["error_text", "child_base", "gpu_lock", "child_gpu"]),
    (("ops", "probes"), ["error_text", "child_base", "gpu_lock", "probes", "child_gpu"]),
    (("ops", "sass"), ["error_text", "child_base", "gpu_lock", "native_sass", "child_gpu"]),
    (("compile",), ["error_text", "child_base", "gpu_lock", "probes", "child_gpu"]),
    (GPU_PARTS, ["error_text", "child_base", "gpu_lock", "native_sass", "probes", "child_gpu"]),
])
def test_a_gpu_child_ships_only_the_modules_of_its_parts(parts, names):
    assert [module.__name__.rsplit(".", 1)[1] for module in gpu_modules(parts)] == names
    program = gpu_source(parts)
    for module in CHILD_MODULES:
        assert ("_install(%r" % module.__name__ in program) == (module in gpu_modules(parts))


def test_facts_and_companions_ship_their_entry_and_the_base():
    assert "_install(%r" % child_facts.__name__ in facts_source()
    assert "_install(%r" % child_companions.__name__ not in facts_source()
    assert "_install(%r" % child_companions.__name__ in companions_source()
    for source in (facts_source(), companions_source()):
        assert source.index("_install(%r" % error_text.__name__) < source.index("_install(%r" % child_base.__name__)


MODULE_IMPORT = re.compile(r"^from (ansible_collections\.[\w.]+) import", re.M)


@pytest.mark.parametrize("modules", [(error_text, child_base, child_facts), (error_text, child_base, child_companions),
                                     gpu_modules(GPU_PARTS), (error_text, child_base, probes, cpu_probes_child)],
                         ids=["facts", "companions", "gpu", "cpu probes"])
def test_child_modules_import_only_modules_shipped_before_them(modules):
    shipped = []
    for module in modules:
        imported = MODULE_IMPORT.findall(module_source(module))
        assert [name for name in imported if name not in shipped] == [], module.__name__
        shipped.append(module.__name__)


@pytest.mark.parametrize("module", CHILD_MODULES, ids=lambda module: module.__name__.rsplit(".", 1)[1])
def test_child_modules_import_neither_ansible_nor_torch_at_module_level(module):
    source = module_source(module)
    assert not re.search(r"^(from|import) ansible[. ]", source, re.M)
    assert not re.search(r"^(from|import) torch", source, re.M)


def test_unknown_gpu_part_is_refused():
    with pytest.raises(ValueError, match="unknown GPU child part"):
        gpu_source(("ops", "fly"))


def test_without_torch():
    result = run(facts_source(), python=sys.executable)
    assert result["torch_missing"] is True
    assert result["torch_import_error"] == "ModuleNotFoundError: No module named 'torch'"


def test_without_torch_a_companion_reports_that_torch_is_missing(tmp_path):
    """torchvision there, torch not: the companions child reports the missing torch, as the facts child does."""
    (tmp_path / "torchvision").mkdir()
    (tmp_path / "torchvision" / "__init__.py").write_text("import torch\n")
    result = run(companions_source(), python=sys.executable, env={"PYTHONPATH": str(tmp_path)})
    assert result["torch_missing"] is True
    assert result["torch_import_error"] == "ModuleNotFoundError: No module named 'torch'"


@needs_torch
def test_facts_of_a_cpu_build():
    facts = run(facts_source())
    assert facts["cuda"] is None and facts["cuda_available"] is False and facts["devices"] == []
    assert facts["cuda_unavailable_reason"] == "torch %s was built without CUDA" % facts["torch_version"]
    assert facts["nccl_available"] is False and facts["arch_list"] == []
    assert set(facts["phases"]) == {"import_torch", "build_and_devices"}


@needs_torch
def test_companions_child_reports_each_package():
    companions = run(companions_source())
    for name in ("torchvision", "torchaudio"):
        if companions[name]["import_error"]:  # this venv may or may not hold them
            assert companions[name]["import_error"].startswith("ModuleNotFoundError")
        else:
            assert companions[name]["version"]
    # torch is loaded first only where a companion is there to import
    assert ("import_torch" in companions["phases"]) == any(not companions[name]["import_error"]
                                                           for name in ("torchvision", "torchaudio")), companions


def test_companions_child_without_companions_reports_them_missing_without_loading_torch(tmp_path):
    """Neither companion on the path: both reported not found, and torch (here one that would fail) is never
    imported."""
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("raise RuntimeError('torch was imported')\n")
    done = run_child(sys.executable, companions_source(), env={"PYTHONPATH": str(tmp_path)}, timeout=60)
    result = done["result"]
    assert done["status"] == "ok", done
    assert sorted(result["phases"]) == ["import_torchaudio", "import_torchvision"], result  # no import_torch
    for name in ("torchvision", "torchaudio"):
        assert result[name]["version"] is None and result[name]["import_error"].startswith("ModuleNotFoundError"), result


def test_companions_child_with_a_companion_loads_torch_first(tmp_path):
    """A companion on the path: torch is imported before it, as the companion itself would import it."""
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("import os\nos.environ['TORCH_FIRST'] = '1'\n")
    (tmp_path / "torchvision").mkdir()
    (tmp_path / "torchvision" / "__init__.py").write_text(
        "import os\n__version__ = '0.24.1' if os.environ.get('TORCH_FIRST') else 'torch not first'\n")
    done = run_child(sys.executable, companions_source(), env={"PYTHONPATH": str(tmp_path)}, timeout=60)
    result = done["result"]
    assert done["status"] == "ok" and "import_torch" in result["phases"], done
    assert result["torchvision"] == {"version": "0.24.1", "import_error": None}, result
    assert result["torchaudio"]["import_error"].startswith("ModuleNotFoundError"), result


@needs_torch
def test_gpu_child_reports_cuda_init_failure():
    result = run(gpu_source(("ops", "probes")), 0, "ops,probes")
    assert result["init"] == {"status": "failed", "error": "AssertionError: Torch not compiled with CUDA enabled"}
    assert "ops" not in result


@needs_torch
def test_probe_code_on_the_cpu():
    """The probes take a device: on the CPU the math backend runs and the fused ones are refused."""
    result = run(child_program((error_text, child_base, probes, cpu_probes_child), cpu_probes_child, "CPU probes"))
    assert result["math_attention"]["status"] == "ok" and result["math_attention"]["relative_error"] < 2e-2
    assert result["efficient_attention"]["status"] == "unavailable"
    assert result["bf16"]["status"] == "ok"
    off = result["close_off_by_10_percent"]
    assert off["status"] == "failed" and off["error"] == "wrong result: relative error 0.1 > 0.02"
