"""`pbem audit`: check a game from its files alone.

Without the seed: the hash chain and canonical bytes of every entry, the
moderator's signatures, every archived move file (hash, SSHSIG by the named
player, binding to its log position) and the seed commitment of a reveal.
With the seed (revealed in the log, or the moderator's copy): replay the whole
game and compare every event, every state hash, the pending decisions and
the public digests on disk.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import AbstractSet, Any, Sequence

from pbem.base.canonical import canonical, keyed_hash, sha256_hex
from pbem.base.errors import PbemError, excerpt
from pbem.base.fsutil import TEMP_NAME, read_locked
from pbem.base.yamlio import YamlError
from pbem.core.engine import Rejected, event_record, game_for, header_options, state_hash
from pbem.core.rng import derive_key, seed_commitment
from pbem.core.sealed import is_sealed
from pbem.store.missedturns import in_disorder, missed_in_a_row, rules_of
from pbem.crypto import agecrypt, sshsig
from pbem.store import receipts, receiptstore
from pbem.store.binding import named_entry
from pbem.store.gamedir import GameDir
from pbem.store.leftovers import ARCHIVE_NAME, Kind, RepairPlan, plan_repair
from pbem.store.log import LOG_NAME, split_chunks, verify_chain
from pbem.store.movefile import MoveFileError, parse_move
from pbem.store.table import acting_player, board_view_indices, bot_seats, keys_at, replay, start_position
from pbem.views.boardmoves import BoardHistory
from pbem.views.outputs import BoardDrawings, opened_bytes, player_plaintexts, public_outputs, secrets_file


@dataclass
class AuditReport:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def audit(gd: GameDir, receipt_paths: Sequence[Path] = (), derived: bool = True) -> AuditReport:
    """Audit a copy of the game, and check the receipts a player kept against its log.

    Only reads, on any copy: under the shared lock (where the copy has one: a command running at
    the same time is never seen half-done), it reports what the next moderator command would
    repair (:func:`pbem.store.leftovers.plan_repair`) as notes, and what no interrupted command
    leaves (a log cut back or rewritten) as problems.  ``derived=False``: the files made from the
    log (digests, board, view, secrets) are not compared: the log, every signature, every move and,
    with the seed, the whole replay are (a copy of an older game, whose files an older pbem
    rendered, or a copy with only the log and the moves)."""
    gd.require()
    with read_locked(gd.root):
        plan = plan_repair(gd)
        return _audit(gd, plan, receipt_paths, derived)


#: what the next moderator command does with each kind of leftover
_REPAIRS = {Kind.TEMP_FILE: "remove it", Kind.TORN_END: "cut it off", Kind.STRAY_ARCHIVE: "remove it",
            Kind.DERIVED_LAG: "rewrite them"}


def _report_plan(plan: RepairPlan, report: AuditReport) -> None:
    """The leftovers as notes (the derived files that differ from the snapshot's record are
    compared with the log by the replay instead), and the evidence as problems."""
    for finding in plan.findings:
        if not finding.leftover:
            report.problems.append(finding.text)
        elif finding.kind in _REPAIRS:
            report.notes.append(f"{finding.text}; the next moderator command would {_REPAIRS[finding.kind]} "
                                "(the audit changes nothing)")


def _audit(gd: GameDir, plan: RepairPlan, receipt_paths: Sequence[Path] = (), derived: bool = True) -> AuditReport:
    report = AuditReport()
    _report_plan(plan, report)
    about_copy = len(report.problems)       # what the plan found; the replay still runs if the log itself is sound
    # the log without a torn end (a leftover, reported above); all of it otherwise
    whole = bool(plan.of(Kind.TORN_END)) or plan.committed == len(plan.log)
    chunks = plan.chunks if whole else None
    if chunks is None:
        try:
            chunks = split_chunks(plan.committed_text() if whole else plan.log.decode("utf-8"))
        except UnicodeDecodeError as exc:
            report.problems.append(f"{LOG_NAME} is not UTF-8 text (byte {exc.start}): it is not a log pbem wrote")
            return report
    report.problems += verify_chain(chunks)
    entries = [c.entry for c in chunks if c.entry is not None]
    if not entries or entries[0].get("kind") != "genesis":
        report.problems.append("entry 0 is not the game header (kind: genesis)")
        return report
    header = entries[0]
    _check_moderator_signatures(entries, report)
    _check_missed_turns(entries, report)
    bindings = _check_moves(gd, entries, report, {f.path for f in plan.findings})
    _check_reveal(entries, header, report)
    _check_receipts(receipt_paths, entries, report)
    report.notes.append(f"{len(entries)} entries: hash chain, the moderator's signatures, and every move's "
                        "signature and binding to the entry before it checked")
    seed = gd.seed(entries)
    if seed is None:
        report.notes.append("NOT checked until the seed is revealed: die rolls, shuffles, hidden values, state "
                            "hashes and the rules' replay (`pbem reveal` publishes the seed when the game ends; "
                            "keep your receipts to prove the log is not cut back meanwhile)")
        return report
    if seed_commitment(seed) != header.get("seed_commitment"):
        report.problems.append("the seed does not match the seed commitment in entry 0")
        return report
    if len(report.problems) == about_copy:
        _replay_and_compare(gd, entries, seed, report, bindings, lagging=bool(plan.of(Kind.DERIVED_LAG)),
                            derived=derived)
    return report


def _check_missed_turns(entries: list[dict[str, Any]], report: AuditReport) -> None:
    """Civil disorder and leave only as the header's public rule allows them, a seat returned from
    civil disorder only while it was in it, and a bot decides
    for a seat only when a bot holds it or it is in civil disorder."""
    rules = rules_of(entries[0])
    for i, entry in enumerate(entries[1:], 1):
        action, player = entry.get("action"), entry.get("player", "")
        if action == "disorder":
            after = rules.disorder_after if rules is not None else 0
            if not after or missed_in_a_row(entries[:i], player) < after:
                report.problems.append(f"entry {entry['index']}: civil disorder for {player} without "
                                       f"{after or 'a rule of'} missed deadlines in a row")
        elif action == "return" and not in_disorder(entries[:i], player):
            report.problems.append(f"entry {entry['index']}: {player}'s seat returned from civil disorder, "
                                   "but it was not in civil disorder")
        elif action == "leave" and (rules is None or not rules.leave_days
                                    or float(entry.get("days", 0)) > rules.leave_days):
            report.problems.append(f"entry {entry['index']}: leave for {player} beyond the game's leave days")
        elif action == "bot-move" and bot_seats(entries[:i]).get(player) != "bot" \
                and not in_disorder(entries[:i], player):
            report.problems.append(f"entry {entry['index']}: a bot moved for {player}, whose seat no bot holds "
                                   "and who is not in civil disorder")


def _check_receipts(paths: Sequence[Path], entries: list[dict[str, Any]], report: AuditReport) -> None:
    """Every receipt a player kept must be the moderator's, for an entry this log still holds:
    the ones named (``--receipt``), and the ones in the player's own store for this game
    (:mod:`pbem.store.receiptstore`)."""
    files = receipts.receipt_files(list(paths))
    if paths and not files:
        report.problems.append("no receipt found at " + ", ".join(map(str, paths)))
    if files and _receipts_hold(files, entries, report):
        report.notes.append(f"{len(files)} receipt(s) checked: the log still holds every receipted entry")
    try:
        store = receiptstore.default_store(str(entries[0].get("id")))
    except PbemError:
        return
    if not store.is_dir():
        report.notes.append(f"no receipts kept for this game in {store} (`pbem receipt keep` keeps them there)")
        return
    if any(_same_folder(path, store) for path in paths):
        return              # checked above
    kept = receiptstore.stored_files(store)
    if _receipts_hold(kept, entries, report):
        report.notes.append(f"{len(kept)} receipt(s) kept in {store} checked: the log still holds every "
                            "receipted entry")


def _receipts_hold(files: Sequence[Path], entries: list[dict[str, Any]], report: AuditReport) -> bool:
    """Check each receipt; False when one is not the moderator's or its entry is not in the log."""
    before = len(report.problems)
    for path in files:
        try:
            body, sig = receipts.read(path)
            receipt = receipts.verify(body, sig, entries[0].get("moderator", {}).get("key", ""), str(path))
        except PbemError as exc:
            report.problems.append(str(exc))
            continue
        problem = receipts.check_against_log(receipt, entries, str(path))
        if problem:
            report.problems.append(problem)
    return len(report.problems) == before


def _same_folder(a: Path, b: Path) -> bool:
    try:
        return a.is_dir() and a.resolve() == b.resolve()
    except OSError:
        return False


def _check_moderator_signatures(entries: list[dict[str, Any]], report: AuditReport) -> None:
    mod_key = entries[0].get("moderator", {}).get("key", "")
    for entry in entries:
        if entry.get("kind") == "move":
            continue
        body = {k: v for k, v in entry.items() if k not in ("hash", "signature")}
        try:
            sshsig.verify(canonical(body), entry.get("signature", ""), [mod_key], sshsig.MODERATOR_NAMESPACE)
        except sshsig.SignatureError as exc:
            report.problems.append(f"entry {entry.get('index')}: moderator signature: {exc}")


def _check_moves(gd: GameDir, entries: list[dict[str, Any]], report: AuditReport,
                 reported: AbstractSet[str] = frozenset()) -> dict[int, tuple[int, str]]:
    """Check every archived move; return the moves written before the entry just ahead of them
    (entry -> (the entry it was written after, player)): the replay checks those bindings.
    ``reported``: the files the repair plan already reported (relative to the game folder)."""
    header = entries[0]
    referenced = set()
    earlier: dict[int, tuple[int, str]] = {}
    for i, entry in enumerate(entries):
        if entry.get("kind") != "move":
            continue
        n = entry.get("index")
        info = entry.get("move", {})
        path = gd.root / str(info.get("file", ""))
        referenced.add(path.name)
        referenced.add(path.name + ".sig")
        try:
            raw = path.read_bytes()
            sig = (path.parent / (path.name + ".sig")).read_text(encoding="utf-8")
        except OSError:
            report.problems.append(f"entry {n}: archived move {info.get('file')} or its .sig is missing")
            continue
        if sha256_hex(raw) != info.get("sha256"):
            report.problems.append(f"entry {n}: archived move {info.get('file')} was changed (sha256 differs)")
            continue
        if sig != info.get("signature"):
            report.problems.append(f"entry {n}: {info.get('file')}.sig differs from the signature in the log")
        player = str(entry.get("player"))
        try:
            allowed = keys_at(entries, player, i)
            if not allowed:
                raise sshsig.SignatureError(f"{player!r} is not a player of this game")
            sshsig.verify(raw, info.get("signature", ""), allowed, sshsig.MOVE_NAMESPACE)
        except sshsig.SignatureError as exc:
            report.problems.append(f"entry {n}: signature of {player}'s move: {exc}")
            continue
        try:
            move = parse_move(raw)
        except (MoveFileError, YamlError) as exc:
            report.problems.append(f"entry {n}: archived move does not parse: {exc}")
            continue
        if (move.game != header.get("id") or move.player != player
                or named_entry(entries[:i], move.after, move.after_hash) is None):
            report.problems.append(f"entry {n}: the move is not bound to this game and position "
                                   f"(it names {excerpt(move.game)} / {excerpt(move.player)} / after {move.after}, "
                                   "which is not an earlier entry of this log)")
        elif move.after != i - 1:
            earlier[i] = (move.after, str(player))
        logged = list(entry.get("actions", [])) + list(entry.get("dropped", {}).get("actions", []))
        if logged != move.actions:
            report.problems.append(f"entry {n}: the logged actions differ from the signed move file")
        _check_turn(entries, i, report)
    if gd.moves_dir.is_dir():
        for extra in sorted(p.name for p in gd.moves_dir.iterdir() if p.name not in referenced):
            if f"moves/{extra}" in reported:
                continue
            if TEMP_NAME.match(extra):
                report.notes.append(f"moves/{extra} is a temporary file left by an interrupted write "
                                    "(not part of the game)")
            elif ARCHIVE_NAME.match(extra):
                report.problems.append(f"moves/{extra} is an archived move that no entry of the log refers to: "
                                       "the log looks cut back")
            else:
                report.problems.append(f"moves/{extra} is not part of the log")
    return earlier


def _check_turn(entries: list[dict[str, Any]], i: int, report: AuditReport) -> None:
    """A public fact checked without the seed: a move is made by a player whose decision was
    pending after the entry before it (or only sets orders a player may send at any time)."""
    entry, prev = entries[i], entries[i - 1]
    waiting = {d.get("player") for d in prev.get("pending", [])}
    if entry.get("player") in waiting or "pending" not in prev:
        return
    try:
        anytime = set(game_for(entries[0]).anytime_actions)
    except PbemError:
        return
    for action in entry.get("actions", []):
        first = next(iter(action), "") if isinstance(action, dict) else ""
        if first not in anytime and not is_sealed(action):
            report.problems.append(f"entry {entry.get('index')}: {entry.get('player')} moved although the log says "
                                   f"only {', '.join(sorted(map(str, waiting))) or 'nobody'} had a decision to make")
            return


def _derived_differs(rel: str, report: AuditReport, lagging: list[str] | None,
                     why: str = "differs from what the log produces") -> None:
    """A derived file that is not what the log produces: a problem, unless the moderator's snapshot
    says the derived files lag the log (``lagging``, where its name is collected for one note)."""
    if lagging is not None:
        lagging.append(rel)
    else:
        report.problems.append(f"{rel} {why}")


def _check_secrets(table: Any, report: AuditReport, lagging: list[str] | None = None) -> None:
    """On the moderator's copy: every player's encrypted secrets (text and HTML) hold exactly their digest."""
    history = BoardHistory.for_viewers(table, table.players)
    drawings = BoardDrawings()
    before = (len(report.problems), len(lagging or []))
    for player in table.players:
        for suffix, expected in player_plaintexts(table, player, history, drawings).items():
            path = secrets_file(table, player, suffix)
            name = f"secrets/{path.name}"
            try:
                plain = opened_bytes(agecrypt.decrypt(path.read_bytes(), table.gd.moderator_key_path))
            except (OSError, EOFError, zlib.error, agecrypt.AgeError) as exc:
                _derived_differs(name, report, lagging, f"cannot be read with the moderator key: {exc}")
                continue
            if plain != expected:
                _derived_differs(name, report, lagging)
    if (len(report.problems), len(lagging or [])) == before:
        report.notes.append("every player's encrypted secrets decrypt with the moderator key and match the log")


def _check_options(game: Any, state: Any, header: dict[str, Any], report: AuditReport) -> None:
    """The header's ``options`` are the options the replayed game is played with."""
    used = game.position_options(game.to_position(state))
    if used is None:
        return
    said = header_options(game, header)
    differ = sorted(k for k in set(used) | set(said) if used.get(k) != said.get(k))
    if differ:
        report.problems.append("entry 0: the header's options differ from the options the game is played with: "
                               + ", ".join(f"{k}={said.get(k)} in the header, {used.get(k)} in the game"
                                           for k in differ))


def _check_reveal(entries: list[dict[str, Any]], header: dict[str, Any], report: AuditReport) -> None:
    for entry in entries:
        if entry.get("kind") == "reveal":
            try:
                seed = bytes.fromhex(entry.get("seed", ""))
            except ValueError:
                seed = b""
            if seed_commitment(seed) != header.get("seed_commitment"):
                report.problems.append(f"entry {entry.get('index')}: revealed seed does not match the commitment")


def _replay_and_compare(gd: GameDir, entries: list[dict[str, Any]], seed: bytes, report: AuditReport,
                        bindings: dict[int, tuple[int, str]] | None = None, lagging: bool = False,
                        derived: bool = True) -> None:
    """Replay the game with the seed and compare everything logged and every digest.  ``lagging``:
    the derived files were written for the entry before the last (a note where they differ)."""
    header = entries[0]
    bindings = bindings or {}
    wanted = {(after, p) for after, p in bindings.values()} | {(n - 1, p) for n, (_a, p) in bindings.items()}
    views: dict[tuple[int, str], bytes] = {}
    try:
        game = game_for(header)
    except PbemError as exc:     # a game this pbem does not know, or other rules (Rejected)
        report.problems.append(f"cannot replay: {exc}")
        return
    if header.get("start") != "setup":
        full = start_position(gd, entries)
        if full is None:
            report.problems.append("the start position was not revealed; cannot replay")
            return
        if keyed_hash(derive_key(seed, "position"), full) != header["start"].get("position_commitment"):
            report.problems.append("entry 0: the revealed start position does not match its commitment")
            return
    table = None
    try:
        for table, entry, applied in replay(gd, game, entries, seed, board_view_indices(entries)):
            n = entry["index"]
            if n == 0:
                _check_options(game, table.state, header, report)
            if n in bindings:
                after, player = bindings[n]
                if views.get((after, player)) != views.get((n - 1, player)):
                    report.problems.append(f"entry {n}: {player}'s move was written after entry {after}, but "
                                           f"{player}'s view changed before it was taken (a stale move accepted)")
                    return
            for index, player in wanted:
                if index == n:
                    views[(index, player)] = canonical(game.view(table.state, player))
            if acting_player(entry) is not None:
                if applied.dropped:
                    report.problems.append(f"entry {n}: on replay action {len(applied.actions) + 1} is illegal")
                    return
                if [event_record(e) for e in applied.events] != entry.get("events", []):
                    report.problems.append(f"entry {n}: replayed events differ from the logged events")
                    return
            if "state" in entry and state_hash(game, table.state, seed, header["id"], header.get("rules")) \
                    != entry["state"]:
                report.problems.append(f"entry {n}: state hash differs on replay (hidden values or rolls changed)")
                return
            if "pending" in entry:
                pend = [{"player": d.player, "kind": d.kind} for d in game.pending(table.state)]
                if pend != entry["pending"]:
                    report.problems.append(f"entry {n}: pending decisions differ on replay")
                    return
    except Rejected as exc:
        report.problems.append(f"replay stopped: {exc}")
        return
    assert table is not None
    if not derived:
        report.notes.append(f"replayed {len(entries)} entries with the seed: every roll, hidden value, event and "
                            "state hash matches (the digests and secrets files were not compared: --log-only)")
        return
    lag: list[str] | None = [] if lagging else None
    problems = len(report.problems)
    for rel, data in public_outputs(table).items():
        path = gd.root / rel
        if not path.is_file() or path.read_bytes() != data:
            _derived_differs(rel, report, lag)
    public_ok = len(report.problems) == problems and not lag
    if gd.moderator_key_path.is_file():
        _check_secrets(table, report, lag)
    if lag:
        report.notes.append(f"{', '.join(lag)} differ from what the log produces: they lag the log; the next "
                            "moderator command would rewrite them")
    report.notes.append(f"replayed {len(entries)} entries with the seed: every roll, hidden value, event and "
                        "state hash matches" + (", and so does every public digest" if public_ok else ""))
