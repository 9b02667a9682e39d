"""The end-of-game page of Atlantis, from the final view and the result (never the state).

"At the end of the game, flip over all of the Explorer tokens you have managed to get to
safe isles and add up the number of points printed on them. It's the player with the
highest total (and not necessarily the most Explorers saved) who wins."  So the table
shows every saved explorer with its value, then the total, and under it the tie-break
applied (5-6 players) or that tied players share the win.
"""
from __future__ import annotations

from typing import Any, Mapping

from pbem.base.plain import plain
from pbem.core.palette import fill_of
from pbem.core.results import winner_line
from pbem.game import Result, Section
from pbem.rules.atlantis.picture import handle_key

__all__ = ["result_sections"]

TIE_BREAK_NAMES = {"rescued": "explorers rescued (more is better)", "points": "printed points (more is better)",
                   "turns": "turns taken (fewer is better)"}


def _places(scores: Mapping[str, int], winners: list[str]) -> dict[str, int]:
    """1 for the winners; the others after them by score (equal scores share a place)."""
    rank: dict[str, int] = {}
    for p, s in scores.items():
        better = sum(1 for q, t in scores.items() if q not in winners and t > s)
        rank[p] = 1 if p in winners else 1 + len(winners) + better
    return rank


def result_sections(view: Mapping[str, Any], result: Result) -> list[Section]:
    values = dict(result.detail.get("values") or {})
    rows, colours = [], []
    places = _places(result.scores, list(result.winners))
    for p in view["players"]:
        name = p["name"]
        mine = [(h, e) for h, e in view["explorers"].items() if e["colour"] in p["colours"]]
        saved = sorted((h for h, e in mine if e["where"] == "isle"), key=handle_key)
        lost = sum(1 for _h, e in mine if e["where"] == "lost")
        shown = ", ".join(f"{h} ({values.get(h, view['explorers'][h].get('value', '?'))})" for h in saved) or "-"
        rows.append([name, "/".join(p["colours"]), shown, str(len(saved)), str(lost),
                     str(result.scores.get(name, 0)), str(places.get(name, ""))])
        colours.append(fill_of(p["colours"][0]) if p["colours"] else "")
    top = max(result.scores.values(), default=0)
    tied = [p for p, s in result.scores.items() if s == top]
    tie = result.detail.get("tiebreak")
    if tie:
        steps = "; then ".join(f"{TIE_BREAK_NAMES.get(k, k)}: {plain(v)}" for k, v in tie.items())
        note = f"Tied on {top} points: {', '.join(tied)}. Tie-break: {steps}. {winner_line(result)}"
    elif len(tied) > 1:
        note = f"Tied on {top} points: {', '.join(tied)}; the rules break no tie here. {winner_line(result)}"
    else:
        note = winner_line(result)
    return [Section("Final scores", "table", ["player", "colour", "saved explorers (value)", "saved", "lost",
                                              "points", "place"], rows, colours=colours, note=note)]
