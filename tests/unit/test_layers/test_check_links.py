# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""tests/bin/check-links.py: the release layer refuses a tarball whose .md files link to a file
it does not ship. Run on real tarballs written here."""
from __future__ import annotations

import importlib.util
import io
import os
import subprocess
import sys
import tarfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCRIPT = os.path.join(ROOT, "tests", "bin", "check-links.py")
_spec = importlib.util.spec_from_file_location("check_links", SCRIPT)
check_links = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_links)

SHIPPED = {
    "docs/domain.md": "# Domain\n",
    "docs/planning.md": "# Planning\n",
    "docs/fleet report.png": "png",
    "roles/tools/README.md": "# tools\n",
    "roles/tools/tasks/main.yml": "---\n",
}


def _tarball(tmp_path, files):
    path = str(tmp_path / "blackwell-pytorch-9.9.9.tar.gz")
    with tarfile.open(path, "w:gz") as archive:
        for name, text in sorted(files.items()):
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def _check(tmp_path, readme):
    files = dict(SHIPPED, **{"README.md": readme})
    return subprocess.run([sys.executable, SCRIPT, _tarball(tmp_path, files)], capture_output=True, text=True,
                          check=False)


@pytest.mark.parametrize("readme", [
    "See [domain](docs/domain.md).\n",
    "See [domain](docs/domain.md#gpus \"title\") and [planning](./docs/planning.md?plain=1).\n",
    "![report](<docs/fleet report.png>) ![report](docs/fleet%20report.png)\n",
    "[role]: roles/tools/README.md\n[folder](roles/tools/) [tasks](/roles/tools/tasks/main.yml)\n",
    "[web](https://example.org/x.md) [mail](mailto:a@b.c) [top](#tests) <a href=\"#v0-3-0\">v</a>\n",
    "Code is not read: `[x](docs/gone.md)` and\n\n```markdown\n[y](docs/gone.md)\n```\n"
    "<!-- [z](docs/gone.md) -->\n",
])
def test_links_that_resolve_in_the_tarball_pass(tmp_path, readme):
    proc = _check(tmp_path, readme)
    assert proc.returncode == 0, proc.stdout
    assert "every relative link in the 4 .md files resolves" in proc.stdout


@pytest.mark.parametrize("readme,dead", [
    ("Read [contributing](docs/contributing.md) first.\n", "README.md:1: docs/contributing.md"),
    ("Intro.\n\n[guide]: docs/testing.md\n", "README.md:3: docs/testing.md"),
    ("line\n![missing](docs/fleet.png)\n", "README.md:2: docs/fleet.png"),
    ("[outside](../other/README.md)\n", "README.md:1: ../other/README.md"),
    ('<a href="docs/gone.md">gone</a>\n', "README.md:1: docs/gone.md"),
    ("[anchor of a missing file](docs/gone.md#part)\n", "README.md:1: docs/gone.md#part"),
])
def test_a_link_to_a_file_the_tarball_does_not_ship_fails(tmp_path, readme, dead):
    proc = _check(tmp_path, readme)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == "dead link: " + dead
    assert "1 dead link(s) in the 4 .md files" in proc.stdout


def test_links_resolve_relative_to_the_document_that_holds_them():
    members = {name: text.encode() for name, text in SHIPPED.items()}
    members["docs/roles/pytorch.md"] = b"[planning](../planning.md) [wrong](planning.md)\n"
    assert check_links.dead_links(members) == ["docs/roles/pytorch.md:1: planning.md"]
