"""Loading a filter file imports none of the module_utils its filters call (plugin_utils/lazy_import.py).

Ansible imports the collection's filter files in name order, in each task's fresh worker process, until one
provides the filter a template calls: what a file imports at load time every such task pays. These run in a
fresh interpreter, as a worker starts, and look at what the loading left in sys.modules.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.blackwell.pytorch.plugins.plugin_utils import lazy_import

# The collection as the tests import it (conftest.py lays it out): its plugins/ and the directory on sys.path that
# holds ansible_collections/, which the fresh interpreter is given too.
PLUGINS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(lazy_import.__file__)))
TREE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(PLUGINS_DIR))))
FILTER_DIR = os.path.join(PLUGINS_DIR, "filter")
FILTERS = sorted(name[:-3] for name in os.listdir(FILTER_DIR) if name.endswith(".py") and name != "__init__.py")

CHILD = r"""
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
before = set(sys.modules)
for name in sys.argv[3].split(","):
    importlib.import_module("ansible_collections.blackwell.pytorch.plugins.filter." + name).FilterModule().filters()
loaded = sorted(m for m in set(sys.modules) - before if m.startswith(sys.argv[2]))
call = sys.argv[4]
if call:
    from ansible_collections.blackwell.pytorch.plugins.filter import rollout
    rollout.rollout_summary([], {})
print(json.dumps({"loaded": loaded, "after_call": sorted(m for m in sys.modules if m.startswith(sys.argv[2]))}))
"""


def child(prefix, filters, call=False):
    """What loading `filters` (and, with call, one rollout_summary call) imported under `prefix`."""
    out = subprocess.run([sys.executable, "-c", CHILD, TREE, prefix, ",".join(filters), "1" if call else ""],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def test_every_filter_file_is_seen():
    assert {"torch", "verify", "rollout", "verify_steps"} <= set(FILTERS)


def test_loading_every_filter_file_imports_no_module_utils():
    result = child(lazy_import.MODULE_UTILS, FILTERS)
    assert result["loaded"] == []


def test_loading_every_filter_file_imports_no_version_parser():
    # plugin_utils/versions.py imports packaging: only a filter that compares versions needs it
    result = child(lazy_import.PLUGIN_UTILS, FILTERS)
    assert lazy_import.PLUGIN_UTILS + "versions" not in result["loaded"]
    assert lazy_import.PLUGIN_UTILS + "lazy_import" in result["loaded"]


def test_a_filter_call_imports_what_it_runs_and_no_more():
    result = child(lazy_import.MODULE_UTILS, FILTERS, call=True)
    assert lazy_import.MODULE_UTILS + "verify.rollout" in result["after_call"]
    assert not [m for m in result["after_call"] if ".planning." in m or ".containers." in m]


def test_lazy_module_reads_the_module_attribute():
    from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import rollout

    lazy = lazy_import.module_utils("verify.rollout")
    assert lazy.summary is rollout.summary
    assert "verify.rollout" in repr(lazy)


def test_lazy_module_refuses_a_missing_attribute_and_module():
    with pytest.raises(AttributeError):
        lazy_import.module_utils("verify.rollout").no_such_function  # pylint: disable=expression-not-assigned
    with pytest.raises(ImportError):
        lazy_import.module_utils("verify.no_such_module").summary  # pylint: disable=expression-not-assigned
