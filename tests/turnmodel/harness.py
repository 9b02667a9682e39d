"""Running a turn model (``templates/turnmodel/<family>.js``) in node, from Python tests.

    with ModelProcess() as node:
        s = node.start("survive", data, view, "red")
        node.legal(s)                   # the model's answer, as Python data
        t, stop = node.apply(s, {"move": "r1", "to": "F6"})

One ``node`` process (``runner.js``) runs every family file (or those named) over JSON lines; a
state stays in the process and is named by a handle (a number), so a long state is not sent
back and forth at every step (``state(s)`` fetches it; ``drop`` forgets some: sent with the next
request, in the same exchange).  In a batch (``answers``), a call's ``s`` may be ``made(i)``: the
state made by the batch's i-th call (``start``, ``apply``), so that one exchange applies an action
and asks about the state reached.  By default the
runner checks what the API promises on every ``apply`` (the state given unchanged since it was
stored, the state made plain JSON); ``strict=False`` skips that.  The models shipped with pbem (strict-mode
scripts) run with ``--frozen``: a value two states share is frozen once found unchanged (a write to it
throws in the model; ``frozen=`` says otherwise).  A model that throws raises :class:`ModelError`
with the JS message and stack; a model that hangs fails after ``timeout`` seconds, saying so.
``node`` comes from the system (``tools/ensure_system_deps.py`` installs it with apt-get).

The traffic is kept small: a request's ``expect`` is the sha256 of the JSON text the caller expects
(:func:`digest`: the runner answers ``{"same": true}`` where the result's JSON has that digest, else
sends the result back for the caller to compare and show); with ``--frozen``, the ``data`` and
``view`` of ``start`` and ``pieces_as_fresh`` are sent as what changed since the last ones (runner.js
``kept``: each top-level key sent only when its value differs from the one node holds).
"""
from __future__ import annotations

import hashlib
import json
import marshal
import selectors
import shutil
import subprocess
from pathlib import Path
from typing import Any, Iterable, Sequence

from pbem.base.data import templates_dir

__all__ = ["ModelError", "ModelProcess", "digest", "made", "model_files", "node_command", "ok", "same", "RUNNER"]

RUNNER = Path(__file__).with_name("runner.js")
#: V8's young generation made larger than its default (16 MB): the models copy a state at every
#: ``apply``, and most copies die young; fewer scavenges cost about a tenth less of node's CPU over
#: the proofs' recorded requests (no answer changes: the flag only sizes the heap)
NODE_FLAGS = ("--max-semi-space-size=64",)
#: the fields node keeps between requests (``--frozen`` only), by op: each request sends what changed
KEPT_FIELDS = {"start": ("data", "view"), "pieces_as_fresh": ("data", "view")}


class ModelError(Exception):
    """The model threw (the message and the JS stack), or the runner broke down."""


def node_command() -> str:
    """The node executable (``node``, or Debian's older ``nodejs``)."""
    found = shutil.which("node") or shutil.which("nodejs")
    if not found:
        raise ModelError("node is not installed: run `make system-deps` (it installs the nodejs package)")
    return found


def model_files(families: Iterable[str] | None = None) -> list[Path]:
    """The model files shipped with pbem (the installed package's templates/turnmodel/), all or
    the families named."""
    folder = templates_dir() / "turnmodel"
    if families is None:
        return sorted(folder.glob("*.js"))
    return [folder / f"{family}.js" for family in families]


def digest(text: str) -> str:
    """The sha256 (hex) of a JSON text: a request's ``expect`` (runner.js compares it with the
    digest of the result's JSON, so the text itself need not go to node)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def same(answer: dict[str, Any]) -> bool:
    """Whether an answer to a request with ``expect`` (a JSON text's :func:`digest`) says the result
    was written as exactly that text (runner.js: then no result is sent back)."""
    return answer.get("same") is True


def _marshalled(value: Any) -> bytes | None:
    """``value``'s marshal bytes (version 2: no references, so the bytes are the value's types, order
    and contents alone), or None where marshal cannot write it.  Equal bytes are equal values of
    the same types with their keys in the same order: the same JSON text."""
    try:
        return marshal.dumps(value, 2)
    except ValueError:
        return None


#: a kept field as both sides hold it: how many values it had, each key's value's marshal bytes
_Held = tuple[int, dict[str, bytes | None]]


def made(call: int) -> dict[str, int]:
    """In a batch, the state made by its call number ``call`` (its handle, as runner.js reads it)."""
    return {"made": call}


def ok(answer: dict[str, Any], op: str) -> Any:
    """One answer of :meth:`ModelProcess.answers`: the result, or :class:`ModelError` (as a call)."""
    if "error" in answer:
        raise ModelError(f"{op}: {answer['error']}")
    return answer["ok"]


class ModelProcess:
    """One node process running the model files; a context manager (it stops the process)."""

    def __init__(self, files: Sequence[Path] | None = None, *, strict: bool = True, frozen: bool | None = None,
                 timeout: float = 120.0) -> None:
        self.files = list(files) if files is not None else model_files()
        missing = [str(f) for f in self.files if not f.is_file()]
        if missing:
            raise ModelError(f"no model file {', '.join(missing)}")
        self.timeout = timeout
        if frozen is None:
            frozen = all(f.resolve().parent == (templates_dir() / "turnmodel").resolve() for f in self.files)
        flags = ([] if strict else ["--loose"]) + (["--frozen"] if frozen else [])
        command = [node_command(), *NODE_FLAGS, str(RUNNER), *flags, *map(str, self.files)]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, encoding="utf-8", bufsize=1)
        self.selector = selectors.DefaultSelector()
        assert self.proc.stdout is not None
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)
        self.calls = 0
        self._dropped: list[int] = []     # handles to forget, sent with the next request
        #: field -> what node holds of its last value (runner.js ``kept``; None: not frozen, all sent)
        self._kept: dict[str, _Held] | None = {} if frozen else None

    def __enter__(self) -> "ModelProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.selector.close()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    # --- the wire ---------------------------------------------------------------------------
    def _exchange(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if self.proc.poll() is not None:
            raise ModelError(f"node stopped (exit {self.proc.returncode}): {self._stderr()}")
        self.calls += 1
        dropped = self._dropped
        if dropped:
            self._dropped = []
            request = {"op": "batch", "calls": [{"op": "drop", "s": dropped}, request]}
        held = dict(self._kept) if self._kept is not None else None
        text = json.dumps(self._sent(request, held) if held is not None else request, separators=(",", ":"))
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()
        if held is not None:
            self._kept = held               # (node holds them once it has the request)
        if not self.selector.select(self.timeout):
            self.proc.kill()
            raise ModelError(f"the model did not answer {request.get('op')!r} within {self.timeout:.0f} s (a loop?)")
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            raise ModelError(f"node stopped (exit {self.proc.returncode}): {self._stderr()}")
        answer: dict[str, Any] = json.loads(line)
        if dropped and "ok" in answer:
            answer = answer["ok"][1]            # the request's own answer (the drop's is null)
        return answer

    def _sent(self, request: dict[str, Any], held: dict[str, _Held]) -> dict[str, Any]:
        """``request`` as it is sent: the kept fields of it (and of its calls, in order) as what
        changed since the values node holds (``held``, updated as node will update its own)."""
        op = request.get("op")
        if op == "batch" and isinstance(request.get("calls"), list):
            return {**request, "calls": [self._sent(c, held) if isinstance(c, dict) else c for c in request["calls"]]}
        parts = {}
        for field in KEPT_FIELDS.get(op, ()) if isinstance(op, str) else ():
            value = request.get(field)
            if isinstance(value, dict) and all(type(key) is str for key in value):
                parts[field] = self._changed(value, held, field)
        if not parts:
            return request
        return {**{k: v for k, v in request.items() if k not in parts}, "kept": parts}

    @staticmethod
    def _changed(value: dict[str, Any], held: dict[str, _Held], field: str) -> dict[str, Any]:
        """runner.js's ``kept`` part for ``value`` of ``field``: its keys, the values that differ from
        those node holds, and the count of values node had."""
        count, had = held.get(field, (0, {}))
        now = {key: _marshalled(v) for key, v in value.items()}
        sent = {key: value[key] for key, m in now.items() if m is None or had.get(key) != m}
        held[field] = (count + 1, now)
        return {"keys": list(value), "sent": sent, "base": count}

    def _stderr(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read()[-2000:]

    def call(self, op: str, **args: Any) -> Any:
        """One request; the model's answer, or :class:`ModelError`."""
        answer = self._exchange({"op": op, **args})
        if "error" in answer:
            raise ModelError(f"{op}: {answer['error']}")
        return answer["ok"]

    def answers(self, calls: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Several requests in one exchange; each answer as the runner gives it (``{"ok": ...}`` or
        ``{"error": ...}``), for the caller to read with :func:`ok` where it needs it."""
        result: list[dict[str, Any]] = self.call("batch", calls=list(calls))
        return result

    def batch(self, calls: Sequence[dict[str, Any]]) -> list[Any]:
        """Several requests (``{"op": ..., ...}``) in one exchange; their answers in order (an
        error raises, naming the request)."""
        answers = self.call("batch", calls=list(calls))
        out = []
        for request, answer in zip(calls, answers):
            if "error" in answer:
                raise ModelError(f"{request['op']}: {answer['error']}")
            out.append(answer["ok"])
        return out

    # --- the API (docs/turn-model.md) -----------------------------------------------------------
    def start(self, family: str, data: Any, view: Any, player: str) -> int:
        return int(self.call("start", family=family, data=data, view=view, player=player))

    def decision(self, s: int) -> dict[str, Any] | None:
        result: dict[str, Any] | None = self.call("decision", s=s)
        return result

    def legal(self, s: int) -> list[dict[str, Any]] | None:
        result: list[dict[str, Any]] | None = self.call("legal", s=s)
        return result

    def apply(self, s: int, action: Any) -> tuple[int, bool]:
        out = self.call("apply", s=s, action=action)
        return int(out["state"]), bool(out["stop"])

    def words(self, s: int, action: Any) -> str:
        return str(self.call("words", s=s, action=action))

    def places(self, s: int, action: Any) -> dict[str, str]:
        result: dict[str, str] = self.call("places", s=s, action=action)
        return result

    def pieces(self, s: int) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.call("pieces", s=s)
        return result

    def forms(self, s: int) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.call("forms", s=s)
        return result

    def method(self, s: int, name: str, *args: Any) -> Any:
        """A family's own extension of the API (``model[name](state, *args)``), e.g. swarm's
        ``counts``."""
        return self.call("method", s=s, name=name, args=list(args))

    def explore(self, s: int, cap: int) -> str:
        """The page's data-choices for state ``s`` with no state merged: the turn explored state by
        state from the core API (``decision``, ``legal``, ``apply``), at most ``cap`` states
        (runner.js says how it finds a turn over the cap early)."""
        return str(self.call("explore", s=s, cap=cap))

    def pieces_as_fresh(self, s: int, family: str, data: Any, view: Any, player: str,
                        blank: bool = False) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
        """None when state ``s``'s pieces are, as JSON writes them, those of a model started afresh
        from (``data``, ``view``, ``player``) (as the page starts one: its state not kept, so not
        stored as :meth:`start` stores one; one exchange); else both lists (got, want) to compare
        (``blank``: each piece's value as None in both).  Equal JSON texts are equal values; different texts may still be equal values (keys
        in another order): the caller compares those."""
        out = self.call("pieces_as_fresh", s=s, family=family, data=data, view=view, player=player, blank=blank)
        return None if out is None else (out["got"], out["want"])

    def state(self, s: int) -> Any:
        return self.call("state", s=s)

    def drop(self, handles: Iterable[int]) -> None:
        """Forget these states: with the next request (each later request finds them gone)."""
        self._dropped.extend(handles)
