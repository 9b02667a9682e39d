"""`pbem git sync REPO_DIR`: every game of a repository in one command (issue 24), with the real
git CLI (a bare repository as the shared remote, the moderator's clone and a player's clone).
One game's failure (a damaged log, a folder named that holds no game) is reported on its own
line and the others are synced; the exit status then says that something failed."""
from __future__ import annotations

from click.testing import CliRunner
from pipeline_helpers import finish_in_memory, new_game, signed_move
from test_git_helpers import git, hermetic_git  # noqa: F401  (autouse fixture)

from pbem.cli.group import main as pbem_main
from pbem.pipeline.audit import audit
from pbem.pipeline.moderator import reveal
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


def _subjects(bare) -> list[str]:
    return git(bare, "log", "--format=%s", "main").stdout.splitlines()


def _changed_games(bare, subject: str) -> set[str]:
    """The game folders the shared branch's commit with this subject changes."""
    commit = git(bare, "log", "--format=%H", "-F", f"--grep={subject}", "-n", "1", "main").stdout.strip()
    paths = git(bare, "diff-tree", "-r", "--no-commit-id", "--name-only", f"{commit}^", commit).stdout.split()
    return {"/".join(p.split("/")[:2]) for p in paths}


def test_each_game_line_names_its_own_commits_only(tmp_path, key_pool, toy_registered):
    (tmp_path / "one").mkdir()
    _bare, _clone, alone = _repo(tmp_path / "one", key_pool, ["alpha", "beta", "gamma"])
    code, out = _pbem("git", "sync", alone["gamma"].root)    # one game: the others' set-up commits named apart
    assert code == 0 and out.splitlines() == [
        "pushed 1 commit(s) to origin/main",
        "also pushed 1 commit(s) of games/alpha (committed in this clone before)",
        "also pushed 1 commit(s) of games/beta (committed in this clone before)"], out
    bare, clone, games = _repo(tmp_path, key_pool, ["alpha", "beta", "gamma"])
    code, out = _pbem("git", "sync", clone)                   # each game's set-up commit on that game's line
    assert code == 0 and out.splitlines() == [
        "games/alpha: pushed 1 commit(s) to origin/main",
        "games/beta: pushed 1 commit(s) to origin/main (committed in this clone before; pushed with games/alpha's)",
        "games/gamma: pushed 1 commit(s) to origin/main (committed in this clone before; pushed with games/alpha's)",
    ], out
    for name in ("alpha", "gamma"):                           # moves wait in two of the three games
        _send(tmp_path, bare, games[name], name, _first_to_move(games[name]), key_pool)
    before = len(_subjects(bare))
    code, out = _pbem("git", "sync", clone)
    assert code == 0, out
    lines = out.splitlines()
    mover = _first_to_move(games["alpha"], 0)
    assert lines == [f"games/alpha: accepted {mover}/0001.yaml: entry 1; waiting for {_first_to_move(games['alpha'])}",
                     "games/alpha: pushed 1 commit(s) to origin/main",
                     f"games/gamma: accepted {mover}/0001.yaml: entry 1; waiting for {_first_to_move(games['gamma'])}",
                     "games/gamma: pushed 1 commit(s) to origin/main"], out     # beta had nothing new: quiet
    new = _subjects(bare)[:len(_subjects(bare)) - before]
    moderators = [s for s in new if s.startswith("entry 1:")]
    assert len(moderators) == 2 and all(_changed_games(bare, s) <= {"games/alpha", "games/gamma"} for s in moderators)
    code, out = _pbem("git", "sync", "--verbose", clone)
    assert code == 0 and out.count("nothing to do") == 3, out


def test_a_game_whose_sync_gave_up_is_pushed_by_the_next_game_with_its_own_line(tmp_path, key_pool, toy_registered):
    """alpha's push loses a race (a player pushes to gamma at that moment; --attempts 1 --patience 0 gives up
    at once): its commit stays in the clone, and beta's sync puts it on top, with alpha's log and receipt in it
    (never an empty commit under alpha's message), and says so on alpha's line, not beta's."""
    bare, clone, games = _repo(tmp_path, key_pool, ["alpha", "beta", "gamma"])
    assert _pbem("git", "sync", clone)[0] == 0
    for name in ("alpha", "beta"):
        _send(tmp_path, bare, games[name], name, _first_to_move(games[name]), key_pool)
    racer = tmp_path / "player-gamma"                          # gamma's move, committed; pushed by the hook
    git(tmp_path, "clone", "-q", bare, racer)
    player = _first_to_move(games["gamma"])
    raw, sig = signed_move(Table.load(games["gamma"]), player, [{"draw": True}], key_pool[player])
    (racer / "games/gamma/incoming" / player).mkdir(parents=True)
    (racer / "games/gamma/incoming" / player / "0001.yaml").write_bytes(raw)
    (racer / "games/gamma/incoming" / player / "0001.yaml.sig").write_text(sig)
    git(racer, "add", ".")
    git(racer, "commit", "-q", "-m", "a move in gamma", name=player)
    once = tmp_path / "raced"
    hook = clone / ".git" / "hooks" / "pre-push"
    hook.write_text("#!/bin/sh\nunset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_QUARANTINE_PATH\n"
                    f"[ -e '{once}' ] && exit 0\ntouch '{once}'\n"
                    f"git -C '{racer}' pull -q --rebase >/dev/null 2>&1 && "
                    f"git -C '{racer}' push -q origin HEAD:main >/dev/null 2>&1\nexit 0\n")
    hook.chmod(0o755)
    code, out = _pbem("git", "sync", clone, "--attempts", "1", "--patience", "0")
    lines = out.splitlines()
    assert code == 1, out
    assert lines[0].startswith("games/alpha: not synced: gave up after 1 push attempts"), out
    assert f"games/beta: accepted {_first_to_move(games['beta'], 0)}/0001.yaml: entry 1; waiting for " \
           f"{_first_to_move(games['beta'])}" in lines
    assert "games/beta: pushed 1 commit(s) to origin/main" in lines, out
    assert any(l.startswith("games/gamma: accepted ") for l in lines), out
    assert "games/alpha: pushed 1 commit(s) to origin/main (committed in this clone before; pushed with " \
           "games/beta's)" in lines, out
    alpha = [s for s in _subjects(bare) if s.startswith("entry 1:")]
    assert len(alpha) == 3 and all(len(_changed_games(bare, s)) == 1 for s in alpha)
    tip = git(bare, "show", "main:games/alpha/log.yaml").stdout
    assert tip == games["alpha"].log_path.read_text() and len(games["alpha"].entries()) == 2
    receipt = f"main:games/alpha/receipts/{_first_to_move(games['alpha'], 0)}/0001.txt"
    assert git(bare, "show", receipt).stdout.startswith("accepted")
    assert _pbem("git", "sync", clone) == (0, "")            # nothing left: quiet


def test_a_closed_game_is_skipped_quietly_and_says_so_only_when_asked(tmp_path, key_pool, toy_registered):
    bare, clone, games = _repo(tmp_path, key_pool, ["alpha", "omega"])
    finish_in_memory(games["omega"], key_pool)
    reveal(games["omega"])
    assert _pbem("git", "sync", clone, "--tick")[0] == 0
    for _ in range(2):                                         # closed, and nothing new: not a word, exit 0
        assert _pbem("git", "sync", clone, "--tick") == (0, "")
    code, out = _pbem("git", "sync", clone, "--tick", "--verbose")
    assert code == 0 and "games/omega: nothing to do" in out and "2 game(s) synced, 0 failed" in out, out
