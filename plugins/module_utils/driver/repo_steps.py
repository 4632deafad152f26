# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The vendor_repo module's two steps on the host, over driver.repo_trust's decisions.

- present(): the repository inputs refused first (driver.refusals); the key on the host read and checked, fetched
  (common.url_fetch, through the proxy given as a value) only when no key content is given and the host's fails the
  pins; the key checked against the pins and another apt source of the same repository refused
  (driver.host_probe.other_sources), all before anything is written; then the key directory, the key, the proxy
  setting and the source written (a temporary file beside each, its mode and owner set before the rename: a proxy
  password is never in a file others can read), only what differs, on RedHat the key imported into the RPM database
  before the .repo file is written; nothing in check mode.
- refused(): the source apt refused removed again, and apt's reason.

A refusal raises RepoRefused carrying the message and the result to return. `owner` is (uid, gid): root's in the
module, the test's own in unit tests. No Ansible import; Python 3.9.
"""
from __future__ import annotations

import os
import stat
import tempfile
from typing import Any, Callable, Mapping, Tuple

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import url_fetch
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import read_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import host_probe, openpgp, os_layout, refusals
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import repo_trust as repo

ROOT_OWNER = (0, 0)
Run = Callable[[list], Tuple[int, str, str]]
Opener = Callable[..., Any]


class RepoRefused(Exception):
    """A refusal of the vendor repository: `msg` for the user, `result` the values returned with it."""

    def __init__(self, msg: str, result: Mapping[str, Any] | None = None) -> None:
        super().__init__(msg)
        self.msg = msg
        self.result = dict(result or {})


def _attributes_differ(path: str, mode: str, owner: tuple[int, int]) -> bool:
    info = os.lstat(path)
    return stat.S_IMODE(info.st_mode) != int(mode, 8) or (info.st_uid, info.st_gid) != tuple(owner)


def directory_differs(path: str, mode: str, owner: tuple[int, int]) -> bool:
    """Whether `path` is missing, no directory, or of another mode or owner."""
    return not os.path.isdir(path) or _attributes_differ(path, mode, owner)


def ensure_directory(path: str, mode: str, owner: tuple[int, int]) -> None:
    """`path` a directory (its parents made as needed) of this mode and owner."""
    os.makedirs(path, exist_ok=True)
    os.chmod(path, int(mode, 8))
    os.chown(path, *owner)


def compare(entry: Mapping[str, Any], owner: tuple[int, int]) -> dict[str, Any]:
    """{"before": the text there (None: none), "differs": the content or the mode/owner differ, "text_differs"}."""
    path = entry["path"]
    before = read_text(path)
    there = os.path.lexists(path)
    if entry["content"] is None:
        return {"before": before, "differs": there, "text_differs": there}
    text_differs = before != entry["content"]
    return {"before": before, "text_differs": text_differs,
            "differs": text_differs or _attributes_differ(path, entry["mode"], owner)}


def write_file(path: str, text: str, mode: str, owner: tuple[int, int]) -> None:
    """Replace `path` by `text` through a temporary file in its directory whose mode and owner are set before the
    rename (a reader sees the old file or the whole new one, never a readable half or a readable secret)."""
    handle, temporary = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), suffix=".tmp",
                                         dir=os.path.dirname(os.path.abspath(path)))
    try:
        os.fchmod(handle, int(mode, 8))
        os.fchown(handle, *owner)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.rename(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def apply(entry: Mapping[str, Any], found: Mapping[str, Any], owner: tuple[int, int]) -> None:
    """Make the file as `entry` asks, after compare() found it `found` (different)."""
    path = entry["path"]
    if entry["content"] is None:
        os.unlink(path)
    elif found["text_differs"]:
        write_file(path, entry["content"], entry["mode"], owner)
    else:
        os.chmod(path, int(entry["mode"], 8))
        os.chown(path, *owner)


def with_layout(params: Mapping[str, Any], machine: str) -> dict[str, Any]:
    """The module's parameters with the family and each path or URL left empty set to those of the OS the
    preflight read (params["os"]: os_layout.repo_options; apt_conf_path is the layout's proxy file)."""
    os_info = dict(params.get("os") or {})
    family = params.get("family") or os_info.get("family") or repo.DEBIAN
    os_info.setdefault("family", family)
    filled = os_layout.repo_options(dict(params, proxy_path=params.get("apt_conf_path") or ""), os_info, machine)
    filled.update(family=family, apt_conf_path=filled.pop("proxy_path"))
    return filled


def inputs_refusal(want: Mapping[str, Any]) -> str:
    """The repository inputs that cannot work (URLs, pinned fingerprints, proxy), never showing a password."""
    return refusals.repo_inputs_refusal(want["host"], want["url"], want.get("key_url") or "",
                                        want.get("key_content") or "", want.get("fingerprints"),
                                        want.get("proxy") or "")


def rpm_import(run: Run, rpm: str, keyring: str, fingerprints: list[str], check_mode: bool) -> bool:
    """Import the key at `keyring` into the RPM database unless every key of it is there: whether it was (in check
    mode, would be) imported. Raises RepoRefused when rpm refuses it."""
    commands = repo.rpm_commands(rpm, keyring, fingerprints)
    if all(run(argv)[0] == 0 for argv in commands["queries"]):
        return False
    if not check_mode:
        rc, out, err = run(commands["import"])
        if rc != 0:
            raise RepoRefused("%s failed (rc %d): %s" % (" ".join(commands["import"]), rc, (err or out).strip()))
    return True


def present(want: Mapping[str, Any], check_mode: bool, opener: Opener, owner: tuple[int, int] = ROOT_OWNER,
            run: Run | None = None, rpm: str = "rpm") -> dict[str, Any]:
    """Trust the key and write the source: the module's result (changed, changes, diff, status, update_lists, fetched).
    `opener(url, timeout=...)` reads the key URL (common.url_fetch.fetch, through want["proxy"]; also in check mode:
    it only reads); `run(argv)` -> (rc, stdout, stderr) runs rpm on RedHat."""
    host, family, key_content = want["host"], want["family"], want.get("key_content") or ""
    for refusal in (inputs_refusal(want), repo.family_refusal(host, family)):
        if refusal:
            raise RepoRefused(refusal)
    host_key = read_text(want["keyring"])
    fetched = None
    if repo.must_fetch(key_content, host_key, want["fingerprints"]):
        fetched = url_fetch.fetch(want.get("key_url") or "", want.get("proxy") or "", want.get("timeout") or 30, opener)
    failure = repo.fetch_failure(host, want.get("key_url") or "", fetched)
    if failure and not check_mode:
        raise RepoRefused(repo.stop_message(failure))
    if failure:
        note = repo.check_mode_note(want.get("key_url") or "", failure)
        status = repo.repo_status(want["url"], want["keyring"], [], False)
        return {"changed": False, "changes": [], "msg": note, "warnings": [note], "trusted": False, "fetched": True,
                "fingerprints": [], "usable": False, "update_lists": False, "status": status}
    text = repo.key_text(key_content, fetched, host_key)
    check = openpgp.check_key(text, list(want["fingerprints"]))
    refusal = repo.untrusted_refusal(host, repo.key_origin(key_content, want.get("key_url") or ""), check)
    if not refusal and family == repo.DEBIAN:
        source = want["source_path"]
        others = host_probe.other_sources(os.path.dirname(source), want["url"], os.path.basename(source))
        refusal = refusals.other_sources_refusal(host, want["url"], others)
    if refusal:
        raise RepoRefused(refusal)
    directory = os.path.dirname(want["keyring"])
    changes = ["key directory"] if directory_differs(directory, repo.KEY_DIRECTORY_MODE, owner) else []
    if changes and not check_mode:
        ensure_directory(directory, repo.KEY_DIRECTORY_MODE, owner)
    diffs = []
    for entry in repo.wanted_files(family, text, want):
        found = compare(entry, owner)
        if found["differs"]:
            changes.append(entry["name"])
            if found["text_differs"]:
                diffs.append(repo.file_diff(entry, found["before"]))
            if not check_mode:
                apply(entry, found, owner)
        # RedHat: the checked key into the RPM database before the .repo file that trusts it (a check run without the
        # key on the host has nothing to import yet)
        if entry["name"] == repo.KEY and family == repo.REDHAT and not (check_mode and found["differs"]):
            if rpm_import(run, rpm, want["keyring"], check["fingerprints"], check_mode):
                changes.append("rpm key")
    steps = repo.next_steps(family, changes, check_mode, bool(want.get("refresh", True)))
    status = repo.repo_status(want["url"], want["keyring"], check["fingerprints"], steps["usable"])
    return dict(steps, changed=bool(changes), changes=changes, diff=diffs, trusted=True,
                fingerprints=check["fingerprints"], msg=check["msg"], warnings=[], status=status,
                fetched=fetched is not None)


def refused(want: Mapping[str, Any]) -> str:
    """Remove the source apt refused (the rest of the system's apt keeps working); the message that says why."""
    source = want["source_path"]
    if os.path.lexists(source):
        os.unlink(source)
    return repo.apt_refusal(want["host"], want["url"], source, want.get("apt_output") or "",
                            want.get("lock_timeout"), repo.key_fingerprints(read_text(want["keyring"])))
