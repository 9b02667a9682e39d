"""What a golden game records, shared by make_golden.py (which records) and the test (which replays).

A golden game is played in memory through the :class:`pbem.game.Game` interface only,
so it pins rule behaviour independently of the log format and of the engine's
randomness labels: every ``setup``/``apply`` call draws from
``Rng(seed, f"golden/{game_no}/{step}")`` (step 0 is the set-up).

For every step it records the player, the action, every event as
``[public, private, chance, auto]`` and the pending decisions after it; at sampled
steps (and after set-up and at the end) it also records the full position, the
public view, each player's view, secrets and legal actions (sorted by canonical
JSON), and the result.  Everything is compared as JSON (tuples are lists,
mapping keys are strings).
"""
from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from pbem.core.registry import load_game
from pbem.core.rng import Rng
from pbem.game import Event, Game

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
FORMAT = "pbem-golden/1"
SAMPLE_EVERY = 13            # a full snapshot every this many steps (odd: the stride visits every step kind) ...
DENSE_STEPS = 400            # ... in a game's first steps (every game ends around 160-320 steps with sensible play),
SPARSE_EVERY = 101           # and every this many after (long games of random bots, which rarely save anyone)


@dataclass(frozen=True)
class Config:
    """One golden game: which game, who plays, the options, which bot chose the actions."""

    game_no: int
    game: str
    players: tuple[str, ...]
    options: Mapping[str, str]
    bot: str
    #: actions sent before the bots start, as (player, action): standing orders, sent at any time
    opening: tuple[tuple[str, Mapping[str, Any]], ...] = ()

    @property
    def seed(self) -> bytes:
        return f"pbem-golden-game-{self.game_no}".encode()

    @property
    def file(self) -> Path:
        return DATA / f"game{self.game_no:02d}.json.gz"

    def describe(self) -> str:
        opts = ", ".join(f"{k}={v}" for k, v in self.options.items()) or "defaults"
        return f"golden game {self.game_no} ({self.game}, {len(self.players)} players, {opts}, {self.bot} bot)"


P = ("red", "blue", "green", "yellow", "purple", "orange")

#: every Atlantis option value and expansion, every 1986 and Space Attack option value, 2-6 players, both bots
#: (colours=auto, the default when games 0, 9, 14 and 24 were recorded, is given: the files hold it)
CONFIGS: tuple[Config, ...] = (
    Config(0, "atlantis", P[:2], {"colours": "auto"}, "greedy"),
    Config(1, "atlantis", P[:3], {"memory": "open"}, "random"),
    Config(2, "atlantis", P[:4], {"defense": "ask", "lagoon": "land"}, "greedy"),
    Config(3, "atlantis", ("alice", "bob"), {"colours": "1", "defense": "never"}, "random"),
    Config(4, "atlantis", P[:2], {"colours": "2", "boats": "per-colour", "layout": "fixup"}, "greedy"),
    Config(5, "atlantis", P[:4], {"boats": "per-colour", "layout": "fixup", "memory": "open"}, "random",
           opening=(("blue", {"standing": {"shark_defense": "ask"}}),)),
    Config(6, "atlantis", P[:3], {"overpopulated": "yes"}, "greedy"),                      # challenge #1
    Config(7, "atlantis", P[:4], {"end": "to-the-last"}, "random"),                        # challenge #2
    Config(8, "atlantis", P[:3], {"scoring": "all-equal"}, "greedy"),                      # challenge #3
    Config(9, "atlantis", P[:2], {"colours": "auto", "end": "submerged"}, "greedy"),    # challenge #4
    Config(10, "atlantis", P[:5], {}, "greedy"),                                           # 5-6 players
    Config(11, "atlantis", P[:6], {"overpopulated": "yes"}, "random"),                     # challenge #5
    Config(12, "atlantis", P[:3], {"dolphins": "yes"}, "greedy"),                          # challenge #6
    Config(13, "atlantis", P[:4], {"squid": "yes"}, "random"),
    Config(14, "atlantis", P[:2], {"colours": "auto", "squid": "replace-whales", "squid_take": "no"},
           "greedy"),  # variants 1, 2
    Config(15, "atlantis", P[:3], {"squid": "yes", "squid_take": "no", "dolphins": "yes", "defense": "ask"},
           "greedy", opening=(("green", {"standing": {"whale_defense": "never", "shark_defense": "auto"}}),)),
    Config(16, "atlantis", P[:5], {"ties": "broken", "end": "to-the-last", "dolphins": "yes"}, "random"),
    Config(17, "atlantis", P[:6], {"ties": "shared", "squid": "replace-whales", "scoring": "all-equal",
                                   "memory": "open"}, "greedy"),
    Config(18, "atlantis", P[:4], {"ties": "broken", "end": "submerged", "overpopulated": "yes",
                                   "lagoon": "land", "defense": "never"}, "greedy"),
    Config(19, "atlantis", P[:5], {"squid": "yes", "dolphins": "yes", "scoring": "all-equal", "ties": "shared"},
           "random"),
    Config(20, "atlantis-1986", P[:2], {}, "greedy"),
    Config(21, "atlantis-1986", P[:3], {"spinner": "dice", "creature_move": "optional", "empty_boats": "safe"},
           "random"),
    Config(22, "atlantis-1986", P[:4], {"whirlpool": "sea", "setup_limit": "three", "start_boats": "placed"},
           "greedy"),
    Config(23, "atlantis-1986", P[:2], {"spinner": "dice", "start_boats": "placed", "whirlpool": "sea",
                                        "creature_move": "optional"}, "greedy"),
    # Survive: Space Attack!: every option value, 2-6 players, both bots
    Config(24, "space-attack", P[:2], {"colours": "auto"}, "greedy"),
    Config(25, "space-attack", P[:3], {"map": "starship-titanus", "reactions": "ask", "memory": "open"}, "random"),
    Config(26, "space-attack", P[:4], {"map": "jacobs-ladder", "reactors": "random", "blue_tiles": "any"}, "greedy",
           opening=(("blue", {"standing": {"steal": "ask", "spawn_defense": "ask"}}),)),
    Config(27, "space-attack", ("alice", "bob"), {"colours": "1", "map": "asteroids", "reactors": "recommended",
                                                  "enclosed": "station"}, "random"),
    Config(28, "space-attack", P[:2], {"colours": "2", "pods": "per-colour", "evolve_attack": "fighters-only",
                                       "overpopulated": "yes"}, "greedy"),
    Config(29, "space-attack", P[:5], {"end": "to-the-last", "reactions": "never"}, "greedy"),
    Config(30, "space-attack", P[:6], {"overpopulated": "yes", "map": "starship-titanus"}, "random"),
    Config(31, "space-attack", P[:3], {"end": "to-the-last", "evolve_attack": "fighters-only", "blue_tiles": "any",
                                       "enclosed": "station", "memory": "open"}, "greedy",
           opening=(("green", {"standing": {"queen_defense": "ask", "warrior_defense": "never"}}),)),
)


# --- what is recorded --------------------------------------------------------------------
def plain(value: Any) -> Any:
    """``value`` as JSON data (tuples become lists, keys strings), the form golden files hold."""
    return json.loads(json.dumps(value, sort_keys=True))


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def step_rng(config: Config, step: int) -> Rng:
    return Rng(config.seed, f"golden/{config.game_no}/{step}")


def events_record(events: Sequence[Event]) -> list:
    return [[e.public, e.private, e.chance, e.auto] for e in events]


def pending_record(game: Game, state: Any) -> list:
    return [[d.player, d.kind, d.prompt] for d in game.pending(state)]


def result_record(game: Game, state: Any) -> dict[str, Any] | None:
    result = game.result(state)
    return None if result is None else {"scores": result.scores, "winners": result.winners, "detail": result.detail}


def snapshot(game: Game, state: Any, players: Sequence[str]) -> dict[str, Any]:
    """Everything the Game interface says about a state, for every viewer (legal actions as
    sorted canonical JSON).  Golden files hold it as one canonical JSON string."""
    return {
        "position": game.to_position(state),
        "public": game.view(state, None),
        "views": {p: game.view(state, p) for p in players},
        "secrets": {p: game.secrets(state, p) for p in players},
        "legal": {p: sorted(canonical(a) for a in game.legal_actions(state, p)) for p in players},
        "result": result_record(game, state),
    }


def sampled(step: int, kinds: set[str], seen: set[str]) -> bool:
    """Snapshot every SAMPLE_EVERY steps (SPARSE_EVERY after DENSE_STEPS) and the first time each
    decision or event kind comes up.

    Only the recorder decides; the replay checks whichever steps carry a snapshot."""
    new = bool(kinds - seen)
    seen.update(kinds)
    return new or step % (SAMPLE_EVERY if step <= DENSE_STEPS else SPARSE_EVERY) == 0


# --- files -----------------------------------------------------------------------------------
def write(config: Config, record: Mapping[str, Any]) -> None:
    DATA.mkdir(exist_ok=True)
    text = json.dumps(record, sort_keys=True, separators=(",", ":"))
    config.file.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))


def read(config: Config) -> dict[str, Any]:
    return json.loads(gzip.decompress(config.file.read_bytes()))


#: game number -> its options and each step's player and action, as JSON: read from the file once
#: per process (several test files replay every golden game; the whole record is mostly snapshots)
_MOVES: dict[int, str] = {}


def recorded_moves(config: Config) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The recorded options and each step's ``player`` and ``action`` (new objects at every call)."""
    kept = _MOVES.get(config.game_no)
    if kept is None:
        record = read(config)
        moves = [{"player": step["player"], "action": step["action"]} for step in record["steps"]]
        kept = _MOVES[config.game_no] = json.dumps([record["options"], moves])
    options, moves = json.loads(kept)
    return options, moves


def replay(config: Config) -> Iterator[tuple[Game, Any, int, dict[str, Any]]]:
    """A golden game played again step by step: yields the game, the state before each step,
    the step's number and the step (its ``player`` and ``action``), then applies the step."""
    options, steps = recorded_moves(config)
    game = load_game(config.game)
    state = game.setup(list(config.players), options, step_rng(config, 0))
    for number, step in enumerate(steps, start=1):
        yield game, state, number, step
        game.apply(state, step["player"], step["action"], step_rng(config, number))


# --- comparing -------------------------------------------------------------------------------
def difference(expected: Any, actual: Any) -> str | None:
    """None when ``actual`` is ``expected`` as canonical JSON (``expected`` may be that JSON
    string already), else where they first differ."""
    expected_text = expected if isinstance(expected, str) else canonical(expected)
    if canonical(actual) == expected_text:
        return None
    return first_difference(json.loads(expected_text), plain(actual)) or "(canonical JSON differs)"


def first_difference(expected: Any, actual: Any, path: str = "") -> str | None:
    """Where two JSON values first differ, e.g. ``.views.red.turn.step: got "remove", expected "move"``."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            if key not in actual:
                return f"{path}.{key}: missing (expected {short(expected[key])})"
            if key not in expected:
                return f"{path}.{key}: unexpected {short(actual[key])}"
            found = first_difference(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (e, a) in enumerate(zip(expected, actual)):
            found = first_difference(e, a, f"{path}[{i}]")
            if found:
                return found
        if len(expected) != len(actual):
            return f"{path}: {len(actual)} items, expected {len(expected)}"
        return None
    if canonical(expected) != canonical(actual):
        return f"{path or 'value'}: got {short(actual)}, expected {short(expected)}"
    return None


def short(value: Any, limit: int = 160) -> str:
    text = canonical(value)
    return text if len(text) <= limit else text[:limit] + "..."
