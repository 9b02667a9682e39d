"""A player's whole set-up on one page: every placement they will make, as a preference list.

Where the rules make players take turns at placing pieces from off the board (Atlantis: an
explorer each, round the table, then a ship each), a message per placement is slow.  The
engine already takes a player's ordered list of such decisions (``{prefer: [...]}``,
:mod:`pbem.core.preferences`): this module works out, from the player's own view, which
placements are theirs to make in the rounds to come, so that their page can lay them all out
at once, let them reorder them, and send them in one message.

How: from a state made from the player's view, the set-up is played on (the player's
decisions by their first legal action, the others' by their last), and each of the player's
placement decisions met is kept: its prompt, the pieces and spaces it lists (each action a
piece from off the board onto a space, :meth:`pbem.game.Game.action_places`), how each reads.
It stops at the first decision of the player that is no placement, at a roll or a hidden
value, or after :data:`MAX_STEPS` decisions.  What the others will really do is not known:
a space they take first makes the player's entry for it illegal then, and the engine skips it
(the page adds the nearest free spaces as fall-backs for each entry; docs/playing.md).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from pbem.core.actiontext import action_text
from pbem.core.draws import preview_draws
from pbem.core.engine import Rejected, apply_actions
from pbem.core.game import Game, pending_players
from pbem.core.picture import ActionPlaces, Piece
from pbem.core.rng import NeedsSecret

__all__ = ["PlanGroup", "SetupPlan", "setup_plan", "is_placement_round", "MAX_STEPS"]

MAX_STEPS = 400          # decisions played on, at most (a 6-player set-up has about 80)


@dataclass
class PlanGroup:
    """One kind of the player's placement decisions (placing explorers, placing ships)."""

    kind: str
    prompt: str
    pieces: list[str]                         # the pieces to place, in the game's order
    spots: list[str]                          # the spaces they may go on
    actions: list[tuple[str, str, str, str]]  # (piece, space, move-file text, words), the game's order
    looks: list[Piece] = field(default_factory=list)   # how each piece is drawn once placed (when known)


@dataclass
class SetupPlan:
    groups: list[PlanGroup]


def is_placement_round(places: Sequence[ActionPlaces]) -> bool:
    """Every action of the decision puts a piece from off the board onto a space."""
    return bool(places) and all(p.piece and not p.from_cell and p.to_cell for p in places)


def _looks(game: Game[Any], state: Any, player: str, pieces: Sequence[str], legal: Sequence[Mapping[str, Any]],
           places: Sequence[ActionPlaces]) -> list[Piece]:
    """Each of ``pieces`` (of a group) as the board draws it once placed: one placement of it (its
    first action) tried on a copy."""
    out: list[Piece] = []
    first: dict[str, Mapping[str, Any]] = {}
    for action, place in zip(legal, places):
        first.setdefault(place.piece, action)
    for piece in pieces:
        trial = game.copy_state(state)
        try:
            apply_actions(game, trial, player, [dict(first[piece])], preview_draws())
        except (Rejected, NeedsSecret):
            continue
        out += _placed_look(game, trial, player, piece)
    return out


def _placed_look(game: Game[Any], state: Any, player: str, piece: str) -> list[Piece]:
    """``piece`` as the board draws it in ``state`` (a state just after its placement), or nothing."""
    found = game.board_piece(game.view(state, player), piece)    # that piece alone, not the whole board
    return [] if found is None else [found]


def _group(game: Game[Any], kind: str, prompt: str, legal: Sequence[Mapping[str, Any]],
           places: Sequence[ActionPlaces]) -> PlanGroup:
    """The placement decision's group: its pieces and spaces in the game's order, each action's text and words."""
    group = PlanGroup(kind, prompt, [], [], [])
    pieces, spots = set(), set()
    for action, place in zip(legal, places):
        if place.piece not in pieces:
            pieces.add(place.piece)
            group.pieces.append(place.piece)
        if place.to_cell not in spots:
            spots.add(place.to_cell)
            group.spots.append(place.to_cell)
        group.actions.append((place.piece, place.to_cell, action_text(action), game.describe_action(action)))
    return group


def setup_plan(game: Game[Any], view: Mapping[str, Any], player: str) -> SetupPlan | None:
    """The placements ``player`` will make in the set-up rounds to come, from their view; None
    when their decision now is no placement round."""
    state = game.copy_state(game.read_view(view))     # played forward here: a copy of the view's shared read-back
    groups: dict[str, PlanGroup] = {}
    for _ in range(MAX_STEPS):
        pending = game.pending(state)
        if not pending:
            break
        who = pending_players(game, state)[0]
        mine = who == player
        decision = next(d for d in pending if d.player == player) if mine else None
        new_group = decision is not None and decision.kind not in groups
        try:
            choices = game.legal_choices(state, who)      # the legal actions, each made when read
            legal = list(choices) if new_group and choices else []
            choice = (choices[0] if mine else choices[-1]) if choices else None
        except NeedsSecret:
            break
        if choice is None:
            break
        looked_after = None          # a piece whose look is the state's once the choice is applied
        if decision is not None and new_group:
            places = game.state_action_places(state, player, legal)     # the state is made from the player's view
            if not is_placement_round(places):
                break
            group = _group(game, decision.kind, decision.prompt, legal, places)
            # the player's choice is their first legal action, the first piece's first placement: the
            # state once it is applied below is that piece's trial (the others are tried on copies)
            looked_after = group if legal[0] == choice else None
            group.looks = _looks(game, state, player, group.pieces[1:] if looked_after else group.pieces, legal, places)
            groups[decision.kind] = group
        try:
            applied = apply_actions(game, state, who, [dict(choice)], preview_draws())
        except (Rejected, NeedsSecret):
            break
        if looked_after is not None:
            looked_after.looks[:0] = _placed_look(game, state, player, looked_after.pieces[0])
        if applied.needs_secret or any(e.chance for e in applied.events):
            break
    if not groups:
        return None
    return SetupPlan(list(groups.values()))
