# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""tests/bin/changed.py [--base REF] [--run]: the unit test files and molecule scenarios a change touches.

The change: the files that differ from REF (default HEAD) in its later commits and in the working tree (staged,
unstaged, untracked but not ignored, deleted). A unit test file is selected when it changed, when a conftest.py
above it changed, when its import closure (plugins/, the shared modules of tests/unit) holds a changed file, or when
it, a shared module or a conftest fixture it uses names a changed file by path or reaches one through
`blackwell.pytorch.<name>` (role, playbook, module, filter, lookup). A scenario is selected when a file of its
directory changed or a file it reaches (playbooks, roles and the roles they include, modules, filters, action
plugins, lookups, their imports, fixtures by path or by tests/fixtures/ensure.sh name); extensions/molecule/config.yml
and tests/fixtures/images|connection_plugins select all. Other files are not mapped: `make test` covers them.
--run: tests/bin/unit.sh with the test files (all of tests/unit when a file is not mapped), then
tests/bin/molecule.sh with the scenarios.
"""
from __future__ import annotations

import argparse
import ast
import fnmatch
import os
import re
import subprocess
import sys

PACKAGE = "ansible_collections.blackwell.pytorch."
TOKEN = re.compile(r"blackwell\.pytorch\.([A-Za-z_]\w*)(?![\w/])")
PATH = re.compile(r"(?<![\w.*-])[\w.*-]*(?:/[\w.*-]+)+")
COMMENT = re.compile(r"(?:^|\s)#.*$", re.M)
TEXT = (".yml", ".yaml", ".sh", ".j2", ".cfg", ".json", ".txt", ".py", ".ini")
MAPPED = ("plugins/", "roles/", "playbooks/", "docs/", "tests/unit/", "tests/fixtures/", "extensions/molecule/")
EVERY_SCENARIO = ("extensions/molecule/config.yml", "tests/fixtures/images/", "tests/fixtures/connection_plugins/",
                  "tests/fixtures/molecule/")
ENSURE = "tests/fixtures/ensure.sh"
SHARED = ("tests/unit", "tests/unit/reliability")
ANCHORS = ("tests/", "tests/unit/", "plugins/", "extensions/")


def git(root, *args):
    return subprocess.run(["git", "-C", root, "-c", "core.quotepath=off", *args], check=True,
                          capture_output=True, text=True).stdout.splitlines()


def changed_files(root, base="HEAD"):
    """Files differing from `base`: its later commits, staged, unstaged, untracked (not ignored), deleted."""
    files = set(git(root, "diff", "--name-only", "--no-renames", base, "--"))
    files |= set(git(root, "ls-files", "--others", "--exclude-standard"))
    return sorted(name for name in files if name)


def tree_files(root):
    """The checkout's files that git tracks or would (ignored ones left out)."""
    names = set(git(root, "ls-files", "--cached", "--others", "--exclude-standard"))
    return sorted(name for name in names if os.path.isfile(os.path.join(root, name)))


def is_test(path):
    return path.startswith("tests/unit/") and os.path.basename(path).startswith("test_") and path.endswith(".py")


def mapped(path):
    return path in ("site.yml", "meta/runtime.yml") or path.startswith(MAPPED)


def path_parts(node):
    """The path an os.path.join(...) call or a `/` chain names: constants joined, a variable in between as `*`;
    None unless it starts at a constant, an ALL_CAPS name or something built from __file__."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and isinstance(node.right, ast.Constant):
        items = []
        while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            items.insert(0, node.right)
            node = node.left
        items.insert(0, node)
    elif isinstance(node, ast.Call) and not node.keywords and any(
            isinstance(arg, ast.Constant) and isinstance(arg.value, str) for arg in node.args):
        items = list(node.args)
    else:
        return None
    rooted = False
    while items and not (isinstance(items[0], ast.Constant) and isinstance(items[0].value, str)):
        lead, rooted = items.pop(0), True
        if not (isinstance(lead, ast.Name) and lead.id.isupper()
                or any(isinstance(sub, ast.Name) and sub.id == "__file__" for sub in ast.walk(lead))):
            return None
    parts = []
    for item in items:
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            parts += [part for part in item.value.split("/") if part not in ("", ".", "..")]
        elif isinstance(item, (ast.Name, ast.Attribute, ast.Subscript)):
            parts.append("*")
        else:
            break
    while parts and parts[-1] == "*":
        parts.pop()
    if not parts or any(" " in part or "%" in part for part in parts) or len(parts) < 2 and not rooted:
        return None
    return "/".join(parts)


def mentions(pattern, path, here="", joined=False):
    """Whether `pattern` (a path, maybe partial, maybe with *) names `path`: the file itself, or, for a pattern that
    looks like a directory (joined in code, or written out and naming no test file), a file under it. A pattern
    starts at the root or `here` (the mentioning file's directory); a file's name also at tests/, tests/unit/,
    plugins/ or extensions/; either anywhere when the pattern has three parts or more."""
    want, have = pattern.split("/"), path.split("/")
    for offset in range(len(have) - len(want) + 1):
        prefix = "/".join(have[:offset]) + "/" * bool(offset)
        anchored = prefix in ("", here + "/") or len(want) >= 3
        if not (anchored or prefix in ANCHORS) or \
                not all(fnmatch.fnmatchcase(part, glob) for part, glob in zip(have[offset:], want)):
            continue
        if offset + len(want) == len(have):
            return True
        if anchored and "." not in want[-1] and (joined or not path.endswith(".py") and not path.startswith("tests/unit/")):
            return True
    return False


class Repo:
    """The checkout (its files plus the changed ones, deleted included) and what refers to what."""

    def __init__(self, root, files, changed=()):
        self.root, self.files = root, set(files) | set(changed)
        self._text, self._edges, self._scan, self._patterns, self._named = {}, {}, {}, {}, {}
        self._reach = {}
        self.roles = {}
        for name in sorted(self.files):
            if name.startswith("roles/") and name.count("/") >= 2 and not name.endswith("/README.md"):
                self.roles.setdefault(name.split("/")[1], set()).add(name)
        self.filters = {}
        for name in sorted(self.files):
            if name.startswith("plugins/filter/") and name.endswith(".py"):
                for key in self.scan(name)[3]:
                    self.filters[key] = name
        self.scenarios = sorted(scenario for scenario in {name.split("/")[2] for name in self.files
                                                          if name.startswith("extensions/molecule/") and name.count("/") >= 3}
                                if os.path.isdir(os.path.join(root, "extensions", "molecule", scenario)))

    def text(self, name):
        if name not in self._text:
            try:
                with open(os.path.join(self.root, name), encoding="utf-8", errors="replace") as handle:
                    self._text[name] = handle.read()
            except OSError:
                self._text[name] = ""
        return self._text[name]

    def under(self, folder):
        return {name for name in self.files if name.startswith(folder.rstrip("/") + "/")}

    def module(self, dotted, importer):
        """The files an import of `dotted` loads (a trailing dot: every module of that package)."""
        if dotted.startswith(PACKAGE):
            rel = dotted[len(PACKAGE):].rstrip(".").replace(".", "/")
            if dotted.endswith("."):
                return {name for name in self.under(rel) if name.endswith(".py") and name.count("/") == rel.count("/") + 1}
            return {name for name in (rel + ".py", rel + "/__init__.py") if name in self.files}
        if importer.startswith("tests/unit/") and "." not in dotted:
            for folder in (os.path.dirname(importer),) + SHARED:
                if folder + "/" + dotted + ".py" in self.files:
                    return {folder + "/" + dotted + ".py"}
        return set()

    def scan(self, name):
        """One pass over a Python file: (files it imports, paths it joins, argument names of its functions, the
        names its filters() returns, its top-level functions)."""
        if name in self._scan:
            return self._scan[name]
        found, joined, args, filters, inner = set(), set(), set(), set(), set()
        try:
            tree = ast.parse(self.text(name))  # not kept: what is read from it is
        except (SyntaxError, ValueError):
            tree = ast.Module(body=[], type_ignores=[])
        for node in ast.walk(tree):
            if isinstance(node, ast.BinOp):  # a / chain counts whole, not its parts again
                inner.add(id(node.left))
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found |= self.module(alias.name, name)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found |= self.module(node.module, name)
                for alias in node.names:
                    found |= self.module(node.module + "." + alias.name, name)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(PACKAGE):
                found |= self.module(node.value, name)
            elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
                args |= {arg.arg for arg in node.args.args}
                if getattr(node, "name", "") == "filters":
                    filters |= {key.value for ret in ast.walk(node) if isinstance(ret, ast.Return)
                                and isinstance(ret.value, ast.Dict) for key in ret.value.keys if isinstance(key, ast.Constant)}
            if isinstance(node, ast.Call) and node.args:
                callee = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
                if callee in ("module_utils", "plugin_utils") and isinstance(node.args[0], ast.Constant):
                    found |= self.module(PACKAGE + "plugins.%s.%s" % (callee, node.args[0].value), name)
                elif callee.endswith("import_module") and not isinstance(node.args[0], ast.Constant) \
                        and name.startswith("plugins/"):  # a sibling imported by name at run time
                    found |= self.module(PACKAGE + os.path.dirname(name).replace("/", ".") + ".", name)
                elif callee.endswith("usefixtures"):
                    args |= {arg.value for arg in node.args if isinstance(arg, ast.Constant)}
            if isinstance(node, (ast.Call, ast.BinOp)) and id(node) not in inner:
                path = path_parts(node)
                if path:
                    joined.add(path)
        self._scan[name] = (found - {name}, joined, args, filters,
                            {node.name for node in tree.body if isinstance(node, ast.FunctionDef)})
        return self._scan[name]

    def named(self, word, line="", loose=True):
        """The files `blackwell.pytorch.<word>` stands for on `line`: in YAML and shell as a role's name, a task's
        module, a filter or lookup, an imported or run playbook; in Python (`loose`) wherever it is written."""
        token = re.escape("blackwell.pytorch." + word)

        def near(pattern):
            return loose or re.search(pattern.replace("T", token), line)
        playbook = {"playbooks/%s.yml" % word} & self.files
        if playbook and ("import_playbook" in line or "ansible-playbook" in line):
            return playbook
        found = set()
        if near(r"""(?:\bname|\brole)["']?\s*:\s*["']?T\b|^\s*-\s*["']?T["']?\s*$"""):
            found |= set(self.roles.get(word, ())) | {"plugins/doc_fragments/%s.py" % word}
        if near(r"""T["']?\s*:"""):
            found |= {"plugins/modules/%s.py" % word, "plugins/action/%s.py" % word}
        if near(r"""\|\s*T|\(\s*["']T"""):
            found |= {"plugins/lookup/%s.py" % word}
            if word in self.filters:
                found |= {self.filters[word], "plugins/filter/%s.yml" % word}
        return (found & self.files) or (playbook if loose else set())

    def tokens(self, text, loose=True):
        found = set()
        for line in text.splitlines():
            for word in TOKEN.findall(line):
                found |= self.named(word, line, loose)
        return found

    def named_in(self, name):
        """What a test file or a module it shares names as `blackwell.pytorch.<name>` anywhere in its text."""
        if name not in self._named:
            self._named[name] = self.tokens(self.text(name))
        return self._named[name]

    def edges(self, name):
        """What running or loading `name` reaches directly (kept per file)."""
        if name in self._edges:
            return self._edges[name]
        found = self._edges[name] = set()
        if name.endswith(".py"):
            found |= self.scan(name)[0]
            if name.startswith("plugins/"):
                found |= {ref for ref in self.tokens(self.text(name)) if ref.startswith("plugins/doc_fragments/")}
            return found
        if not name.endswith(TEXT) or name.endswith(("/README.md", "meta/argument_specs.yml")) or name == ENSURE:
            return found
        text = COMMENT.sub("", self.text(name))
        found |= self.tokens(text, loose=False)
        for token in PATH.findall(text):
            token = token.lstrip("/")
            for guess in (os.path.join(os.path.dirname(name), token), token, token.partition("/")[2]):
                guess = os.path.normpath(guess)
                if guess.startswith("..") or guess == ".":
                    continue
                if guess in self.files:
                    found.add(guess)
                elif guess.count("/") >= 2 and not guess.startswith(("roles/", "plugins/")):
                    found |= self.under(guess)
        found.discard(name)
        return found

    def reach(self, starts):
        """Everything reachable from the files `starts`, themselves included."""
        key = frozenset(starts)
        if key not in self._reach:
            seen, todo = set(starts), list(starts)
            while todo:
                for ref in self.edges(todo.pop()):
                    if ref not in seen:
                        seen.add(ref)
                        todo.append(ref)
            self._reach[key] = seen
        return self._reach[key]

    def scenario_reach(self, scenario):
        found = self.reach(self.under("extensions/molecule/" + scenario))
        if any(name.startswith("plugins/") for name in found):
            found = found | {"meta/runtime.yml"}
        return found

    def scenarios_for(self, changed):
        """The scenarios the changed files touch."""
        if any(name.startswith(EVERY_SCENARIO) for name in changed):
            return list(self.scenarios)
        fixtures = {name.split("/")[2] for name in changed if name.startswith("tests/fixtures/") and name.count("/") >= 3}
        # tests/fixtures/ensure.sh's sources=([name]="paths it is built from" ...)
        ensured = {name for name, quoted, bare in re.findall(r'\[(\w+)\]=(?:"([^"]*)"|([\w/.-]+))', self.text(ENSURE))
                   if {path.split("/")[2] for path in (quoted or bare).split() if path.startswith("tests/fixtures/")
                       and path.count("/") >= 2} & fixtures}
        picked = []
        for scenario in self.scenarios:
            files = self.under("extensions/molecule/" + scenario)
            text = "\n".join(self.text(name) for name in sorted(files))
            named = {word for line in text.splitlines() if "ensure.sh" in line for word in re.findall(r"\w+", line)}
            if set(changed) & self.scenario_reach(scenario) or named & ensured or \
                    any(re.search(r"fixtures/%s\b" % re.escape(name), text) for name in fixtures):
                picked.append(scenario)
        return picked

    def sources(self, test):
        """The test file, the modules of tests/unit it imports and the conftest.py files whose fixtures it uses."""
        args = self.scan(test)[2]
        found, folder = {test}, os.path.dirname(test)
        while folder.startswith("tests/unit"):
            conftest = folder + "/conftest.py"
            if conftest in self.files and self.scan(conftest)[4] & args:
                found.add(conftest)
            folder = os.path.dirname(folder)
        todo = list(found)
        while todo:
            for ref in self.scan(todo.pop())[0]:
                if ref.startswith("tests/unit/") and ref not in found:
                    found.add(ref)
                    todo.append(ref)
        return found

    def patterns(self, name):
        """The paths `name` writes out: words with a slash, and os.path.join(...) or `/` chains (those marked True)."""
        if name in self._patterns:
            return self._patterns[name]
        found = self._patterns[name] = {(path, True) for path in self.scan(name)[1]}
        for token in PATH.findall(self.text(name)):
            parts = [part for part in token.split("/") if part not in ("", ".", "..")]
            if len(parts) >= 2 and all(part.strip("*") for part in parts):
                found.add(("/".join(parts), False))
        return found

    def tests_for(self, changed):
        """The unit test files the changed files touch."""
        changed = set(changed)
        tops = [os.path.dirname(name) + "/" for name in changed
                if name.startswith("tests/unit/") and os.path.basename(name) == "conftest.py"]
        picked = []
        for test in sorted(name for name in self.files if is_test(name) and os.path.isfile(os.path.join(self.root, name))):
            if test in changed or test.startswith(tuple(tops)):
                picked.append(test)
                continue
            sources = self.sources(test)
            starts = set(sources)
            for source in sources:
                starts |= self.named_in(source)
                for pattern, joined in self.patterns(source):
                    if pattern.startswith("playbooks/") or pattern == "site.yml":
                        starts |= {pattern} & self.files
                    for name in changed:
                        if mentions(pattern, name, os.path.dirname(source), joined):
                            starts.add(name)
            if changed & self.reach(starts):
                picked.append(test)
        return picked


def summary(changed, tests, scenarios, unmapped):
    lines = ["%d changed file(s)" % len(changed), "unit: %d test file(s)" % len(tests)] + ["  " + test for test in tests]
    lines.append("molecule: %s" % (" ".join(scenarios) or "none"))
    if unmapped:
        lines.append("not mapped: %s; run make test" % " ".join(unmapped))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD", help="the change is everything since this ref (default HEAD)")
    parser.add_argument("--run", action="store_true", help="run the selected tests and scenarios")
    args = parser.parse_args(argv)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        changed = changed_files(root, args.base)
    except subprocess.CalledProcessError as err:
        sys.exit("changed.py: git %s: %s" % (" ".join(err.cmd[5:]), err.stderr.strip()))
    repo = Repo(root, tree_files(root), changed)
    tests, scenarios = repo.tests_for(changed), repo.scenarios_for(changed)
    unmapped = [name for name in changed if not mapped(name)]
    print(summary(changed, tests, scenarios, unmapped), flush=True)
    if not args.run:
        return 0
    if not (tests or scenarios or unmapped):
        print("nothing to run")
        return 0
    rc = 0
    if tests or unmapped:
        rc |= subprocess.call([os.path.join(root, "tests", "bin", "unit.sh")] + ([] if unmapped else tests), cwd=root)
    if scenarios:
        env = dict(os.environ, MOLECULE_SCENARIOS=" ".join(scenarios))
        rc |= subprocess.call([os.path.join(root, "tests", "bin", "molecule.sh")], cwd=root, env=env)
    return 1 if rc else 0


if __name__ == "__main__":
    sys.exit(main())
