"""One player's turn on their own view, worked out by the local rules engine.

The state is the player's own: the public log of their copy plus their secrets, opened with
their key (:func:`pbem.pipeline.turn.player_table`, as `pbem turn` does).  Every question the
page asks is answered from scratch by replaying the actions chosen so far on that state
(:class:`pbem.views.compose.Composer`), so the page holds no state the engine has not checked,
and the whole turn is offered to its real stops with no size cap.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from pbem.base.errors import PbemError
from pbem.base.yamlio import dump_flow
from pbem.client.config import PlayedGame
from pbem.core.engine import Rejected, pending_players
from pbem.core.picture import BoardPicture
from pbem.pipeline.turn import player_table
from pbem.store.gamedir import GameDir
from pbem.store.missedturns import disorder_note
from pbem.store.table import Table
from pbem.views.prompts import page_prompt
from pbem.views.compose import Composer
from pbem.views.render.hexmap_svg import render_svg

MAX_ACTIONS = 200       # a turn longer than this is not a turn


class SessionError(PbemError):
    """One line: why this turn cannot be worked out."""


@dataclass
class TurnStep:
    """The page's answer: where the turn stands after the actions chosen so far."""

    index: int                                   # the log entry the turn is composed on
    player: str
    waiting_for: list[str]
    actions: list[dict[str, Any]]
    done: list[str]                              # the chosen actions, in the game's words
    events: list[str]                            # what they did, as the digest will say it
    choices: list[dict[str, Any]]                # {"action": ..., "words": ...}
    stop: str
    board_svg: str
    move_preview: str
    notes: list[str] = field(default_factory=list)
    prompt: str = ""                             # what the player is deciding now, in words ("" with no choices)

    def as_json(self) -> dict[str, Any]:
        return {"index": self.index, "player": self.player, "waiting_for": self.waiting_for,
                "actions": self.actions, "done": self.done, "events": self.events, "choices": self.choices,
                "stop": self.stop, "board_svg": self.board_svg, "move_preview": self.move_preview,
                "notes": self.notes, "prompt": self.prompt}


def board_svg(picture: BoardPicture | None) -> str:
    """The board as SVG for the page ('' for a game without a board: its sections say it all)."""
    return render_svg(picture) if picture is not None else ""


def _with_disorder_note(stop: str, table: Table, player: str, actions: list[dict[str, Any]]) -> str:
    """Why there is nothing to choose, and for a seat in civil disorder, how to take it back."""
    note = disorder_note(table.entries, player) if stop and not actions else ""
    return f"{stop}: {note}" if note else stop


def load_table(game: PlayedGame, opener: Callable[[bytes], bytes] | None = None) -> tuple[Table, bool]:
    """The player's table: their private view when their secrets open with their key (``opener``:
    a key a passphrase opened, in memory)."""
    gd = GameDir(game.folder)
    gd.require()
    secrets = gd.secrets_path(game.player)
    return player_table(gd, game.player, game.key if secrets.exists() else None, None, opener)


def step(table: Table, player: str, actions: list[dict[str, Any]], private: bool) -> TurnStep:
    """Replay ``actions`` on the player's state and say what they may do next."""
    if len(actions) > MAX_ACTIONS:
        raise SessionError(f"{len(actions)} actions is more than a turn can hold ({MAX_ACTIONS})")
    game = table.game
    composer = Composer(game, table.state, player)
    for n, action in enumerate(actions, 1):
        try:
            composer.choose(action)
        except Rejected as exc:
            raise SessionError(f"action {n} ({dump_flow(action)}) is not one of the choices: {exc}") from None
    now = composer.step()
    # what the choices are for (the decision's prompt, up to its examples in move-file syntax): the
    # die a choice follows, the squid a tile brought, the card phase; the buttons say each choice
    deciding = [d for d in game.pending(composer.state) if d.player == player] if now.choices else []
    view = game.view(composer.state, player if private else None)
    notes = [] if private else ["your secrets could not be read: only public choices are shown"]
    return TurnStep(
        index=int(table.last["index"]), player=player,
        waiting_for=sorted(pending_players(game, table.state)),
        actions=[dict(a) for a in actions], done=[game.describe_action(a) for a in actions],
        events=list(composer.events),
        choices=[{"action": dict(a), "words": game.describe_action(a)} for a in now.choices],
        stop=_with_disorder_note(now.stop, table, player, actions), board_svg=board_svg(game.board_picture(view)),
        move_preview="actions:\n" + "".join(f"  - {dump_flow(a)}\n" for a in actions), notes=notes,
        prompt=page_prompt(deciding[0].prompt) if deciding else "")
