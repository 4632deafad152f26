# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compile and import the target-side code with the interpreter that runs this script.

Run by tests/bin/targets-python.sh under Debian 11's python3.9, with the collection at
<base>/ansible_collections/blackwell/pytorch and ansible-core's module_utils at
<base>/ansible/module_utils on sys.path. Every .py file under plugins/modules and
plugins/module_utils is compiled (the interpreter's grammar), then every module_utils module and
every module is imported (import only: a module's main() runs under __main__ alone). Prints one
line of counts and every failure; exits 1 when anything failed.
"""
from __future__ import annotations

import importlib
import os
import sys
import traceback

PACKAGE = "ansible_collections.blackwell.pytorch"


def python_files(root, top):
    """Relative paths of the .py files under root/top, sorted."""
    found = []
    for parent, dirs, files in os.walk(os.path.join(root, top)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        found.extend(os.path.relpath(os.path.join(parent, f), root) for f in files if f.endswith(".py"))
    return sorted(found)


def module_name(relpath):
    """plugins/module_utils/x/__init__.py -> ansible_collections.blackwell.pytorch.plugins.module_utils.x"""
    parts = relpath[:-len(".py")].split(os.sep)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([PACKAGE] + parts)


def main():
    root = os.path.abspath(sys.argv[1])
    version = "python%d.%d" % sys.version_info[:2]
    failures = []
    files = python_files(root, os.path.join("plugins", "module_utils")) + \
        python_files(root, os.path.join("plugins", "modules"))
    compiled = 0
    for rel in files:
        with open(os.path.join(root, rel), "rb") as handle:
            source = handle.read()
        try:
            compile(source, rel, "exec", dont_inherit=True)
            compiled += 1
        except SyntaxError as err:
            failures.append("%s: does not compile on %s: %s (line %s)" % (rel, version, err.msg, err.lineno))
    imported = 0
    for rel in files:
        name = module_name(rel)
        try:
            importlib.import_module(name)
            imported += 1
        except BaseException as err:  # a SystemExit or a SyntaxError is a failure to report as well
            where = traceback.extract_tb(err.__traceback__)[-1]
            failures.append("%s: import failed on %s: %s (last frame %s:%s)" % (
                name, version, traceback.format_exception_only(type(err), err)[-1].strip(),
                os.path.relpath(where.filename, root), where.lineno))
    for failure in failures:
        print(failure)
    print("%s targets: %d of %d files compiled, %d of %d modules imported"
          % (version, compiled, len(files), imported, len(files)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
