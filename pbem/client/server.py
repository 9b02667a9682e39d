"""The player's page, served on 127.0.0.1 only, to the browser that opened its URL and no one else.

Safe by construction:

* it listens on 127.0.0.1 (never another address), on a port the system picks unless told;
* every request carries the random token of the URL it opened (``?token=`` for the page,
  the ``X-PBEM-Token`` header for every call of the page's script), compared in constant time;
* ``Host`` must be ``127.0.0.1:PORT`` or ``localhost:PORT`` (a web page the player visits cannot
  reach it through a DNS name it rebinds to 127.0.0.1), and an ``Origin`` or
  ``Sec-Fetch-Site`` header, when the browser sends one, must say the request comes from this
  page (no cross-site request, no CSRF); calls are JSON ``POST`` s, which a foreign page cannot
  send without a preflight this server never answers;
* the answers carry a content security policy (the page's own script only, no framing), no
  referrer (the token never leaves in a ``Referer``), and are never cached; the one framed answer
  is the player's own page of a game (``/page``: pbem's page, whose one script runs by a nonce of
  its own, so no script that text in the page might smuggle in runs, and which may call nothing),
  framed by the play page only (same origin);
* it serves a fixed set of routes and reads no file a request names; bodies are capped;
* the private key never enters a page or an answer: the server knows its path only, to hand to
  ``ssh-keygen`` and to open the player's secrets.
"""
from __future__ import annotations

import hmac
import html
import json
import secrets
import threading
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

import jinja2

from pbem import __version__
from pbem.base.data import templates_dir
from pbem.base.errors import PbemError, one_line
from pbem.client import fetch as fetching
from pbem.client.config import PlayConfig, PlayedGame
from pbem.client.history import History, history
from pbem.client.mailfetch import accepted_ahead
from pbem.client.mailsend import ask_for_log, send_move
from pbem.client.sealing import private, sealed_orders
from pbem.client.seatback import asked_already, seat_back_note, take_seat_back
from pbem.client.send import send
from pbem.client.session import board_svg, load_table, step
from pbem.client.unlock import Unlocked
from pbem.core.engine import Rejected, check_actions, pending_players
from pbem.store.gamedir import GameDir
from pbem.store.movefile import parse_move
from pbem.store.table import Table
from pbem.views.clickpage import SHOW_CAPS
from pbem.views.outputs import digest_context
from pbem.views.render.digest import render_digest
from pbem.views.replay import build_replay, render_replay

MAX_BODY = 64 * 1024
MAX_DEPTH = 6
LOOPBACK = "127.0.0.1"


class RequestError(PbemError):
    """One line for the page: what was wrong with the request."""


@dataclass
class Loaded:
    """A game's table, kept while the player's copy does not change."""

    stamp: tuple[int, ...]
    table: Table
    private: bool


@dataclass
class PlayApp:
    """What the server does, apart from HTTP: one player's games, one request at a time."""

    config: PlayConfig
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    fetch: Callable[..., fetching.Fetched] = fetching.fetch
    unlocked: Unlocked = field(default_factory=Unlocked)      # keys a passphrase opened (pbem.client.unlock)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _tables: dict[str, Loaded] = field(default_factory=dict)
    _checks: dict[str, fetching.Fetched] = field(default_factory=dict)
    _histories: dict[str, tuple[tuple[int, ...], History]] = field(default_factory=dict)
    _pages: dict[str, tuple[tuple[int, ...], str, str]] = field(default_factory=dict)   # stamp, nonce, page

    def table(self, game: PlayedGame) -> Loaded:
        gd = GameDir(game.folder)
        log, secrets_file = gd.log_path, gd.secrets_path(game.player)
        stats = [p.stat() for p in (log, secrets_file) if p.exists()]
        stamp = tuple(int(x) for st in stats for x in (st.st_size, st.st_mtime_ns))
        held = self._tables.get(game.name)
        if held is None or held.stamp != stamp:
            table, private = load_table(game, self.unlocked.opener(game.key))
            held = self._tables[game.name] = Loaded(stamp, table, private)
        return held

    def checked(self, game: PlayedGame) -> fetching.Fetched:
        if game.name not in self._checks:
            self._checks[game.name] = fetching.check(game)
        return self._checks[game.name]

    # --- the routes ---------------------------------------------------------------------------
    def games(self) -> dict[str, Any]:
        rows = []
        for game in sorted(self.config.games.values(), key=lambda g: g.name):
            try:
                held = self.table(game)
                waiting = sorted(pending_players(held.table.game, held.table.state))
                checked = self.checked(game)
                ahead = self.accepted_ahead(game, held)
                disorder = seat_back_note(held.table, game.player)
                rows.append({"name": game.name, "player": game.player, "game": held.table.game_id,
                             "index": held.table.last["index"], "waiting_for": waiting,
                             "your_turn": game.player in waiting and ahead is None, "accepted_ahead": ahead,
                             "problems": checked.problems + checked.refused, "needs_copy": checked.needs_copy,
                             "disorder": disorder,
                             "asked_back": asked_already(game, int(held.table.last["index"])) if disorder else ""})
            except PbemError as exc:
                if game.transport == "mail" and not GameDir(game.folder).log_path.is_file():
                    exc = PbemError("no copy of the game yet: it comes with the moderator's next digest, or ask for it")
                rows.append({"name": game.name, "player": game.player, "error": str(exc),
                             "needs_copy": game.transport == "mail"})
        return {"games": rows, "version": __version__}

    def step(self, body: dict[str, Any]) -> dict[str, Any]:
        game, actions = self._game_and_actions(body)
        held = self.table(game)
        return step(held.table, game.player, actions, held.private).as_json()

    def send(self, body: dict[str, Any]) -> dict[str, Any]:
        """Send the actions the list of choices composed (``/api/step``)."""
        game, actions = self._game_and_actions(body)
        return {**self._sign_and_send(game, actions), "composed": "list"}

    def send_composed(self, body: dict[str, Any]) -> dict[str, Any]:
        """Send the move file the player's own page composed on its board (``/page``): parsed with
        pbem's move parser, bound to this game, this player and the entry the copy holds, checked
        with the local engine on the player's view, then signed and sent as :meth:`send` does."""
        game = self._game(body)
        text = body.get("move")
        if not isinstance(text, str) or not text.strip():
            raise RequestError("the request carries no move file (move)")
        table = self.table(game).table
        move = parse_move(text.encode("utf-8"), "the move composed on the board")
        if move.game != table.game_id:
            raise RequestError(f"the move is for game {move.game}, not for {game.name} ({table.game_id}); "
                               "nothing is sent")
        if move.player != game.player:
            raise RequestError(f"the move is {move.player}'s, and you play {game.player} in {game.name}; "
                               "nothing is sent")
        index, head = int(table.last["index"]), str(table.last["hash"])
        if move.after != index or not head.startswith(move.after_hash):
            raise RequestError(f"the move was composed on log entry {move.after}, and your copy is at entry {index} "
                               "now: compose it again on the board as it is now; nothing is sent")
        try:
            # on a copy of the state: the engine applies in place, and the held table stays as the copy has it
            check_actions(table.game, table.game.copy_state(table.state), game.player, move.actions)
        except Rejected as exc:
            raise RequestError(f"the move was not sent: {exc}") from None
        return {**self._sign_and_send(game, move.actions), "composed": "board"}

    def accepted_ahead(self, game: PlayedGame, held: Loaded) -> int | None:
        """The entry the player's own move became by the moderator's receipt, while the copy lacks it
        (a mail game: the entry comes with the next digest); None otherwise."""
        return accepted_ahead(game, int(held.table.last["index"])) if game.transport == "mail" else None

    def _sign_and_send(self, game: PlayedGame, actions: list[dict[str, Any]]) -> dict[str, Any]:
        ahead = self.accepted_ahead(game, self.table(game))
        if ahead is not None:
            raise RequestError(f"your move is in: the moderator took it as log entry {ahead}, which the next digest "
                               "brings (Check for news); nothing is sent")
        self._require_checked(game)
        held = self.table(game)
        actions = self._sealed(held.table, game.player, actions)
        if game.transport == "mail":
            sent = send_move(game, held.table, actions, self.unlocked.signer(game.key))
            return {"sent": sent.name, "index": sent.index, "message": sent.commit, "by": "mail"}
        sent = send(game, held.table, actions, self.unlocked.signer(game.key))
        return {"sent": sent.name, "index": sent.index, "commit": sent.commit, "by": "git"}

    @staticmethod
    def _sealed(table: Table, player: str, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The actions as sent: the player's intentions (a preference list, a standing order) sealed
        to the moderator (pbem.client.sealing), once the move is checked as written (a check on the
        copy stops at a sealed action: only the moderator can open it)."""
        if not any(private(table.game, a) for a in actions):
            return actions
        public = Table.load_public(table.gd)
        try:
            check_actions(public.game, public.state, player, actions)
        except Rejected as exc:
            raise RequestError(f"the move was not sent: {exc}") from None
        return sealed_orders(table, actions)

    def _require_checked(self, game: PlayedGame) -> None:
        checked = self.checked(game)
        if checked.problems:
            raise RequestError(f"game {game.name} failed its checks ({checked.problems[0]}); nothing is sent "
                               "on a copy that does not check out")

    def seat_back(self, body: dict[str, Any]) -> dict[str, Any]:
        """Sign and send the move that takes the player's seat back from civil disorder (the page's
        "Take my seat back"; pbem.client.seatback), by the game's transport."""
        game = self._game(body)
        self._require_checked(game)
        sent = take_seat_back(game, self.table(game).table, self.unlocked.signer(game.key))
        return {"sent": sent.name, "index": sent.index, "by": game.transport}

    def refresh(self, body: dict[str, Any]) -> dict[str, Any]:
        game = self._game(body)
        fetched = self.fetch(game, self.unlocked.opener(game.key))
        self._checks[game.name] = fetched
        return {"index": fetched.index, "problems": fetched.problems + fetched.refused, "notes": fetched.notes,
                "needs_copy": fetched.needs_copy}

    def ask_log(self, body: dict[str, Any]) -> dict[str, Any]:
        """Mail `send log` to the moderator: the player pressed the button for it."""
        game = self._game(body)
        if game.transport != "mail":
            raise RequestError(f"game {game.name} is played through git: `git pull` brings the whole copy")
        return {"asked": ask_for_log(game)}

    def history(self, game: PlayedGame) -> History:
        held = self.table(game)
        kept = self._histories.get(game.name)
        if kept is None or kept[0] != held.stamp:
            kept = self._histories[game.name] = (held.stamp, history(game, held.table, self.unlocked.opener(game.key)))
        return kept[1]

    def entries(self, body: dict[str, Any]) -> dict[str, Any]:
        game = self._game(body)
        past = self.history(game)
        return {"entries": past.entries, "seen": sorted(past.seen), "revealed": past.revealed}

    def seen(self, body: dict[str, Any]) -> dict[str, Any]:
        game = self._game(body)
        index = body.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            raise RequestError("the request names no log entry (index)")
        held = self.table(game)
        found = self.history(game).seen_at(index)
        if found is None:
            raise RequestError(f"your copy holds no view of yours at or before entry {index}")
        as_of, view = found
        return {"index": index, "as_of": as_of, "board_svg": board_svg(held.table.game.board_picture(view))}

    def player_page(self, name: str) -> tuple[str, str]:
        """The player's own page of the game as their copy has it now, and the nonce its script
        carries: what `pbem show GAME --as PLAYER --key KEY --format html` makes (the digest of their
        view, what happened since their last turn, their secrets, and the click-to-move panel when
        they have a decision), its one script element marked with a fresh random nonce, so that the
        page's policy runs that script and nothing else (no script that text in the page might
        smuggle in, no inline handler)."""
        game = self.config.game(name)
        held = self.table(game)
        kept = self._pages.get(game.name)
        if kept is None or kept[0] != held.stamp:
            nonce = secrets.token_urlsafe(16)
            context = replace(digest_context(held.table, game.player, clicks=SHOW_CAPS), script_nonce=nonce,
                              sent_by="pbem play")
            kept = self._pages[game.name] = (held.stamp, nonce, render_digest(context, "html"))
        return kept[2], kept[1]

    def replay_page(self, name: str) -> str:
        game = self.config.game(name)
        if not self.history(game).revealed:
            raise RequestError(f"game {name}: the whole replay opens once the moderator has revealed the seed")
        return render_replay(build_replay(GameDir(game.folder)))

    def _game(self, body: dict[str, Any]) -> PlayedGame:
        name = body.get("game")
        if not isinstance(name, str):
            raise RequestError("the request names no game")
        return self.config.game(name)

    def _game_and_actions(self, body: dict[str, Any]) -> tuple[PlayedGame, list[dict[str, Any]]]:
        game = self._game(body)
        actions = body.get("actions", [])
        if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
            raise RequestError("actions must be a list of mappings, as in a move file")
        return game, actions

    def page(self, nonce: str) -> str:
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())), autoescape=True,
                                 undefined=jinja2.StrictUndefined)
        return env.get_template("play.html.j2").render(nonce=nonce, version=__version__)


@dataclass(frozen=True)
class Policy:
    """An answer's content security policy.  ``script``: what may run (the play page's script by its
    nonce; the player's own page's by its own nonce; the replay, pbem's self-contained page, inline;
    nothing in a JSON answer); ``connect``: where its script may call (only the play page calls this
    server); ``frames``: what it may frame (the play page: the player's own page); ``framed``: it may
    be framed, by a page of this server only."""

    script: str
    connect: str = "'none'"
    frames: str = "'none'"
    framed: bool = False

    def header(self) -> str:
        ancestors = "'self'" if self.framed else "'none'"
        return (f"default-src 'none'; script-src {self.script}; style-src 'unsafe-inline'; img-src data:; "
                f"connect-src {self.connect}; frame-src {self.frames}; frame-ancestors {ancestors}; "
                "base-uri 'none'; form-action 'none'")


#: a JSON answer: no script, not framed
CALL = Policy("'none'", connect="'self'")


def _error_page(message: str) -> bytes:
    """The one line saying why the player's page cannot be made, as a page of its own (no script)."""
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>pbem play</title></head>'
            f'<body><p id="error">pbem: {html.escape(message)}</p></body></html>').encode()


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max([_depth(v, level + 1) for v in value.values()] or [level + 1])
    if isinstance(value, list):
        return max([_depth(v, level + 1) for v in value] or [level + 1])
    return level


def make_handler(app: PlayApp, port_of: Callable[[], int]) -> type[BaseHTTPRequestHandler]:
    routes: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
        "/api/step": app.step, "/api/send": app.send, "/api/fetch": app.refresh,
        "/api/history": app.entries, "/api/seen": app.seen, "/api/ask-log": app.ask_log,
        "/api/send-move": app.send_composed, "/api/seat-back": app.seat_back,
    }

    class Handler(BaseHTTPRequestHandler):
        server_version = "pbem-play"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:   # noqa: A002  (quiet: no URL with the token in logs)
            return

        # --- the checks every request passes ------------------------------------------------
        def _allowed_origins(self) -> set[str]:
            port = port_of()
            return {f"http://{LOOPBACK}:{port}", f"http://localhost:{port}"}

        def _refuse(self) -> str:
            """Why this request is refused ('' when it may go on)."""
            port = port_of()
            if self.headers.get("Host", "") not in (f"{LOOPBACK}:{port}", f"localhost:{port}"):
                return "wrong Host"
            origin = self.headers.get("Origin")
            if origin is not None and origin not in self._allowed_origins():
                return "foreign Origin"
            site = self.headers.get("Sec-Fetch-Site")
            if site is not None and site not in ("same-origin", "none"):
                return "cross-site request"
            query = parse_qs(urlsplit(self.path).query)
            given = self.headers.get("X-PBEM-Token") or (query.get("token") or [""])[0]
            if not hmac.compare_digest(given.encode(), app.token.encode()):
                return "no valid token"
            return ""

        def _send(self, status: int, body: bytes, content_type: str, policy: Policy = CALL) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("X-Frame-Options", "SAMEORIGIN" if policy.framed else "DENY")
            self.send_header("Content-Security-Policy", policy.header())
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, data: dict[str, Any]) -> None:
            self._send(status, json.dumps(data).encode(), "application/json")   # the actions keep their key order

        def _error(self, status: int, message: str) -> None:
            self._json(status, {"error": one_line(message)})

        # --- the methods ----------------------------------------------------------------------
        def do_GET(self) -> None:   # noqa: N802  (the http.server name)
            why = self._refuse()
            if why:
                return self._error(HTTPStatus.FORBIDDEN, f"refused: {why}")
            route = urlsplit(self.path).path
            if route == "/":
                nonce = secrets.token_urlsafe(16)
                return self._send(HTTPStatus.OK, app.page(nonce).encode(), "text/html; charset=utf-8",
                                  Policy(f"'nonce-{nonce}'", connect="'self'", frames="'self'"))
            if route == "/page":
                name = (parse_qs(urlsplit(self.path).query).get("game") or [""])[0]
                try:
                    with app._lock:
                        page, page_nonce = app.player_page(name)
                except PbemError as exc:      # said in the frame, where the page would be
                    return self._send(HTTPStatus.UNPROCESSABLE_ENTITY, _error_page(one_line(str(exc))),
                                      "text/html; charset=utf-8", Policy("'none'", framed=True))
                return self._send(HTTPStatus.OK, page.encode(), "text/html; charset=utf-8",
                                  Policy(f"'nonce-{page_nonce}'", framed=True))
            if route == "/replay":
                name = (parse_qs(urlsplit(self.path).query).get("game") or [""])[0]
                try:
                    with app._lock:
                        page = app.replay_page(name)
                except PbemError as exc:
                    return self._error(HTTPStatus.UNPROCESSABLE_ENTITY, str(exc))
                return self._send(HTTPStatus.OK, page.encode(), "text/html; charset=utf-8", Policy("'unsafe-inline'"))
            if route == "/api/games":
                with app._lock:
                    return self._json(HTTPStatus.OK, app.games())
            return self._error(HTTPStatus.NOT_FOUND, "no such page")

        def do_POST(self) -> None:  # noqa: N802
            why = self._refuse()
            if why:
                return self._error(HTTPStatus.FORBIDDEN, f"refused: {why}")
            handler = routes.get(urlsplit(self.path).path)
            if handler is None:
                return self._error(HTTPStatus.NOT_FOUND, "no such call")
            if self.headers.get_content_type() != "application/json":
                return self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "calls are JSON (Content-Type: application/json)")
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                return self._error(HTTPStatus.LENGTH_REQUIRED, "a call needs a Content-Length")
            if not 0 <= length <= MAX_BODY:
                return self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"a call is at most {MAX_BODY} bytes")
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except (ValueError, RecursionError):
                return self._error(HTTPStatus.BAD_REQUEST, "the call is not JSON")
            if not isinstance(body, dict) or _depth(body) > MAX_DEPTH:
                return self._error(HTTPStatus.BAD_REQUEST, f"a call is a JSON object nested at most {MAX_DEPTH} deep")
            try:
                with app._lock:
                    answer = handler(body)
            except PbemError as exc:
                return self._error(HTTPStatus.UNPROCESSABLE_ENTITY, str(exc))
            return self._json(HTTPStatus.OK, answer)

        def do_PUT(self) -> None:   # noqa: N802
            self._error(HTTPStatus.METHOD_NOT_ALLOWED, "GET and POST only")

        do_DELETE = do_PATCH = do_OPTIONS = do_PUT

    return Handler


class PlayServer:
    """The HTTP server on 127.0.0.1 (``port`` 0: the system picks a free one)."""

    def __init__(self, app: PlayApp, port: int = 0) -> None:
        self.app = app
        self.httpd = ThreadingHTTPServer((LOOPBACK, port), make_handler(app, lambda: self.port))
        self.httpd.daemon_threads = True

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/?token={self.app.token}"

    def serve_in_thread(self, poll_interval: float = 0.02) -> threading.Thread:
        """Serve from a thread of its own until :meth:`close`; the thread looks for a close every
        ``poll_interval`` seconds (socketserver's default, half a second, is what each close waited)."""
        thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": poll_interval},
                                  name="pbem-play", daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
