"""`pbem play`: the player's own program (init, list, and the page on 127.0.0.1)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pbem.base.errors import PbemError

if TYPE_CHECKING:
    from pbem.client.config import PlayedGame
    from pbem.client.server import PlayServer


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
    server = open_play(name, port, no_fetch, say=click.echo, warn=lambda text: click.echo(text, err=True),
                       ask=lambda prompt: click.prompt(prompt, hide_input=True, err=True))
    click.echo(f"your games: {server.url}  (Ctrl-C stops)")
    if not no_browser:
        webbrowser.open(server.url)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.server_close()


def open_play(name: str | None, port: int, no_fetch: bool, *, say: Callable[[str], None],
              warn: Callable[[str], None], ask: Callable[[str], str]) -> PlayServer:
    """What `pbem play` does before it serves: the settings read, the keys unlocked (``ask`` asks
    for a passphrase), each game fetched and checked (a line each to ``say``; why a game could not
    be fetched to ``warn``, its copy left as it is), and the server bound on 127.0.0.1, not yet
    serving (the command serves until Ctrl-C; a test may serve it from a thread)."""
    from pbem.client import config as settings
    from pbem.client.fetch import fetch
    from pbem.client.server import PlayApp, PlayServer
    from pbem.client.unlock import unlock
    config = settings.load()
    if name is not None:
        config.game(name)
    elif not config.games:
        raise settings.PlayConfigError(f"no games in {config.path}; add one with `pbem play init`")
    unlocked = unlock(config, ask)
    app = PlayApp(config, unlocked=unlocked)
    for game in sorted(config.games.values(), key=lambda g: g.name):
        if no_fetch:
            continue
        try:
            fetched = fetch(game, unlocked.opener(game.key))
        except PbemError as exc:
            warn(f"{game.name}: {exc}")
            continue
        app._checks[game.name] = fetched
        say(f"{game.name}: " + (f"log entry {fetched.index}" if fetched.index >= 0 else "no copy of the game yet")
            + ("" if fetched.trusted else f"; CHECKS FAILED: {fetched.problems[0]}")
            + (f"; REFUSED: {fetched.refused[-1]}" if fetched.refused else ""))
    return PlayServer(app, port)


@play.command("init")
@click.argument("name")
@click.option("--clone", type=click.Path(path_type=Path), help="git: your clone of the game's git repository")
@click.option("--game-dir", help="git: the game's folder inside the clone (e.g. game1)")
@click.option("--player", required=True, help="who you are in the game")
@click.option("--key", required=True, type=click.Path(path_type=Path),
              help="your SSH private key (signs your moves and opens your secrets)")
@click.option("--mail", "by_mail", is_flag=True, help="the game comes by e-mail (give the mail options below)")
@click.option("--game-id", help="mail: the game's id (in the subject of its mail: [GAME_ID])")
@click.option("--moderator", help="mail: the game's address (where moves go; its mail is read)")
@click.option("--address", help="mail: your own address (the From: of your moves)")
@click.option("--imap-host", help="mail: your IMAP server (or --maildir)")
@click.option("--imap-port", type=click.IntRange(1, 65535), help="default: 993 for tls, 143 otherwise")
@click.option("--imap-security", type=click.Choice(["tls", "starttls", "none"]), default="tls", show_default=True)
@click.option("--imap-user", default="", help="your IMAP login (password: $PBEM_PLAY_IMAP_PASSWORD)")
@click.option("--imap-folder", default="INBOX", show_default=True)
@click.option("--imap-cafile", type=click.Path(path_type=Path), help="trust only this CA (your server's own)")
@click.option("--maildir", type=click.Path(path_type=Path), help="mail: read this Maildir instead of IMAP")
@click.option("--smtp-host", help="mail: your SMTP server")
@click.option("--smtp-port", type=click.IntRange(1, 65535), help="default: 587 for starttls, 465 for tls")
@click.option("--smtp-security", type=click.Choice(["starttls", "tls", "none"]), default="starttls", show_default=True)
@click.option("--smtp-user", default="", help="your SMTP login (password: $PBEM_PLAY_SMTP_PASSWORD)")
@click.option("--smtp-cafile", type=click.Path(path_type=Path), help="trust only this CA (your server's own)")
@click.option("--moderator-key", default=None,
              help="mail: the game's moderator public key (a .pub file or the key), if the moderator gave it: a copy "
                   "whose header names another is never taken")
@click.option("--copy", "copy_dir", type=click.Path(path_type=Path),
              help="mail: where pbem keeps the game's public copy (default: $XDG_DATA_HOME/pbem/play/NAME)")
def init(name: str, clone: Path | None, game_dir: str | None, player: str, key: Path, by_mail: bool,
         game_id: str | None, moderator: str | None, address: str | None, imap_host: str | None,
         imap_port: int | None, imap_security: str, imap_user: str, imap_folder: str, imap_cafile: Path | None,
         maildir: Path | None, smtp_host: str | None, smtp_port: int | None, smtp_security: str, smtp_user: str,
         smtp_cafile: Path | None, moderator_key: str | None, copy_dir: Path | None) -> None:
    """Add a game you play in: a clone of its git repository, or (--mail) a game by e-mail.

    \b
    Example:  pbem play init club --clone ~/games/club --game-dir game1 --player red --key ~/.ssh/id_ed25519
              pbem play init club8 --mail --game-id atlantis-c6c470935d --player red --key ~/.ssh/id_ed25519 \\
                  --moderator gm@example.org --address alice@example.org \\
                  --imap-host imap.example.org --imap-user alice --smtp-host smtp.example.org --smtp-user alice
    """
    from pbem.client import config as settings
    config = settings.load()
    if not settings.NAME.match(name):
        raise PlayInitError(f"{name!r} cannot name a game here: use letters, digits, '.', '_', '-'")
    if by_mail:
        entry = _mail_entry(name, player, key, game_id, moderator, address, copy_dir,
                            {"host": imap_host, "port": imap_port, "security": imap_security, "username": imap_user,
                             "folder": imap_folder, "cafile": imap_cafile}, maildir,
                            {"host": smtp_host, "port": smtp_port, "security": smtp_security, "username": smtp_user,
                             "cafile": smtp_cafile}, config.path, moderator_key)
        config.games[name] = entry
        config.save()
        click.echo(f"added {name}: {entry.game_dir} as {player}, by mail from {entry.mail.moderator if entry.mail else ''}; "
                   f"its copy goes to {entry.folder}; settings in {config.path}")
        return
    if clone is None or game_dir is None:
        raise PlayInitError("a git game needs --clone and --game-dir (a mail game: --mail and its options)")
    from pbem.crypto import keys
    from pbem.store.gamedir import GameDir
    from pbem.store.table import Table
    from pbem.transport.git.repo import Repo
    clone = Repo.discover(clone.expanduser()).root
    entry = settings.PlayedGame(name, "git", clone, Path(game_dir).as_posix(), player, key.expanduser().resolve())
    gd = GameDir(entry.folder)
    if not gd.log_path.is_file():       # a player's mistake, not a game to create (GameDir.require says `pbem new`)
        raise PlayInitError(f"no game in {entry.folder} (no {gd.log_path.name}): check --game-dir, the game's "
                            f"folder inside your clone {clone} (`git pull` first if the moderator has just made it)")
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


def _mail_entry(name: str, player: str, key: Path, game_id: str | None, moderator: str | None,
                address: str | None, copy_dir: Path | None, imap: dict[str, object], maildir: Path | None,
                smtp: dict[str, object], config_path: Path, moderator_key: str | None = None) -> PlayedGame:
    """A mail game's settings, checked (the servers as the moderator's are; no password in them)."""
    import os

    from pbem.client import config as settings
    from pbem.crypto import keys
    from pbem.store.gamedir import GAME_ID_RE, PLAYER_NAME_RE
    missing = [opt for opt, value in (("--game-id", game_id), ("--moderator", moderator), ("--address", address),
                                      ("--smtp-host", smtp["host"])) if not value]
    if not imap["host"] and maildir is None:
        missing.append("--imap-host (or --maildir)")
    if missing:
        raise PlayInitError(f"a mail game needs {', '.join(missing)}")
    assert game_id is not None
    if not GAME_ID_RE.match(game_id):
        raise PlayInitError(f"{game_id!r} is not a game id (as in the subject of the game's mail: [GAME_ID])")
    if not PLAYER_NAME_RE.match(player):
        raise PlayInitError(f"{player!r} is not a player's name (lower-case letters and digits)")
    keys.check_private_key_file(key.expanduser())
    if copy_dir is None:
        base = os.environ.get("XDG_DATA_HOME", "")
        base = base if os.path.isabs(base) else os.path.join(os.path.expanduser("~"), ".local", "share")
        copy_dir = Path(base) / "pbem" / "play" / name

    def table(values: dict[str, object]) -> dict[str, object]:
        return {k: (str(Path(str(v)).expanduser().resolve()) if k == "cafile" else v)
                for k, v in values.items() if v not in (None, "")}
    raw: dict[str, object] = {"moderator": moderator, "address": address, "smtp": table(smtp)}
    if moderator_key:
        pub = Path(moderator_key).expanduser()
        raw["moderator_key"] = pub.read_text(encoding="utf-8").strip() if pub.is_file() else moderator_key
    if maildir is not None:
        raw["maildir"] = str(maildir.expanduser().resolve())
    else:
        raw["imap"] = table(imap)
    mail = settings.mail_settings(config_path, f"{config_path}: game {name!r}", raw)
    return settings.PlayedGame(name, "mail", copy_dir.expanduser().resolve(), game_id, player,
                               key.expanduser().resolve(), mail)


@play.command("list")
def list_games() -> None:
    """Your games and whose turn it is in each (from your copies: `pbem play` fetches).

    \b
    Example:  pbem play list
    """
    from pbem.client import config as settings
    from pbem.client.server import PlayApp
    config = settings.load()
    if not config.games:
        click.echo(f"no games in {config.path}; add one with `pbem play init`")
        return
    app = PlayApp(config)
    for row in app.games()["games"]:
        if "error" in row:
            click.echo(f"{row['name']}: {row['error']}")
            continue
        turn = (f"your move is in (log entry {row['accepted_ahead']}); its digest comes next"
                if row.get("accepted_ahead") is not None else
                "your turn" if row["your_turn"] else "waiting for " + (", ".join(row["waiting_for"]) or "nobody"))
        click.echo(f"{row['name']}: {row['game']} as {row['player']}, log entry {row['index']}: {turn}")


@play.command("back")
@click.option("--game", "name", default=None, help="the game (default: your only one)")
@click.option("--no-fetch", is_flag=True, help="do not fetch first (send on the entry your copy holds)")
def back(name: str | None, no_fetch: bool) -> None:
    """Take your seat back from civil disorder: after missed deadlines a bot decides for your seat,
    and this ends it. It fetches the game, then signs with your key a move that only asks for your
    seat back and sends it as Send does (git or mail); the moderator refuses that move but gives you
    the seat back, and your decisions wait for you again. The page's "Take my seat back" does the same.

    \b
    Example:  pbem play back --game club
    """
    from dataclasses import replace

    from pbem.client import config as settings
    from pbem.client.server import PlayApp
    from pbem.client.unlock import unlock
    config = settings.load()
    game = config.game(name)
    unlocked = unlock(replace(config, games={game.name: game}),       # this game's key only
                      lambda prompt: click.prompt(prompt, hide_input=True, err=True))
    app = PlayApp(config, unlocked=unlocked)
    if not no_fetch:
        app.refresh({"game": game.name})                # fetched and checked, as the page's Check for news
    sent = app.seat_back({"game": game.name})
    click.echo(f"sent {sent['sent']} (on log entry {sent['index']}, by {sent['by']}): you asked for your seat back in "
               f"{game.name}; the moderator's receipt comes with the next fetch (`pbem play`), and then your decisions "
               "wait for you again")


COMMANDS = [play]
