"""The hostile-input corpus through `pbem git sync`: every entry pushed into incoming/red/ in ONE
push, with a valid move behind them, processed in ONE sync (real git CLI, a bare remote).

Each corpus entry is pushed signed by red (so it reaches the parser and the rules);
every kind of garbage signature (and a missing one) comes with one entry each, and
so do the special files git can carry: symbolic links to /dev/zero and out of the
repository, a symbolic-link signature, a folder named like a move file.  Every item
must be refused with a one-line receipt, change nothing but
receipts/ and incoming/ before the valid move, and leave no crash report; the valid
move behind them must be accepted in the same sync.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from click.testing import CliRunner
from hostile_harness import (
    NOSIG,
    assert_clean_line,
    bind,
    entries_for,
    game_files,
    garbage_signature,
    sign,
)
from pipeline_helpers import signed_move
from test_git_helpers import GAME, git, hermetic_git, make_shared  # noqa: F401  (autouse fixture)

from pbem.cli.group import main as pbem_main
from pbem.pipeline.audit import audit
from pbem.store.gamedir import GameDir
from pbem.store.table import Table
from pbem.transport.git import sync as git_sync

VALID = "valid-move"


@dataclass
class Seen:
    handled: list[str] = field(default_factory=list)
    first: dict[str, str] | None = None
    before_valid: dict[str, str] | None = None


def _game_files(root) -> dict[str, str]:
    """The moderator's game folder, but for what a refusal may add (receipts) or remove (incoming), and
    the sync's own bookkeeping (its lock, private index and caches: pbem.transport.git.history, hashcache)."""
    return game_files(root, skip=("receipts/", "incoming/", "moderator/git-sync.lock", "moderator/sync.index",
                                  "moderator/git-history.", "moderator/git-hashes."))


def test_every_corpus_file_in_one_push_is_refused_with_a_receipt_and_the_valid_move_behind_is_taken(
        tmp_path, key_pool, toy_registered, monkeypatch, shared_templates):
    shared = make_shared(tmp_path, key_pool, templates=shared_templates)
    red = shared.players["red"]
    red.pull()
    table = Table.load(shared.moderator)
    entries = entries_for(table)
    folder = red.game.root / "incoming" / "red"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []

    def put(name: str, raw: bytes, signature: str | None) -> None:
        move = folder / f"{name}.yaml"
        move.write_bytes(raw)
        paths.append(move)
        if signature is not None:
            sig = move.with_name(move.name + ".sig")
            sig.write_text(signature, encoding="utf-8", errors="surrogateescape")
            paths.append(sig)

    names = list(entries)
    for entry in entries.values():
        raw = bind(entry, table)
        put(entry.name, raw, sign(key_pool["red"], raw))
    kinds = set()
    for n in range(len(names)):
        kind, garbage = garbage_signature(n, key_pool["red"])
        if kind in kinds:
            break
        kinds.add(kind)
        put(f"garbage-sig-{kind}", bind(entries[names[n]], table), garbage)
    assert NOSIG in kinds and len(kinds) > 10
    special = {"symlink-dev-zero": "/dev/zero", "symlink-out-of-the-repo": "../../../../../../../../etc/passwd"}
    for name, target in special.items():
        link = folder / f"{name}.yaml"
        link.symlink_to(target)
        sig = link.with_name(link.name + ".sig")
        sig.write_text(sign(key_pool["red"], b""))
        paths += [link, sig]
    raw = bind(entries["mail-crlf"], table)
    put("symlink-signature", raw, None)
    (folder / "symlink-signature.yaml.sig").symlink_to("/dev/zero")
    paths.append(folder / "symlink-signature.yaml.sig")
    (folder / "folder.yaml").mkdir()
    (folder / "folder.yaml" / "inside.yaml").write_bytes(raw)
    paths.append(folder / "folder.yaml" / "inside.yaml")
    red.commit(paths, "a hostile push")
    items = len([p for p in paths if not p.name.endswith(".sig")])
    valid_raw, valid_sig = signed_move(table, "red", [{"draw": True}], key_pool["red"])
    put(VALID, valid_raw, valid_sig)
    red.commit(paths[-2:], "and a real move behind it")
    red.git("push", "-q")                               # one push

    seen = Seen()
    real_answer = git_sync._Sync._answer

    def watched_answer(self, item, state):      # the real _answer, item by item
        if seen.first is None:
            seen.first = _game_files(self.gd.root)
        if item.name == VALID:
            seen.before_valid = _game_files(self.gd.root)
        seen.handled.append(item.name)
        return real_answer(self, item, state)

    monkeypatch.setattr(git_sync._Sync, "_answer", watched_answer)
    result = CliRunner().invoke(pbem_main, ["git", "sync", str(shared.moderator.root)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"pbem git sync: {result.exception!r}") from result.exception
    assert result.exit_code == 0, result.output

    # one sync handled every item, in order: the valid move last
    assert len(seen.handled) == items + 1 and seen.handled[-1] == VALID
    lines = result.output.splitlines()
    assert lines[-2].startswith(f"accepted red/{VALID}.yaml: entry 1"), lines[-3:]
    assert lines[-1].startswith("pushed ")
    rejected = [line for line in lines if line.startswith("rejected ")]
    assert len(rejected) == items
    for line in lines:
        assert_clean_line(line, "git sync output")

    # nothing but receipts changed before the valid move; no crash report
    assert seen.first is not None and seen.before_valid == seen.first
    assert not (shared.moderator.moderator_dir / "crashes").exists()

    # every item answered once with a clean one-line receipt, in the shared repository too
    receipts = sorted(p for p in shared.remote_files(f"{GAME}/receipts/red/") if p.endswith(".txt"))
    assert len(receipts) == items + 1
    signed = [p for p in shared.remote_files(f"{GAME}/receipts/red/") if p.endswith(".receipt.yaml")]
    assert len(signed) == 1 and VALID in signed[0]          # the one accepted move has a signed receipt
    for path, text in shared.remote_texts(receipts).items():
        first = text.splitlines()[0]
        assert first.startswith("accepted" if VALID in path else "rejected: "), (path, first)
        for line in text.splitlines():
            assert_clean_line(line, path)
    for line in git(shared.bare, "log", "--format=%B", "main").stdout.splitlines():
        assert_clean_line(line, "commit message")
    assert shared.remote_files(f"{GAME}/incoming/") == [f"{GAME}/incoming/README.md"]

    # the valid move is the game's only move, and a fresh clone audits
    entries_after = GameDir(shared.moderator.root).entries()
    assert len(entries_after) == 2 and entries_after[1]["player"] == "red"
    clone = shared.fresh_clone("auditor")
    report = audit(GameDir(clone / GAME))
    assert report.ok, report.problems
    assert not os.path.exists(clone / GAME / "moderator")
    git(shared.bare, "fsck", "--strict")
