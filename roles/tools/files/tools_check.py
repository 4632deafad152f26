# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the tools venv lacks, run by the venv's own interpreter with the requirements as arguments.

Prints the requirements that are not satisfied, space-separated ("name==version" is compared with the
installed version, a bare or otherwise bounded name by presence; "-" and "_" are one), and exits 1 when
there are any, 0 when there are none. nvidia-ml-py counts as missing when pynvml does not import. The
tools role runs this text with `python -c` (Python 3.9+, the standard library only).
"""
import importlib.metadata as md
import re
import sys


def installed_version(name):
    """The installed version of the distribution `name`, None when it is not installed."""
    for each in (name, name.replace("-", "_")):
        try:
            return md.version(each)
        except md.PackageNotFoundError:
            pass
    return None


def unsatisfied(requirements):
    """The requirements the interpreter running this does not satisfy, in their order; then nvidia-ml-py's
    when it is installed but pynvml does not import."""
    missing = []
    for req in requirements:
        name, pin = re.split(r"[<>=!~; ]", req, maxsplit=1)[0], req.partition("==")[2]
        found = installed_version(name)
        if found is None or (pin and found != pin):
            missing.append(req)
    try:
        import pynvml  # noqa: F401 pylint: disable=import-outside-toplevel,unused-import
    except ImportError:
        missing += [req for req in requirements if req.startswith("nvidia-ml-py") and req not in missing]
    return missing


def main(argv):
    missing = unsatisfied(argv)
    print(" ".join(missing))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
