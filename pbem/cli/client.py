"""`pbem play`: the player's own program (init, list, and the page on 127.0.0.1)."""
from __future__ import annotations

from pathlib import Path

import click

from pbem.base.errors import PbemError


class PlayInitError(PbemError):
    """One line: why the game could not be added."""


@click.group(invoke_without_command=True)
@click.option("--game", "name", default=None, help="open this game first (default: one whose turn is yours)")
@click.option("--port", default=0, type=click.IntRange(0, 65535), help="port on 127.0.0.1 (default: any free one)")
@click.option("--no-browser", is_flag=True, help="print the address instead of opening a browser")
@click.option("--no-fetch", is_flag=True, help="do not fetch before opening (work on what your copies hold)")
@click.pass_context
def play(ctx: click.Context, name: str | None, port: int, no_browser: bool, no_fetch: bool) -> None:
    """Your games, on a page on this computer: fetch what is new, check it against the moderator's
    key, open your secrets with your key, and play your turn by clicking; Send signs the move
    with ssh-keygen and sends it.

    \b
    Example:  pbem play init club --clone ~/games/club --game-dir game1 --player red --key ~/.ssh/id_ed25519
              pbem play
    """
    if ctx.invoked_subcommand is not None:
        return
    import webbrowser

    from pbem.client import config as settings
    from pbem.client.fetch import fetch
    from pbem.client.server import PlayApp, PlayServer
    config = settings.load()
    if name is not None:
        config.game(name)
    elif not config.games:
        raise settings.PlayConfigError(f"no games in {config.path}; add one with `pbem play init`")
    from pbem.client.unlock import unlock
    unlocked = unlock(config, lambda prompt: click.prompt(prompt, hide_input=True, err=True))
    app = PlayApp(config, unlocked=unlocked)
    for game in sorted(config.games.values(), key=lambda g: g.name):
        if no_fetch:
            continue
        try:
            fetched = fetch(game)
        except PbemError as exc:
            click.echo(f"{game.name}: {exc}", err=True)
            continue
        app._checks[game.name] = fetched
        click.echo(f"{game.name}: log entry {fetched.index}"
                   + ("" if fetched.trusted else f"; CHECKS FAILED: {fetched.problems[0]}"))
    server = PlayServer(app, port)
    click.echo(f"your games: {server.url}  (Ctrl-C stops)")
    if not no_browser:
        webbrowser.open(server.url)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.server_close()


@play.command("init")
@click.argument("name")
@click.option("--clone", required=True, type=click.Path(path_type=Path),
              help="your clone of the game's git repository")
@click.option("--game-dir", required=True, help="the game's folder inside the clone (e.g. game1)")
@click.option("--player", required=True, help="who you are in the game")
@click.option("--key", required=True, type=click.Path(path_type=Path),
              help="your SSH private key (signs your moves and opens your secrets)")
def init(name: str, clone: Path, game_dir: str, player: str, key: Path) -> None:
    """Add a game you play in (a clone of its git repository) to your games.

    \b
    Example:  pbem play init club --clone ~/games/club --game-dir game1 --player red --key ~/.ssh/id_ed25519
    """
    from pbem.client import config as settings
    from pbem.crypto import keys
    from pbem.store.gamedir import GameDir
    from pbem.store.table import Table
    from pbem.transport.git.repo import Repo
    config = settings.load()
    if not settings.NAME.match(name):
        raise PlayInitError(f"{name!r} cannot name a game here: use letters, digits, '.', '_', '-'")
    clone = Repo.discover(clone.expanduser()).root
    entry = settings.PlayedGame(name, "git", clone, Path(game_dir).as_posix(), player, key.expanduser().resolve())
    gd = GameDir(entry.folder)
    gd.require()
    table = Table.load_public(gd)
    if player not in table.players:
        raise PlayInitError(f"no player {player!r} in {table.game_id}; players: {', '.join(table.players)}")
    info = keys.check_private_key_file(entry.key)
    pub = entry.key.with_name(entry.key.name + ".pub")
    mine = (keys.public_key_of(keys.load_private_key(entry.key)) if not info.encrypted
            else pub.read_text() if pub.is_file() else "")
    seats = [keys.normalise_public_key(k) for k in table.player_keys(player)]
    if mine and keys.normalise_public_key(mine) not in seats:
        raise PlayInitError(f"{entry.key} is not {player}'s key in {table.game_id}; give the key you sent the moderator")
    config.games[name] = entry
    config.save()
    click.echo(f"added {name}: {table.game_id} as {player}, from {entry.folder}; settings in {config.path}")


@play.command("list")
def list_games() -> None:
    """Your games and whose turn it is in each (from your copies: `pbem play` fetches).

    \b
    Example:  pbem play list
    """
    from pbem.client import config as settings
    from pbem.client.server import PlayApp
    app = PlayApp(settings.load())
    for row in app.games()["games"]:
        if "error" in row:
            click.echo(f"{row['name']}: {row['error']}")
            continue
        turn = "your turn" if row["your_turn"] else "waiting for " + (", ".join(row["waiting_for"]) or "nobody")
        click.echo(f"{row['name']}: {row['game']} as {row['player']}, log entry {row['index']}: {turn}")


COMMANDS = [play]
