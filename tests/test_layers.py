"""The layer contract (docs/architecture.md, "Layers") and no import cycle anywhere in pbem.

The contract is import-linter's, in pyproject.toml (`make contracts` runs it too); it is run
here on a copy of the installed package, so that a copy with one wrong-way import added can
prove it fails: at module level, inside a function, under TYPE_CHECKING.  The cycle check
builds grimp's graph, which holds every import statement (inside functions and under
TYPE_CHECKING too: the throwaway packages below prove it), and looks for strongly connected
components.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import grimp
import pytest

import pbem

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "pyproject.toml"
PACKAGE = Path(pbem.__file__).resolve().parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def copy_of_pbem(where: Path) -> Path:
    """The installed pbem's Python files, copied into ``where/pbem``."""
    shutil.copytree(PACKAGE, where / "pbem", ignore=lambda folder, names: [
        n for n in names if n == "__pycache__" or n == "_data" or (Path(folder, n).is_file() and not n.endswith(".py"))])
    return where / "pbem"


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    """import-linter with pbem's contracts, on the pbem found in ``cwd`` (it puts cwd first on sys.path)."""
    assert LINT_IMPORTS.exists(), "lint-imports is not installed: make install"
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", str(CONFIG)], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def add_lines(path: Path, code: str) -> None:
    path.write_text(path.read_text() + "\n\n" + textwrap.dedent(code))


def strongly_connected(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Tarjan's strongly connected components of ``modules`` with more than one member, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:       # iterative, so a deep chain cannot hit the recursion limit
        nonlocal counter
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start) & modules)))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child) & modules))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return found


def cycles_in(package: str) -> list[list[str]]:
    graph = grimp.build_graph(package, cache_dir=None)      # type-checking imports are kept (the default)
    return strongly_connected(graph, set(graph.modules))


# --- the contract on pbem as it is -------------------------------------------------------------

def test_pbem_keeps_its_layer_contracts(tmp_path):
    copy_of_pbem(tmp_path)
    done = lint_imports(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    for contract in ("the layers", "mail and git are independent", "games and the public game API",
                     "pbem's layers name no game"):
        assert contract in done.stdout and "KEPT" in done.stdout.split(contract, 1)[1].split("\n", 1)[0]


def test_no_import_cycle_between_any_two_pbem_modules():
    cycles = cycles_in("pbem")
    assert cycles == [], "import cycles (each a set of modules that import each other): " + "; ".join(
        " <-> ".join(c) for c in cycles)


def test_pbem_holds_only_the_layer_packages_and_the_public_game_api():
    modules = sorted(p.name for p in PACKAGE.iterdir() if p.suffix == ".py")
    packages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    assert modules == ["__init__.py", "__main__.py", "game.py"]
    assert packages == ["base", "cli", "client", "core", "crypto", "pipeline", "rules", "store", "transport", "views"]


# --- the contract fails on a wrong-way import, wherever it is written ----------------------------

def test_a_wrong_way_import_inside_a_function_breaks_the_layers(tmp_path):
    copy = copy_of_pbem(tmp_path)
    add_lines(copy / "base" / "fsutil.py", """
        def sneaky() -> object:
            from pbem.pipeline.submit import submit
            return submit
        """)
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    assert "the layers: each imports only from the layers below it BROKEN" in done.stdout
    assert "pbem.base is not allowed to import pbem.pipeline" in done.stdout
    assert "pbem.base.fsutil -> pbem.pipeline.submit" in done.stdout


def test_a_wrong_way_import_under_type_checking_breaks_the_layers(tmp_path):
    copy = copy_of_pbem(tmp_path)
    add_lines(copy / "store" / "table.py", """
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from pbem.views.outputs import write_outputs
        """)
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    assert "pbem.store is not allowed to import pbem.views" in done.stdout
    assert "pbem.store.table -> pbem.views.outputs" in done.stdout


def test_a_game_that_imports_the_store_breaks_the_games_contract(tmp_path):
    copy = copy_of_pbem(tmp_path)
    add_lines(copy / "rules" / "atlantis" / "game.py", """
        def table_of(gd: object) -> object:
            from pbem.store.table import Table
            return Table
        """)
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    assert "games and the public game API use only core and base BROKEN" in done.stdout
    assert "pbem.rules.atlantis.game -> pbem.store.table" in done.stdout


def test_a_core_module_that_names_a_game_breaks_the_contract(tmp_path):
    copy = copy_of_pbem(tmp_path)
    add_lines(copy / "core" / "registry.py", """
        def atlantis() -> object:
            from pbem.rules.atlantis.game import AtlantisGame
            return AtlantisGame
        """)
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    assert "pbem.core.registry -> pbem.rules.atlantis.game" in done.stdout


# --- the cycle check sees every kind of import -----------------------------------------------------

@pytest.fixture
def throwaway(tmp_path, monkeypatch):
    """A package of a unique name in tmp_path, importable; returns (name, folder)."""
    name = f"throwaway_{uuid.uuid4().hex[:12]}"
    folder = tmp_path / name
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name, folder


def test_the_cycle_check_sees_an_import_inside_a_function(throwaway):
    name, folder = throwaway
    (folder / "a.py").write_text(f"from {name} import b\n")
    (folder / "b.py").write_text(f"def later():\n    from {name} import a\n    return a\n")
    (folder / "c.py").write_text(f"from {name} import a\n")
    assert cycles_in(name) == [[f"{name}.a", f"{name}.b"]]


def test_the_cycle_check_sees_an_import_under_type_checking(throwaway):
    name, folder = throwaway
    (folder / "a.py").write_text(f"from {name}.b import B\n\nclass A(B):\n    pass\n")
    (folder / "b.py").write_text(f"from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from {name}.a import A\n\n"
                                 "class B:\n    pass\n")
    assert cycles_in(name) == [[f"{name}.a", f"{name}.b"]]


def test_the_cycle_check_finds_a_longer_ring_and_nothing_in_a_chain(throwaway):
    name, folder = throwaway
    for here, there in (("a", "b"), ("b", "c"), ("c", "a"), ("d", "a"), ("e", "d")):
        (folder / f"{here}.py").write_text(f"from {name} import {there}\n")
    assert cycles_in(name) == [[f"{name}.a", f"{name}.b", f"{name}.c"]]
