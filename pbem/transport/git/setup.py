"""``pbem git init``: share a game through a git repository, optionally with CI as the moderator.

Writes ``GAME_DIR/incoming/README.md`` (how players hand in moves), the
moderator's private settings ``GAME_DIR/moderator/git.yaml``, optionally the
sealed seed ``GAME_DIR/moderator.seed.age`` and, for ``--ci github``:

* the workflow ``.github/workflows/pbem-GAME.yml`` at the repository root
  (from ``templates/ci/github.yml``): one per game.  It runs only from the
  default branch (``pull_request_target`` for the players' pull requests that
  touch ``GAME_DIR/incoming/**``, a ``schedule`` and ``workflow_dispatch``;
  never ``push``), checks out the game's branch, never the pull request, and
  reads the moderator key from a secret of the environment ``pbem-moderator``,
  which GitHub hands only to jobs on the game's branch (docs/git.md, "Threat
  model");
* the pbem it installs, shared by every game in the repository:
  ``.pbem/wheels/pbem-VERSION-py3-none-any.whl`` (the running pbem,
  :mod:`pbem.transport.git.ci.wheel`) and ``.pbem/requirements.txt`` (that wheel
  and every dependency pinned by sha256, :mod:`pbem.transport.git.ci.lock`),
  unless ``--pbem-spec`` names another source;

then commits the game folder (never ``moderator/``) and those files.  Before
writing anything it reads the repository's other workflows
(:mod:`pbem.transport.git.ci.workflows`) and refuses, in one line, one that could
hand a player the key or the game's branch, and a pbem workflow of the earlier
push-triggered design unless ``--force`` replaces it.  What only GitHub's
settings can give (players without write access, the environment and its
branch policy, the secret in it) is printed as a checklist.
"""
from __future__ import annotations

import hashlib
import json
import re
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path


from pbem import __version__
from pbem.base.data import templates_dir
from pbem.base.errors import PbemError
from pbem.base.fsutil import public_mode, write_atomic
from pbem.store.missedturns import rules_of
from pbem.store.gamedir import GameDir
from pbem.transport.git.ci.actions import CHECKOUT, SETUP_PYTHON
from pbem.transport.git.ci.lock import PYTHON_VERSION, RUNNER, pin_dependencies, pinned_wheel, requirements_text
from pbem.transport.git.ci.wheel import build_wheel, sha256_file
from pbem.transport.git.ci.workflows import WORKFLOWS_DIR, Workflow, hazards, legacy, repository_workflows
from pbem.transport.git.repo import Identity, Repo
from pbem.transport.git.seed import prepare_moderator_dir, seal_seed
from pbem.transport.git.settings import load_settings, save_settings
from pbem.transport.git.sync import INCOMING, commit, join

CI_KINDS = ("github",)
TEMPLATE = "ci/github.yml"
VENDOR_DIR = ".pbem"
WHEELS_DIR = f"{VENDOR_DIR}/wheels"
REQUIREMENTS = f"{VENDOR_DIR}/requirements.txt"
SECRET_PREFIX = "PBEM_MODERATOR_KEY_"
SECRET_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DEFAULT_ENVIRONMENT = "pbem-moderator"
ENVIRONMENT_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,255}$")

INCOMING_README = """\
# Moves for this game

Put each move in your own folder, as two files added in one commit:

    incoming/YOUR_NAME/NAME.yaml        the move file (write it from the move
                                        template in public/digest.txt)
    incoming/YOUR_NAME/NAME.yaml.sig    ssh-keygen -Y sign -n pbem-move -f ~/.ssh/id_ed25519 NAME.yaml

Use a new NAME for every move (for example the log entry it follows: 0012.yaml).
Then `git add`, `git commit` (signed with `-S` if the moderator asks for it) and
`git push`; if the push is refused because someone pushed first, run
`git pull --rebase` and push again.

The moderator removes processed files and answers each one in
receipts/YOUR_NAME/NAME.txt. Moves are taken in the order of the commits that
added them, then by file name.
"""

INCOMING_README_PULL_REQUESTS = """\
# Moves for this game

This game is moderated by the repository's CI. You cannot push here: send your
moves as a pull request from your own fork (docs/git.md in pbem, "Players").

Once: fork the repository on GitHub, clone your fork, make a branch (e.g.
`moves`) and open ONE pull request from it to the game's branch. Keep it open;
never expect it to be merged.

Each move is two files added in one commit, in your own folder only:

    incoming/YOUR_NAME/NAME.yaml        the move file (write it from the move
                                        template in public/digest.txt)
    incoming/YOUR_NAME/NAME.yaml.sig    ssh-keygen -Y sign -n pbem-move -f ~/.ssh/id_ed25519 NAME.yaml

Use a new NAME for every move (for example the log entry it follows: 0012.yaml),
commit (signed with `-S` if the moderator asks for it) and push to your fork's
branch: the pull request picks it up and the CI job runs. Nothing else in your
pull request is ever read or run.

The answers appear on the game's branch, not in your pull request: pull it
(`git pull upstream BRANCH`) and read receipts/YOUR_NAME/NAME.txt and the
digest in public/.
"""


class InitError(PbemError):
    pass


@dataclass
class InitOptions:
    ci: str | None = None
    seal: bool = False
    verify_commits: bool = False
    reveal_at_end: bool = False
    pbem_spec: str | None = None     # None: install the wheel vendored in .pbem/ (pinned by hash)
    secret: str | None = None        # None: PBEM_MODERATOR_KEY_<GAME ID>
    environment: str | None = None   # None: pbem-moderator
    tick_cron: str | None = None     # None: hourly at a minute chosen by the game id
    branch: str | None = None
    commit: bool = True
    force: bool = False


@dataclass
class InitResult:
    written: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    commit: str | None = None
    branch: str = ""
    secret: str | None = None
    workflow: Path | None = None
    warnings: list[str] = field(default_factory=list)    # one line each: what is still unsafe
    checklist: list[str] = field(default_factory=list)   # what the moderator must set up on GitHub


@dataclass(frozen=True)
class WorkflowSpec:
    """Everything that varies between the workflows of two games."""
    game_rel: str                    # the game folder from the repository root ('' for the root)
    game_id: str
    branch: str                      # the game's branch: the repository's default branch
    secret: str
    verify_commits: bool = False
    reveal_at_end: bool = False
    pbem_spec: str | None = None
    cron: str = "7 * * * *"          # the schedule: deadlines, bot seats and a sweep of open pull requests
    environment: str = DEFAULT_ENVIRONMENT


@dataclass
class Vendored:
    """The files that make the repository's CI install this pbem, ready to be written."""
    files: dict[str, bytes] = field(default_factory=dict)     # repository path -> content
    stale: list[str] = field(default_factory=list)            # older wheels to remove


# --- names that depend on the game ------------------------------------------------------

def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "game"


def workflow_rel(game_rel: str, game_id: str) -> str:
    """``.github/workflows/pbem-FOLDER.yml`` (named after the game id for a game at the repository root)."""
    return f"{WORKFLOWS_DIR}/pbem-{_slug(game_rel or game_id)}.yml"


def default_secret(game_id: str) -> str:
    return SECRET_PREFIX + (re.sub(r"[^A-Z0-9]+", "_", game_id.upper()).strip("_") or "GAME")


def check_secret(name: str) -> str:
    if not SECRET_NAME.match(name) or name.upper().startswith("GITHUB_"):
        raise InitError(f"--secret {name!r}: a GitHub secret name is letters, digits and '_', does not start "
                        "with a digit or GITHUB_")
    return name


def check_environment(name: str) -> str:
    if not ENVIRONMENT_NAME.match(name):
        raise InitError(f"--environment {name!r}: give a GitHub environment name of letters, digits, '.', '_' "
                        "and '-'")
    return name


def check_game_path(game_rel: str) -> str:
    """The folder goes into the workflow's path filter and comments: no control or filter characters, and not
    inside the folders whose contents the job trusts (.github/, .pbem/)."""
    if re.search(r"[\x00-\x1f\x7f*?\[\]!+\\]", game_rel) or game_rel != game_rel.strip():
        raise InitError(f"the game folder {game_rel!r} has control characters, surrounding spaces or characters "
                        "a workflow's path filter reads as a pattern (* ? [ ] ! + \\); rename the folder")
    top = game_rel.split("/", 1)[0].lower()
    if top in (".github", VENDOR_DIR, ".git"):
        raise InitError(f"the game folder {game_rel!r} is inside {top}/, which belongs to the CI set-up; "
                        "put the game in a folder of its own")
    return game_rel


def default_cron(game_id: str) -> str:
    """Hourly, at a minute of its own, so that games in one repository do not all start at once."""
    minute = 3 + int(hashlib.sha256(game_id.encode("utf-8")).hexdigest()[:8], 16) % 55
    return f"{minute} * * * *"


def check_cron(cron: str) -> str:
    if len(cron.split()) != 5 or not re.fullmatch(r"[0-9*/,\- ]+", cron):
        raise InitError(f"--tick-cron {cron!r}: give five cron fields of digits, '*', '/', ',' and '-', "
                        "e.g. '*/30 * * * *'")
    return " ".join(cron.split())


def default_branch(repo: Repo, remote: str) -> str | None:
    """The remote's default branch as this clone knows it (``refs/remotes/REMOTE/HEAD``), or None."""
    proc = repo.run("symbolic-ref", "-q", f"refs/remotes/{remote}/HEAD", check=False)
    ref = proc.stdout.strip()
    prefix = f"refs/remotes/{remote}/"
    return ref[len(prefix):] if proc.returncode == 0 and ref.startswith(prefix) else None


# --- the workflow ---------------------------------------------------------------------------

def _install_step(pbem_spec: str | None) -> str:
    if pbem_spec is None:
        return ("      - name: Install pbem from the game's branch (.pbem/, every file pinned by its sha256)\n"
                "        run: |\n"
                f"          python -m pip install --require-hashes --no-deps --only-binary=:all: -r {REQUIREMENTS}\n"
                "          python -m pip check\n")
    return ("      - name: Install pbem from PBEM_SPEC (chosen by the moderator with --pbem-spec)\n"
            "        run: python -m pip install \"$PBEM_SPEC\"\n")


def workflow_text(spec: WorkflowSpec) -> str:
    """The GitHub Actions workflow for one game (values quoted as JSON, which is valid YAML)."""
    template = (templates_dir() / TEMPLATE).read_text(encoding="utf-8")
    flags = "".join([" --verify-commits" if spec.verify_commits else "",
                     " --reveal-at-end" if spec.reveal_at_end else ""])
    spec_env = "" if spec.pbem_spec is None else f"  PBEM_SPEC: {json.dumps(spec.pbem_spec)}\n"
    where = spec.game_rel or "the repository root"
    values = {
        "@@GAME_DIR_TEXT@@": where,
        "@@GAME_ID@@": spec.game_id,
        "@@PBEM_VERSION@@": __version__,
        "@@NAME@@": json.dumps(f"pbem moderator: {spec.game_rel or spec.game_id}"),
        "@@BRANCH_TEXT@@": spec.branch,
        "@@BRANCH@@": json.dumps(spec.branch),
        "@@INCOMING_TEXT@@": join(spec.game_rel, INCOMING),
        "@@INCOMING_GLOB@@": json.dumps(join(spec.game_rel, INCOMING, "**")),
        "@@CRON@@": json.dumps(spec.cron),
        "@@CONCURRENCY@@": json.dumps(f"pbem-{_slug(spec.branch)}-{_slug(spec.game_rel or spec.game_id)}"),
        "@@GAME_DIR@@": json.dumps(spec.game_rel or "."),
        "@@SPEC_ENV@@": spec_env,
        "@@RUNNER@@": RUNNER,
        "@@ENVIRONMENT@@": spec.environment,
        "@@CHECKOUT@@": CHECKOUT.uses(),
        "@@SETUP_PYTHON@@": SETUP_PYTHON.uses(),
        "@@PYTHON_VERSION@@": PYTHON_VERSION,
        "@@INSTALL_STEP@@": _install_step(spec.pbem_spec),
        "@@SECRET@@": spec.secret,
        "@@KEY_FILE@@": join(spec.game_rel, "moderator", "moderator_ed25519"),
        "@@SYNC_FLAGS@@": flags,
    }
    for token, value in values.items():
        template = template.replace(token, value)
    return template


def _check_neighbours(spec: WorkflowSpec, rel: str, others: list[Workflow], force: bool) -> list[str]:
    """Refuse pbem workflows that would collide; returns the older workflows of this same game to remove."""
    replaced = []
    for other in others:
        if other.pbem_game is None:
            continue
        if other.pbem_game == spec.game_rel:
            if other.rel != rel:
                if not force:
                    raise InitError(f"{other.rel} already moderates {spec.game_rel or 'the root game'}; "
                                    f"use --force to replace it with {rel}")
                replaced.append(other.rel)
            continue
        if not spec.game_rel or not other.pbem_game:
            raise InitError(f"{other.rel} moderates another game in this repository; a game at the repository "
                            "root cannot share it: put each game in a folder of its own")
        if other.rel == rel:
            raise InitError(f"{rel} belongs to the game in {other.pbem_game}; rename this game's folder")
        if other.names_secret(spec.secret):
            raise InitError(f"the secret {spec.secret} is already used by {other.rel} (game in {other.pbem_game}); "
                            "choose another name with --secret")
    return replaced


def _unsafe_line(flow: Workflow) -> str:
    game = flow.pbem_game or "."
    return (f"{flow.rel} is a pbem workflow of the earlier design (started by a push, the key in a repository "
            f"secret): anyone who can push runs it with the key; replace it with `pbem git init {game} --ci github "
            "--force`")


def _check_legacy(workflows: list[Workflow], own_game: str | None, force: bool) -> list[str]:
    """Refuse (without ``force``) while an unsafe pbem workflow is in the repository; with ``force``, the other
    games' are returned as warnings (each is replaced by its own game's `init --force`)."""
    unsafe = legacy(workflows)
    if not unsafe:
        return []
    if not force:
        raise InitError(_unsafe_line(unsafe[0]) + (f" (and {len(unsafe) - 1} more)" if len(unsafe) > 1 else ""))
    return [_unsafe_line(flow) for flow in unsafe if flow.pbem_game != own_game]


# --- the vendored pbem ------------------------------------------------------------------------

def check_vendored(root: Path) -> tuple[str, str] | None:
    """(path, sha256) of the wheel ``.pbem/requirements.txt`` installs, after checking that the file there has
    that hash; None when there is no requirements file."""
    requirements = root / REQUIREMENTS
    if not requirements.is_file():
        return None
    current = pinned_wheel(requirements.read_text(encoding="utf-8", errors="replace"))
    if current is None:
        raise InitError(f"{REQUIREMENTS} pins no pbem wheel of {WHEELS_DIR}/; restore it from the history or "
                        "write it anew with --force")
    on_disk = root / current[0]
    if not on_disk.is_file() or sha256_file(on_disk) != current[1]:
        found = "is missing" if not on_disk.is_file() else f"has sha256 {sha256_file(on_disk)[:12]}..."
        raise InitError(f"{REQUIREMENTS} pins {current[0]} with sha256 {current[1][:12]}..., but the file {found}; "
                        "restore .pbem/ from the history or write it anew with --force")
    return current


def vendor_pbem(root: Path, force: bool) -> Vendored:
    """The wheel of the running pbem and the hashed requirements: nothing when they are there already,
    unless ``force`` (which also pins the dependencies anew)."""
    current = None if force else check_vendored(root)
    with tempfile.TemporaryDirectory(prefix="pbem-ci-") as tmp:
        wheel = build_wheel(Path(tmp))
        wheel_rel = f"{WHEELS_DIR}/{wheel.name}"
        if current == (wheel_rel, wheel.sha256):
            return Vendored()            # this repository's CI installs this very pbem already
        if current is not None:
            raise InitError(f"{REQUIREMENTS} installs {Path(current[0]).name} for every game in this repository; "
                            f"use --force to install this pbem ({wheel.name}) instead")
        pins = pin_dependencies(wheel)
        vendored = Vendored({wheel_rel: wheel.path.read_bytes(),
                             REQUIREMENTS: requirements_text(wheel_rel, wheel, pins, __version__).encode("utf-8")})
    wheels = root / WHEELS_DIR
    if wheels.is_dir():
        vendored.stale = sorted(p.relative_to(root).as_posix() for p in wheels.glob("pbem-*.whl")
                                if p.name != wheel.name)
    return vendored


# --- the checklist ------------------------------------------------------------------------------

def checklist(spec: WorkflowSpec, key_file: Path, known_default: str | None) -> list[str]:
    """What only GitHub's settings can give; printed by `pbem git init --ci github`, one item a line."""
    default = ("" if known_default == spec.branch else
               f" (this clone does not know the default branch: check Settings > General > Default branch)")
    return [
        "Players get no write access: add no player as a collaborator; each forks the repository and sends moves "
        "as a pull request (a private repository must allow forking; players need read access).",
        f"Settings > Environments > New environment {spec.environment!r}; Deployment branches and tags: "
        f"Selected branches and tags, add {spec.branch!r} only.",
        f"In that environment (not in the repository's Secrets and variables > Actions), add the secret "
        f"{spec.secret}: the whole file {key_file}, from the -----BEGIN line to the -----END line.",
        f"{spec.branch!r} must stay the repository's default branch: GitHub runs pull_request_target and "
        f"schedule workflows only from it{default}.",
        f"Recommended: Settings > Rules > Rulesets > New branch ruleset for {spec.branch!r}: Restrict deletions, "
        "Block force pushes.",
        "Never merge the players' pull requests; they stay open, and the receipts appear on "
        f"{spec.branch!r}.",
    ]


# --- init ---------------------------------------------------------------------------------------

@dataclass
class _GithubPlan:
    """What `init --ci github` will write, decided before anything is written."""
    rel: str
    text: str
    replaced: list[str]
    vendored: Vendored
    secret: str
    warnings: list[str]
    checklist: list[str]


def _plan_github(repo: Repo, gd: GameDir, prefix: str, branch: str, game_id: str, opts: InitOptions,
                 remote: str) -> _GithubPlan:
    spec = WorkflowSpec(check_game_path(prefix), game_id, branch,
                        check_secret(opts.secret or default_secret(game_id)),
                        opts.verify_commits, opts.reveal_at_end, opts.pbem_spec,
                        check_cron(opts.tick_cron or default_cron(game_id)),
                        check_environment(opts.environment or DEFAULT_ENVIRONMENT))
    known_default = default_branch(repo, remote)
    if known_default is not None and known_default != branch:
        raise InitError(f"the game's branch {branch} is not the repository's default branch {known_default}: "
                        "GitHub runs pull_request_target and schedule workflows only from the default branch; "
                        f"give --branch {known_default}, or make {branch} the default on GitHub and run "
                        f"`git remote set-head {remote} --auto`")
    rel = workflow_rel(prefix, game_id)
    workflows = repository_workflows(repo.root)
    replaced = _check_neighbours(spec, rel, workflows, opts.force)
    own = [flow for flow in workflows if flow.rel == rel or flow.rel in replaced]
    others = [flow for flow in workflows if flow not in own]
    problems = hazards(others, spec.secret, spec.environment, branch)
    if problems:
        raise InitError(problems[0] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
    _check_legacy(own, prefix, opts.force)
    warnings = _check_legacy(others, prefix, opts.force)
    text = workflow_text(spec)
    path = repo.root / rel
    if path.is_file() and path.read_text(encoding="utf-8") != text and not opts.force:
        raise InitError(f"{path} exists and differs; use --force to replace it")
    vendored = vendor_pbem(repo.root, opts.force) if opts.pbem_spec is None else Vendored()
    return _GithubPlan(rel, text, replaced, vendored, spec.secret, warnings,
                       checklist(spec, gd.root / "moderator" / "moderator_ed25519", known_default))


def init_git(gd: GameDir, opts: InitOptions) -> InitResult:
    gd.require()
    if opts.ci is not None and opts.ci not in CI_KINDS:
        raise InitError(f"--ci {opts.ci!r} is not supported; choose one of: {', '.join(CI_KINDS)}")
    settings = load_settings(gd)
    repo = Repo.discover(gd.root, Identity(settings.user_name, settings.user_email))
    prefix = repo.rel(gd.root)
    branch = opts.branch or repo.current_branch() or "main"
    header = gd.entries()[0]
    game_id = re.sub(r"[\x00-\x1f\x7f]", "?", str(header.get("id", gd.root.name)))
    result = InitResult(branch=branch)

    # everything that can fail is decided before the first file is written
    plan = None
    if opts.ci == "github":
        plan = _plan_github(repo, gd, prefix, branch, game_id, opts, settings.remote or "origin")
        result.secret, result.workflow = plan.secret, repo.root / plan.rel
        result.warnings, result.checklist = plan.warnings, plan.checklist
    else:
        result.warnings = _check_legacy(repository_workflows(repo.root), None, opts.force)

    prepare_moderator_dir(gd)
    readme = gd.root / INCOMING / "README.md"
    if not readme.is_file():
        text = INCOMING_README_PULL_REQUESTS.replace("BRANCH", branch) if opts.ci else INCOMING_README
        write_atomic(readme, text, mode=public_mode())
        result.written.append(readme)
    save_settings(gd, replace(settings, verify_commits=opts.verify_commits, reveal_at_end=opts.reveal_at_end,
                              tick=settings.tick or rules_of(header) is not None))
    if opts.seal or opts.ci:
        result.written += seal_seed(gd).written
    extra: list[str] = []
    if plan is not None:
        write_atomic(repo.root / plan.rel, plan.text, mode=public_mode())
        result.written.append(repo.root / plan.rel)
        for old in [*plan.replaced, *plan.vendored.stale]:
            (repo.root / old).unlink()
            result.removed.append(repo.root / old)
        for file_rel, data in plan.vendored.files.items():
            write_atomic(repo.root / file_rel, data, mode=public_mode())
            result.written.append(repo.root / file_rel)
        extra = [plan.rel, *plan.replaced, *([VENDOR_DIR] if (repo.root / VENDOR_DIR).exists() else [])]
    if opts.commit:
        repo.add_all(join(prefix, INCOMING, "README.md"))
        result.commit = commit(repo, gd, prefix, f"pbem: share game {game_id} through git",
                               _commit_body(opts, result.secret), extra=tuple(extra))
    return result


def _commit_body(opts: InitOptions, secret: str | None) -> str:
    if opts.ci:
        lines = ["Players send signed moves under incoming/PLAYER/ in pull requests from their forks; receipts "
                 "appear in receipts/PLAYER/."]
    else:
        lines = ["Players add signed moves under incoming/PLAYER/ and push; receipts appear in receipts/PLAYER/."]
    if opts.verify_commits:
        lines.append("Commits that add moves must be SSH-signed by the player who owns the folder.")
    if opts.ci:
        source = f"pip install {opts.pbem_spec}" if opts.pbem_spec else f"the pbem wheel in {WHEELS_DIR}/"
        environment = opts.environment or DEFAULT_ENVIRONMENT
        lines.append(f"The {opts.ci} CI workflow is the moderator (secret {secret} in the environment "
                     f"{environment}; it installs {source}).")
    return "\n".join(lines)
