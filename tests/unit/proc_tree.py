"""Write a fake /proc under a temp dir: per process `status` (real kernel layout), `cmdline`, `comm`, `environ`
and `fd/` links, as gpu_processes reads them."""
from __future__ import annotations

import os

STATUS = ("Name:\t{comm}\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t{pid}\nNgid:\t0\nPid:\t{pid}\nPPid:\t{ppid}\n"
          "TracerPid:\t0\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\nGid:\t{uid}\t{uid}\t{uid}\t{uid}\nFDSize:\t64\n"
          "Groups:\t{uid}\nVmPeak:\t 9012344 kB\nVmRSS:\t 2104312 kB\nThreads:\t12\n")


# A login shell's environment, as a job started from one carries it (name, value pairs).
SHELL_ENV = (("HOME", "/home/alice"), ("LANG", "C.UTF-8"), ("PATH", "/usr/local/bin:/usr/bin:/bin"), ("SHELL", "/bin/bash"))


def add_process(proc_root, pid, ppid=1, uid=0, cmdline=("/usr/bin/python3",), comm=None, environ=SHELL_ENV, fds=()):
    """One process: `cmdline` its words (empty: a kernel thread's empty file), `environ` its {name: value}, `fds`
    the paths its descriptors point at (`environ` may be name, value pairs). `environ` or `fds` None: unreadable, as another user's are to a reader
    without root; the file (the directory) is left out, since a file's mode refuses nothing to root, who runs
    these tests in CI containers."""
    path = os.path.join(str(proc_root), str(pid))
    os.makedirs(path, exist_ok=True)
    comm = comm if comm is not None else (os.path.basename(cmdline[0])[:15] if cmdline else "kworker/0:1")
    with open(os.path.join(path, "status"), "w") as handle:
        handle.write(STATUS.format(comm=comm, pid=pid, ppid=ppid, uid=uid))
    with open(os.path.join(path, "cmdline"), "wb") as handle:
        handle.write(b"".join(word.encode() + b"\0" for word in cmdline))
    with open(os.path.join(path, "comm"), "w") as handle:
        handle.write(comm + "\n")
    if environ is not None:
        with open(os.path.join(path, "environ"), "wb") as handle:
            handle.write(b"".join(("%s=%s" % item).encode() + b"\0" for item in sorted(dict(environ).items())))
    if fds is not None:
        os.makedirs(os.path.join(path, "fd"))
        for number, target in enumerate(fds, start=3):
            os.symlink(target, os.path.join(path, "fd", str(number)))
    return path
