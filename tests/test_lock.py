"""The hashed lock in requirements/ (docs/development.md): complete, coherent, and every pin hashed.

`make test` and `make demo` install .venv from these files with `pip --require-hashes`; a
dependency added to pyproject.toml without `make lock` would be missing there (make's `pip
check` catches it too, at install time).  tools/compare_lock.py tells `make test-latest`
which packages run at other versions than the lock.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
LOCKS = ROOT / "requirements"
#: what CI runs, and what the lock is made for
TARGET = {"python_version": "3.11", "python_full_version": "3.11.7", "sys_platform": "linux",
          "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix",
          "implementation_name": "cpython", "platform_python_implementation": "CPython"}

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(name: str) -> dict[str, tuple[str, list[str]]]:
    """package -> (version, its hashes), from one lock file."""
    out: dict[str, tuple[str, list[str]]] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", (LOCKS / name).read_text(encoding="utf-8")):
        found = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", block)
        if found:
            out[canonical(found.group(1))] = (found.group(2), re.findall(r"--hash=sha256:([0-9a-f]{64})", block))
    return out


def wanted(requirements: list[str]) -> list[Requirement]:
    reqs = [Requirement(r) for r in requirements]
    return [r for r in reqs if r.marker is None or r.marker.evaluate({**TARGET, "extra": ""})]


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lock", ["pip.txt", "build.txt", "runtime.txt", "dev.txt"])
def test_every_pin_has_a_hash(lock: str) -> None:
    found = pins(lock)
    assert found, f"{lock} pins nothing"
    assert all(hashes for _version, hashes in found.values()), [p for p, (_v, h) in found.items() if not h]


def test_the_lock_holds_every_dependency_at_a_version_its_range_allows() -> None:
    spec = project()
    runtime, dev, build = pins("runtime.txt"), pins("dev.txt"), pins("build.txt")
    checks = [(runtime, spec["project"]["dependencies"]), (dev, spec["project"]["dependencies"]),
              (dev, spec["project"]["optional-dependencies"]["test"]),
              (build, spec["build-system"]["requires"])]
    for lock, requirements in checks:
        for req in wanted(requirements):
            name = canonical(req.name)
            assert name in lock, f"{req} is not in the lock: run make lock"
            assert req.specifier.contains(lock[name][0], prereleases=True), f"{req}: the lock has {lock[name][0]}"


def test_runtime_build_and_dev_pins_agree() -> None:
    dev = pins("dev.txt")
    for lock in ("runtime.txt", "build.txt"):
        for name, (version, _hashes) in pins(lock).items():
            assert dev.get(name, (version,))[0] == version, f"{name}: {lock} has {version}, dev.txt {dev[name][0]}"
    assert set(pins("runtime.txt")) <= set(dev) and set(pins("build.txt")) <= set(dev)


def test_compare_lock_names_what_differs_from_a_lock(tmp_path: Path) -> None:
    import pytest as installed
    lock = tmp_path / "lock.txt"
    lock.write_text(f"pytest==0.0.1 \\\n    --hash=sha256:{'0' * 64}\npluggy==0.0.2\nnot-a-real-package==1.0\n")
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "compare_lock.py"), str(lock)],
                          capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert f"  pytest: {installed.__version__} (the lock has 0.0.1)" in lines
    assert any(line.startswith("  pluggy: ") for line in lines)
    assert not any("not-a-real-package" in line for line in lines)        # not installed: not compared
    assert lines[-1].startswith("2 of 3 locked packages at other versions")
