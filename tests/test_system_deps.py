"""tools/ensure_system_deps.py, which `make test` runs first: silent when every tool is there,
one line and the exact command when it cannot install what is missing.

The install branch itself (apt-get) changes the machine, so it is not run here: CI on a fresh
machine runs it for real.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "tools" / "ensure_system_deps.py"


def load_script():
    spec = importlib.util.spec_from_file_location("ensure_system_deps", SCRIPT)
    assert spec and spec.loader, SCRIPT
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module        # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


deps = load_script()


def run_script(path_env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": path_env})


def test_with_every_tool_there_it_installs_nothing_and_says_nothing():
    assert deps.missing_packages() == []      # `make test` ran it: everything the tests use is there
    done = run_script(os.environ["PATH"])
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_without_apt_get_it_stops_with_one_line_naming_the_packages(tmp_path):
    done = run_script(str(tmp_path))           # an empty PATH: no tool, no apt-get
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.splitlines()
    packages = line.removeprefix("make test: missing ").split(" and no apt-get here")[0]
    assert packages.startswith("make git openssh-client age")
    assert line.endswith(f"(Debian/Ubuntu: apt-get update && apt-get install -y --no-install-recommends {packages})")


def test_each_need_is_looked_for_by_command_file_or_python_module(tmp_path):
    present = tmp_path / "fonts" / "truetype" / "present.ttf"
    present.parent.mkdir(parents=True)
    present.write_text("")
    needs = (deps.Need("git", "git"), deps.Need(str(present), "a"), deps.Need(str(tmp_path / "absent"), "b"),
             deps.Need("python:json", "c"), deps.Need("python:no_such_module_here", "d"),
             deps.Need("no-such-command-here", "e"), deps.Need("no-such-command-either", "e"),
             deps.Need(f"{tmp_path}/fonts/**/present.ttf", "f"), deps.Need(f"{tmp_path}/**/absent.ttf", "g"))
    assert deps.missing_packages(needs) == ["b", "d", "e", "g"]
    root_only = (deps.Need("no-such-command-here", "h", as_root_only=True),)
    assert deps.missing_packages(root_only) == (["h"] if os.geteuid() == 0 else [])


@pytest.mark.parametrize("as_root, have_sudo, prefix, how", [
    (True, False, (), "as root"), (True, True, (), "as root"), (False, True, ("sudo",), "sudo")])
def test_it_installs_with_apt_get_after_an_update(as_root, have_sudo, prefix, how):
    plan = deps.plan("make test", ["age", "dovecot-imapd"], have_apt_get=True, as_root=as_root,
                     have_sudo=have_sudo)
    assert plan.line == f"make test: installing age dovecot-imapd with apt-get ({how})"
    apt = (*prefix, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get")
    assert plan.commands == ((*apt, "update", "-qq"),
                             (*apt, "install", "-y", "--no-install-recommends", "age", "dovecot-imapd"))
    assert "apt-get update && apt-get install -y --no-install-recommends age dovecot-imapd" in plan.by_hand


def test_neither_root_nor_sudo_gives_the_command_to_run_as_root():
    plan = deps.plan(".ci/run", ["age"], have_apt_get=True, as_root=False, have_sudo=False)
    assert plan.commands == ()
    assert plan.line == (".ci/run: missing age; not root and no sudo, so run as root: "
                         "apt-get update && apt-get install -y --no-install-recommends age")


def test_every_tool_the_tests_ask_for_is_in_the_list():
    """The install hints in the test helpers and the list that installs: one package per tool."""
    from crypto_helpers import INSTALL_HINTS

    listed = {need.what: need.package for need in deps.NEEDS}
    for tool, hint in INSTALL_HINTS.items():
        assert listed[tool] in hint, tool
    assert listed["dovecot"] == "dovecot-imapd" and listed["setpriv"] == "util-linux"
