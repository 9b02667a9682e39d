"""`pbem git sync REPO_DIR`: every game of a repository in one command (issue 24), with the real
git CLI (a bare repository as the shared remote, the moderator's clone and a player's clone).
One game's failure (a damaged log, a folder named that holds no game) is reported on its own
line and the others are synced; the exit status then says that something failed."""
from __future__ import annotations

from click.testing import CliRunner
from pipeline_helpers import new_game, signed_move
from test_git_helpers import git, hermetic_git  # noqa: F401  (autouse fixture)

from pbem.cli.group import main as pbem_main
from pbem.pipeline.audit import audit
from pbem.store.table import Table

PLAYERS = ["red", "blue"]


def _pbem(*args) -> tuple[int, str]:
    result = CliRunner().invoke(pbem_main, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.output


def _repo(tmp_path, key_pool, names):
    bare, clone = tmp_path / "shared.git", tmp_path / "moderator"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", bare)
    git(tmp_path, "clone", "-q", bare, clone)
    games = {}
    for k, name in enumerate(names):
        gd = new_game(clone / "games" / name, "toy", key_pool, PLAYERS, seed=bytes([k + 1]) * 32)
        code, out = _pbem("git", "init", gd.root)
        assert code == 0, out
        games[name] = gd
    return bare, clone, games


def _send(tmp_path, bare, gd, folder, player, key_pool):
    """A player's clone pushes a signed move into the game's incoming/PLAYER/."""
    clone = tmp_path / f"player-{folder}"
    git(tmp_path, "clone", "-q", bare, clone)
    raw, sig = signed_move(Table.load(gd), player, [{"draw": True}], key_pool[player])
    target = clone / "games" / folder / "incoming" / player
    target.mkdir(parents=True, exist_ok=True)
    (target / "0001.yaml").write_bytes(raw)
    (target / "0001.yaml.sig").write_text(sig)
    git(clone, "add", ".")
    git(clone, "commit", "-q", "-m", f"{player}: a move in {folder}", name=player)
    git(clone, "push", "-q", name=player)


def test_one_command_syncs_every_game_of_the_repository_and_a_broken_one_stops_no_other(
        tmp_path, key_pool, toy_registered):
    bare, clone, games = _repo(tmp_path, key_pool, ["alpha", "beta", "gamma"])
    code, out = _pbem("git", "sync", clone)                  # the set-up commits of all three, pushed
    assert code == 0, out
    tree = git(bare, "ls-tree", "-r", "--name-only", "main").stdout
    assert all(f"games/{n}/log.yaml" in tree for n in games)
    assert "/moderator/" not in tree
    assert _pbem("git", "sync", clone) == (0, "")            # nothing new: quiet, for cron
    code, out = _pbem("git", "sync", "--verbose", clone)
    assert code == 0 and "games/alpha: nothing to do" in out and "3 game(s) synced, 0 failed" in out, out

    for name in ("alpha", "beta", "gamma"):
        _send(tmp_path, bare, games[name], name, _first_to_move(games[name]), key_pool)
    log = games["beta"].log_path                               # the moderator's copy of beta is damaged
    log.write_bytes(b"this line is no part of a log\n" + log.read_bytes())
    code, out = _pbem("git", "sync", clone)
    assert code == 1, out
    lines = out.splitlines()
    assert any(l.startswith("games/alpha: accepted ") for l in lines), out
    assert any(l.startswith("games/gamma: accepted ") for l in lines), out
    assert any(l.startswith("games/beta: not synced:") and "restore log.yaml" in l for l in lines), out
    assert lines[-1].startswith("pbem: error: 1 of 3 game(s) could not be synced: games/beta"), out
    for name in ("alpha", "gamma"):
        assert len(games[name].entries()) == 2 and audit(games[name]).ok
        receipt = git(bare, "show", f"main:games/{name}/receipts/{_first_to_move(games[name], 0)}/0001.txt").stdout
        assert receipt.startswith("accepted"), receipt
    # a game moderated by someone else (no seed here, as in a player's copy) is left alone
    theirs = new_game(clone / "games" / "delta", "toy", key_pool, PLAYERS, seed=b"9" * 32)
    theirs.seed_path.unlink()
    code, out = _pbem("git", "sync", "--verbose", clone)
    assert "games/delta: not moderated here (no moderator/seed): left alone" in out, out
    assert "games/delta: not synced" not in out
    # a named set: only the games listed, and a folder that holds no game is its own failure
    code, out = _pbem("git", "sync", clone, "--game", "games/alpha", "--game", "games/missing", "--verbose")
    assert code == 1 and "games/alpha: nothing to do" in out, out
    assert "games/missing: not synced:" in out and "not a pbem game" in out, out
    assert "games/gamma" not in out


def _first_to_move(gd, at: int | None = None) -> str:
    """Who moves next in a toy game (or who moved at entry ``at + 1``)."""
    entries = gd.entries()
    entry = entries[-1] if at is None else entries[at]
    return entry["pending"][0]["player"] if entry.get("pending") else entries[0]["pending"][0]["player"]
