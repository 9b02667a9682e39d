"""The floors: the least work `pbem audit` and `pbem submit` could possibly do.

A goal such as "audit at 1.5x its floor" compares the command with this work, done with the
same building blocks (the strict YAML parser, the SSHSIG check, the log's canonical rendering):

* audit floor: parse the log and every archived move file, check the hash chain (each entry's
  hash, its canonical bytes, its ``prev``) and every signature (the players' moves and the
  moderator's entries);
* submit floor: start Python, read the move file and its signature, verify it, parse the move,
  append one log entry to a file with fsync.

Run as a whole process (what the benchmark times against `pbem audit DIR` and `pbem submit`):

    python benchmarks/floors.py audit GAME_DIR
    python benchmarks/floors.py submit LOG_COPY MOVE SIG KEY.pub
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any


def audit_floor(root: Path) -> int:
    """Parse, chain-check and signature-check a game folder; returns the number of entries."""
    from pbem.base.canonical import canonical
    from pbem.crypto import sshsig
    from pbem.store.log import LOG_NAME, split_chunks, verify_chain
    from pbem.store.movefile import parse_move

    chunks = split_chunks((root / LOG_NAME).read_text(encoding="utf-8"))
    problems = verify_chain(chunks)
    entries = [c.entry for c in chunks if c.entry is not None]
    header = entries[0]
    keys_by = {p["name"]: p["key"] for p in header["players"]}
    moderator_key = header["moderator"]["key"]
    for entry in entries:
        if entry.get("kind") == "move":
            raw = (root / entry["move"]["file"]).read_bytes()
            sshsig.verify(raw, entry["move"]["signature"], [keys_by[entry["player"]]], sshsig.MOVE_NAMESPACE)
            parse_move(raw)
        else:
            body = {k: v for k, v in entry.items() if k not in ("hash", "signature")}
            sshsig.verify(canonical(body), entry["signature"], [moderator_key], sshsig.MODERATOR_NAMESPACE)
    if problems:
        raise SystemExit(f"the floor found problems: {problems[:3]}")
    return len(entries)


def submit_floor(log_copy: Path, move_path: Path, sig_path: Path, key_path: Path) -> None:
    """Read and verify one move, append one entry to ``log_copy`` with fsync."""
    from pbem.base.canonical import sha256_hex
    from pbem.crypto import sshsig
    from pbem.store.log import render_entry, seal
    from pbem.store.movefile import parse_move

    raw = move_path.read_bytes()
    signature = sig_path.read_text(encoding="utf-8")
    key = key_path.read_text(encoding="utf-8").strip()
    sshsig.verify(raw, signature, [" ".join(key.split()[:2])], sshsig.MOVE_NAMESPACE)
    move = parse_move(raw)
    entry: dict[str, Any] = {"index": move.after + 1, "kind": "move", "prev": move.after_hash,
                             "player": move.player,
                             "move": {"file": move_path.name, "sha256": sha256_hex(raw), "signature": signature},
                             "actions": move.actions}
    with open(log_copy, "a", encoding="utf-8") as fh:
        fh.write(render_entry(seal(entry)))
        fh.flush()
        os.fsync(fh.fileno())


def main(argv: list[str]) -> None:
    if argv[:1] == ["audit"] and len(argv) == 2:
        audit_floor(Path(argv[1]))
    elif argv[:1] == ["submit"] and len(argv) == 5:
        submit_floor(*(Path(a) for a in argv[1:]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
