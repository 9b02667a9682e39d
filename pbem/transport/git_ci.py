"""``pbem git init``: share a game through a git repository, optionally with CI as the moderator.

Writes ``GAME_DIR/incoming/README.md`` (how players hand in moves), the
moderator's private settings ``GAME_DIR/moderator/git.yaml``, optionally the
sealed seed ``GAME_DIR/moderator.seed.age`` and, for ``--ci github``, the
workflow ``.github/workflows/pbem.yml`` at the repository root (from
``templates/ci/github.yml``), then commits the game folder (never
``moderator/``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from pbem import __version__
from pbem.data import templates_dir
from pbem.errors import PbemError
from pbem.fsutil import write_atomic
from pbem.gamedir import GameDir
from pbem.transport.git_repo import Identity, Repo
from pbem.transport.git_seed import prepare_moderator_dir, seal_seed
from pbem.transport.git_settings import load_settings, save_settings
from pbem.transport.git_sync import INCOMING, commit, join

CI_KINDS = ("github",)
WORKFLOW_PATH = ".github/workflows/pbem.yml"
TEMPLATE = "ci/github.yml"

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
    pbem_spec: str = f"pbem=={__version__}"
    branch: str | None = None
    commit: bool = True
    force: bool = False


@dataclass
class InitResult:
    written: list[Path] = field(default_factory=list)
    commit: str | None = None
    branch: str = ""


def workflow_text(game_rel: str, branch: str, pbem_spec: str, verify_commits: bool, reveal_at_end: bool) -> str:
    """The GitHub Actions workflow for one game folder (values quoted as JSON, which is valid YAML)."""
    template = (templates_dir() / TEMPLATE).read_text(encoding="utf-8")
    flags = ("".join([" --verify-commits" if verify_commits else "", " --reveal-at-end" if reveal_at_end else ""]))
    glob = join(game_rel, INCOMING, "**")
    values = {
        "@@GAME_DIR_TEXT@@": game_rel or "the repository root",
        "@@PBEM_VERSION@@": __version__,
        "@@BRANCH@@": json.dumps(branch),
        "@@INCOMING_GLOB@@": json.dumps(glob),
        "@@GAME_DIR@@": json.dumps(game_rel or "."),
        "@@PBEM_SPEC@@": json.dumps(pbem_spec),
        "@@SYNC_FLAGS@@": flags,
    }
    for token, value in values.items():
        template = template.replace(token, value)
    return template


def init_git(gd: GameDir, opts: InitOptions) -> InitResult:
    gd.require()
    if opts.ci is not None and opts.ci not in CI_KINDS:
        raise InitError(f"--ci {opts.ci!r} is not supported; choose one of: {', '.join(CI_KINDS)}")
    settings = load_settings(gd)
    repo = Repo.discover(gd.root, Identity(settings.user_name, settings.user_email))
    prefix = repo.rel(gd.root)
    branch = opts.branch or repo.current_branch() or "main"
    result = InitResult(branch=branch)
    prepare_moderator_dir(gd)
    readme = gd.root / INCOMING / "README.md"
    if not readme.is_file():
        write_atomic(readme, INCOMING_README)
        result.written.append(readme)
    save_settings(gd, replace(settings, verify_commits=opts.verify_commits, reveal_at_end=opts.reveal_at_end))
    if opts.seal or opts.ci:
        result.written += seal_seed(gd).written
    extra: tuple[str, ...] = ()
    if opts.ci == "github":
        path = repo.root / WORKFLOW_PATH
        text = workflow_text(prefix, branch, opts.pbem_spec, opts.verify_commits, opts.reveal_at_end)
        if path.is_file() and path.read_text(encoding="utf-8") != text and not opts.force:
            raise InitError(f"{path} exists and differs; use --force to replace it")
        write_atomic(path, text)
        result.written.append(path)
        extra = (WORKFLOW_PATH,)
    if opts.commit:
        repo.add_all(join(prefix, INCOMING, "README.md"))
        game_id = gd.entries()[0].get("id", gd.root.name)
        result.commit = commit(repo, gd, prefix, f"pbem: share game {game_id} through git",
                               _commit_body(opts), extra=extra)
    return result


def _commit_body(opts: InitOptions) -> str:
    lines = ["Players add signed moves under incoming/PLAYER/ and push; receipts appear in receipts/PLAYER/."]
    if opts.verify_commits:
        lines.append("Commits that add moves must be SSH-signed by the player who owns the folder.")
    if opts.ci:
        lines.append(f"The {opts.ci} CI workflow is the moderator (secret PBEM_MODERATOR_KEY).")
    return "\n".join(lines)
