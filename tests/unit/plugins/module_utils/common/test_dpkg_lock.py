# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import dpkg_lock

# /proc/locks of a host where unattended-upgrade holds dpkg's frontend lock and apt-get waits for it
PROC_LOCKS = """\
1: POSIX  ADVISORY  WRITE 2231 fe:01:1311781 0 EOF
1: -> POSIX  ADVISORY  WRITE 4410 fe:01:1311781 0 EOF
2: POSIX  ADVISORY  WRITE 2231 fe:01:1311779 0 EOF
3: FLOCK  ADVISORY  WRITE 611 00:19:1046 0 EOF
4: OFDLCK ADVISORY  READ  -1 fe:01:1311781 0 EOF
"""


def test_holders_are_read_by_device_and_inode_and_waiters_are_left_out():
    assert dpkg_lock.holders_of(PROC_LOCKS, "fe:01:1311781") == [2231]
    assert dpkg_lock.holders_of(PROC_LOCKS, "fe:01:1311779") == [2231]
    assert dpkg_lock.holders_of(PROC_LOCKS, "fe:01:999") == []
    assert dpkg_lock.holders_of("", "fe:01:1311781") == []


def test_the_wait_ends_when_the_holder_lets_go_or_at_the_timeout():
    now = [0.0]
    seen = [[{"path": "/l", "pid": 7, "command": "apt-get install x"}]] * 3 + [[]]

    def read(_paths):
        return seen.pop(0) if len(seen) > 1 else seen[0]

    def sleep(seconds):
        now[0] += seconds

    found = dpkg_lock.wait_free(["/l"], 10, read=read, clock=lambda: now[0], sleep=sleep)
    assert found == {"free": True, "waited": 3.0, "holders": [{"path": "/l", "pid": 7, "command": "apt-get install x"}]}
    held = [{"path": "/l", "pid": 7, "command": "apt-get install x"}]
    now[0] = 0.0
    found = dpkg_lock.wait_free(["/l"], 2.5, read=lambda _paths: held, clock=lambda: now[0], sleep=sleep)
    assert found == {"free": False, "waited": 2.5, "holders": held}


def test_the_message_names_holder_command_and_variable():
    text = dpkg_lock.held_message([{"path": "/var/lib/dpkg/lock-frontend", "pid": 2231,
                                    "command": "/usr/bin/python3 /usr/bin/unattended-upgrade"}], 120,
                                  "nvidia_driver_apt_lock_timeout")
    assert text.startswith("dpkg's lock was not released within 120 s: /var/lib/dpkg/lock-frontend is held by process "
                           "2231 (/usr/bin/python3 /usr/bin/unattended-upgrade).")
    assert "let it finish or raise nvidia_driver_apt_lock_timeout and run the play again" in text
