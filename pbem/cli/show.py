"""Looking at a game: `pbem status`, `show`, `replay`, `legal`."""
from __future__ import annotations

import json
from pathlib import Path

import click

from pbem.base.errors import PbemError
from pbem.cli.common import GAME_DIR, load_table


@click.command()
@GAME_DIR
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def status(game_dir: Path, as_json: bool) -> None:
    """Whose decision is pending, the turn, and whether the game is over.

    \b
    Example:  pbem status game1 --json
    """
    from pbem.pipeline.status import game_status
    info = game_status(game_dir)
    if as_json:
        click.echo(json.dumps(info, indent=1, sort_keys=True))
        return
    click.echo(f"{info['id']} ({info['game']}), log entry {info['index']}, turn {info['turn']}")
    if info["closed"] is not None:
        click.echo(f"  closed: the seed was revealed at log entry {info['closed']}; `pbem audit` checks everything")
        return
    for d in info["pending"]:
        click.echo(f"  waiting for {d['player']}: {d['kind']}")
    if info["over"]:
        click.echo("  game over; scores: " + (", ".join(f"{p} {s}" for p, s in info["scores"].items())
                                              if info.get("scores") else "hidden until `pbem reveal`"))


@click.command()
@GAME_DIR
@click.option("--as", "viewer", default=None,
              help="show one player's view, with their secrets (the moderator; a player with --key)")
@click.option("--key", type=click.Path(path_type=Path), default=None,
              help="on a player's copy: your SSH private key, to read your secrets (secrets/PLAYER.age) for --as")
@click.option("--format", "fmt", type=click.Choice(["text", "html", "json"]), default="text")
@click.option("--full", is_flag=True, help="the moderator's full position (the position-file format)")
def show(game_dir: Path, viewer: str | None, key: Path | None, fmt: str, full: bool) -> None:
    """Render the public view, one player's view, or the full position.

    With --format html, a player's own page has the click-to-move panel when it is their decision.

    \b
    Example:  pbem show game1 --as red --format html > red.html
              pbem show game1 --as red --key ~/.ssh/id_ed25519 --format html > red.html   (a player's copy)
    """
    from pbem.base import yamlio
    from pbem.pipeline.turn import player_table
    from pbem.store.gamedir import GameDir
    from pbem.views.clickpage import SHOW_CAPS
    from pbem.views.outputs import digest_context
    from pbem.views.render.digest import render_digest
    if key is not None and viewer is not None and not full and GameDir(game_dir).seed() is None:
        table = player_table(GameDir(game_dir), viewer, key, None)[0]    # their private view, from their secrets
    elif viewer is not None and not full and GameDir(game_dir).seed() is None:
        raise PbemError(f"a player's copy shows --as {viewer} only with --key: your SSH private key, to read "
                        f"your secrets (secrets/{viewer}.age)")
    else:
        table = load_table(game_dir, public_ok=viewer is None and not full)
    if viewer is not None and viewer not in table.players:
        raise PbemError(f"no player {viewer!r}; players: {', '.join(table.players)}")
    if full:
        pos = table.game.to_position(table.state)
        click.echo(json.dumps(pos, indent=1, sort_keys=True) if fmt == "json" else yamlio.dump(pos), nl=False)
        return
    if fmt == "json":
        click.echo(json.dumps(table.game.view(table.state, viewer), indent=1, sort_keys=True))
        return
    click.echo(render_digest(digest_context(table, viewer, clicks=SHOW_CAPS if fmt == "html" else None), fmt), nl=False)


@click.command()
@GAME_DIR
@click.option("--html", "html_out", required=True, type=click.Path(path_type=Path),
              help="where to write the page (one self-contained HTML file)")
@click.option("--with-hidden", is_flag=True,
              help="before the reveal, on the moderator's copy: add every hidden value (do not share that page)")
def replay(game_dir: Path, html_out: Path, with_hidden: bool) -> None:
    """Write one HTML page that steps through the whole game, entry by entry.

    The board, what happened and the scores after each log entry, with a slider
    and the keyboard.  It needs the seed (the moderator's copy, or any copy after
    `pbem reveal`); after the reveal it can show every hidden value.

    \b
    Example:  pbem replay game1 --html game1-replay.html
    """
    from pbem.base.fsutil import write_atomic
    from pbem.store.gamedir import GameDir
    from pbem.views.replay import build_replay, render_replay
    page = render_replay(build_replay(GameDir(game_dir), with_hidden=with_hidden))
    write_atomic(html_out, page.encode("utf-8"), mode=0o644)
    click.echo(f"wrote {html_out} ({len(page.encode('utf-8')) // 1024} KB): open it in a browser")


@click.command()
@GAME_DIR
@click.option("--player", required=True, help="whose legal actions")
def legal(game_dir: Path, player: str) -> None:
    """List the actions PLAYER may take now, in move-file syntax.

    \b
    Example:  pbem legal game1 --player red
    """
    from pbem.base import yamlio
    table = load_table(game_dir, public_ok=True)
    if player not in table.players:
        raise PbemError(f"no player {player!r}; players: {', '.join(table.players)}")
    if table.seed is None:
        click.echo("# from the public view: actions with your hand tiles are not listed (see your secrets)")
    from pbem.core.rng import NeedsSecret
    try:
        actions = table.game.legal_actions(table.state, player)
    except NeedsSecret as exc:
        click.echo(f"# the choices at this step depend on hidden information ({exc}); your decrypted "
                   "secrets and the digest's move template show your own options")
        return
    if not actions:
        click.echo(f"# {player} has no decision to make now")
    for action in actions:
        click.echo(f"- {yamlio.dump_flow(action)}")


#: the commands this module adds to `pbem`
COMMANDS = [status, show, replay, legal]
