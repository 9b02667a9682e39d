"""`pbem new`: create a game directory (validated fully before anything is written)."""
from __future__ import annotations

import hmac
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from pbem import __version__
from pbem.base.canonical import canonical, keyed_hash
from pbem.base.errors import PbemError, excerpt
from pbem.base.fsutil import umask, write_atomic
from pbem.core import draws
from pbem.core.engine import game_for, state_hash
from pbem.core.game import Game
from pbem.core.playable import check_playable
from pbem.core.records import OPTION_REFUSALS, PositionError
from pbem.core.registry import load_game
from pbem.core.rng import derive_key, seed_commitment
from pbem.crypto import keys, sshsig
from pbem.store.entryclock import CLOCK, record_time
from pbem.store.gamedir import GAME_ID_RE, PLAYER_NAME_RE, GameDir
from pbem.store.log import seal, write_log
from pbem.store.table import START_POSITION, Table, initial_table
from pbem.views.outputs import write_outputs

LOG_FORMAT = "pbem-log/1"
NAME_RE = PLAYER_NAME_RE
CONTACT_RE = re.compile(r"^[^@\s<>,;]+@[^@\s<>,;]+\.[^@\s<>,;]+$")
ID_RE = GAME_ID_RE


class NewGameError(PbemError):
    pass


@dataclass(frozen=True)
class PlayerSpec:
    name: str
    key: str    # "ssh-ed25519 BASE64"


def parse_player(arg: str) -> PlayerSpec:
    """NAME=PUBKEY_FILE (or NAME=ssh-ed25519 AAAA...)."""
    name, sep, source = arg.partition("=")
    if not sep or not name:
        raise NewGameError(f"--player {arg!r}: write NAME=PUBLIC_KEY_FILE, e.g. --player red=alice.pub")
    if not NAME_RE.match(name):
        raise NewGameError(f"--player {name!r}: names are 1-20 lowercase letters, digits, - or _, starting with a letter")
    text = source if source.startswith("ssh-") else _read_key_file(source)
    try:
        return PlayerSpec(name, keys.normalise_public_key(text))
    except keys.KeyFileError as exc:
        raise NewGameError(f"--player {name}: {exc}") from None


def _read_key_file(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise NewGameError(f"cannot read public key file {path!r}: {exc.strerror}") from None


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise NewGameError(f"--option {pair!r}: write NAME=VALUE, e.g. --option memory=open")
        if key in options:
            raise NewGameError(f"--option {key} given twice")
        options[key] = value
    return options


def check_distinct_keys(players: Sequence[PlayerSpec]) -> None:
    """One key, one seat: a key that signs for two seats would let one person move for both."""
    seen: dict[str, str] = {}
    for p in players:
        if p.key in seen:
            raise NewGameError(f"players {seen[p.key]} and {p.name} have the same key "
                               f"({keys.fingerprint(p.key)}); each seat needs its own key")
        seen[p.key] = p.name


def sign_entry(entry: dict[str, Any], key_path: Path) -> dict[str, Any]:
    """Add the moderator's SSHSIG (namespace pbem-moderator) over the canonical entry."""
    body = {k: v for k, v in entry.items() if k not in ("hash", "signature")}
    body["signature"] = sshsig.sign(keys.load_private_key(key_path), canonical(body), sshsig.MODERATOR_NAMESPACE)
    return body


def create_game(root: Path, game_name: str, players: Sequence[PlayerSpec], options: Mapping[str, str],
                seed: bytes | None = None, position: dict[str, Any] | None = None,
                moderator_key: Path | None = None, game_id: str | None = None,
                deadlines: dict[str, Any] | None = None, contact: str = "") -> Table:
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise NewGameError(f"{root} already exists and is not empty; choose a new folder for the game")
    game = load_game(game_name)
    names = [p.name for p in players]
    if len(set(names)) != len(names):
        raise NewGameError("two players have the same name; give each --player a different NAME")
    check_distinct_keys(players)
    if contact and (not CONTACT_RE.match(contact) or len(contact) > 254):
        raise NewGameError(f"--contact {excerpt(contact)} is not an e-mail address such as moves@example.org")
    if game_id is not None and not ID_RE.match(game_id):
        raise NewGameError(f"--id {excerpt(game_id)}: a game id is 1-64 letters, digits, '.', '_' or '-', "
                           "starting with a letter or digit")
    if not game.min_players <= len(players) <= game.max_players:
        raise NewGameError(f"{game.title} takes {game.min_players}-{game.max_players} players, not {len(players)}")
    try:
        options = game.resolve_options(options, names)   # e.g. a map file's content, for the signed header
    except OPTION_REFUSALS as exc:
        raise NewGameError(str(exc)) from None
    if position is None:
        try:
            game.check_options(options, names)
        except OPTION_REFUSALS as exc:
            raise NewGameError(str(exc)) from None
        full_options = game.full_options(options)
        start: dict[str, Any] | None = None
        start_state: Any = None
    else:
        position, full_options = start_position_with_options(game, position, options, names)
        start_state = load_position(game, position)
        try:
            check_playable(game, start_state)      # a position that starts a game that can go on and end
        except PositionError as exc:
            raise NewGameError(str(exc)) from None
        start = game.to_position(start_state)
    seed = seed if seed is not None else os.urandom(32)
    if len(seed) < 16:
        raise NewGameError("--seed must have at least 32 hex digits (16 bytes)")
    game_id = game_id or f"{game_name}-{hmac.new(seed, b'pbem-game-id', 'sha256').hexdigest()[:10]}"

    parent = root.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{root.name}.", dir=parent))
    try:
        gd = GameDir(tmp)
        gd.moderator_dir.mkdir(mode=0o700)
        write_atomic(gd.moderator_dir / ".gitignore", "# the moderator's private files never go into a shared repository\n*\n")
        write_atomic(gd.seed_path, seed.hex() + "\n", mode=0o600)
        write_atomic(gd.moderator_dir / "lock", b"")   # exists from the start: locking changes nothing on disk
        if moderator_key is None:
            keys.generate_keypair(gd.moderator_key_path, f"pbem moderator {game_id}")
        else:
            shutil.copyfile(moderator_key, gd.moderator_key_path)
            os.chmod(gd.moderator_key_path, 0o600)
        mod_pub = keys.public_key_of(keys.load_private_key(gd.moderator_key_path))
        header: dict[str, Any] = {
            "index": 0, "kind": "genesis", "format": LOG_FORMAT, "pbem": __version__,
            "game": game_name, "rules": game.rules_version, "title": game.title, "id": game_id,
            "options": full_options,
            "players": [{"name": p.name, "key": p.key, "fingerprint": keys.fingerprint(p.key)} for p in players],
            "moderator": {"key": mod_pub, "fingerprint": keys.fingerprint(mod_pub)},
            "seed_commitment": seed_commitment(seed),
            "randomness": draws.CURRENT,
            "start": "setup",
        }
        if deadlines:
            header["deadlines"] = deadlines
        if contact:
            header["contact"] = contact
        if start is not None:
            write_atomic(gd.moderator_dir / START_POSITION, canonical(start), mode=0o600)
            header["start"] = {"position_commitment": keyed_hash(derive_key(seed, "position"), start),
                               "public": game.view(start_state, None)}
        table = initial_table(gd, game_for(header), header, seed, start)
        header["pending"] = [{"player": d.player, "kind": d.kind} for d in game.pending(table.state)]
        header["state"] = state_hash(game, table.state, seed, game_id)
        header = seal(sign_entry(header, gd.moderator_key_path))
        table.entries[0] = header
        (tmp / "moves").mkdir()
        write_log(gd.log_path, [header])
        table.log_text = gd.read_log_text()
        table.remember_board()
        record_time(gd.moderator_dir, 0)
        derived = write_outputs(table) + [gd.moderator_dir / CLOCK]
        table.save_snapshot(table.log_text, derived)
        os.chmod(tmp, 0o777 & ~umask())     # mkdtemp makes it 0700; a game folder is public
        os.replace(tmp, root) if not root.exists() else _move_into(tmp, root)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    final = GameDir(root)
    table.gd = final
    return table


def start_position_with_options(game: Game, position: dict[str, Any], options: Mapping[str, str],
                                names: Sequence[str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The position a game starts from and the options it is played with.

    The position is checked like a move (``Game.check_position``).  Its options are the
    position's own ``options`` overridden by the ``--option`` values, checked like any
    options; an option decided at set-up (``OptionSpec.setup_only``) cannot change
    (docs/position-format.md, "Options").  The header, the digests and the game all use
    the result."""
    try:
        game.check_position(position)
    except PositionError as exc:
        raise NewGameError(str(exc)) from None
    named = [p.get("name") for p in position.get("players", []) if isinstance(p, dict)]
    if named and named != list(names):
        raise NewGameError(f"the position's players are {', '.join(map(str, named))}; give the same "
                           "--player names in the same seat order")
    own = game.position_options(position)
    if own is None:
        if options:
            raise NewGameError(f"{game.title} positions record no options: leave out --option with --position")
        return position, game.full_options({})
    specs = {s.name: s for s in game.option_specs()}
    for name, value in options.items():
        spec = specs.get(name)
        if spec is None:
            raise NewGameError(f"unknown option {name!r}; known options: {', '.join(sorted(specs))}")
        if spec.choices and value not in spec.choices:
            raise NewGameError(f"option {name}={value!r} is not one of {', '.join(spec.choices)}")
        before = own.get(name, spec.default)
        if spec.setup_only and value != before:
            raise NewGameError(f"--option {name}={value}: {name} is decided at set-up and the position has "
                               f"{name}={before}; leave it out or change the position's options")
    merged = {**own, **options}
    try:
        game.check_options(merged, names)
    except OPTION_REFUSALS as exc:
        raise NewGameError(str(exc)) from None
    full_options = game.full_options(merged)
    return game.position_with_options(position, full_options), full_options


def load_position(game: Game, position: Mapping[str, Any]) -> Any:
    """The state of a checked position.  A game whose check missed something still gets one
    clean line (never the text of a KeyError or TypeError)."""
    try:
        return game.from_position(position)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        raise NewGameError(f"position: not a valid {game.name} position; see the game's docs for its "
                           "position keys (docs/position-format.md)") from None


def _move_into(tmp: Path, root: Path) -> None:
    """root exists and is empty: replace it with the finished directory."""
    root.rmdir()
    os.replace(tmp, root)
