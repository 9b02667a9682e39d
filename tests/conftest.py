"""Shared fixtures: real keys, and a registry that also knows the toy test game.

Also how the suite runs (`make test` runs it in parallel with pytest-xdist):

* tests marked ``slow(seconds=...)`` (whole games) are started first, longest first,
  so that the parallel workers finish together instead of one of them ending
  with a long game;
* every test's ``tmp_path`` lives in a fresh folder in memory (``/dev/shm``) when
  there is room, removed at the end (``--basetemp DIR`` keeps the files in DIR);
* Hypothesis keeps no example database and writes its cache to a temporary
  folder (nothing in the checkout), and no ``PBEM_*`` variable of the caller's
  environment reaches a test; ``XDG_DATA_HOME`` (where players keep receipts) is the test's own.
"""
from __future__ import annotations

import gc
import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import session_cache
from hypothesis import configuration, settings

from pbem.core import registry
from pbem.crypto import keys
from pbem.store.gamedir import GameDir

pytest_plugins = ["cpu_profile"]     # --cpu-report N (make test-profile)

settings.register_profile("pbem", database=None)
settings.load_profile("pbem")

MEMORY_TEMP = Path("/dev/shm")
MEMORY_TEMP_ROOM = 2 << 30          # bytes free in /dev/shm to use it (a whole run needs about 200 MB)
_OWN_FOLDERS = pytest.StashKey[list[str]]()


def _memory_temp_root() -> Path | None:
    """``/dev/shm`` if it is a writable folder with room, else None (then pytest's usual place)."""
    try:
        stat = os.statvfs(MEMORY_TEMP)
    except OSError:
        return None
    if not os.access(MEMORY_TEMP, os.W_OK | os.X_OK) or stat.f_bavail * stat.f_frsize < MEMORY_TEMP_ROOM:
        return None
    return MEMORY_TEMP


@pytest.hookimpl(tryfirst=True)        # before pytest's own tmp_path set-up reads --basetemp
def pytest_configure(config: pytest.Config) -> None:
    root = _memory_temp_root()
    # Hypothesis caches what it reads from our modules from collection on (each xdist worker too)
    hypothesis_home = tempfile.mkdtemp(prefix="pbem-hypothesis-", dir=root)
    configuration.set_hypothesis_home_dir(hypothesis_home)
    config.stash[_OWN_FOLDERS] = [hypothesis_home]
    if root is None or config.option.basetemp or hasattr(config, "workerinput"):   # xdist sets the workers'
        return
    config.option.basetemp = tempfile.mkdtemp(prefix="pbem-tests-", dir=root)
    config.stash[_OWN_FOLDERS].append(config.option.basetemp)


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder in config.stash.get(_OWN_FOLDERS, []):
        shutil.rmtree(folder, ignore_errors=True)


def _slow_seconds(item: pytest.Item) -> float:
    marker = item.get_closest_marker("slow")
    return float(marker.kwargs.get("seconds", 1)) if marker else 0.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow tests first, the longest first; the others keep their order (sorted() is stable)."""
    items[:] = sorted(items, key=lambda item: -_slow_seconds(item))


#: the cyclic garbage collector's first threshold in the test processes (Python's default: 700)
GC_YOUNG_THRESHOLD = 7_000


def pytest_collection_finish(session: pytest.Session) -> None:
    """The cyclic garbage collector, tuned for a process that builds many short-lived objects
    (whole games, views, boards): what is alive once the tests are collected (the modules, pbem,
    pytest, Hypothesis) is frozen out of its full collections, and its youngest generation is
    collected every 7,000 new objects instead of 700.  The whole games spent about a tenth of
    their CPU in it, most in full collections walking those long-lived objects; nothing is
    freed later than a few thousand allocations, and `gc.collect()` works as ever."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])


@pytest.fixture(autouse=True)
def _no_pbem_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("PBEM_"):
            monkeypatch.delenv(name)
    # the receipts a player keeps (pbem receipt keep, read by every pbem audit): the test's own
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))


@pytest.fixture
def toy_registered(monkeypatch):
    monkeypatch.setitem(registry.GAMES, "toy", "toygame:ToyGame")


@pytest.fixture(scope="session")
def key_pool(tmp_path_factory) -> dict[str, Path]:
    """ed25519 keys for up to six players, made once per test session."""
    folder = tmp_path_factory.mktemp("keys")
    pool = {}
    for name in ["red", "blue", "green", "yellow", "purple", "orange", "mallory"]:
        keys.generate_keypair(folder / name, f"{name}@test")
        pool[name] = folder / name
    return pool


@pytest.fixture(scope="session")
def shared_templates(request, tmp_path_factory) -> Any:
    """``test_git_helpers.SharedTemplates``: the toy game's shared git world built once per session and
    option list, copied for each test (``make_shared(..., templates=shared_templates)``)."""
    from test_git_helpers import SharedTemplates
    return SharedTemplates(request.config, tmp_path_factory)


#: set to 1 to play the tests that use ``fixed_keys`` with fresh keys instead (other keys play other
#: games: a move's dice come from its signature), as a search for games that break a check
FRESH_KEYS_ENV = "PBEM_TEST_FRESH_KEYS"


@pytest.fixture(scope="session")
def fixed_keys(tmp_path_factory, request) -> dict[str, Path]:
    """:func:`pipeline_helpers.fixed_key_pool` once per session: ``key_pool``'s players with keys made
    from their names, so that a seeded game is the same game on every run (the property games
    assert what their games do, and a greedy game that saves nobody, about one in 150 to 300,
    failed a run now and then with fresh keys).  ``PBEM_TEST_FRESH_KEYS=1``: ``key_pool``'s keys."""
    if os.environ.get(FRESH_KEYS_ENV) == "1":
        return request.getfixturevalue("key_pool")
    from pipeline_helpers import fixed_key_pool
    return fixed_key_pool(tmp_path_factory.mktemp("fixed-keys"))


def tree_snapshot(root: Path) -> dict[str, str]:
    """Hash of every file under root, to prove nothing changed on disk (by path relative to root;
    the paths as plain strings: the hostile corpus takes two of these per command it runs)."""
    out = {}
    base = os.fspath(Path(root))
    cut = len(os.path.join(base, ""))
    for dirpath, _dirs, files in os.walk(base):
        for f in files:
            path = os.path.join(dirpath, f)
            with open(path, "rb") as file:
                out[path[cut:]] = hashlib.sha256(file.read()).hexdigest()
    return out


def disk_state(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every name under root (folders and links too) with its mode, modification time (ns) and, for
    a regular file, the hash of its bytes: to prove a command wrote nothing at all."""
    import stat
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(dirpath) / name
            info = path.lstat()
            content = hashlib.sha256(path.read_bytes()).hexdigest() if stat.S_ISREG(info.st_mode) else ""
            out[str(path.relative_to(root))] = (info.st_mode, info.st_mtime_ns, content)
    info = root.lstat()
    out["."] = (info.st_mode, info.st_mtime_ns, "")
    return out


@pytest.fixture(scope="session")
def _finished_atlantis_folder(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from board_helpers import finished_atlantis
    return session_cache.finished(request.config, tmp_path_factory, "atlantis-demo", finished_atlantis)


@pytest.fixture
def finished_atlantis_game(_finished_atlantis_folder: Path):
    """A whole 3-player Atlantis game (red, blue, green; board_helpers.finished_atlantis), revealed,
    keys in ``game.root.parent / "keys"``: built once per session and shared by every worker, so
    read-only: a test that changes it copies it first (checked after each test)."""
    yield GameDir(_finished_atlantis_folder / "game")
    assert session_cache.unchanged(_finished_atlantis_folder), \
        "a test changed the shared finished game: copy it (shutil.copytree) before writing"


@pytest.fixture
def hostile_mailbox(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, toy_registered):
    """The hostile-input corpus as mail to a toy game (tests/hostile_mailbox.py): keys, the game and
    a Maildir of every hostile message, built once per session and shared by every worker, so
    read-only: a test copies the game and the Maildir (``copy_to``) first (checked after each test)."""
    from hostile_mailbox import HostileMailbox, build
    folder = session_cache.finished(request.config, tmp_path_factory, "hostile-mailbox", build)
    yield HostileMailbox(folder)
    assert session_cache.unchanged(folder), \
        "a test changed the shared hostile mailbox: copy it (HostileMailbox.copy_to) before writing"


@pytest.fixture(scope="session")
def dovecot():
    """A real Dovecot IMAP server for the mail tests, started once per test session."""
    from mailservers import start_dovecot

    server = start_dovecot()
    yield server
    server.stop()


@pytest.fixture
def world(tmp_path, key_pool, toy_registered, dovecot):
    """A toy game with three players, its moderator's inbox on Dovecot and SMTP over STARTTLS."""
    from mailservers import start_world

    w = start_world(tmp_path, key_pool, dovecot, smtp_mode="starttls")
    yield w
    w.smtp.stop()


CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1400,1000")


class _Chromium:
    """The session's headless Chromium (Selenium), started when a test first asks for it; started again
    if an earlier test left it dead (a crashed browser is no later test's business)."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.starts = folder, 0
        self.driver: Any = None

    def _start(self) -> Any:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        self.starts += 1
        options = webdriver.ChromeOptions()
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={self.folder / f'profile-{self.starts}'}")
        options.binary_location = "/usr/bin/chromium"
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        options.add_experimental_option("prefs", {"download.default_directory": str(self.folder / "downloads"),
                                                  "download.prompt_for_download": False})
        return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)

    def alive(self) -> Any:
        from selenium.common.exceptions import WebDriverException
        if self.driver is not None:
            try:
                self.driver.window_handles
                return self.driver
            except WebDriverException:
                self.quit()
        self.driver = self._start()
        return self.driver

    def quit(self) -> None:
        driver, self.driver = self.driver, None
        if driver is not None:
            try:
                driver.quit()
            except Exception:  # noqa: BLE001 - a dead browser is quit already
                pass


@pytest.fixture(scope="session")
def chromium(tmp_path_factory):
    """One headless Chromium per test session (per xdist worker; a start costs about 0.7 CPU-seconds,
    and seven modules use it); each test gets it through :func:`browser`, in a new tab of its own."""
    holder = _Chromium(tmp_path_factory.mktemp("chromium"))
    try:
        yield holder
    finally:
        holder.quit()


@pytest.fixture
def browser(chromium, tmp_path):
    """The session's Chromium as a test finds a new one: a new tab (the earlier tests' tabs closed, with
    their pages' session storage), no cookies, no earlier page's log messages, and a page's "save"
    putting its file in the test's own ``tmp_path / "downloads"``."""
    from selenium.common.exceptions import NoAlertPresentException
    driver = chromium.alive()
    try:
        driver.switch_to.alert.dismiss()              # an earlier test that failed may have left one open
    except NoAlertPresentException:
        pass
    earlier = driver.window_handles
    driver.switch_to.new_window("tab")
    mine = driver.current_window_handle
    for handle in earlier:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(mine)
    driver.delete_all_cookies()
    driver.get_log("browser")                         # what earlier tests' pages logged is theirs
    downloads = tmp_path / "downloads"          # where a page's "save" puts its file
    downloads.mkdir()
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    return driver
