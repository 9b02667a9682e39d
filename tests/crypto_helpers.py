"""Helpers for the crypto tests: run the real ssh-keygen and age tools.

The tests never skip when a tool is missing: CI installs them, so a missing
tool is a setup error and the test fails saying what to install.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

INSTALL_HINTS = {
    "ssh-keygen": "install OpenSSH >= 8.1 (Debian: `apt-get install openssh-client`)",
    "age": "install the age CLI (Debian: `apt-get install age`)",
    "age-keygen": "install the age CLI (Debian: `apt-get install age`)",
}


def require_tool(name: str) -> str:
    """Path of the tool ``name``; fail the test with an install hint if missing."""
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not on PATH; {INSTALL_HINTS.get(name, 'install it')}", pytrace=False)
    return found


def run(args: list[str], stdin: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """Run a real tool (no shell); fail the test with its output if ``check`` and it fails."""
    require_tool(args[0])
    proc = subprocess.run(args, input=stdin if stdin is not None else b"", capture_output=True, timeout=60)
    if check and proc.returncode != 0:
        pytest.fail(f"{' '.join(args)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    return proc


def ssh_keygen_key(folder: Path, name: str, key_type: str = "ed25519", passphrase: str = "") -> Path:
    """Make a key with ``ssh-keygen``; returns the private key path."""
    path = folder / name
    args = ["ssh-keygen", "-q", "-t", key_type, "-N", passphrase, "-C", f"{name}@example.org", "-f", str(path)]
    if key_type == "rsa":
        args[4:4] = ["-b", "2048"]
    run(args)
    return path


def public_line(key_path: Path) -> str:
    """Contents of ``KEY.pub`` with surrounding whitespace removed."""
    return key_path.with_name(key_path.name + ".pub").read_text().strip()


def ssh_sign(key_path: Path, message_path: Path, namespace: str, hashalg: str = "sha512") -> str:
    """Sign a file with ``ssh-keygen -Y sign``; returns the armored signature text."""
    sig_path = message_path.with_name(message_path.name + ".sig")
    sig_path.unlink(missing_ok=True)
    args = ["ssh-keygen", "-Y", "sign", "-n", namespace, "-f", str(key_path)]
    if hashalg != "sha512":
        args += ["-O", f"hashalg={hashalg}"]
    run(args + [str(message_path)])
    return sig_path.read_text()


def ssh_verify(
    folder: Path, principal: str, public_key: str, namespace: str, sig_path: Path, message: bytes
) -> subprocess.CompletedProcess[bytes]:
    """``ssh-keygen -Y verify`` with a one-line allowed_signers file; returns the result."""
    allowed = folder / "allowed_signers"
    allowed.write_text(f'{principal} namespaces="{namespace}" {public_key}\n')
    args = ["ssh-keygen", "-Y", "verify", "-f", str(allowed), "-I", principal, "-n", namespace, "-s", str(sig_path)]
    return run(args, stdin=message, check=False)
