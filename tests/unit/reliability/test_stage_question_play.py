# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stage_question and role_var lookups in a real play: a stage's options read from its role's variables as the
role would see them, whether the role is entered or not (defaults under the play's variables, an inventory or extra
variable winning), a variable of a role the play does not run taking the module's default, and clear errors."""
from __future__ import annotations

from playbook import results, run

ASK = "{{ lookup('blackwell.pytorch.stage_question', 'driver', 'toolkit', 'pytorch', wantlist=True) }}"


def _answers(tmp_path, tasks, hosts, extra_vars=None):
    rc, stdout, stderr = run(tmp_path, tasks, hosts, extra_vars=extra_vars, check=False)
    assert rc == 0, stdout + stderr
    return dict((name, by_host) for name, by_host in results(stdout))


def test_a_stage_question_outside_its_role_is_the_roles_own(tmp_path):
    tasks = [
        {"name": "outside", "ansible.builtin.debug": {"msg": ASK}},
        {"name": "tools", "ansible.builtin.debug": {
            "msg": "{{ lookup('blackwell.pytorch.role_var', '_tools_preflight', '_tools_work', role='tools') }}"}},
        {"name": "same name", "ansible.builtin.debug": {"msg": "{{ blackwell_tools_python }}"},
         "vars": {"blackwell_tools_python": "{{ lookup('blackwell.pytorch.role_var', 'blackwell_tools_python', role='tools') }}"}},
        {"name": "python", "ansible.builtin.debug": {"msg": "{{ ansible_python_interpreter }}"}},
    ]
    hosts = {"ws-1": {"nvidia_driver_branch": 595, "pytorch_root": "/srv/torch", "verify_force": True},
             "ws-2": {}}
    found = _answers(tmp_path, tasks, hosts, extra_vars={"nvidia_driver_repo_proxy": "http://proxy.lab:3128"})
    driver, toolkit, pytorch = found["outside"]["ws-1"]["msg"]
    assert driver["branch"] == 595 and driver["uu_path"] == "/etc/apt/apt.conf.d/51blackwell-nvidia-driver"
    assert driver["repo"] == {
        "configure": True, "base_url": "https://developer.download.nvidia.com/compute/cuda/repos", "url": "",
        "key_url": "", "keyring": "", "source_path": "", "proxy_path": "", "key_content": "", "name": "nvidia-cuda",
        "fingerprints": ["EB693B3035CD5710E231E123A4B469963BF863CC", "02182E60104FCDC26EAE1B8597A5D4CB8793F200",
                         "610C7B14E068A878070DA4E99CD0A493D42D0685"], "proxy": "http://proxy.lab:3128"}
    assert toolkit == {"versions": [], "default_version": "", "driver": "", "manage": "auto",
                       "minor_version_compat": False, "profile": True, "profile_ld_library_path": False,
                       "paths": {"cuda_toolkit_install_log": "/var/log/blackwell-pytorch/cuda-toolkit-install.log"}}
    # the role's vars, built on the play's values; a variable of a role the play does not run: the module's default
    assert (pytorch["root"], pytorch["built_wheelhouse"]) == ("/srv/torch", "/srv/torch/wheelhouse")
    assert "check_alias" not in pytorch  # no role variable: the plan's own default, <root>/current/bin/python
    assert (pytorch["cuda_module_loading"], pytorch["allow_tf32"]) == ("LAZY", False)
    assert pytorch["check_force"] is True and pytorch["check_cuda_home"] == "/usr/local/cuda"
    assert pytorch["uv_pending"] == "" and pytorch["check_output_dirs"] == {}  # the verify role's, not run here
    assert pytorch["check_results"] == "/var/lib/blackwell-pytorch/cuda_check.json"
    assert pytorch["play_hosts"] == ["ws-1", "ws-2"] and len(pytorch["check_code"]) == 64
    assert found["outside"]["ws-2"]["msg"][0]["branch"] == "580"
    assert found["outside"]["ws-2"]["msg"][2]["check_force"] is False
    preflight, work = found["tools"]["ws-1"]["msg"]
    assert preflight["venv"] == "/opt/blackwell/tools" and work is True
    # a play gives the role's value under its own name: the term is the role's definition, not the play's
    # (no venv there and no facts: the interpreter Ansible runs)
    for host in ("ws-1", "ws-2"):
        assert found["same name"][host]["msg"] == found["python"][host]["msg"]


def test_unknown_stage_or_variable_is_a_clear_error(tmp_path):
    tasks = [{"name": "no stage", "ansible.builtin.debug": {"msg": "{{ lookup('blackwell.pytorch.stage_question', 'tools') }}"},
              "ignore_errors": True},
             {"name": "no variable", "ansible.builtin.debug": {
                 "msg": "{{ lookup('blackwell.pytorch.role_var', '_tools_nothing', role='tools') }}"}, "ignore_errors": True}]
    rc, stdout, stderr = run(tmp_path, tasks, {"ws-1": {}}, check=False)
    assert rc == 0, stdout + stderr
    found = dict((name, by_host["ws-1"]) for name, by_host in results(stdout))
    assert "stage_question: 'tools' is no stage; the stages: driver, toolkit, pytorch" in found["no stage"]["msg"]
    assert "role_var: role tools has no variable _tools_nothing" in found["no variable"]["msg"]
