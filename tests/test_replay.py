"""`pbem replay`: a whole game as one self-contained, deterministic HTML page."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from board_helpers import digest_message
from pbem.cli.group import main
from pbem.store.gamedir import GameDir
from pbem.views.replay import Replay, ReplayError, build_replay, render_replay


@pytest.fixture
def game(finished_atlantis_game) -> GameDir:
    return finished_atlantis_game          # built once per session (conftest.py), shared: copy before writing


@pytest.fixture(scope="module")
def built(_finished_atlantis_folder: Path) -> Replay:
    """The shared game's replay, built once in this process for the tests that read it (never changed by them)."""
    return build_replay(GameDir(_finished_atlantis_folder / "game"))


def frames_data(page: str) -> dict:
    raw = re.search(r'<script type="application/json" id="pbem-data">(.*?)</script>', page, re.S).group(1)
    return json.loads(raw)


def test_the_page_is_self_contained_deterministic_and_has_a_frame_per_entry(game, built, tmp_path):
    out = tmp_path / "replay.html"
    result = CliRunner().invoke(main, ["replay", str(game.root), "--html", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert render_replay(built) == page                  # same game, same bytes (built again, here)
    data = frames_data(page)
    entries = game.entries()
    assert len(data["frames"]) == len(entries) and len(data["public"]) == len(entries)
    assert data["hidden"] is not None                                   # revealed: every hidden value may be shown
    assert not re.search(r'\b(?:src|href)="(?:https?:|//|file:)', page) and "<link" not in page
    assert re.findall(r"<script\b[^>]*\bsrc=", page) == []
    assert "game over" in " ".join(line for f in data["frames"] for line in f[1])
    assert "{'" not in page                                              # no Python dict printed anywhere
    # stored once: a part is never repeated, and the first frame draws every cell
    parts = re.findall(r'<g id="pbem-p(\d+)" display="none">', page)
    assert len(parts) == len(set(parts))
    assert len(page) < 2 * 1024 * 1024


def test_after_the_reveal_the_hidden_frames_show_explorer_values(game, built):
    rp = built
    public_parts = {p for frame in rp.public for _slot, p in frame}
    hidden_parts = {p for frame in rp.hidden for _slot, p in frame}
    values = [rp.store.parts[p][1] for p in hidden_parts - public_parts]
    assert any('fill="#ffe14d"' in svg for svg in values)               # the value dots
    assert not any('fill="#ffe14d"' in rp.store.parts[p][1] for p in public_parts if rp.store.parts[p][0] == "pieces"
                   and p not in hidden_parts and "value" in rp.store.parts[p][1])


def test_a_players_copy_before_the_reveal_cannot_replay(game, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(game.root, copy, ignore=shutil.ignore_patterns("moderator"))
    log = (copy / "log.yaml").read_text()
    cut = log[: log.index("kind: reveal")]
    (copy / "log.yaml").write_text(cut[: cut.rindex("\n---") + 1] if "\n---" in cut else cut)
    with pytest.raises(ReplayError, match="needs the seed"):
        build_replay(GameDir(copy))


def test_a_typical_digest_message_with_the_board_is_under_100_kb(game):
    last = game.entries()[-1]["index"]
    for index in (1, 30, 60, 90, last):
        assert len(digest_message(game, index, "red").as_bytes()) < 100_000, index
    final = digest_message(game, last, "red", with_log=True)        # the last one carries the whole log too
    attached = [p for p in final.walk() if (p.get_filename() or "").endswith(".tar.gz")]
    assert len(attached) == 1 and len(final.as_bytes()) - len(attached[0].as_bytes()) < 100_000


def test_pbem_show_as_a_player_in_html_is_their_private_page(game):
    from pbem.crypto import agecrypt
    from pbem.views.outputs import opened_bytes
    result = CliRunner().invoke(main, ["show", str(game.root), "--as", "red", "--format", "html"])
    assert result.exit_code == 0, result.output
    key = game.root.parent / "keys" / "red"
    page = opened_bytes(agecrypt.decrypt(game.secrets_html_path("red").read_bytes(), key)).decode()
    assert result.output == page and "<svg" in page
    text = CliRunner().invoke(main, ["decrypt", str(game.secrets_html_path("red")), "--key", str(key)])
    assert text.exit_code == 0 and text.output == page                 # pbem decrypt gunzips the page
