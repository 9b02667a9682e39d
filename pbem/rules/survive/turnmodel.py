"""The Survive family's turn model: what a player's page needs to follow their own turn
(``templates/turnmodel/survive.js``), made from their view (docs/turn-model.md).

The data is the board's geometry, the rule parameters a game or layer changes
(:meth:`~pbem.rules.survive.rules.SurviveRules.turn_model_params`, plain data the JS reads: no
game names), the decision the view waits for (as the engine says), what the page says for each
decision (:meth:`~pbem.rules.survive.rules.SurviveRules.model_prompts`: the game's words, so that
the JS names no game's pieces), and for each part of the turn
the model knows (``parts``) whether this ruleset plays it exactly as the model does.

How that is decided: each part lists the rule hooks the model reproduces (:data:`PARTS`).  A hook
counts as modelled when the ruleset's method is the core's (a class of ``SurviveRules``'s chain;
the shared challenges in ``pbem.rules.survive.challenges`` are layers), or
when the class that overrides it names it in its ``turn_model_covers`` (it then gives the model
the parameters that make the difference).  One hook not modelled switches the whole part off:
the model's ``legal`` then returns null there (the page stops: "cut"), never a guess.  The tests
(tests/turnmodel/test_survive_model.py) drive the model against the engine.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

from pbem.core.turnmodel import TurnModel
from pbem.rules.survive.rules import SurviveRules
from pbem.rules.survive.state import STEP_MOVE, STEP_REMOVE

__all__ = ["PARTS", "FAMILY", "uncovered", "survive_turn_model"]

FAMILY = "survive"
#: the core's classes (the Survive rules every game builds on); the shared challenges
#: (``pbem.rules.survive.challenges``) are layers like any game's, and declare what they cover
_CORE_CLASSES = frozenset(SurviveRules.__mro__)

#: the parts of a turn the JS model plays, each with the engine hooks it reproduces
PARTS: dict[str, tuple[str, ...]] = {
    # step 2 and its end: {move: ...}, {done: move}, what entering a space does, the next step
    "move": (
        "legal_move", "move_choices", "dolphin_move_choices", "explorer_moves", "explorer_move", "explorer_steps", "boat_moves",
        "boat_move", "boat_steps", "movable_boats", "has_room", "controllers", "ship_may_enter",
        "closed_to_ship", "may_swim", "may_board_from_the_sea", "do_move", "do_done", "move_boat",
        "move_explorer", "explorer_step_kind", "enter_sea", "sail", "ship_stops", "capsize", "swimmers_fall_in",
        "deadly_for_swimmers", "unprotected", "lose_explorers", "swimmer_killers", "ship_sinkers",
        "movement_points", "after_action", "advance", "decision_kind", "turn_step_list", "decider",
        "current_step", "legal_actions", "apply", "pending",
        "start_remove_step", "start_creature_step", "roll_die",
        # the tiles played in the movement step (Space Attack's red tiles: listed, a play is a STOP)
        "hand_plays", "hand_tile_table", "options_swap", "swap_place", "options_drifter_to_station",
        "options_drifter_to_ship", "drifters", "ships_near", "options_fire", "options_to_empty", "to_empty_pieces",
        "empty_spaces", "options_fly", "crewed_fighters", "options_near_queens", "near_queen_kinds", "queens",
        "default_token", "supply", "turrets", "shots", "flights",
    ),
    # set-up: placing people on empty tiles, then ships on free sea spaces by the coast, then the
    # first turn (its movement step)
    "setup": (
        "legal_place", "placement_spots", "reserve_explorers", "do_place", "next_with", "start_boat_placement",
        "reserve_boats", "boat_spots", "legal_boat", "do_boat", "starting_creature_kinds", "start_play",
        "next_turn", "advance", "turn_step_list", "start_tile_step", "start_move_step", "explorers_in_play",
        "decision_kind", "decider", "current_step", "legal_actions", "apply", "pending", "after_action",
    ),
    # the creature order written ahead for each face of the die at the tile removal (a form): step
    # 4's choices for that face, worked out now
    "ahead": (
        "ahead_forms", "ahead_forms_of", "ahead_choices", "ahead_faces", "creature_die_faces", "legal_creature",
        "creature_choices", "movable_creatures", "die_kinds", "may_stay", "die_moves", "creature_steps",
        "stop_cells", "creature_spaces", "creature_walk_of", "sea_walk", "unprotected", "creature_rule_table",
        "creature_behaviours", "stops_serpent", "stops_shark", "stops_whale", "serpent_stop_cells",
        "shark_stop_cells", "whale_stop_cells", "creature_to", "decider", "current_step", "order_forms",
        "ahead_forms",
    ),
    # step 4 after the roll: a creature to a space it may reach, or none, and what it does there (an
    # attack another player may answer with a hidden tile is a STOP), then the next player's turn
    "creature": (
        "legal_creature", "creature_choices", "movable_creatures", "die_kinds", "may_stay", "die_moves",
        "creature_steps", "stop_cells", "creature_spaces", "creature_walk_of", "sea_walk", "unprotected",
        "creature_rule_table", "creature_behaviours", "stops_serpent", "stops_shark", "stops_whale",
        "serpent_stop_cells", "shark_stop_cells", "whale_stop_cells", "creature_to", "do_creature",
        "creature_order", "creature_walk", "walk_arg", "check_defense_knowledge", "arrive_serpent", "arrive_shark",
        "arrive_whale", "attack_shark", "attack_whale", "threaten_from", "threaten", "run_defense",
        "answering_back", "threatened_pieces", "threatened_players", "require_knowledge", "lose_ship_and_crew",
        "capsize", "swimmers_fall_in", "deadly_for_swimmers", "swimmer_killers", "lose_explorers",
        "wait_or_advance", "waiting_decision", "advance", "next_turn", "turn_step_list", "start_tile_step",
        "start_move_step", "explorers_in_play", "start_remove_step", "start_creature_step", "roll_die",
        "decision_kind", "decider", "current_step", "legal_actions", "apply", "pending", "after_action",
        "cause_name", "remove_creature", "put_creature",
    ),
    # step 4 with the dive dice (after the roll): a creature, dolphin or empty ship the dice name, up
    # to the distance or anywhere vacant (D), a dolphin's protection switched, or none
    "dive": (
        "legal_dive", "do_dive", "dive_pieces", "dive_kinds", "dive_faces", "dive_destinations", "dive_cells",
        "vacant_spaces",
        "vacant", "dive_boat", "dive_creature", "dive_dolphin", "dive_walk", "dive_to", "reach", "creature_reach",
        "creature_walk", "walk_arg", "closed_to_ship", "sail", "free_swimmers", "free_dolphins", "protect",
        "exposed", "dolphin_arrives", "release_dolphins", "die_kinds", "may_stay", "stop_cells", "stops_serpent",
        "stops_shark", "stops_whale", "serpent_stop_cells", "shark_stop_cells", "whale_stop_cells",
        "creature_rule_table", "creature_behaviours", "check_defense_knowledge", "arrive_serpent", "arrive_shark",
        "arrive_whale", "attack_shark", "attack_whale", "threaten_from", "threaten", "run_defense",
        "answering_back", "threatened_pieces", "threatened_players", "require_knowledge", "lose_ship_and_crew",
        "capsize", "swimmers_fall_in", "deadly_for_swimmers", "swimmer_killers", "lose_explorers", "unprotected",
        "wait_or_advance", "waiting_decision", "advance", "next_turn", "turn_step_list", "start_tile_step",
        "start_move_step", "explorers_in_play", "start_remove_step", "start_creature_step", "roll_die",
        "decision_kind", "decider", "current_step", "legal_actions", "apply", "pending", "after_action",
    ),
    # the 1986 spinner's step (after the spin): the spun kind's creature up to the spun number (or
    # diving to a free sea space), or none where the option allows
    "spin": (
        "creature_rule_table", "stops_shark", "stops_octopus", "stops_monster", "stops_dolphin",
        "creature_destinations", "dive_spots", "may_pass", "creature_choices", "legal_creature", "legal_dive",
        "creature_order", "do_creature", "do_dive", "move_spun_creature", "dive", "swim_creature", "arrive_shark",
        "arrive_octopus", "arrive_monster", "arrive_dolphin", "boat_is_prey", "sink_with_all_hands",
        "lose_ship_and_crew", "reach", "lose_explorers", "capsize", "swimmers_fall_in", "deadly_for_swimmers",
        "swimmer_killers", "advance", "next_turn", "turn_step_list", "start_tile_step", "start_move_step",
        "explorers_in_play", "start_remove_step", "start_creature_step", "roll_die", "decision_kind", "decider",
        "current_step", "legal_actions", "apply", "pending", "after_action",
    ),
    # challenge #5's sunk-tile round: one point for the people who stood on the sunk tile (the last
    # point of the round rolls the die first: a STOP)
    "sunk": (
        "legal_sunk_move", "do_sunk_move", "do_sunk_done", "sunk_explorers", "last_in_sunk_round",
        "next_in_sunk_round", "decider", "explorer_moves", "explorer_move", "explorer_steps", "has_room",
        "may_swim", "may_board_from_the_sea", "move_explorer", "explorer_step_kind", "enter_sea",
        "deadly_for_swimmers", "unprotected", "lose_explorers", "swimmer_killers", "roll_die", "after_action",
        "legal_actions", "apply", "pending", "current_step",
    ),
    # the Giant Squid's choice of whom it takes (after step 4 or a tile: then the turn goes on; after
    # a removal the die is still to roll: a STOP)
    "squid": (
        "legal_take", "do_take", "squid_prey", "people_next_to", "squid_takes", "open_squid_step",
        "lose_explorers", "unprotected", "advance", "next_turn", "turn_step_list", "start_tile_step",
        "start_move_step", "explorers_in_play", "start_remove_step", "start_creature_step", "roll_die",
        "decision_kind", "decider", "current_step", "legal_actions", "apply", "pending", "after_action",
    ),
    # Space Attack's step 1: captured creatures put on empty spaces, one at a time, or none
    "deploy": (
        "start_deploy_step", "legal_deploy", "do_deploy", "empty_spaces", "vacant", "advance", "turn_step_list",
        "start_move_step", "crew_in_play", "explorers_in_play", "holds_earlier_tile", "start_remove_step",
        "start_roll_step", "roll_die", "decider", "current_step", "legal_actions", "apply", "pending",
        "after_action",
    ),
    # Space Attack's blue-tile decision after the roll, when the player holds no blue tile: {play:
    # none}, then step 4 (if the die's creature is on the board) or the next player's turn
    "blue": (
        "hand_plays", "hand_tile_table", "options_extra", "options_evolve", "changes", "evolve_tokens",
        "on_board_of", "supply", "start_roll_step", "legal_blue", "do_play", "more_blue", "continue_step", "wait_or_advance",
        "waiting_decision", "advance", "start_creature_step", "movable_creatures", "die_kinds", "next_turn",
        "turn_step_list", "start_deploy_step", "start_move_step", "crew_in_play", "explorers_in_play",
        "holds_earlier_tile", "start_remove_step", "decision_kind", "decider", "current_step", "legal_actions",
        "apply", "pending", "after_action",
    ),
    # step 1: the tiles a player may play from the hand (playing one is a STOP: its back is shown),
    # or {play: none} and on to the movement step
    "tile": (
        "start_tile_step", "legal_play_tile", "playable_now", "hand", "hand_tile_table", "dolphin_moves",
        "dolphin_walk", "deadly_spaces", "deadly_for_swimmers", "sea_walk", "wind_moves", "wind_walk",
        "closed_to_ship", "ship_may_enter", "ship_stop_cells", "ship_stops", "movable_boats", "controllers",
        "relocation_options", "options_move_creature", "vacant_labels", "vacant", "do_play", "advance",
        "turn_step_list", "start_move_step", "explorers_in_play", "start_remove_step", "start_creature_step",
        "roll_die", "decision_kind", "decider", "current_step", "legal_actions", "apply", "pending",
        "after_action", "swimmer_killers", "ship_sinkers", "unprotected",
    ),
    # step 3's choice (the removal itself is a STOP: the tile's back is hidden)
    # (``not_sea_for_removal`` is read through the hook itself: ``closed_spaces``)
    "remove": ("legal_remove", "removable_tiles", "legal_actions", "decider", "current_step"),
}


def uncovered(rules: SurviveRules[Any], hooks: tuple[str, ...]) -> list[str]:
    """The hooks of ``hooks`` this ruleset plays otherwise than the model: overridden outside the
    core by a class that does not name them in its ``turn_model_covers``."""
    return list(_uncovered(type(rules), hooks))


@lru_cache(maxsize=256)
def _uncovered(cls: type, hooks: tuple[str, ...]) -> tuple[str, ...]:
    """:func:`uncovered` of a ruleset class (its classes are made once: a page asks it again and again)."""
    out = []
    for name in hooks:
        owner = next((c for c in cls.__mro__ if name in c.__dict__), None)
        if owner is None or owner in _CORE_CLASSES:
            continue
        if name not in owner.__dict__.get("turn_model_covers", ()):
            out.append(f"{owner.__name__}.{name}")
    return tuple(out)


def _steps_modelled(rules: SurviveRules[Any], roll_step: str) -> list[str]:
    """The steps between the movement step and the creature die that the model does not know: it
    knows the removal (a decision, or skipped with no tile left) and the die (a roll: a STOP);
    a step a layer adds there counts when its starter is named in ``turn_model_covers`` (it is
    skipped in every position the model reaches)."""
    steps = rules.turn_steps
    if STEP_MOVE not in steps or STEP_REMOVE not in steps or roll_step not in steps:
        return ["turn steps"]
    between = steps[steps.index(STEP_MOVE) + 1:steps.index(roll_step)]
    out = []
    for step in between:
        if step == STEP_REMOVE:
            continue
        starter = getattr(rules.step_starters[step], "__func__", None)
        name = getattr(starter, "__name__", "")
        owner = next((c for c in type(rules).__mro__ if name in c.__dict__), None)
        if owner is None or name not in owner.__dict__.get("turn_model_covers", ()):
            out.append(f"step {step}")
    return out


def _geometry(rules: SurviveRules[Any]) -> dict[str, Any]:
    """The board as the model needs it: its labels (the model works out each cell's neighbours
    and, where the rules use them, its straight lines from the labels, as
    :class:`pbem.rules.survive.board.Board` does: the page's data is smaller without them;
    tests/turnmodel/test_survive_model.py checks that both agree), the safe isles, the centre."""
    board = rules.board
    return {
        "labels": list(board.labels),
        "playable": board.playable_count,
        "isles_next_to": [list(i) for i in board.isles_next_to],
        "central": board.central,
    }


def survive_turn_model(rules: SurviveRules[Any], view: Mapping[str, Any], player: str) -> TurnModel:
    """The model data for ``player``'s page, from their ``view`` (nothing else is read but the
    ruleset the view's options play)."""
    state = rules.read_view(view)
    params = rules.turn_model_params(state)
    parts: dict[str, bool] = {}
    why: dict[str, list[str]] = {}
    for part, hooks in PARTS.items():
        missing = uncovered(rules, hooks) + (_steps_modelled(rules, params["roll_step"]) if part == "move" else [])
        parts[part] = not missing
        if missing:
            why[part] = missing
    decisions = rules.pending(state)
    standing = [form for form in rules.standing_forms(view, player) if form.when != "ahead"]
    return TurnModel(FAMILY, {
        **_geometry(rules),
        "params": params,
        "parts": parts,
        "not_modelled": why,
        "decision": [{"kind": d.kind, "player": d.player} for d in decisions],
        #: what the page says for each decision this ruleset has, in the game's words
        "prompts": {kind: words for kind, words in rules.model_prompts(state).items() if kind in rules.deciders},
        #: the forms of orders the player may send at any time (standing orders): they do not change
        #: in the player's turn
        "standing_forms": [form.as_data() for form in standing],
    })
