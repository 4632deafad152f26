# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one install call of a stack, for either installer, from the same pip arguments.

The plan's arguments (pip_args: the index or wheelhouse, --only-binary, --trusted-host, --proxy, --cert,
--client-cert, --cache-dir, --constraint, then the pins or --require-hashes --requirement <hashes file>)
are pip's. pip_command() runs them as they are; uv_command() gives uv the same pins, hashes,
constraints and indexes: the options uv spells otherwise are renamed, those uv takes from the
environment (proxy, CA bundle, client certificate, retries, timeout) go there, pip-only switches are
dropped. No password is ever on the command line (every local user reads it in ps or
/proc/PID/cmdline while the install runs): an index, extra index or find-links URL that carries a user name or
password goes, with the others of its kind, into a requirements file of pip's (mode 0600 in a private
directory: pip reads --index-url, --extra-index-url and --find-links there, also with --isolated) or into
the environment uv reads (UV_INDEX_URL, UV_EXTRA_INDEX_URL, UV_FIND_LINKS); a proxy that carries one into
the proxy variables (https_proxy, http_proxy and their capitals). netrc (NETRC, ~/.netrc) works as before.
No Ansible import.
"""
from __future__ import annotations

import os
import re

SECRET_FILE = "indexes.txt"  # the requirements file of pip's that holds the index URLs with credentials
_USERINFO = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#@\s]+@")
# kinds of URL option -> the pip options of that kind; a kind moves whole (pip reads the file's --index-url
# as replacing the command line's indexes; uv takes an environment variable only where no option is given)
_URL_KINDS = {"index": ("--index-url", "-i", "--extra-index-url"), "find_links": ("--find-links", "-f")}
_PROXY_VARIABLES = ("https_proxy", "http_proxy", "HTTPS_PROXY", "HTTP_PROXY")
# pip option -> uv option (the value, when there is one, follows as it is)
_RENAMED = {"--index-url": "--index-url", "-i": "--index-url", "--extra-index-url": "--extra-index-url",
            "--find-links": "--find-links", "-f": "--find-links", "--only-binary": "--only-binary",
            "--no-binary": "--no-binary", "--trusted-host": "--allow-insecure-host",
            "--constraint": "--constraints", "-c": "--constraints", "--requirement": "--requirement",
            "-r": "--requirement", "--pre": "--prerelease=allow"}
_VALUELESS = ("--no-index", "--require-hashes", "--pre", "--no-deps", "--upgrade", "-U", "--force-reinstall",
              "--no-build-isolation", "--no-cache-dir")
# pip option -> the environment variables uv reads the value from
_TO_ENV = {"--proxy": ("HTTPS_PROXY", "HTTP_PROXY"), "--cert": ("SSL_CERT_FILE",),
           "--client-cert": ("SSL_CLIENT_CERT",), "--retries": ("UV_HTTP_RETRIES",),
           "--timeout": ("UV_HTTP_TIMEOUT",)}
# pip options uv has no use for: their value is dropped with them (uv's cache is the one under the root)
_DROPPED_WITH_VALUE = ("--cache-dir", "--progress-bar", "--log", "--exists-action")
_DROPPED = ("--isolated", "--disable-pip-version-check", "--no-input", "--quiet", "-q", "--no-color",
            "--no-python-version-warning", "--prefer-binary")
_UV_VALUELESS = {"--no-cache-dir": "--no-cache", "-U": "--upgrade"}


def pip_command(python, pip_args):
    """argv of the pip install: the stack's own pip, the arguments as they are."""
    return [python, "-m", "pip", "install", "--disable-pip-version-check", "--no-input"] + list(pip_args)


def _split(arg):
    """"--index-url=URL" -> ("--index-url", "URL"); "-cFILE" is not a form the plan writes."""
    if arg.startswith("--") and "=" in arg:
        name, _sep, value = arg.partition("=")
        return name, value
    return arg, None


def uv_command(uv, python, pip_args, cache_dir, environ=None):
    """(argv, env) of `uv pip install` into the venv of `python` with pip_args translated.

    - `--python <python>`: the stack's venv; `--link-mode hardlink`: a file a kept stack shares with this
      one is the same file in uv's cache (cache_dir, under the stacks' root: the same filesystem);
    - `--compile-bytecode`: the stack holds its modules' bytecode, as pip leaves it. Without it every process
      of a user who cannot write the venv (or runs with PYTHONDONTWRITEBYTECODE) compiles torch on import:
      `import torch` 3.5-4.8 s instead of 1.5-2.0 s, torchvision 4.5-6.6 s instead of 1.5 s (H100 host);
    - `--no-config` and no UV_* variable of `environ` (the module's environment): no uv.toml of a home
      directory and no user setting reaches the install;
    - `--offline` when pip_args say --no-index (a wheelhouse: air-gapped, nothing is fetched);
    - `--index-strategy unsafe-best-match` when an extra index is given: uv would otherwise take a package
      from the first index that has it, pip takes the best match over all of them (the pins then resolve
      as they do for pip);
    - env: environ without UV_*, with UV_CACHE_DIR, UV_NO_CONFIG, UV_PYTHON_DOWNLOADS=never and what
      --proxy, --cert, --client-cert, --retries and --timeout said.
    Options this function does not know are passed on as they are (uv refuses the ones it lacks, naming them).
    """
    env = dict((key, value) for key, value in (environ or {}).items() if not key.startswith("UV_"))
    env.update(UV_CACHE_DIR=cache_dir, UV_NO_CONFIG="1", UV_PYTHON_DOWNLOADS="never", UV_NO_PROGRESS="1")
    out, extra_index, offline = [], False, False
    args = list(pip_args)
    index = 0
    while index < len(args):
        name, value = _split(args[index])
        index += 1
        takes_value = name in _TO_ENV or name in _DROPPED_WITH_VALUE or (
            name in _RENAMED and name not in _VALUELESS)
        if takes_value and value is None:
            value = args[index] if index < len(args) else ""
            index += 1
        if name in _TO_ENV:
            for key in _TO_ENV[name]:
                env[key] = value
        elif name in _DROPPED or name in _DROPPED_WITH_VALUE:
            continue
        elif name in _RENAMED and takes_value:
            extra_index = extra_index or name == "--extra-index-url"
            out += [_RENAMED[name], value]
        elif name in _RENAMED:
            out.append(_RENAMED[name])
        elif name == "--no-index":
            offline = True
            out.append(name)
        elif name in _UV_VALUELESS:
            out.append(_UV_VALUELESS[name])
        else:
            out.append(args[index - 1])
    head = [uv, "pip", "install", "--python", python, "--link-mode", "hardlink", "--compile-bytecode", "--no-config",
            "--cache-dir", cache_dir]
    if offline:
        head.append("--offline")
    if extra_index:
        head += ["--index-strategy", "unsafe-best-match"]
    return head + out, env


def carries_credentials(url):
    """Whether a URL has a user name or password (https://user:password@host, https://token@host)."""
    return bool(_USERINFO.match(str(url or "")))


def private_credentials(pip_args):
    """(pip_args without the options that must not reach a command line, moved): an index (--index-url,
    --extra-index-url) or find-links URL with credentials takes every option of its kind along; a proxy with
    credentials goes alone. moved: {"index": [(option, url)], "find_links": [url], "proxy": url or ""}."""
    args = list(pip_args or ())
    pairs, index = [], 0
    while index < len(args):  # (position, option, value) of every URL option
        name, value = _split(args[index])
        if name in _URL_KINDS["index"] or name in _URL_KINDS["find_links"] or name == "--proxy":
            inline = value is not None
            if not inline:
                value = args[index + 1] if index + 1 < len(args) else ""
            pairs.append((index, name, value, 1 if inline else 2))
            index += 1 if inline else 2
            continue
        index += 1
    moved = {"index": [], "find_links": [], "proxy": ""}
    drop = set()
    for kind, options in _URL_KINDS.items():
        mine = [pair for pair in pairs if pair[1] in options]
        if any(carries_credentials(pair[2]) for pair in mine):
            for position, name, value, width in mine:
                drop.update(range(position, position + width))
                option = "--extra-index-url" if name == "--extra-index-url" else "--index-url"
                moved[kind].append(value if kind == "find_links" else (option, value))
    for position, name, value, width in pairs:
        if name == "--proxy" and carries_credentials(value):
            drop.update(range(position, position + width))
            moved["proxy"] = value
    return [arg for position, arg in enumerate(args) if position not in drop], moved


def pip_private(argv, pip_args, secrets_dir):
    """(argv, proxy_env, files) of a pip call `argv` + pip_args with no credential on its command line: the
    index and find-links URLs of a kind that carries one in `--requirement <secrets_dir>/indexes.txt` (files:
    {path: text}, for the caller to write mode 0600), a proxy password in the proxy variables (proxy_env: the
    variables to add to the call's environment, {} for none)."""
    args, moved = private_credentials(pip_args)
    argv, files = list(argv) + args, {}
    if moved["index"] or moved["find_links"]:
        path = os.path.join(secrets_dir, SECRET_FILE)
        files[path] = "".join("%s %s\n" % pair for pair in moved["index"] + [("--find-links", url)
                                                                             for url in moved["find_links"]])
        argv += ["--requirement", path]
    return argv, dict((name, moved["proxy"]) for name in _PROXY_VARIABLES) if moved["proxy"] else {}, files


def install_command(installer, python, pip_args, uv="", cache_dir="", environ=None, secrets_dir=""):
    """(argv, env, files) of the one install call, no credential on argv (private_credentials):
    env None for pip without a proxy password (the module's environment, as before); files {path: text} the
    caller writes, mode 0600, into secrets_dir (a private directory it made and removes after the call) first.
    uv: the moved URLs in UV_INDEX_URL, UV_EXTRA_INDEX_URL (space-separated), UV_FIND_LINKS (comma-separated);
    pip: `--requirement <secrets_dir>/indexes.txt` with their options; a proxy in the proxy variables (uv's
    own --proxy translation already is)."""
    args, moved = private_credentials(pip_args)
    if installer == "uv":
        argv, env = uv_command(uv, python, args + (["--proxy", moved["proxy"]] if moved["proxy"] else []), cache_dir,
                               environ)  # uv reads its proxy from the environment anyway
        indexes = [url for option, url in moved["index"] if option == "--index-url"]
        extras = [url for option, url in moved["index"] if option == "--extra-index-url"]
        if indexes:
            env["UV_INDEX_URL"] = indexes[-1]
        if extras:
            env["UV_EXTRA_INDEX_URL"] = " ".join(extras)
            if "--index-strategy" not in argv:
                at = argv.index("--cache-dir") + 2 + (1 if "--offline" in argv else 0)
                argv[at:at] = ["--index-strategy", "unsafe-best-match"]
        if moved["find_links"]:
            env["UV_FIND_LINKS"] = ",".join(moved["find_links"])
        return argv, env, {}
    argv, proxy_env, files = pip_private(pip_command(python, []), pip_args, secrets_dir)
    return argv, dict(os.environ if environ is None else environ, **proxy_env) if proxy_env else None, files
