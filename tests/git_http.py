"""A smart-HTTP git server on 127.0.0.1 (``git http-backend`` behind Python's http.server) that
requires one token, as GitHub requires the CI job's token: for the tests of `pbem git sync --token-env`.
No tests here."""
from __future__ import annotations

import base64
import os
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass
class Request:
    method: str
    path: str
    authorized: bool


@dataclass
class GitHttpServer:
    project_root: Path          # the folder holding bare repositories
    token: str
    requests: list[Request] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    def url(self, name: str) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/{name}"

    def expected_header(self) -> str:
        return "Basic " + base64.b64encode(f"x-access-token:{self.token}".encode()).decode()

    def __enter__(self) -> GitHttpServer:
        handler = _handler_for(self)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None and self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


def _handler_for(server: GitHttpServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:      # keep the test output quiet
            pass

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def _authorized(self) -> bool:
            scheme, _, value = self.headers.get("Authorization", "").partition(" ")
            want_scheme, _, want_value = server.expected_header().partition(" ")
            return scheme.lower() == want_scheme.lower() and value == want_value

        def _body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                data = b""
                while True:
                    size = int(self.rfile.readline().strip().split(b";")[0], 16)
                    if size == 0:
                        self.rfile.readline()
                        return data
                    data += self.rfile.read(size)
                    self.rfile.readline()
            return self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))

        def _serve(self) -> None:
            ok = self._authorized()
            server.requests.append(Request(self.command, self.path, ok))
            if not ok:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="pbem test"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = self._body()
            path, _, query = self.path.partition("?")
            env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/"), "GIT_CONFIG_NOSYSTEM": "1",
                   "GIT_PROJECT_ROOT": str(server.project_root), "GIT_HTTP_EXPORT_ALL": "1",
                   "REQUEST_METHOD": self.command, "PATH_INFO": path, "QUERY_STRING": query,
                   "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
                   "REMOTE_USER": "ci", "REMOTE_ADDR": "127.0.0.1"}
            if self.headers.get("Content-Encoding"):
                env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
            if self.headers.get("Git-Protocol"):
                env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
            proc = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, check=False)
            head, _, content = proc.stdout.partition(b"\r\n\r\n")
            status = 200
            headers = []
            for line in head.decode("latin-1").split("\r\n"):
                name, _, value = line.partition(":")
                if name.lower() == "status":
                    status = int(value.strip().split()[0])
                elif name:
                    headers.append((name, value.strip()))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

    return Handler
