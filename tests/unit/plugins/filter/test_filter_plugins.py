from __future__ import annotations

import glob
import importlib
import os

import pytest
import yaml

FILTER_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "plugins", "filter")
# Each plugin file names one domain; these are the filters it exposes, each with its sidecar document.
PLUGINS = {
    "openpgp": ["openpgp_key_check"],
    "nvidia_driver": ["nvidia_driver_apt_packages", "nvidia_driver_load_state", "nvidia_driver_plan",
                      "nvidia_driver_repo_check"],
    "cuda_toolkit": ["cuda_toolkit_driver", "cuda_toolkit_plan"],
    "container_toolkit": ["container_toolkit_cdi_check", "container_toolkit_cdi_plan", "container_toolkit_config_changed", "container_toolkit_deb_arch",
                          "container_toolkit_gpu_match", "container_toolkit_inputs", "container_toolkit_plan",
                          "container_toolkit_probe", "container_toolkit_repo_key", "container_toolkit_runtimes"],
    "torch": ["torch_adopted_steps", "torch_arch_list", "torch_check_policy", "torch_check_summary", "torch_decide",
              "torch_gate_failure", "torch_max_jobs", "torch_pip_args", "torch_pip_private", "torch_plan", "torch_profile",
              "torch_published", "torch_settled", "torch_wheelhouse", "torch_wheelhouse_report", "torch_wheelhouse_use"],
    "rollout": ["rollout_summary"],
    "site": ["site_summary"],
    "tools": ["tools_state"],
    "verify_steps": ["verify_steps"],
    "verify": ["fleet_report_data", "fleet_report_html", "fleet_report_markdown", "output_dir_errors", "verify_check_gpu",
               "verify_decision", "verify_inputs", "verify_plan", "verify_prometheus", "verify_summary", "verify_with_health"],
}


def _filters(plugin):
    module = importlib.import_module("ansible_collections.blackwell.pytorch.plugins.filter.%s" % plugin)
    return module.FilterModule().filters()


def test_the_plugin_files_are_the_listed_ones():
    files = sorted(os.path.basename(path)[:-3] for path in glob.glob(os.path.join(FILTER_DIR, "*.py")))
    assert files == sorted(PLUGINS)


@pytest.mark.parametrize("plugin", sorted(PLUGINS))
def test_each_plugin_exposes_exactly_its_filters(plugin):
    filters = _filters(plugin)
    assert sorted(filters) == PLUGINS[plugin]
    assert all(callable(function) for function in filters.values())


def test_every_sidecar_document_belongs_to_one_exposed_filter():
    documented = sorted(os.path.basename(path)[:-4] for path in glob.glob(os.path.join(FILTER_DIR, "*.yml")))
    exposed = sorted(name for names in PLUGINS.values() for name in names)
    assert documented == exposed


@pytest.mark.parametrize("name", sorted(name for names in PLUGINS.values() for name in names))
def test_the_sidecar_document_names_its_filter(name):
    with open(os.path.join(FILTER_DIR, name + ".yml")) as handle:
        document = yaml.safe_load(handle)
    assert document["DOCUMENTATION"]["name"] == name
    documented = set(document["DOCUMENTATION"].get("options") or {}) - {"_input"}
    plugin = next(plugin for plugin, names in PLUGINS.items() if name in names)
    code = _filters(plugin)[name].__code__
    parameters = set(code.co_varnames[1:code.co_argcount])
    assert documented <= parameters, "documented options the filter does not take: %s" % (documented - parameters)


@pytest.mark.parametrize("plugin,name,args,kwargs", [
    ("nvidia_driver", "nvidia_driver_plan", ([],), {"packages": "nvidia-open\t580.95.05-1\tii \n"}),
    ("nvidia_driver", "nvidia_driver_load_state", ([{}],),
     {"loaded": {"loaded": True, "version": "580.95.05"}, "installed_version": "580.95.5"}),
    ("cuda_toolkit", "cuda_toolkit_plan", (["13.0"],), {"driver": "580.95.05"}),
    ("torch", "torch_plan", ("2.9.1",), {"channel": "cu128", "driver_cuda": "13.0"}),
])
def test_controller_filters_read_versions_with_packaging(monkeypatch, plugin, name, args, kwargs):
    from packaging.version import Version

    from ansible_collections.blackwell.pytorch.plugins.plugin_utils import versions

    seen = []
    real = versions.parse

    def recording(text):
        fields = real(text)
        seen.append(fields)
        return fields

    monkeypatch.setattr(versions, "parse", recording)
    _filters(plugin)[name](*args, **kwargs)
    assert seen and all(isinstance(fields["key"], Version) for fields in seen if fields)
