"""Make this checkout importable as ansible_collections.blackwell.pytorch for the unit tests."""
from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT.split(os.sep)[-3:] == ["ansible_collections", "blackwell", "pytorch"]:
    # Already laid out as a collection (a read-only mount in tests/bin/targets-python.sh).
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(ROOT))))
else:
    _TREE = os.path.join(ROOT, ".build", "unit", "ansible_collections", "blackwell")
    if not os.path.islink(os.path.join(_TREE, "pytorch")):
        os.makedirs(_TREE, exist_ok=True)
        try:
            os.symlink(ROOT, os.path.join(_TREE, "pytorch"))
        except FileExistsError:  # another pytest-xdist worker made it first
            pass
    sys.path.insert(0, os.path.join(ROOT, ".build", "unit"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # helpers such as fake_pynvml


class ModuleExit(Exception):
    """exit_json was called; .result holds its payload."""

    def __init__(self, result):
        super().__init__(result)
        self.result = result


class ModuleFail(Exception):
    """fail_json was called; .result holds its payload."""

    def __init__(self, result):
        super().__init__(result.get("msg"))
        self.result = result


@contextlib.contextmanager
def module_args(args):
    """Feed `args` to AnsibleModule the way the executor does (ansible-core 2.19 to 2.22)."""
    from ansible.module_utils import basic
    from ansible.module_utils.common.text.converters import to_bytes
    saved = {name: getattr(basic, name) for name in ("_ANSIBLE_ARGS", "_ANSIBLE_PROFILE")
             if hasattr(basic, name)}
    basic._ANSIBLE_ARGS = to_bytes(json.dumps({"ANSIBLE_MODULE_ARGS": args}))
    if "_ANSIBLE_PROFILE" in saved:
        basic._ANSIBLE_PROFILE = "legacy"
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(basic, name, value)


@pytest.fixture
def run_module(monkeypatch):
    """run_module(module, args) -> ("exit" | "fail", payload)."""
    from ansible.module_utils import basic

    warnings = []

    def warn(self, warning, **kwargs):
        warnings.append(warning)

    def exit_json(self, **kwargs):
        kwargs.setdefault("warnings", list(warnings))
        raise ModuleExit(kwargs)

    def fail_json(self, msg, **kwargs):
        kwargs["msg"] = msg
        raise ModuleFail(kwargs)

    monkeypatch.setattr(basic.AnsibleModule, "warn", warn)
    monkeypatch.setattr(basic.AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", fail_json)

    def run(module, args):
        del warnings[:]
        with module_args(args):
            try:
                module.main()
            except ModuleExit as done:
                return "exit", done.result
            except ModuleFail as failed:
                return "fail", failed.result
        raise AssertionError("module returned without exit_json or fail_json")

    return run


@pytest.fixture
def no_log_values(run_module, monkeypatch):
    """The set of values the module registered for masking (no_log), as it was when the module ended;
    filled by each run_module call."""
    from ansible.module_utils import basic

    seen = set()

    def keeping(original):
        def end(self, *args, **kwargs):
            seen.clear()
            seen.update(self.no_log_values)
            return original(self, *args, **kwargs)
        return end

    for name in ("exit_json", "fail_json"):
        monkeypatch.setattr(basic.AnsibleModule, name, keeping(getattr(basic.AnsibleModule, name)))
    return seen


@pytest.fixture(autouse=True)
def _no_host_pci_ids(monkeypatch):
    """GPU names come from the table, not from whatever pci.ids the test machine has."""
    for name, module in list(sys.modules.items()):
        if name.endswith(".pci_ids") and hasattr(module, "PCI_IDS_PATHS"):
            monkeypatch.setattr(module, "PCI_IDS_PATHS", ())


# Each test once per `make test`: tests/bin/targets-python.sh runs the module side's tests under the targets'
# oldest Python and records the ones that passed there (BLACKWELL_TEST_RECORD_PASSED names the file); the unit
# layer then leaves those out (BLACKWELL_TEST_UNIT_LEAVE names the same file; tests/bin/run-all.sh sets it only
# when that run is part of the same `make test`). A test skipped or failed there, or not selected there, runs here.
def run_key(item):
    """A test's name that both runs agree on: its file relative to the checkout, its class and function, and the
    index of each parameter (pytest 6 and 8 write some parameter ids differently)."""
    path = str(getattr(item, "path", None) or item.fspath)
    name = item.nodeid.split("::", 1)[1]
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        name = name.split("[", 1)[0] + "[%s]" % ",".join("%s=%d" % pair for pair in sorted(callspec.indices.items()))
    return os.path.relpath(path, ROOT).replace(os.sep, "/") + "::" + name


_PASSED = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("BLACKWELL_TEST_RECORD_PASSED") and report.when == "call" and report.passed:
        _PASSED.append(run_key(item))


def pytest_sessionfinish(session, exitstatus):
    record = os.environ.get("BLACKWELL_TEST_RECORD_PASSED")
    if record:
        with open(record, "w", encoding="utf-8") as handle:
            handle.write("".join(key + "\n" for key in sorted(_PASSED)))


def pytest_collection_modifyitems(config, items):
    leave = os.environ.get("BLACKWELL_TEST_UNIT_LEAVE")
    if not leave:
        return
    try:
        with open(leave, encoding="utf-8") as handle:
            passed = set(line.strip() for line in handle if line.strip())
    except OSError as error:
        raise pytest.UsageError("BLACKWELL_TEST_UNIT_LEAVE: cannot read the tests the targets' Python passed: %s" % error)
    if not passed:
        raise pytest.UsageError("BLACKWELL_TEST_UNIT_LEAVE: %s lists no test: the targets' Python run passed none" % leave)
    kept, left = [], []
    for item in items:
        (left if run_key(item) in passed else kept).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


# pytest-xdist (tests/bin/unit.sh): a test file's tests run on one worker, so its module fixtures are built
# once; the reliability rows below share session fixtures (a real play or a real stack, a minute or more each)
# and run on one worker together. tests/unit/test_layers/test_worker_groups.py keeps this list whole.
SHARED_FIXTURE_FILES = {"test_faults.py": "apt-plays", "test_security.py": "apt-plays",
                        "test_fault_stack.py": "stacks", "test_stack_files.py": "stacks",
                        "test_security_cmdline.py": "stacks", "test_fault_jobs.py": "stacks",
                        "test_pytorch_refusals.py": "stacks"}


def worker_group(nodeid):
    """The unit of work a worker takes whole: the test's file, or the group of files sharing its fixtures."""
    path = nodeid.split("::", 1)[0]
    return SHARED_FIXTURE_FILES.get(os.path.basename(path), path)


if importlib.util.find_spec("xdist") is not None:  # the targets' Python runs these tests without it
    def pytest_xdist_make_scheduler(config, log):
        from xdist.scheduler import LoadScopeScheduling

        class SharedFixtureScheduling(LoadScopeScheduling):
            def _split_scope(self, nodeid):
                return worker_group(nodeid)

        return SharedFixtureScheduling(config, log)
