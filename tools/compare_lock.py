#!/usr/bin/env python3
"""Which installed packages differ from the versions a lock file pins (`make test-latest`).

    python tools/compare_lock.py requirements/dev.txt

Prints one line per installed package whose version is not the pinned one (the build tools
the lock also pins, hatchling and setuptools, are not installed where pip builds in isolation:
they are left out), then a count; exits 0 either way: it informs, the test run that follows
judges.  Standard library only.
"""
from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

#: what a new venv brings or pip builds with, not what pbem or its tests use
UNCOMPARED = {"pip", "setuptools", "wheel"}
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.M)


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(lock: Path) -> dict[str, str]:
    return {canonical(name): version for name, version in PIN.findall(lock.read_text(encoding="utf-8"))}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        raise SystemExit(__doc__)
    locked = pins(Path(argv[0]))
    installed = {canonical(d.metadata["Name"]): d.version for d in metadata.distributions()}
    differ = sorted(name for name in locked if name in installed and installed[name] != locked[name]
                    and name not in UNCOMPARED)
    for name in differ:
        print(f"  {name}: {installed[name]} (the lock has {locked[name]})")
    new = sorted(set(installed) - set(locked) - UNCOMPARED - {"pbem"})
    for name in new:
        print(f"  {name}: {installed[name]} (not in the lock)")
    print(f"{len(differ)} of {len(locked)} locked packages at other versions than {argv[0]}; {len(new)} not in it")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
