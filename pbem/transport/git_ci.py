"""``pbem git init``: share a game through a git repository, optionally with CI as the moderator.

Writes ``GAME_DIR/incoming/README.md`` (how players hand in moves), the
moderator's private settings ``GAME_DIR/moderator/git.yaml``, optionally the
sealed seed ``GAME_DIR/moderator.seed.age`` and, for ``--ci github``:

* the workflow ``.github/workflows/pbem-GAME.yml`` at the repository root
  (from ``templates/ci/github.yml``): one per game, triggered only by its own
  ``GAME_DIR/incoming/**`` (and, when the game has deadlines, a schedule that
  runs ``pbem tick``), with its own secret for the moderator key;
* the pbem it installs, shared by every game in the repository:
  ``.pbem/wheels/pbem-VERSION-py3-none-any.whl`` (the running pbem,
  :mod:`pbem.transport.ci_wheel`) and ``.pbem/requirements.txt`` (that wheel
  and every dependency pinned by sha256, :mod:`pbem.transport.ci_lock`),
  unless ``--pbem-spec`` names another source;

then commits the game folder (never ``moderator/``) and those files.
"""
from __future__ import annotations

import hashlib
import json
import re
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from pbem import __version__
from pbem.data import templates_dir
from pbem.deadlines import rules_of
from pbem.errors import PbemError
from pbem.fsutil import public_mode, write_atomic
from pbem.gamedir import GameDir
from pbem.transport.ci_actions import CHECKOUT, SETUP_PYTHON
from pbem.transport.ci_lock import PYTHON_VERSION, RUNNER, pin_dependencies, pinned_wheel, requirements_text
from pbem.transport.ci_wheel import build_wheel, sha256_file
from pbem.transport.git_repo import Identity, Repo
from pbem.transport.git_seed import prepare_moderator_dir, seal_seed
from pbem.transport.git_settings import load_settings, save_settings
from pbem.transport.git_sync import INCOMING, commit, join

CI_KINDS = ("github",)
WORKFLOWS_DIR = ".github/workflows"
TEMPLATE = "ci/github.yml"
VENDOR_DIR = ".pbem"
WHEELS_DIR = f"{VENDOR_DIR}/wheels"
REQUIREMENTS = f"{VENDOR_DIR}/requirements.txt"
SECRET_PREFIX = "PBEM_MODERATOR_KEY_"
SECRET_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SYNC_MARK = "pbem git sync"          # how a workflow written by pbem is recognised

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
    tick_cron: str | None = None     # None: hourly at a minute chosen by the game id (games with deadlines)
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


@dataclass(frozen=True)
class WorkflowSpec:
    """Everything that varies between the workflows of two games."""
    game_rel: str                    # the game folder from the repository root ('' for the root)
    game_id: str
    branch: str
    secret: str
    verify_commits: bool = False
    reveal_at_end: bool = False
    pbem_spec: str | None = None
    cron: str | None = None          # the schedule for `pbem tick`, when the game has deadlines


@dataclass(frozen=True)
class ExistingWorkflow:
    rel: str                         # repository path of the file
    game_rel: str
    secrets: frozenset[str]


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


def check_game_path(game_rel: str) -> str:
    """The folder goes into the workflow's path filter and comments: no control or glob characters."""
    if re.search(r"[\x00-\x1f\x7f*?\[\]!]", game_rel):
        raise InitError(f"the game folder {game_rel!r} has control or glob characters (* ? [ ] !), which a "
                        "workflow's path filter cannot name; rename the folder")
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


# --- the workflow ---------------------------------------------------------------------------

def _install_step(pbem_spec: str | None) -> str:
    if pbem_spec is None:
        return ("      - name: Install pbem from this repository (.pbem/, every file pinned by its sha256)\n"
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
    schedule = ("" if spec.cron is None else
                f"  schedule:                     # pbem tick: the game has deadlines\n"
                f"    - cron: {json.dumps(spec.cron)}\n")
    spec_env = "" if spec.pbem_spec is None else f"  PBEM_SPEC: {json.dumps(spec.pbem_spec)}\n"
    where = spec.game_rel or "the repository root"
    values = {
        "@@GAME_DIR_TEXT@@": where,
        "@@GAME_ID@@": spec.game_id,
        "@@PBEM_VERSION@@": __version__,
        "@@NAME@@": json.dumps(f"pbem moderator: {spec.game_rel or spec.game_id}"),
        "@@BRANCH@@": json.dumps(spec.branch),
        "@@INCOMING_GLOB@@": json.dumps(join(spec.game_rel, INCOMING, "**")),
        "@@SCHEDULE@@": schedule,
        "@@CONCURRENCY@@": json.dumps(f"pbem-{_slug(spec.branch)}-{_slug(spec.game_rel or spec.game_id)}"),
        "@@GAME_DIR@@": json.dumps(spec.game_rel or "."),
        "@@SPEC_ENV@@": spec_env,
        "@@RUNNER@@": RUNNER,
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


def existing_workflows(root: Path) -> list[ExistingWorkflow]:
    """The workflows in the repository that run `pbem git sync`, with their game folder and secrets."""
    folder = root / WORKFLOWS_DIR
    found = []
    for path in sorted([*folder.glob("*.yml"), *folder.glob("*.yaml")]) if folder.is_dir() else []:
        text = path.read_text(encoding="utf-8", errors="replace")
        if SYNC_MARK not in text:
            continue
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            continue
        env = data.get("env") if isinstance(data, dict) else None
        game = env.get("GAME_DIR") if isinstance(env, dict) else None
        if not isinstance(game, str):
            continue
        secrets = frozenset(re.findall(r"secrets\.([A-Za-z0-9_]+)", text))
        found.append(ExistingWorkflow(path.relative_to(root).as_posix(), "" if game in ("", ".") else game,
                                      secrets))
    return found


def _check_neighbours(spec: WorkflowSpec, rel: str, others: list[ExistingWorkflow], force: bool) -> list[str]:
    """Refuse workflows that would collide; returns the older workflows of this same game to remove."""
    replaced = []
    for other in others:
        if other.game_rel == spec.game_rel:
            if other.rel != rel:
                if not force:
                    raise InitError(f"{other.rel} already moderates {spec.game_rel or 'the root game'}; "
                                    f"use --force to replace it with {rel}")
                replaced.append(other.rel)
            continue
        if not spec.game_rel or not other.game_rel:
            raise InitError(f"{other.rel} moderates another game in this repository; a game at the repository "
                            "root cannot share it: put each game in a folder of its own")
        if other.rel == rel:
            raise InitError(f"{rel} belongs to the game in {other.game_rel}; rename this game's folder")
        if spec.secret in other.secrets:
            raise InitError(f"the secret {spec.secret} is already used by {other.rel} (game in {other.game_rel}); "
                            "choose another name with --secret")
    return replaced


# --- the vendored pbem ------------------------------------------------------------------------

def vendor_pbem(root: Path, force: bool) -> Vendored:
    """The wheel of the running pbem and the hashed requirements: nothing when they are there already,
    unless ``force`` (which also pins the dependencies anew)."""
    requirements = root / REQUIREMENTS
    with tempfile.TemporaryDirectory(prefix="pbem-ci-") as tmp:
        wheel = build_wheel(Path(tmp))
        wheel_rel = f"{WHEELS_DIR}/{wheel.name}"
        current = pinned_wheel(requirements.read_text(encoding="utf-8")) if requirements.is_file() else None
        on_disk = root / wheel_rel
        same = current == (wheel_rel, wheel.sha256) and on_disk.is_file() and sha256_file(on_disk) == wheel.sha256
        if same and not force:
            return Vendored()            # this repository's CI installs this very pbem already
        if requirements.is_file() and current != (wheel_rel, wheel.sha256) and not force:
            installed = Path(current[0]).name if current else "something else"
            raise InitError(f"{REQUIREMENTS} installs {installed} for every game in this repository; use --force "
                            f"to install this pbem ({wheel.name}) instead")
        pins = pin_dependencies(wheel)
        vendored = Vendored({wheel_rel: wheel.path.read_bytes(),
                             REQUIREMENTS: requirements_text(wheel_rel, wheel, pins, __version__).encode("utf-8")})
    wheels = root / WHEELS_DIR
    if wheels.is_dir():
        vendored.stale = sorted(p.relative_to(root).as_posix() for p in wheels.glob("pbem-*.whl")
                                if p.name != wheel.name)
    return vendored


# --- init ---------------------------------------------------------------------------------------

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
    workflow: tuple[str, str] | None = None
    replaced: list[str] = []
    vendored = Vendored()
    if opts.ci == "github":
        has_deadlines = rules_of(header) is not None
        spec = WorkflowSpec(check_game_path(prefix), game_id, branch, check_secret(opts.secret or default_secret(game_id)),
                            opts.verify_commits, opts.reveal_at_end, opts.pbem_spec,
                            check_cron(opts.tick_cron or default_cron(game_id)) if has_deadlines else None)
        rel = workflow_rel(prefix, game_id)
        replaced = _check_neighbours(spec, rel, existing_workflows(repo.root), opts.force)
        text = workflow_text(spec)
        path = repo.root / rel
        if path.is_file() and path.read_text(encoding="utf-8") != text and not opts.force:
            raise InitError(f"{path} exists and differs; use --force to replace it")
        if opts.pbem_spec is None:
            vendored = vendor_pbem(repo.root, opts.force)
        workflow = (rel, text)
        result.secret = spec.secret
        result.workflow = path

    prepare_moderator_dir(gd)
    readme = gd.root / INCOMING / "README.md"
    if not readme.is_file():
        write_atomic(readme, INCOMING_README, mode=public_mode())
        result.written.append(readme)
    save_settings(gd, replace(settings, verify_commits=opts.verify_commits, reveal_at_end=opts.reveal_at_end,
                              tick=settings.tick or rules_of(header) is not None))
    if opts.seal or opts.ci:
        result.written += seal_seed(gd).written
    extra: list[str] = []
    if workflow is not None:
        rel, text = workflow
        write_atomic(repo.root / rel, text, mode=public_mode())
        result.written.append(repo.root / rel)
        for old in [*replaced, *vendored.stale]:
            (repo.root / old).unlink()
            result.removed.append(repo.root / old)
        for file_rel, data in vendored.files.items():
            write_atomic(repo.root / file_rel, data, mode=public_mode())
            result.written.append(repo.root / file_rel)
        extra = [rel, *replaced, *([VENDOR_DIR] if (repo.root / VENDOR_DIR).exists() else [])]
    if opts.commit:
        repo.add_all(join(prefix, INCOMING, "README.md"))
        result.commit = commit(repo, gd, prefix, f"pbem: share game {game_id} through git",
                               _commit_body(opts, result.secret), extra=tuple(extra))
    return result


def _commit_body(opts: InitOptions, secret: str | None) -> str:
    lines = ["Players add signed moves under incoming/PLAYER/ and push; receipts appear in receipts/PLAYER/."]
    if opts.verify_commits:
        lines.append("Commits that add moves must be SSH-signed by the player who owns the folder.")
    if opts.ci:
        source = f"pip install {opts.pbem_spec}" if opts.pbem_spec else f"the pbem wheel in {WHEELS_DIR}/"
        lines.append(f"The {opts.ci} CI workflow is the moderator (secret {secret}; it installs {source}).")
    return "\n".join(lines)
