"""Games register themselves (entry points "pbem.games"); the core lists none."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pbem import registry


def test_the_installed_games_come_from_entry_points_and_the_scan_finds_the_same():
    installed = dict(registry._installed())
    assert {"atlantis", "atlantis-1986", "space-swarm"} <= set(installed)
    assert registry._scanned() == installed                # a source checkout finds the same games
    core = (Path(registry.__file__)).read_text()
    assert "atlantis" not in core.lower() and "swarm" not in core.lower()


def test_a_game_can_be_registered_while_running(toy_registered):
    assert "toy" in registry.game_names()
    assert registry.load_game("toy").name == "toy"


def test_no_game_is_imported_for_help():
    code = ("import sys; from pbem.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('pbem.rules')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"
