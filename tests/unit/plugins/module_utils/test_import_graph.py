"""The imports between module_utils packages and modules form no cycle (docs/architecture.md)."""
from __future__ import annotations

import ast
import os

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "plugins", "module_utils")
PREFIX = "ansible_collections.blackwell.pytorch.plugins.module_utils."


def _modules():
    """{"package.module": set of "package.module" it imports} over plugins/module_utils."""
    graph = {}
    for package in sorted(os.listdir(ROOT)):
        folder = os.path.join(ROOT, package)
        if not os.path.isdir(folder):
            continue
        for filename in sorted(os.listdir(folder)):
            if not filename.endswith(".py") or filename == "__init__.py":
                continue
            with open(os.path.join(folder, filename), encoding="utf-8") as handle:
                tree = ast.parse(handle.read())
            imports = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PREFIX):
                    target = node.module[len(PREFIX):]
                    if "." in target:
                        imports.add(target)
                    else:  # from ...module_utils.<package> import module, ...
                        imports.update("%s.%s" % (target, alias.name) for alias in node.names)
            graph["%s.%s" % (package, filename[:-3])] = imports
    return graph


def _cycle(graph):
    """One cycle of a {node: successors} graph as a list, or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for successor in sorted(graph.get(node, ())):
            if state.get(successor) == "open":
                return path[path.index(successor):] + [successor]
            if successor not in state:
                found = visit(successor, path + [successor])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def test_every_import_names_a_module_that_exists():
    graph = _modules()
    assert len(graph) > 90
    assert [(module, target) for module, targets in sorted(graph.items()) for target in sorted(targets)
            if target not in graph] == []


def test_modules_import_no_cycle():
    assert _cycle(_modules()) is None


# Packages from the lowest layer up (docs/architecture.md); a package imports only from its own layer and
# the ones below. wheel_index reads what an index holds; the catalogue the plan makes of it
# (planning/index_catalog.py) is planning's. results (the stored results and the fingerprint they were measured
# on) is read by the pytorch stage's converged answer and by verify: below both, so neither stage imports the other.
# stages (each stage's options, question and published facts) is the top: it asks driver and planning, none asks it.
LAYERS = (("common",), ("hardware", "results"), ("driver", "benchmark", "wheel_index"), ("verify", "containers"),
          ("planning",), ("torch_cuda_check",), ("stages",))


def _packages(graph):
    """{package: set of the other packages its modules import}."""
    found = {}
    for module, targets in graph.items():
        package = module.split(".")[0]
        found.setdefault(package, set()).update(target.split(".")[0] for target in targets
                                                if target.split(".")[0] != package)
    return found


def test_packages_import_no_cycle():
    assert _cycle(_packages(_modules())) is None


def test_no_package_imports_from_a_higher_layer():
    layer = dict((package, number) for number, packages in enumerate(LAYERS) for package in packages)
    upward = sorted((module, target) for module, targets in _modules().items() for target in targets
                    if layer[target.split(".")[0]] > layer[module.split(".")[0]])
    assert upward == []
    assert sorted(layer) == sorted(set(module.split(".")[0] for module in _modules()))


def test_a_cycle_is_found():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
