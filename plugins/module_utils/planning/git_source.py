# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tree of a source build, fetched with git without a password on any command line.

pytorch_source_git_url may carry user:password@ (a lab mirror). Given to git as it is, the URL is on the command
line of git and of git-remote-http for the whole clone (every local user reads it in ps or /proc/PID/cmdline) and
stays in the tree's .git/config. Here git gets the URL without them, and the credentials through the environment
(readable by the same user and root only): a credential program (git's credential.helper setting) given as GIT_CONFIG_COUNT/KEY/VALUE entries (git
2.31 and newer) - a shell function whose text holds no secret - answers git's `get` with the user name and
password from BLACKWELL_GIT_USERNAME / BLACKWELL_GIT_PASSWORD, and only for the mirror's own host (never for a
submodule's host, such as github.com). The steps (init, fetch of the ref at depth 1, checkout, submodules) are the
same on a fresh tree and on one already there, so a rerun updates a branch and leaves a tag as it is.
Python 3.9, no Ansible import.
"""
from __future__ import annotations

import os
from urllib.parse import unquote, urlsplit, urlunsplit

# git runs it as `sh -c '<program> "$@"' <program> get|store|erase`, the request on its standard input
CREDENTIAL_PROGRAM = (
    "!f() { test \"$1\" = get || exit 0; h=; while IFS= read -r l && [ -n \"$l\" ]; do case \"$l\" in "
    "host=*) h=${l#host=};; esac; done; [ \"$h\" = \"$BLACKWELL_GIT_HOST\" ] || exit 0; "
    "printf 'username=%s\\npassword=%s\\n' \"$BLACKWELL_GIT_USERNAME\" \"$BLACKWELL_GIT_PASSWORD\"; }; f")


def split_credentials(url):
    """(url without user name and password, user name, password, host[:port] as git names it) of a git URL; the
    url as it is and empty credentials when it carries none (or is no URL: an scp-like path, a local path)."""
    text = str(url or "")
    parts = urlsplit(text)
    if not parts.scheme or "@" not in parts.netloc or parts.scheme not in ("http", "https"):
        return text, "", "", ""
    userinfo, host = parts.netloc.rsplit("@", 1)
    user, password = (userinfo.split(":", 1) + [""])[:2]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment)), unquote(user), unquote(password), host


def git_environment(url, environ=None):
    """(url to give git, environment of its calls): without credentials in the URL, the environment as it is
    (with GIT_TERMINAL_PROMPT=0: no prompt ever waits); with them, the credential program added as the next
    GIT_CONFIG_* entry and the credentials in BLACKWELL_GIT_*."""
    env = dict(os.environ if environ is None else environ, GIT_TERMINAL_PROMPT="0")
    public, user, password, host = split_credentials(url)
    if not (user or password):
        return public, env
    index = int(env.get("GIT_CONFIG_COUNT") or 0)
    env.update({"GIT_CONFIG_COUNT": str(index + 1), "GIT_CONFIG_KEY_%d" % index: "credential.helper",
                "GIT_CONFIG_VALUE_%d" % index: CREDENTIAL_PROGRAM, "BLACKWELL_GIT_HOST": host,
                "BLACKWELL_GIT_USERNAME": user, "BLACKWELL_GIT_PASSWORD": password})
    return public, env


def steps(git, url, dest, ref, recursive=True, depth=1):
    """The git calls that bring `dest` to `ref` of `url` (the URL without credentials), fresh or already there."""
    shallow = ["--depth", str(depth)] if depth else []
    out = [] if os.path.isdir(os.path.join(dest, ".git")) else [[git, "init", "-q", dest]]
    out += [[git, "-C", dest, "remote", "remove", "origin"]] if not out else []
    out += [[git, "-C", dest, "remote", "add", "origin", url],
            [git, "-C", dest, "fetch", "-q"] + shallow + ["origin", ref],
            [git, "-C", dest, "checkout", "-q", "--force", "FETCH_HEAD"]]
    if recursive:
        out.append([git, "-C", dest, "submodule", "update", "-q", "--init", "--recursive"] + shallow)
    return out


def head(run, git, dest, env):
    """The commit `dest` has checked out, '' when none."""
    if not os.path.isdir(os.path.join(dest, ".git")):
        return ""
    rc, out, _err = run([git, "-C", dest, "rev-parse", "-q", "--verify", "HEAD"], env)
    return out.strip() if rc == 0 else ""


def checkout(run, git, url, dest, ref, recursive=True, depth=1, environ=None):
    """Bring `dest` to `ref` of `url`; run(argv, env) -> (rc, stdout, stderr). Returns {changed, before, after}; raises
    RuntimeError naming the failed step (the URL shown without its credentials)."""
    public, env = git_environment(url, environ)
    before = head(run, git, dest, env)
    for argv in steps(git, public, dest, ref, recursive, depth):
        rc, _out, err = run(argv, env)
        if rc != 0 and not (argv[3:5] == ["remote", "remove"]):
            last = ((err or "").strip().splitlines() or ["no output"])[-1]
            raise RuntimeError("git %s of %s (%s) failed (rc %d): %s" % (
                argv[3] if argv[1] == "-C" else argv[1], public, ref, rc, last))
    after = head(run, git, dest, env)
    return {"changed": before != after, "before": before, "after": after, "repo": public}
