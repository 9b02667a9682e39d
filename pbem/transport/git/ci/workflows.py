"""What the repository's other GitHub workflows could do to a CI moderator, read offline.

The CI moderator's key is an environment secret that GitHub hands only to a job
which declares the environment and runs on the game's branch (docs/git.md,
"Threat model").  Players never get write access; they open pull requests from
forks.  What is left for a player to abuse are the repository's *other*
workflows, which ``pbem git init --ci github`` reads before it writes its own
and refuses, with one line each:

* a workflow that names this game's secret (only pbem's workflow of the game may);
* a workflow other than pbem's that declares the moderator's environment (it
  would receive the key whenever it runs on the game's branch);
* a workflow that a player can start (``pull_request_target``, ``workflow_run``,
  ``issue_comment``, ...) which checks out or names the pull request's code or
  text, and whose token may push (``contents: write``, or no ``permissions:`` at
  all) or which reads a secret (a personal token may push too): through it a
  player could change ``.pbem/`` on the game's branch, and the next moderator
  job would install that;
* a pbem workflow written by an earlier pbem (triggered by ``push``, the key in
  a repository secret): whoever can push runs it with the key.

This module only reads; :mod:`pbem.transport.git.setup` decides what to refuse.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

WORKFLOWS_DIR = ".github/workflows"
SYNC_MARK = "pbem git sync"          # how a workflow written by pbem is recognised
#: the only triggers of a safe moderator workflow: each runs the default branch's workflow file
SAFE_TRIGGERS = frozenset({"pull_request_target", "schedule", "workflow_dispatch"})
#: events anyone who can open a pull request or an issue can cause, run with the default branch's workflow
PLAYER_TRIGGERS = frozenset({"pull_request_target", "workflow_run", "issue_comment", "issues",
                             "pull_request_review", "pull_request_review_comment", "discussion",
                             "discussion_comment", "fork", "watch"})
#: what in a workflow means "the pull request's code or text"
UNTRUSTED = re.compile(r"github\.event\.pull_request\.head|github\.head_ref|github\.event\.workflow_run\.head"
                       r"|refs/pull/|github\.event\.(?:issue|comment|review|discussion|pull_request)\.(?:title|body)",
                       re.IGNORECASE)
EXPRESSION = re.compile(r"\$\{\{")
#: a secret other than the job's own token
OTHER_SECRET = re.compile(r"secrets\s*(?:\.\s*(?!GITHUB_TOKEN\b)[A-Za-z_]|\[)", re.IGNORECASE)


@dataclass(frozen=True)
class Workflow:
    """One file of ``.github/workflows/``, as far as the checks need it."""
    rel: str                          # repository path
    text: str
    triggers: frozenset[str]
    environments: frozenset[str]      # the names its jobs declare ('*' for a name given by an expression)
    may_push: bool                    # some job's token may get contents: write
    pbem_game: str | None             # the game folder of a workflow written by pbem ('' for the root), else None

    @property
    def is_pbem(self) -> bool:
        return self.pbem_game is not None

    @property
    def is_safe_pbem(self) -> bool:
        """A moderator workflow of this pbem's design: only default-branch triggers, the key behind an environment."""
        return self.is_pbem and bool(self.triggers) and self.triggers <= SAFE_TRIGGERS and bool(self.environments)

    def names_secret(self, secret: str) -> bool:
        """GitHub secret names are case-insensitive; both ``secrets.NAME`` and ``secrets['NAME']`` count."""
        pattern = rf"secrets\s*(?:\.\s*{re.escape(secret)}\b|\[\s*['\"]{re.escape(secret)}['\"]\s*\])"
        return re.search(pattern, self.text, re.IGNORECASE) is not None

    def uses_environment(self, environment: str) -> bool:
        return "*" in self.environments or environment.lower() in {e.lower() for e in self.environments}


def load_yaml(text: str) -> dict[str, Any] | None:
    """A workflow file as a mapping (with ``on`` under its own name: YAML 1.1 reads the key as true)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict):
        return None
    if True in data and "on" not in data:
        data["on"] = data.pop(True)
    return data


def _triggers(data: dict[str, Any]) -> frozenset[str]:
    on = data.get("on")
    if isinstance(on, str):
        return frozenset({on})
    if isinstance(on, list):
        return frozenset(str(t) for t in on)
    if isinstance(on, dict):
        return frozenset(str(t) for t in on)
    return frozenset()


def _jobs(data: dict[str, Any]) -> list[dict[str, Any]]:
    jobs = data.get("jobs")
    return [job for job in jobs.values() if isinstance(job, dict)] if isinstance(jobs, dict) else []


def _environment(job: dict[str, Any]) -> str | None:
    env = job.get("environment")
    name = env.get("name") if isinstance(env, dict) else env
    if name is None:
        return None
    name = str(name)
    return "*" if EXPRESSION.search(name) else name


def _contents_may_write(permissions: Any) -> bool | None:
    """Whether a ``permissions:`` value lets the token push (None: not given, so the repository's default)."""
    if permissions is None:
        return None
    if isinstance(permissions, str):
        return permissions.strip() == "write-all"
    if isinstance(permissions, dict):
        return str(permissions.get("contents", "none")).strip() == "write"
    return True                       # something unusual: assume the worst


def _may_push(data: dict[str, Any]) -> bool:
    top = _contents_may_write(data.get("permissions"))
    for job in _jobs(data):
        own = _contents_may_write(job.get("permissions"))
        decided = own if own is not None else top
        if decided is None or decided:   # the repository default may be read and write
            return True
    return False


def _pbem_game(text: str, data: dict[str, Any]) -> str | None:
    if SYNC_MARK not in text:
        return None
    env = data.get("env")
    game = env.get("GAME_DIR") if isinstance(env, dict) else None
    if not isinstance(game, str):
        return None
    return "" if game in ("", ".") else game


def read_workflow(root: Path, path: Path) -> Workflow:
    text = path.read_text(encoding="utf-8", errors="replace")
    data = load_yaml(text) or {}
    envs = frozenset(e for e in (_environment(job) for job in _jobs(data)) if e is not None)
    return Workflow(path.relative_to(root).as_posix(), text, _triggers(data), envs, _may_push(data),
                    _pbem_game(text, data))


def repository_workflows(root: Path) -> list[Workflow]:
    """Every workflow file of the repository at ``root`` (``.yml`` and ``.yaml``), by name."""
    folder = root / WORKFLOWS_DIR
    if not folder.is_dir():
        return []
    paths = sorted(p for p in [*folder.glob("*.yml"), *folder.glob("*.yaml")] if p.is_file())
    return [read_workflow(root, path) for path in paths]


def hazards(workflows: list[Workflow], secret: str, environment: str, branch: str) -> list[str]:
    """One line for each other workflow that could hand a player the key or the game's branch.
    ``workflows`` are the repository's workflows other than the one pbem is about to write."""
    found = []
    for flow in workflows:
        if flow.names_secret(secret):
            found.append(f"{flow.rel} names the secret {secret}, which only pbem's workflow of this game may "
                         "read; remove it from that workflow or choose another name with --secret")
        elif not flow.is_pbem and flow.uses_environment(environment):
            found.append(f"{flow.rel} declares the environment {environment}, whose secrets are the moderator's "
                         "keys; remove it from that workflow or choose another environment with --environment")
        elif (not flow.is_pbem and flow.triggers & PLAYER_TRIGGERS and UNTRUSTED.search(flow.text)
              and (flow.may_push or OTHER_SECRET.search(flow.text))):
            event = sorted(flow.triggers & PLAYER_TRIGGERS)[0]
            found.append(f"{flow.rel} uses a pull request's code or text in a {event} job whose token or secrets "
                         f"may push to {branch}, so a player could change .pbem/ through it; give it "
                         "`permissions: contents: read` and no secrets, or remove it")
    return found


def legacy(workflows: list[Workflow]) -> list[Workflow]:
    """pbem workflows of an earlier design (run on ``push``, key in a repository secret): unsafe."""
    return [flow for flow in workflows if flow.is_pbem and not flow.is_safe_pbem]
