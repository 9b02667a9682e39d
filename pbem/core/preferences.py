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

With ``keep: true`` (``{prefer: [...], keep: true}``, what the set-up page sends) a list that has
no entry legal at a decision is kept whole, and the player is asked: its entries for a later kind
of decision (the ships, after the explorers) wait for it.  Entries are then forgotten only when
a later one is used in their place.  (Without it, such a decision empties the list: the rule of
the games begun before ``keep`` existed, which must replay as they were played.)

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
KEEP = "keep"                # {prefer: [...], keep: true}: entries that do not fit a decision wait for a later one
MAX_ENTRIES = 100            # one list, like one move file
MAX_USES_PER_ACTION = 500    # a safety net: every use is a decision taken, so a game cannot loop for ever
DRAWS_BASE = 10_000          # preference uses draw from action numbers k * 1000 + 10000 + n (not a written action's)


def is_prefer(action: Mapping[str, Any]) -> bool:
    return PREFER in action and (len(action) == 1 or (len(action) == 2 and KEEP in action))


def keeps(action: Mapping[str, Any]) -> bool:
    """Does ``{prefer: [...], keep: true}`` ask for a list whose entries wait for a decision they fit?"""
    if KEEP not in action:
        return False
    if action[KEEP] is not True:
        raise IllegalAction("keep takes true, e.g. {prefer: [{place: r2, on: F6}], keep: true}")
    return True


def parse(action: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The list in ``{prefer: [...]}``, checked for shape (each entry one action)."""
    keeps(action)
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
    kept: set[str] = field(default_factory=set)     # the players whose list was sent with ``keep: true``

    def set(self, player: str, entries: list[dict[str, Any]], keep: bool = False) -> None:
        self.kept.discard(player)
        if entries:
            self.lists[player] = list(entries)
            if keep:
                self.kept.add(player)
        else:
            self.lists.pop(player, None)

    def of(self, player: str) -> list[dict[str, Any]]:
        return list(self.lists.get(player, []))

    def to_data(self) -> dict[str, Any]:
        """Each player's list; a list sent with ``keep: true`` as ``{entries: [...], keep: true}``."""
        return {p: {"entries": list(v), KEEP: True} if p in self.kept else list(v)
                for p, v in sorted(self.lists.items())}

    @classmethod
    def from_data(cls, data: Mapping[str, Any] | None) -> "Preferences":
        out = cls()
        for p, v in (data or {}).items():
            kept = isinstance(v, Mapping)
            out.set(str(p), [dict(a) for a in (v["entries"] if kept else v)], keep=kept)
        return out

    def use(self, game: Game[Any], state: Any, draws: Draws, k: int) -> list[Event]:
        """Take decisions from the lists while a pending player has a usable entry (after written action k)."""
        events: list[Event] = []
        for n in range(MAX_USES_PER_ACTION):
            used = False
            for player in pending_players(game, state):
                queue = self.lists.get(player)
                if queue and player in self.kept:
                    found = self._use_kept(game, state, player, queue, draws, DRAWS_BASE + k * 1000 + n)
                    if found is None:                 # a preview without the seed: it stops here
                        return events
                    used, happened = found
                    events += happened
                    if not queue:
                        self.lists.pop(player, None)
                        self.kept.discard(player)
                    if used:
                        break
                    continue
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

    @staticmethod
    def _use_kept(game: Game[Any], state: Any, player: str, queue: list[dict[str, Any]], draws: Draws,
                  number: int) -> tuple[bool, list[Event]] | None:
        """A ``keep: true`` list at ``player``'s decision: the first entry legal now is applied, and it
        and the entries before it leave the list; with none legal the list stays whole (the
        player is asked).  (Was an entry used, its events); None where a preview needs the seed.
        Each entry tried draws from ``number`` afresh, as :meth:`use` does."""
        for at, action in enumerate(queue):
            try:
                happened = game.apply(state, player, action, draws.rng(number))
            except IllegalAction:
                continue                              # not now: it waits unless a later entry is used
            except NeedsSecret:
                return None
            del queue[:at + 1]
            for event in happened:
                event.auto = event.auto or f"{player}'s preference list"
            return True, happened
        return False, []
