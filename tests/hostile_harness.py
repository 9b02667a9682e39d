"""What the hostile-input tests share: the corpus bound to a game, and the checks on a refusal.

The invariants (issue 7) for every hostile input, whatever the entry point:

* refused with exactly one line, and no traceback anywhere in the output;
* the game directory byte-identical afterwards (apart from the mail ledger and
  the git receipts that record the refusal);
* no crash report (a crash report means pbem hit a bug);
* the line shows at most a short, escaped excerpt of what was sent: no raw
  control or bidi characters, under ~400 characters, and never the contents of a
  sealed action (the sealed entries hold the marker ``SECRET-CONTENT``).

What each input costs (time and memory; the goal is 2 s and 200 MB) is a figure of
`make bench` (benchmarks/hostile_costs.py), not an assertion here: a test's pass or fail does
not hang on the machine's load.  A real blow-up fails the subprocess tests all the same:
they run pbem under a hard address-space limit (test_hostile_corpus.py).
"""
from __future__ import annotations

import base64
import functools
import hashlib
import os
import stat
import unicodedata
from pathlib import Path
from typing import Any

from hostile import make_corpus as mc
from hostile.make_corpus import Entry

from pbem.crypto import agecrypt, keys, sshsig
from pbem.store.table import Table

LINE_CHARS = 420           # the CLI caps a line at 400; "pbem: error: " comes in front
SECRET = "SECRET-CONTENT"
NOSIG = "missing"          # the garbage-signature kind that is no .sig file at all
#: the entries that would hang or eat memory if a check were missing: run as whole processes by
#: test_hostile_corpus.py (under a hard memory limit) and by `make bench` (their cost measured)
BLOW_UP_ENTRIES = ("bomb-billion-laughs", "nest-brackets-5000", "huge-eight-mib-binary", "bomb-quadratic",
                   "sealed-real-alias-bomb", "actions-5000-flow")


# --- the corpus, bound to a game ----------------------------------------------------------------

def all_entry_names() -> list[str]:
    """Names of every entry the corpus tests use (committed, big, sealed), known at collection time."""
    names = [e.name for e in mc.load_corpus()] + [e.name for e in mc.big_entries()]
    names += [e.name for e in mc.sealed_entries("", lambda _data, _key: "")]
    return names


def entries_for(table: Table) -> dict[str, Entry]:
    """Every entry, with the sealed ones encrypted to this game's moderator key."""
    moderator_key = table.header["moderator"]["key"]

    def seal(data: bytes, key: str) -> str:
        return agecrypt.encrypt(data, [key]).decode("ascii")
    entries = mc.load_corpus() + mc.big_entries() + mc.sealed_entries(moderator_key, seal)
    return {e.name: e for e in entries}


def bind(entry: Entry, table: Table, player: str = "red") -> bytes:
    """The entry's bytes with the game's id, the player and the current log position filled in."""
    return mc.instantiate(entry.data, table.game_id, player, table.last["index"], table.last["hash"])


def sign(key: Path, raw: bytes) -> str:
    return sshsig.sign(keys.load_private_key(key), raw, sshsig.MOVE_NAMESPACE)


def raw_public_key(key: Path) -> bytes:
    line = key.with_name(key.name + ".pub").read_text().split()[1]
    return keys.raw_from_ed25519_blob(base64.b64decode(line))


def garbage_signature(n: int, player_key: Path) -> tuple[str, str | None]:
    """The n-th garbage signature, in turn: (its kind, its text, or None for no .sig file at all)."""
    kinds = _garbage_kinds(raw_public_key(player_key))
    return kinds[n % len(kinds)]


@functools.lru_cache(maxsize=8)
def _garbage_kinds(raw_key: bytes) -> tuple[tuple[str, str | None], ...]:
    """Every garbage signature for the player whose raw public key is ``raw_key``, sorted by kind:
    made once per key, not once per corpus entry (the blobs hash many KiB of pseudo-random bytes)."""
    return (*sorted(mc.garbage_signatures(raw_key).items()), (NOSIG, None))


def game_files(root: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Hash of every file under ``root`` (relative path -> sha256), never following a symbolic
    link or reading a special file (a hostile push may hold a link to /dev/zero); paths that
    start with one of ``skip`` are left out."""
    out: dict[str, str] = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if rel.startswith(skip):
                continue
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                out[rel] = "symlink to " + os.readlink(path)
            elif stat.S_ISREG(info.st_mode):
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                out[rel] = f"special file {stat.S_IFMT(info.st_mode):o}"
    return out


# --- what a refusal may show ----------------------------------------------------------------------------

def unsafe_characters(text: str) -> list[str]:
    """Characters a refusal must never show raw: controls (but the line end), format (bidi) and separators."""
    return sorted({f"U+{ord(ch):04X}" for ch in text
                   if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")})


def assert_clean_line(line: str, what: str) -> None:
    assert "Traceback" not in line, f"{what}: a traceback: {line!r}"
    assert "\n" not in line.rstrip("\n"), f"{what}: more than one line: {line!r}"
    assert len(line) <= LINE_CHARS, f"{what}: {len(line)} characters: {line[:100]!r}..."
    assert not unsafe_characters(line), f"{what}: raw {unsafe_characters(line)} in {line!r}"
    assert SECRET not in line, f"{what}: shows a sealed action's contents: {line!r}"
    assert "could not process this (an internal error" not in line, f"{what}: pbem crashed: {line!r}"


def assert_refused_in_one_line(result: Any, what: str) -> str:
    """A click CliRunner result: exit 1, nothing on stdout, one clean `pbem: error:` line on stderr."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{what}: {result.exception!r} escaped") from result.exception
    assert result.exit_code == 1, f"{what}: exit {result.exit_code}: {result.output!r}"
    assert result.stdout == "", f"{what}: printed {result.stdout!r}"
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("pbem: error: "), \
        f"{what}: {result.stderr!r}"
    assert_clean_line(result.stderr, what)
    return result.stderr.strip()


def assert_clean_output(result: Any, what: str) -> None:
    """A command that may succeed (a preview that cannot open a sealed action): no traceback, clean lines."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{what}: {result.exception!r} escaped") from result.exception
    assert result.exit_code in (0, 1), f"{what}: exit {result.exit_code}"
    for line in result.output.splitlines():
        assert_clean_line(line, what)
    if result.exit_code == 1:
        assert_refused_in_one_line(result, what)
