# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nvidia_driver role's inputs, checked before anything changes (docs/reliability.md).

- the driver branch: three digits ("580"), not a branch NVIDIA announced without packages (620,
  hardware.driver_branches), and not older than the oldest driver that drives every GPU of the host
  (the GA driver of the first toolkit that targets its architecture, from the GPU catalogue through
  driver.cuda_compat: sm_120 needs 570, sm_103 575, sm_110 580); branch_warnings names what is allowed
  but worth a word: a branch the catalogue does not list, one past its end of support;
- the repository inputs: the repository and key URLs, the pinned fingerprints and the proxy.

Each check returns a list of problems (empty: fine), each naming the variable and what to
set instead. No Ansible import: the filters and the unit tests use these functions.
"""
from __future__ import annotations

import datetime
import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.cuda_compat import minimum_branch
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.openpgp import normalize_fingerprint
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import driver_branches
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.labels import model_label

_BRANCH = re.compile(r"^[1-9]\d{2}$")
_URL = re.compile(r"^(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*)://(?P<netloc>[^/?#]*)(?P<rest>[^\s]*)$")
_HOST = re.compile(r"^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)(:\d{1,5})?$")
REPO_SCHEMES = ("http", "https", "file")
PROXY_SCHEMES = ("http", "https", "socks5h")


def branch_problems(branch, gpus=()):
    """Problems of nvidia_driver_branch for these GPUs (ansible_facts.nvidia_gpus)."""
    text = str(branch if branch is not None else "").strip()
    if not _BRANCH.match(text):
        hint = ""
        if re.match(r"^\d{3}[.-]", text):
            hint = " (a branch is the first number of a driver version: %s; the flavor is nvidia_driver_flavor)" % text[:3]
        return ["nvidia_driver_branch must be a driver branch of three digits such as 580, not %r%s" % (text, hint)]
    if driver_branches.is_announced_only(text):
        return ["nvidia_driver_branch %s is announced by NVIDIA but has no packages yet: %s. Set "
                "nvidia_driver_branch: %s (%s) until NVIDIA publishes it" % (
                    text, driver_branches.describe(text), driver_branches.RECOMMENDED,
                    driver_branches.branch_info(driver_branches.RECOMMENDED)["kind_name"])]
    too_new = []
    for gpu in gpus or ():
        need = minimum_branch(gpu.get("compute_capability") or gpu.get("sm"))
        if need and int(text) < need:
            too_new.append("%s needs branch %d or newer" % (model_label(gpu), need))
    if too_new:
        return ["nvidia_driver_branch %s cannot drive the GPUs here: %s. Set nvidia_driver_branch: 580 "
                "(long-term branch)" % (text, "; ".join(too_new))]
    return []


def branch_warnings(branch: object, today: datetime.date | None = None) -> list[str]:
    """Words about a branch that branch_problems lets through: one the catalogue does not list (its support
    and CUDA unknown; the repository decides whether it exists), one past its end of support. [] otherwise,
    and for text that is no branch (branch_problems refuses it). today: a datetime.date (default: today)."""
    text = str(branch if branch is not None else "").strip()
    if not _BRANCH.match(text):
        return []
    recommended = driver_branches.describe(driver_branches.RECOMMENDED)
    if not driver_branches.is_known(text):
        return ["nvidia_driver_branch %s is not in the collection's branch catalogue (%s): its kind, support "
                "window and CUDA version are unknown here, and it installs only if NVIDIA's repository has it; "
                "the long-term choice is %s" % (
                    text, ", ".join(str(number) for number in driver_branches.known_branches()), recommended)]
    if driver_branches.past_end_of_life(text, today):
        return ["nvidia_driver_branch %s is past its end of support (%s): it gets no more fixes; move to %s" % (
            text, driver_branches.describe(text), recommended)]
    return []


def url_problems(name, value, schemes, allow_credentials=False):
    """Problems of one URL variable: scheme, host, no whitespace or quotes, credentials."""
    text = str(value if value is not None else "")
    if re.search(r"[\s\"'<>\\{}|^`]", text):
        return ["%s contains characters no URL has (spaces, quotes, braces, backslashes): %r" % (name, _redacted(text))]
    match = _URL.match(text)
    if not match or match.group("scheme").lower() not in schemes:
        return ["%s must be a URL of scheme %s (for example https://mirror.lab/cuda/), not %r" % (
            name, ", ".join(schemes), _redacted(text))]
    problems = []
    netloc = match.group("netloc")
    userinfo, _at, hostport = netloc.rpartition("@")
    if match.group("scheme").lower() != "file" and not _HOST.match(hostport):
        problems.append("%s has no valid host name: %r" % (name, _redacted(text)))
    if userinfo and not allow_credentials:
        problems.append("%s carries a user name or password; apt would show it in every source list and log: "
                        "put it in /etc/apt/auth.conf.d/ on the host instead (machine <host> login <user> "
                        "password <secret>)" % name)
    return problems


def _redacted(text):
    """The URL with its password replaced by ***, for messages."""
    return re.sub(r"((?:^|://)[^/@:\s]*):[^/@\s]*@", r"\1:***@", text)


def fingerprint_problems(fingerprints):
    """Problems of nvidia_driver_repo_key_fingerprints (a list of full fingerprints)."""
    if isinstance(fingerprints, (str, bytes)) or not isinstance(fingerprints, (list, tuple)):
        kind = "the text" if isinstance(fingerprints, (str, bytes)) else type(fingerprints).__name__
        return ["nvidia_driver_repo_key_fingerprints must be a list of fingerprints (40 or 64 hex digits), "
                "not %s %r (on the command line: -e '{\"nvidia_driver_repo_key_fingerprints\": [\"...\"]}')"
                % (kind, fingerprints)]
    if not fingerprints:
        return ["nvidia_driver_repo_key_fingerprints is empty: no key would be trusted; keep the vendor's "
                "fingerprints from the role defaults"]
    problems = []
    for item in fingerprints:
        try:
            normalize_fingerprint(item)
        except ValueError:
            problems.append("nvidia_driver_repo_key_fingerprints: %r is not a full fingerprint (40 or 64 hex "
                            "digits; a short key id such as 3BF863CC can be forged)" % (item,))
    return problems


def repo_problems(url, key_url="", key_content="", fingerprints=(), proxy=""):
    """Problems of the repository inputs of the nvidia_driver role (its `repo` entry point).

    key_url is checked only when key_content is empty (the content takes precedence); proxy
    may carry a user and password (apt needs them; the role writes it root-only, no_log).
    """
    problems = url_problems("nvidia_driver_repo_url", url, REPO_SCHEMES)
    if not str(key_content or "").strip():
        problems += url_problems("nvidia_driver_repo_key_url", key_url, REPO_SCHEMES)
    problems += fingerprint_problems(fingerprints)
    if str(proxy or ""):
        problems += url_problems("nvidia_driver_repo_proxy", proxy, PROXY_SCHEMES, allow_credentials=True)
    return problems
