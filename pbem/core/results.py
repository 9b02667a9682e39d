"""The end of a game as people read it: the score table, the tie-break, the winner.

Games give their own end-of-game sections through ``Game.result_sections``; this
module has the default (one row per player) and the lines the digests and the
replay print under "Result".
"""
from __future__ import annotations

from pbem.base.plain import plain
from pbem.core.picture import Section
from pbem.core.records import Result

__all__ = ["score_table", "winner_line", "result_lines"]


def winner_line(result: Result) -> str:
    """``Winner: red.`` or ``Tie: red and blue share the win.``"""
    winners = list(result.winners)
    if len(winners) == 1:
        return f"Winner: {winners[0]}."
    if not winners:
        return "No winner."
    return f"Tie: {', '.join(winners[:-1])} and {winners[-1]} share the win."


def score_table(result: Result) -> Section:
    """One row per player: score and whether they won; the game's details (plain text) as the note."""
    rows = [[p, str(s), "winner" if p in result.winners else ""] for p, s in result.scores.items()]
    details = "; ".join(f"{k}: {plain(v)}" for k, v in result.detail.items())
    note = winner_line(result) + (f" ({details})" if details else "")
    return Section("Final scores", "table", ["player", "score", ""], rows, note=note)


def result_lines(result: Result) -> list[str]:
    """The short form under "Result": ``red 22, blue 12, green 12`` and the winner line."""
    return ["Scores: " + ", ".join(f"{p} {s}" for p, s in result.scores.items()) + ".", winner_line(result)]
