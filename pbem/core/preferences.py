"""Preference lists: a player's ordered choices for decisions still to come.

Where the rules make players take turns at small decisions (placing explorers and boats one
at a time, crew and pods, a place in the turn order), a round trip by mail per decision is
slow.  A player may instead send, at any time::

    - {prefer: [{place: r2, on: F6}, {place: r3, on: E4}, {place: r4, on: G7}]}

which replaces their list.  Whenever that player has a decision to make, the engine takes the
first entry that is legal then (skipping, and forgetting, those that no longer are), applies
it on the player's behalf within the entry that brought the decision round, and logs it with
``auto: red's preference list``; the player is asked only when the list runs dry.  Sent sealed
(``pbem seal``), the list stays the moderator's until each entry is used.

The lists are not part of a game's state: the engine derives them from the log as it replays
it (:class:`Preferences`), so every game has them without a line of its own, and the audit
re-checks every use.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from pbem.core.draws import Draws
from pbem.core.game import Game, pending_players
from pbem.core.records import Event, IllegalAction
from pbem.core.rng import NeedsSecret

PREFER = "prefer"
MAX_ENTRIES = 100            # one list, like one move file
MAX_USES_PER_ACTION = 500    # a safety net: every use is a decision taken, so a game cannot loop for ever
DRAWS_BASE = 10_000          # preference uses draw from action numbers k * 1000 + 10000 + n (not a written action's)


def is_prefer(action: Mapping[str, Any]) -> bool:
    return len(action) == 1 and PREFER in action


def parse(action: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The list in ``{prefer: [...]}``, checked for shape (each entry one action)."""
    entries = action[PREFER]
    if not isinstance(entries, list) or len(entries) > MAX_ENTRIES:
        raise IllegalAction(f"prefer takes a list of at most {MAX_ENTRIES} actions, e.g. "
                            "{prefer: [{place: r2, on: F6}, {place: r3, on: E4}]}")
    for n, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or not entry or is_prefer(entry):
            raise IllegalAction(f"entry {n} of the preference list must be an action such as {{place: r2, on: F6}}")
    return [dict(e) for e in entries]


@dataclass
class Preferences:
    """Every player's list as it stands, derived from the log."""

    lists: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def set(self, player: str, entries: list[dict[str, Any]]) -> None:
        if entries:
            self.lists[player] = list(entries)
        else:
            self.lists.pop(player, None)

    def of(self, player: str) -> list[dict[str, Any]]:
        return list(self.lists.get(player, []))

    def to_data(self) -> dict[str, list[dict[str, Any]]]:
        return {p: list(v) for p, v in sorted(self.lists.items())}

    @classmethod
    def from_data(cls, data: Mapping[str, Any] | None) -> "Preferences":
        return cls({str(p): [dict(a) for a in v] for p, v in (data or {}).items()})

    def use(self, game: Game[Any], state: Any, draws: Draws, k: int) -> list[Event]:
        """Take decisions from the lists while a pending player has a usable entry (after written action k)."""
        events: list[Event] = []
        for n in range(MAX_USES_PER_ACTION):
            used = False
            for player in pending_players(game, state):
                queue = self.lists.get(player)
                while queue:
                    action = queue.pop(0)
                    try:
                        happened = game.apply(state, player, action, draws.rng(DRAWS_BASE + k * 1000 + n))
                    except IllegalAction:
                        continue                      # no longer legal: forgotten, the next one is tried
                    except NeedsSecret:
                        queue.insert(0, action)       # a preview without the seed: it stops here
                        return events
                    for event in happened:
                        event.auto = event.auto or f"{player}'s preference list"
                    events += happened
                    used = True
                    break
                if not queue:
                    self.lists.pop(player, None)
                if used:
                    break
            if not used:
                return events
        return events
