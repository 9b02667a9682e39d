"""Ed25519 keys made from a name, for the benchmarks (Ed25519 signatures are deterministic, and
the draws of a move come from its signature: so a benchmark plays the same game every time)."""
from __future__ import annotations

import hashlib
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from pbem.crypto import keys


def fixed_keypair(path: Path, name: str, salt: str = "pbem-bench-key") -> str:
    """The key of ``name`` (made from ``salt`` and the name) written to ``path`` and ``path.pub``;
    returns the public key line."""
    key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(f"{salt}/{name}".encode()).digest())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption()))
    path.chmod(0o600)
    line = keys.public_key_of(key)
    path.with_name(path.name + ".pub").write_text(f"{line} {name}\n")
    return line
