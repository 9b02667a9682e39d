"""The missed-turn policy (issue 24): civil disorder after N missed deadlines in a row (a bot
decides for the seat without waiting until the player moves again) and leave days that stop a
player's clock; each a signed log entry in the public header's terms, shown and audited."""
from __future__ import annotations

import time

import pytest
from click.testing import CliRunner
from pipeline_helpers import bot_move, new_game, signed_move

from pbem.cli.group import main
from pbem.pipeline.audit import audit
from pbem.pipeline.deadlines import deadlines, tick, waiting_since
from pbem.base.canonical import sha256_hex
from pbem.core.engine import Rejected
from pbem.store.movefile import SEAT_BACK, parse_move
from pbem.store.missedturns import (
    in_disorder,
    in_disorder_now,
    missed_in_a_row,
    returns_the_seat,
    seat_news_since,
)
from pbem.pipeline.moderator import ModeratorError, moderate, reveal
from pbem.pipeline.submit import SeatReturned, submit
from pbem.store.table import Table

def _three_after_red_missed_one(tmp_path, key_pool, skip=0):
    """A three-player game in which red missed one deadline and the bot drew a card for red (so red
    is asked again): the first seed whose bot draws (the bot's choice follows the seed), after
    ``skip`` such seeds."""
    for n in range(skip, 32):
        gd = new_game(tmp_path / f"g{n}", "toy", key_pool, ["red", "blue", "green"], seed=bytes([n]) * 32,
                      deadlines={"hours": 48, "on_expiry": "bot", "remind_hours": 24, "disorder_after": 1})
        report = tick(gd, now=time.time() + 50 * HOURS, max_entries=1)
        if [(e["action"], e["player"], e["actions"]) for e in report.entries] == [("timeout", "red", [{"draw": True}])]:
            return gd
    raise AssertionError("no seed of 32 lets the bot draw for red")


def _draw(gd, key_pool, player):
    submit(gd, *signed_move(Table.load(gd), player, [{"draw": True}], key_pool[player]))

HOURS = 3600


def _game(tmp_path, key_pool, **rules):
    return new_game(tmp_path / "g", "toy", key_pool, ["red", "blue"],
                    deadlines={"hours": 48, "on_expiry": "bot", "remind_hours": 24, **rules})


def test_civil_disorder_after_missed_deadlines_then_a_bot_decides_without_waiting(tmp_path, key_pool,
                                                                                  toy_registered):
    gd = _three_after_red_missed_one(tmp_path, key_pool)
    assert gd.entries()[0]["deadlines"]["disorder_after"] == 1          # public, in the signed header
    _draw(gd, key_pool, "blue")
    _draw(gd, key_pool, "green")
    pending = [d["player"] for d in gd.entries()[-1]["pending"]]
    assert pending == ["red"]                                           # red again, after one missed deadline
    report = tick(gd, now=time.time() + 1)                              # long before any deadline
    assert [(e["action"], e["player"]) for e in report.entries][:2] == [("disorder", "red"), ("bot-move", "red")]
    disorder = report.entries[0]
    assert disorder["missed"] == 1 and "civil disorder, a bot decides every decision of the seat" in disorder["reason"]
    assert report.entries[1]["reason"].startswith("civil disorder")    # decided at once: no deadline waited for
    assert in_disorder(gd.entries(), "red")
    while (move := bot_move(gd, key_pool)) is not None:                 # the others play on; red's seat by the bot
        submit(gd, *move)
        tick(gd, now=time.time() + 1)
    entries = gd.entries()
    after = [e for e in entries if e["index"] > disorder["index"] and e.get("player") == "red"]
    assert after and all(e.get("action") == "bot-move" for e in after)   # never waiting for red again
    reveal(gd)
    report = audit(gd)
    assert report.ok, report.problems


def test_a_player_in_disorder_comes_back_with_a_move(tmp_path, key_pool, toy_registered):
    gd = _three_after_red_missed_one(tmp_path, key_pool)
    _draw(gd, key_pool, "blue")
    _draw(gd, key_pool, "green")
    moderate(gd, "disorder", "missed one", player="red", missed=1)     # as tick would, by hand
    assert in_disorder(gd.entries(), "red")
    _draw(gd, key_pool, "red")                                          # red's own signed move: back
    assert not in_disorder(gd.entries(), "red") and missed_in_a_row(gd.entries(), "red") == 0


def test_a_players_own_move_starts_the_clock_of_the_decision_it_leaves_them(tmp_path, key_pool, toy_registered):
    gd = _game(tmp_path, key_pool)
    _draw(gd, key_pool, "red")
    submit(gd, *signed_move(Table.load(gd), "blue", [{"stop": True}], key_pool["blue"]))
    [d] = deadlines(gd, gd.entries())
    assert (d.player, d.since) == ("red", 2)
    _draw(gd, key_pool, "red")                                          # red moves and is asked again
    assert [x["player"] for x in gd.entries()[-1]["pending"]] == ["red"]
    [d] = deadlines(gd, gd.entries())
    assert (d.player, d.since) == ("red", 3)                            # from red's own move, not entry 2
    report = tick(gd, now=time.time() + 50 * HOURS, max_entries=1)      # a silent red times out
    assert [(e["action"], e["player"]) for e in report.entries] == [("timeout", "red")]


def test_a_timeout_or_another_players_move_does_not_restart_the_clock():
    """Only the player's own move starts a new clock; a moderator's timeout (or bot move) for them, or
    another player's move while they still wait, leaves it where it was."""
    def entry(index, kind, player, pending, **more):
        return {"index": index, "kind": kind, "player": player, "pending": [{"player": p} for p in pending], **more}
    entries = [entry(0, "setup", None, ["red", "blue"]),
               entry(1, "move", "blue", ["red", "blue"]),                             # blue moves, red waits on
               entry(2, "moderator", "red", ["red"], action="timeout"),              # red's step timed out
               entry(3, "moderator", "red", ["red"], action="bot-move")]
    assert waiting_since(entries, "red") == 0 and waiting_since(entries[:2], "blue") == 1   # blue: its own move
    entries.append(entry(4, "move", "red", ["red"]))                               # red's own move: a new clock
    assert waiting_since(entries, "red") == 4
    entries.append(entry(5, "move", "blue", ["blue"]))                             # red no longer pending
    assert waiting_since(entries, "red") is None


def test_disorder_needs_the_rule_and_the_missed_deadlines(tmp_path, key_pool, toy_registered):
    gd = _game(tmp_path, key_pool, disorder_after=2)
    with pytest.raises(ModeratorError, match="red has missed 0 deadlines in a row, fewer than the 2"):
        moderate(gd, "disorder", "early", player="red", missed=0)
    plain = new_game(tmp_path / "plain", "toy", key_pool, ["red", "blue"])
    with pytest.raises(ModeratorError, match=r"no civil disorder rule \(pbem new --disorder-after N\)"):
        moderate(plain, "disorder", "x", player="red", missed=3)


def test_leave_stops_the_clock_within_the_days_the_game_gives(tmp_path, key_pool, toy_registered):
    gd = _game(tmp_path, key_pool, leave_days=10)
    [before] = deadlines(gd, gd.entries())
    entry = moderate(gd, "leave", "holiday", player="red", days=3)
    assert (entry["action"], entry["player"], entry["days"]) == ("leave", "red", 3)
    [after] = deadlines(gd, gd.entries())
    assert after.player == "red" and abs(after.due - before.due - 3 * 24 * HOURS) < 120   # pushed back 3 days
    assert tick(gd, now=before.due + HOURS).entries == []              # the old deadline passes: on leave
    with pytest.raises(ModeratorError, match="red has 7 of 10 leave days left in these 365 days; 8 asked"):
        moderate(gd, "leave", "more", player="red", days=8)
    moderate(gd, "leave", "the rest", player="red", days=7)
    plain = new_game(tmp_path / "plain", "toy", key_pool, ["red", "blue"],
                     deadlines={"hours": 48, "on_expiry": "bot", "remind_hours": 24})
    with pytest.raises(ModeratorError, match=r"this game gives no leave \(pbem new --leave-days N\)"):
        moderate(plain, "leave", "x", player="red", days=1)
    report = tick(gd, now=after.due + 8 * 24 * HOURS)                   # past every leave: the bot decides
    assert report.entries and report.entries[0]["action"] == "timeout"


def test_the_new_options_are_checked_in_one_line(tmp_path, key_pool):
    pub = key_pool["red"].with_name("red.pub")
    base = ["new", str(tmp_path / "x"), "--game", "space-swarm", "--player", f"red={pub}",
            "--player", f"blue={key_pool['blue'].with_name('blue.pub')}"]
    for extra, message in [
        (["--disorder-after", "2"], "--disorder-after and --leave-days need deadlines: give --deadline-hours too"),
        (["--deadline-hours", "48", "--on-expiry", "wait", "--disorder-after", "2"],
         "--disorder-after needs missed deadlines to be decided (--on-expiry bot or pass), not wait"),
        (["--deadline-hours", "48", "--leave-days", "400"],
         "--disorder-after must not be negative and --leave-days between 0 and 366"),
    ]:
        result = CliRunner().invoke(main, base + extra)
        assert result.exit_code != 0 and result.output == f"pbem: error: {message}\n", result.output
        assert not (tmp_path / "x").exists()


def test_the_audit_finds_a_disorder_or_a_bot_move_the_rule_does_not_allow(tmp_path, key_pool, toy_registered,
                                                                          monkeypatch):
    import pbem.pipeline.moderator as moderator
    gd = _game(tmp_path, key_pool, disorder_after=2)
    monkeypatch.setattr(moderator, "missed_in_a_row", lambda entries, player: 2)   # a moderator who cheats
    moderate(gd, "disorder", "no reason really", player="red", missed=2)
    monkeypatch.undo()
    report = audit(gd)
    assert not report.ok
    assert report.problems == ["entry 1: civil disorder for red without 2 missed deadlines in a row"]


def _red_in_disorder_with_a_move_written_before(gd, key_pool):
    """red, asked again after one missed deadline, writes a move on that digest; before it comes
    in, the tick puts red's seat into civil disorder and the bot decides for red: red's move is
    stale.  Returns the move."""
    _draw(gd, key_pool, "blue")
    _draw(gd, key_pool, "green")
    written = signed_move(Table.load(gd), "red", [{"draw": True}], key_pool["red"])
    report = tick(gd, now=time.time() + 1)
    assert [(e["action"], e["player"]) for e in report.entries][:2] == [("disorder", "red"), ("bot-move", "red")]
    return written


def _red_in_disorder_and_the_bot_drew(tmp_path, key_pool):
    """As :func:`_red_in_disorder_with_a_move_written_before`, in the first game whose bot drew for
    red in disorder too (so red still has a card to draw when the seat comes back)."""
    skip = 0
    while skip < 32:
        gd = _three_after_red_missed_one(tmp_path / f"from{skip}", key_pool, skip)
        written = _red_in_disorder_with_a_move_written_before(gd, key_pool)
        bot = [e for e in gd.entries() if e.get("action") == "bot-move"]
        if bot[0]["actions"] == [{"draw": True}]:
            return gd, written
        skip = int(gd.root.name[1:]) + 1               # the game's seed was bytes([n]) * 32, in folder g{n}
    raise AssertionError("no seed of 32 lets the bot draw for red twice")


def test_a_stale_move_from_a_player_in_disorder_returns_the_seat(tmp_path, key_pool, toy_registered):
    gd, written = _red_in_disorder_and_the_bot_drew(tmp_path, key_pool)
    written_after = parse_move(written[0]).after
    assert "CIVIL DISORDER: red missed too many deadlines" in (gd.public_dir / "digest.txt").read_text()
    with pytest.raises(Rejected) as refused:
        submit(gd, *written, label="red-move.yaml")
    message = str(refused.value)
    back = gd.entries()[-1]
    assert message.startswith(f"red's seat is red's again: civil disorder is over (moderator entry {back['index']}), "
                              "and from now on red's decisions wait for red's moves; read the new digest and move "
                              "from it. This move itself is not taken: stale move: written after entry ")
    assert (back["kind"], back["action"], back["player"]) == ("moderator", "return", "red")
    assert back["reason"] == (f"red sent a move (red-move.yaml), written after entry {written_after}, while a bot "
                              "decided for the seat: the seat is red's again (the move itself was refused: it came "
                              "too late)")
    assert sha256_hex(written[0])[:16] not in str(back)                     # the refused move stays private
    assert not in_disorder(gd.entries(), "red") and missed_in_a_row(gd.entries(), "red") == 0
    assert "CIVIL DISORDER" not in (gd.public_dir / "digest.txt").read_text()
    with pytest.raises(Rejected, match=r"^stale move: written after entry \d+, but since then"):
        submit(gd, *written)                                                 # once back, a stale move is only refused
    assert gd.entries()[-1]["index"] == back["index"]
    while "red" not in [d["player"] for d in gd.entries()[-1]["pending"]]:   # the others play on to red's turn
        move = bot_move(gd, key_pool)
        assert move is not None
        submit(gd, *move)
    assert tick(gd, now=time.time() + 1).entries == []                      # red's decision waits for red now
    [due] = [d for d in deadlines(gd, gd.entries()) if d.player == "red"]
    assert due.since >= back["index"]
    _draw(gd, key_pool, "red")                                              # and red moves
    assert gd.entries()[-1]["kind"] == "move" and gd.entries()[-1]["player"] == "red"
    while (move := bot_move(gd, key_pool)) is not None:
        submit(gd, *move)
    reveal(gd)
    report = audit(gd)
    assert report.ok, report.problems


def test_only_a_move_written_since_the_player_last_showed_up_returns_the_seat():
    """A refused move returns a seat from civil disorder only if it was written since the player's
    own last move or the last return of their seat: the move that returned it once, replayed by
    someone else in a later disorder (a git game's history shows every pushed file), does not."""
    def entry(index, kind, player, **more):
        return {"index": index, "kind": kind, "player": player, **more}
    entries = [{"index": 0, "kind": "setup"}, entry(1, "move", "red"), entry(2, "move", "blue"),
               entry(3, "moderator", "red", action="timeout"), entry(4, "moderator", "red", action="disorder"),
               entry(5, "moderator", "red", action="bot-move")]
    assert returns_the_seat(entries, "red", 1) and returns_the_seat(entries, "red", 5)   # written since red's move
    assert not returns_the_seat(entries, "red", 0)                     # from before red's last move
    assert not returns_the_seat(entries, "blue", 5)                    # blue is not in civil disorder
    entries += [entry(6, "moderator", "red", action="return"),           # the move written after entry 3 returned it
                entry(7, "moderator", "red", action="timeout"), entry(8, "moderator", "red", action="disorder")]
    assert not returns_the_seat(entries, "red", 3)                     # that move again: only refused
    assert returns_the_seat(entries, "red", 6) and returns_the_seat(entries, "red", 8)


def test_the_moderator_returns_a_seat_by_hand_and_only_from_disorder(tmp_path, key_pool, toy_registered):
    gd = _three_after_red_missed_one(tmp_path, key_pool)
    result = CliRunner().invoke(main, ["mod", "return", str(gd.root), "--player", "red", "--reason", "back"])
    assert result.exit_code != 0 and "red is not in civil disorder; nothing to return" in result.output
    _red_in_disorder_with_a_move_written_before(gd, key_pool)
    result = CliRunner().invoke(main, ["mod", "return", str(gd.root), "--player", "red",
                                       "--reason", "red wrote: back from hospital"])
    assert result.exit_code == 0, result.output
    back = gd.entries()[-1]
    assert result.output == f"log entry {back['index']}: return - red wrote: back from hospital\n"
    assert (back["action"], back["player"]) == ("return", "red") and not in_disorder(gd.entries(), "red")
    assert audit(gd).ok


def test_the_audit_finds_a_return_of_a_seat_not_in_disorder(tmp_path, key_pool, toy_registered, monkeypatch):
    import pbem.pipeline.moderator as moderator
    gd = _game(tmp_path, key_pool, disorder_after=2)
    monkeypatch.setattr(moderator, "in_disorder", lambda entries, player: True)   # a moderator who cheats
    moderate(gd, "return", "unearned", player="red")
    monkeypatch.undo()
    report = audit(gd)
    assert report.problems == ["entry 1: red's seat returned from civil disorder, but it was not in civil disorder"]


def test_a_return_ends_the_run_of_missed_deadlines_and_starts_the_clock():
    def entry(index, kind, player, pending, **more):
        return {"index": index, "kind": kind, "player": player, "pending": [{"player": p} for p in pending], **more}
    entries = [{"index": 0, "kind": "setup", "players": [{"name": "red"}, {"name": "blue"}],
                "pending": [{"player": "red"}]},
               entry(1, "moderator", "red", ["red"], action="timeout"),
               entry(2, "moderator", "red", ["red"], action="timeout"),
               entry(3, "moderator", "red", ["red"], action="disorder"),
               entry(4, "moderator", "red", ["red"], action="bot-move")]
    assert missed_in_a_row(entries, "red") == 2 and in_disorder_now(entries) == {"red": 3}
    assert seat_news_since(entries, "red", 2) and not seat_news_since(entries, "red", 3)
    entries.append(entry(5, "moderator", "red", ["red"], action="return"))
    assert missed_in_a_row(entries, "red") == 0 and in_disorder_now(entries) == {}
    assert waiting_since(entries, "red") == 5 and seat_news_since(entries, "red", 4)


def test_pbem_move_tells_a_player_in_disorder_how_to_take_the_seat_back(tmp_path, key_pool, toy_registered):
    gd = _three_after_red_missed_one(tmp_path, key_pool)
    _red_in_disorder_with_a_move_written_before(gd, key_pool)
    assert "red" not in [d["player"] for d in gd.entries()[-1]["pending"]]
    result = CliRunner().invoke(main, ["move", str(gd.root), "--player", "red", "--out", str(tmp_path / "m.yaml")])
    assert result.exit_code != 0
    assert result.output == ("pbem: error: red has no decision to make now: red's seat is in civil disorder and a "
                             "bot decides for it. To take the seat back, run `pbem play back` (or press \"Take my "
                             "seat back\" in pbem play), or send a move you signed, written since your own last "
                             "move (it is refused, but the seat is yours again), or ask the moderator\n")
    from pbem.client.session import step                                # the same in `pbem play`, beside
    stop = step(Table.load(gd), "red", [], True).stop                   # the empty list of choices
    assert stop == ("red has no decision to make now: red's seat is in civil disorder and a bot decides for it. "
                    "To take the seat back, run `pbem play back` (or press \"Take my seat back\" in pbem play), "
                    "or send a move you signed, written since your own last move (it is refused, but the seat is "
                    "yours again), or ask the moderator")
    assert step(Table.load(gd), "blue", [], True).stop == ""             # blue has choices: nothing to add


class _Sent:
    """A stand-in for the mail ledger's SentState: every player mailed entry ``index`` an hour ago."""

    def __init__(self, index: int, at: float) -> None:
        self.index, self.at = index, at

    def last_hash(self, player):
        return f"hash{self.index}"

    def thread(self, player):
        return ("<first@pbem.test>", "<last@pbem.test>")

    def last_index(self, player):
        return self.index

    def last_at(self, player):
        return self.at


def test_the_mail_cadence_sends_the_disorder_and_the_return_whatever_the_cadence():
    """Mailed whatever the cadence: the entry that puts red's seat into civil disorder (red has no
    decision: the bot decided at once), and the one that returns it; a daily red too."""
    from types import SimpleNamespace

    from pbem.transport.mail.compose import Turn
    from pbem.transport.mail.cycle import due

    def entry(index, player=None, pending=("blue",), **more):
        return {"index": index, "kind": "moderator" if more else "move", "player": player, "hash": f"hash{index}",
                "pending": [{"player": p} for p in pending], **more}
    entries = [{"index": 0, "kind": "genesis", "id": "toy-x", "game": "toy", "hash": "hash0",
                "players": [{"name": "red"}, {"name": "blue"}], "pending": [{"player": "red"}]},
               entry(1, "red", action="timeout"), entry(2, "blue", pending=("red",))]
    now = time.time()
    everyone = ["red", "blue"]
    for cadence in ("decision", "entry"):
        cfg = SimpleNamespace(cadence=cadence, summary="")
        later = entries + [entry(3, "red", pending=("red",), action="disorder"), entry(4, "red", action="bot-move")]
        assert "red" in due(cfg, Turn.from_entries(later), _Sent(2, now - 3600), everyone, later, now)
        daily = later + [entry(5, "red", action="cadence", cadence="daily")]
        assert "red" in due(cfg, Turn.from_entries(daily), _Sent(2, now - 3600), everyone, daily, now)
        assert "red" not in due(cfg, Turn.from_entries(daily), _Sent(4, now - 3600), everyone, daily, now)
        back = daily + [entry(6, "red", action="return"), entry(7, "blue", pending=("blue",))]
        assert "red" in due(cfg, Turn.from_entries(back), _Sent(5, now - 3600), everyone, back, now)
    cfg = SimpleNamespace(cadence="decision", summary="")
    quiet = entries + [entry(3, "blue", pending=("blue",))]          # without disorder: no digest for red
    assert due(cfg, Turn.from_entries(quiet), _Sent(2, now - 3600), everyone, quiet, now) == ["blue"]


def test_the_audit_finds_a_forged_return(tmp_path, key_pool, toy_registered):
    """A `return` written into the log by someone without the moderator's key (here: red's seat's
    return turned into blue's) breaks the entry's hash and signature: the audit says so."""
    gd = _three_after_red_missed_one(tmp_path, key_pool)
    _red_in_disorder_with_a_move_written_before(gd, key_pool)
    back = moderate(gd, "return", "red wrote: back", player="red")
    assert audit(gd).ok
    text = gd.log_path.read_text()
    head, _, entry = text.rpartition(f"index: {back['index']}\n")
    assert "player: red\n" in entry
    gd.log_path.write_text(head + f"index: {back['index']}\n" + entry.replace("player: red\n", "player: blue\n"))
    report = audit(gd)
    assert not report.ok and any(f"entry {back['index']}" in p for p in report.problems), report.problems


def test_a_seat_back_move_is_never_taken_even_where_the_player_may_move(tmp_path, key_pool, toy_registered):
    """Bound to the head, on the player's own decision: refused all the same (no game takes it), and
    it returns nothing when the seat is not in civil disorder."""
    gd = new_game(tmp_path / "g", "toy", key_pool, ["red", "blue"])
    length = len(gd.entries())
    with pytest.raises(Rejected, match=r"^this move only asks for red's seat back from civil disorder; it has no "
                                       r"action to take$") as refused:
        submit(gd, *signed_move(Table.load(gd), "red", [dict(SEAT_BACK)], key_pool["red"]))
    assert not isinstance(refused.value, SeatReturned) and len(gd.entries()) == length
    with pytest.raises(Rejected, match="only asks for red's seat back"):      # not beside other actions either
        submit(gd, *signed_move(Table.load(gd), "red", [{"draw": True}, dict(SEAT_BACK)], key_pool["red"]))
    assert len(gd.entries()) == length


def test_pbem_check_says_what_becomes_of_a_move_asking_for_the_seat_back(tmp_path, key_pool, toy_registered):
    gd, _written = _red_in_disorder_and_the_bot_drew(tmp_path, key_pool)
    move = tmp_path / "back.yaml"
    raw, sig = signed_move(Table.load(gd), "red", [dict(SEAT_BACK)], key_pool["red"])
    move.write_bytes(raw)
    move.with_name("back.yaml.sig").write_text(sig)
    checked = CliRunner().invoke(main, ["check", str(gd.root), str(move)])
    assert checked.exit_code == 0, checked.output
    assert checked.output.splitlines()[-1] == ("{seat: back}: it asks only for red's seat back from civil disorder; "
                                               "the moderator refuses the move and gives the seat back")
    with pytest.raises(SeatReturned):
        submit(gd, raw, sig)
    again = CliRunner().invoke(main, ["check", str(gd.root), str(move)])       # once back: only refused
    assert again.exit_code != 0 and "the moderator would only refuse it" in again.output, again.output
