"""Every public function of the typed module_utils packages shows its types (issue 42, item 5).

A public function is one at module level, or a method of a public class, whose name does not start with "_":
each of its parameters (self and cls of a method aside) and its return carry an annotation. The files run on
Python 3.9 targets and in the torch children, so each file with code starts with `from __future__ import
annotations` (after its docstring): the annotations are never evaluated there.
"""
from __future__ import annotations

import ast
import os

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "plugins", "module_utils")
# The packages whose public functions are all typed; the others (driver, planning) join this list
# when theirs are.
PACKAGES = ("common", "hardware", "results", "wheel_index", "verify", "containers", "benchmark", "torch_cuda_check",
            "stages")
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _is_method_of_instance_or_class(function):
    """Whether the function's first parameter is the instance or the class (not a staticmethod)."""
    return not any(isinstance(item, ast.Name) and item.id == "staticmethod" for item in function.decorator_list)


def _missing(function, method):
    """The unannotated parts of one function: parameter names, and "return" when the return is not annotated."""
    arguments = function.args
    params = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
    if method and _is_method_of_instance_or_class(function) and params and params[0].arg in ("self", "cls"):
        params = params[1:]
    missing = [param.arg for param in params if param.annotation is None]
    missing += ["*" + arguments.vararg.arg] if arguments.vararg and arguments.vararg.annotation is None else []
    missing += ["**" + arguments.kwarg.arg] if arguments.kwarg and arguments.kwarg.annotation is None else []
    if function.returns is None:
        missing.append("return")
    return missing


def offenders(source, where):
    """["where:line name (missing parts)"] of the public functions and public classes' methods in `source`."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, FUNCTIONS):
            pairs = [(node, node.name, False)]
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            pairs = [(item, "%s.%s" % (node.name, item.name), True)
                     for item in node.body if isinstance(item, FUNCTIONS)]
        else:
            continue
        for function, name, method in pairs:
            if function.name.startswith("_"):
                continue
            missing = _missing(function, method)
            if missing:
                found.append("%s:%d %s (%s)" % (where, function.lineno, name, ", ".join(missing)))
    return found


def _files(package):
    folder = os.path.join(ROOT, package)
    return [os.path.join(folder, name) for name in sorted(os.listdir(folder)) if name.endswith(".py")]


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_function_of_the_package_is_annotated(package):
    files = _files(package)
    assert len(files) > 1, package
    found = []
    for path in files:
        found += offenders(_read(path), "%s/%s" % (package, os.path.basename(path)))
    assert found == [], "%d public functions without annotations:\n%s" % (len(found), "\n".join(found))


@pytest.mark.parametrize("package", PACKAGES)
def test_every_file_with_code_postpones_its_annotations(package):
    late = []
    for path in _files(package):
        body = ast.parse(_read(path)).body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # the docstring
        if not body:
            continue  # an empty __init__.py
        first = body[0]
        if not (isinstance(first, ast.ImportFrom) and first.module == "__future__"
                and [alias.name for alias in first.names] == ["annotations"]):
            late.append("%s/%s" % (package, os.path.basename(path)))
    assert late == []


def test_the_check_names_each_unannotated_part_and_passes_private_and_self():
    source = '''
def typed(a: int, *rest: str, key: bool = False, **more: float) -> int:
    return a

def untyped(a, b: int = 1, *rest, key=None, **more):
    return a

def no_return(a: int):
    return a

def _private(a):
    return a

class Public:
    def __init__(self, a):
        self.a = a

    def method(self, b: int) -> int:
        return b

    def loose(self, b):
        return b

    @classmethod
    def build(cls, b: int) -> "Public":
        return cls(b)

    @staticmethod
    def helper(self) -> None:
        return None

class _Hidden:
    def method(self, b):
        return b
'''
    assert offenders(source, "x.py") == [
        "x.py:5 untyped (a, key, *rest, **more, return)",
        "x.py:8 no_return (return)",
        "x.py:21 Public.loose (b, return)",
        "x.py:29 Public.helper (self)",
    ]
