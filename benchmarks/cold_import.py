# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a cold page cache costs torch's import, and what reading its files ahead saves (not shipped).

  sudo python3 benchmarks/cold_import.py /path/to/venv/bin/python3

Root only: each row starts from an empty page cache (sync, then /proc/sys/vm/drop_caches = 1, which drops
clean cached file pages and nothing else), as on a freshly started machine. Rows: `import torch` cold and warm;
torch + torchvision + torchaudio cold and warm (the check's companions child), with the slowest modules of the
cold import (-X importtime, self time); then the same imports with the stack's files read ahead first, and
read ahead beside the import (as a module would start it). Prints the seconds and the MiB read from disk.
"""
from __future__ import annotations

import glob
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

IMPORTS = {"torch": "import torch", "companions": "import torch, torchvision, torchaudio"}


def read_kib():
    with open("/proc/vmstat") as stream:
        for line in stream:
            if line.startswith("pgpgin "):
                return int(line.split()[1])
    return 0


def drop():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as stream:
        stream.write("1\n")


def timed(argv, env=None):
    start, before = time.monotonic(), read_kib()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    return time.monotonic() - start, (read_kib() - before) / 1024.0, proc


def row(name, seconds, mib, extra=""):
    print("%-52s %7.2f s %8.0f MiB %s" % (name, seconds, mib, extra), flush=True)


def slowest(stderr, count=8):
    rows = []
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            parts = [part.strip() for part in line[len("import time:"):].split("|")]
            if parts[0].isdigit():
                rows.append((int(parts[0]), parts[2]))
    return ", ".join("%s %.2f" % (name, us / 1e6) for us, name in sorted(rows, reverse=True)[:count])


# Within a site-packages directory: the shared libraries `import torch` and its companions load.
LIBRARY_GLOBS = ("torch/lib/*.so*", "nvidia/*/lib/*.so*", "nvidia/*/*/lib/*.so*", "torchvision/*.so",
                 "torchvision.libs/*.so*", "torchaudio/lib/*.so*")
BLOCK = 8 << 20


def stack_files(python):
    """The torch stack's shared libraries in the venv of `python`, as (size, path), largest first."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(python)))
    found = {}
    for site in glob.glob(os.path.join(root, "lib*", "python3*", "site-packages")):
        for pattern in LIBRARY_GLOBS:
            for path in glob.glob(os.path.join(site, pattern)):
                found[os.path.realpath(path)] = os.path.getsize(path)
    return sorted(((size, path) for path, size in found.items()), reverse=True)


def read_one(path, mode):
    fd = os.open(path, os.O_RDONLY)
    try:
        if mode == "willneed":  # ask the kernel to read the file ahead, without waiting
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
            return
        buffer = bytearray(BLOCK)
        while os.readv(fd, [buffer]) == BLOCK:
            pass
    finally:
        os.close(fd)


def read_ahead(python, mode, threads=4):
    """Read the stack's libraries once, four files at a time: "files, MiB"."""
    files = stack_files(python)
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda entry: read_one(entry[1], mode), files))
    return "%d files, %.0f MiB" % (len(files), sum(size for size, _path in files) / 1048576.0)


def main(argv):
    python = argv[1]
    if os.geteuid() != 0:
        print("needs root (it empties the page cache before each row)")
        return 2
    for name, code in IMPORTS.items():
        drop()
        seconds, mib, proc = timed([python, "-X", "importtime", "-c", code])
        row("%s, cold" % name, seconds, mib, "rc %d" % proc.returncode)
        print("    slowest: %s" % slowest(proc.stderr), flush=True)
        seconds, mib, _proc = timed([python, "-c", code])
        row("%s, warm" % name, seconds, mib)
    for mode in ("read", "willneed"):
        for name, code in IMPORTS.items():
            drop()
            start, before = time.monotonic(), read_kib()
            what = read_ahead(python, mode)
            row("read ahead (%s) alone" % mode, time.monotonic() - start, (read_kib() - before) / 1024.0, what)
            seconds, mib, _proc = timed([python, "-c", code])
            row("  then %s" % name, seconds, mib)
            drop()
            start = time.monotonic()
            with ThreadPoolExecutor(1) as pool:
                ahead = pool.submit(read_ahead, python, mode)
                seconds, mib, _proc = timed([python, "-c", code])
                ahead.result()
            row("  %s beside read ahead (%s)" % (name, mode), seconds, mib,
                "read ahead ended at %.2f s" % (time.monotonic() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
