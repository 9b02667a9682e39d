"""The CI moderator against a simulated GitHub (tests/github_sim.py, where the GitHub semantics it encodes are
listed): first the simulator itself (which workflow each trigger runs, which secrets a job sees, who may push),
then a control (the workflow earlier pbem versions wrote, started by a push, runs a player's own wheel with the
key), then the workflow `pbem git init --ci github` writes now, under hostile pull requests from forks."""
from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from github_sim import BOT, TEST_BIN, SimGitHub, files_containing, hostile_wheel, snapshot_pbem, venv_copier
from legacy_ci import legacy_workflow_text
from pipeline_helpers import new_game
from test_git_helpers import GAME, PLAYERS, Player, SharedTemplates, cli, git, hermetic_git  # noqa: F401

from pbem import __version__
from pbem.store.gamedir import GameDir
from pbem.transport.git.ci.actions import CHECKOUT
from pbem.transport.git.ci.lock import RUNNER
from pbem.transport.git.setup import REQUIREMENTS, default_secret, workflow_rel

DRAW = [{"draw": True}]
SEED = hashlib.sha256(b"the CI simulator's seed").digest()
ENVIRONMENT = "pbem-moderator"


@pytest.fixture(scope="session")
def pip_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pip-cache")


@pytest.fixture(autouse=True)
def shared_pip_cache(pip_cache, monkeypatch):
    """`pbem git init --ci github` asks the package index for the dependencies' hashes; keep its downloads."""
    monkeypatch.setenv("PIP_CACHE_DIR", str(pip_cache))


@pytest.fixture
def sim(tmp_path, request, tmp_path_factory):
    with SimGitHub(tmp_path / "gh") as github:
        github.new_venv = venv_copier(request.config, tmp_path_factory)     # one venv per session
        yield github


# --- the simulator: what GitHub runs, with which secrets ---------------------------------------------------

def probe_workflow(version: str, triggers: str) -> str:
    """Two jobs that print which version of the file runs and which secrets they see, one in an environment."""
    step = ("    steps:\n"
            f"      - run: echo \"{version} $JOB repo=${{REPO:-none}} env=${{ENVS:-none}}\"\n"
            "        env:\n"
            "          REPO: ${{ secrets.REPO_SECRET }}\n"
            "          ENVS: ${{ secrets.ENV_SECRET }}\n")
    return (f"name: probe\non: {triggers}\njobs:\n"
            f"  guarded:\n    runs-on: ubuntu-24.04\n    environment: guarded\n    env:\n      JOB: guarded\n{step}"
            f"  open:\n    runs-on: ubuntu-24.04\n    env:\n      JOB: open\n{step}")


def lines_of(runs) -> list[str]:
    """One line per job: event, and what it printed (or why it did not run)."""
    return [f"{run.event}: {job.output.strip()}" for run in runs for job in run.jobs]


def test_each_trigger_runs_the_workflow_github_would_run_with_the_secrets_github_would_give(sim, tmp_path):
    sim.repo_secrets["REPO_SECRET"] = "r"
    sim.add_environment("guarded", ["main"], {"ENV_SECRET": "e"})
    triggers = "[push, pull_request, pull_request_target, schedule, workflow_dispatch]"
    owner = sim.clone(tmp_path / "owner", sim.owner_token, "owner")
    flow = owner / ".github" / "workflows" / "probe.yml"
    flow.parent.mkdir(parents=True)
    flow.write_text(probe_workflow("main-v1", triggers))
    git(owner, "add", "-A")
    git(owner, "commit", "-q", "-m", "probe")
    git(owner, "push", "-q", "origin", "main")
    assert lines_of(sim.process()) == ["push: main-v1 guarded repo=r env=e", "push: main-v1 open repo=r env=none"]

    # a collaborator pushes another version of the workflow to a branch of their own: it runs (push runs the
    # pushed commit's workflow), but the environment's secret stays out of its reach
    helper = sim.clone(tmp_path / "helper", sim.add_collaborator("helper"), "helper")
    git(helper, "switch", "-q", "-c", "feature")
    (helper / ".github" / "workflows" / "probe.yml").write_text(probe_workflow("feature-v2", triggers))
    git(helper, "commit", "-q", "-am", "v2")
    git(helper, "push", "-q", "origin", "feature")
    assert lines_of(sim.process()) == [
        'push: Branch "feature" is not allowed to deploy to guarded due to environment protection rules.',
        "push: feature-v2 open repo=r env=none"]
    sim.dispatch("feature")
    assert lines_of(sim.process())[1] == "workflow_dispatch: feature-v2 open repo=r env=none"
    sim.schedule()
    assert lines_of(sim.process()) == ["schedule: main-v1 guarded repo=r env=e",
                                       "schedule: main-v1 open repo=r env=none"]

    # a player without write access: pushing to the repository is refused; a pull request from a fork runs
    # the default branch's workflow for pull_request_target, and its own only without any secret
    fork = sim.fork("mallet")
    player = tmp_path / "mallet"
    git(tmp_path, "clone", "-q", fork, player)
    git(player, "switch", "-q", "-c", "patch")
    (player / ".github" / "workflows" / "probe.yml").write_text(probe_workflow("fork-v3", triggers))
    git(player, "commit", "-q", "-am", "v3")
    assert git(player, "push", "-q", sim.url, "patch:main", check=False).returncode != 0
    git(player, "push", "-q", "origin", "patch")
    sim.open_pull_request("mallet", fork, "patch")
    assert lines_of(sim.process()) == [
        "pull_request_target: main-v1 guarded repo=r env=e", "pull_request_target: main-v1 open repo=r env=none",
        'pull_request: Branch "refs/pull/1/merge" is not allowed to deploy to guarded due to environment '
        "protection rules.",
        "pull_request: fork-v3 open repo=none env=none"]
    (player / "more.txt").write_text("more")
    git(player, "add", "more.txt")
    git(player, "commit", "-q", "-m", "more")
    git(player, "push", "-q", "origin", "patch")
    runs = sim.process()
    assert [(run.event, run.action) for run in runs] == [("pull_request_target", "synchronize"),
                                                         ("pull_request", "synchronize")]
    assert git(sim.upstream, "rev-parse", "refs/pull/1/head").stdout == git(player, "rev-parse", "HEAD").stdout
    # the same workflow without an environment policy: the secret reaches every branch
    sim.environments["guarded"].branches = None
    git(helper, "commit", "-q", "--allow-empty", "-m", "again")
    git(helper, "push", "-q", "origin", "feature")
    assert lines_of(sim.process())[0] == "push: feature-v2 guarded repo=r env=e"


def test_a_jobs_token_pushes_only_with_contents_write_and_its_push_starts_no_run(sim, tmp_path):
    job = ("  {name}:\n    runs-on: ubuntu-24.04\n    permissions:\n      contents: {perm}\n    steps:\n"
           f"      - uses: {CHECKOUT.uses()}\n        with:\n          ref: main\n"
           "      - run: |\n          git -c user.name=ci -c user.email=ci@test commit -q --allow-empty -m {name}\n"
           "          git push -q origin HEAD:main\n")
    text = ("name: pushes\non: [push, workflow_dispatch]\njobs:\n" + job.format(name="reader", perm="read")
            + job.format(name="writer", perm="write"))
    owner = sim.clone(tmp_path / "owner", sim.owner_token, "owner")
    (owner / ".github" / "workflows").mkdir(parents=True)
    (owner / ".github" / "workflows" / "pushes.yml").write_text(text)
    git(owner, "add", "-A")
    git(owner, "commit", "-q", "-m", "pushes")
    git(owner, "push", "-q", "origin", "main")
    runs = sim.process()
    assert len(runs) == 1                       # the writer's push started no second run
    reader, writer = runs[0].jobs
    assert reader.status == "failure" and "403" in reader.output
    assert writer.status == "success"
    assert git(sim.upstream, "log", "-1", "--format=%s", "main").stdout.strip() == "writer"
    assert sim.server.denied == [BOT]


# --- a game moderated by the simulated GitHub ----------------------------------------------------------------

@dataclass
class CiGame:
    sim: SimGitHub
    moderator: Path             # the moderator's clone
    gd: GameDir
    secret: str
    key_text: str
    needles: list[bytes]        # what must never leak: the key's lines and the seed
    markers: Path               # where a player's code drops its marker files, if it ever runs
    setup_commit: str
    workflow_text: str


def start_game(sim: SimGitHub, tmp_path: Path, key_pool: dict[str, Path], templates: SharedTemplates) -> CiGame:
    """The moderator's set-up as docs/git.md says: a clone, `pbem new`, `pbem git init --ci github`, push.
    The club's repository holds the pbem its CI installs (.pbem/) already, from an earlier game's `pbem git init
    --ci github` (the session's toy world with it, tests/test_git_helpers.py): init checks it and keeps it, as for
    a second game (issue 19: the first init's real lock, a `pip download`, is made once per session)."""
    clone = sim.clone(tmp_path / "moderator", sim.owner_token, "moderator")
    earlier = templates.template(key_pool, "--ci", "github", "--verify-commits") / "moderator" / ".pbem"
    shutil.copytree(earlier, clone / ".pbem")
    git(clone, "add", ".pbem")
    git(clone, "commit", "-q", "-m", "the pbem this repository's CI installs")
    gd = new_game(clone / GAME, "toy", key_pool, PLAYERS, seed=SEED)
    out = cli("init", gd.root, "--ci", "github").output
    secret = default_secret(gd.entries()[0]["id"])
    assert f"add the secret {secret}" in out and f"New environment {ENVIRONMENT!r}" in out
    git(clone, "push", "-q", "-u", "origin", "main")
    sim.trusted_pbem = snapshot_pbem(clone)
    key_text = key_pool["mallory"].read_text()
    needles = [line.encode() for line in key_text.splitlines() if len(line) >= 40 and "-----" not in line]
    needles.append(gd.seed_path.read_text().strip().encode())
    assert len(needles) >= 3
    rel = workflow_rel(GAME, gd.entries()[0]["id"])
    return CiGame(sim, clone, gd, secret, key_text, needles, tmp_path / "markers",
                  git(clone, "rev-parse", "HEAD").stdout.strip(), (clone / rel).read_text())


def fork_player(game: CiGame, tmp_path: Path, name: str, key: Path) -> tuple[Player, Path]:
    """A player's fork and their clone of it, on a branch `moves`, with the game's repository as `upstream`."""
    fork = game.sim.fork(name)
    clone = tmp_path / f"player-{name}"
    git(tmp_path, "clone", "-q", fork, clone)
    git(clone, "remote", "add", "upstream", game.sim.url)
    git(clone, "switch", "-q", "-c", "moves")
    return Player(name, clone, key), fork


def add_hostile_pbem(root: Path, markers: Path) -> None:
    """`.pbem/` changed to install a wheel of the player's own, pinned by its hash as pip requires."""
    wheel, sha = hostile_wheel(root / ".pbem" / "wheels", markers, __version__)
    (root / REQUIREMENTS).write_text(f"./.pbem/wheels/{wheel.name} --hash=sha256:{sha}\n")


def leaks(game: CiGame, tmp_path: Path) -> list[str]:
    """Every file (git objects included) outside the moderator's private folders holding the key or the seed."""
    private = [game.gd.root / "moderator", *(p / "workspace" / GAME / "moderator" for p in game.sim.runs_dir.iterdir())]
    return files_containing(tmp_path, game.needles, tuple(private))


@pytest.mark.slow(seconds=9)
def test_control_the_earlier_push_workflow_runs_a_players_wheel_with_the_key(sim, tmp_path, key_pool,
                                                                              toy_registered, shared_templates):
    """Under the same simulator, the design pbem 0.1.0 wrote (players push; a push runs the pushed commit's
    workflow; the key in a repository secret) hands the key to a player's code: the simulator sees the attack."""
    game = start_game(sim, tmp_path, key_pool, shared_templates)
    rel = workflow_rel(GAME, game.gd.entries()[0]["id"])
    (game.moderator / rel).write_text(legacy_workflow_text(GAME, game.gd.entries()[0]["id"], game.secret))
    git(game.moderator, "commit", "-q", "-am", "the workflow of pbem 0.1.0")
    git(game.moderator, "push", "-q")
    sim.trusted_pbem = snapshot_pbem(game.moderator)
    sim.repo_secrets[game.secret] = game.key_text                  # as docs/git.md said then
    assert sim.process() == []                                     # the moderator's push touches no incoming/

    red = Player("red", sim.clone(tmp_path / "red", sim.add_collaborator("red"), "red"), key_pool["red"])
    add_hostile_pbem(red.clone, game.markers)
    paths = red.write_move("0000.yaml", DRAW)
    git(red.clone, "add", "-A")
    red.commit(paths, "red: 0000.yaml")
    red.git("push", "-q", "origin", "main")
    runs = sim.process()
    assert [(run.event, run.workflow) for run in runs] == [("push", rel)]
    job = runs[0].jobs[0]
    assert job.secrets_seen == (game.secret,)
    assert job.step("Install pbem").note == ""                     # .pbem/ was not init's: installed for real
    stolen = [p.read_text() for p in sorted(game.markers.iterdir())]
    assert game.key_text in stolen                                 # the player's code ran with the key
    assert "STOLEN KEY:" in runs[0].output and game.needles[0].decode() in runs[0].output
    assert str(game.markers) in "\n".join(leaks(game, tmp_path))   # and the search for leaks does find them


def hostile_pull_request(game: CiGame, player: Player) -> None:
    """Everything a player could put in a pull request to get the key or the game's branch, and a move."""
    root = player.clone
    wants_key = (
        "name: pwn\non: [push, pull_request, pull_request_target]\npermissions:\n  contents: write\njobs:\n"
        f"  moderate:\n    runs-on: {RUNNER}\n    environment: {ENVIRONMENT}\n    steps:\n"
        f"      - uses: {CHECKOUT.uses()}\n        with:\n"
        "          ref: ${{ github.event.pull_request.head.sha }}\n"
        f"      - run: python -m pip install --require-hashes --no-deps -r {REQUIREMENTS} && pbem\n"
        f"        env:\n          PBEM_MODERATOR_KEY: ${{{{ secrets.{game.secret} }}}}\n"
        f"      - run: echo \"${{{{ secrets.{game.secret} }}}}\" | base64\n")
    rel = workflow_rel(GAME, game.gd.entries()[0]["id"])
    (root / rel).write_text(wants_key)
    (root / ".github" / "workflows" / "pwn.yml").write_text(wants_key)
    add_hostile_pbem(root, game.markers)
    settings = root / GAME / "moderator" / "git.yaml"
    settings.parent.mkdir()
    settings.write_text("branch: hijack\nverify_commits: false\n")
    (root / GAME / "receipts" / "red").mkdir(parents=True)
    (root / GAME / "receipts" / "red" / "0000.txt").write_text("accepted: forged by blue\n")
    (root / GAME / "public" / "extra.html").write_text("<script>alert('blue')</script>\n")
    (root / GAME / "public" / "digest.txt").write_text("blue wins\n")
    paths = player.write_move("0000.yaml", DRAW)                  # out of turn, in blue's own folder
    git(root, "add", "-A")
    git(root, "add", "-f", settings)
    player.commit(paths, "blue: everything")
    player.git("push", "-q", "-u", "origin", "moves")


HOSTILE_PATHS = (".github/workflows/pwn.yml", f"{GAME}/moderator/git.yaml", f"{GAME}/public/extra.html")


def run_hostile_and_valid_pull_requests(game: CiGame, tmp_path: Path, key_pool: dict[str, Path]) -> list:
    """Blue's hostile pull request, then red's valid move in a pull request, then a scheduled run."""
    sim = game.sim
    sim.add_environment(ENVIRONMENT, ["main"], {game.secret: game.key_text})
    blue, blue_fork = fork_player(game, tmp_path, "blue", key_pool["blue"])
    hostile_pull_request(game, blue)
    assert blue.git("push", "-q", sim.url, "moves:main", check=False).returncode != 0     # no write access
    sim.open_pull_request("blue", blue_fork, "moves", title="$(cat /etc/passwd) `id`")
    red, red_fork = fork_player(game, tmp_path, "red", key_pool["red"])
    paths = red.write_move("0000.yaml", DRAW)
    red.commit(paths, "red: 0000.yaml")
    red.git("push", "-q", "-u", "origin", "moves")
    sim.open_pull_request("red", red_fork, "moves")
    runs = sim.process()
    sim.schedule()
    return runs + sim.process()


@pytest.mark.slow(seconds=8)
def test_hostile_pull_requests_never_run_a_players_code_with_the_key_and_the_valid_move_beside_them_is_taken_in(
        sim, tmp_path, key_pool, toy_registered, shared_templates):
    """One game through the same pull requests (blue's hostile one, red's valid move) and a scheduled run, set up
    once for both halves (issue 19: each half set up the same game and ran the same pull requests on its own)."""
    game = start_game(sim, tmp_path, key_pool, shared_templates)
    runs = run_hostile_and_valid_pull_requests(game, tmp_path, key_pool)
    no_players_code_ran_with_the_key(sim, game, runs, tmp_path)
    the_valid_move_is_taken_in_and_nothing_else_is_published(sim, game, runs, tmp_path)


def no_players_code_ran_with_the_key(sim: SimGitHub, game: CiGame, runs: list, tmp_path: Path) -> None:
    rel = workflow_rel(GAME, game.gd.entries()[0]["id"])
    assert sim.server.denied == ["anonymous"]           # blue's push to the game's repository, refused
    assert [(run.event, run.workflow) for run in runs] == [
        ("pull_request_target", rel),                   # blue's: the default branch's workflow
        ("pull_request", rel), ("pull_request", ".github/workflows/pwn.yml"),   # blue's own, from the fork
        ("pull_request_target", rel),                   # red's
        ("schedule", rel)]
    for run in runs:
        (job,) = run.jobs
        if run.event == "pull_request":                 # the fork's workflows: refused the environment
            assert job.status == "rejected" and job.steps == [] and "not allowed to deploy" in job.reason
            continue
        assert job.secrets_seen == (game.secret,)
        assert job.step("Check out").note == "checked out main"
        assert job.step("Install pbem").note.startswith("verified .pbem/")
        assert [s.status for s in job.steps[:5]] == ["success"] * 5, job.output    # to the audit, included
        assert "/etc/passwd" not in job.output and "uid=" not in job.output
    assert not game.markers.exists()                    # no code of a player's ever ran
    assert leaks(game, tmp_path) == []                  # the key and the seed: nowhere outside moderator/
    refs = git(sim.upstream, "for-each-ref", "--format=%(refname)").stdout.split()
    assert refs == ["refs/heads/main", "refs/pull/1/head", "refs/pull/2/head"]
    published = git(sim.upstream, "ls-tree", "-r", "--name-only", "main").stdout.split()
    assert not set(HOSTILE_PATHS) & set(published)
    assert git(sim.upstream, "show", f"main:{rel}").stdout == game.workflow_text
    assert {p: git(sim.upstream, "show", f"main:.pbem/{p}").stdout.encode() for p in sim.trusted_pbem
            if p.endswith(".txt")} == {p: d for p, d in sim.trusted_pbem.items() if p.endswith(".txt")}
    assert git(sim.upstream, "rev-parse", "main:.pbem").stdout == git(game.moderator, "rev-parse",
                                                                       f"{game.setup_commit}:.pbem").stdout
    authors = set(git(sim.upstream, "log", "--format=%an", f"{game.setup_commit}..main").stdout.split("\n")) - {""}
    assert authors <= {"pbem moderator"}


def the_valid_move_is_taken_in_and_nothing_else_is_published(sim: SimGitHub, game: CiGame, runs: list,
                                                              tmp_path: Path) -> None:
    moderator_runs = [run for run in runs if run.event != "pull_request"]
    for run in moderator_runs:
        assert run.jobs[0].status == "success", run.output
    auditor = tmp_path / "auditor"
    git(tmp_path, "clone", "-q", sim.upstream, auditor)
    entries = GameDir(auditor / GAME).entries()
    assert len(entries) == 2 and entries[1]["player"] == "red"
    receipt = (auditor / GAME / "receipts" / "red" / "0000.txt").read_text()
    assert receipt.startswith("accepted: ") and "forged" not in receipt
    assert (auditor / GAME / "receipts" / "blue" / "0000.txt").read_text().startswith("rejected: ")
    assert (auditor / GAME / "public" / "digest.txt").read_text() != "blue wins\n"
    published = git(sim.upstream, "ls-tree", "-r", "--name-only", "main").stdout.split()
    assert not set(HOSTILE_PATHS) & set(published)
    assert not [p for p in published if p.startswith(f"{GAME}/incoming/") and p != f"{GAME}/incoming/README.md"]
    assert not game.markers.exists() and leaks(game, tmp_path) == []
    authors = set(git(sim.upstream, "log", "--format=%an", f"{game.setup_commit}..main").stdout.split("\n")) - {""}
    assert authors == {"pbem moderator"}
