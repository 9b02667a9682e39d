"""The conformance files (conformance/GAME.yaml) read and run: every case a numbered rule sentence,
a position, the actions and the outcome the engine must give (conformance/README.md)."""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.base.yamlio import POSITION_LIMITS, load_strict
from pbem.core.draws import Draws
from pbem.core.engine import Rejected, apply_actions
from pbem.core.game import Game, pending_players
from pbem.core.registry import load_game
from pbem.core.rng import Rng

FOLDER = Path(__file__).resolve().parents[2] / "conformance"
FORMAT = "pbem-conformance/1"
CASE_KEYS = {"case", "section", "rule", "also", "ambiguity", "players", "options", "start", "position", "set",
             "steps", "after", "note"}
STEP_KEYS = {"player", "play", "refused", "seed"}
AFTER_KEYS = {"position", "pending", "events", "no_events", "legal", "not_legal", "result"}


class CaseError(AssertionError):
    """A case that does not hold: names its number and its sentence."""


@dataclass
class Case:
    game: str
    number: int
    section: str
    rule: str
    data: dict[str, Any]
    also: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.game}-{self.number}"

    def fail(self, what: str) -> CaseError:
        return CaseError(f"{self.game} case {self.number} ({self.section}: \"{self.rule}\"): {what}")


@dataclass
class ConformanceFile:
    path: Path
    game: str
    rules: list[str]
    cases: list[Case]
    ambiguities: list[dict[str, Any]]
    not_applicable: list[dict[str, Any]]


def load(path: Path) -> ConformanceFile:
    data = load_strict(path.read_bytes(), str(path), POSITION_LIMITS)
    assert data.get("format") == FORMAT, f"{path}: format must be {FORMAT}"
    game = data["game"]
    cases = []
    for raw in data.get("cases", []):
        unknown = set(raw) - CASE_KEYS
        assert not unknown, f"{path}: case {raw.get('case')}: unknown keys {sorted(unknown)}"
        cases.append(Case(game, int(raw["case"]), str(raw["section"]), str(raw["rule"]), raw,
                          [str(a) for a in raw.get("also", [])]))
    numbers = [c.number for c in cases]
    assert len(numbers) == len(set(numbers)), f"{path}: a case number is used twice"
    return ConformanceFile(path, game, list(data.get("rules", [])), cases, list(data.get("ambiguities", [])),
                           list(data.get("not_applicable", [])))


def all_files() -> list[ConformanceFile]:
    return [load(p) for p in sorted(FOLDER.glob("*.yaml"))]


def _set_path(position: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    target: Any = position
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target.setdefault(part, {})
    last = parts[-1]
    if isinstance(target, list):
        target[int(last)] = value
    elif value == "<delete>":
        target.pop(last, None)
    else:
        target[last] = value


def get_path(position: Any, dotted: str) -> Any:
    target = position
    for part in dotted.split("."):
        target = target[int(part)] if isinstance(target, list) else target[part]
    return target


def start_state(game: Game[Any], case: Case) -> Any:
    """The case's position: a full position given, or a new game's set-up from a seed; then the
    ``set:`` changes; checked by the game as `pbem new --position` checks it."""
    data = case.data
    players = list(data.get("players", ["red", "blue"]))
    options = {s.name: s.default for s in game.option_specs()}
    options.update({k: str(v) for k, v in (data.get("options") or {}).items()})
    if "position" in data:
        position = copy.deepcopy(data["position"])
    else:
        seed = str(data.get("start", {}).get("seed", "conformance"))
        position = game.to_position(game.setup(players, options, Rng(seed.encode(), "setup")))
    for dotted, value in (data.get("set") or {}).items():
        _set_path(position, dotted, value)
    try:
        game.check_position(position)
    except Exception as exc:      # a case whose position is wrong is a broken case, said as such
        raise case.fail(f"its position is refused: {exc}") from None
    return game.from_position(position)


def run(case: Case) -> None:
    game = load_game(case.game)
    state = start_state(game, case)
    events: list[str] = []
    for n, step in enumerate(case.data.get("steps", []), 1):
        unknown = set(step) - STEP_KEYS
        if unknown:
            raise case.fail(f"step {n}: unknown keys {sorted(unknown)}")
        player = step.get("player") or (pending_players(game, state) or [""])[0]
        draws = Draws(str(step.get("seed", f"case-{case.number}")).encode(), f"step/{n}")
        before = copy.deepcopy(game.to_position(state))
        try:
            applied = apply_actions(game, state, player, step["play"], draws)
        except Rejected as exc:
            if "refused" not in step:
                raise case.fail(f"step {n}: the engine refused {step['play']}: {exc}") from None
            if not re.search(str(step["refused"]), str(exc)):
                raise case.fail(f"step {n}: refused, but for another reason: {exc}") from None
            state = game.from_position(before)       # a refused move changes nothing
            continue
        if "refused" in step:
            raise case.fail(f"step {n}: the engine accepted {step['play']}, which the rule forbids")
        if applied.dropped:
            raise case.fail(f"step {n}: the engine dropped {applied.dropped}: {applied.dropped_reason}")
        events += [game.describe_event(e.public) for e in applied.events]
    check_after(game, state, events, case)


def check_after(game: Game[Any], state: Any, events: list[str], case: Case) -> None:
    after = case.data.get("after") or {}
    unknown = set(after) - AFTER_KEYS
    if unknown:
        raise case.fail(f"after: unknown keys {sorted(unknown)}")
    position = game.to_position(state)
    for dotted, want in (after.get("position") or {}).items():
        try:
            got = get_path(position, dotted)
        except (KeyError, IndexError, ValueError, TypeError):
            got = "<absent>"
        if got != want:
            raise case.fail(f"after: {dotted} is {got!r}, the rule says {want!r}")
    if "pending" in after:
        got_pending = [f"{d.player} {d.kind}" for d in game.pending(state)]
        if got_pending != list(after["pending"]):
            raise case.fail(f"after: waiting for {got_pending}, the rule says {after['pending']}")
    for pattern in after.get("events", []):
        if not any(re.search(pattern, line) for line in events):
            raise case.fail(f"after: no event matches {pattern!r}; events: {events}")
    for pattern in after.get("no_events", []):
        if any(re.search(pattern, line) for line in events):
            raise case.fail(f"after: an event matches {pattern!r}, which the rule forbids; events: {events}")
    for spec in after.get("legal", []):
        player, action = spec["player"], spec["action"]
        if action not in game.legal_actions(state, player):
            raise case.fail(f"after: {action} is not among {player}'s legal actions")
    for spec in after.get("not_legal", []):
        player, action = spec["player"], spec["action"]
        if action in game.legal_actions(state, player):
            raise case.fail(f"after: {action} is among {player}'s legal actions, which the rule forbids")
    if "result" in after:
        result = game.result(state)
        want = after["result"]
        got = None if result is None else {"scores": result.scores, "winners": sorted(result.winners)}
        if want is None:
            if got is not None:
                raise case.fail(f"after: the game is over ({got}); the rule says it goes on")
        elif got is None or any(got[k] != v for k, v in want.items()):
            raise case.fail(f"after: the result is {got}, the rule says {want}")
