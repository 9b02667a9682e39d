"""Applying a player's actions (stop-and-ask, sealed actions) and state hashes.

Where each action's randomness comes from is :mod:`pbem.core.draws` (docs/randomness.md).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from pbem.base.canonical import keyed_hash
from pbem.base.errors import PbemError, excerpt, one_line
from pbem.core.draws import UNAVAILABLE, Draws, preview_draws
from pbem.core.game import Game, pending_players
from pbem.core.preferences import Preferences, is_prefer, keeps
from pbem.core.preferences import parse as parse_preferences
from pbem.core.records import Event, IllegalAction
from pbem.core.registry import load_game
from pbem.core.rng import NeedsSecret, Rng, derive_key
from pbem.core.sealed import SealError, is_sealed

Opener = Callable[[int, Mapping[str, Any]], dict[str, Any]]   # (action number from 0, sealed action) -> action


#: the longest rule reason quoted in a refusal (a game may quote what the player sent)
REASON_CHARS = 200


class Rejected(PbemError):
    """A move is refused; ``str`` is the one-line reason (printed as ``rejected: REASON``)."""

    label = "rejected"


def action_rng(seed: bytes | None, label: str, index: int, action_no: int) -> Rng:
    """A random source for in-memory play (simulations, tests): ``"<label>/<index>/<action>"``
    (``Draws(seed, f"{label}/{index}").rng(action_no)``, without the Draws)."""
    if seed is None:
        return Rng.unavailable(UNAVAILABLE)
    return Rng(seed, f"{label}/{index}/{action_no}")


def state_hash(game: Game, state: Any, seed: bytes, game_id: str, rules: str | None = None) -> str:
    """HMAC of the full position, keyed by the seed, so hidden values cannot be brute-forced.
    ``rules``: the header's rules version; a game begun under earlier rules hashes its position
    as those rules wrote it (without the options added since: :func:`position_as_written`)."""
    position = game.to_position(state)
    if rules is not None and rules != game.rules_version:
        position = position_as_written(game, rules, position)
    return keyed_hash(derive_key(seed, f"state-hash/{game_id}"), position)


def position_as_written(game: Game, rules: str, position: dict[str, Any]) -> dict[str, Any]:
    """``position`` as the earlier rules ``rules`` wrote it: the options added since left out."""
    added = set(game.earlier_rules.get(rules, {}))
    given = position.get("options")
    if not added or not isinstance(given, dict):
        return position
    kept = {k: v for k, v in given.items() if k not in added}
    out = {k: v for k, v in position.items() if k != "options"}
    if kept:
        out["options"] = kept
    return out


def event_record(event: Event) -> dict[str, Any]:
    """The public, logged form of an event."""
    record = dict(event.public)
    if event.auto:
        record["auto"] = event.auto
    return record


def game_for(header: Mapping[str, Any]) -> Game:
    """The game of a log header, under the rules it was begun with: this pbem's, or an earlier
    version it still plays (``Game.earlier_rules``)."""
    game = load_game(header["game"])
    rules = header.get("rules")
    if rules != game.rules_version and rules not in game.earlier_rules:
        raise Rejected(f"this game was created with rules {rules!r} but this pbem has "
                       f"{game.rules_version!r}; use the pbem version that created it")
    return game


def header_options(game: Game, header: Mapping[str, Any]) -> dict[str, Any]:
    """The options a game is played with: the header's, and for a game begun under earlier rules,
    the values that keep those rules for every option added since."""
    kept = dict(game.earlier_rules.get(str(header.get("rules")), {})) if header.get("rules") != game.rules_version \
        else {}
    return {**kept, **(header.get("options") or {})}


def with_header_options(game: Game, header: Mapping[str, Any], position: dict[str, Any]) -> dict[str, Any]:
    """A position of a game begun under earlier rules, with the option values that keep them
    (a position holds its options; one written then lacks the options added since)."""
    kept = game.earlier_rules.get(str(header.get("rules")), {}) if header.get("rules") != game.rules_version else {}
    if not kept:
        return position
    given = position.get("options")
    return {**position, "options": {**kept, **(given if isinstance(given, dict) else {})}}


@dataclass
class Applied:
    """What happened when a player's actions were applied."""

    actions: list[dict[str, Any]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    dropped_reason: str = ""
    needs_secret: bool = False


def _is_anytime(game: Game, action: Mapping[str, Any]) -> bool:
    return len(action) > 0 and (next(iter(action)) in game.anytime_actions or is_prefer(action))


def apply_actions(game: Game, state: Any, player: str, actions: Sequence[dict[str, Any]],
                  draws: Draws, opener: Opener | None = None, prefs: Preferences | None = None) -> Applied:
    """Apply actions in order.

    An illegal action before anything random or hidden happened rejects the
    whole file (raise :class:`Rejected`; the caller discards ``state``).  After
    a chance step, an order that no longer fits stops there: the rest is
    dropped, logged with the reason, and the player is asked again.

    ``prefs``: the players' preference lists (pbem.core.preferences), updated by a
    ``{prefer: [...]}`` action and used whenever a decision comes round to a
    player who has one; None where they are not known (a player's preview).
    """
    out = Applied()
    chance = False
    for k, written in enumerate(actions):
        number = k + 1
        action = written
        if is_sealed(written):
            if opener is None:
                if draws.seed is not None:
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
        sealed = is_sealed(written)
        if player not in pending_players(game, state) and not _is_anytime(game, action):
            reason = f"action {number} {_shown(action, sealed)}: it is not {player}'s decision now"
            waiting = ", ".join(f"{d.player} ({d.kind})" for d in game.pending(state)) or "nobody (game over)"
            if not chance:
                raise Rejected(f"{reason}; waiting for {waiting}")
            out.dropped, out.dropped_reason = list(actions[k:]), f"{reason} after what was revealed"
            break
        try:
            events = _prefer(player, action, prefs) if is_prefer(action) else \
                game.apply(state, player, action, draws.rng(k))
            if prefs is not None:
                events += prefs.use(game, state, draws, k)
        except NeedsSecret as exc:
            if draws.seed is not None:
                raise
            out.dropped, out.dropped_reason, out.needs_secret = list(actions[k:]), str(exc), True
            break
        except IllegalAction as exc:
            why = "" if sealed else f": {one_line(str(exc), REASON_CHARS)}"   # a sealed action's would tell what it holds
            if not chance:
                raise Rejected(f"illegal action {number} {_shown(action, sealed)}"
                               f"{why or ': it breaks a rule'}") from None
            out.dropped, out.dropped_reason = list(actions[k:]), f"action {number} no longer fits{why}"
            break
        out.actions.append(dict(written))   # the log keeps the sealed form
        out.events.extend(events)
        chance = chance or any(e.chance for e in events)
    return out


def _shown(action: Mapping[str, Any], sealed: bool) -> str:
    """How a refusal quotes an action: an excerpt (made only for a refusal: never on the way of
    an accepted action), and a sealed action's content never."""
    return "(sealed)" if sealed else excerpt(action)


def _prefer(player: str, action: Mapping[str, Any], prefs: Preferences | None) -> list[Event]:
    """``{prefer: [...]}``: the player's new preference list (the public learns only that there is one)."""
    entries = parse_preferences(action)
    if prefs is not None:
        prefs.set(player, entries, keep=keeps(action))
    return [Event({"event": "preference list", "player": player},
                  {player: {"event": "preference list", "player": player, "entries": len(entries)}})]


def check_actions(game: Game, state: Any, player: str, actions: Sequence[dict[str, Any]]) -> Applied:
    """Preview without the seed: apply until a step needs a die roll or a hidden value.

    Raises :class:`Rejected` exactly as a submission would for an illegal action.
    """
    return apply_actions(game, state, player, actions, preview_draws())

