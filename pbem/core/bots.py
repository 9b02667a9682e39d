"""Bots that play any game through the Game interface (random choice among legal actions)."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from pbem.core.draws import Draws, setup_rng
from pbem.core.engine import action_rng
from pbem.core.game import Game, pending_players
from pbem.core.rng import NeedsSecret, Rng

BOTS = ("random", "greedy")
MAX_ACTIONS_PER_FILE = 64


def random_action(game: Game, state: Any, player: str, rng: Rng) -> dict[str, Any]:
    """Uniformly among the legal actions (only the one taken is made: ``Game.legal_choices``)."""
    actions = game.legal_choices(state, player)
    if not actions:
        raise RuntimeError(f"{player} has a pending decision but no legal action (rules bug)")
    return actions[rng.randbelow(len(actions), "bot")]


def greedy_action(game: Game, state: Any, player: str, rng: Rng) -> dict[str, Any]:
    """The action the game's hints like best (``Game.bot_preference``), ties broken at random
    (only the one taken is made where the game lists lazily: ``Game.legal_choices``)."""
    actions = game.legal_choices(state, player)
    top = game.bot_favourites(state, player, actions)     # (before the length: a lazy listing's scores list it)
    if not top:
        raise RuntimeError(f"{player} has a pending decision but no legal action (rules bug)")
    return actions[top[rng.randbelow(len(top), "bot")]]


def pass_or_random_action(game: Game, state: Any, player: str, rng: Rng) -> dict[str, Any]:
    """Decline where the rules allow (``Game.pass_action``), else a random legal action."""
    return game.pass_action(state, player) or random_action(game, state, player, rng)


CHOOSERS = {"random": random_action, "greedy": greedy_action, "pass": pass_or_random_action}


def bot_actions(game: Game, state: Any, player: str, draws: Draws, bot_rng: Rng,
                bot: str = "random") -> list[dict[str, Any]]:
    """A whole move file's worth of actions: play on a copy until a chance step or the turn passes.

    ``draws``: the entry's real draws (a moderator's bot deciding for a player), or
    :func:`pbem.core.draws.preview_draws` for a move still to be signed (its rolls are not
    known until then: the bot stops at the first one)."""
    choose = CHOOSERS[bot]
    work = game.copy_state(state)
    chosen: list[dict[str, Any]] = []
    for k in range(MAX_ACTIONS_PER_FILE):
        if player not in pending_players(game, work):
            break
        try:
            action = choose(game, work, player, bot_rng)
        except NeedsSecret:   # a public view cannot list this decision's choices
            break
        chosen.append(action)
        try:
            events = game.apply(work, player, action, draws.rng(k))
        except NeedsSecret:  # a public view: the rest needs a roll or a hidden value
            break
        if any(e.chance for e in events):
            break
    return chosen


def simulate(game: Game, players: Sequence[str], options: Mapping[str, str], seed: bytes,
             bot_seed: bytes = b"pbem-bot", max_steps: int = 100_000, bot: str = "random") -> tuple[Any, int]:
    """Play a whole game in memory with random bots; returns the final state and the number of actions."""
    state = game.setup(list(players), game.full_options(options), setup_rng(seed, "sim"))
    bot_rng = Rng(bot_seed, "sim-bot")
    choose = CHOOSERS[bot]
    steps = 0
    while game.result(state) is None:
        pending = game.pending(state)
        if not pending or steps >= max_steps:
            raise RuntimeError(f"game stuck after {steps} actions (pending: {pending})")
        player = pending[0].player
        action = choose(game, state, player, bot_rng)
        game.apply(state, player, action, action_rng(seed, "sim", steps + 1, 0))
        steps += 1
    return state, steps
