"""Applying a player's actions (stop-and-ask, sealed actions), randomness labels and state hashes.

Randomness for entry N, action k comes from ``Rng(seed, f"{game_id}/{N}/{k}")``;
set-up draws from ``Rng(seed, f"{game_id}/0/setup")`` (docs/randomness.md).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from pbem.canonical import keyed_hash
from pbem.game import Event, Game, IllegalAction, NeedsSecret
from pbem.registry import load_game
from pbem.rng import Rng, derive_key
from pbem.sealed import SealError, is_sealed

Opener = Callable[[int, Mapping[str, Any]], dict[str, Any]]   # (action number from 0, sealed action) -> action


class Rejected(Exception):
    """A move is refused; ``str`` is the one-line reason."""


def setup_rng(seed: bytes | None, game_id: str) -> Rng:
    return Rng(seed, f"{game_id}/0/setup") if seed is not None else Rng.unavailable()


def action_rng(seed: bytes | None, game_id: str, index: int, action_no: int) -> Rng:
    if seed is None:
        return Rng.unavailable("the result depends on a die roll or a hidden value only the moderator knows")
    return Rng(seed, f"{game_id}/{index}/{action_no}")


def state_hash(game: Game, state: Any, seed: bytes, game_id: str) -> str:
    """HMAC of the full position, keyed by the seed, so hidden values cannot be brute-forced."""
    return keyed_hash(derive_key(seed, f"state-hash/{game_id}"), game.to_position(state))


def event_record(event: Event) -> dict[str, Any]:
    """The public, logged form of an event."""
    record = dict(event.public)
    if event.auto:
        record["auto"] = event.auto
    return record


def game_for(header: Mapping[str, Any]) -> Game:
    game = load_game(header["game"])
    if header.get("rules") != game.rules_version:
        raise Rejected(f"this game was created with rules {header.get('rules')!r} but this pbem has "
                       f"{game.rules_version!r}; use the pbem version that created it")
    return game


@dataclass
class Applied:
    """What happened when a player's actions were applied."""

    actions: list[dict[str, Any]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    dropped_reason: str = ""
    needs_secret: bool = False


def pending_players(game: Game, state: Any) -> list[str]:
    seen: list[str] = []
    for d in game.pending(state):
        if d.player not in seen:
            seen.append(d.player)
    return seen


def _is_anytime(game: Game, action: Mapping[str, Any]) -> bool:
    return len(action) > 0 and next(iter(action)) in game.anytime_actions


def apply_actions(game: Game, state: Any, player: str, actions: Sequence[dict[str, Any]],
                  seed: bytes | None, game_id: str, index: int, opener: Opener | None = None) -> Applied:
    """Apply actions in order.

    An illegal action before anything random or hidden happened rejects the
    whole file (raise :class:`Rejected`; the caller discards ``state``).  After
    a chance step, an order that no longer fits stops there: the rest is
    dropped, logged with the reason, and the player is asked again.
    """
    out = Applied()
    chance = False
    for k, written in enumerate(actions):
        number = k + 1
        action = written
        if is_sealed(written):
            if opener is None:
                if seed is not None:
                    raise Rejected(f"action {number} is sealed and cannot be opened here")
                out.dropped, out.needs_secret = list(actions[k:]), True
                out.dropped_reason = "a sealed action: only the moderator can open and check it"
                break
            try:
                action = opener(k, written)
            except SealError as exc:
                if not chance:
                    raise Rejected(f"action {number}: {exc}") from None
                out.dropped, out.dropped_reason = list(actions[k:]), f"action {number}: {exc}"
                break
        shown = "(sealed)" if is_sealed(written) else _flow(action)   # a sealed action's content never shows
        if player not in pending_players(game, state) and not _is_anytime(game, action):
            reason = f"action {number} {shown}: it is not {player}'s decision now"
            waiting = ", ".join(f"{d.player} ({d.kind})" for d in game.pending(state)) or "nobody (game over)"
            if not chance:
                raise Rejected(f"{reason}; waiting for {waiting}")
            out.dropped, out.dropped_reason = list(actions[k:]), f"{reason} after what was revealed"
            break
        try:
            events = game.apply(state, player, action, action_rng(seed, game_id, index, k))
        except NeedsSecret as exc:
            if seed is not None:
                raise
            out.dropped, out.dropped_reason, out.needs_secret = list(actions[k:]), str(exc), True
            break
        except IllegalAction as exc:
            if not chance:
                raise Rejected(f"illegal action {number} {shown}: {exc}") from None
            why = "" if is_sealed(written) else f": {exc}"
            out.dropped, out.dropped_reason = list(actions[k:]), f"action {number} no longer fits{why}"
            break
        out.actions.append(dict(written))   # the log keeps the sealed form
        out.events.extend(events)
        chance = chance or any(e.chance for e in events)
    return out


def check_actions(game: Game, state: Any, player: str, actions: Sequence[dict[str, Any]]) -> Applied:
    """Preview without the seed: apply until a step needs a die roll or a hidden value.

    Raises :class:`Rejected` exactly as a submission would for an illegal action.
    """
    return apply_actions(game, state, player, actions, None, "preview", 0)


def _flow(action: Mapping[str, Any]) -> str:
    return json.dumps(action, sort_keys=False, separators=(", ", ": "))
