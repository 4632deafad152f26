# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pytorch role's preflight of one host (the pytorch_plan module), the checks around its plan: before it,
the interpreter that creates the venvs, the wheelhouse / constraints / hashes paths the pip sources name, the
installer and the index access (check_host, which also gives the plan's common arguments); after it, the build
host and the hashes file, with the plan's summary (after_plan).

The module makes the plan itself with resolve.resolve_stack: first from the version table, then from the index
pip will read (index_source): the wheelhouse when there is one (pip gets --no-index), else pytorch_index_url,
else the channel index <pytorch_channel_base_url>/<channel>, whose channel comes from the version table's plan
(download.pytorch.org serves one build per index; index_args). A source build and a module given no index keep
the version table's plan. For pytorch_install_method auto, fallback_args names the source plan of the same
release the role falls back to when the wheels fail the CUDA check (torch_cuda_check).

The module reads the host (interpreter version, paths, nvcc, the hashes file) and passes what it read
here; everything below is pure. A refusal is raised as planning.errors.PlanError, the role's message as is.
Runs on the target: Python 3.9, no packaging. No Ansible import.
"""
from __future__ import annotations

import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.path_inputs import (
    ABSOLUTE, CONTROLLER, DIRECTORY, FILE, path_problems)
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.value_inputs import text_problems, url_problems
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import resolve, role_messages, role_steps, source_build
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index import access

MIN_PYTHON = (3, 10)
# (role variable, option of the module, a directory is wanted)
SOURCE_PATHS = (("pytorch_wheelhouse", "wheelhouse", True),
                ("pytorch_constraints_file", "constraints_file", False),
                ("pytorch_hashes_file", "hashes_file", False))

# The role's path options the call is given: (role variable, option, kind, example[, what a file option wants]).
PATH_OPTIONS = (("pytorch_root", "root", DIRECTORY, "/opt/pytorch"),
                ("pytorch_python", "python", FILE, "/usr/bin/python3", "the interpreter itself (Python 3.10 or newer)"),
                ("pytorch_uv", "uv", FILE, "/opt/blackwell/tools/bin/uv", "the uv executable itself"),
                ("pytorch_cuda_home", "cuda_home", DIRECTORY, "/usr/local/cuda"),
                # these must be there: check_host says what they are (role_messages.missing_paths)
                ("pytorch_wheelhouse", "wheelhouse", ABSOLUTE, "/srv/wheelhouse"),
                ("pytorch_constraints_file", "constraints_file", ABSOLUTE, "/etc/pytorch/constraints.txt"),
                ("pytorch_hashes_file", "hashes_file", ABSOLUTE, "/etc/pytorch/hashes.txt"),
                ("pytorch_index_ca_path", "ca_path", ABSOLUTE, "/etc/ssl/certs/lab-ca.pem"),
                ("pytorch_index_client_cert", "client_cert", ABSOLUTE, "/etc/pytorch/client.pem"),
                ("pytorch_adopt_path", "adopt_path", DIRECTORY, "/opt/conda/envs/torch"),
                ("pytorch_profile_path", "profile_path", FILE, "/etc/profile.d/pytorch.sh"))
# The role's other path options (the `paths` option: {variable: path}): directories on the target unless named below,
# with their examples.
OTHER_DIRECTORIES = {"pytorch_uv_cache_dir": "/opt/pytorch/.cache/uv", "pytorch_pip_cache_dir": "/var/cache/pip",
                     "pytorch_source_dir": "/opt/pytorch/src/pytorch"}
# ... files on the target: (example, what the file is)
OTHER_FILES = {"pytorch_wheelhouse_pip_python": ("/opt/blackwell/tools/bin/python", "the interpreter itself")}
# ... directories of the controller's (the fetched wheels land there): only an absolute path is asked for, as a
# relative one would depend on the directory ansible-playbook is started from
CONTROLLER_DIRECTORIES = {"pytorch_build_fetch_dir": "/srv/blackwell/pytorch-wheels",
                          "pytorch_wheelhouse_fetch_dir": "/srv/blackwell/pytorch-wheelhouse"}


def other_path(var, path):
    """The path_problems entry of a `paths` option: its kind by its variable (OTHER_FILES, CONTROLLER_DIRECTORIES,
    else a directory on the target)."""
    if var in OTHER_FILES:
        return (var, path, FILE) + OTHER_FILES[var]
    if var in CONTROLLER_DIRECTORIES:
        return (var, path, CONTROLLER, CONTROLLER_DIRECTORIES[var])
    return (var, path, DIRECTORY, OTHER_DIRECTORIES.get(var, ""))


# Text options YAML can hand over as a number (2.10 read as 2.1): (role variable, option, example).
TEXT_OPTIONS = (("pytorch_version", "version", "2.10"), ("pytorch_cuda_channel", "channel", "cu130"),
                ("pytorch_torchvision_version", "torchvision", "0.25.0"),
                ("pytorch_torchaudio_version", "torchaudio", "2.10.0"))
INDEX_SCHEMES = ("http", "https", "file")
PROXY_SCHEMES = ("http", "https", "socks5", "socks5h")
# URL options: (role variable, option, schemes, example).
URL_OPTIONS = (("pytorch_index_url", "index", INDEX_SCHEMES, "https://pypi.org/simple"),
               ("pytorch_channel_base_url", "channel_base", INDEX_SCHEMES, "https://download.pytorch.org/whl"),
               ("pytorch_extra_index_urls", "extra_indexes", INDEX_SCHEMES, "'[\"https://mirror.lab/simple\"]'"),
               ("pytorch_proxy", "proxy", PROXY_SCHEMES, "http://proxy.lab:3128"))


def input_refusals(params, stat):
    """The refusals of the request's inputs alone, before anything is read or planned: a version, channel or
    companion version given as a number (quote it), a URL option that is no URL, and a path option that is
    relative or of the wrong kind (a file where a directory is due, a directory where a file is due; common
    path_inputs over `stat`, os.stat). [] when there is none. The options not given (absent keys) are skipped,
    and so is a directory of `paths` below a directory option already refused (the uv cache under a relative
    root)."""
    found = text_problems([(var, params[option], example) for var, option, example in TEXT_OPTIONS
                           if option in params])
    found += url_problems([(var, params[option], schemes, example) for var, option, schemes, example in URL_OPTIONS
                           if option in params])
    entries = [(entry[0], params[entry[1]]) + entry[2:] for entry in PATH_OPTIONS if entry[1] in params]
    refused = tuple(str(entry[1]).rstrip("/") + "/" for entry in entries
                    if entry[2] == DIRECTORY and path_problems([entry], stat))
    entries += [other_path(var, path) for var, path in sorted(
        (params.get("paths") or {}).items()) if not (refused and str(path or "").startswith(refused))]
    return found + path_problems(entries, stat)


def python_release(version_output):
    """"Python 3.12.3" (stdout, or stderr on Python 2) -> "3.12"; "0.0" when there is no version."""
    match = re.search(r"[0-9]+[.][0-9]+", version_output or "")
    return match.group(0) if match else "0.0"


def python_refusal(python, release):
    """The refusal of an interpreter older than MIN_PYTHON, None when it is new enough."""
    if tuple(int(part) for part in release.split(".")) >= MIN_PYTHON:
        return None
    return ("%s is Python %s; PyTorch stacks need 3.10 or newer: set pytorch_python to a newer interpreter."
            % (python, release))


def source_paths(params, tls=None):
    """The paths to look at: [{var, path, dir}] for every non-empty wheelhouse / constraints / hashes option,
    and the CA bundle and client certificate of `tls` (wheel_index.access.settings), named where they were set."""
    found = [{"var": var, "path": params[option], "dir": is_dir}
             for var, option, is_dir in SOURCE_PATHS if params.get(option)]
    return found + [{"var": tls["from"][key], "path": tls[key], "dir": False}
                    for key in ("ca_path", "client_cert") if tls and tls.get(key)]


def access_refusal(params, tls, client_cert_text):
    """The refusal of pip extra arguments that move pip to another index, or of a client certificate file
    without its key (pip's --client-cert wants both in one file); None when there is none."""
    refusal = access.extra_args_refusal(params.get("pip_extra_args"))
    if refusal or not (tls and tls.get("client_cert")):
        return refusal
    return access.pem_refusal(client_cert_text, tls["client_cert"], tls["from"]["client_cert"])


def installer_refusal(params, uv_found):
    """The refusal of installer uv without its executable on the host; None otherwise (pip is the venv's own), and
    None in a check run where the tools role of the same play would install that uv first (params["uv_pending"])."""
    if params.get("installer", "pip") != "uv" or uv_found or (params.get("uv") and params.get("uv_pending") == params["uv"]):
        return None
    return ("pytorch_installer is uv and pytorch_uv %s is not an executable file on %s: run the blackwell.pytorch.tools "
            "role first (it installs uv into blackwell_tools_venv when blackwell_tools_uv is true), set pytorch_uv to "
            "a uv executable, or set pytorch_installer: pip." % (params.get("uv") or "(empty)", params["host"]))


def build_host_refusal(plan, build_host, play_hosts):
    """The refusal of a build host that is not in the play (a source plan waits for its wheel)."""
    if plan.get("method") != "source" or not build_host or build_host in play_hosts:
        return None
    return ("pytorch_build_host %s is not among this play's hosts (%s): the others would wait for a wheel nobody "
            "builds." % (build_host, ", ".join(play_hosts)))


def index_source(params, table_plan):
    """(URL or path pip reads, whether it only confirms the version table's plan) for a wheel plan;
    ("", False) when the plan stays the table's: a source build, no index given, or a channel index
    whose channel the table could not choose (its refusal stands)."""
    if params.get("method") == "source" or table_plan.get("method") == "source":
        return "", False
    if params.get("wheelhouse"):
        return params["wheelhouse"], False
    if params.get("index"):
        return params["index"], False
    if params.get("channel_base") and table_plan.get("error") is None and table_plan.get("channel"):
        return role_steps.index_url(table_plan, params), True  # the URL pip is given (no pytorch_index_url here)
    return "", False


def hashes_refusal(hashes_file, hashes_text, pins):
    """The refusal of a hashes file that does not pin exactly the planned versions (pip's hash-checking mode
    would install what it pins instead); None when it does, or when there is no hashes file."""
    gaps = resolve.hashes_file_mismatches(hashes_text, pins) if hashes_file else []
    if not gaps:
        return None
    return "pytorch_hashes_file %s must pin exactly what the plan installs; it lacks %s." % (
        hashes_file, ", ".join(gaps))


def check_host(params, python_version_output, path_stats, nvcc_output, tls=None, client_cert_text="",
               uv_found=True):
    """The checks of one host before its plan, and the plan's common arguments.

    params: the module's options (python, version, channel, torchvision, torchaudio, companions, gpus,
    driver_cuda, method, local_label, cuda_home, host, build_host, play_hosts, installer, uv, pip_extra_args);
    python_version_output: what `<python> --version` printed; path_stats: [{"item": {var, path, dir},
    "stat": {exists, isdir, isreg}}] for source_paths(params, tls); nvcc_output: what
    `<cuda_home>/bin/nvcc --version` printed, None when it was not run or is not there; tls: the index access
    settings (wheel_index.access.settings) with client_cert_text, the text of its client certificate file
    (checked for a certificate and a key, never returned); uv_found: whether params["uv"] is an executable
    file (only read when params["installer"] is "uv").

    Returns {"python_version", "builds", "toolkit_cuda", "args"}: args are resolve.resolve_stack's arguments for
    the version table's plan of the request; raises PlanError with a refusal.
    """
    release = python_release(python_version_output)
    refusal = python_refusal(params["python"], release)
    if refusal:
        raise PlanError(refusal)
    missing = role_messages.missing_paths(path_stats, params["host"])
    if missing:
        raise PlanError(" ".join(missing))
    refusal = installer_refusal(params, uv_found) or access_refusal(params, tls, client_cert_text)
    if refusal:
        raise PlanError(refusal)
    builds = not params["build_host"] or params["build_host"] == params["host"]
    toolkit = None
    if nvcc_output is not None:
        toolkit = source_build.nvcc_version(nvcc_output)
    args = dict(version=params["version"], channel=params["channel"], method=params["method"], builds=builds,
                torchvision=params["torchvision"], torchaudio=params["torchaudio"], companions=params["companions"],
                gpus=params["gpus"], driver_cuda=params["driver_cuda"] or None, toolkit_cuda=toolkit,
                local_label=params["local_label"], cuda_home=params["cuda_home"])
    return {"python_version": release, "builds": builds, "toolkit_cuda": toolkit, "args": args}


def index_args(args, table_plan, confirm):
    """resolve_stack's arguments for the plan from the index: the request's, or, when the channel index only
    confirms (index_source), the version table's version and channel (the index holds one build)."""
    if not confirm:
        return dict(args)
    return dict(args, version=table_plan["torch"], channel=table_plan["channel"])


def fallback_args(params, args, plan):
    """resolve_stack's arguments for the source plan of the same release, which method auto falls back to
    when its wheels fail the CUDA check (torch_cuda_check); None for any other request or plan (a refused one included)."""
    if params["method"] != "auto" or plan.get("error") is not None or plan["method"] != "wheel":
        return None
    return dict(args, version=plan["torch"], channel=plan["channel"] or "", method="source", builds=True)


def fallback_plan(params, args, plan):
    """The source plan of fallback_args, or None: a fallback that cannot work is no refusal of the request (the
    wheels may pass the CUDA check), so its PlanError is kept as the plan's "error", which the check's failure names."""
    fallback = fallback_args(params, args, plan)
    if fallback is None:
        return None
    try:
        return resolve.resolve_stack(**fallback)
    except PlanError as refused:
        return {"error": str(refused)}


def after_plan(params, checked, plan, fallback=None, hashes_text=""):
    """The checks after the plan and the host's answer.

    checked: check_host's answer; plan: resolve_stack's plan (from the index pip reads, or the version table);
    fallback: the source plan of fallback_args (its own "error" when it cannot work), or None; hashes_text:
    the text of params["hashes_file"], which must pin exactly the plan's pins.

    Returns {"plan", "summary", "fallback", "builds", "toolkit_cuda", "python_version"}; raises PlanError with a
    refusal.
    """
    refusal = (build_host_refusal(plan, params["build_host"], params["play_hosts"])
               or hashes_refusal(params.get("hashes_file"), hashes_text, plan["pins"]))
    if refusal:
        raise PlanError(refusal)
    summary = "%s; planned from %s" % (role_messages.plan_summary(plan), role_messages.plan_origin(plan))
    return {"plan": plan, "summary": summary, "fallback": fallback, "builds": checked["builds"],
            "toolkit_cuda": checked["toolkit_cuda"], "python_version": checked["python_version"]}


def mark_built_wheels(planned, wheel_names):
    """Give a source plan, and a source fallback, "built_wheel": the newest wheel of its build_version
    among wheel_names (the file names of the build wheelhouse, left by an earlier run), "" when there is
    none; the summary of a plan that has one says it is reused. Returns planned."""
    for key in ("plan", "fallback"):
        plan = planned.get(key)
        if not plan or not plan.get("build_version"):
            continue
        prefix = "torch-%s-" % plan["build_version"]
        found = sorted(name for name in wheel_names if name.startswith(prefix) and name.endswith(".whl"))
        plan["built_wheel"] = found[-1] if found else ""
        if key == "plan" and found:
            planned["summary"] += "; %s, built by an earlier run, is reused (no build)" % found[-1]
    return planned
