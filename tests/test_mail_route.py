"""Routing a host's message to its game (pbem/transport/mail/route.py): the move's own game line,
found by a bounded scan of the raw bytes (never a YAML parse), then the thread's hints."""
from __future__ import annotations

from email.message import EmailMessage

from pbem.transport.mail.intake import FoundMove, Intake
from pbem.transport.mail.route import SCAN_BYTES, game_line, hinted_games, named_games, route


def test_the_game_line_is_read_only_at_the_top_level_of_the_first_lines():
    assert game_line(b"# my move\nformat: pbem-move/1\ngame: toy-abc\nplayer: red\n") == "toy-abc"
    assert game_line(b"format: pbem-move/1\r\ngame: 'atlantis-1a2b'   # the id\r\n") == "atlantis-1a2b"
    assert game_line(b'game: "g.1_x-2"\n') == "g.1_x-2"
    assert game_line(b"actions:\n  game: nested\n") == ""                 # indented: not the move's key
    assert game_line(b"game: two words\n") == ""
    assert game_line(b"game: 'unbalanced\n") == ""
    assert game_line(b"game: ../../etc\n") == ""                          # not a game id
    assert game_line(b"#" * SCAN_BYTES + b"\ngame: late\n") == ""          # beyond the scan: not read
    assert game_line(b"x: 1\n" * 100 + b"game: late\n") == ""


def test_a_message_goes_to_the_game_its_move_names_else_to_its_thread():
    intake = Intake([FoundMove("attachment a.yaml", [b"format: pbem-move/1\ngame: beta\n"], "sig"),
                     FoundMove("attachment b.yaml", [b"format: pbem-move/1\ngame: alpha\n"], "sig")])
    assert named_games(intake) == ["beta", "alpha"]
    known = {"alpha", "beta", "gamma"}.__contains__
    assert route(["beta", "alpha"], ["gamma"], known) == ("beta", "the move's game line")
    assert route([], ["nope", "gamma"], known) == ("gamma", "the thread")
    assert route(["elsewhere"], ["gamma"], known) == ("gamma", "the thread")     # answered in its thread
    game, why = route(["elsewhere"], [], known)
    assert game == "" and "names game elsewhere" in why
    game, why = route([], ["nope"], known)
    assert game == "" and "names no game" in why


def test_the_thread_hints_come_from_pbems_own_headers():
    msg = EmailMessage()
    msg["Subject"] = "Re: [sub-game] Toy high card"
    msg["In-Reply-To"] = "<179571421077.13126.6576192518475539515.toy-abc.3.red@club.test>"
    msg["References"] = ("<1.2.3.first.game.0.blue@club.test> <garbage> <4.5.6.nudged.reminder@club.test> "
                         "<179571421077.13126.657.toy-abc.receipt@club.test>")
    msg["X-PBEM-Game"] = "stated"
    hints = hinted_games(msg, lambda n: str(msg.get(n, "") or ""), lambda n: [str(v) for v in msg.get_all(n) or []])
    assert hints[0] == "stated"
    assert "toy-abc" in hints and "first.game" in hints and "sub-game" in hints and "nudged" in hints
    assert "nudged.reminder" not in hints and "toy-abc.receipt" not in hints
    assert hints.index("toy-abc") < hints.index("sub-game")
