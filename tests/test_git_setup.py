"""Signed-commit checks, the sealed seed, the CI workflow and the `pbem git` commands."""
from __future__ import annotations

import os

import pytest
import yaml
from test_git_helpers import GAME, cli, git, hermetic_git, make_shared  # noqa: F401  (autouse fixture)

from pbem.base.data import templates_dir
from pbem.pipeline.audit import audit
from pbem.store.gamedir import GameDir
from pbem.transport.git.seed import SEALED_SEED
from pbem.transport.git.setup import default_secret, workflow_rel

DRAW = [{"draw": True}]


# --- signed commits ------------------------------------------------------------------

@pytest.fixture
def verified(tmp_path, key_pool, toy_registered, shared_templates):
    return make_shared(tmp_path, key_pool, "--verify-commits", templates=shared_templates)


def test_signed_commit_by_the_owner_is_accepted(verified):
    red = verified.players["red"]
    red.send("0000.yaml", DRAW, signing_key=red.key)
    out = verified.sync().output                  # verify_commits comes from moderator/git.yaml
    assert "accepted red/0000.yaml" in out


def test_unsigned_commit_is_refused_when_verification_is_on(verified):
    red = verified.players["red"]
    red.send("0000.yaml", DRAW)
    out = verified.sync().output
    assert "rejected red/0000.yaml" in out and "is not signed" in out
    receipt = verified.remote_text(f"{GAME}/receipts/red/0000.txt")
    assert receipt.startswith("rejected: commit ") and "is not signed" in receipt
    assert verified.remote_files(f"{GAME}/incoming/red") == []
    assert len(GameDir(verified.moderator.root).entries()) == 1
    # the same move without verification would have been taken: the check is what refused it
    red.send("0001.yaml", DRAW)
    assert "accepted red/0001.yaml" in verified.sync("--no-verify-commits").output


def test_commit_signed_by_blue_adding_to_reds_folder_is_refused(verified):
    red, blue = verified.players["red"], verified.players["blue"]
    blue.pull()
    # a perfectly good move by red (red's own SSHSIG), but committed and signed by blue
    paths = blue.write_move("0000.yaml", DRAW, owner="red", player="red", key=red.key)
    blue.commit(paths, "blue relays red's move", signing_key=blue.key)
    blue.git("push", "-q")
    out = verified.sync().output
    assert "rejected red/0000.yaml" in out
    receipt = verified.remote_text(f"{GAME}/receipts/red/0000.txt")
    assert "is signed by blue, but only red may add files to incoming/red/" in receipt
    assert verified.remote_files(f"{GAME}/incoming/red") == []


def test_commit_signed_by_a_key_outside_the_game_is_refused(verified, key_pool):
    red = verified.players["red"]
    red.send("0000.yaml", DRAW, signing_key=key_pool["mallory"])
    out = verified.sync().output
    assert "rejected red/0000.yaml" in out and "not a player's key" in out


def test_allowed_signers_lists_players_for_git_only(verified):
    out = cli("allowed-signers", verified.moderator.root).output.splitlines()
    assert [line.split()[0] for line in out] == ["red", "blue", "green"]
    assert all('namespaces="git" ssh-ed25519 ' in line for line in out)


# --- the sealed seed and the CI moderator ------------------------------------------------

@pytest.fixture
def ci_game(tmp_path, key_pool, toy_registered, shared_templates):
    return make_shared(tmp_path, key_pool, "--ci", "github", "--verify-commits", "--pbem-spec", "pbem==0.1.0",
                       templates=shared_templates)


def _workflow(ci_game) -> str:
    return workflow_rel(GAME, GameDir(ci_game.moderator.root).entries()[0]["id"])


def test_ci_workflow_is_valid_yaml_and_uses_the_secret(ci_game):
    root = ci_game.moderator.root.parent
    rel = _workflow(ci_game)
    assert rel == f".github/workflows/pbem-{GAME}.yml"
    text = (root / rel).read_text()
    flow = yaml.safe_load(text)
    trigger = flow.get("on", flow.get(True))      # YAML 1.1 reads the key `on` as true
    assert set(trigger) == {"pull_request_target", "schedule", "workflow_dispatch"}
    prs = trigger["pull_request_target"]
    assert prs["paths"] == [f"{GAME}/incoming/**"] and prs["branches"] == ["main"]
    assert flow["jobs"]["moderate"]["environment"] == "pbem-moderator"
    assert flow["env"] == {"GAME_DIR": GAME, "PBEM_SPEC": "pbem==0.1.0"}
    steps = flow["jobs"]["moderate"]["steps"]
    assert steps[0]["with"]["fetch-depth"] == 0
    runs = "\n".join(step.get("run", "") for step in steps)
    assert 'python -m pip install "$PBEM_SPEC"' in runs
    assert "pbem git unseal-seed" in runs and 'pbem git sync "$GAME_DIR" --pull-requests --tick' in runs
    assert runs.rstrip().endswith("--verify-commits")
    secret = default_secret(GameDir(ci_game.moderator.root).entries()[0]["id"])
    assert secret.startswith("PBEM_MODERATOR_KEY_TOY_")
    assert any(step.get("env", {}).get("PBEM_MODERATOR_KEY") == f"${{{{ secrets.{secret} }}}}" for step in steps)
    assert "@@" not in text
    assert (templates_dir() / "ci" / "github.yml").is_file()
    assert rel in ci_game.remote_files(".github")
    assert not ci_game.remote_files(".pbem")      # --pbem-spec: nothing vendored


def test_seed_is_sealed_and_a_ci_moderator_restores_it_and_syncs(ci_game, monkeypatch):
    assert f"{GAME}/{SEALED_SEED}" in ci_game.remote_files(GAME)
    sealed = ci_game.remote_text(f"{GAME}/{SEALED_SEED}")
    assert sealed.startswith("-----BEGIN AGE ENCRYPTED FILE-----")
    seed = ci_game.moderator.seed_path.read_text().strip()
    red = ci_game.players["red"]
    red.send("0000.yaml", DRAW, signing_key=red.key)

    # the "CI runner": a fresh clone, the key only in an environment variable
    runner = ci_game.fresh_clone("runner") / GAME
    monkeypatch.setenv("PBEM_MODERATOR_KEY", ci_game.key_pool["mallory"].read_text())
    out = cli("unseal-seed", runner, "--key-env", "PBEM_MODERATOR_KEY").output
    assert "restored" in out
    assert (runner / "moderator" / "seed").read_text().strip() == seed
    assert oct((runner / "moderator" / "seed").stat().st_mode & 0o777) == "0o600"
    assert audit(GameDir(runner)).ok
    out = cli("sync", runner, "--verify-commits").output
    assert "accepted red/0000.yaml" in out and "pushed" in out
    history = git(ci_game.bare, "log", "-p", "--all").stdout
    assert seed not in history
    assert "/moderator/" not in git(ci_game.bare, "log", "--all", "--name-only", "--format=").stdout


def test_init_does_not_overwrite_a_changed_workflow_without_force(ci_game):
    root = ci_game.moderator.root.parent
    rel = _workflow(ci_game)
    result = cli("init", ci_game.moderator.root, "--ci", "github", "--pbem-spec", "pbem==9", ok=False)
    assert result.exit_code == 1 and "exists and differs; use --force" in result.output
    cli("init", ci_game.moderator.root, "--ci", "github", "--pbem-spec", "pbem==9", "--force")
    assert yaml.safe_load((root / rel).read_text())["env"]["PBEM_SPEC"] == "pbem==9"
    assert "pbem==9" in git(root, "show", f"HEAD:{rel}").stdout


def test_unseal_with_the_wrong_key_is_one_line_error(ci_game, key_pool):
    runner = ci_game.fresh_clone("runner") / GAME
    result = cli("unseal-seed", runner, "--key", key_pool["red"], ok=False)
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and result.output.startswith("pbem: error: ")
    assert "is not this game's moderator key" in result.output
    assert not (runner / "moderator" / "seed").exists()
    assert not (runner / "moderator" / "moderator_ed25519").exists()


def test_seal_seed_command_commits_only_the_encrypted_copy(tmp_path, key_pool, toy_registered, shared_templates):
    shared = make_shared(tmp_path, key_pool, templates=shared_templates)
    out = cli("seal-seed", shared.moderator.root).output
    assert "wrote" in out and "committed" in out
    shared.sync()
    assert f"{GAME}/{SEALED_SEED}" in shared.remote_files(GAME)
    assert shared.moderator.seed_path.read_text().strip() not in git(shared.bare, "log", "-p", "--all").stdout


# --- the command line ----------------------------------------------------------------------

@pytest.mark.parametrize("command", ["init", "sync", "seal-seed", "unseal-seed", "allowed-signers"])
def test_every_git_command_has_help_with_an_example(command):
    assert "Example:" in cli(command, "--help").output


def test_errors_are_one_line(tmp_path, key_pool, toy_registered):
    from pipeline_helpers import new_game
    gd = new_game(tmp_path / "nogit", "toy", key_pool, ["red", "blue"])
    for args in (["sync", gd.root], ["init", gd.root], ["sync", tmp_path / "missing"],
                 ["unseal-seed", gd.root, "--key-env", "NOT_SET_ANYWHERE"]):
        result = cli(*args, ok=False)
        assert result.exit_code == 1, args
        assert result.output.startswith("pbem: error: ") and result.output.count("\n") == 1, result.output
    assert "not inside a git repository" in cli("sync", gd.root, ok=False).output
    assert not os.path.exists(gd.root / ".github")
