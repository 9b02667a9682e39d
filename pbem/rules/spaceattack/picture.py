"""The Space Attack board picture and digest sections, drawn from a view (never the state).

Kept apart from the rules so that a richer picture API (pieces with shapes and colours) can
replace it without touching them.  Today's picture (:class:`pbem.game.BoardPicture`): each
space filled by what it is (open space, the four station kinds, a Jump Point), marks for the
pieces on it, coloured by crew colour and creature kind:

* ``Q1`` ``S2`` ``W3``: a Queen, Spawn or Warrior;
* ``P3:r1,b2``: escape pod P3 carrying r1 and b2; ``X1:g4``: fighter X1 piloted by g4;
* ``r7``: a crew token on a station tile, drifting in open space, or saved on a Jump Point;
* a Reactor tile carries its laser turret (``R`` on the text map); the open spaces next to a Jump
  Point are its stargates (``+``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pbem.game import BoardPicture, HexCell, Section
from pbem.rules.survive.state import HAND, ISLE, LAND, LOST, SEA, at, sort_handles

if TYPE_CHECKING:
    from pbem.rules.spaceattack.words import Words as SpaceAttackRules

OPEN, STARGATE, JUMP_POINT = "open space", "stargate", "jump point"
KIND_COLOURS = {OPEN: "#c9d1de", STARGATE: "#f3eec2", "cargo bay": "#e9dcb5", "habitat": "#bfe3c9",
                "bridge": "#d9c8f2", "reactor": "#f2b0a6", JUMP_POINT: "#ffe27a"}
KIND_SYMBOLS = {OPEN: ".", STARGATE: "+", "cargo bay": "c", "habitat": "h", "bridge": "b", "reactor": "R",
                JUMP_POINT: "J"}
CREW_COLOURS = {"red": "#c62828", "blue": "#1565c0", "green": "#2e7d32", "yellow": "#9a7400",
                "orange": "#d84315", "white": "#6d6d6d"}
CREATURE_COLOURS = {"queen": "#6a1b9a", "spawn": "#00796b", "warrior": "#8e1b1b"}


def kind_words(kind: str) -> str:
    """A station kind as the rule book writes it: ``cargo_bay`` -> ``cargo bay``."""
    return kind.replace("_", " ")


def picture(rules: SpaceAttackRules, view: Mapping[str, Any]) -> BoardPicture:
    state = rules.read_position(view)
    marks: dict[int, list[tuple[str, str]]] = {}
    for h in sort_handles(state.creatures):
        c = state.creatures[h]
        if c.where == SEA:
            marks.setdefault(at(c.cell), []).append((h, CREATURE_COLOURS.get(c.kind, "")))
    for h in sort_handles(state.boats):
        b = state.boats[h]
        if b.where == SEA:
            crew = sort_handles(b.passengers)
            marks.setdefault(at(b.cell), []).append((h + (":" + ",".join(crew) if crew else ""), ""))
    for h in sort_handles(state.explorers):
        e = state.explorers[h]
        if e.where in (LAND, SEA, ISLE):
            marks.setdefault(at(e.cell), []).append((h, CREW_COLOURS.get(e.colour, "")))
    cells = []
    for cell, label in enumerate(rules.board.labels):
        if rules.board.is_isle(cell):
            kind = JUMP_POINT
        elif cell in state.tile_at:
            kind = kind_words(state.tiles[state.tile_at[cell]].terrain)
        elif rules.board.isles_next_to[cell]:
            kind = STARGATE          # "the two Stargate spaces adjacent to each Jump Point"
        else:
            kind = OPEN
        q, r = rules.board.axial[cell]
        here = marks.get(cell, [])
        cells.append(HexCell(q=q, r=r, label=label, kind=kind, marks=[m for m, _ in here],
                             mark_colours=[c for _, c in here]))
    return BoardPicture(cells=cells, legend=legend(rules, view), colours=dict(KIND_COLOURS),
                        symbols=dict(KIND_SYMBOLS))


def legend(rules: SpaceAttackRules, view: Mapping[str, Any]) -> dict[str, str]:
    out = {}
    for kind, spec in rules.comp["creatures"].items():
        out[f"{spec['prefix']}1..{spec['prefix']}{spec['count']}"] = kind.capitalize()
    pods, fighters = rules.comp["boats"], rules.comp["fighters"]
    out[f"{pods['prefix']}1..{pods['prefix']}{pods['count']}"] = "escape pod; P3:r7,b2 = pod P3 carrying r7 and b2"
    out[f"{fighters['prefix']}1..{fighters['prefix']}{fighters['count']}"] = "fighter; X1:g4 = fighter X1 piloted by g4"
    in_play = {c for p in view["players"] for c in p["colours"]}
    for colour, prefix in rules.colour_prefixes(len(view["players"])).items():
        if colour in in_play:
            n = sum(1 for e in view["explorers"].values() if e["colour"] == colour)
            out[f"{prefix}1..{prefix}{n}"] = f"{colour} crew: on a station tile, drifting in open space, or saved"
    out["reactor"] = "a Reactor tile with its laser turret"
    return out


# --- sections -------------------------------------------------------------------------------
def crew_section(rules: SpaceAttackRules, view: Mapping[str, Any]) -> Section:
    rows, colours = [], []
    places = (("station", (LAND,)), ("aboard", ("boat",)), ("drifting", (SEA,)), ("saved", (ISLE,)), ("lost", (LOST,)))
    for p in view["players"]:
        for colour in p["colours"]:
            crew = [e for e in view["explorers"].values() if e["colour"] == colour]
            rows.append([f"{colour} ({p['name']})"] + [str(sum(1 for e in crew if e["where"] in w)) for _, w in places])
            colours.append(CREW_COLOURS.get(colour, ""))
    note = "Jump Points: " + ", ".join(
        f"{name} {rules.label(cell)} (stargates {', '.join(rules.label(s) for s in rules.board.neighbours[cell])})"
        for cell, name in sorted(rules.sa.jump_points.items()))
    return Section("Crew", "table", ["colour", *[name for name, _ in places]], rows, colours=colours, note=note)


def captured_section(view: Mapping[str, Any]) -> Section:
    captured = view.get("captured") or {}
    rows = []
    for p in view["players"]:
        held = captured.get(p["name"]) or []
        kinds = [f"{h} ({view['creatures'][h]['kind']})" for h in held]
        rows.append([p["name"], ", ".join(kinds) or "-"])
    return Section("Captured creatures (in front of each player, played back in step 1)", "table",
                   ["player", "creatures"], rows)


def hands_section(view: Mapping[str, Any]) -> Section:
    rows = []
    for p in view["players"]:
        held = [h for h, t in view["tiles"].items() if t["where"] == HAND and t["holder"] == p["name"]]
        rows.append([p["name"], str(len(held)), ", ".join(held) or "-"])
    return Section("Station tiles in hand (face down)", "table", ["player", "tiles", "handles"], rows)


def own_hand_section(rules: SpaceAttackRules, view: Mapping[str, Any], viewer: str) -> Section | None:
    rows = []
    for h, t in view["tiles"].items():
        if t["where"] == HAND and t["holder"] == viewer:
            back = t["back"]
            if back is None:
                return None
            spec = rules.tile_backs[back]
            rows.append([h, f"{back} ({spec['colour']}, {when(spec['colour'])}): {spec['text']}"])
    if not rows:
        return None
    return Section("Your tiles", "cards", rows=rows, note="Only you see this.")


def when(colour: str) -> str:
    return {"green": "at once", "red": "in your step 2, from your next turn on", "blue": "after your roll",
            "yellow": "in another player's turn"}.get(colour, "")


def sections(rules: SpaceAttackRules, view: Mapping[str, Any]) -> list[Section]:
    out = [crew_section(rules, view), captured_section(view), hands_section(view)]
    own = [p["name"] for p in view["players"] if p.get("standing") is not None]
    if len(own) == 1:
        mine = own_hand_section(rules, view, own[0])
        if mine is not None:
            out.append(mine)
    return out
