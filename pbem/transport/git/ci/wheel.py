"""The pbem wheel a CI moderator installs, made from the pbem that is running.

``pbem git init --ci github`` puts this wheel in the repository
(``.pbem/wheels/pbem-VERSION-py3-none-any.whl``) so that the CI job runs the
very pbem the moderator set the game up with, and never asks a package index
for a package called pbem.

The wheel is packed again from the installed distribution: every file its
``RECORD`` lists under ``pbem/`` (the games and templates are inside, in
``pbem/_data/``) and the metadata, each checked against the hash in
``RECORD`` so that an installation changed after the fact is refused.  No
build tools and no network are needed, and the same installation always gives
the same bytes (fixed timestamps and order), hence the same sha256.  When pbem
runs from a source checkout or an editable install (no files in ``RECORD``),
the wheel is built from that source with ``pip wheel --no-deps`` instead.
"""
from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pbem
from pbem.base.errors import PbemError

DIST = "pbem"
TAG = "py3-none-any"
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)     # the earliest time a zip file can hold: the same bytes every time
METADATA_FILES = ("METADATA", "WHEEL", "entry_points.txt")
PIP_WHEEL_TIMEOUT = 600


class WheelError(PbemError):
    """One line: why the wheel cannot be made."""


@dataclass(frozen=True)
class Wheel:
    path: Path
    sha256: str       # hex

    @property
    def name(self) -> str:
        return self.path.name


def wheel_filename(version: str) -> str:
    return f"{DIST}-{version}-{TAG}.whl"


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_wheel(target_dir: Path) -> Wheel:
    """Write the running pbem as a wheel into ``target_dir``; returns it with its sha256."""
    target_dir.mkdir(parents=True, exist_ok=True)
    dist = _running_distribution()
    if dist is not None:
        path = _repack(dist, target_dir)
    else:
        path = _build_from_source(_source_dir(), target_dir)
    return Wheel(path, sha256_file(path))


def _running_distribution() -> importlib.metadata.Distribution | None:
    """The installed distribution whose files are the pbem running now (None for a checkout or editable install)."""
    try:
        dist = importlib.metadata.distribution(DIST)
    except importlib.metadata.PackageNotFoundError:
        return None
    running = Path(pbem.__file__).resolve()
    for file in dist.files or ():
        if file.as_posix() == f"{DIST}/__init__.py":
            return dist if Path(str(dist.locate_file(file))).resolve() == running else None
    return None


def _record_b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def _repack(dist: importlib.metadata.Distribution, target_dir: Path) -> Path:
    version = dist.version
    info = f"{DIST}-{version}.dist-info"
    members: dict[str, bytes] = {}
    for file in dist.files or ():
        rel = file.as_posix()
        if not _belongs_in_wheel(rel, info):
            continue
        data = Path(str(dist.locate_file(file))).read_bytes()
        if file.hash is not None and (file.hash.mode != "sha256" or file.hash.value != _record_b64(data)):
            raise WheelError(f"the installed pbem was changed after it was installed ({rel}); reinstall pbem "
                             "(pip install --force-reinstall) or give --pbem-spec")
        members[rel] = data
    wheel_meta = members.get(f"{info}/WHEEL", b"").decode("utf-8", "replace")
    has_data = all(any(name.startswith(f"{DIST}/_data/{folder}/") for name in members)
                   for folder in ("games", "templates"))
    if f"Tag: {TAG}" not in wheel_meta or not has_data:
        raise WheelError("the installed pbem is not a plain py3-none-any wheel with its games and templates; "
                         "reinstall pbem with pip, or give --pbem-spec")
    path = target_dir / wheel_filename(version)
    _write_zip(path, members, f"{info}/RECORD")
    return path


def _belongs_in_wheel(rel: str, info: str) -> bool:
    if rel.startswith(f"{DIST}/"):
        return "/__pycache__/" not in rel and not rel.endswith((".pyc", ".pyo"))
    if rel.startswith(f"{info}/"):
        name = rel[len(info) + 1:]
        return name in METADATA_FILES or name.startswith("licenses/")
    return False        # the console script, INSTALLER, REQUESTED, direct_url.json, RECORD: made by the installer


def _write_zip(path: Path, members: dict[str, bytes], record_name: str) -> None:
    """A wheel with its members in a fixed order, RECORD last, with fixed timestamps and modes."""
    ordered = sorted(members, key=lambda name: (".dist-info/" in name, name))
    record = "".join(f"{name},sha256={_record_b64(members[name])},{len(members[name])}\n" for name in ordered)
    record += f"{record_name},,\n"
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in [*((n, members[n]) for n in ordered), (record_name, record.encode("utf-8"))]:
            entry = zipfile.ZipInfo(name, date_time=ZIP_EPOCH)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.create_system = 3                      # unix, so that the mode below is read
            entry.external_attr = 0o100644 << 16
            zf.writestr(entry, data, compresslevel=9)
    tmp.replace(path)


def _source_dir() -> Path:
    root = Path(pbem.__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file() and (root / "games").is_dir() and (root / "templates").is_dir():
        return root
    raise WheelError("cannot find the installed pbem's files nor its source to make a wheel for CI; "
                     "install pbem with pip, or give --pbem-spec")


def _build_from_source(source: Path, target_dir: Path) -> Path:
    with tempfile.TemporaryDirectory(prefix="pbem-wheel-") as tmp:
        cmd = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", tmp, str(source)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_WHEEL_TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            raise WheelError(f"`pip wheel` of {source} took longer than {PIP_WHEEL_TIMEOUT} s; "
                             "install pbem with pip and run again, or give --pbem-spec") from None
        built = sorted(Path(tmp).glob(f"{DIST}-*-{TAG}.whl"))
        if proc.returncode != 0 or not built:
            reason = _last_line(proc.stderr or proc.stdout)
            raise WheelError(f"cannot build a pbem wheel from {source} ({reason}); install pbem with pip "
                             "and run again, or give --pbem-spec")
        target = target_dir / built[0].name
        target.write_bytes(built[0].read_bytes())
        return target


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR")]
    return (errors or lines or ["no message"])[-1]
