# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a host is where the cuda_toolkit role would put it, and what would change otherwise.

toolkit_state() weighs the plan (toolkit_plan.probe_plan) against what driver/toolkit_probe.py
read: each requested toolkit's nvcc answers, the cuda alternative or the /usr/local/cuda link,
and /etc/profile.d/cuda.sh. It returns every refusal, what a run would change, whether the host
is converged, and cuda_toolkit_status as the role publishes it. No Ansible import: the
cuda_toolkit_state module and the unit tests use these functions.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.cuda_compat import (
    nvcc_check_gpus, parse_cuda_version, parse_nvcc_version)

PROFILE_MODE = 0o644


def toolkit_dirs(plan):
    """{version: directory}: an adopted toolkit where it was found, else where its package puts it."""
    dirs = dict((version, "/usr/local/cuda-" + version) for version in plan.get("versions") or [])
    dirs.update(plan.get("adopted") or {})
    return dirs


def alternatives_priority(version):
    """update-alternatives priority as the packages register it: "12.8" -> 128, "13.0" -> 130."""
    major, minor = parse_cuda_version(version)
    return major * 10 + minor


def found_lines(found):
    """[(dir, nvcc --version text)] -> "dir<TAB>release" lines (cuda_compat.parse_found's input)."""
    lines = []
    for directory, text in found:
        parsed = parse_nvcc_version(text)
        if parsed:
            lines.append("%s\t%s" % (directory, parsed["release"]))
    return "\n".join(lines)


def profile_text(default_dir, default, ld_library_path=False):
    """/etc/profile.d/cuda.sh: /usr/local/cuda/bin on PATH once, lib64 on LD_LIBRARY_PATH when asked."""
    text = ("# Managed by blackwell.pytorch.cuda_toolkit: /usr/local/cuda -> %s (CUDA %s).\n"
            'case ":${PATH}:" in\n'
            "  *:/usr/local/cuda/bin:*) ;;\n"
            '  *) export PATH="/usr/local/cuda/bin${PATH:+:${PATH}}" ;;\n'
            "esac\n") % (default_dir, default)
    if ld_library_path:
        text += ('case ":${LD_LIBRARY_PATH}:" in\n'
                 "  *:/usr/local/cuda/lib64:*) ;;\n"
                 '  *) export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}" ;;\n'
                 "esac\n")
    return text


def nvcc_checks(dirs, answers, gpus=()):
    """Each toolkit's nvcc against its release and the GPUs.

    answers: {dir: {"version", "archs"} texts, or None where nvcc is not executable}. Returns
    {version: cuda_compat.nvcc_check's result with "missing" (no nvcc there), "lacking" (the
    GPUs' compute_XY its --list-gpu-arch lacks) and "path"}.
    """
    checks = {}
    for version, directory in sorted(dirs.items(), key=lambda item: parse_cuda_version(item[0])):
        path = directory.rstrip("/") + "/bin/nvcc"
        answer = answers.get(directory)
        if answer is None:
            check = {"ok": False, "release": None, "full": None, "archs": [], "lacking": [], "missing": True,
                     "msg": "nvcc is missing"}
        else:
            check = nvcc_check_gpus(answer.get("version"), answer.get("archs"), version, gpus)
            check["lacking"], check["missing"] = check["missing"], False
        check["path"] = path
        checks[version] = check
    return checks


def link_changes(default_dir, real_default, link, alternatives):
    """What pointing /usr/local/cuda at default_dir changes: {"register", "select", "link"}, or a refusal.

    link: toolkit_probe.read_link(); alternatives: toolkit_probe.read_alternatives() (None: no
    alternatives system, a plain link then); real_default: default_dir with links followed.
    Returns (changes, refusal or "").
    """
    changes = {"register": False, "select": False, "link": False}
    if link.get("isdir"):
        return changes, ("/usr/local/cuda is a directory, not a link (a runfile install?): the role does not "
                         "replace it. Move it to /usr/local/cuda-X.Y or set cuda_toolkit_manage: auto")
    leads_there = bool(link.get("exists")) and link.get("target") == real_default
    if alternatives is not None:
        changes["register"] = default_dir not in alternatives.get("alternatives", [])
        # --set also repairs a /usr/local/cuda that does not lead where the alternative says
        changes["select"] = (alternatives.get("value") != default_dir or alternatives.get("status") != "manual"
                             or not leads_there)
    else:
        changes["link"] = link.get("readlink") != default_dir
    return changes, ""


def profile_change(wanted, current):
    """True when /etc/profile.d/cuda.sh is not `wanted`, root's and 0644 (current: read_profile())."""
    return not (current and current.get("regular") and current.get("content") == wanted
                and current.get("mode") == PROFILE_MODE and current.get("uid") == 0 and current.get("gid") == 0)


def alternatives_commands(changes, configure):
    """The update-alternatives commands the change path runs, in order: register the default toolkit as a cuda
    alternative (at the packages' priority), then select it in manual mode (so a later toolkit package does not move
    it); [] when neither changes."""
    commands = []
    if changes.get("register"):
        commands.append(["update-alternatives", "--install", "/usr/local/cuda", "cuda", configure["dir"],
                         str(configure["priority"])])
    if changes.get("select"):
        commands.append(["update-alternatives", "--set", "cuda", configure["dir"]])
    return commands


def _describe(changes, configure):
    said = []
    if changes["packages"]:
        said.append("install " + ", ".join(changes["packages"]))
    if changes["register"]:
        said.append("register %s as a cuda alternative (priority %d)" % (configure["dir"], configure["priority"]))
    if changes["select"]:
        said.append("select %s for /usr/local/cuda (update-alternatives --set, manual mode)" % configure["dir"])
    if changes["link"]:
        said.append("link /usr/local/cuda to %s" % configure["dir"])
    if changes["profile"]:
        said.append("write /etc/profile.d/cuda.sh")
    return said


def _summary(plan, checks, dirs, converged, said):
    head = "CUDA %s (%s%s), default %s" % (
        ", ".join(plan["versions"]), plan["action"],
        ", chosen from driver %s, CUDA %s" % (plan["driver"], plan["driver_cuda"]) if plan.get("chosen_from_driver")
        else "", plan["default"])
    place = ("/usr/local/cuda -> %s" % dirs[plan["default"]] if plan["action"] == "manage"
             else "/usr/local/cuda left as found")
    nvcc = "; ".join("%s: %s" % (check["path"], check["msg"]) for check in checks.values())
    return "%s; %s; %s; %s" % (head, place, "converged" if converged else "would " + ", ".join(said), nvcc)


def toolkit_state(plan, answers, link, alternatives, profile=None, gpus=(), manage_profile=True,
                  ld_library_path=False, real_default=None, confirm=False):
    """The host against the plan.

    plan: toolkit_plan.probe_plan()'s; answers: {dir: {"version", "archs"} or None} of each
    requested toolkit (toolkit_probe.read_nvcc); link, alternatives, profile: what toolkit_probe
    read; gpus: ansible_facts.nvidia_gpus; manage_profile / ld_library_path: the role's
    cuda_toolkit_profile / cuda_toolkit_profile_ld_library_path; real_default: the default
    toolkit's directory with links followed (its path when None). confirm: after the role's
    change path, anything still different is a refusal (a toolkit missing, /usr/local/cuda
    leading elsewhere).

    Returns {"ok", "problems", "converged", "changes" ({"install", "packages", "register",
    "select", "link", "profile"}), "would" (what a run changes, in words), "configure" ({"dir",
    "priority", "profile", "alternatives"}: what the change path writes and runs), "summary", "plan", and the published
    status: "action", "versions", "default", "dirs", "installed", "adopted", "driver", "nvcc"}.
    """
    problems = list(plan.get("problems") or [])
    changes = {"install": [], "packages": [], "register": False, "select": False, "link": False, "profile": False}
    dirs = toolkit_dirs(plan) if plan.get("ok") else {}
    result = {"plan": plan, "changes": changes, "configure": {}, "would": [],
              "action": plan.get("action"), "versions": plan.get("versions") or [], "default": plan.get("default"),
              "dirs": dirs, "installed": list(plan.get("install") or []), "adopted": plan.get("adopted") or {},
              "driver": plan.get("driver"), "nvcc": {}}
    if not plan.get("ok"):
        result.update(ok=False, problems=problems, converged=False, summary="; ".join(problems))
        return result

    checks = nvcc_checks(dirs, answers, gpus)
    result["nvcc"] = checks
    for version, check in checks.items():
        if check["ok"] or (version in plan["install"] and not confirm):  # the install brings it
            continue
        problems.append("CUDA %s at %s: %s" % (version, check["path"], check["msg"]))

    changes["install"], changes["packages"] = list(plan["install"]), list(plan["packages"])
    default_dir = dirs[plan["default"]]
    configure = {"dir": default_dir, "priority": alternatives_priority(plan["default"]),
                 "profile": profile_text(default_dir, plan["default"], ld_library_path)}
    result["configure"] = configure
    if plan["action"] == "manage":
        placed, refusal = link_changes(default_dir, real_default or default_dir, link, alternatives)
        if refusal:
            problems.append(refusal)
        changes.update(placed)
        changes["profile"] = bool(manage_profile) and profile_change(configure["profile"], profile)
        if confirm and link.get("target") != (real_default or default_dir):
            problems.append("/usr/local/cuda leads to %s, not to %s" % (link.get("target") or "nothing", default_dir))
    configure["alternatives"] = alternatives_commands(changes, configure)
    said = _describe(changes, configure)
    result["would"] = said
    if confirm and said and not problems:
        problems.append("the run left undone: " + "; ".join(said))
    converged = not problems and not said and all(check["ok"] for check in checks.values())
    result.update(ok=not problems, problems=problems, converged=converged,
                  summary=_summary(plan, checks, dirs, converged, said))
    return result


def refusal_message(host, problems):
    """The message a refused host fails with: "HOST: problem; problem." (the role's wording)."""
    return "%s: %s." % (host, "; ".join(problems))
