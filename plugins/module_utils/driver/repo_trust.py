# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The vendor repository of the nvidia_driver role's `repo` entry point, as pure functions (the vendor_repo module).

The key is trusted only after every primary key in it matched a pinned fingerprint (driver.openpgp); a key already
on the host is checked again on every run and fetched anew (url_fetch) only when it fails. Then the key and the
source are written: Debian's signed-by apt source and the repository's proxy setting (root-only: the proxy may
carry a password), or the key imported into the RPM database and a dnf .repo file with gpgcheck on. Here: whether to fetch, which key text to check, the
refusals (the words the role always used), the files a run writes, apt's refusal of the source, and the published
`nvidia_driver_repo_status`. The files' texts are driver.managed_files' (the nvidia_driver_state module compares the
host with the same texts). No Ansible import; Python 3.9.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import managed_files, openpgp

DEBIAN = "Debian"
REDHAT = "RedHat"
FAMILIES = (DEBIAN, REDHAT)
KEY, SOURCE, PROXY = "key", "source", "proxy"
REPO_DESCRIPTION = "NVIDIA CUDA repository (managed by blackwell.pytorch.nvidia_driver)"
KEY_DIRECTORY_MODE = "0755"
APT_QUOTED = re.compile(r"(?m)^(?:Err:.*|E: .*|W: Failed to fetch .*|  .*NO_PUBKEY.*)$")
APT_SIGNATURE = re.compile(r"NO_PUBKEY|not signed|BADSIG|signature")
_PASSWORD = re.compile(r"(://[^/@:\s]*):[^/@\s]*@")


def must_fetch(key_content: str, host_key: str | None, fingerprints: Sequence[str]) -> bool:
    """Whether the key must be fetched: no key content given, and the key on the host (None: not there) missing or
    no longer passing the pinned fingerprints (a changed pin list, a tampered file)."""
    if key_content:
        return False
    return host_key is None or not openpgp.check_key(host_key, list(fingerprints))["ok"]


def fetch_failure(host: str, key_url: str, fetched: Mapping[str, Any] | None) -> str:
    """'' when the key was not fetched or came (HTTP 200); else why it cannot be fetched and the variables that change
    it. `fetched` is url_fetch's result (status, msg); a URL's password in its message is masked."""
    status = (fetched or {}).get("status")
    if status is None or status == 200:
        return ""
    why = str(fetched["msg"]) if "msg" in fetched else "HTTP %s" % status
    why = re.sub(r"\.$", "", _PASSWORD.sub(r"\1:***@", why))
    return ("The repository key %s cannot be fetched from %s (%s). Point nvidia_driver_repo_base_url (or "
            "nvidia_driver_repo_url and nvidia_driver_repo_key_url) at a reachable mirror, set nvidia_driver_repo_proxy "
            "to the proxy this host must use, or give the armored key itself in nvidia_driver_repo_key_content."
            % (key_url, host, why))


def check_mode_note(key_url: str, failure: str) -> str:
    """What a check run says when it cannot fetch the key (a real run stops there, before anything is written)."""
    return "check mode: a real run fetches %s first and would stop here. %s" % (key_url, failure)


def stop_message(failure: str) -> str:
    """A real run's refusal when the key cannot be fetched."""
    return "%s Nothing was written." % failure


def key_text(key_content: str, fetched: Mapping[str, Any] | None, host_key: str | None) -> str:
    """The key to check: the given content, else the fetched one, else the one on the host ('' when none)."""
    if key_content:
        return key_content
    if fetched and fetched.get("status") == 200:
        return str(fetched.get("content") or "")
    return host_key or ""


def key_origin(key_content: str, key_url: str) -> str:
    """Where the key came from, as the refusal names it."""
    return "nvidia_driver_repo_key_content" if key_content else key_url


def untrusted_refusal(host: str, origin: str, check: Mapping[str, Any]) -> str:
    """'' when openpgp.check_key found every key pinned; else the refusal (nothing is written, nothing trusted)."""
    if check.get("ok"):
        return ""
    return ("The repository key from %s is not trusted on %s: %s. Nothing was written. If the vendor rotated its key, "
            "add the new fingerprint to nvidia_driver_repo_key_fingerprints after checking it out of band."
            % (origin, host, check.get("msg")))


def family_refusal(host: str, family: str) -> str:
    """'' for the OS families the repository is written for; else the refusal."""
    if family in FAMILIES:
        return ""
    return "%s: the vendor repository is written for the OS families %s only, not %r." % (
        host, " and ".join(FAMILIES), family)


def yum_repo(name: str, url: str, keyring: str, proxy: str = "") -> str:
    """The dnf .repo file, as ansible.builtin.yum_repository wrote it (keys sorted, gpgcheck on)."""
    entries = {"baseurl": url, "enabled": "1", "gpgcheck": "1", "gpgkey": "file://" + keyring,
               "name": REPO_DESCRIPTION}
    if proxy:
        entries["proxy"] = proxy
    lines = ["[%s]" % name] + ["%s = %s" % (key, entries[key]) for key in sorted(entries)]
    return "\n".join(lines) + "\n\n"


def wanted_files(family: str, text: str, want: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The files a run writes, in order: [{"name", "path", "content" (None: absent), "mode", "secret"}].

    want: url, keyring, source_path, proxy, apt_conf_path (Debian's proxy setting), name (the .repo section). A
    secret file's text is never shown (the proxy URL may carry a password)."""
    url, keyring, proxy = want["url"], want["keyring"], want.get("proxy") or ""
    files = [{"name": KEY, "path": keyring, "content": text, "mode": "0644", "secret": False}]
    if family == REDHAT:
        files.append({"name": SOURCE, "path": want["source_path"], "mode": "0600" if proxy else "0644",
                      "content": yum_repo(want["name"], url, keyring, proxy), "secret": bool(proxy)})
        return files
    files.append({"name": PROXY, "path": want["apt_conf_path"], "mode": "0600", "secret": True,
                  "content": managed_files.proxy_conf(url, proxy) if proxy else None})
    files.append({"name": SOURCE, "path": want["source_path"], "mode": "0644", "secret": False,
                  "content": managed_files.apt_source(url, keyring)})
    return files


def file_diff(entry: Mapping[str, Any], before: str | None) -> dict[str, str]:
    """Ansible's diff of one file (a secret file's texts are replaced by what changes)."""
    after = entry["content"]
    if entry["secret"]:
        before = "(not shown: the proxy URL may carry a password)\n" if before is not None else None
        after = "(not shown: the proxy URL may carry a password)\n" if after is not None else None
        if before == after:
            before, after = "(the setting as it was)\n", "(the setting as asked)\n"
    return {"before_header": entry["path"], "after_header": entry["path"], "before": before or "",
            "after": after or ""}


def repo_status(url: str, keyring: str, fingerprints: Sequence[str], usable: bool) -> dict[str, Any]:
    """The fact nvidia_driver_repo_status: usable is false when nothing can be installed from it yet (a check run that
    would create the source or the key, or could not fetch the key)."""
    return {"url": url, "keyring": keyring, "fingerprints": list(fingerprints), "usable": bool(usable)}


def next_steps(family: str, changed: Sequence[str], check_mode: bool, refresh: bool) -> dict[str, bool]:
    """{"usable", "update_lists"}: whether packages can be installed from the repository now, and whether the role
    runs apt-get update of this source only (Debian, a real run, asked for or the key or the source changed)."""
    wrote = KEY in changed or SOURCE in changed
    return {"usable": not (check_mode and wrote),
            "update_lists": family == DEBIAN and not check_mode and (refresh or wrote)}


def rpm_key_names(fingerprints: Sequence[str]) -> list[str]:
    """The RPM database's package name of each key (gpg-pubkey-<the key id's last 8 hex digits, lower case>; the key
    id is a v4 fingerprint's last 16 digits, a v5/v6 fingerprint's first 16)."""
    names = []
    for fingerprint in fingerprints:
        key_id = fingerprint[-16:] if len(fingerprint) == 40 else fingerprint[:16]
        names.append("gpg-pubkey-" + key_id[-8:].lower())
    return names


def rpm_commands(rpm: str, keyring: str, fingerprints: Sequence[str]) -> dict[str, Any]:
    """{"queries": [argv, ...] (rc 0: the key is in the RPM database), "import": argv} of the key at `keyring`."""
    return {"queries": [[rpm, "-q", "--quiet", name] for name in rpm_key_names(fingerprints)],
            "import": [rpm, "--import", keyring]}


def apt_lines(output: str) -> str:
    """apt's error lines of `output` (Err:, E:, W: Failed to fetch, NO_PUBKEY), each once, joined by ' | '."""
    found: list[str] = []
    for line in APT_QUOTED.findall(output or ""):
        line = line.strip()
        if line not in found:
            found.append(line)
    return re.sub(r"\.$", "", " | ".join(found))


def apt_refusal(host: str, url: str, source_path: str, output: str, lock_timeout: Any,
                key_fingerprints: Sequence[str]) -> str:
    """Why apt refused the source (its lines quoted), after the role removed the source again."""
    if "Could not get lock" in (output or ""):
        why = ("Another package manager run holds apt's lock (the process named above) and did not release it within "
               "%s s (nvidia_driver_apt_lock_timeout): let it finish (unattended-upgrades runs after boot) and run "
               "the play again." % lock_timeout)
    elif APT_SIGNATURE.search(output or ""):
        why = ("Its index is not signed by the pinned key %s (a mirror must serve the vendor's own signed InRelease)."
               % ", ".join(key_fingerprints))
    else:
        why = "Check nvidia_driver_repo_url and nvidia_driver_repo_proxy."
    return "apt refused %s on %s: %s. %s The source %s was removed." % (url, host, apt_lines(output), why, source_path)


def key_fingerprints(text: str | None) -> list[str]:
    """The primary keys' fingerprints of an armored key ([] when it is none)."""
    try:
        return [key["fingerprint"] for key in openpgp.key_info(text or "")]
    except openpgp.OpenPGPError:
        return []
