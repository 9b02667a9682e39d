"""The compiled-template cache: kept in a private folder of the user's, and one that cannot be
written (gone, full or read-only disk) only makes a command slower, never makes it fail."""
from __future__ import annotations

import os
import shutil
import stat

import jinja2
import pytest

from pbem.views.render.digest import QuietBytecodeCache, template_cache


def test_the_cache_is_a_private_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache = template_cache()
    folder = tmp_path / "pbem" / "templates"
    assert isinstance(cache, QuietBytecodeCache) and folder.is_dir()
    assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0
    os.chmod(folder, 0o755)                       # shared with others: not used
    assert template_cache() is None


def _render(cache: jinja2.BytecodeCache) -> str:
    env = jinja2.Environment(loader=jinja2.DictLoader({"t": "hello {{ name }}"}), bytecode_cache=cache)
    return env.get_template("t").render(name="red")


def test_a_cache_that_cannot_be_written_is_only_slower(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache = template_cache()
    assert cache is not None
    shutil.rmtree(tmp_path / "pbem")              # the folder went away (or the disk is full)
    assert _render(cache) == "hello red"
    plain = jinja2.FileSystemBytecodeCache(str(tmp_path / "gone"), "%s.jinja")
    with pytest.raises(OSError):                  # what Jinja2's own cache does there
        _render(plain)
