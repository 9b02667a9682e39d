"""`pbem tick` from cron: quiet when nothing happened, and a closed game is nothing to do (exit 0),
said only with --verbose; the line in the README (`pbem mail run game1 && pbem tick game1 --mail`)
keeps working to the end of a game."""
from __future__ import annotations

from click.testing import CliRunner
from pipeline_helpers import bot_move, new_game

from pbem.cli.group import main
from pbem.pipeline.moderator import reveal
from pbem.pipeline.submit import submit


def _tick(gd, *args):
    result = CliRunner().invoke(main, ["tick", str(gd.root), *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_tick_is_quiet_when_nothing_happens_and_a_closed_game_is_nothing_to_do(tmp_path, key_pool, toy_registered):
    gd = new_game(tmp_path / "g", "toy", key_pool, ["red", "blue"],
                  deadlines={"hours": 48, "on_expiry": "bot", "remind_hours": 24})
    assert _tick(gd) == ""
    assert _tick(gd, "--verbose") == "nothing to do\n"
    while (move := bot_move(gd, key_pool)) is not None:
        submit(gd, *move)
    assert _tick(gd) == ""                                        # finished, not revealed: nothing to do
    assert _tick(gd, "--verbose") == (f"nothing to do: the game is over; `pbem reveal {gd.root}` publishes the "
                                      "seed so that anyone can audit it\n")
    entry = reveal(gd)
    before = gd.log_path.read_bytes()
    assert _tick(gd) == ""                                        # closed: exit 0, quiet
    assert _tick(gd, "--verbose") == (f"nothing to do: the game is closed (the seed was revealed at log entry "
                                      f"{entry['index']}); you may remove it from cron\n")
    assert gd.log_path.read_bytes() == before
