"""Games register themselves (entry points "pbem.games"); the core lists none."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pbem.core import registry


def test_the_installed_games_come_from_entry_points_and_the_scan_finds_the_same():
    installed = dict(registry._installed())
    assert {"atlantis", "atlantis-1986", "space-attack", "space-swarm"} <= set(installed)
    assert registry._scanned() == installed                # a source checkout finds the same games
    core = (Path(registry.__file__)).read_text()
    assert "atlantis" not in core.lower() and "swarm" not in core.lower()


def test_the_quick_entry_point_reader_agrees_with_importlib_metadata():
    from importlib.metadata import entry_points
    for group in (registry.GROUP, "console_scripts", "pytest11"):
        assert registry._entry_points(group) == {ep.name: ep.value for ep in entry_points(group=group)}, group


def test_a_game_can_be_registered_while_running(toy_registered):
    assert "toy" in registry.game_names()
    assert registry.load_game("toy").name == "toy"


def test_no_game_is_imported_for_help():
    code = ("import sys; from pbem.cli.group import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('pbem.rules')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"
