"""``.pbem/requirements.txt``: pbem and every dependency, pinned by sha256, for the CI runner.

The CI job installs with ``pip install --require-hashes --no-deps -r
.pbem/requirements.txt``: pip takes exactly these files and checks each one's
sha256, resolves no name on its own, and installs pbem from the wheel in the
repository (:mod:`pbem.transport.git.ci.wheel`).  The dependencies are the ones
pip would choose for that wheel on the runner (:data:`RUNNER`: CPython
:data:`PYTHON_VERSION` on Linux x86_64); they are found with ``pip download
--only-binary=:all: --platform ... --python-version ...`` into a temporary
folder, and the files downloaded are hashed.

The hashes must be those of the files the runner will download from the
default package index, so pip runs here without the local pip configuration
(``PIP_CONFIG_FILE`` is the null device, and extra indexes, local wheel
folders and constraints in the environment are dropped); certificates,
proxies and time-outs are kept.
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pbem.base.errors import PbemError
from pbem.transport.git.ci.wheel import Wheel

RUNNER = "ubuntu-24.04"          # the runner the workflow asks for (glibc 2.39, x86_64)
PYTHON_VERSION = "3.11"          # the Python actions/setup-python installs there
GLIBC_MINOR = 39                 # manylinux_2_39 ... manylinux_2_17: every wheel that runner's glibc can load
PLATFORMS = (*(f"manylinux_2_{minor}_x86_64" for minor in range(GLIBC_MINOR, 16, -1)),
             "manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64")
PIP_TIMEOUT = 600
KEPT_PIP_SETTINGS = ("PIP_CERT", "PIP_CLIENT_CERT", "PIP_PROXY", "PIP_TRUSTED_HOST", "PIP_DEFAULT_TIMEOUT",
                     "PIP_RETRIES", "PIP_CACHE_DIR", "PIP_NO_CACHE_DIR", "PIP_DISABLE_PIP_VERSION_CHECK")
WHEEL_NAME = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)(?:-\d[^-]*)?-[^-]+-[^-]+-[^-]+\.whl$")
PBEM_LINE = re.compile(r"^(?P<path>\S+/pbem-[^/\s]+\.whl) --hash=sha256:(?P<sha>[0-9a-f]{64})\s*$", re.MULTILINE)


class LockError(PbemError):
    """One line: why the pinned requirements cannot be made."""


@dataclass(frozen=True)
class Pin:
    name: str          # canonical: lower case, '-' between words
    version: str
    sha256: str        # hex, of the one wheel for the runner


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pip_environment() -> dict[str, str]:
    """The environment for pip: the default index only, as on the runner."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") or k in KEPT_PIP_SETTINGS}
    env["PIP_CONFIG_FILE"] = os.devnull
    return env


def platform_args() -> list[str]:
    args = ["--only-binary=:all:", "--implementation", "cp", "--python-version", PYTHON_VERSION,
            "--abi", "cp" + PYTHON_VERSION.replace(".", "")]
    for platform in PLATFORMS:
        args += ["--platform", platform]
    return args


def pin_dependencies(wheel: Wheel) -> list[Pin]:
    """Every dependency of ``wheel`` (transitively) that pip would install on the runner, with its hash."""
    with tempfile.TemporaryDirectory(prefix="pbem-lock-") as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
               *platform_args(), "--dest", tmp, str(wheel.path)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=pip_environment(), timeout=PIP_TIMEOUT,
                                  check=False)
        except subprocess.TimeoutExpired:
            raise LockError(_offline(f"pip download took longer than {PIP_TIMEOUT} s")) from None
        if proc.returncode != 0:
            raise LockError(_offline(f"pip download failed: {_reason(proc.stderr or proc.stdout)}"))
        pins = []
        for path in sorted(Path(tmp).iterdir()):
            match = WHEEL_NAME.match(path.name)
            if match is None:
                raise LockError(_offline(f"pip download gave {path.name}, which is not a wheel"))
            if canonical(match["name"]) == "pbem":
                continue
            pins.append(Pin(canonical(match["name"]), match["version"],
                            hashlib.sha256(path.read_bytes()).hexdigest()))
    return sorted(pins, key=lambda pin: pin.name)


def _offline(reason: str) -> str:
    return (f"cannot get the hashes of pbem's dependencies for the CI runner ({reason}); run `pbem git init "
            "--ci github` again with network access to the package index, or give --pbem-spec to install pbem "
            "your own way (docs/git.md)")


def _reason(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR") or "Error" in line]
    return (errors or lines or ["no message"])[0][:200]


def requirements_text(wheel_rel: str, wheel: Wheel, pins: list[Pin], version: str) -> str:
    """The requirements file; ``wheel_rel`` is the wheel's path from the repository root."""
    lines = [
        f"# pbem {version} for the CI moderator, written by `pbem git init --ci github`.",
        "# Installed from the repository root with:",
        "#   python -m pip install --require-hashes --no-deps --only-binary=:all: -r .pbem/requirements.txt",
        (f"# Each line is one file, checked by its sha256: for CPython {PYTHON_VERSION} on Linux x86_64 "
         f"({RUNNER})."),
        "# pbem itself is the wheel beside this file; no package index is asked for it.",
        "# To update: docs/git.md, \"Updating the CI moderator\".",
        f"./{wheel_rel} --hash=sha256:{wheel.sha256}",
    ]
    lines += [f"{pin.name}=={pin.version} --hash=sha256:{pin.sha256}" for pin in pins]
    return "\n".join(lines) + "\n"


def pinned_wheel(text: str) -> tuple[str, str] | None:
    """(path, sha256) of the pbem wheel a requirements file installs, or None."""
    match = PBEM_LINE.search(text)
    return (match["path"].removeprefix("./"), match["sha"]) if match else None
