# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The same pins of the torch family installed three ways, as pytorch_stack installs them, in one run:
pip into a fresh venv (cold pip cache), uv into a fresh venv (cold uv cache), uv into a second fresh venv
from the warm cache (what a new stack sharing its wheels with a kept one costs).

The command lines are the collection's own (plugins/module_utils/planning/install_command.py): the
checkout is put on sys.path as ansible_collections.blackwell.pytorch (collection_path.py). Each venv is
made by `python -m venv` first (timed apart). New disk is what the venv and the installer's cache grew
by, each inode counted once (a file uv hard-links into the second venv from its cache costs nothing
again).

    python3 benchmarks/install_uv_vs_pip.py --uv /opt/blackwell/tools/bin/uv                # cu128 index
    python3 benchmarks/install_uv_vs_pip.py --uv "$(command -v uv)" --index-url https://pypi.org/simple --label ""
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time


def load_install_command():
    """plugins/module_utils/planning/install_command.py, imported as the collection's module."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from collection_path import import_collection
    import_collection()
    from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import install_command
    return install_command


def disk_bytes(paths):
    """Bytes allocated under `paths`, each inode once (hard links counted once)."""
    seen, total = set(), 0
    for top in paths:
        for folder, dirs, names in os.walk(top):
            for name in dirs + names:
                info = os.lstat(os.path.join(folder, name))
                if (info.st_dev, info.st_ino) not in seen:
                    seen.add((info.st_dev, info.st_ino))
                    total += info.st_blocks * 512
    return total


def timed(argv, env=None, log=None):
    start = time.monotonic()
    with open(log or os.devnull, "w") as handle:
        rc = subprocess.call(argv, env=env, stdout=handle, stderr=subprocess.STDOUT)
    seconds = time.monotonic() - start
    if rc != 0:
        tail = open(log).read()[-2000:] if log else ""
        raise SystemExit("failed (rc %d): %s\n%s" % (rc, " ".join(argv), tail))
    return seconds


def pins(args):
    if args.pins:
        return args.pins
    label = ("+" + args.label) if args.label else ""
    return ["torch==%s%s" % (args.torch, label), "torchvision==%s%s" % (args.torchvision, label),
            "torchaudio==%s%s" % (args.torchaudio, label)]


def pip_args(args):
    where = ["--index-url", args.index_url] + ["--extra-index-url=" + url for url in args.extra_index_url]
    return where + ["--only-binary", "torch,torchvision,torchaudio"] + pins(args)


def run(args, work, commands):
    rows, caches = [], {"pip": os.path.join(work, "pip-cache"), "uv": os.path.join(work, "uv-cache")}
    steps = [("pip", "pip-venv", "pip (cold cache)"), ("uv", "uv-venv-1", "uv (cold cache)"),
             ("uv", "uv-venv-2", "uv (warm cache, 2nd venv)")]
    made = []
    for installer, name, label in steps:
        venv = os.path.join(work, name)
        python = os.path.join(venv, "bin", "python")
        measured = [caches[installer]] + [path for path in made if path.startswith(os.path.join(work, installer))]
        before = disk_bytes(measured)
        venv_seconds = timed([args.python, "-m", "venv", venv])
        if installer == "pip":
            argv = commands.pip_command(python, pip_args(args) + ["--cache-dir", caches["pip"]])
            env = None
        else:
            argv, env = commands.uv_command(args.uv, python, pip_args(args), caches["uv"], dict(os.environ))
        seconds = timed(argv, env, os.path.join(work, name + ".log"))
        made.append(venv)
        grown = disk_bytes(measured + [venv]) - before
        rows.append({"installer": label, "seconds": seconds, "venv_seconds": venv_seconds, "mb": grown / 2.0 ** 20})
    return rows


def table(rows):
    pip = rows[0]["seconds"]
    lines = ["%-28s %9s %9s %12s %9s" % ("installer", "install s", "venv s", "new disk MB", "vs pip")]
    for row in rows:
        lines.append("%-28s %9.1f %9.1f %12.0f %8.2fx" % (row["installer"], row["seconds"], row["venv_seconds"],
                                                          row["mb"], row["seconds"] / pip if pip else 0.0))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--torch", default="2.9.1")
    parser.add_argument("--torchvision", default="0.24.1")
    parser.add_argument("--torchaudio", default="2.9.1")
    parser.add_argument("--index-url", default="https://download.pytorch.org/whl/cu128",
                        help="the index (download.pytorch.org/whl/<channel>, a mirror, https://pypi.org/simple)")
    parser.add_argument("--extra-index-url", action="append", default=[])
    parser.add_argument("--label", default="cu128", help="local label of the pins (cu128, cpu); empty for PyPI's")
    parser.add_argument("--pins", nargs="+", default=[], help="other pins instead of the torch family (a quick try)")
    parser.add_argument("--python", default=sys.executable, help="interpreter that makes the venvs (3.10+)")
    parser.add_argument("--uv", default=shutil.which("uv") or os.path.join(os.path.dirname(sys.executable), "uv"))
    parser.add_argument("--work", default="",
                        help="directory for the venvs and caches (one filesystem); default: a temporary one, removed")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args(argv)
    work = args.work or tempfile.mkdtemp(prefix="install-bench-")
    os.makedirs(work, exist_ok=True)
    try:
        rows = run(args, work, load_install_command())
        print("pins: %s from %s" % (" ".join(pins(args)), args.index_url))
        print(table(rows))
        print("uv cold / pip: %.2f; uv warm: %.1f s, %.0f MB new disk" % (
            rows[1]["seconds"] / rows[0]["seconds"], rows[2]["seconds"], rows[2]["mb"]))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("kept %s" % work)


if __name__ == "__main__":
    main()
